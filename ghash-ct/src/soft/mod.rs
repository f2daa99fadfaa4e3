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
//! - `soft64`: 64x64 -> 128 integer multiplies (one widening `mul` on
//!   x86_64), classes modulo 4, the key's top 4 bits handled by masked
//!   shifts so that no count overflows a hole: 16 multiplies per 64x64
//!   product, see `mul64.rs`.
//! - `soft32`: 32x32 -> 64 with s = 4 (8 bits per class, count <= 8 < 16)
//!   using 32x32 -> 64 multiplies (one `umull` on 32-bit ARM): 16 multiplies,
//!   and 64x64 by Karatsuba over three of those (48 multiplies).
//!
//! 128x128 uses Karatsuba (3 64x64 products). The key keeps the H powers
//! as plain words; each hashing call splits the powers it uses into
//! classes once, on the stack, and wipes them (a key kept split would be
//! eight times larger, and the largest GHASH key form sets the size of
//! every ghash-ct and AES-GCM key).
//! Runs of W = 8 blocks are multiplied by `H^8..H^1` (faster than 4 or 16
//! for both word sizes, `PERFORMANCE.md`); the class products of
//! a whole run are XOR-summed before the class masks (XOR carries nothing
//! between bit positions, so each product only has to be exact on its own),
//! so masking, Karatsuba recombination and the shift-only reduction happen
//! once per run.

use crate::Block;
use crate::field::{Powers, load, reduce, reduce_public, split_public_last};
use ct_dispatch::wipe::{Zeroable, wipe};
use zeroize::Zeroize;

pub(crate) mod mul32;
#[cfg(target_pointer_width = "64")]
pub(crate) mod mul64;

/// Blocks per reduction (`SoftKey`'s `W` for both engines).
const WAYS: usize = 8;

/// One carry-less multiply form: a 64-bit key word split into classes.
/// Products are summed per class (`Acc`, unmasked) and masked once by
/// `fin`: the masking is linear, so a run of blocks shares it.
pub(crate) trait Form {
    type Y: Copy + Default + Zeroable;
    type Acc: Default + Zeroable;
    fn prep(y: u64) -> Self::Y;
    /// Add the unmasked class products of `x * y` into `acc`.
    fn acc(acc: &mut Self::Acc, x: u64, y: &Self::Y);
    /// Mask and combine: the 128-bit carry-less sum of the products.
    fn fin(acc: &Self::Acc) -> u128;
    /// Sum over blocks of `xs[i] * ys[i]` (`xs.len() == ys.len() <= WAYS`),
    /// with `a` as scratch (overwritten; the caller wipes it once).
    #[inline(always)]
    fn part(_: &mut Self::Acc, xs: &[u64], ys: &[Self::Y]) -> u128 {
        let mut a = Self::Acc::default();
        for (&x, y) in xs.iter().zip(ys) {
            Self::acc(&mut a, x, y);
        }
        let r = Self::fin(&a);
        wipe(&mut a);
        r
    }
    fn clmul(x: u64, y: &Self::Y) -> u128 {
        let mut a = Self::Acc::default();
        Self::acc(&mut a, x, y);
        let r = Self::fin(&a);
        wipe(&mut a);
        r
    }
}

/// Key powers, per Karatsuba operand (lo, hi, lo ^ hi) and in descending
/// order (`p[part][j]` is that part of `H^(W - j)`, so a run of n blocks
/// uses `p[part][W - n ..]`), as plain 64-bit words. `W`: blocks per
/// reduction. The words are split into classes where they are used: the
/// split is a few ANDs beside each word's 16 or 48 multiplies, and a key
/// kept split would be eight times this size (the largest GHASH key form,
/// and so the size of every ghash-ct and AES-GCM key).
pub(crate) struct SoftKey<F: Form, const W: usize> {
    p: [[u64; W]; 3],
    form: core::marker::PhantomData<F>,
}

impl<F: Form, const W: usize> Clone for SoftKey<F, W> {
    fn clone(&self) -> Self {
        Self {
            p: self.p,
            form: core::marker::PhantomData,
        }
    }
}

impl<F: Form, const W: usize> Zeroize for SoftKey<F, W> {
    fn zeroize(&mut self) {
        self.p.zeroize();
    }
}

