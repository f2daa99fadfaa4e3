//! SSE2 NH backend: one 16-byte unit per 128-bit vector.
//!
//! Technique: `pmuludq` multiplies the even 32-bit lanes (0 and 2) into two
//! 64-bit products, but NH multiplies lane 0 by 2 and 1 by 3. So the message
//! unit is shuffled once to (m0, m2, m1, m3) and the key is kept in the same
//! swapped order (`NhKey::swapped`, made once at key set-up); then for each
//! pass p `T = M' + K'_p` holds (t0, t2, t1, t3), and
//! `pmuludq(T, T >> 64-bit lanes by 32)` is (t0 t2, t1 t3), added into the
//! pass's two-lane accumulator. Source: Crowley & Biggers, IACR ToSC
//! 2018(4), section 6.3 (NH was chosen with w = 32 for SSE2's 32x32->64
//! `pmuludq`). Cost per 16-byte unit: 1 shuffle, then per pass 1 load +
//! add, shift, multiply, add: 17 vector operations, 1 of them a shuffle.

use crate::nh::NhKey;
#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

ct_dispatch::x86_detect!(sse2_cpuid, "sse2");

crate::backend::engine! {
    /// The SSE2 NH engine.
    Sse2, "has SSE2", sse2_cpuid::get();

    #[inline]
    fn units(_: Token, key: &NhKey, msg: &[u8]) -> [u64; 4] {
        // SAFETY: the token exists only if the CPU has SSE2.
        unsafe { units_sse2(&key.swapped, msg) }
    }
}

/// Adds one unit (`m`: 16 bytes) with key window `k` (16 words, swapped
/// form) to the four pass accumulators.
#[inline]
#[target_feature(enable = "sse2")]
fn unit(acc: &mut [__m128i; 4], m: &[u8], k: &[u32]) {
    debug_assert!(m.len() >= 16 && k.len() >= 16);
    // SAFETY: `m` has 16 bytes and `k` 16 words (callers slice them so);
    // unaligned loads.
    let (mv, kv) = unsafe {
        let kp = k.as_ptr().cast::<__m128i>();
        (
            _mm_loadu_si128(m.as_ptr().cast()),
            [
                _mm_loadu_si128(kp),
                _mm_loadu_si128(kp.add(1)),
                _mm_loadu_si128(kp.add(2)),
                _mm_loadu_si128(kp.add(3)),
            ],
        )
    };
    let mv = _mm_shuffle_epi32::<0xd8>(mv); // (m0, m2, m1, m3)
    for p in 0..4 {
        let t = _mm_add_epi32(mv, kv[p]); // (t0, t2, t1, t3)
        acc[p] = _mm_add_epi64(acc[p], _mm_mul_epu32(t, _mm_srli_epi64::<32>(t)));
    }
}

#[target_feature(enable = "sse2")]
fn units_sse2(key: &[u32], msg: &[u8]) -> [u64; 4] {
    let mut acc = [_mm_setzero_si128(); 4];
    for (m, k) in msg.chunks_exact(16).zip(key.windows(16).step_by(4)) {
        unit(&mut acc, m, k);
    }
    finish(acc)
}

/// Sums the two 64-bit lanes of each pass accumulator.
#[inline]
#[target_feature(enable = "sse2")]
pub(super) fn finish(acc: [__m128i; 4]) -> [u64; 4] {
    let mut out = [0u64; 4];
    for p in 0..4 {
        let s = _mm_add_epi64(acc[p], _mm_unpackhi_epi64(acc[p], acc[p]));
        let mut lanes = [0u64; 2];
        // SAFETY: `lanes` is 16 writable bytes.
        unsafe { _mm_storeu_si128(lanes.as_mut_ptr().cast(), s) };
        out[p] = lanes[0];
    }
    out
}

/// One unit, for the AVX2 backend's odd last unit.
#[inline]
#[target_feature(enable = "sse2")]
pub(super) fn single_unit(acc: &mut [__m128i; 4], m: &[u8], k: &[u32]) {
    unit(acc, m, k);
}
