//! NEON (intrinsics) NH backend for aarch64: one 16-byte unit per vector.
//!
//! Technique: for each pass p, `T = M + K_p` (`add .4s`), then one
//! `umlal`/`umlal2` multiplies (t0, t1) by (t2, t3) into that pass's two
//! 64-bit lanes. Intrinsics, not assembly: on aarch64 LLVM compiles NEON
//! intrinsics well (NetBSD's experience with its Adiantum code). Source:
//! Crowley & Biggers, IACR ToSC 2018(4), section 6.3, which picks the stride
//! s = 2 so that this pairing needs no transposition.
//! Cost: per unit 1 + 4 loads, 4 adds, 4 multiply-accumulates (+ lane moves).
//!
//! NEON (ASIMD) is part of the aarch64 baseline for every Rust
//! aarch64 target with `target_feature = "neon"` (all the `-linux-` ones);
//! `cpufeatures` has no "asimd" check, so the token is the compile-time fact.

use crate::nh::NhKey;
use core::arch::aarch64::*;

crate::backend::engine! {
    /// The aarch64 NEON NH engine.
    Neon, "has NEON", cfg!(target_feature = "neon");

    #[inline]
    fn units(_: Token, key: &NhKey, msg: &[u8]) -> [u64; 4] {
        // SAFETY: the token exists only if NEON is available.
        unsafe { units_neon(&key.words, msg) }
    }
}

#[target_feature(enable = "neon")]
fn units_neon(key: &[u32; crate::nh::KEY_WORDS], msg: &[u8]) -> [u64; 4] {
    // At most 64 units: unit u reads key words 4u .. 4u + 16 <= 268.
    let units = msg.len().min(1024) / 16;
    let (kp, mp) = (key.as_ptr(), msg.as_ptr());
    let mut acc = [vdupq_n_u64(0); 4];
    for u in 0..units {
        // SAFETY: `msg` has at least 16 * units bytes and `key` 268 words
        // (see above); plain (unaligned-capable) NEON loads.
        let (mv, kv) = unsafe {
            let k = kp.add(4 * u);
            (
                vreinterpretq_u32_u8(vld1q_u8(mp.add(16 * u))),
                [
                    vld1q_u32(k),
                    vld1q_u32(k.add(4)),
                    vld1q_u32(k.add(8)),
                    vld1q_u32(k.add(12)),
                ],
            )
        };
        for p in 0..4 {
            let t = vaddq_u32(mv, kv[p]);
            acc[p] = vmlal_u32(acc[p], vget_low_u32(t), vget_high_u32(t));
        }
    }
    let mut out = [0u64; 4];
    for p in 0..4 {
        out[p] = vaddvq_u64(acc[p]);
    }
    out
}