impl<F: Form, const W: usize> SoftKey<F, W> {
    pub(crate) fn new(h: u128) -> Self {
        let pw = Powers::<W>::new(h);
        let mut p = [[0u64; W]; 3];
        for j in 0..W {
            let k = pw.0[W - 1 - j];
            let (l, h) = (k as u64, (k >> 64) as u64);
            (p[0][j], p[1][j], p[2][j]) = (l, h, l ^ h);
        }
        Self {
            p,
            form: core::marker::PhantomData,
        }
    }

    /// `update` (`PUBLIC_LAST`: `update_public_last`).
    #[inline(always)]
    pub(crate) fn update<const GHASH: bool, const PUBLIC_LAST: bool>(
        &self,
        acc: &mut u128,
        blocks: &[Block],
    ) {
        // Scratch for the data words and class sums, wiped once per call.
        let mut s = ([[0u64; W]; 3], F::Acc::default());
        // The public last block is multiplied apart (by its bits) after a
        // short rest of 1 to 3 blocks, which then takes the powers from
        // H^2 on; otherwise it goes through the run as any other block.
        let (blocks, last) =
            split_public_last::<GHASH, W>(blocks, |r| PUBLIC_LAST && (1..=3).contains(&r));
        let (runs, rest) = blocks.as_chunks::<W>();
        if !runs.is_empty() {
            // Full runs: a fixed length, so the block loops unroll; the
            // key words are split into classes once per call, on the stack.
            *acc = self.with_split::<W, 0, _>(|ys| {
                runs.iter().fold(*acc, |a, run| {
                    Self::run::<GHASH, W, W>(&mut s, ys, a, run, 0, 0)
                })
            });
        }
        // The rest: short lengths get code of their own (the block loops
        // unroll; most messages end in, or are, a short run), with only the
        // powers they use split.
        *acc = match (rest.len(), last) {
            (0, _) => *acc,
            (1, None) => self.short::<GHASH, 1, 0>(&mut s, *acc, rest, 0),
            (2, None) => self.short::<GHASH, 2, 0>(&mut s, *acc, rest, 0),
            (3, None) => self.short::<GHASH, 3, 0>(&mut s, *acc, rest, 0),
            (1, Some(l)) => self.short::<GHASH, 1, 1>(&mut s, *acc, rest, l),
            (2, Some(l)) => self.short::<GHASH, 2, 1>(&mut s, *acc, rest, l),
            (3, Some(l)) => self.short::<GHASH, 3, 1>(&mut s, *acc, rest, l),
            _ => self.short::<GHASH, 0, 0>(&mut s, *acc, rest, 0),
        };
        wipe(&mut s);
    }

    /// The powers `H^(K + SKIP)..H^(1 + SKIP)` split into classes, per part.
    #[inline(always)]
    fn split<const K: usize, const SKIP: usize>(&self) -> [[F::Y; K]; 3] {
        let mut ys = [[F::Y::default(); K]; 3];
        for (row, p) in ys.iter_mut().zip(&self.p) {
            for (y, &w) in row.iter_mut().zip(&p[W - K - SKIP..W - SKIP]) {
                *y = F::prep(w);
            }
        }
        ys
    }

    /// A run shorter than `W` (`N` as in [`Self::run`]), with its own split
    /// powers (all `W` when the length is not known); `SKIP` = 1: followed
    /// by the public block `last`, times H^1 (the run's powers start at H^2).
    #[inline(always)]
    fn short<const GHASH: bool, const N: usize, const SKIP: usize>(
        &self,
        s: &mut ([[u64; W]; 3], F::Acc),
        acc: u128,
        chunk: &[Block],
        last: u128,
    ) -> u128 {
        if N == 0 {
            self.with_split::<W, 0, _>(|ys| Self::run::<GHASH, 0, W>(s, ys, acc, chunk, 0, 0))
        } else {
            let h1 = (self.p[1][W - 1] as u128) << 64 | self.p[0][W - 1] as u128;
            self.with_split::<N, SKIP, _>(|ys| {
                Self::run::<GHASH, N, N>(s, ys, acc, chunk, last, h1)
            })
        }
    }

