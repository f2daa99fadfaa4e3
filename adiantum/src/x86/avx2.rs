//! AVX2 NH backend: two 16-byte units per 256-bit vector.
//!
//! Technique: as the SSE2 backend, with unit `u` in the low and unit `u+1`
//! in the high 128-bit lane. The key vectors the two units need for pass p
//! (words `4(u+p)..` and `4(u+1+p)..`) are adjacent, so one unaligned
//! 256-bit load fetches both. `vpshufd` and `vpmuludq` work per lane, so the
//! SSE2 shuffle pattern carries over unchanged. An odd last unit goes
//! through the SSE2 code. Source: Crowley & Biggers, IACR ToSC 2018(4),
//! section 6.3; the lane split is Linux's `nh-avx2-x86_64.S` idea.
//! Cost: ~21 vector operations per 32 bytes.

use super::sse2;
use crate::backend::Engine;
use crate::nh::NhKey;
#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

cpufeatures::new!(avx2_cpuid, "avx2");

/// The AVX2 NH engine.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2;

/// Proof that this CPU has AVX2 (only [`Avx2::token`] makes one).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Token(());

impl Engine for Avx2 {
    type Token = Token;

    fn token() -> Option<Token> {
        avx2_cpuid::get().then_some(Token(()))
    }

    #[inline]
    fn units(_: Token, key: &NhKey, msg: &[u8]) -> [u64; 4] {
        // SAFETY: the token exists only if the CPU has AVX2 (which implies SSE2).
        unsafe { units_avx2(&key.words, msg) }
    }
}

#[target_feature(enable = "avx2")]
fn units_avx2(key: &[u32], msg: &[u8]) -> [u64; 4] {
    let msg = &msg[..msg.len().min(1024)];
    let mut acc = [_mm256_setzero_si256(); 4];
    let pairs = msg.chunks_exact(32);
    let rest = pairs.remainder();
    let npairs = pairs.len();
    for (m, k) in pairs.zip(key.windows(20).step_by(8)) {
        // SAFETY: `m` has 32 bytes, `k` 20 words: the loads at word offsets
        // 0, 4, 8, 12 read 8 words each, the last ending at word 20.
        let (mv, kv) = unsafe {
            let kp = k.as_ptr();
            (
                _mm256_loadu_si256(m.as_ptr().cast()),
                [
                    _mm256_loadu_si256(kp.cast()),
                    _mm256_loadu_si256(kp.add(4).cast()),
                    _mm256_loadu_si256(kp.add(8).cast()),
                    _mm256_loadu_si256(kp.add(12).cast()),
                ],
            )
        };
        for p in 0..4 {
            let t = _mm256_add_epi32(mv, kv[p]);
            let x = _mm256_shuffle_epi32::<0x50>(t);
            let y = _mm256_shuffle_epi32::<0xfa>(t);
            acc[p] = _mm256_add_epi64(acc[p], _mm256_mul_epu32(x, y));
        }
    }
    let mut acc128 = [_mm_setzero_si128(); 4];
    for p in 0..4 {
        acc128[p] = _mm_add_epi64(
            _mm256_castsi256_si128(acc[p]),
            _mm256_extracti128_si256::<1>(acc[p]),
        );
    }
    if rest.len() >= 16 {
        let off = 8 * npairs;
        sse2::single_unit(&mut acc128, rest, &key[off..off + 16]);
    }
    sse2::finish(acc128)
}
