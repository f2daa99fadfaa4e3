//! 64x64 -> 128 carry-less multiply from 64x64 -> 64 integer multiplies
//! (`imul`: one micro-op, any registers), bit classes modulo 4.
//!
//! Technique: BearSSL `ghash_ctmul64.c` (Pornin): the low 64 bits of the
//! carry-less product come from 16 truncated integer products of the four
//! bit classes (a count reaches 16 only at positions 60..63, whose carry
//! leaves the word); the high 64 bits are the low 64 bits of the product of
//! the bit-reversed operands, reversed back and shifted by one. Our
//! arrangement: the key's classes (and those of its reversal) are split
//! once at key setup, products are XOR-summed per class over a whole run of
//! blocks, and the masking and the output reversal are done once per run.
//! Cost per 64x64 product: 32 multiplies and one bit reversal of the data;
//! per run: 2 x 4 masks and one reversal.

use super::Form;

/// Bits 0, 4, 8, ... of a 64-bit word.
const M: u64 = 0x1111_1111_1111_1111;

#[derive(Clone, Copy, Debug)]
pub(crate) struct Mul64;

#[inline(always)]
fn classes(y: u64) -> [u64; 4] {
    [y & M, y & M << 1, y & M << 2, y & M << 3]
}

/// Low 64 bits of the carry-less sum over a run of `x_i * y_i`, with the
/// key's plain (`R` = 0) or bit-reversed (`R` = 1) classes. Block by
/// block, four class sums in registers, masked once at the end.
#[inline(always)]
fn low<const R: usize>(xs: impl Iterator<Item = u64>, ys: &[[[u64; 4]; 2]]) -> u64 {
    let (mut z0, mut z1, mut z2, mut z3) = (0u64, 0u64, 0u64, 0u64);
    for (x, y) in xs.zip(ys) {
        let y = &y[R];
        let (c0, c1, c2, c3) = (x & M, x & M << 1, x & M << 2, x & M << 3);
        let m = |a: u64, b: u64| a.wrapping_mul(b);
        z0 ^= m(c0, y[0]) ^ m(c1, y[3]) ^ m(c2, y[2]) ^ m(c3, y[1]);
        z1 ^= m(c0, y[1]) ^ m(c1, y[0]) ^ m(c2, y[3]) ^ m(c3, y[2]);
        z2 ^= m(c0, y[2]) ^ m(c1, y[1]) ^ m(c2, y[0]) ^ m(c3, y[3]);
        z3 ^= m(c0, y[3]) ^ m(c1, y[2]) ^ m(c2, y[1]) ^ m(c3, y[0]);
    }
    z0 & M | z1 & M << 1 | z2 & M << 2 | z3 & M << 3
}

impl Form for Mul64 {
    /// Classes of y and of its bit reversal.
    type Y = [[u64; 4]; 2];
    /// Unused by this form's `part` (kept for the generic interface).
    type Acc = [u128; 1];

    #[inline(always)]
    fn prep(y: u64) -> [[u64; 4]; 2] {
        [classes(y), classes(y.reverse_bits())]
    }

    #[inline(always)]
    fn acc(z: &mut [u128; 1], x: u64, y: &[[u64; 4]; 2]) {
        z[0] ^= Self::part(&[x], core::slice::from_ref(y));
    }

    #[inline(always)]
    fn fin(z: &[u128; 1]) -> u128 {
        z[0]
    }

    #[inline(always)]
    fn part(xs: &[u64], ys: &[[[u64; 4]; 2]]) -> u128 {
        let lo = low::<0>(xs.iter().copied(), ys);
        let hi = low::<1>(xs.iter().map(|x| x.reverse_bits()), ys).reverse_bits() >> 1;
        lo as u128 | (hi as u128) << 64
    }
}
