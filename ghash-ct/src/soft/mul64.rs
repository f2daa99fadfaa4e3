//! 64x64 -> 128 carry-less multiply with 64x64 -> 128 integer multiplies,
//! bit classes modulo 5 (see `soft/mod.rs`). Cost: 25 multiplies, 5 masks
//! of x, 5 masks of the result.

use super::Form;

/// Bits 0, 5, 10, ... of a 64-bit word.
const M: u64 = 0x1084_2108_4210_8421;

/// Bits 0, 5, 10, ... of a 128-bit word, shifted by the class index.
const fn mask128(k: u32) -> u128 {
    let mut m = 0u128;
    let mut i = k;
    while i < 128 {
        m |= 1 << i;
        i += 5;
    }
    m
}
const MM: [u128; 5] = [mask128(0), mask128(1), mask128(2), mask128(3), mask128(4)];

#[derive(Clone, Copy, Debug)]
pub(crate) struct Mul64;

impl Form for Mul64 {
    type Y = [u64; 5];

    #[inline(always)]
    fn prep(y: u64) -> [u64; 5] {
        [y & M, y & M << 1, y & M << 2, y & M << 3, y & M << 4]
    }

    #[inline(always)]
    fn clmul(x: u64, y: &[u64; 5]) -> u128 {
        let x = [x & M, x & M << 1, x & M << 2, x & M << 3, x & M << 4];
        let m = |a: u64, b: u64| a as u128 * b as u128;
        let mut r = 0u128;
        for k in 0..5 {
            let mut z = 0u128;
            for i in 0..5 {
                z ^= m(x[i], y[(k + 5 - i) % 5]);
            }
            r |= z & MM[k];
        }
        r
    }
}
