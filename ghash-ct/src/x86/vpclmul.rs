//! VPCLMULQDQ GHASH/POLYVAL for bulk data: 16 blocks per reduction, four
//! blocks per 512-bit register (AVX-512) or two per 256-bit register (AVX2).
//!
//! Technique: the aggregated Karatsuba scheme of `pclmul.rs` (Gueron and
//! Kounavis 2010) widened to vector lanes, as in Drucker, Gueron and
//! Krasnov, "Making AES great again: the forthcoming vectorized AES
//! instruction" (ITNG 2018) and Linux's `aes-gcm-avx10-x86_64.S` notes:
//! lane j of a wide register multiplies block j by its own power
//! (`H^16 .. H^1` across the 16 blocks), the lanes' unreduced products are
//! summed, folded to 128 bits, and reduced once. Runs of fewer than 16
//! blocks go through the 128-bit path with the matching tail of powers.
//! Cost per 16 blocks: 12 (AVX-512) or 24 (AVX2) wide VPCLMULQDQ, one
//! 128-bit reduction.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use super::pclmul::{ClmulKey, agg, bswap128, finish, ld, st};
use crate::Block;

ct_dispatch::x86_detect!(
    cpu_vpclmul512,
    "avx512f",
    "avx512bw",
    "vpclmulqdq",
    "pclmulqdq",
    "ssse3"
);
ct_dispatch::x86_detect!(cpu_vpclmul256, "avx2", "vpclmulqdq", "pclmulqdq", "ssse3");

/// Blocks per reduction.
const WAYS: usize = 16;

/// Proof that this CPU has AVX-512F/BW and VPCLMULQDQ.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Token512(());

/// Proof that this CPU has AVX2 and VPCLMULQDQ.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Token256(());

#[target_feature(enable = "avx512f,avx512bw,vpclmulqdq,pclmulqdq,ssse3")]
fn pass512<const GHASH: bool>(
    key: &ClmulKey<Token512, WAYS>,
    acc: __m128i,
    blocks: &[Block; WAYS],
) -> __m128i {
    let bswap = _mm512_broadcast_i32x4(bswap128());
    let mut lo = _mm512_setzero_si512();
    let mut mid = _mm512_setzero_si512();
    let mut hi = _mm512_setzero_si512();
    for j in 0..WAYS / 4 {
        // SAFETY: blocks[4j..4j+4] are 64 contiguous readable bytes.
        let mut x = unsafe { _mm512_loadu_si512(blocks[4 * j].as_ptr().cast()) };
        if GHASH {
            x = _mm512_shuffle_epi8(x, bswap);
        }
        if j == 0 {
            x = _mm512_xor_si512(x, _mm512_zextsi128_si512(acc));
        }
        // SAFETY: hd/md[4j..4j+4] are 64 contiguous readable bytes.
        let (h, k) = unsafe {
            (
                _mm512_loadu_si512(key.hd[4 * j..].as_ptr().cast()),
                _mm512_loadu_si512(key.md[4 * j..].as_ptr().cast()),
            )
        };
        lo = _mm512_xor_si512(lo, _mm512_clmulepi64_epi128::<0x00>(x, h));
        hi = _mm512_xor_si512(hi, _mm512_clmulepi64_epi128::<0x11>(x, h));
        let xm = _mm512_xor_si512(x, _mm512_shuffle_epi32::<0x4e>(x));
        mid = _mm512_xor_si512(mid, _mm512_clmulepi64_epi128::<0x00>(xm, k));
    }
    finish(fold512(lo), fold512(mid), fold512(hi))
}

/// XOR of the four 128-bit lanes.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vpclmulqdq,pclmulqdq,ssse3")]
fn fold512(v: __m512i) -> __m128i {
    let y = _mm256_xor_si256(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64::<1>(v));
    _mm_xor_si128(_mm256_castsi256_si128(y), _mm256_extracti128_si256::<1>(y))
}

#[target_feature(enable = "avx512f,avx512bw,vpclmulqdq,pclmulqdq,ssse3")]
fn update512<const GHASH: bool>(key: &ClmulKey<Token512, WAYS>, acc: &mut u128, blocks: &[Block]) {
    let mut a = ld(acc);
    let (chunks, rest) = blocks.as_chunks::<WAYS>();
    for ch in chunks {
        a = pass512::<GHASH>(key, a, ch);
    }
    if !rest.is_empty() {
        a = agg::<GHASH, _, WAYS>(key, a, rest);
    }
    st(acc, a);
}

