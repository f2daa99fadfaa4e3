//! The key form shared by the carry-less-multiply backends (PCLMULQDQ,
//! VPCLMULQDQ, PMULL, and the 8-bit-multiply NEON ones): H^N..H^1 with
//! Karatsuba middle terms, built from the powers of `field.rs` (computed
//! once per key).

use crate::Block;
use crate::field::Powers;
use zeroize::Zeroize;

/// The reduction constant C = x^63 + x^62 + x^57 (see `field.rs`), as a
/// 64-bit word for one carry-less multiply.
/// (Not on 32-bit ARM: `vmull8` uses the key form only, and reduces by
/// shifts.)
#[cfg(not(target_arch = "arm"))]
pub(crate) const POLY_C: u64 = 0xC200_0000_0000_0000;

/// Key powers for the carry-less-multiply backends (PCLMULQDQ, VPCLMULQDQ,
/// PMULL, pmull8, vmull8), in descending order so that a run of `n` blocks
/// uses `hd[N - n ..]`: `hd[i] = H^(N - i)`. `md` holds the Karatsuba middle
/// terms `hd[i].lo ^ hd[i].hi` as 64-bit words, at [`mid_slot`]`::<L>(i)`
/// for a backend of `L` blocks per vector: one vector load then serves two
/// passes, the first taking its lanes' low words and the second their high
/// ones, with no shuffle, and the key is 1.5x its powers' size instead of
/// 2x (the widest key form sets the size of every ghash-ct key).
/// `repr(C)`: the armv7 assembly finds `md` right after `hd`.
#[derive(Clone)]
#[repr(C)]
pub(crate) struct ClmulKey<T: Copy, const N: usize, const L: usize> {
    pub(crate) _token: T,
    pub(crate) hd: [u128; N],
    pub(crate) md: [u64; N],
}

/// Where the middle term of power index `i` goes, `L` blocks per vector:
/// groups of `2L` words, of which lane j of a vector load holds indices
/// `j` (low word) and `L + j` (high word) of the group. The identity for
/// `L = 1`.
pub(crate) const fn mid_slot<const L: usize>(i: usize) -> usize {
    let (g, r) = (i / (2 * L), i % (2 * L));
    2 * L * g + 2 * (r % L) + r / L
}

impl<T: Copy, const N: usize, const L: usize> ClmulKey<T, N, L> {
    /// `dot`: the backend's own product (see `Powers::new_with`).
    pub(crate) fn new(token: T, h: u128, dot: impl Fn(u128, u128) -> u128) -> Self {
        const { assert!(N.is_multiple_of(2 * L), "whole groups of middle terms") };
        let p = Powers::<N>::new_with(h, dot);
        let hd: [u128; N] = core::array::from_fn(|i| p.0[N - 1 - i]);
        let mut md = [0u64; N];
        for (i, h) in hd.iter().enumerate() {
            md[mid_slot::<L>(i)] = (h ^ h >> 64) as u64;
        }
        Self {
            _token: token,
            hd,
            md,
        }
    }
}

impl<T: Copy, const N: usize, const L: usize> Zeroize for ClmulKey<T, N, L> {
    fn zeroize(&mut self) {
        self.hd.zeroize();
        self.md.zeroize();
    }
}

/// `blocks` folded into the accumulator `acc` in runs of `W` blocks
/// (`whole`) and then the shorter rest, if any (`part`): the run order of
/// the backends of this key form (one reduction per run). Inlined, so closures
/// made in a target-feature function keep its features.
///
/// With `RELOAD`, each run gets `key` through `black_box`, so its powers
/// are loaded from the key inside the run rather than hoisted out of the
/// loop. For backends whose register file cannot hold a run's powers and
/// middle terms beside the data (16 x86 vector registers): hoisted, they
/// are spilled to the stack, which leaves a copy of the key in the dead
/// stack after the call (ct-check's zeroize test fails on it in optimised
/// builds), and a reload per run costs what the spill reload did. Without
/// it (32 registers on aarch64, or a routine in assembly), the powers stay
/// in registers across runs.
#[inline(always)]
pub(crate) fn by_runs<const W: usize, const RELOAD: bool, K, A>(
    key: &K,
    acc: A,
    blocks: &[Block],
    mut whole: impl FnMut(&K, A, &[Block; W]) -> A,
    part: impl FnOnce(&K, A, &[Block]) -> A,
) -> A {
    let (runs, rest) = blocks.as_chunks::<W>();
    let key = || {
        if RELOAD {
            core::hint::black_box(key)
        } else {
            key
        }
    };
    let acc = runs.iter().fold(acc, |a, r| whole(key(), a, r));
    if rest.is_empty() {
        acc
    } else {
        part(key(), acc, rest)
    }
}

