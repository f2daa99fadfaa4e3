//! The key form shared by the carry-less-multiply backends (PCLMULQDQ,
//! VPCLMULQDQ, PMULL): H^N..H^1 with Karatsuba middle terms, built from the
//! powers of `field.rs` (computed once per key).

use crate::field::Powers;
use zeroize::Zeroize;

/// The reduction constant C = x^63 + x^62 + x^57 (see `field.rs`), as a
/// 64-bit word for one carry-less multiply.
pub(crate) const POLY_C: u64 = 0xC200_0000_0000_0000;

/// Key powers for the carry-less-multiply backends (PCLMULQDQ, VPCLMULQDQ,
/// PMULL), in descending order so that a run of
/// `n` blocks uses `hd[N - n ..]`: `hd[i] = H^(N - i)`, and `md[i]` holds the
/// Karatsuba middle term `hd[i].lo ^ hd[i].hi` in its low 64 bits.
#[derive(Clone)]
pub(crate) struct ClmulKey<T: Copy, const N: usize> {
    pub(crate) _token: T,
    pub(crate) hd: [u128; N],
    pub(crate) md: [u128; N],
}

impl<T: Copy, const N: usize> ClmulKey<T, N> {
    /// `dot`: the backend's own product (see `Powers::new_with`).
    pub(crate) fn new(token: T, h: u128, dot: impl Fn(u128, u128) -> u128) -> Self {
        let p = Powers::<N>::new_with(h, dot);
        let mut hd = [0u128; N];
        let mut md = [0u128; N];
        for i in 0..N {
            let hk = p.0[N - 1 - i];
            hd[i] = hk;
            md[i] = (hk ^ hk >> 64) as u64 as u128;
        }
        Self {
            _token: token,
            hd,
            md,
        }
    }
}

impl<T: Copy, const N: usize> Zeroize for ClmulKey<T, N> {
    fn zeroize(&mut self) {
        self.hd.zeroize();
        self.md.zeroize();
    }
}

/// The [`Engine`](crate::backend::Engine) of a carry-less-multiply backend:
/// `$engine` runs on `$token`s from the cached CPU check `$cpu`, keeps a
/// [`ClmulKey`] of `$ways` powers built with the product `|$t, $a, $b|
/// $dot` (`$t` the token), and hashes with the target-feature fn `$update`.
macro_rules! clmul_engine {
    (
        $(#[$doc:meta])*
        $engine:ident, $token:ident, $ways:expr, $cpu:ident, $update:ident,
        |$t:ident, $a:ident, $b:ident| $dot:expr
    ) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug)]
        pub(crate) struct $engine;

        impl crate::backend::Engine for $engine {
            type Token = $token;
            type Key = crate::clmul_key::ClmulKey<$token, $ways>;

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
                unsafe { $update::<GHASH>(key, acc, blocks) }
            }
        }
    };
}
pub(crate) use clmul_engine;
