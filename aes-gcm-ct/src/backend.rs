//! Path selection: the one dispatch table of this crate.
//!
//! A path is either a fused AES + GHASH loop of one module ([`Engine`]),
//! which needs the raw round keys of one of our `aes_ct` types and the CPU
//! instructions it uses, or the [`Backend::Generic`] path: CTR through the
//! cipher's own `encrypt_with_backend` (one call per message) alternating,
//! in cache-sized chunks, with `ghash_ct` over the produced ciphertext. The
//! generic path works with any AES implementation.
//!
//! Selection happens once, at key setup, in one function, [`choose`]: for
//! a cipher of aes-ct's own types, [`Backend::detected`] (the first line of
//! the path table below this CPU runs that keeps aes-ct's own choice of AES
//! instructions or not, so `--cfg aes_ct_backend="soft"` is honoured);
//! for any other cipher the generic path. `--cfg aes_gcm_ct_backend="NAME"`
//! narrows automatic selection to that path; `AesGcm::new_with_backend` asks for one
//! at run time and fails with [`UnsupportedBackend`]; `AesGcm::backend`
//! says which one a key uses.

use crate::{Block, Msg};
use cipher::{BlockCipherEncrypt, BlockSizeUser, consts::U16};
use ghash_ct::GHashKey;

/// The aes-ct backend of `cipher`, if it is one of aes-ct's cipher types
/// (what automatic selection knows of a key's cipher; see [`choose`]).
#[cfg(feature = "aes")]
pub(crate) fn aes_ct_backend<Aes>(cipher: &Aes) -> Option<aes_ct::Backend> {
    struct BackendOf;
    impl AesCtFn for BackendOf {
        type Out = aes_ct::Backend;
        fn call<C: AesCtCipher>(self, c: &C) -> aes_ct::Backend {
            c.aes_backend()
        }
    }
    on_aes_ct(cipher, BackendOf).ok()
}

/// The aes-ct backend a new cipher of type `Aes` gets (aes-ct's detected
/// one), if `Aes` is one of aes-ct's cipher types.
#[cfg_attr(not(feature = "aes"), allow(clippy::extra_unused_type_parameters))]
pub(crate) fn aes_ct_backend_of_new<Aes>() -> Option<AesBackend> {
    #[cfg(feature = "aes")]
    if is_aes_ct::<Aes>() {
        return Some(aes_ct::Backend::detected());
    }
    None
}

/// Is `Aes` one of aes-ct's cipher types?
#[cfg_attr(not(feature = "aes"), allow(clippy::extra_unused_type_parameters))]
pub(crate) fn is_aes_ct<Aes>() -> bool {
    #[cfg(feature = "aes")]
    {
        is_aes_ct_type::<Aes>()
    }
    #[cfg(not(feature = "aes"))]
    false
}

/// The round keys `cipher` keeps (`Some(None)`: an aes-ct cipher whose
/// backend keeps none), `None` if it is not an aes-ct cipher.
#[cfg(feature = "aes")]
pub(crate) fn round_keys_of<Aes>(cipher: &Aes) -> Option<Option<aes_ct::hazmat::RoundKeys>> {
    struct RoundKeysOf;
    impl AesCtFn for RoundKeysOf {
        type Out = Option<aes_ct::hazmat::RoundKeys>;
        fn call<C: AesCtCipher>(self, c: &C) -> Self::Out {
            c.round_keys()
        }
    }
    on_aes_ct(cipher, RoundKeysOf).ok()
}

/// Never: without the `aes` feature no cipher is one of aes-ct's.
#[cfg(not(feature = "aes"))]
pub(crate) fn aes_ct_backend<Aes>(_: &Aes) -> Option<AesBackend> {
    None
}

/// An aes-ct backend (nothing without the `aes` feature).
#[cfg(feature = "aes")]
pub(crate) type AesBackend = aes_ct::Backend;
#[cfg(not(feature = "aes"))]
pub(crate) type AesBackend = core::convert::Infallible;

