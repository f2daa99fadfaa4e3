//! The field GF(2^128) in POLYVAL form, and the policy every backend shares:
//! domain conversion, Montgomery reduction, and the key powers.
//!
//! Technique: RFC 8452 section 3 and appendix A. POLYVAL works on
//! little-endian field elements (bit i of the 128-bit integer is the
//! coefficient of x^i), modulo P(x) = x^128 + x^127 + x^126 + x^121 + 1, and
//! its product is `dot(a, b) = a * b * x^-128`. GHASH is POLYVAL on
//! byte-reversed blocks with `H' = mulX(ByteReverse(H))` and a byte-reversed
//! result, so one core serves both (Gueron, "AES-GCM-SIV: specification and
//! analysis", and the RFC's appendix A). Carry-less multiply instructions
//! (PCLMULQDQ, PMULL, vmull.p8) compute polynomial products of
//! little-endian operands directly, so no bit reflection is ever needed.
//!
//! Reduction (Montgomery, two 64-bit steps): for a 256-bit product
//! D = D3:D2:D1:D0, adding D0 * P clears D0, where P's low word contributes
//! only D0 and its x^121, x^126, x^127 terms are D0 * C with
//! C = x^63 + x^62 + x^57 (0xC200...00) in the next word; the same again
//! for D1. The result D3':D2' is D * x^-128 mod P. Cost: two 64x64
//! carry-less products by the constant C (shifts here, one instruction each
//! on carry-less-multiply hardware).
//!
//! Key powers: `H^1 .. H^n` (in the dot-product sense, `H^(k+1) = dot(H^k, H)`)
//! are computed once per key, here, by the portable constant-time multiply,
//! and each backend stores them in its own form. A sum of unreduced products
//! `X1 * H^n + ... + Xn * H^1` followed by ONE reduction equals n Horner steps
//! (aggregated reduction, Gueron and Kounavis, "Intel Carry-Less
//! Multiplication Instruction and its Usage for Computing the GCM Mode",
//! 2010, section "aggregated reduction").

use zeroize::Zeroize;

/// `mulX_POLYVAL` (RFC 8452 appendix A): multiply by x, constant time.
#[inline]
pub(crate) fn mulx(v: u128) -> u128 {
    let carry = 0u128.wrapping_sub(v >> 127);
    (v << 1) ^ (carry & 0xC200_0000_0000_0000_0000_0000_0000_0001)
}

/// A GHASH key H (16 bytes, GHASH bit order) as a POLYVAL key.
#[inline]
pub(crate) fn ghash_key(h: &[u8; 16]) -> u128 {
    mulx(u128::from_be_bytes(*h))
}

/// Read one block as a POLYVAL element: GHASH blocks are byte-reversed.
#[inline(always)]
pub(crate) fn load<const GHASH: bool>(b: &[u8; 16]) -> u128 {
    if GHASH {
        u128::from_be_bytes(*b)
    } else {
        u128::from_le_bytes(*b)
    }
}

/// The hash output of a POLYVAL-form accumulator.
#[inline]
pub(crate) fn store<const GHASH: bool>(acc: u128) -> [u8; 16] {
    if GHASH {
        acc.to_be_bytes()
    } else {
        acc.to_le_bytes()
    }
}

/// 64x64 carry-less product by the constant C, by shifts (C has 3 bits).
#[inline(always)]
fn mul_c(d: u64) -> (u64, u64) {
    (d << 63 ^ d << 62 ^ d << 57, d >> 1 ^ d >> 2 ^ d >> 7)
}

/// Montgomery reduction: `(hi:lo) * x^-128 mod P`.
#[inline(always)]
pub(crate) fn reduce(lo: u128, hi: u128) -> u128 {
    let d0 = lo as u64;
    let d1 = (lo >> 64) as u64;
    let d2 = hi as u64;
    let d3 = (hi >> 64) as u64;
    let (t0, t1) = mul_c(d0);
    let d1 = d1 ^ t0;
    let d2 = d2 ^ d0 ^ t1;
    let (u0, u1) = mul_c(d1);
    let d2 = d2 ^ u0;
    let d3 = d3 ^ d1 ^ u1;
    (d3 as u128) << 64 | d2 as u128
}