    /// `f` over the powers `split::<K, SKIP>` makes (on the stack, wiped
    /// after).
    #[inline(always)]
    fn with_split<const K: usize, const SKIP: usize, R>(
        &self,
        f: impl FnOnce(&[[F::Y; K]; 3]) -> R,
    ) -> R {
        let mut ys = self.split::<K, SKIP>();
        let r = f(&ys);
        wipe(&mut ys);
        r
    }

    /// One run of blocks (`N` = its length if known, else 0) with split
    /// powers `ys` (`ys[part][K - n..]`, one per block, the last block's
    /// last), plus the public `last` times `h1` (zero for none): products
    /// summed per Karatsuba part, then one reduction.
    #[inline(always)]
    fn run<const GHASH: bool, const N: usize, const K: usize>(
        (xs, a): &mut ([[u64; W]; 3], F::Acc),
        ys: &[[F::Y; K]; 3],
        acc: u128,
        chunk: &[Block],
        last: u128,
        h1: u128,
    ) -> u128 {
        let n = if N == 0 { chunk.len() } else { N };
        // The three Karatsuba operands of each block (acc folded into the
        // first block).
        for (i, b) in chunk[..n].iter().enumerate() {
            let mut x = load::<GHASH>(&b.0);
            if i == 0 {
                x ^= acc;
            }
            let (l, h) = (x as u64, (x >> 64) as u64);
            xs[0][i] = l;
            xs[1][i] = h;
            xs[2][i] = l ^ h;
        }
        let mut prod = [0u128; 3];
        for (part, out) in prod.iter_mut().enumerate() {
            *out = F::part(a, &xs[part][..n], &ys[part][K - n..]);
        }
        let [lo, hi, mid] = prod;
        let mid = mid ^ lo ^ hi;
        reduce_public(lo ^ mid << 64, hi ^ mid >> 64, last, h1)
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
    wipe(&mut k);
    let mid = mid ^ lo ^ hi;
    reduce(lo ^ mid << 64, hi ^ mid >> 64)
}

macro_rules! soft_engine {
    ($(#[$m:meta])* $name:ident, $form:ty, $ways:expr) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug)]
        pub(crate) struct $name;

        impl crate::backend::Engine for $name {
            type Token = ();
            type Key = SoftKey<$form, $ways>;
            fn token() -> Option<()> {
                Some(())
            }
            fn new_key(_: (), h: u128) -> Self::Key {
                SoftKey::new(h)
            }
            fn update<const GHASH: bool>(key: &Self::Key, acc: &mut u128, blocks: &[Block]) {
                key.update::<GHASH, false>(acc, blocks)
            }
            fn update_public_last<const GHASH: bool>(
                key: &Self::Key,
                acc: &mut u128,
                blocks: &[Block],
            ) {
                key.update::<GHASH, true>(acc, blocks)
            }
        }
    };
}

#[cfg(target_pointer_width = "64")]
soft_engine!(
    /// 64-bit integer multiplies (64-bit targets).
    Soft64,
    mul64::Mul64,
    WAYS
);
soft_engine!(
    /// 32-bit integer multiplies (every target).
    Soft32,
    mul32::Mul32,
    WAYS
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
        // Runs of up to WAYS products summed before the masks, with the
        // all-ones words whose class counts are largest.
        for i in 0..500 {
            let n = 1 + i % WAYS;
            let xs: [u64; WAYS] = core::array::from_fn(|j| {
                if i % 3 == 0 {
                    edge[(i + j) % 6]
                } else {
                    next()
                }
            });
            let ys: [u64; WAYS] = core::array::from_fn(|j| {
                if i % 2 == 0 {
                    edge[(i / 2 + j) % 6]
                } else {
                    next()
                }
            });
            let r = (0..n).fold(0, |a, j| a ^ clmul_ref(xs[j], ys[j]));
            let y32 = ys.map(mul32::Mul32::prep);
            assert_eq!(
                mul32::Mul32::part(&mut Default::default(), &xs[..n], &y32[..n]),
                r
            );
            #[cfg(target_pointer_width = "64")]
            {
                let y64 = ys.map(mul64::Mul64::prep);
                assert_eq!(
                    mul64::Mul64::part(&mut Default::default(), &xs[..n], &y64[..n]),
                    r
                );
            }
        }
    }
}
