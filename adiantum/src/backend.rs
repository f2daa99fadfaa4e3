//! NH backend selection: the one dispatch table of this crate.
//!
//! Every NH backend is a module with a type implementing [`Engine`]. A
//! backend can only be entered with its capability token (`Engine::Token`,
//! zero-sized), and the only way to get a token is `Engine::token()`, which
//! runs the CPU check. Adding a backend is one module plus one line in
//! [`backends!`] below; the line's position is its priority.
//!
//! Selection: the first available backend in table order, detected once and
//! cached. `--cfg adiantum_ct_backend="NAME"` narrows automatic selection to
//! that backend (falling back to `soft` if this CPU cannot run it);
//! [`crate::Adiantum::new_with_backend`] asks for one at run time and fails
//! with [`UnsupportedBackend`].
//!
//! Only NH has backends: XChaCha and Poly1305 come from RustCrypto's
//! `chacha20` / `poly1305` (their own detection) and AES from `aes-ct`.

use crate::nh::NhKey;
use cipher::InOutBuf;
use core::{
    fmt,
    sync::atomic::{AtomicU8, Ordering},
};

/// What an NH backend module provides.
pub(crate) trait Engine {
    /// Zero-sized proof that this CPU can run the backend.
    type Token: Copy;
    /// Run the CPU check (cached where it costs anything).
    fn token() -> Option<Self::Token>;
    /// The four NH sums of `msg`: whole 16-byte units only (a trailing
    /// partial unit is ignored), at most 1024 bytes are used.
    fn units(token: Self::Token, key: &NhKey, msg: &[u8]) -> [u64; 4];
    /// Does [`Engine::chacha_xor`] do the work (else: `chacha20` crate)?
    const OWN_CHACHA: bool = false;
    /// The backend's own ChaCha, if it has one (armv7 NEON, x86 AVX2; see
    /// those modules for the measurements that justify it). XORs the
    /// keystream of the 16-word ChaCha `state` (word 12 = block counter,
    /// advanced by the number of blocks used, `ceil(len / 64)`) with
    /// `double_rounds` double rounds over all of `buf`. Returns `false`,
    /// touching nothing, if the backend has no ChaCha; callers then use the
    /// `chacha20` crate.
    fn chacha_xor(
        _token: Self::Token,
        _state: &mut [u32; 16],
        _double_rounds: usize,
        _buf: InOutBuf<'_, '_, u8>,
    ) -> bool {
        false
    }
}

/// The error returned when an NH backend was asked for that this build or
/// this CPU cannot run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnsupportedBackend(pub Backend);

impl fmt::Display for UnsupportedBackend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "NH backend `{}` is not available on this CPU or in this build",
            self.0.name()
        )
    }
}

impl core::error::Error for UnsupportedBackend {}

macro_rules! backends {
    ($( $(#[$cfg:meta])* $variant:ident => $engine:ty, $name:literal, $doc:literal; )*) => {
        /// An NH implementation of this crate. Listed in order of preference.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum Backend {
            $( #[doc = $doc] $variant, )*
        }

        impl Backend {
            /// Every backend this crate knows, compiled in or not, best first.
            pub const ALL: &'static [Backend] = &[$(Backend::$variant),*];

            /// Short name, as accepted by `--cfg adiantum_ct_backend="..."`.
            pub const fn name(self) -> &'static str {
                match self { $(Backend::$variant => $name,)* }
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

        /// A chosen NH backend, holding its capability token (not nameable
        /// outside the crate).
        #[derive(Clone, Copy, Debug)]
        pub(crate) enum Nh {
            $( $(#[$cfg])* $variant(<$engine as Engine>::Token), )*
        }

        impl Nh {
            pub(crate) fn new(backend: Backend) -> Result<Self, UnsupportedBackend> {
                match backend {
                    $(
                        $(#[$cfg])*
                        Backend::$variant => match <$engine as Engine>::token() {
                            Some(t) => Ok(Nh::$variant(t)),
                            None => Err(UnsupportedBackend(backend)),
                        },
                    )*
                    #[allow(unreachable_patterns)]
                    _ => Err(UnsupportedBackend(backend)),
                }
            }

            pub(crate) fn backend(self) -> Backend {
                match self { $( $(#[$cfg])* Nh::$variant(_) => Backend::$variant, )* }
            }

            #[inline]
            pub(crate) fn units(self, key: &NhKey, msg: &[u8]) -> [u64; 4] {
                match self { $( $(#[$cfg])* Nh::$variant(t) => <$engine as Engine>::units(t, key, msg), )* }
            }

            /// Does this backend bring its own ChaCha?
            pub(crate) fn has_own_chacha(self) -> bool {
                match self { $( $(#[$cfg])* Nh::$variant(_) => <$engine as Engine>::OWN_CHACHA, )* }
            }

            #[inline]
            pub(crate) fn chacha_xor(
                self,
                state: &mut [u32; 16],
                double_rounds: usize,
                buf: InOutBuf<'_, '_, u8>,
            ) -> bool {
                match self {
                    $( $(#[$cfg])* Nh::$variant(t) => <$engine as Engine>::chacha_xor(t, state, double_rounds, buf), )*
                }
            }
        }
    };
}

// The dispatch table. Order = preference.
backends! {
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    Avx2 => crate::x86::avx2::Avx2, "avx2", "AVX2 NH, two units per 256-bit vector (x86/x86_64).";
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    Sse2 => crate::x86::sse2::Sse2, "sse2", "SSE2 NH, one unit per 128-bit vector (x86/x86_64).";
    #[cfg(target_arch = "aarch64")]
    Neon => crate::aarch64::neon::Neon, "neon", "NEON intrinsics NH (aarch64).";
    #[cfg(all(target_arch = "arm", target_os = "linux"))]
    NeonAsm => crate::arm::neon::NeonAsm, "neon-asm", "NEON assembly NH and ChaCha (32-bit ARM Linux, NEON detected at run time).";
    Soft => crate::soft::Soft, "soft", "Portable NH (every CPU).";
}

/// The backend forced with `--cfg adiantum_ct_backend="..."`, if any.
const FORCED: Option<&str> = if cfg!(adiantum_ct_backend = "soft") {
    Some("soft")
} else if cfg!(adiantum_ct_backend = "sse2") {
    Some("sse2")
} else if cfg!(adiantum_ct_backend = "avx2") {
    Some("avx2")
} else if cfg!(adiantum_ct_backend = "neon") {
    Some("neon")
} else if cfg!(adiantum_ct_backend = "neon-asm") {
    Some("neon-asm")
} else {
    None
};

static DETECTED: AtomicU8 = AtomicU8::new(u8::MAX);

impl Backend {
    /// The backend new keys get: detected once (first available in table
    /// order, or the `--cfg`-forced one), then cached.
    pub fn detected() -> Backend {
        let i = DETECTED.load(Ordering::Relaxed);
        if let Some(&b) = Self::ALL.get(usize::from(i)) {
            return b;
        }
        let b = Self::select();
        let i = Self::ALL.iter().position(|&x| x == b).unwrap_or(0);
        DETECTED.store(u8::try_from(i).unwrap_or(u8::MAX), Ordering::Relaxed);
        b
    }

    fn select() -> Backend {
        Self::ALL
            .iter()
            .copied()
            .filter(|b| FORCED.is_none_or(|name| b.name() == name))
            .find(|b| b.is_available())
            .unwrap_or(Backend::Soft)
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

/// A checked NH backend choice, opaque outside the crate (it appears in the
/// sealed [`crate::HashVariant`] interface).
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct NhChoice(pub(crate) Nh);
