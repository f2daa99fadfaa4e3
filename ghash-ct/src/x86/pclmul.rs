//! PCLMULQDQ GHASH/POLYVAL with aggregated reduction, 8 blocks per
//! reduction, and the shared x86 key form and 128-bit helpers.
//!
//! Technique: Gueron and Kounavis, "Intel Carry-Less Multiplication
//! Instruction and its Usage for Computing the GCM Mode" (Intel white paper
//! rev. 2.02, 2010): Karatsuba 128x128 (3 PCLMULQDQ per block, the key's
//! middle term `H.lo ^ H.hi` precomputed), products of blocks with
//! `H^n .. H^1` summed unreduced, one reduction per chunk. Operands are in
//! POLYVAL (little-endian) form, so the reduction is the Montgomery one of
//! `field.rs` with two PCLMULQDQ by the constant `0xC2...` (Gueron,
//! "AES-GCM-SIV" implementation notes) and GHASH only needs a PSHUFB byte
//! reversal per block. Cost: 3 PCLMULQDQ + ~5 other ops per block, plus
//! 2 PCLMULQDQ + ~6 ops per 8 blocks.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use crate::Block;
pub(crate) use crate::clmul_key::ClmulKey;
use crate::clmul_key::POLY_C;
use crate::clmul_key::by_runs;

ct_dispatch::x86_detect!(cpu_pclmul, "pclmulqdq", "ssse3");

/// Blocks per reduction.
const WAYS: usize = 8;

/// Proof that this CPU has PCLMULQDQ and SSSE3 (made here, or from the
/// VPCLMULQDQ tokens, whose CPU checks include both).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Token(pub(super) ());

/// One POLYVAL product `a * b * x^-128` (for the key powers).
pub(crate) fn dot(_: Token, a: u128, b: u128) -> u128 {
    // SAFETY: the token proves PCLMULQDQ and SSSE3.
    unsafe { dot_impl(a, b) }
}

#[target_feature(enable = "pclmulqdq,ssse3")]
fn dot_impl(a: u128, b: u128) -> u128 {
    let (x, y) = (ld(&a), ld(&b));
    let xm = _mm_xor_si128(x, _mm_shuffle_epi32::<0x4e>(x));
    let ym = _mm_xor_si128(y, _mm_shuffle_epi32::<0x4e>(y));
    let r = finish(
        _mm_clmulepi64_si128::<0x00>(x, y),
        _mm_clmulepi64_si128::<0x00>(xm, ym),
        _mm_clmulepi64_si128::<0x11>(x, y),
    );
    let mut out = 0u128;
    st(&mut out, r);
    out
}

/// Load 16 bytes (no alignment needed).
#[inline(always)]
pub(crate) fn ld(p: &u128) -> __m128i {
    // SAFETY: `p` is a valid reference to 16 readable bytes; SSE2 is
    // baseline on every x86 target Rust supports with SIMD enabled.
    unsafe { _mm_loadu_si128((p as *const u128).cast()) }
}

/// Store 16 bytes.
#[inline(always)]
pub(crate) fn st(p: &mut u128, v: __m128i) {
    // SAFETY: `p` is a valid, exclusive reference to 16 writable bytes.
    unsafe { _mm_storeu_si128((p as *mut u128).cast(), v) }
}

/// One block as a POLYVAL element (GHASH blocks are byte-reversed).
#[inline]
#[target_feature(enable = "pclmulqdq,ssse3")]
pub(crate) fn load_block<const GHASH: bool>(b: &Block) -> __m128i {
    // SAFETY: `b` is a valid reference to 16 readable bytes.
    let x = unsafe { _mm_loadu_si128(b.as_ptr().cast()) };
    if GHASH {
        _mm_shuffle_epi8(x, bswap128())
    } else {
        x
    }
}

/// PSHUFB mask reversing the 16 bytes of a block.
#[inline]
#[target_feature(enable = "pclmulqdq,ssse3")]
pub(crate) fn bswap128() -> __m128i {
    _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
}

