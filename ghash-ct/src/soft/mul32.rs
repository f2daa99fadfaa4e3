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

#[inline(always)]
fn clmul32(x: u32, y: &Y32) -> u64 {
    let x = [x & M, x & M << 1, x & M << 2, x & M << 3];
    let m = |a: u32, b: u32| a as u64 * b as u64;
    let mut r = 0u64;
    for k in 0..4 {
        let mut z = 0u64;
        for i in 0..4 {
            z ^= m(x[i], y[(k + 4 - i) & 3]);
        }
        r |= z & MM << k;
    }
    r
}

impl Form for Mul32 {
    /// (lo, hi, lo ^ hi) 32-bit halves, each split into classes.
    type Y = [Y32; 3];

    #[inline(always)]
    fn prep(y: u64) -> [Y32; 3] {
        let (l, h) = (y as u32, (y >> 32) as u32);
        [prep32(l), prep32(h), prep32(l ^ h)]
    }

    #[inline(always)]
    fn clmul(x: u64, y: &[Y32; 3]) -> u128 {
        let (xl, xh) = (x as u32, (x >> 32) as u32);
        let a = clmul32(xl, &y[0]);
        let b = clmul32(xh, &y[1]);
        let m = clmul32(xl ^ xh, &y[2]) ^ a ^ b;
        a as u128 ^ (m as u128) << 32 ^ (b as u128) << 64
    }
}
