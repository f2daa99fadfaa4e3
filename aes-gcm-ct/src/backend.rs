//! Path selection: the one dispatch table of this crate.
//!
//! A path is either a fused AES + GHASH loop of one module ([`Engine`]),
//! which needs the raw round keys of one of our `aes_ct` types and the CPU
//! instructions it uses, or the [`Backend::Generic`] path: CTR through the
//! cipher's own `encrypt_with_backend` (one call per message) alternating,
//! in cache-sized chunks, with `ghash_ct` over the produced ciphertext. The
//! generic path works with any AES implementation.
//!
//! Selection happens once, at key setup: the first line of [`backends!`]
//! this CPU runs, if the cipher is an `aes_ct` type whose own backend uses
//! the AES instructions (so `--cfg aes_ct_backend="soft"` is honoured),
//! otherwise the generic path. `--cfg aes_gcm_ct_backend="NAME"` narrows
//! automatic selection to that path; `AesGcm::new_with_backend` asks for one
//! at run time and fails with [`UnsupportedBackend`]; `AesGcm::backend`
//! says which one a key uses.

use crate::Block;
use aead::inout::InOutBuf;
use core::marker::PhantomData;
use ghash_ct::GHashKey;

/// Which of aes-ct's cipher types an `AesGcm` holds (`ctr-ghash` runs the
/// `AesGcm`'s own cipher, through [`CipherRef`]).
#[cfg(feature = "aes")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AesCt {
    A128,
    A192,
    A256,
    E128,
    E192,
    E256,
}

#[cfg(feature = "aes")]
impl AesCt {
    /// `T`'s variant, if `T` is one of aes-ct's cipher types.
    pub(crate) fn of<T: 'static>() -> Option<Self> {
        use core::any::TypeId;
        let t = TypeId::of::<T>();
        [
            (TypeId::of::<aes_ct::Aes128>(), AesCt::A128),
            (TypeId::of::<aes_ct::Aes192>(), AesCt::A192),
            (TypeId::of::<aes_ct::Aes256>(), AesCt::A256),
            (TypeId::of::<aes_ct::Aes128Enc>(), AesCt::E128),
            (TypeId::of::<aes_ct::Aes192Enc>(), AesCt::E192),
            (TypeId::of::<aes_ct::Aes256Enc>(), AesCt::E256),
        ]
        .into_iter()
        .find_map(|(id, k)| (id == t).then_some(k))
    }
}

/// `$body` with `$c` bound to the cipher behind `$cipher` (a
/// [`CipherRef`]) as the aes-ct type `$kind` (an [`AesCt`]) names: the one
/// place besides [`AesCt::of`] that lists aes-ct's cipher types.
///
/// # Safety
/// Use inside `unsafe`: the cipher must have the type `$kind` names.
#[cfg(feature = "aes")]
macro_rules! with_aes_ct {
    ($kind:expr, $cipher:expr, |$c:ident| $body:expr) => {
        match $kind {
            AesCt::A128 => {
                let $c = $cipher.get::<aes_ct::Aes128>();
                $body
            }
            AesCt::A192 => {
                let $c = $cipher.get::<aes_ct::Aes192>();
                $body
            }
            AesCt::A256 => {
                let $c = $cipher.get::<aes_ct::Aes256>();
                $body
            }
            AesCt::E128 => {
                let $c = $cipher.get::<aes_ct::Aes128Enc>();
                $body
            }
            AesCt::E192 => {
                let $c = $cipher.get::<aes_ct::Aes192Enc>();
                $body
            }
            AesCt::E256 => {
                let $c = $cipher.get::<aes_ct::Aes256Enc>();
                $body
            }
        }
    };
}
#[cfg(feature = "aes")]
pub(crate) use with_aes_ct;

/// The `AesGcm`'s cipher with its type erased: `Fused::crypt`'s paths
/// cannot name the cipher type (the `AeadInOut` impl has no `'static`
/// bound to downcast with), so `ctr-ghash` recovers it from the [`AesCt`]
/// recorded at key setup.
#[derive(Clone, Copy)]
pub(crate) struct CipherRef<'a>(*const (), PhantomData<&'a ()>);

impl<'a> CipherRef<'a> {
    pub(crate) fn new<T>(c: &'a T) -> Self {
        CipherRef((c as *const T).cast(), PhantomData)
    }

    /// The cipher as a `T`.
    ///
    /// # Safety
    /// `T` must be the type of the value `new` was given.
    #[allow(dead_code, reason = "targets and builds without ctr-ghash")]
    pub(crate) unsafe fn get<T>(self) -> &'a T {
        // SAFETY: the caller guarantees the type; the pointer came from a
        // reference that lives for 'a.
        unsafe { &*self.0.cast::<T>() }
    }
}