/// What the paths use of an aes-ct cipher, of any of its types.
#[cfg(feature = "aes")]
pub(crate) trait AesCtCipher: aes_ct::CtrCipher {
    /// Its aes-ct backend.
    fn aes_backend(&self) -> aes_ct::Backend;
    /// Its standard round keys, if its backend keeps them (the
    /// AES-instruction ones).
    fn round_keys(&self) -> Option<aes_ct::hazmat::RoundKeys>;
}

/// A function of an aes-ct cipher of any of its types (a generic closure).
#[cfg(feature = "aes")]
pub(crate) trait AesCtFn {
    type Out;
    fn call<C: AesCtCipher>(self, c: &C) -> Self::Out;
}

/// The one list of aes-ct's cipher types: their [`AesCtCipher`] impls and
/// [`on_aes_ct`].
#[cfg(feature = "aes")]
macro_rules! aes_ct_types {
    ($($t:ty),*) => {
        $(
            impl AesCtCipher for $t {
                fn aes_backend(&self) -> aes_ct::Backend {
                    self.backend()
                }
                fn round_keys(&self) -> Option<aes_ct::hazmat::RoundKeys> {
                    self.enc_round_keys()
                }
            }
        )*

        /// Is `Aes` one of aes-ct's cipher types?
        fn is_aes_ct_type<Aes>() -> bool {
            false $( || same_type::<Aes, $t>() )*
        }

        /// `f` of `cipher` as its own aes-ct type, or `f` back if `Aes` is
        /// not one of them.
        pub(crate) fn on_aes_ct<Aes, F: AesCtFn>(cipher: &Aes, f: F) -> Result<F::Out, F> {
            $(
                if let Some(c) = downcast::<Aes, $t>(cipher) {
                    return Ok(f.call(c));
                }
            )*
            Err(f)
        }
    };
}

#[cfg(feature = "aes")]
aes_ct_types!(
    aes_ct::Aes128,
    aes_ct::Aes192,
    aes_ct::Aes256,
    aes_ct::Aes128Enc,
    aes_ct::Aes192Enc,
    aes_ct::Aes256Enc
);

/// `c` as a `T` if `Aes` is `T`.
#[cfg(feature = "aes")]
fn downcast<Aes, T: 'static>(c: &Aes) -> Option<&T> {
    if same_type::<Aes, T>() {
        // SAFETY: `Aes` is `T` (`same_type`), so the reference is one to a
        // `T`, for the same lifetime.
        Some(unsafe { &*(c as *const Aes).cast::<T>() })
    } else {
        None
    }
}

/// Is `A` the type `T`? `typeid::of` is `A`'s `TypeId` with its lifetimes
/// erased (no `'static` bound, so generic code needs none): exact here,
/// since `T` (an aes-ct type) has no lifetime parameters.
#[cfg(feature = "aes")]
fn same_type<A, T: 'static>() -> bool {
    typeid::of::<A>() == core::any::TypeId::of::<T>()
}

/// Does path `b` keep the choice of a cipher on aes-ct backend `aes`?
/// Fused AES-instruction paths for a backend on the AES instructions,
/// `ctr-ghash` for an aes-ct backend without them (so
/// `--cfg aes_ct_backend="soft"` is honoured), the generic path always.
#[cfg(feature = "aes")]
fn keeps(b: Backend, aes: aes_ct::Backend) -> bool {
    let hw = aes_ct::hazmat::uses_aes_instructions(aes);
    match b {
        Backend::Generic => true,
        Backend::CtrGhash => !hw,
        _ => hw,
    }
}

/// `Backend::detected()`'s filter: the path keeps the choice of aes-ct's
/// own selection, so `detected()` is the path `Aes128Gcm::new` takes.
fn keeps_detected(b: Backend) -> bool {
    #[cfg(feature = "aes")]
    return keeps(b, aes_ct::Backend::detected());
    #[cfg(not(feature = "aes"))]
    {
        let _ = b;
        true
    }
}

