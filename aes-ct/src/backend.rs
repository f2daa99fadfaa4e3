//! Backend selection: the one dispatch table of this crate.
//!
//! Every backend is a module with a type implementing [`Engine`]. Its key
//! form can only be built from a capability token (`Engine::Token`), and
//! the only way to get a token is `Engine::token()`, which runs the CPU
//! check (ring's idea). Adding a backend is one module plus one line in
//! [`backends!`] below; the line's position is its priority.
//!
//! Selection: the first available backend in table order, detected once and
//! cached. `--cfg aes_ct_backend="NAME"` narrows automatic selection to
//! that backend (falling back to `soft` if this CPU cannot run it); cargo
//! features compile backends out; [`crate::Aes128::new_with_backend`] asks
//! for one at run time and fails with [`UnsupportedBackend`].

use crate::schedule::Schedule;
use cipher::{BlockCipherDecClosure, BlockCipherEncClosure, consts::U16};
use core::{
    fmt,
    sync::atomic::{AtomicU8, Ordering},
};

/// What a backend module provides.
pub(crate) trait Engine {
    /// Zero-sized proof that this CPU can run the backend.
    type Token: Copy;
    /// The backend's key form (wiped on drop).
    type Key<const NR: usize>: Clone;
    /// Run the CPU check (cached by the backend).
    fn token() -> Option<Self::Token>;
    /// Derive the backend's key form from the standard schedule.
    fn expand<const NR: usize>(token: Self::Token, ks: &Schedule<NR>) -> Self::Key<NR>;
    fn encrypt<const NR: usize>(
        key: &Self::Key<NR>,
        f: impl BlockCipherEncClosure<BlockSize = U16>,
    );
    fn decrypt<const NR: usize>(
        key: &Self::Key<NR>,
        f: impl BlockCipherDecClosure<BlockSize = U16>,
    );
}

/// The error returned when a backend was asked for that this build or this
/// CPU cannot run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnsupportedBackend(pub Backend);

impl fmt::Display for UnsupportedBackend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "AES backend `{}` is not available on this CPU or in this build",
            self.0.name()
        )
    }
}

impl core::error::Error for UnsupportedBackend {}