/// What a fused path module provides.
#[allow(dead_code, reason = "targets without a fused path")]
pub(crate) trait Engine {
    /// The path's key form: round keys and H powers (wiped on drop).
    type Key: Clone;
    /// CPU check (cached by `ct_dispatch::x86` or `cpufeatures`).
    fn available() -> bool;
    /// Build the key form from the AES key bytes and H = E_K(0), for an
    /// `AesGcm` whose cipher is `cipher`. `None` if the CPU cannot run this
    /// path (or the key length is wrong).
    #[cfg(feature = "aes")]
    fn new_key(key: &[u8], h: &[u8; 16], cipher: AesCt) -> Option<Self::Key>;
    /// Encrypt (or decrypt) `buf` in CTR mode from `inc32(j0)`, hash `aad`
    /// and the ciphertext, and return the full 16-byte tag. `cipher`: the
    /// `AesGcm`'s cipher, of the type `new_key` was told. `ghash`: the
    /// key's GHASH powers (for paths that hash with ghash-ct; the fused
    /// paths carry their own in `Key`).
    fn crypt(
        key: &Self::Key,
        cipher: CipherRef<'_>,
        ghash: &GHashKey,
        j0: &Block,
        aad: &[u8],
        buf: InOutBuf<'_, '_, u8>,
        encrypt: bool,
    ) -> Block;
}

/// The CPU check of a path, for the generated `Backend` (the generic path
/// needs none).
trait PathCheck {
    fn ok() -> bool;
}

impl<E: Engine> PathCheck for E {
    fn ok() -> bool {
        E::available()
    }
}

/// The generic path's row in the table: CTR through the cipher's own
/// backend alternating with `ghash_ct`, available everywhere.
pub(crate) struct GenericPath;

impl PathCheck for GenericPath {
    fn ok() -> bool {
        true
    }
}

fn path_ok<E: PathCheck>() -> bool {
    E::ok()
}