/// The path a new key takes: the one rule of automatic selection. `aes`:
/// the aes-ct backend of the key's cipher, `None` for any other cipher.
///
/// * Not an aes-ct cipher: the generic path (only it can run the cipher).
/// * On the backend class aes-ct itself selects (AES instructions or
///   not): [`Backend::detected`], the best path this CPU runs that keeps
///   it, within the `--cfg aes_gcm_ct_backend` narrowing.
/// * Made without AES instructions on a CPU that has them
///   (`Aes128::new_with_backend`): `ctr-ghash`, unless the `--cfg` names
///   another path.
/// * Made on AES instructions where aes-ct's own selection avoids them
///   (`--cfg aes_ct_backend`): the generic path over that cipher.
pub(crate) fn choose(aes: Option<AesBackend>) -> Backend {
    match aes {
        None => Backend::Generic,
        #[cfg(feature = "aes")]
        Some(a) if keeps_detected_class(a) => Backend::detected(),
        #[cfg(feature = "aes")]
        Some(a) if keeps(Backend::CtrGhash, a) && allowed(Backend::CtrGhash) => Backend::CtrGhash,
        #[allow(unreachable_patterns)]
        Some(_) => Backend::Generic,
    }
}

/// Does aes-ct backend `a` use the AES instructions exactly when aes-ct's
/// own selection does?
#[cfg(feature = "aes")]
fn keeps_detected_class(a: aes_ct::Backend) -> bool {
    let detected = aes_ct::Backend::detected();
    // The first test is the common case (every `new` of an aes-ct type)
    // and spares key setup the two name matches.
    let hw = aes_ct::hazmat::uses_aes_instructions;
    a == detected || hw(a) == hw(detected)
}

/// Does the `--cfg aes_gcm_ct_backend` narrowing (if any) allow `b`?
#[cfg(feature = "aes")]
fn allowed(b: Backend) -> bool {
    Backend::forced().is_none_or(|f| f == b)
}