/// Montgomery reduction `(hi:lo) * x^-128 mod P` (see `field.rs`).
#[inline]
#[target_feature(enable = "pclmulqdq,ssse3")]
pub(crate) fn reduce(lo: __m128i, hi: __m128i) -> __m128i {
    let c = _mm_set_epi64x(0, POLY_C as i64);
    // t = D0 * C; v = [D1 ^ t.lo, D0 ^ t.hi]
    let t = _mm_clmulepi64_si128::<0x00>(lo, c);
    let v = _mm_xor_si128(_mm_shuffle_epi32::<0x4e>(lo), t);
    // u = v.lo * C; w = [v.hi ^ u.lo, v.lo ^ u.hi]
    let u = _mm_clmulepi64_si128::<0x00>(v, c);
    let w = _mm_xor_si128(_mm_shuffle_epi32::<0x4e>(v), u);
    _mm_xor_si128(hi, w)
}

/// Karatsuba recombination and reduction of summed products.
#[inline]
#[target_feature(enable = "pclmulqdq,ssse3")]
pub(crate) fn finish(lo: __m128i, mid: __m128i, hi: __m128i) -> __m128i {
    let mid = _mm_xor_si128(mid, _mm_xor_si128(lo, hi));
    let lo = _mm_xor_si128(lo, _mm_slli_si128::<8>(mid));
    let hi = _mm_xor_si128(hi, _mm_srli_si128::<8>(mid));
    reduce(lo, hi)
}

/// Absorb `blocks` (at most N) with one reduction: block i times
/// `H^(n - i)`, the accumulator folded into the first block.
#[inline]
#[target_feature(enable = "pclmulqdq,ssse3")]
pub(crate) fn agg<const GHASH: bool, T: Copy, const N: usize, const L: usize>(
    key: &ClmulKey<T, N, L>,
    acc: __m128i,
    blocks: &[Block],
) -> __m128i {
    let base = N - blocks.len();
    let mut lo = _mm_setzero_si128();
    let mut mid = _mm_setzero_si128();
    let mut hi = _mm_setzero_si128();
    for (i, b) in blocks.iter().enumerate() {
        let mut x = load_block::<GHASH>(b);
        if i == 0 {
            x = _mm_xor_si128(x, acc);
        }
        let h = ld(&key.hd[base + i]);
        // The middle term: stored for this backend's own layout (`L = 1`);
        // made from the power for the wide backends' short runs, whose
        // layout serves vector loads.
        let k = if L == 1 {
            _mm_set_epi64x(0, key.md[base + i] as i64)
        } else {
            _mm_xor_si128(h, _mm_shuffle_epi32::<0x4e>(h))
        };
        lo = _mm_xor_si128(lo, _mm_clmulepi64_si128::<0x00>(x, h));
        hi = _mm_xor_si128(hi, _mm_clmulepi64_si128::<0x11>(x, h));
        let xm = _mm_xor_si128(x, _mm_shuffle_epi32::<0x4e>(x));
        mid = _mm_xor_si128(mid, _mm_clmulepi64_si128::<0x00>(xm, k));
    }
    finish(lo, mid, hi)
}

#[target_feature(enable = "pclmulqdq,ssse3")]
fn update_impl<const GHASH: bool>(
    key: &ClmulKey<Token, WAYS, 1>,
    acc: &mut u128,
    blocks: &[Block],
) {
    let run = |k: &ClmulKey<Token, WAYS, 1>, a, r: &[Block]| agg::<GHASH, _, WAYS, 1>(k, a, r);
    let a = by_runs::<WAYS, true, _, _>(key, ld(acc), blocks, |k, a, r| run(k, a, r), run);
    st(acc, a);
}

crate::clmul_key::clmul_engine!(
    /// The PCLMULQDQ engine.
    Pclmul, Token, WAYS, 1, cpu_pclmul, update_impl,
    |t, a, b| dot(t, a, b)
);
