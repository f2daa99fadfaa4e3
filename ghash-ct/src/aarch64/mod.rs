//! AArch64 backends: 64-bit PMULL and NEON 8-bit `pmull`.
pub(crate) mod pmull;
pub(crate) mod pmull8;

use crate::Block;
use core::arch::aarch64::*;

/// The 16 bytes of `p`.
#[inline]
#[target_feature(enable = "neon")]
fn ld16(p: &u128) -> uint8x16_t {
    // SAFETY: `p` is a valid reference to 16 readable bytes.
    unsafe { vld1q_u8((p as *const u128).cast()) }
}

/// One block as a POLYVAL element (GHASH blocks are byte-reversed).
#[inline]
#[target_feature(enable = "neon")]
fn load_block<const GHASH: bool>(b: &Block) -> uint8x16_t {
    // SAFETY: `b` is a valid reference to 16 readable bytes.
    let x = unsafe { vld1q_u8(b.as_ptr()) };
    if GHASH {
        vrev64q_u8(vextq_u8::<8>(x, x))
    } else {
        x
    }
}
