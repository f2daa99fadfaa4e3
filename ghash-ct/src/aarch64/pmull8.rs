//! AArch64 NEON GHASH/POLYVAL without the crypto extension: 64x64-bit
//! carry-less products assembled from 8x8-bit polynomial multiplies
//! (`pmull`/`pmull2` on `.8b`/`.16b`).
//!
//! Technique: Camara, Gouvea, Lopez, Dahab, "Fast Software Polynomial
//! Multiplication on ARM Processors Using the NEON Engine" (CD-ARES 2013),
//! section 4: with a = sum a_i x^(8i), b = sum b_j x^(8j), one 8-lane byte
//! multiply of `a` and `b` rotated by r bytes gives, in 16-bit lane i,
//! a_i * b_(i+r mod 8); that lane belongs at bit 16i + 8r, or 64 bits lower
//! for the lanes that wrapped (i + r >= 8). Pairing `a * rot(b, r)` with
//! `rot(a, r) * b` covers every byte pair once with 8 multiplies
//! (r = 0, 1+1, 2+2, 3+3, 4).
//!
//! Our arrangement (measured with armcount, see README):
//! - The key is the carry-less-multiply backends' form (`H^k` and its
//!   Karatsuba middle terms, 192 bytes); the middle term is remade from
//!   the loaded power (one `eor`, cheaper than its own load), and the
//!   rotations by 1..4 bytes are made per block with the same constant
//!   `tbl` / `ext` as the data's, not kept (five times the key's size).
//! - lo and hi Karatsuba parts share one 128-bit register: `pmull` takes the
//!   low halves, `pmull2` the high halves; data rotations within each half
//!   are one `tbl` with a constant index (no secret index).
//! - The placement of each rotation family (move the wrapped lanes down 64
//!   bits, then shift left r bytes) is linear, so the families are summed
//!   over a whole run of blocks (products with `H^n..H^1`) and placed once
//!   per run, together with one Karatsuba fix-up and one reduction: the
//!   placement is amortised like the reduction.
//!
//! Cost per block: 24 byte multiplies, 24 XORs, ~14 rotations and a key load;
//! per run of `WAYS` blocks: ~70 placement ops and a shift-only reduction.

use core::arch::aarch64::*;

use super::{ld16, load_block};
use crate::Block;
use crate::clmul_key::ClmulKey;
use crate::clmul_key::by_runs;
use crate::field::reduce;

/// Blocks per run (placement + reduction).
const WAYS: usize = 8;

/// NEON is part of the AArch64 base architecture: always available.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Token(());

/// Key powers, descending, with their Karatsuba middle terms (the form of
/// the carry-less-multiply backends, one block per vector). The byte
/// rotations are made where the powers are multiplied, in registers.
type Key8 = ClmulKey<Token, WAYS, 1>;

/// `tbl` indices rotating each 8-byte half left by r bytes (r = 1, 2, 3).
static ROT: [[u8; 16]; 3] = [
    [1, 2, 3, 4, 5, 6, 7, 0, 9, 10, 11, 12, 13, 14, 15, 8],
    [2, 3, 4, 5, 6, 7, 0, 1, 10, 11, 12, 13, 14, 15, 8, 9],
    [3, 4, 5, 6, 7, 0, 1, 2, 11, 12, 13, 14, 15, 8, 9, 10],
];

/// Byte products of the low halves.
#[inline]
#[target_feature(enable = "neon")]
fn pm(a: uint8x16_t, b: uint8x16_t) -> uint8x16_t {
    vreinterpretq_u8_p16(vmull_p8(
        vreinterpret_p8_u8(vget_low_u8(a)),
        vreinterpret_p8_u8(vget_low_u8(b)),
    ))
}

/// Byte products of the high halves.
#[inline]
#[target_feature(enable = "neon")]
fn pm2(a: uint8x16_t, b: uint8x16_t) -> uint8x16_t {
    vreinterpretq_u8_p16(vmull_high_p8(
        vreinterpretq_p8_u8(a),
        vreinterpretq_p8_u8(b),
    ))
}

/// Byte products of 8-byte vectors.
#[inline]
#[target_feature(enable = "neon")]
fn pmd(a: uint8x8_t, b: uint8x8_t) -> uint8x16_t {
    vreinterpretq_u8_p16(vmull_p8(vreinterpret_p8_u8(a), vreinterpret_p8_u8(b)))
}

/// Place rotation family r: move the wrapped lanes (the top 16r bits)
/// down by 64 bits, then shift the whole 128 bits left by r bytes.
macro_rules! place {
    ($s:expr, $r:literal) => {{
        let s = vreinterpretq_u64_u8($s);
        let w = vandq_u64(
            s,
            vcombine_u64(vcreate_u64(0), vcreate_u64(!0u64 << (64 - 16 * $r))),
        );
        let s = veorq_u64(veorq_u64(s, w), vextq_u64::<1>(w, w));
        vextq_u8::<{ 16 - $r }>(vdupq_n_u8(0), vreinterpretq_u8_u64(s))
    }};
}

