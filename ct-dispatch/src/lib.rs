//! The part of a backend dispatch table that is the same in every crate of
//! this workspace, written once.
//!
//! Each crate (`aes-ct`, `ghash-ct`, `aes-gcm-ct`, `adiantum-ct`) keeps its
//! own table - one line per backend, in order of preference - and its own
//! key enum over its own `Engine` trait. From the same lines,
//! [`backend_enum!`] generates the public pieces users see:
//!
//! * `Backend`: `ALL`, `name()`, `forced()` (`--cfg <crate>_backend="name"`),
//!   `is_available()` (compiled in and passes the CPU check), `detected()`
//!   (first available in table order, or the forced one; computed once,
//!   cached), `available()`, `Display`;
//! * `UnsupportedBackend`: the error a run-time request for a backend gives
//!   when this build or CPU cannot run it.
//!
//! [`arm::has_neon`] is the one NEON check for 32-bit ARM, where
//! `cpufeatures` does not build: `getauxval(AT_HWCAP)` on Linux, cached.
//! [`x86`] is the one x86/x86_64 detection (CPUID and XCR0, cached), and
//! [`x86_detect!`] the CPU check backends make with it.
#![no_std]

#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub mod x86;

pub mod wipe;

#[cfg(feature = "build")]
pub mod build;

/// Generate `Backend` and `UnsupportedBackend` from a dispatch table.
///
/// ```ignore
/// ct_dispatch::backend_enum! {
///     what = "AES", cfg = aes_ct_backend, available = token_ok,
///     fallback = Soft, self_test = crate::selftest::passes;
///     #[cfg(target_arch = "x86_64")]
///     Aesni => crate::x86::aesni::AesNi, "aesni", "AES-NI.";
///     Soft => crate::soft::Soft, "soft", "Portable.";
/// }
/// ```
///
/// `available` names a generic function in scope, `fn<E>() -> bool`, that
/// runs engine `E`'s CPU check (typically `E::token().is_some()`).
/// `fallback` names the portable backend (a variant or an associated
/// constant), used when the forced one cannot run. `self_test` is a
/// `fn(Backend) -> bool` run on a candidate before it is selected.
#[macro_export]
macro_rules! backend_enum {
    (
        what = $what:literal, cfg = $cfg_name:ident, available = $avail:ident,
        fallback = $fallback:ident, self_test = $self_test:expr;
        $( $(#[$cfg:meta])* $variant:ident => $engine:ty, $name:literal, $doc:literal; )*
    ) => {
        #[doc = concat!("A ", $what, " implementation of this crate. Listed in order of preference.")]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum Backend {
            $( #[doc = $doc] $variant, )*
        }

        impl Backend {
            /// Every backend this crate knows, compiled in or not, best first.
            pub const ALL: &'static [Backend] = &[$(Backend::$variant),*];

            /// Short name, as accepted by the crate's `--cfg ..._backend="NAME"`.
            pub const fn name(self) -> &'static str {
                match self { $(Backend::$variant => $name,)* }
            }

            /// The backend forced at compile time with
            #[doc = concat!("`--cfg ", stringify!($cfg_name), "=\"NAME\"`, if any.")]
            pub const fn forced() -> Option<Backend> {
                $( if cfg!($cfg_name = $name) { return Some(Backend::$variant); } )*
                None
            }

            /// Is this backend compiled in and supported by this CPU?
            pub fn is_available(self) -> bool {
                match self {
                    $(
                        $(#[$cfg])*
                        Backend::$variant => $avail::<$engine>(),
                    )*
                    #[allow(unreachable_patterns)]
                    _ => false,
                }
            }

            /// The backend new keys get: the first available one in table
            /// order (or the forced one, if this CPU can run it; else the
            /// portable one), detected once and cached.
            pub fn detected() -> Backend {
                use core::sync::atomic::{AtomicU8, Ordering};
                static DETECTED: AtomicU8 = AtomicU8::new(u8::MAX);
                let i = DETECTED.load(Ordering::Relaxed);
                if let Some(&b) = Self::ALL.get(usize::from(i)) {
                    return b;
                }
                let b = Self::ALL
                    .iter()
                    .copied()
                    .filter(|&b| Self::forced().is_none_or(|f| f == b))
                    .find(|&b| b.is_available() && $self_test(b))
                    .unwrap_or(Backend::$fallback);
                let i = Self::ALL.iter().position(|&x| x == b).unwrap_or(0);
                DETECTED.store(u8::try_from(i).unwrap_or(u8::MAX), Ordering::Relaxed);
                b
            }

            /// The backends this build can run on this CPU, best first.
            pub fn available() -> impl Iterator<Item = Backend> {
                Self::ALL.iter().copied().filter(|b| b.is_available())
            }
        }

        impl core::fmt::Display for Backend {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(self.name())
            }
        }

        /// The error returned when a backend was asked for that this build or
        /// this CPU cannot run.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct UnsupportedBackend(pub Backend);

        impl core::fmt::Display for UnsupportedBackend {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                write!(
                    f,
                    concat!($what, " backend `{}` is not available on this CPU or in this build"),
                    self.0.name()
                )
            }
        }

        impl core::error::Error for UnsupportedBackend {}
    };
}

/// Run-time feature detection on 32-bit ARM.
pub mod arm {
    /// Does this CPU have NEON? `getauxval(AT_HWCAP)` bit 12 (`HWCAP_NEON`)
    /// on 32-bit ARM Linux, asked once and cached; `false` elsewhere.
    pub fn has_neon() -> bool {
        imp::has_neon()
    }

    #[cfg(all(target_arch = "arm", target_os = "linux"))]
    mod imp {
        use core::sync::atomic::{AtomicU8, Ordering};

        /// `HWCAP_NEON` in `AT_HWCAP` on 32-bit ARM Linux.
        const HWCAP_NEON: libc::c_ulong = 1 << 12;
        /// 0 = not asked yet, 1 = no NEON, 2 = NEON.
        static CACHE: AtomicU8 = AtomicU8::new(0);

        pub(super) fn has_neon() -> bool {
            let mut v = CACHE.load(Ordering::Relaxed);
            if v == 0 {
                // SAFETY: getauxval has no preconditions; it only reads the
                // auxiliary vector the kernel gave this process.
                let hwcap = unsafe { libc::getauxval(libc::AT_HWCAP) };
                v = if hwcap & HWCAP_NEON != 0 { 2 } else { 1 };
                CACHE.store(v, Ordering::Relaxed);
            }
            v == 2
        }
    }

    #[cfg(not(all(target_arch = "arm", target_os = "linux")))]
    mod imp {
        pub(super) fn has_neon() -> bool {
            false
        }
    }
}