/// Bytes of dead stack a carry-less-multiply update zeroes on 32-bit x86
/// (the update's frame, with a margin; `ct-check`'s dead-stack test on
/// i686 fails when it is too small).
#[cfg(target_arch = "x86")]
pub(crate) const X86_SPILL_SCRUB: usize = 1024;

/// The [`Engine`](crate::backend::Engine) of a carry-less-multiply backend:
/// `$engine` runs on `$token`s from the cached CPU check `$cpu`, keeps a
/// [`ClmulKey`] of `$ways` powers (middle terms laid out for `$lanes` blocks
/// per vector) built with the product `|$t, $a, $b|
/// $dot` (`$t` the token), and hashes with the target-feature fn `$update`.
#[cfg(not(target_arch = "arm"))]
macro_rules! clmul_engine {
    (
        $(#[$doc:meta])*
        $engine:ident, $token:ident, $ways:expr, $lanes:expr, $cpu:ident, $update:ident,
        |$t:ident, $a:ident, $b:ident| $dot:expr
    ) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug)]
        pub(crate) struct $engine;

        impl crate::backend::Engine for $engine {
            type Token = $token;
            type Key = crate::clmul_key::ClmulKey<$token, $ways, $lanes>;

            fn token() -> Option<$token> {
                $cpu::get().then_some($token(()))
            }

            fn new_key(token: $token, h: u128) -> Self::Key {
                crate::clmul_key::ClmulKey::new(token, h, |$a, $b| {
                    let $t = token;
                    $dot
                })
            }

            fn update<const GHASH: bool>(
                key: &Self::Key,
                acc: &mut u128,
                blocks: &[crate::Block],
            ) {
                // SAFETY: a key holds a token, which `token()` only hands out
                // after the CPU check for every feature enabled on the
                // update function passed.
                unsafe { $update::<GHASH>(key, acc, blocks) };
                // 32-bit x86 has 8 vector registers: the update spills most
                // of the key's powers into its frame, a copy of the key
                // left on the dead stack; zero that frame.
                #[cfg(target_arch = "x86")]
                ct_dispatch::wipe::scrub_stack::<{ crate::clmul_key::X86_SPILL_SCRUB }>();
            }
        }
    };
}
#[cfg(not(target_arch = "arm"))]
pub(crate) use clmul_engine;

#[cfg(test)]
mod tests {
    use super::mid_slot;

    /// Each layout is a permutation in which the `L` lanes of the vector
    /// at words `2Lg..2Lg + 2L` hold, in lane j, power `2Lg + j` (low word,
    /// the first pass of the group) and `2Lg + L + j` (high word, the
    /// second pass).
    #[test]
    fn mid_slots_serve_two_passes_per_load() {
        fn check<const L: usize>() {
            let mut power_at = [usize::MAX; 16];
            for i in 0..16 {
                let s = mid_slot::<L>(i);
                assert_eq!(power_at[s], usize::MAX, "L = {L}: slot {s} twice");
                power_at[s] = i;
            }
            for g in 0..16 / (2 * L) {
                for j in 0..L {
                    let w = 2 * L * g + 2 * j;
                    assert_eq!(
                        power_at[w],
                        2 * L * g + j,
                        "L = {L}, group {g}, lane {j} low"
                    );
                    assert_eq!(
                        power_at[w + 1],
                        2 * L * g + L + j,
                        "L = {L}, group {g}, lane {j} high"
                    );
                }
            }
        }
        check::<1>();
        check::<2>();
        check::<4>();
        assert_eq!(mid_slot::<2>(1), 2);
        assert_eq!(mid_slot::<4>(4), 1);
    }
}