/// What a fused path module provides: a key form of its own (round keys
/// and H powers), no cipher and no ghash-ct key.
#[allow(dead_code, reason = "targets without a fused path")]
pub(crate) trait Engine {
    /// The path's key form: round keys and H powers (wiped with its `AesGcm`).
    type Key: Clone;
    /// CPU check (cached by `ct_dispatch::x86` or `cpufeatures`).
    fn available() -> bool;
    /// The key form with no key in it yet, for [`Engine::fill_key`]. It
    /// enters a key only through `Fused::write_empty`, after
    /// [`Engine::available`]: the path's functions rely on that check.
    const EMPTY: Self::Key;
    /// Fill `key` where it lies: the round keys written by `round_keys`
    /// (which returns the number of rounds, `None` leaving the key empty),
    /// then H = E_K(0) and its powers, with the path's own instructions.
    #[cfg(feature = "aes")]
    fn fill_key(key: &mut Self::Key, round_keys: impl FnOnce(&mut [[u8; 16]; 15]) -> Option<usize>);
    /// Encrypt (or decrypt) `buf` in CTR mode from `inc32(j0)`, hash `aad`
    /// and the ciphertext, and return the full 16-byte tag.
    fn crypt(key: &Self::Key, msg: Msg<'_, '_, '_>) -> Block;
    /// GHASH of `data` zero-padded, then the block `lens` (J0 of a nonce
    /// that is not 96 bits).
    fn ghash(key: &Self::Key, data: &[u8], lens: &Block) -> Block;
}

/// The CPU check of a path, for the generated `Backend`.
pub(crate) trait PathCheck {
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
            fallback = Generic, self_test = crate::backend::keeps_detected;
            $( $(#[$cfg])* $variant => $engine, $name, $doc; )*
            #[cfg(feature = "aes")]
            CtrGhash => crate::ctr_ghash::CtrGhash, "ctr-ghash",
                "aes-ct's own CTR (each backend's fused loop: bsaes batches with a per-call bitsliced key, armv7 assembly) then ghash-ct, 16 KiB chunks; chosen automatically for aes-ct ciphers without AES instructions, runs anywhere.";
            Generic => crate::backend::GenericPath, "generic",
                "CTR through the cipher's own backend (one `encrypt_with_backend` call per message) alternating with `ghash_ct` in 2 KiB chunks. Works with any AES implementation.";
        }

        /// The key form of a fused path (empty on targets without one).
        #[derive(Clone)]
        #[allow(clippy::large_enum_variant, reason = "long-lived keys; no_std has no Box")]
        #[allow(clippy::enum_variant_names, reason = "the paths' names")]
        pub(crate) enum Fused {
            $( $(#[$cfg])* $variant(<$engine as Engine>::Key), )*
        }

        impl Fused {
            /// Write `wrap` of fused path `backend`'s empty key form (to be
            /// filled in place by [`Fused::fill`]) into `slot`, or give the
            /// slot back untouched for a path that is not fused or that this
            /// CPU cannot run. The one place a fused key form is made, after
            /// the path's CPU check. One expression written into its final
            /// place: a key form returned through `Option` and each layer
            /// above it is zeroed once and then copied once per layer.
            #[cfg(feature = "aes")]
            #[inline(always)]
            #[allow(unused_variables, reason = "targets without a fused path")]
            pub(crate) fn write_empty<T>(
                backend: Backend,
                slot: &mut core::mem::MaybeUninit<T>,
                wrap: impl FnOnce(Self) -> T,
            ) -> Result<&mut T, &mut core::mem::MaybeUninit<T>> {
                match backend {
                    $(
                        $(#[$cfg])*
                        Backend::$variant if <$engine as Engine>::available() => {
                            Ok(slot.write(wrap(Fused::$variant(<$engine as Engine>::EMPTY))))
                        }
                    )*
                    #[allow(unreachable_patterns)]
                    _ => Err(slot),
                }
            }

            /// Fill this key form where it lies (`Engine::fill_key`).
            #[cfg(feature = "aes")]
            #[allow(unused_variables)]
            pub(crate) fn fill(&mut self, round_keys: impl FnOnce(&mut [[u8; 16]; 15]) -> Option<usize>) {
                match *self {
                    $( $(#[$cfg])* Fused::$variant(ref mut k) => <$engine as Engine>::fill_key(k, round_keys), )*
                }
            }

            pub(crate) fn backend(&self) -> Backend {
                match *self { $( $(#[$cfg])* Fused::$variant(_) => Backend::$variant, )* }
            }

            #[inline]
            pub(crate) fn crypt(&self, #[allow(unused_variables)] msg: Msg<'_, '_, '_>) -> Block {
                match *self {
                    $( $(#[$cfg])* Fused::$variant(ref k) => <$engine as Engine>::crypt(k, msg), )*
                }
            }

            pub(crate) fn ghash(&self, data: &[u8], lens: &Block) -> Block {
                #[allow(unused_variables)]
                let args = (data, lens);
                match *self {
                    $( $(#[$cfg])* Fused::$variant(ref k) => <$engine as Engine>::ghash(k, args.0, args.1), )*
                }
            }
        }
    };
}

// The dispatch table of the fused paths. Order = preference; `ctr-ghash`
// and `generic` (which run the cipher) are appended last.
backends! {
    #[cfg(all(target_arch = "x86_64", feature = "aes"))]
    VaesClmul => crate::x86::vaes_clmul::VaesClmul, "vaes-clmul",
        "VAES + VPCLMULQDQ on AVX-512 (x86_64): 16 blocks per iteration in 512-bit vectors, their AES rounds stitched with the GHASH of the previous 16 ciphertext blocks, one reduction per 16; the remainder in one masked vector pass with the lengths block (one reduction). A message of at most 256 bytes (AAD under 256) runs the `vaes-avx2-clmul` body, which is faster there.";
    #[cfg(all(target_arch = "x86_64", feature = "aes"))]
    VaesAvx2Clmul => crate::x86::vaes_clmul::VaesAvx2Clmul, "vaes-avx2-clmul",
        "VAES + VPCLMULQDQ on AVX2 (x86_64, e.g. Zen 3, Alder Lake): 8 blocks per iteration in 256-bit vectors, stitched as `vaes-clmul`, one reduction per 8; the remainder in one vector pass.";
    #[cfg(all(target_arch = "x86_64", feature = "aes"))]
    AesniAvxClmul => crate::x86::aesni_clmul::AesniAvxClmul, "aesni-avx-clmul",
        "AES-NI + PCLMULQDQ with AVX (x86_64 without VAES, e.g. Sandy Bridge to Cascade Lake, Zen 1 and 2): the `aesni-clmul` loops in three-operand (VEX) encoding, which spares their register copies.";
    #[cfg(all(target_arch = "x86_64", feature = "aes"))]
    AesniClmul => crate::x86::aesni_clmul::AesniClmul, "aesni-clmul",
        "AES-NI + PCLMULQDQ (x86_64; the path of CPUs without AVX: Westmere, AES-NI Atoms): 8 counter blocks per iteration, their AES rounds stitched with the aggregated Karatsuba GHASH of 8 ciphertext blocks, one reduction per 8.";
    #[cfg(all(target_arch = "aarch64", target_feature = "neon", feature = "aes"))]
    Armv8Pmull => crate::aarch64::armv8_pmull::Armv8Pmull, "armv8-pmull",
        "ARMv8 AES + 64-bit PMULL (aarch64): 8 counter blocks per iteration, their AES rounds interleaved with the aggregated GHASH multiplies, one reduction per 8.";
}

/// A key's state: exactly the key form its path uses.
#[derive(Clone)]
#[allow(
    clippy::large_enum_variant,
    reason = "long-lived keys; no_std has no Box"
)]
pub(crate) enum Path<Aes> {
    /// A fused path: its round keys and H powers (no cipher, no ghash-ct
    /// key).
    #[cfg_attr(not(feature = "aes"), allow(dead_code))]
    Fused(Fused),
    /// `ctr-ghash`: the aes-ct cipher and ghash-ct's powers.
    #[cfg(feature = "aes")]
    CtrGhash(Aes, GHashKey),
    /// The generic path: the cipher and ghash-ct's powers.
    Generic(Aes, GHashKey),
}

impl<Aes> Path<Aes> {
    pub(crate) fn backend(&self) -> Backend {
        match self {
            Path::Fused(f) => f.backend(),
            #[cfg(feature = "aes")]
            Path::CtrGhash(..) => Backend::CtrGhash,
            Path::Generic(..) => Backend::Generic,
        }
    }

    /// The ghash-ct key of the paths that hash with ghash-ct.
    pub(crate) fn ghash_key(&self) -> Option<&GHashKey> {
        match self {
            Path::Fused(_) => None,
            #[cfg(feature = "aes")]
            Path::CtrGhash(_, g) => Some(g),
            Path::Generic(_, g) => Some(g),
        }
    }
}

impl<Aes: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16>> Path<Aes> {
    /// Run the message through this key's path; the full tag.
    #[inline]
    pub(crate) fn crypt(&self, msg: Msg<'_, '_, '_>) -> Block {
        match self {
            Path::Fused(f) => f.crypt(msg),
            #[cfg(feature = "aes")]
            Path::CtrGhash(c, g) => crate::ctr_ghash::crypt_any(c, g, msg),
            Path::Generic(c, g) => crate::generic::crypt(c, g, msg),
        }
    }

    /// GHASH of `data` zero-padded, then the block `lens`.
    pub(crate) fn ghash(&self, data: &[u8], lens: &Block) -> Block {
        match self {
            Path::Fused(f) => f.ghash(data, lens),
            #[cfg(feature = "aes")]
            Path::CtrGhash(_, g) => ghash_ct_hash(g, data, lens),
            Path::Generic(_, g) => ghash_ct_hash(g, data, lens),
        }
    }
}

fn ghash_ct_hash(g: &GHashKey, data: &[u8], lens: &Block) -> Block {
    let mut st = ghash_ct::GHashState::new();
    g.update_padded(&mut st, data);
    g.update(&mut st, core::slice::from_ref(lens));
    st.finalize()
}

/// Bytes of dead stack an `AesGcm` constructor zeroes after building the
/// key (`ct_dispatch::wipe::scrubbed`): the deepest frame with a copy of
/// the key (the path's key form, the round keys, H), with a margin, in
/// optimised builds. `ct-check/tests/zeroize.rs`
/// (`key_setup_and_use_leave_no_key_on_dead_stack`) fails when it is too
/// small. The generic and `ctr-ghash` paths build an aes-ct cipher and a
/// ghash-ct key, each through its own layers.
pub(crate) const SETUP_SCRUB: usize = 8 * 1024;

/// [`SETUP_SCRUB`] for a key on a fused path, built in place from the
/// round keys and its own H powers in one frame: a scrub is a share of
/// key setup's cost, so these keys pay only their own depth. That depth
/// is 1 KiB in optimised builds; unoptimised frames keep each inlined
/// layer's temporaries (the empty key form written in place is one per
/// layer there, the power functions' vectors stay in their frames) and
/// reach as deep as the other paths' setups, so those builds scrub alike;
/// `debug_assertions` stands for the latter (the dev
/// and test profiles), so a release build with debug assertions only pays
/// the deeper scrub. `ct-check`'s dead-stack test checks both profiles.
pub(crate) const FUSED_SETUP_SCRUB: usize = if cfg!(debug_assertions) {
    SETUP_SCRUB
} else {
    1024
};

/// The key form of the fused paths: the standard round keys and N H powers
/// in POLYVAL form (little-endian field elements) in the order the path's
/// loads want (`h[i]` = H^(i+1) for `aesni-clmul` and `armv8-pmull`,
/// highest first for the VAES paths), filled in by the path's own
/// multiply. Held only inside an `AesGcm`, whose drop wipes its whole
/// path state (this included); the construction's temporaries are on the
/// stack its constructor scrubs.
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
    /// No key yet: every path's `Engine::EMPTY`.
    pub(crate) const EMPTY: Self = Self {
        nr: 0,
        rk: [[0; 16]; 15],
        h: [[0; 16]; N],
    };

    /// Fill in place: the round keys written by `round_keys` (nothing if
    /// it returns `None`), then the powers filled in by `raise` (the
    /// path's own multiply) from H in POLYVAL form
    /// (`mulX_POLYVAL(ByteReverse(H))`, RFC 8452 appendix A, branch-free),
    /// which is wiped after; `h` = E_K(0) is computed by `encrypt` (the
    /// path's own AES) from the round keys.
    #[inline(always)]
    pub(crate) fn fill(
        &mut self,
        round_keys: impl FnOnce(&mut [[u8; 16]; 15]) -> Option<usize>,
        encrypt: impl FnOnce(&[[u8; 16]; 15], usize) -> [u8; 16],
        raise: impl FnOnce(u128, &mut [[u8; 16]; N]),
    ) {
        let Some(nr) = round_keys(&mut self.rk) else {
            return;
        };
        self.nr = nr;
        let mut h = encrypt(&self.rk, nr);
        let hr = u128::from_be_bytes(h);
        let mask = 0u128.wrapping_sub(hr >> 127);
        let mut h1 = (hr << 1) ^ (mask & 0xc200_0000_0000_0000_0000_0000_0000_0001);
        raise(h1, &mut self.h);
        ct_dispatch::wipe::wipe(&mut h1);
        ct_dispatch::wipe::wipe(&mut h);
    }
}
