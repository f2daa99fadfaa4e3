//! 64x64 -> 128 carry-less multiply from 64x64 -> 128 integer multiplies
//! (one widening `mul` on x86_64, `mul` + `umulh` on aarch64), bit classes
//! modulo 4.
//!
//! Technique: the "multiplication with holes" of BearSSL's
//! `ghash_ctmul64.c` (Pornin), with full-width products instead of its
//! truncated products plus bit reversal. A class of a 64-bit word has 16
//! bits, so the count of coinciding bit pairs at one position of a class
//! product can reach 16, one more than a 4-bit hole holds, and would carry
//! into the next position of the same class. The key side therefore keeps
//! only its low 60 bits in the classes (15 bits each: counts <= 15, no
//! carry ever crosses a hole) and handles its top 4 bits apart: the
//! carry-less product of x by the 4-bit value t = y >> 60 is
//! `XOR over r of (x & mask_r) << r`, `mask_r` all-ones exactly when bit r of
//! t is set (masks made with the classes, no branch), shifted into place
//! by 60.
//!
//! Our arrangement: the key's classes and masks are made once per hashing
//! call (`SoftKey::split`),
//! products are XOR-summed per class over a whole run of blocks (the sums
//! are masked once per run), and a run's data words are split into classes
//! first, then the class sums are made two at a time (see `part`). Cost per
//! 64x64 product: 16 widening multiplies (the old form:
//! 32 truncated ones and a bit reversal of the data), 32 64-bit XORs and
//! 4 masked XORs; per run: 4 masks and 4 shifts; per call: the split of
//! the powers it uses (a few ANDs and shifts per key word).

use super::Form;
use ct_dispatch::wipe::Zeroable;

/// Bits 0, 4, 8, ... of a 64-bit word.
const M: u64 = 0x1111_1111_1111_1111;
/// Bits 0, 4, 8, ... of a 128-bit word.
const M2: u128 = (M as u128) << 64 | M as u128;
/// The key bits that go into the classes (15 per class).
const LOW60: u64 = (1 << 60) - 1;

#[derive(Clone, Copy, Debug)]
pub(crate) struct Mul64;

/// A key word: the classes of its low 60 bits, and one all-ones or
/// all-zeros mask per top bit (bit 60 + r).
#[derive(Clone, Copy, Default)]
pub(crate) struct Y {
    c: [u64; 4],
    t: [u64; 4],
}

// SAFETY: plain `u64` arrays, no padding: every bit pattern is valid.
unsafe impl Zeroable for Y {}

/// Class sums of a run: four unmasked 128-bit sums, and per top key bit r
/// the XOR of the data words where that bit is set (shifted into place by
/// 60 + r once per run).
#[derive(Clone, Copy, Default)]
pub(crate) struct Acc {
    z: [u128; 4],
    w: [u64; 4],
    /// The classes of a run's data words (`part`).
    xc: [[u64; 4]; super::WAYS],
}

// SAFETY: plain `u128` / `u64` arrays: every bit pattern is valid.
unsafe impl Zeroable for Acc {}

/// The four classes of a data word.
#[inline(always)]
fn split(x: u64) -> [u64; 4] {
    [x & M, x & M << 1, x & M << 2, x & M << 3]
}

/// Add the class products of `x * y` (x split into its classes `c`, low 60
/// bits of the key). Class i of x times class j of the key lands in class
/// (i + j) mod 4.
#[inline(always)]
fn classes(z: &mut [u128; 4], c: &[u64; 4], y: &[u64; 4]) {
    for i in 0..4 {
        for j in 0..4 {
            z[(i + j) % 4] ^= c[i] as u128 * y[j] as u128;
        }
    }
}

/// Add `x` to the sum of each top key bit that is set (masks, no branch).
#[inline(always)]
fn top(w: &mut [u64; 4], x: u64, t: &[u64; 4]) {
    w[0] ^= x & t[0];
    w[1] ^= x & t[1];
    w[2] ^= x & t[2];
    w[3] ^= x & t[3];
}

impl Form for Mul64 {
    type Y = Y;
    type Acc = Acc;

    #[inline(always)]
    fn prep(y: u64) -> Y {
        let l = y & LOW60;
        Y {
            c: [l & M, l & M << 1, l & M << 2, l & M << 3],
            t: core::array::from_fn(|r| 0u64.wrapping_sub(y >> (60 + r) & 1)),
        }
    }

    #[inline(always)]
    fn acc(a: &mut Acc, x: u64, y: &Y) {
        classes(&mut a.z, &split(x), &y.c);
        top(&mut a.w, x, &y.t);
    }

    #[inline(always)]
    fn fin(a: &Acc) -> u128 {
        let [z0, z1, z2, z3] = a.z;
        let w =
            a.w.iter()
                .enumerate()
                .fold(0, |s, (r, &w)| s ^ (w as u128) << (60 + r));
        (z0 & M2 | z1 & M2 << 1 | z2 & M2 << 2 | z3 & M2 << 3) ^ w
    }

    /// A run: the multiplies first (the class sums in registers), the top
    /// bits in a second pass.
    #[inline(always)]
    fn part(a: &mut Acc, xs: &[u64], ys: &[Y]) -> u128 {
        // The data words are split into classes before the first multiply,
        // and the class sums are made two at a time over the whole run: the
        // products then take their operands from memory and only two sums
        // live in registers (one pass of four sums, or splitting each word
        // as it is used, lets LLVM keep a word's products live at once and
        // spill them).
        if let ([x], [y]) = (xs, ys) {
            // A lone block (short messages): no point in the split pass.
            (a.z, a.w) = ([0; 4], [0; 4]);
            Self::acc(a, *x, y);
            return Self::fin(a);
        }
        for (c, &x) in a.xc.iter_mut().zip(xs) {
            *c = split(x);
        }
        let xc = &a.xc;
        let pass = |k: usize| {
            let (mut z, mut u) = (0u128, 0u128);
            for (c, y) in xc.iter().zip(ys) {
                for i in 0..4 {
                    z ^= c[i] as u128 * y.c[(k + 4 - i) % 4] as u128;
                    u ^= c[i] as u128 * y.c[(k + 5 - i) % 4] as u128;
                }
            }
            (z, u)
        };
        let ((z0, z1), (z2, z3)) = (pass(0), pass(2));
        let z = [z0, z1, z2, z3];
        let mut w = [0u64; 4];
        for (&x, y) in xs.iter().zip(ys) {
            top(&mut w, x, &y.t);
        }
        (a.z, a.w) = (z, w);
        Self::fin(a)
    }
}