/// The 256-bit carry-less product `x * k` (as `(lo, hi)`, unreduced) of a
/// PUBLIC `x` (for GCM the lengths block) and a secret `k`: one shifted XOR
/// of `k` per set bit of `x`. The loop and its shifts follow `x`'s bits,
/// which is allowed only because `x` is public; nothing depends on `k`.
/// Cost: about fifteen operations per set bit (a 16-byte GCM message with
/// 13 bytes of AAD has four), against a full constant-time product.
#[inline(always)]
pub(crate) fn clmul_public(x: u128, k: u128) -> (u128, u128) {
    if x == 0 {
        // No public block (the runs before the last): nothing to add.
        return (0, 0);
    }
    let (k0, k1) = (k as u64, (k >> 64) as u64);
    let mut r = [0u64; 4];
    for (w, mut bits) in [x as u64, (x >> 64) as u64].into_iter().enumerate() {
        // `k << i` for each set bit i of this word, as three 64-bit words
        // (`>> 1 >> (63 - i)` is `>> (64 - i)` with i = 0 allowed).
        let (mut a, mut b, mut c) = (0u64, 0u64, 0u64);
        while bits != 0 {
            let i = bits.trailing_zeros();
            a ^= k0 << i;
            b ^= k1 << i ^ k0 >> 1 >> (63 - i);
            c ^= k1 >> 1 >> (63 - i);
            bits &= bits - 1;
        }
        r[w] ^= a;
        r[w + 1] ^= b;
        r[w + 2] ^= c;
    }
    (
        (r[1] as u128) << 64 | r[0] as u128,
        (r[3] as u128) << 64 | r[2] as u128,
    )
}

/// `update_public_last`'s blocks split for a backend with runs of `W`
/// blocks: the blocks before the last, and the last as a POLYVAL element,
/// when the rest after their whole runs is one the backend multiplies
/// with the powers from H^2 on (`rest_ok`); else all the blocks and no
/// public block (it goes through the run as any other: the accumulator
/// alone would otherwise need its own product by H). Lengths only.
#[inline(always)]
pub(crate) fn split_public_last<const GHASH: bool, const W: usize>(
    blocks: &[crate::Block],
    rest_ok: impl Fn(usize) -> bool,
) -> (&[crate::Block], Option<u128>) {
    match blocks.split_last() {
        Some((l, b)) if rest_ok(b.len() % W) => (b, Some(load::<GHASH>(&l.0))),
        _ => (blocks, None),
    }
}

/// [`reduce`] of a run's unreduced product `(lo, hi)` plus the public
/// block `last` (zero for none) times H^1 (`h1`).
#[inline(always)]
pub(crate) fn reduce_public(lo: u128, hi: u128, last: u128, h1: u128) -> u128 {
    let (plo, phi) = clmul_public(last, h1);
    reduce(lo ^ plo, hi ^ phi)
}

/// `H^1 ..= H^N` (index k holds H^(k+1)), computed once per key.
pub(crate) struct Powers<const N: usize>(pub(crate) [u128; N]);

impl<const N: usize> Powers<N> {
    /// With the portable constant-time product.
    pub(crate) fn new(h: u128) -> Self {
        Self::new_with(h, crate::soft::dot)
    }

    /// With `dot` (a backend's own product: a carry-less multiply
    /// instruction makes key setup ~10x cheaper than the portable one).
    #[inline]
    pub(crate) fn new_with(h: u128, dot: impl Fn(u128, u128) -> u128) -> Self {
        let mut p = [0u128; N];
        let mut cur = h;
        for slot in p.iter_mut() {
            *slot = cur;
            cur = dot(cur, h);
        }
        cur.zeroize();
        Powers(p)
    }
}

impl<const N: usize> Drop for Powers<N> {
    fn drop(&mut self) {
        self.0.zeroize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bit-serial reference carry-less product (test only).
    fn clmul_ref(x: u128, k: u128) -> (u128, u128) {
        let (mut lo, mut hi) = (0u128, 0u128);
        for i in 0..128 {
            if x >> i & 1 == 1 {
                lo ^= k << i;
                if i > 0 {
                    hi ^= k >> (128 - i);
                }
            }
        }
        (lo, hi)
    }

    #[test]
    fn clmul_public_matches_reference() {
        let mut s = 0x0123_4567_89ab_cdef_u128 << 64 | 0xfedc_ba98_7654_3210;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let edge = [0, 1, u128::MAX, 1 << 127, 1 << 64 | 1, 0x68 << 64 | 0x80];
        for i in 0..500 {
            let (x, k) = if i < 36 {
                (edge[i % 6], edge[i / 6])
            } else {
                (next(), next())
            };
            assert_eq!(clmul_public(x, k), clmul_ref(x, k), "x {x:x}, k {k:x}");
        }
    }
}