#[target_feature(enable = "avx2,vpclmulqdq,pclmulqdq,ssse3")]
fn pass256<const GHASH: bool>(
    key: &ClmulKey<Token256, WAYS>,
    acc: __m128i,
    blocks: &[Block; WAYS],
) -> __m128i {
    let bswap = _mm256_broadcastsi128_si256(bswap128());
    let mut lo = _mm256_setzero_si256();
    let mut mid = _mm256_setzero_si256();
    let mut hi = _mm256_setzero_si256();
    for j in 0..WAYS / 2 {
        // SAFETY: blocks[2j..2j+2] are 32 contiguous readable bytes.
        let mut x = unsafe { _mm256_loadu_si256(blocks[2 * j].as_ptr().cast()) };
        if GHASH {
            x = _mm256_shuffle_epi8(x, bswap);
        }
        if j == 0 {
            x = _mm256_xor_si256(x, _mm256_zextsi128_si256(acc));
        }
        // SAFETY: hd/md[2j..2j+2] are 32 contiguous readable bytes.
        let (h, k) = unsafe {
            (
                _mm256_loadu_si256(key.hd[2 * j..].as_ptr().cast()),
                _mm256_loadu_si256(key.md[2 * j..].as_ptr().cast()),
            )
        };
        lo = _mm256_xor_si256(lo, _mm256_clmulepi64_epi128::<0x00>(x, h));
        hi = _mm256_xor_si256(hi, _mm256_clmulepi64_epi128::<0x11>(x, h));
        let xm = _mm256_xor_si256(x, _mm256_shuffle_epi32::<0x4e>(x));
        mid = _mm256_xor_si256(mid, _mm256_clmulepi64_epi128::<0x00>(xm, k));
    }
    finish(fold256(lo), fold256(mid), fold256(hi))
}

/// XOR of the two 128-bit lanes.
#[inline]
#[target_feature(enable = "avx2,vpclmulqdq,pclmulqdq,ssse3")]
fn fold256(y: __m256i) -> __m128i {
    _mm_xor_si128(_mm256_castsi256_si128(y), _mm256_extracti128_si256::<1>(y))
}

#[target_feature(enable = "avx2,vpclmulqdq,pclmulqdq,ssse3")]
fn update256<const GHASH: bool>(key: &ClmulKey<Token256, WAYS>, acc: &mut u128, blocks: &[Block]) {
    let mut a = ld(acc);
    let (chunks, rest) = blocks.as_chunks::<WAYS>();
    for ch in chunks {
        a = pass256::<GHASH>(key, a, ch);
    }
    if !rest.is_empty() {
        a = agg::<GHASH, _, WAYS>(key, a, rest);
    }
    st(acc, a);
}

/// The VPCLMULQDQ engine on 512-bit vectors.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Vpclmul512;

impl crate::backend::Engine for Vpclmul512 {
    type Token = Token512;
    type Key = ClmulKey<Token512, WAYS>;

    fn token() -> Option<Token512> {
        cpu_vpclmul512::get().then_some(Token512(()))
    }

    fn new_key(token: Token512, h: u128) -> Self::Key {
        // The VPCLMULQDQ check includes PCLMULQDQ and SSSE3.
        let t = super::pclmul::Token(());
        ClmulKey::new(token, h, |a, b| super::pclmul::dot(t, a, b))
    }

    fn update<const GHASH: bool>(key: &Self::Key, acc: &mut u128, blocks: &[Block]) {
        // SAFETY: a key holds a `Token512`, which `token()` only hands out
        // after the CPU check for every feature enabled on `update512` passed.
        unsafe { update512::<GHASH>(key, acc, blocks) }
    }
}

/// The VPCLMULQDQ engine on 256-bit vectors.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Vpclmul256;

impl crate::backend::Engine for Vpclmul256 {
    type Token = Token256;
    type Key = ClmulKey<Token256, WAYS>;

    fn token() -> Option<Token256> {
        cpu_vpclmul256::get().then_some(Token256(()))
    }

    fn new_key(token: Token256, h: u128) -> Self::Key {
        // The VPCLMULQDQ check includes PCLMULQDQ and SSSE3.
        let t = super::pclmul::Token(());
        ClmulKey::new(token, h, |a, b| super::pclmul::dot(t, a, b))
    }

    fn update<const GHASH: bool>(key: &Self::Key, acc: &mut u128, blocks: &[Block]) {
        // SAFETY: a key holds a `Token256`, which `token()` only hands out
        // after the CPU check for every feature enabled on `update256` passed.
        unsafe { update256::<GHASH>(key, acc, blocks) }
    }
}
