//! `backends!` on a toy table: the key enum holds what the constructor
//! built only when the engine's CPU check handed out a token, a line whose
//! `#[cfg]` is false is named in `Backend` but never built, and forwarding
//! reaches the engine of the variant held.
#![allow(unexpected_cfgs, reason = "the toy table's --cfg is never declared")]

/// A toy engine trait: a token from the CPU check, a key form generic over
/// a length as aes-ct's is over its round count.
trait Engine {
    type Token: Copy;
    type Key<const N: usize>: Clone;
    fn token() -> Option<Self::Token>;
    fn new_key<const N: usize>(token: Self::Token, seed: u8) -> Self::Key<N>;
    fn sum<const N: usize>(key: &Self::Key<N>) -> u32;
}

/// A CPU check that passes; its key form is `N` copies of the seed.
struct Passes;
#[derive(Clone, Copy, Debug)]
struct PassesToken;
impl Engine for Passes {
    type Token = PassesToken;
    type Key<const N: usize> = [u8; N];
    fn token() -> Option<PassesToken> {
        Some(PassesToken)
    }
    fn new_key<const N: usize>(_: PassesToken, seed: u8) -> [u8; N] {
        [seed; N]
    }
    fn sum<const N: usize>(key: &[u8; N]) -> u32 {
        key.iter().map(|&b| u32::from(b)).sum()
    }
}

/// A CPU check that fails: its key form must never be built.
struct Fails;
impl Engine for Fails {
    type Token = ();
    type Key<const N: usize> = u32;
    fn token() -> Option<()> {
        None
    }
    fn new_key<const N: usize>(_: (), _: u8) -> u32 {
        panic!("key form built without a token")
    }
    fn sum<const N: usize>(_: &u32) -> u32 {
        panic!("key form used without a token")
    }
}

/// The portable engine: always available, its key form is the seed.
struct Portable;
impl Engine for Portable {
    type Token = ();
    type Key<const N: usize> = u8;
    fn token() -> Option<()> {
        Some(())
    }
    fn new_key<const N: usize>(_: (), seed: u8) -> u8 {
        seed
    }
    fn sum<const N: usize>(key: &u8) -> u32 {
        1000 + u32::from(*key)
    }
}

mod keys {
    use super::*;

    ct_dispatch::backends! {
        what = "toy", cfg = toy_backend, fallback = Portable, self_test = |_| true;
        /// A toy key.
        #[derive(Clone, Debug)]
        pub(crate) enum Keys<const N: usize>(Engine::Key<N>) with keys!;
        Fails => crate::Fails, "fails", "CPU check fails.";
        #[cfg(any())]
        Absent => crate::Fails, "absent", "Compiled out.";
        Passes => crate::Passes, "passes", "CPU check passes.";
        Portable => crate::Portable, "portable", "Portable.";
    }

    impl<const N: usize> Keys<N> {
        pub(crate) fn new(backend: Backend, seed: u8) -> Result<Self, UnsupportedBackend> {
            keys!(new backend, |t, E| E::new_key::<N>(t, seed))
        }

        pub(crate) fn sum(&self) -> u32 {
            keys!(self, |k, E| E::sum::<N>(k))
        }

        /// A constructor that can fail besides the CPU check (as
        /// aes-gcm-ct's, for a key of the wrong length): `?` in the value
        /// returns from this function.
        pub(crate) fn new_odd(backend: Backend, seed: u8) -> Option<Self> {
            let odd = (seed % 2 == 1).then_some(seed);
            keys!(new backend, |t, E| E::new_key::<N>(t, odd?)).ok()
        }
    }
}

/// An enum that holds only the token (as adiantum-ct's NH choice).
mod tokens {
    use super::*;

    ct_dispatch::backends! {
        what = "toy token", cfg = toy_token_backend, fallback = Portable, self_test = |_| true;
        #[derive(Clone, Copy, Debug)]
        pub(crate) enum Choice(Engine::Token) with choice!;
        Passes => crate::Passes, "passes", "CPU check passes.";
        Portable => crate::Portable, "portable", "Portable.";
    }

    impl Choice {
        pub(crate) fn new(backend: Backend) -> Result<Self, UnsupportedBackend> {
            choice!(new backend, |t, E| t)
        }

        /// The key an engine builds from this choice's own token.
        pub(crate) fn sum(self, seed: u8) -> u32 {
            choice!(self, |t, E| E::sum::<4>(&E::new_key::<4>(t, seed)))
        }
    }
}

use keys::{Backend, Keys, UnsupportedBackend};

#[test]
fn built_only_through_a_token() {
    let k = Keys::<4>::new(Backend::Passes, 3).unwrap();
    assert_eq!(k.backend(), Backend::Passes);
    assert_eq!(k.sum(), 12);
    let p = Keys::<4>::new(Backend::Portable, 3).unwrap();
    assert_eq!(p.backend(), Backend::Portable);
    assert_eq!(p.sum(), 1003);
    assert_eq!(
        Keys::<4>::new(Backend::Fails, 3).unwrap_err(),
        UnsupportedBackend(Backend::Fails)
    );
}

#[test]
fn a_failing_value_returns_through_question_mark() {
    assert_eq!(Keys::<2>::new_odd(Backend::Passes, 3).unwrap().sum(), 6);
    assert!(Keys::<2>::new_odd(Backend::Passes, 4).is_none());
    assert!(Keys::<2>::new_odd(Backend::Fails, 3).is_none());
}

#[test]
fn a_compiled_out_line_is_named_but_never_built() {
    assert_eq!(
        Backend::ALL,
        [
            Backend::Fails,
            Backend::Absent,
            Backend::Passes,
            Backend::Portable
        ]
    );
    assert_eq!(Backend::Absent.name(), "absent");
    assert!(!Backend::Absent.is_available());
    assert!(!Backend::Fails.is_available());
    assert_eq!(
        Keys::<2>::new(Backend::Absent, 1).unwrap_err(),
        UnsupportedBackend(Backend::Absent)
    );
}

#[test]
fn detection_takes_the_first_line_whose_check_passes() {
    assert_eq!(Backend::detected(), Backend::Passes);
    assert_eq!(
        Backend::available().collect::<Vec<_>>(),
        [Backend::Passes, Backend::Portable]
    );
}

#[test]
fn a_token_only_enum_forwards_its_token() {
    use tokens::{Backend, Choice};
    let c = Choice::new(Backend::Passes).unwrap();
    assert_eq!(c.backend(), Backend::Passes);
    assert_eq!(c.sum(5), 20);
    assert_eq!(Choice::new(Backend::Portable).unwrap().sum(5), 1005);
}