macro_rules! backends {
    ($( $(#[$cfg:meta])* $variant:ident => $engine:ty, $name:literal, $doc:literal; )*) => {
        /// An AES implementation of this crate. Listed in order of preference.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum Backend {
            $( #[doc = $doc] $variant, )*
        }

        impl Backend {
            /// Every backend this crate knows, compiled in or not, best first.
            pub const ALL: &'static [Backend] = &[$(Backend::$variant),*];

            /// Short name, as accepted by `--cfg aes_ct_backend="..."`.
            pub const fn name(self) -> &'static str {
                match self { $(Backend::$variant => $name,)* }
            }

            /// The backend forced with `--cfg aes_ct_backend="NAME"`, if any.
            pub const fn forced() -> Option<Backend> {
                $( if cfg!(aes_ct_backend = $name) { return Some(Backend::$variant); } )*
                None
            }

            /// Is this backend compiled in and supported by this CPU?
            pub fn is_available(self) -> bool {
                match self {
                    $(
                        $(#[$cfg])*
                        Backend::$variant => <$engine as Engine>::token().is_some(),
                    )*
                    #[allow(unreachable_patterns)]
                    _ => false,
                }
            }
        }

        /// A key in the form of one backend.
        #[derive(Clone)]
        #[allow(clippy::large_enum_variant, reason = "long-lived keys; no_std has no Box")]
        pub(crate) enum Keys<const NR: usize> {
            $( $(#[$cfg])* $variant(<$engine as Engine>::Key<NR>), )*
        }

        impl<const NR: usize> Keys<NR> {
            pub(crate) fn new(backend: Backend, key: &[u8]) -> Result<Self, UnsupportedBackend> {
                let ks = Schedule::<NR>::new(key);
                match backend {
                    $(
                        $(#[$cfg])*
                        Backend::$variant => match <$engine as Engine>::token() {
                            Some(t) => Ok(Keys::$variant(<$engine as Engine>::expand(t, &ks))),
                            None => Err(UnsupportedBackend(backend)),
                        },
                    )*
                    #[allow(unreachable_patterns)]
                    _ => Err(UnsupportedBackend(backend)),
                }
            }

            pub(crate) fn backend(&self) -> Backend {
                match self { $( $(#[$cfg])* Keys::$variant(_) => Backend::$variant, )* }
            }

            #[inline]
            pub(crate) fn encrypt(&self, f: impl BlockCipherEncClosure<BlockSize = U16>) {
                match self { $( $(#[$cfg])* Keys::$variant(k) => <$engine as Engine>::encrypt(k, f), )* }
            }

            #[inline]
            pub(crate) fn decrypt(&self, f: impl BlockCipherDecClosure<BlockSize = U16>) {
                match self { $( $(#[$cfg])* Keys::$variant(k) => <$engine as Engine>::decrypt(k, f), )* }
            }
        }
    };
}

// The dispatch table. Order = preference.
backends! {
    #[cfg(all(any(target_arch = "x86", target_arch = "x86_64"), feature = "vaes"))]
    Vaes => crate::x86::vaes::Vaes, "vaes", "VAES on AVX-512 (32 blocks per batch) or AVX2 (2 x 16), AES-NI for single blocks (x86).";
    #[cfg(all(any(target_arch = "x86", target_arch = "x86_64"), feature = "aesni"))]
    Aesni => crate::x86::aesni::AesNi, "aesni", "AES-NI, 8 blocks interleaved (x86).";
    #[cfg(all(target_arch = "aarch64", feature = "armv8"))]
    Armv8 => crate::aarch64::armv8::ArmV8, "armv8", "ARMv8 Cryptography Extensions (aarch64), 8 blocks interleaved.";
    #[cfg(any(
        all(any(target_arch = "x86", target_arch = "x86_64"), feature = "hybrid"),
        all(target_arch = "aarch64", feature = "neon", feature = "hybrid"),
        all(target_arch = "arm", feature = "neon", feature = "hybrid"),
    ))]
    Hybrid => crate::hybrid::HybridEngine, "hybrid", "vpaes for single blocks and tails, bsaes for batches with a per-call converted key (SSSE3 / NEON).";
    #[cfg(any(
        all(any(target_arch = "x86", target_arch = "x86_64"), feature = "vpaes"),
        all(target_arch = "aarch64", feature = "neon", feature = "vpaes"),
        all(target_arch = "arm", feature = "neon", feature = "vpaes"),
    ))]
    Vpaes => crate::hybrid::VpaesEngine, "vpaes", "vpaes alone: vector-permute AES, 1 or 2 blocks interleaved (SSSE3 / NEON).";
    #[cfg(any(
        all(any(target_arch = "x86", target_arch = "x86_64"), feature = "bsaes"),
        all(target_arch = "aarch64", feature = "neon", feature = "bsaes"),
        all(target_arch = "arm", feature = "neon", feature = "bsaes"),
    ))]
    Bsaes => crate::hybrid::BsaesEngine, "bsaes", "bsaes alone: bitsliced AES, 8 blocks per batch, long-term bitsliced key (SSSE3 / NEON).";
    Soft => crate::soft::Soft, "soft", "Portable constant-time bitsliced AES (every CPU).";
}

static DETECTED: AtomicU8 = AtomicU8::new(u8::MAX);

impl Backend {
    /// The backend new keys get: detected once (first available in table
    /// order, or the `--cfg`-forced one), then cached.
    pub fn detected() -> Backend {
        let i = DETECTED.load(Ordering::Relaxed);
        if let Some(&b) = Self::ALL.get(i as usize) {
            return b;
        }
        let b = Self::select();
        let i = Self::ALL.iter().position(|&x| x == b).unwrap_or(0);
        DETECTED.store(i as u8, Ordering::Relaxed);
        b
    }

    fn select() -> Backend {
        let candidates = Self::ALL.iter().copied().filter(|&b| match Self::forced() {
            Some(f) => b == f,
            None => true,
        });
        for b in candidates {
            if b.is_available() && self_test_passes(b) {
                return b;
            }
        }
        Backend::Soft
    }

    /// The backends this build can run on this CPU, best first.
    pub fn available() -> impl Iterator<Item = Backend> {
        Self::ALL.iter().copied().filter(|b| b.is_available())
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Start-up self-test (feature `self-test`): FIPS-197 C.1 (AES-128) and C.3
/// (AES-256), encrypt and decrypt, on the candidate backend.
#[cfg(feature = "self-test")]
fn self_test_passes(b: Backend) -> bool {
    crate::selftest::passes(b)
}

#[cfg(not(feature = "self-test"))]
fn self_test_passes(_: Backend) -> bool {
    true
}
