//! ARMv8 PMULL (64x64 carry-less multiply) GHASH/POLYVAL with aggregated
//! reduction.
//!
//! Technique: as `x86/pclmul.rs` (Gueron and Kounavis 2010), with the
//! aarch64 form of the Linux arm64 `ghash-ce-core.S` (arch/arm64/crypto):
//! Karatsuba with the key's middle terms precomputed
//! (`H.lo ^ H.hi`), products of a run of blocks with `H^n..H^1` summed
//! unreduced, one Montgomery reduction (two PMULL by 0xC2..) per run. Blocks
//! per reduction: `WAYS` (8; measured against 2 and 4 with armcount, see
//! README). Cost: 3 PMULL + ~4 NEON ops per block, ~8 ops per run.

use core::arch::aarch64::*;

use super::{ld16, load_block};
use crate::Block;
use crate::clmul_key::ClmulKey;
use crate::clmul_key::POLY_C;
use crate::clmul_key::by_runs;

cpufeatures::new!(cpu_pmull, "aes");

/// Blocks per reduction.
const WAYS: usize = 8;

/// Proof that this CPU has the ARMv8 crypto extension (AES + PMULL).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Token(());

#[inline]
#[target_feature(enable = "neon,aes")]
fn pmull_lo(a: uint64x2_t, b: uint64x2_t) -> uint64x2_t {
    vreinterpretq_u64_p128(vmull_p64(vgetq_lane_u64::<0>(a), vgetq_lane_u64::<0>(b)))
}

#[inline]
#[target_feature(enable = "neon,aes")]
fn pmull_hi(a: uint64x2_t, b: uint64x2_t) -> uint64x2_t {
    vreinterpretq_u64_p128(vmull_high_p64(
        vreinterpretq_p64_u64(a),
        vreinterpretq_p64_u64(b),
    ))
}

/// Swap the two 64-bit halves.
#[inline]
#[target_feature(enable = "neon")]
fn swap(a: uint64x2_t) -> uint64x2_t {
    vextq_u64::<1>(a, a)
}

#[inline]
#[target_feature(enable = "neon")]
fn ld(p: &u128) -> uint64x2_t {
    vreinterpretq_u64_u8(ld16(p))
}

/// Montgomery reduction `(hi:lo) * x^-128 mod P` (see `field.rs`).
#[inline]
#[target_feature(enable = "neon,aes")]
fn reduce(lo: uint64x2_t, hi: uint64x2_t) -> uint64x2_t {
    let c = vdupq_n_u64(POLY_C);
    let t = pmull_lo(lo, c);
    let v = veorq_u64(swap(lo), t);
    let u = pmull_lo(v, c);
    veorq_u64(hi, veorq_u64(swap(v), u))
}

/// Absorb `blocks` (at most WAYS) with one reduction.
#[inline]
#[target_feature(enable = "neon,aes")]
fn agg<const GHASH: bool>(
    key: &ClmulKey<Token, WAYS, 1>,
    acc: uint64x2_t,
    blocks: &[Block],
) -> uint64x2_t {
    let base = WAYS - blocks.len();
    let mut lo = vdupq_n_u64(0);
    let mut mid = vdupq_n_u64(0);
    let mut hi = vdupq_n_u64(0);
    for (i, b) in blocks.iter().enumerate() {
        let mut x = vreinterpretq_u64_u8(load_block::<GHASH>(b));
        if i == 0 {
            x = veorq_u64(x, acc);
        }
        let h = ld(&key.hd[base + i]);
        let k = vdupq_n_u64(key.md[base + i]);
        lo = veorq_u64(lo, pmull_lo(x, h));
        hi = veorq_u64(hi, pmull_hi(x, h));
        mid = veorq_u64(mid, pmull_lo(veorq_u64(x, swap(x)), k));
    }
    finish(lo, mid, hi)
}

/// Karatsuba recombination (`mid` is the product of the half sums) and
/// reduction of summed products.
#[inline]
#[target_feature(enable = "neon,aes")]
fn finish(lo: uint64x2_t, mid: uint64x2_t, hi: uint64x2_t) -> uint64x2_t {
    let mid = veorq_u64(mid, veorq_u64(lo, hi));
    let z = vdupq_n_u64(0);
    let lo = veorq_u64(lo, vextq_u64::<1>(z, mid));
    let hi = veorq_u64(hi, vextq_u64::<1>(mid, z));
    reduce(lo, hi)
}

#[target_feature(enable = "neon,aes")]
fn update_impl<const GHASH: bool>(
    key: &ClmulKey<Token, WAYS, 1>,
    acc: &mut u128,
    blocks: &[Block],
) {
    let run = |k: &ClmulKey<Token, WAYS, 1>, a, r: &[Block]| agg::<GHASH>(k, a, r);
    let a = by_runs::<WAYS, false, _, _>(key, ld(acc), blocks, |k, a, r| run(k, a, r), run);
    // SAFETY: `acc` is a valid, exclusive reference to 16 writable bytes.
    unsafe { vst1q_u64((acc as *mut u128).cast(), a) };
}

/// One POLYVAL product `a * b * x^-128` (for the key powers).
#[target_feature(enable = "neon,aes")]
fn dot(a: u128, b: u128) -> u128 {
    let (x, y) = (ld(&a), ld(&b));
    let (xm, ym) = (veorq_u64(x, swap(x)), veorq_u64(y, swap(y)));
    let r = finish(pmull_lo(x, y), pmull_lo(xm, ym), pmull_hi(x, y));
    let mut out = 0u128;
    // SAFETY: 16 writable bytes.
    unsafe { vst1q_u64((&mut out as *mut u128).cast(), r) };
    out
}

crate::clmul_key::clmul_engine!(
    /// The PMULL engine.
    Pmull, Token, WAYS, 1, cpu_pmull, update_impl,
    // SAFETY: the token proves the crypto extension (PMULL).
    |_t, a, b| unsafe { dot(a, b) }
);
