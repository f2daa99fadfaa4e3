//! The part of a backend dispatch table that is the same in every crate of
//! this workspace, written once.
//!
//! Each crate (`aes-ct`, `ghash-ct`, `aes-gcm-ct`, `adiantum-ct`) keeps its
//! own table - one line per backend, in order of preference - over its own
//! `Engine` trait. From those lines, [`backends!`] generates the crate's key
//! enum (one variant per line, built only through the engine's capability
//! token), its `backend()`, and a macro the crate's forwarding methods
//! dispatch with; and, through [`backend_enum!`], the public pieces users
//! see:
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
//! `x86` (on x86 targets) is the one x86/x86_64 detection (CPUID and XCR0, cached), and
//! `x86_detect!` the CPU check backends make with it.
#![no_std]

/// Methods of a vector-width trait impl that each wrap one intrinsic, one
/// line per method, so every width's impl is a table of its intrinsics and
/// the wrapper (its `#[inline(always)]`, its `unsafe`, its SAFETY reason)
/// is written once, here. Used inside an `impl` block:
///
/// ```ignore
/// ct_dispatch::intrinsic_methods! {
///     fn zero() = _mm256_setzero_si256;
///     fn bcast(x: __m128i) = _mm256_broadcastsi128_si256;
///     fn load(p: *const u8) = _mm256_loadu_si256;     // the pointer is cast
///     fn store(p: *mut u8, v) = _mm256_storeu_si256;  // the pointer is cast
///     fn xor(self, Self) = _mm256_xor_si256;
///     fn bsl8(self) = _mm256_bslli_epi128::<8>;
///     fn rev(self, self) = _mm256_permute2x128_si256::<1>; // both operands self
///     fn hi(self) -> __m128i = _mm256_extracti128_si256::<1>; // another type
///     fn clmul<const I: i32>(self, Self) = _mm256_clmulepi64_epi128; // ::<I>
/// }
/// ```
///
/// Every method is `unsafe fn` with the trait's contract: the caller runs
/// it where the CPU has the intrinsic's features (it is inlined into the
/// target-feature function that calls it) and, for the pointer forms,
/// guarantees the bytes the intrinsic reads or writes.
#[macro_export]
macro_rules! intrinsic_methods {
    () => {};
    (fn $name:ident($p:ident: *const $t:ty) = $intr:ident; $($rest:tt)*) => {
        #[inline(always)]
        unsafe fn $name($p: *const $t) -> Self {
            // SAFETY: the trait's contract: the CPU features, and the bytes
            // the intrinsic reads at `p`.
            unsafe { $intr($p.cast()) }
        }
        $crate::intrinsic_methods!($($rest)*);
    };
    (fn $name:ident($p:ident: *mut $t:ty, $v:ident) = $intr:ident; $($rest:tt)*) => {
        #[inline(always)]
        unsafe fn $name($p: *mut $t, $v: Self) {
            // SAFETY: the trait's contract: the CPU features, and the bytes
            // the intrinsic writes at `p`.
            unsafe { $intr($p.cast(), $v) }
        }
        $crate::intrinsic_methods!($($rest)*);
    };
    (fn $name:ident(self, Self) = $intr:ident $(::<$imm:literal>)?; $($rest:tt)*) => {
        #[inline(always)]
        unsafe fn $name(self, o: Self) -> Self {
            // SAFETY: the trait's contract gives the CPU features.
            unsafe { $intr $(::<$imm>)? (self, o) }
        }
        $crate::intrinsic_methods!($($rest)*);
    };
    (fn $name:ident<const $g:ident: $gt:ty>(self, Self) = $intr:ident; $($rest:tt)*) => {
        #[inline(always)]
        unsafe fn $name<const $g: $gt>(self, o: Self) -> Self {
            // SAFETY: the trait's contract gives the CPU features.
            unsafe { $intr::<$g>(self, o) }
        }
        $crate::intrinsic_methods!($($rest)*);
    };
    (fn $name:ident(self, self) = $intr:ident $(::<$imm:literal>)?; $($rest:tt)*) => {
        #[inline(always)]
        unsafe fn $name(self) -> Self {
            // SAFETY: the trait's contract gives the CPU features.
            unsafe { $intr $(::<$imm>)? (self, self) }
        }
        $crate::intrinsic_methods!($($rest)*);
    };
    (fn $name:ident(self) -> $r:ty = $intr:ident $(::<$imm:literal>)?; $($rest:tt)*) => {
        #[inline(always)]
        unsafe fn $name(self) -> $r {
            // SAFETY: the trait's contract gives the CPU features.
            unsafe { $intr $(::<$imm>)? (self) }
        }
        $crate::intrinsic_methods!($($rest)*);
    };
    (fn $name:ident(self) = $intr:ident $(::<$imm:literal>)?; $($rest:tt)*) => {
        #[inline(always)]
        unsafe fn $name(self) -> Self {
            // SAFETY: the trait's contract gives the CPU features.
            unsafe { $intr $(::<$imm>)? (self) }
        }
        $crate::intrinsic_methods!($($rest)*);
    };
    (fn $name:ident() = $intr:ident; $($rest:tt)*) => {
        #[inline(always)]
        unsafe fn $name() -> Self {
            // SAFETY: the trait's contract gives the CPU features.
            unsafe { $intr() }
        }
        $crate::intrinsic_methods!($($rest)*);
    };
    (fn $name:ident($a:ident: $t:ty) = $intr:ident; $($rest:tt)*) => {
        #[inline(always)]
        unsafe fn $name($a: $t) -> Self {
            // SAFETY: the trait's contract gives the CPU features.
            unsafe { $intr($a) }
        }
        $crate::intrinsic_methods!($($rest)*);
    };
}