macro_rules! backends {
    ($( $(#[$cfg:meta])* $variant:ident => $engine:ty, $name:literal, $doc:literal; )*) => {
        ct_dispatch::backend_enum! {
            what = "AES-GCM path", cfg = aes_gcm_ct_backend, available = path_ok,
            fallback = Generic, self_test = |_| true;
            $( $(#[$cfg])* $variant => $engine, $name, $doc; )*
            Generic => crate::backend::GenericPath, "generic",
                "CTR through the cipher's own backend (one `encrypt_with_backend` call per message) alternating with `ghash_ct` in 2 KiB chunks. Works with any AES implementation.";
        }

        /// The per-key path state.
        #[derive(Clone)]
        #[allow(clippy::large_enum_variant, reason = "long-lived keys; no_std has no Box")]
        pub(crate) enum Fused {
            $( $(#[$cfg])* $variant(<$engine as Engine>::Key), )*
            Generic,
        }

        impl Fused {
            /// Build the key form of fused path `backend` for an `AesGcm`
            /// whose cipher is `cipher`.
            #[cfg(feature = "aes")]
            #[allow(unused_variables)]
            pub(crate) fn new(backend: Backend, key: &[u8], h: &[u8; 16], cipher: AesCt) -> Option<Self> {
                match backend {
                    $(
                        $(#[$cfg])*
                        Backend::$variant => <$engine as Engine>::new_key(key, h, cipher).map(Fused::$variant),
                    )*
                    Backend::Generic => Some(Fused::Generic),
                    #[allow(unreachable_patterns)]
                    _ => None,
                }
            }

            pub(crate) fn backend(&self) -> Backend {
                match self { $( $(#[$cfg])* Fused::$variant(_) => Backend::$variant, )* Fused::Generic => Backend::Generic }
            }

            /// Run the message through this path; `generic` serves the
            /// generic path. `cipher`: the cipher of the `AesGcm` this
            /// value was made for (`new`'s `cipher` names its type).
            #[inline]
            #[allow(clippy::too_many_arguments, reason = "the engine's arguments plus the generic path")]
            pub(crate) fn crypt(
                &self,
                cipher: CipherRef<'_>,
                ghash: &GHashKey,
                j0: &Block,
                aad: &[u8],
                buf: InOutBuf<'_, '_, u8>,
                encrypt: bool,
                generic: impl FnOnce(InOutBuf<'_, '_, u8>) -> Block,
            ) -> Block {
                match self {
                    $( $(#[$cfg])* Fused::$variant(k) => <$engine as Engine>::crypt(k, cipher, ghash, j0, aad, buf, encrypt), )*
                    Fused::Generic => { let _ = (cipher, ghash, j0, aad, encrypt); generic(buf) }
                }
            }
        }
    };
}

// The dispatch table. Order = preference. `Generic` is appended last.
backends! {
    #[cfg(all(target_arch = "x86_64", feature = "aes"))]
    VaesClmul => crate::x86::vaes_clmul::VaesClmul, "vaes-clmul",
        "VAES + VPCLMULQDQ on AVX-512 (x86_64): 16 blocks per iteration in 512-bit vectors, their AES rounds stitched with the GHASH of the previous 16 ciphertext blocks, one reduction per 16; the remainder in one masked vector pass with the lengths block (one reduction).";
    #[cfg(all(target_arch = "x86_64", feature = "aes"))]
    VaesAvx2Clmul => crate::x86::vaes_clmul::VaesAvx2Clmul, "vaes-avx2-clmul",
        "VAES + VPCLMULQDQ on AVX2 (x86_64, e.g. Zen 3, Alder Lake): 8 blocks per iteration in 256-bit vectors, stitched as `vaes-clmul`, one reduction per 8; the remainder in one vector pass.";
    #[cfg(all(target_arch = "x86_64", feature = "aes"))]
    AesniClmul => crate::x86::aesni_clmul::AesniClmul, "aesni-clmul",
        "AES-NI + PCLMULQDQ (x86_64): 8 counter blocks per iteration, their AES rounds stitched with the aggregated GHASH of 8 ciphertext blocks, one reduction per 8.";
    #[cfg(all(target_arch = "aarch64", feature = "aes"))]
    Armv8Pmull => crate::aarch64::armv8_pmull::Armv8Pmull, "armv8-pmull",
        "ARMv8 AES + 64-bit PMULL (aarch64): 8 counter blocks per iteration, their AES rounds interleaved with the aggregated GHASH multiplies, one reduction per 8.";
    #[cfg(feature = "aes")]
    CtrGhash => crate::ctr_ghash::CtrGhash, "ctr-ghash",
        "aes-ct's own CTR (each backend's fused loop: bsaes batches with a per-call bitsliced key, armv7 assembly) then ghash-ct, 16 KiB chunks; chosen automatically for aes-ct ciphers without AES instructions, runs anywhere.";
}

impl Backend {
    /// Automatic-selection candidates, best first (narrowed by the `--cfg`).
    pub(crate) fn candidates() -> impl Iterator<Item = Backend> {
        Self::ALL
            .iter()
            .copied()
            .filter(|&b| Self::forced().is_none_or(|f| f == b))
    }
}

/// Bytes of dead stack an `AesGcm` constructor zeroes after building the
/// key (`ct_dispatch::wipe::scrubbed`): the deepest frame with a copy of
/// the key (cipher, GHASH powers, the path's round keys and powers), with
/// a margin, in optimised builds. `ct-check/tests/zeroize.rs`
/// (`key_setup_and_use_leave_no_key_on_dead_stack`) fails when it is too
/// small.
pub(crate) const SETUP_SCRUB: usize = 24 * 1024;

/// The key form of the fused paths: the standard round keys and N H powers
/// in POLYVAL form (little-endian field elements) in the order the path's
/// loads want (`h[i]` = H^(i+1) for `aesni-clmul` and `armv8-pmull`,
/// highest first for the VAES paths), filled in by the path's own
/// multiply. Wiped on drop.
#[cfg(feature = "aes")]
#[allow(dead_code, reason = "targets without a fused path")]
#[derive(Clone)]
pub(crate) struct FusedKey<const N: usize> {
    pub(crate) nr: usize,
    pub(crate) rk: [[u8; 16]; 15],
    pub(crate) h: [[u8; 16]; N],
}

#[cfg(feature = "aes")]
#[allow(dead_code, reason = "targets without a fused path")]
impl<const N: usize> FusedKey<N> {
    /// The round keys of AES key `key` (`None` for a wrong length), and the
    /// powers filled in by `raise` (the path's own multiply) from H in
    /// POLYVAL form (`mulX_POLYVAL(ByteReverse(H))`, RFC 8452 appendix A,
    /// branch-free), which is wiped after.
    pub(crate) fn new(
        key: &[u8],
        h: &[u8; 16],
        raise: impl FnOnce(u128, &mut [[u8; 16]; N]),
    ) -> Option<Self> {
        let rk = aes_ct::hazmat::RoundKeys::new(key)?;
        let hr = u128::from_be_bytes(*h);
        let mask = 0u128.wrapping_sub(hr >> 127);
        let mut h1 = (hr << 1) ^ (mask & 0xc200_0000_0000_0000_0000_0000_0000_0001);
        let mut key = Self {
            nr: rk.rounds(),
            rk: *rk.as_array(),
            h: [[0; 16]; N],
        };
        raise(h1, &mut key.h);
        zeroize::Zeroize::zeroize(&mut h1);
        Some(key)
    }
}

#[cfg(feature = "aes")]
impl<const N: usize> Drop for FusedKey<N> {
    fn drop(&mut self) {
        // Wide volatile stores (`Zeroize` on byte arrays stores byte by
        // byte, a noticeable part of `AesGcm` key setup and drop).
        ct_dispatch::wipe::wipe(&mut self.rk);
        ct_dispatch::wipe::wipe(&mut self.h);
    }
}