/// Sum of the placed families: the 128-bit product.
#[inline]
#[target_feature(enable = "neon")]
fn combine(f: &[uint8x16_t; 5]) -> u128 {
    let r = veorq_u8(
        veorq_u8(f[0], place!(f[1], 1)),
        veorq_u8(place!(f[2], 2), veorq_u8(place!(f[3], 3), place!(f[4], 4))),
    );
    let mut out = 0u128;
    // SAFETY: `out` is 16 writable bytes.
    unsafe { vst1q_u8((&mut out as *mut u128).cast(), r) };
    out
}

/// One run of at most WAYS blocks, one placement and one reduction.
#[inline]
#[target_feature(enable = "neon")]
fn run<const GHASH: bool>(key: &Key8, acc: u128, blocks: &[Block]) -> u128 {
    let base = WAYS - blocks.len();
    let z = vdupq_n_u8(0);
    let (mut l, mut h, mut m) = ([z; 5], [z; 5], [z; 5]);
    // SAFETY: ROT rows are 16 readable bytes each.
    let (t1, t2, t3) = unsafe {
        (
            vld1q_u8(ROT[0].as_ptr()),
            vld1q_u8(ROT[1].as_ptr()),
            vld1q_u8(ROT[2].as_ptr()),
        )
    };
    for (i, b) in blocks.iter().enumerate() {
        let mut x = load_block::<GHASH>(b);
        if i == 0 {
            x = veorq_u8(x, ld16(&acc));
        }
        // Key rotations by the same constant tables as the data's (r = 4 is
        // a swap of the 32-bit words of each half).
        let k0 = ld16(&key.hd[base + i]);
        let (k1, k2, k3) = (vqtbl1q_u8(k0, t1), vqtbl1q_u8(k0, t2), vqtbl1q_u8(k0, t3));
        let k4 = vreinterpretq_u8_u32(vrev64q_u32(vreinterpretq_u32_u8(k0)));
        let (x1, x2, x3) = (vqtbl1q_u8(x, t1), vqtbl1q_u8(x, t2), vqtbl1q_u8(x, t3));
        l[0] = veorq_u8(l[0], pm(x, k0));
        h[0] = veorq_u8(h[0], pm2(x, k0));
        l[1] = veorq_u8(l[1], veorq_u8(pm(x, k1), pm(x1, k0)));
        h[1] = veorq_u8(h[1], veorq_u8(pm2(x, k1), pm2(x1, k0)));
        l[2] = veorq_u8(l[2], veorq_u8(pm(x, k2), pm(x2, k0)));
        h[2] = veorq_u8(h[2], veorq_u8(pm2(x, k2), pm2(x2, k0)));
        l[3] = veorq_u8(l[3], veorq_u8(pm(x, k3), pm(x3, k0)));
        h[3] = veorq_u8(h[3], veorq_u8(pm2(x, k3), pm2(x3, k0)));
        l[4] = veorq_u8(l[4], pm(x, k4));
        h[4] = veorq_u8(h[4], pm2(x, k4));

        let xm = veor_u8(vget_low_u8(x), vget_high_u8(x));
        let m0 = veor_u8(vget_low_u8(k0), vget_high_u8(k0));
        let m4 = vreinterpret_u8_u32(vrev64_u32(vreinterpret_u32_u8(m0)));
        m[0] = veorq_u8(m[0], pmd(xm, m0));
        m[1] = veorq_u8(
            m[1],
            veorq_u8(pmd(xm, vext_u8::<1>(m0, m0)), pmd(vext_u8::<1>(xm, xm), m0)),
        );
        m[2] = veorq_u8(
            m[2],
            veorq_u8(pmd(xm, vext_u8::<2>(m0, m0)), pmd(vext_u8::<2>(xm, xm), m0)),
        );
        m[3] = veorq_u8(
            m[3],
            veorq_u8(pmd(xm, vext_u8::<3>(m0, m0)), pmd(vext_u8::<3>(xm, xm), m0)),
        );
        m[4] = veorq_u8(m[4], pmd(xm, m4));
    }
    let lo = combine(&l);
    let hi = combine(&h);
    let mid = combine(&m) ^ lo ^ hi;
    reduce(lo ^ mid << 64, hi ^ mid >> 64)
}

/// The NEON 8-bit multiply engine.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pmull8;

impl crate::backend::Engine for Pmull8 {
    type Token = Token;
    type Key = Key8;

    fn token() -> Option<Token> {
        Some(Token(()))
    }

    fn new_key(token: Token, h: u128) -> Self::Key {
        ClmulKey::new(token, h, crate::soft::dot)
    }

    fn update<const GHASH: bool>(key: &Self::Key, acc: &mut u128, blocks: &[Block]) {
        // SAFETY: NEON is part of the AArch64 base architecture.
        let run = |k: &Key8, a, r: &[Block]| unsafe { run::<GHASH>(k, a, r) };
        *acc = by_runs::<WAYS, false, _, _>(key, *acc, blocks, |k, a, r| run(k, a, r), run);
    }
}