/// [`intrinsic_methods!`] for two vector widths at once: one row per
/// method, one column per type, so a method's name and signature are
/// written once and each width only names its intrinsic. Expands to one
/// `impl` of the trait per type:
///
/// ```ignore
/// ct_dispatch::intrinsic_columns! {
///     impl Ops for [__m512i, __m256i] {
///         fn xor(self, Self) = [_mm512_xor_si512, _mm256_xor_si256];
///         fn bsl8(self) = [_mm512_bslli_epi128::<8>, _mm256_bslli_epi128::<8>];
///     }
/// }
/// ```
///
/// The rows take every form [`intrinsic_methods!`] takes; the trait holds
/// only such methods (a width's own methods go in a trait of their own).
#[macro_export]
macro_rules! intrinsic_columns {
    (impl $tr:ident for [$a:ty, $b:ty] { $(
        fn $name:ident $(<const $g:ident: $gt:ty>)? ($($args:tt)*) $(-> $r:ty)?
            = [$ia:ident $(::<$na:literal>)?, $ib:ident $(::<$nb:literal>)?];
    )* }) => {
        impl $tr for $a {
            $crate::intrinsic_methods! { $(
                fn $name $(<const $g: $gt>)? ($($args)*) $(-> $r)? = $ia $(::<$na>)?;
            )* }
        }
        impl $tr for $b {
            $crate::intrinsic_methods! { $(
                fn $name $(<const $g: $gt>)? ($($args)*) $(-> $r)? = $ib $(::<$nb>)?;
            )* }
        }
    };
}

#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub mod x86;

pub mod wipe;

pub mod short;

#[cfg(feature = "build")]
pub mod build;

#[cfg(feature = "test-util")]
#[doc(hidden)]
pub mod test_util;

