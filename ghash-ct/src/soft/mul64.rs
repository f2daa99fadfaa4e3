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
use zeroize::Zeroize;

/// Bits 0, 4, 8, ... of a 64-bit word.
const M: u64 = 0x1111_1111_1111_1111;

#[derive(Clone, Copy, Debug)]
pub(crate) struct Mul64;

#[inline(always)]
fn classes(y: u64) -> [u64; 4] {
    [y & M, y & M << 1, y & M << 2, y & M << 3]
}

/// Class K of the truncated product sums over a run (unmasked); `R`
/// selects the key's plain (0) or bit-reversed (1) classes.
#[inline(always)]
fn class<const K: usize, const R: usize>(xc: &[[u64; 4]], ys: &[[[u64; 4]; 2]]) -> u64 {
    let mut z = 0u64;
    for (c, y) in xc.iter().zip(ys) {
        let y = &y[R];
        z ^= c[0].wrapping_mul(y[K])
            ^ c[1].wrapping_mul(y[(K + 3) % 4])
            ^ c[2].wrapping_mul(y[(K + 2) % 4])
            ^ c[3].wrapping_mul(y[(K + 1) % 4]);
    }
    z
}

/// Low 64 bits of the carry-less sum of `xs[i] * y[i]` (classes given).
#[inline(always)]
fn low<const R: usize>(xc: &[[u64; 4]], ys: &[[[u64; 4]; 2]]) -> u64 {
    class::<0, R>(xc, ys) & M
        | class::<1, R>(xc, ys) & M << 1
        | class::<2, R>(xc, ys) & M << 2
        | class::<3, R>(xc, ys) & M << 3
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
        let mut xc = [[0u64; 4]; super::WAYS];
        let mut xr = [[0u64; 4]; super::WAYS];
        let n = xs.len();
        for i in 0..n {
            xc[i] = classes(xs[i]);
            xr[i] = classes(xs[i].reverse_bits());
        }
        let lo = low::<0>(&xc[..n], ys);
        let hi = low::<1>(&xr[..n], ys).reverse_bits() >> 1;
        xc.zeroize();
        xr.zeroize();
        lo as u128 | (hi as u128) << 64
    }
}
