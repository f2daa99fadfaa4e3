//! NH backend selection: the one dispatch table of this crate.
//!
//! Every NH backend is a module with a type implementing [`Engine`]. A
//! backend can only be entered with its capability token (`Engine::Token`,
//! zero-sized), and the only way to get a token is `Engine::token()`, which
//! runs the CPU check. Adding a backend is one module plus one line in
//! the table below; the line's position is its priority.
//! `ct_dispatch::backends!` builds the backend enum from the table lines;
//! this file adds only the methods that forward to the engine.
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

/// One NH backend's engine type `$engine` and its capability token
/// `Token`: `token()` hands a token out only when `$check` (the CPU check
/// that this CPU `$what`) holds. A backend with its own ChaCha states it
/// as `own_chacha(token, state, double_rounds, buf) { body }`, which is
/// [`Engine::chacha_xor`] with [`Engine::OWN_CHACHA`] set, so the flag and
/// the code cannot disagree. The remaining items complete the [`Engine`]
/// impl (at least `units`, whose `unsafe` the token justifies).
macro_rules! engine {
    (
        $(#[$doc:meta])*
        $engine:ident, $what:literal, $check:expr;
        own_chacha($t:pat, $state:ident, $rounds:ident, $buf:ident) $chacha:block
        $($items:tt)*
    ) => {
        crate::backend::engine! {
            $(#[$doc])*
            $engine, $what, $check;

            const OWN_CHACHA: bool = true;

            fn chacha_xor(
                $t: Token,
                $state: &mut [u32; 16],
                $rounds: usize,
                $buf: cipher::InOutBuf<'_, '_, u8>,
            ) -> bool $chacha

            $($items)*
        }
    };
    (
        $(#[$doc:meta])*
        $engine:ident, $what:literal, $check:expr;
        $($items:tt)*
    ) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug)]
        pub(crate) struct $engine;

        #[doc = concat!(
            "Proof that this CPU ", $what, " (only `", stringify!($engine),
            "`'s [`Engine::token`](crate::backend::Engine::token) makes one)."
        )]
        #[derive(Clone, Copy, Debug)]
        pub(crate) struct Token(());

        impl crate::backend::Engine for $engine {
            type Token = Token;

            fn token() -> Option<Token> {
                ($check).then_some(Token(()))
            }

            $($items)*
        }
    };
}
pub(crate) use engine;

ct_dispatch::backends! {
    what = "NH", cfg = adiantum_ct_backend, fallback = Soft, self_test = |_| true;
    /// A chosen NH backend, holding its capability token (not nameable
    /// outside the crate).
    #[derive(Clone, Copy, Debug)]
    pub(crate) enum Nh(Engine::Token) with nh!;
    // The dispatch table. Order = preference.
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    Avx2 => crate::x86::avx2::Avx2, "avx2", "AVX2 NH, two units per 256-bit vector (x86/x86_64).";
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    Sse2 => crate::x86::sse2::Sse2, "sse2", "SSE2 NH, one unit per 128-bit vector (x86/x86_64).";
    #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
    Neon => crate::aarch64::neon::Neon, "neon", "NEON intrinsics NH (aarch64).";
    #[cfg(all(target_arch = "arm", target_os = "linux"))]
    NeonAsm => crate::arm::neon::NeonAsm, "neon-asm", "NEON assembly NH and ChaCha (32-bit ARM Linux, NEON detected at run time).";
    Soft => crate::soft::Soft, "soft", "Portable NH (every CPU).";
}

impl Nh {
    pub(crate) fn new(backend: Backend) -> Result<Self, UnsupportedBackend> {
        nh!(new backend, |t, E| t)
    }

    #[inline]
    pub(crate) fn units(self, key: &NhKey, msg: &[u8]) -> [u64; 4] {
        nh!(self, |t, E| E::units(t, key, msg))
    }

    /// Does this backend bring its own ChaCha?
    pub(crate) fn has_own_chacha(self) -> bool {
        nh!(self, |_, E| E::OWN_CHACHA)
    }

    #[inline]
    pub(crate) fn chacha_xor(
        self,
        state: &mut [u32; 16],
        double_rounds: usize,
        buf: InOutBuf<'_, '_, u8>,
    ) -> bool {
        nh!(self, |t, E| E::chacha_xor(t, state, double_rounds, buf))
    }
}

/// A checked NH backend choice, opaque outside the crate (it appears in the
/// sealed [`crate::HashVariant`] interface).
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct NhChoice(pub(crate) Nh);
