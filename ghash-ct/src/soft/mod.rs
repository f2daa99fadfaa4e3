//! Portable constant-time GHASH/POLYVAL: carry-less multiplication from
//! ordinary integer multiplies "with holes".
//!
//! Technique: Thomas Pornin, BearSSL `ghash_ctmul64.c` / `ghash_ctmul32.c`
//! ("constant-time multiplication", bearssl.org/constanttime.html). Split an
//! operand into bit classes modulo s (every s-th bit); an integer product of
//! two classes has, at each position of the target class, the COUNT of
//! coinciding bit pairs, whose low bit is the carry-less product bit as long
//! as the count stays below 2^s (then no carry reaches the next position of
//! the same class). XOR of such products and a final mask per class give the
//! carry-less product. No tables, no branches: multiplies are constant time
//! on the CPUs this code targets.
//! - `soft64`: 64x64 -> 128 with s = 5 (at most 13 bits per class,
//!   count <= 13 < 32) using 64x64 -> 128 integer multiplies: 25 multiplies.
//! - `soft32`: 32x32 -> 64 with s = 4 (8 bits per class, count <= 8 < 16)
//!   using 32x32 -> 64 multiplies (one `umull` on 32-bit ARM): 16 multiplies,
//!   and 64x64 by Karatsuba over three of those.
//!
//! 128x128 uses Karatsuba (3 64x64 products). The key side (H powers) is
//! split into classes once at key setup. Four blocks are aggregated per
//! reduction (`H^4..H^1`). Cost: 75 (soft64) or 144 (soft32) integer
//! multiplies per block plus one shift-only reduction per 4 blocks.

use crate::Block;
use crate::field::{Powers, load, reduce};
use zeroize::Zeroize;

pub(crate) mod mul32;
#[cfg(target_pointer_width = "64")]
pub(crate) mod mul64;

/// Blocks per reduction.
const WAYS: usize = 4;

/// One carry-less multiply form: a 64-bit key word split into classes.
pub(crate) trait Form {
    type Y: Copy + Default + Zeroize;
    fn prep(y: u64) -> Self::Y;
    fn clmul(x: u64, y: &Self::Y) -> u128;
}

/// Key powers H^1..H^4, each as the three Karatsuba operands
/// (lo, hi, lo ^ hi), already split into classes.
pub(crate) struct SoftKey<F: Form> {
    p: [[F::Y; 3]; WAYS],
}

impl<F: Form> Clone for SoftKey<F> {
    fn clone(&self) -> Self {
        Self { p: self.p }
    }
}

impl<F: Form> Zeroize for SoftKey<F> {
    fn zeroize(&mut self) {
        for k in self.p.iter_mut() {
            for y in k.iter_mut() {
                y.zeroize();
            }
        }
    }
}

impl<F: Form> SoftKey<F> {
    pub(crate) fn new(h: u128) -> Self {
        let pw = Powers::<WAYS>::new(h);
        let mut p = [[F::Y::default(); 3]; WAYS];
        for (dst, &hk) in p.iter_mut().zip(pw.0.iter()) {
            *dst = prep3::<F>(hk);
        }
        Self { p }
    }

    #[inline(always)]
    pub(crate) fn update<const GHASH: bool>(&self, acc: &mut u128, blocks: &[Block]) {
        for chunk in blocks.chunks(WAYS) {
            let n = chunk.len();
            let (mut lo, mut hi, mut mid) = (0u128, 0u128, 0u128);
            for (i, b) in chunk.iter().enumerate() {
                let mut x = load::<GHASH>(&b.0);
                if i == 0 {
                    x ^= *acc;
                }
                let k = &self.p[n - 1 - i];
                let (l, m, h) = mul128::<F>(x, k);
                lo ^= l;
                mid ^= m;
                hi ^= h;
            }
            mid ^= lo ^ hi;
            *acc = reduce(lo ^ mid << 64, hi ^ mid >> 64);
        }
    }
}

#[inline(always)]
fn prep3<F: Form>(h: u128) -> [F::Y; 3] {
    let (l, hh) = (h as u64, (h >> 64) as u64);
    [F::prep(l), F::prep(hh), F::prep(l ^ hh)]
}

/// The three Karatsuba products (lo, mid, hi) of x and a prepared key,
/// unreduced and un-combined.
#[inline(always)]
fn mul128<F: Form>(x: u128, k: &[F::Y; 3]) -> (u128, u128, u128) {
    let (xl, xh) = (x as u64, (x >> 64) as u64);
    (
        F::clmul(xl, &k[0]),
        F::clmul(xl ^ xh, &k[2]),
        F::clmul(xh, &k[1]),
    )
}

/// The native-width form (used for key powers).
#[cfg(target_pointer_width = "64")]
type Native = mul64::Mul64;
#[cfg(not(target_pointer_width = "64"))]
type Native = mul32::Mul32;

/// `dot(a, b) = a * b * x^-128` (one POLYVAL product), constant time.
pub(crate) fn dot(a: u128, b: u128) -> u128 {
    let mut k = prep3::<Native>(b);
    let (lo, mid, hi) = mul128::<Native>(a, &k);
    for y in k.iter_mut() {
        y.zeroize();
    }
    let mid = mid ^ lo ^ hi;
    reduce(lo ^ mid << 64, hi ^ mid >> 64)
}

macro_rules! soft_engine {
    ($(#[$m:meta])* $name:ident, $form:ty) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug)]
        pub(crate) struct $name;

        impl crate::backend::Engine for $name {
            type Token = ();
            type Key = SoftKey<$form>;
            fn token() -> Option<()> {
                Some(())
            }
            fn new_key(_: (), h: u128) -> Self::Key {
                SoftKey::new(h)
            }
            fn update<const GHASH: bool>(key: &Self::Key, acc: &mut u128, blocks: &[Block]) {
                key.update::<GHASH>(acc, blocks)
            }
        }
    };
}

#[cfg(target_pointer_width = "64")]
soft_engine!(
    /// 64-bit integer multiplies (64-bit targets).
    Soft64,
    mul64::Mul64
);
soft_engine!(
    /// 32-bit integer multiplies (every target).
    Soft32,
    mul32::Mul32
);

#[cfg(test)]
mod tests {
    use super::*;

    /// Bit-serial reference carry-less product (test only; branches on data).
    fn clmul_ref(x: u64, y: u64) -> u128 {
        let mut r = 0u128;
        for i in 0..64 {
            if (y >> i) & 1 == 1 {
                r ^= (x as u128) << i;
            }
        }
        r
    }

    #[test]
    fn forms_match_reference() {
        let mut s = 0x0123_4567_89ab_cdefu64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let edge = [
            0u64,
            1,
            u64::MAX,
            1 << 63,
            0x8000_0000_0000_0001,
            0xFFFF_FFFF_0000_0000,
        ];
        for i in 0..2000 {
            let (x, y) = if i < 36 {
                (edge[i % 6], edge[i / 6])
            } else {
                (next(), next())
            };
            let r = clmul_ref(x, y);
            assert_eq!(mul32::Mul32::clmul(x, &mul32::Mul32::prep(y)), r);
            #[cfg(target_pointer_width = "64")]
            assert_eq!(mul64::Mul64::clmul(x, &mul64::Mul64::prep(y)), r);
        }
    }
}
