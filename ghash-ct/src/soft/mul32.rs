//! 64x64 -> 128 carry-less multiply from 32x32 -> 64 integer multiplies:
//! bit classes modulo 4 for 32x32 (16 multiplies), Karatsuba for 64x64
//! (3 of those, 48 multiplies). For 32-bit targets, where a 64x64 -> 128
//! integer multiply is a library call.

use super::Form;

/// Bits 0, 4, 8, ... of a 32-bit word.
const M: u32 = 0x1111_1111;
/// Bits 0, 4, 8, ... of a 64-bit word.
const MM: u64 = 0x1111_1111_1111_1111;

/// One 32-bit key word split into 4 classes.
type Y32 = [u32; 4];

#[derive(Clone, Copy, Debug)]
pub(crate) struct Mul32;

#[inline(always)]
fn prep32(y: u32) -> Y32 {
    [y & M, y & M << 1, y & M << 2, y & M << 3]
}

/// Add the class products of a 32x32 carry-less multiply (unmasked).
#[inline(always)]
fn acc32(z: &mut [u64; 4], x: u32, y: &Y32) {
    let x = [x & M, x & M << 1, x & M << 2, x & M << 3];
    let m = |a: u32, b: u32| a as u64 * b as u64;
    z[0] ^= m(x[0], y[0]) ^ m(x[1], y[3]) ^ m(x[2], y[2]) ^ m(x[3], y[1]);
    z[1] ^= m(x[0], y[1]) ^ m(x[1], y[0]) ^ m(x[2], y[3]) ^ m(x[3], y[2]);
    z[2] ^= m(x[0], y[2]) ^ m(x[1], y[1]) ^ m(x[2], y[0]) ^ m(x[3], y[3]);
    z[3] ^= m(x[0], y[3]) ^ m(x[1], y[2]) ^ m(x[2], y[1]) ^ m(x[3], y[0]);
}

#[inline(always)]
fn fin32(z: &[u64; 4]) -> u64 {
    z[0] & MM | z[1] & MM << 1 | z[2] & MM << 2 | z[3] & MM << 3
}

impl Form for Mul32 {
    /// (lo, hi, lo ^ hi) 32-bit halves, each split into classes.
    type Y = [Y32; 3];

    #[inline(always)]
    fn prep(y: u64) -> [Y32; 3] {
        let (l, h) = (y as u32, (y >> 32) as u32);
        [prep32(l), prep32(h), prep32(l ^ h)]
    }

    /// Class sums (unmasked) of the three 32-bit Karatsuba products.
    type Acc = [[u64; 4]; 3];

    #[inline(always)]
    fn acc(z: &mut [[u64; 4]; 3], x: u64, y: &[Y32; 3]) {
        let (xl, xh) = (x as u32, (x >> 32) as u32);
        acc32(&mut z[0], xl, &y[0]);
        acc32(&mut z[1], xh, &y[1]);
        acc32(&mut z[2], xl ^ xh, &y[2]);
    }

    #[inline(always)]
    fn fin(z: &[[u64; 4]; 3]) -> u128 {
        let a = fin32(&z[0]);
        let b = fin32(&z[1]);
        let m = fin32(&z[2]) ^ a ^ b;
        a as u128 ^ (m as u128) << 32 ^ (b as u128) << 64
    }
}
