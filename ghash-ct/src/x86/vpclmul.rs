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
use crate::clmul_key::by_runs;

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

/// One width's bulk loop: `$pass` hashes 16 blocks, `$lanes` per vector,
/// with one reduction; `$update` runs it over whole 16-block chunks and
/// the 128-bit path over the rest. The two widths differ only in the
/// vector type and intrinsic names, so the algorithm is written once.
macro_rules! width {
    (
        $features:literal, $token:ty, $lanes:literal,
        $pass:ident, $update:ident, $fold:path,
        $bcast:ident, $zero:ident, $load:ident, $shuf8:ident, $xor:ident,
        $zext:ident, $clmul:ident, $shuf32:ident
    ) => {
        #[target_feature(enable = $features)]
        fn $pass<const GHASH: bool>(
            key: &ClmulKey<$token, WAYS, $lanes>,
            acc: __m128i,
            blocks: &[Block; WAYS],
        ) -> __m128i {
            let bswap = $bcast(bswap128());
            let (mut lo, mut mid, mut hi) = ($zero(), $zero(), $zero());
            // Pairs of vectors: one load of middle terms serves both (the
            // first takes the lanes' low words, the second the high ones).
            for g in 0..WAYS / (2 * $lanes) {
                // SAFETY: md[2 * lanes * g..][..2 * lanes] are 16 * lanes
                // contiguous readable bytes (md holds WAYS words).
                let k = unsafe { $load(key.md[2 * $lanes * g..].as_ptr().cast()) };
                for half in 0..2 {
                    let b = $lanes * (2 * g + half);
                    // SAFETY: blocks[b..b + lanes] are 16 * lanes contiguous
                    // readable bytes (b + lanes <= WAYS).
                    let mut x = unsafe { $load(blocks[b].as_ptr().cast()) };
                    if GHASH {
                        x = $shuf8(x, bswap);
                    }
                    if b == 0 {
                        x = $xor(x, $zext(acc));
                    }
                    // SAFETY: hd[b..b + lanes] are 16 * lanes contiguous
                    // readable bytes (it holds WAYS powers).
                    let h = unsafe { $load(key.hd[b..].as_ptr().cast()) };
                    lo = $xor(lo, $clmul::<0x00>(x, h));
                    hi = $xor(hi, $clmul::<0x11>(x, h));
                    let xm = $xor(x, $shuf32::<0x4e>(x));
                    let m = if half == 0 {
                        $clmul::<0x00>(xm, k)
                    } else {
                        $clmul::<0x10>(xm, k)
                    };
                    mid = $xor(mid, m);
                }
            }
            finish($fold(lo), $fold(mid), $fold(hi))
        }

        #[target_feature(enable = $features)]
        fn $update<const GHASH: bool>(
            key: &ClmulKey<$token, WAYS, $lanes>,
            acc: &mut u128,
            blocks: &[Block],
        ) {
            let a = by_runs::<WAYS, true, _, _>(
                key,
                ld(acc),
                blocks,
                |k, a, r| $pass::<GHASH>(k, a, r),
                |k, a, r| agg::<GHASH, _, WAYS, $lanes>(k, a, r),
            );
            st(acc, a);
        }
    };
}

width!(
    "avx512f,avx512bw,vpclmulqdq,pclmulqdq,ssse3",
    Token512,
    4,
    pass512,
    update512,
    fold512,
    _mm512_broadcast_i32x4,
    _mm512_setzero_si512,
    _mm512_loadu_si512,
    _mm512_shuffle_epi8,
    _mm512_xor_si512,
    _mm512_zextsi128_si512,
    _mm512_clmulepi64_epi128,
    _mm512_shuffle_epi32
);
width!(
    "avx2,vpclmulqdq,pclmulqdq,ssse3",
    Token256,
    2,
    pass256,
    update256,
    fold256,
    _mm256_broadcastsi128_si256,
    _mm256_setzero_si256,
    _mm256_loadu_si256,
    _mm256_shuffle_epi8,
    _mm256_xor_si256,
    _mm256_zextsi128_si256,
    _mm256_clmulepi64_epi128,
    _mm256_shuffle_epi32
);

/// XOR of the four 128-bit lanes.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vpclmulqdq,pclmulqdq,ssse3")]
fn fold512(v: __m512i) -> __m128i {
    let y = _mm256_xor_si256(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64::<1>(v));
    _mm_xor_si128(_mm256_castsi256_si128(y), _mm256_extracti128_si256::<1>(y))
}

/// XOR of the two 128-bit lanes.
#[inline]
#[target_feature(enable = "avx2,vpclmulqdq,pclmulqdq,ssse3")]
fn fold256(y: __m256i) -> __m128i {
    _mm_xor_si128(_mm256_castsi256_si128(y), _mm256_extracti128_si256::<1>(y))
}

// The VPCLMULQDQ checks include PCLMULQDQ and SSSE3: the 128-bit product
// of `pclmul.rs` builds the key powers.
crate::clmul_key::clmul_engine!(
    /// The VPCLMULQDQ engine on 512-bit vectors.
    Vpclmul512, Token512, WAYS, 4, cpu_vpclmul512, update512,
    |_t, a, b| super::pclmul::dot(super::pclmul::Token(()), a, b)
);
crate::clmul_key::clmul_engine!(
    /// The VPCLMULQDQ engine on 256-bit vectors.
    Vpclmul256, Token256, WAYS, 2, cpu_vpclmul256, update256,
    |_t, a, b| super::pclmul::dot(super::pclmul::Token(()), a, b)
);