/// A crate's dispatch table: its key enum and everything derived from the
/// table lines, so the crate writes only the table and its forwarding
/// methods.
///
/// ```ignore
/// ct_dispatch::backends! {
///     what = "GHASH", cfg = ghash_ct_backend, fallback = PORTABLE, self_test = |_| true;
///     /// Key powers in the form of one backend.
///     #[derive(Clone)]
///     pub(crate) enum Keys(Engine::Key) with keys!;
///     // The dispatch table. Order = preference.
///     #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
///     Pclmul => crate::x86::pclmul::Pclmul, "pclmul", "PCLMULQDQ.";
///     Soft32 => crate::soft::Soft32, "soft32", "Portable.";
/// }
///
/// impl Keys {
///     pub(crate) fn new(backend: Backend, h: u128) -> Result<Self, UnsupportedBackend> {
///         keys!(new backend, |t, E| E::new_key(t, h))
///     }
///     pub(crate) fn update(&self, acc: &mut u128, blocks: &[Block]) {
///         keys!(self, |k, E| E::update(k, acc, blocks))
///     }
/// }
/// ```
///
/// The first line is [`backend_enum!`]'s (the CPU check it runs is
/// `token_ok`, generated here). The enum line names the crate's engine
/// trait (in scope, with `type Token: Copy` and `fn token() ->
/// Option<Self::Token>`, the CPU check) and the associated type every
/// variant holds (`Engine::Key<NR>` for an enum `Keys<const NR: usize>`;
/// `Engine::Token` for one that holds only the token); const generics are
/// the enum's only generics. Then one line per backend: `Variant => engine
/// type, "name", "doc";`, each with its own `#[cfg]` (the format
/// `build::table_names` reads in the crate's build script).
///
/// Generated: `Backend`, `UnsupportedBackend` (as [`backend_enum!`]), the
/// enum, its `backend()`, `token_ok`, and the macro named after `with`, for
/// use in the table's module:
///
/// * `keys!(new backend, |t, E| value)`: the enum of backend `backend`,
///   holding `value`, built only after `E::token()` (the CPU check) handed
///   out token `t`; `Err(UnsupportedBackend(backend))` if it did not or the
///   backend is not compiled in. `E` names the backend's engine type. A
///   `?` in `value` returns from the enclosing function (for a constructor
///   that can also fail otherwise);
/// * `keys!(with backend, |t, E| value)`: `Ok(value)` computed with
///   backend `backend`'s token `t` (its engine `E`), under the same check
///   (for work that is not a key form: a backend's own key schedule);
/// * `keys!(expr, |k, E| body)`: `body` with `k` bound to what the value
///   `expr` holds (by reference if `expr` is a reference) and `E` naming
///   its engine type.
#[macro_export]
macro_rules! backends {
    (
        what = $what:literal, cfg = $cfg_name:ident, fallback = $fallback:ident,
        self_test = $self_test:expr;
        $(#[$attr:meta])*
        $vis:vis enum $name:ident $(<$(const $g:ident: $gt:ty),+ $(,)?>)?
            ($tr:ident :: $($payload:tt)+) with $mac:ident !;
        $( $(#[$cfg:meta])* $variant:ident => $engine:ty, $bname:literal, $doc:literal; )*
    ) => {
        // `$` goes in as a token: the macro generated below needs
        // metavariables of its own (`$d name`).
        $crate::backends! {
            @expand ($) [$what, $cfg_name, $fallback, $self_test]
            [$(#[$attr])*] [$vis] $name [$($(const $g: $gt),+)?] [$($($g),+)?]
            $tr ($($payload)+) $mac;
            $( $(#[$cfg])* $variant => $engine, $bname, $doc; )*
        }
    };
    (
        @expand ($d:tt) [$what:literal, $cfg_name:ident, $fallback:ident, $self_test:expr]
        [$(#[$attr:meta])*] [$vis:vis] $name:ident [$($gen:tt)*] [$($arg:tt)*]
        $tr:ident $payload:tt $mac:ident;
        $( $(#[$cfg:meta])* $variant:ident => $engine:ty, $bname:literal, $doc:literal; )*
    ) => {
        $crate::backend_enum! {
            what = $what, cfg = $cfg_name, available = token_ok,
            fallback = $fallback, self_test = $self_test;
            $( $(#[$cfg])* $variant => $engine, $bname, $doc; )*
        }

        /// The CPU check of engine `E` (for the generated `Backend`).
        fn token_ok<E: $tr>() -> bool {
            E::token().is_some()
        }

        $(#[$attr])*
        $vis enum $name<$($gen)*> {
            $( $(#[$cfg])* $variant($crate::__projection!($engine, $tr, $payload)), )*
        }

        impl<$($gen)*> $name<$($arg)*> {
            /// The backend this value is for.
            $vis fn backend(&self) -> Backend {
                match self { $( $(#[$cfg])* Self::$variant(_) => Backend::$variant, )* }
            }
        }

        #[allow(unused_macros)]
        macro_rules! $mac {
            (new $d backend:expr, |$d t:pat_param, $d e:ident| $d value:expr) => {
                $mac!(@go new $d backend, |$d t, $d e| $d value)
            };
            (with $d backend:expr, |$d t:pat_param, $d e:ident| $d value:expr) => {
                $mac!(@go with $d backend, |$d t, $d e| $d value)
            };
            (@go $d how:ident $d backend:expr, |$d t:pat_param, $d e:ident| $d value:expr) => {{
                let backend: Backend = $d backend;
                match backend {
                    $(
                        $(#[$cfg])*
                        Backend::$variant => {
                            #[allow(dead_code)]
                            type $d e = $engine;
                            match <$d e as $tr>::token() {
                                Some($d t) => Ok($crate::__wrap!($d how, $name::$variant, $d value)),
                                None => Err(UnsupportedBackend(backend)),
                            }
                        }
                    )*
                    #[allow(unreachable_patterns)]
                    _ => Err(UnsupportedBackend(backend)),
                }
            }};
            ($d value:expr, |$d k:pat_param, $d e:ident| $d body:expr) => {
                match $d value {
                    $(
                        $(#[$cfg])*
                        $name::$variant($d k) => {
                            #[allow(dead_code)]
                            type $d e = $engine;
                            $d body
                        }
                    )*
                }
            };
        }
    };
}

/// `new`: the value in the variant; `with`: the value itself (for
/// [`backends!`]' generated macro).
#[doc(hidden)]
#[macro_export]
macro_rules! __wrap {
    (new, $variant:path, $value:expr) => {
        $variant($value)
    };
    (with, $variant:path, $value:expr) => {
        $value
    };
}

/// `<$engine as $trait>::$payload`, for [`backends!`]: the payload comes
/// as one group, so the table's repetition can use it.
#[doc(hidden)]
#[macro_export]
macro_rules! __projection {
    ($engine:ty, $tr:ident, ($($payload:tt)+)) => {
        <$engine as $tr>::$($payload)+
    };
}

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
