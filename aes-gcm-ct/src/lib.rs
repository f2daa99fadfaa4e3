//! Constant-time AES-GCM, a drop-in for RustCrypto `aes-gcm` 0.11.
//!
//! Same public surface: [`AesGcm<Aes, NonceSize, TagSize>`](AesGcm) over any
//! `Aes: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16>`, the
//! [`Aes128Gcm`], [`Aes192Gcm`], [`Aes256Gcm`] aliases (over `aes_ct`'s
//! constant-time AES, re-exported as [`aes`]), [`Nonce`], [`Tag`],
//! [`TagSize`], the limits [`A_MAX`] and [`P_MAX`], and [`aead`] re-exported
//! with `AeadInOut` (and `Aead` with `alloc`), `KeyInit` and `ZeroizeOnDrop`.
//! Switching is a one-line change of the crate name.
//!
//! # Paths
//! Chosen once at key setup (see [`Backend`]): a fused AES + GHASH loop
//! when the cipher is one of our `aes_ct` types and the CPU has the
//! instructions (x86_64: VAES + VPCLMULQDQ on AVX-512 or AVX2, or AES-NI +
//! PCLMULQDQ; aarch64: AES + PMULL), otherwise the generic path:
//! the message's CTR keystream through ONE `encrypt_with_backend` call of
//! the cipher, alternating in 2 KiB chunks with constant-time GHASH
//! (`ghash_ct`, key powers computed once per key) over the ciphertext while
//! it is in cache; for `aes_ct` ciphers without AES instructions the
//! `ctr-ghash` path (aes-ct's own CTR loop, then GHASH, in 16 KiB chunks).
//! `--cfg aes_gcm_ct_backend="generic"` (or `"vaes-clmul"`,
//! `"vaes-avx2-clmul"`, `"aesni-avx-clmul"`, `"aesni-clmul"`, `"armv8-pmull"`,
//! `"ctr-ghash"`)
//! forces a path; [`AesGcm::new_with_backend`] asks for one
//! at run time; [`AesGcm::backend`] tells which one a key uses.
//! `From<Aes>` of an `aes_ct` cipher takes the path `new` takes for a
//! cipher on its backend (the fused one over its round keys where it runs
//! on AES instructions).
//!
//! A key holds exactly the key form of its path: a fused path its round
//! keys and H powers (computed once, with the path's own instructions; no
//! cipher and no `ghash_ct` key), `ctr-ghash` and the generic path the
//! cipher and `ghash_ct`'s powers. `size_of` is that of the largest form
//! (the cipher's with `ghash_ct`'s).
//!
//! # Decryption
//! One pass: each chunk of ciphertext is hashed, then decrypted into the
//! output. The expected tag is compared with the given one in constant time
//! at the end; on a mismatch the keystream is applied once more over the
//! output, which turns the released plaintext back into the ciphertext
//! (in place: the buffer is as it was; out of place: the output holds a
//! copy of the ciphertext), and [`Error`] is returned. No unauthenticated
//! plaintext is left in any buffer the caller can see once the call
//! returns; while it runs, the output holds it (from its chunk's
//! decryption until the restoring pass).
//!
//! # Differences from RustCrypto `aes-gcm`
//! * A zero-length nonce (`NonceSize = U0`) is an error, not a tag.
//! * `ZeroizeOnDrop` does not need the `zeroize` feature: secrets (round
//!   keys, H and its powers, E_K(J0), keystream on the stack) are always
//!   wiped.
//!
//! ```
//! use aes_gcm_ct::{aead::{Aead, KeyInit}, Aes256Gcm, Nonce};
//! let cipher = Aes256Gcm::new(&[7u8; 32].into());
//! let nonce = Nonce::from([1u8; 12]); // MUST be unique per message
//! let ct = cipher.encrypt(&nonce, b"plaintext message".as_ref()).unwrap();
//! assert_eq!(cipher.decrypt(&nonce, ct.as_ref()).unwrap(), b"plaintext message");
//! ```
#![no_std]
#![warn(missing_docs)]

// The README's examples run as doctests too: it is the page crates.io
// shows, so its code must compile and pass.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

pub use aead::{self, AeadCore, AeadInOut, Error, Key, KeyInit, KeySizeUser};
#[cfg(feature = "aes")]
pub use aes_ct as aes;
pub use backend::{Backend, UnsupportedBackend};

/// `$f::<NR>(args)` for a fused key's round count (10, 12 or 14): the
/// one place that turns the run-time `nr` into the const generic.
#[allow(unused_macros, reason = "targets without a fused path")]
macro_rules! by_rounds {
    ($nr:expr, $f:ident($($arg:expr),* $(,)?)) => {
        match $nr {
            10 => $f::<10>($($arg),*),
            12 => $f::<12>($($arg),*),
            _ => $f::<14>($($arg),*),
        }
    };
}

/// The `backend::Engine` impl of a fused path (the same glue for each):
/// `$check` is its CPU check; its (target-feature) functions, which run
/// only after `$check` passed (a `Key` reaches a path only through
/// `Fused::write_empty`, which runs the check first):
/// `$encrypt(rk, nr)` is E_K(0), `$powers(h1, &mut key.h)` the power
/// computation, `$crypt::<NR>(key, j0, aad, buf, encrypt)` the message
/// function, and `$ghash(&key.h[$h1], data, lens)` GHASH by H^1 (`key.h`'s
/// entry `$h1`).
#[allow(unused_macros, reason = "targets without a fused path")]
macro_rules! fused_engine {
    ($(#[$m:meta])* $path:ident, $check:expr, $encrypt:ident, $powers:ident, $crypt:ident,
     $ghash:ident, $h1:expr) => {
        $(#[$m])*
        pub(crate) struct $path;

        impl crate::backend::Engine for $path {
            type Key = Key;

            fn available() -> bool {
                $check
            }

            const EMPTY: Key = Key::EMPTY;

            fn fill_key(
                key: &mut Key,
                round_keys: impl FnOnce(&mut [[u8; 16]; 15]) -> Option<usize>,
            ) {
                key.fill(
                    round_keys,
                    // SAFETY: a `Key` reaches a path only through
                    // `Fused::write_empty`, after the CPU check.
                    |rk, nr| unsafe { $encrypt(rk, nr) },
                    // SAFETY: as for `$encrypt`.
                    |h1, out| unsafe { $powers(h1, out) },
                )
            }

            fn crypt(key: &Key, msg: crate::Msg<'_, '_, '_>) -> crate::Block {
                // SAFETY: a `Key` reaches a path only through
                // `Fused::write_empty`, after the CPU check.
                let tag = unsafe { by_rounds!(key.nr, $crypt(key, msg)) };
                // Unoptimised builds (`debug_assertions`, as for
                // `backend::FUSED_SETUP_SCRUB`) keep every temporary of the
                // loop, round keys and powers among them, in its frame: zero
                // 4 KiB of those dead frames there. Optimised builds leave
                // register spills only and pay nothing; `ct-check`'s
                // dead-stack test bounds what a use leaves.
                if cfg!(debug_assertions) {
                    ct_dispatch::wipe::scrub_stack::<{ 4 * 1024 }>();
                }
                tag
            }

            fn ghash(key: &Key, data: &[u8], lens: &crate::Block) -> crate::Block {
                // SAFETY: as in `crypt`.
                unsafe { $ghash(&key.h[$h1], data, lens) }
            }
        }
    };
}

// aarch64 without NEON (soft-float kernels and firmware) takes the generic
// path: the fused backend's code needs the NEON registers.
#[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
mod aarch64;
mod backend;
#[cfg(feature = "aes")]
mod ctr_ghash;
mod generic;
#[cfg(target_arch = "x86_64")]
mod x86;

use aead::{TagPosition, inout::InOutBuf};
#[cfg(feature = "aes")]
use backend::Fused;
use backend::Path;
use cipher::{
    BlockCipherEncrypt, BlockSizeUser,
    array::{Array, ArraySize},
    consts::U16,
};
use core::{
    fmt,
    marker::PhantomData,
    mem::{ManuallyDrop, MaybeUninit},
};
use ct_dispatch::wipe::{wipe, wipe_bytes};
use ghash_ct::GHashKey;

#[cfg(feature = "aes")]
use cipher::consts::U12;

/// Maximum length of associated data in bytes (as RustCrypto `aes-gcm`).
pub const A_MAX: u64 = (1 << 61) - 1;

/// Maximum length of plaintext in bytes (as RustCrypto `aes-gcm`).
pub const P_MAX: u64 = (1 << 36) - 32;

/// AES-GCM nonces.
pub type Nonce<NonceSize> = Array<u8, NonceSize>;

/// AES-GCM tags.
pub type Tag<TagSize = U16> = Array<u8, TagSize>;

/// A 16-byte block.
type Block = Array<u8, U16>;

/// Trait implemented for valid tag sizes: `U12` to `U16`, plus `U4` and
/// `U8` with the `hazmat` feature (as RustCrypto `aes-gcm`).
pub trait TagSize: private::SealedTagSize {}

impl<T: private::SealedTagSize> TagSize for T {}

mod private {
    use cipher::{array::ArraySize, consts, typenum::Unsigned};

    pub trait SealedTagSize: ArraySize + Unsigned {}

    #[cfg(feature = "hazmat")]
    impl SealedTagSize for consts::U4 {}
    #[cfg(feature = "hazmat")]
    impl SealedTagSize for consts::U8 {}
    impl SealedTagSize for consts::U12 {}
    impl SealedTagSize for consts::U13 {}
    impl SealedTagSize for consts::U14 {}
    impl SealedTagSize for consts::U15 {}
    impl SealedTagSize for consts::U16 {}
}

/// AES-GCM with a 128-bit key and 96-bit nonce.
#[cfg(feature = "aes")]
pub type Aes128Gcm = AesGcm<aes_ct::Aes128, U12>;

/// AES-GCM with a 192-bit key and 96-bit nonce.
#[cfg(feature = "aes")]
pub type Aes192Gcm = AesGcm<aes_ct::Aes192, U12>;

/// AES-GCM with a 256-bit key and 96-bit nonce.
///
/// ```
/// use aes_gcm_ct::aead::{AeadInOut, KeyInit};
/// use aes_gcm_ct::{Aes256Gcm, Backend, Nonce};
///
/// let key = [0x42u8; 32].into();
/// let cipher = Aes256Gcm::new(&key); // the best path this CPU runs
/// let nonce = Nonce::from([7u8; 12]); // unique per message under one key
/// let mut buf = *b"in place, tag detached";
/// let tag = cipher.encrypt_inout_detached(&nonce, b"header", buf.as_mut_slice().into())?;
///
/// // The generic path (any CPU) opens what the automatic one sealed.
/// let generic = Aes256Gcm::new_with_backend(&key, Backend::Generic).expect("always available");
/// generic.decrypt_inout_detached(&nonce, b"header", buf.as_mut_slice().into(), &tag)?;
/// assert_eq!(&buf, b"in place, tag detached");
///
/// // A wrong tag is an error, and the buffer keeps the ciphertext.
/// let mut bad = tag;
/// bad[15] ^= 1;
/// let sealed = {
///     cipher.encrypt_inout_detached(&nonce, b"header", buf.as_mut_slice().into())?;
///     buf
/// };
/// assert!(cipher.decrypt_inout_detached(&nonce, b"header", buf.as_mut_slice().into(), &bad).is_err());
/// assert_eq!(buf, sealed);
/// # Ok::<(), aes_gcm_ct::Error>(())
/// ```
#[cfg(feature = "aes")]
pub type Aes256Gcm = AesGcm<aes_ct::Aes256, U12>;

/// The length check every seal and open runs first: `Ok` iff
/// `aad_len <= A_MAX` and `text_len <= P_MAX` (plaintext, or ciphertext
/// without the tag). Public so the limits can be tested without 64 GiB
/// buffers.
pub const fn check_lengths(aad_len: u64, text_len: u64) -> Result<(), Error> {
    if aad_len > A_MAX || text_len > P_MAX {
        Err(Error)
    } else {
        Ok(())
    }
}

/// AES-GCM, generic over the AES implementation, nonce size and tag size.
///
/// Not intended for block ciphers other than AES. Nonces of any non-zero
/// size work (96 bits recommended; others go through GHASH); tags of 12 to
/// 16 bytes (4 and 8 with the `hazmat` feature; see NIST SP 800-38D
/// appendix C for the limits that short tags need).
#[derive(Clone)]
pub struct AesGcm<Aes, NonceSize, TagSize = U16>
where
    TagSize: crate::TagSize,
{
    /// The path and exactly the key form it uses (a fused path's round
    /// keys and powers, or the cipher and ghash-ct's powers). Dropped and
    /// then wiped whole by `Drop`.
    path: ManuallyDrop<Path<Aes>>,
    nonce_size: PhantomData<NonceSize>,
    tag_size: PhantomData<TagSize>,
}

impl<Aes, NonceSize, TagSize> Drop for AesGcm<Aes, NonceSize, TagSize>
where
    TagSize: crate::TagSize,
{
    fn drop(&mut self) {
        // SAFETY: dropped once, here (each key form wipes itself), never
        // used afterwards; then its bytes, also those of the enum's other
        // variants and padding (which a move copies from wherever the
        // value was built), are plain memory owned by `self`.
        unsafe {
            ManuallyDrop::drop(&mut self.path);
            wipe_bytes(&mut self.path as *mut ManuallyDrop<Path<Aes>>);
        }
    }
}

impl<Aes, NonceSize, TagSize> KeySizeUser for AesGcm<Aes, NonceSize, TagSize>
where
    Aes: KeySizeUser,
    TagSize: crate::TagSize,
{
    type KeySize = Aes::KeySize;
}

impl<Aes, NonceSize, TagSize> KeyInit for AesGcm<Aes, NonceSize, TagSize>
where
    Aes: BlockSizeUser<BlockSize = U16> + BlockCipherEncrypt + KeyInit,
    TagSize: crate::TagSize,
{
    // The constructors are inlined around `ct_dispatch::wipe::scrubbed`:
    // the frames that built the key are zeroed, and no frame of ours keeps
    // a copy of it.
    #[inline(always)]
    fn new(key: &Key<Self>) -> Self {
        let backend = backend::choose(backend::aes_ct_backend_of_new::<Aes>());
        ct_dispatch::wipe::scrubbed_by::<_, { backend::FUSED_SETUP_SCRUB }, { backend::SETUP_SCRUB }>(
            |slot| Self::start_auto(slot, key, backend),
            |gcm| gcm.fill_fused(key),
            Self::is_fused,
        )
    }
}

impl<Aes, NonceSize, TagSize> From<Aes> for AesGcm<Aes, NonceSize, TagSize>
where
    Aes: BlockSizeUser<BlockSize = U16> + BlockCipherEncrypt,
    TagSize: crate::TagSize,
{
    /// The path `new` would take for a cipher on `cipher`'s backend
    /// (`backend::choose`): for an aes-ct cipher on AES instructions the
    /// fused path over its round keys (the cipher itself is then dropped
    /// and wiped), for one without them `ctr-ghash`, for any other cipher
    /// the generic path.
    #[inline(always)]
    fn from(cipher: Aes) -> Self {
        ct_dispatch::wipe::scrubbed_with::<_, { backend::SETUP_SCRUB }>(
            |slot| Self::from_cipher(slot, cipher),
            |_| {},
        )
    }
}

impl<Aes, NonceSize, TagSize> AesGcm<Aes, NonceSize, TagSize>
where
    Aes: BlockSizeUser<BlockSize = U16> + BlockCipherEncrypt,
    TagSize: crate::TagSize,
{
    #[inline(always)]
    fn with_path(path: Path<Aes>) -> Self {
        Self {
            path: ManuallyDrop::new(path),
            nonce_size: PhantomData,
            tag_size: PhantomData,
        }
    }

    /// A key on fused path `f`.
    #[cfg(feature = "aes")]
    #[inline(always)]
    fn fused(f: Fused) -> Self {
        Self::with_path(Path::Fused(f))
    }

    /// Fill a fused path's key form where it lies, its round keys written
    /// by `round_keys` (`Fused::fill`); nothing on the other paths.
    #[cfg(feature = "aes")]
    #[inline(always)]
    fn fill_fused_with(&mut self, round_keys: impl FnOnce(&mut [[u8; 16]; 15]) -> Option<usize>) {
        if let Path::Fused(f) = &mut *self.path {
            f.fill(round_keys);
        }
    }

    /// Is this key on a fused path? (Its constructor's scrub depth.)
    #[inline(always)]
    fn is_fused(&self) -> bool {
        matches!(*self.path, Path::Fused(_))
    }

    /// `From<Aes>`'s key written into `slot`: the fused path over the
    /// cipher's round keys where `choose` picks one, else the cipher's own.
    #[inline(always)]
    fn from_cipher(slot: &mut MaybeUninit<Self>, cipher: Aes) -> &mut Self {
        let path = backend::choose(backend::aes_ct_backend(&cipher));
        #[cfg(feature = "aes")]
        let slot = match backend::round_keys_of(&cipher).flatten() {
            Some(rk) => match Fused::write_empty(path, slot, Self::fused) {
                Ok(gcm) => {
                    gcm.fill_fused_with(|out| {
                        *out = *rk.as_array();
                        Some(rk.rounds())
                    });
                    return gcm;
                }
                Err(slot) => slot,
            },
            None => slot,
        };
        slot.write(Self::cipher_path(cipher, path))
    }

    /// The key of a path that runs the cipher: `ctr-ghash` if `backend` is
    /// it, else the generic path; with ghash-ct's key for H = E_K(0).
    #[inline(always)]
    fn cipher_path(cipher: Aes, backend: Backend) -> Self {
        let ghash = ghash_key(&cipher, None).unwrap_or_else(|_| unreachable!("detected"));
        #[cfg(feature = "aes")]
        if backend == Backend::CtrGhash {
            return Self::with_path(Path::CtrGhash(cipher, ghash));
        }
        #[cfg(not(feature = "aes"))]
        let _ = backend;
        Self::with_path(Path::Generic(cipher, ghash))
    }

    /// The generic path over `cipher` with GHASH backend `ghash_backend`
    /// (for tests and benchmarks), or an error if this CPU or build cannot
    /// run that GHASH backend.
    #[inline(always)]
    pub fn with_ghash_backend(
        cipher: Aes,
        ghash_backend: ghash_ct::Backend,
    ) -> Result<Self, ghash_ct::UnsupportedBackend> {
        ct_dispatch::wipe::scrubbed::<_, { backend::SETUP_SCRUB }>(|| {
            let ghash = ghash_key(&cipher, Some(ghash_backend))?;
            Ok(Self::with_path(Path::Generic(cipher, ghash)))
        })
    }

    /// The path this key uses.
    pub fn backend(&self) -> Backend {
        self.path.backend()
    }

    /// The GHASH backend of the paths that hash with ghash-ct (generic,
    /// `ctr-ghash`); a fused path hashes with its own instructions and
    /// keeps no ghash-ct key: for it, the backend a ghash-ct key would get
    /// (`ghash_ct::Backend::detected()`).
    pub fn ghash_backend(&self) -> ghash_ct::Backend {
        self.path
            .ghash_key()
            .map_or_else(ghash_ct::Backend::detected, GHashKey::backend)
    }
}

/// ghash-ct's key for H = E_K(0) of `cipher`, on `backend` (else the
/// detected one), built unscrubbed: the `AesGcm` constructor around it
/// scrubs once for both.
fn ghash_key<Aes: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16>>(
    cipher: &Aes,
    backend: Option<ghash_ct::Backend>,
) -> Result<GHashKey, ghash_ct::UnsupportedBackend> {
    let mut h = Block::default();
    cipher.encrypt_block(&mut h);
    let ghash = match backend {
        Some(b) => GHashKey::new_with_backend(&h, b),
        None => Ok(GHashKey::new(&h)),
    };
    wipe(&mut h.0);
    ghash
}

impl<Aes, NonceSize, TagSize> AesGcm<Aes, NonceSize, TagSize>
where
    Aes: BlockSizeUser<BlockSize = U16> + BlockCipherEncrypt + KeyInit,
    TagSize: crate::TagSize,
{
    /// Make a key that uses path `backend`, or fail if this build, this CPU
    /// or the cipher type cannot run it (fused paths and `ctr-ghash` need
    /// one of our `aes_ct` types; [`Backend::Generic`] always works).
    #[inline(always)]
    pub fn new_with_backend(key: &Key<Self>, backend: Backend) -> Result<Self, UnsupportedBackend> {
        ct_dispatch::wipe::scrubbed_by::<_, { backend::FUSED_SETUP_SCRUB }, { backend::SETUP_SCRUB }>(
            |slot| Self::start(slot, key, backend),
            |gcm| {
                if let Ok(gcm) = gcm {
                    gcm.fill_fused(key);
                }
            },
            |gcm| gcm.as_ref().is_ok_and(Self::is_fused),
        )
    }

    /// `wrap` of fused path `backend`'s empty key form written into
    /// `slot`, if there is one for a key of `key`'s length (an AES key
    /// length, a fused path this CPU runs); else the slot back.
    #[cfg(feature = "aes")]
    #[inline(always)]
    fn write_fused<'s, T>(
        slot: &'s mut MaybeUninit<T>,
        key: &Key<Self>,
        backend: Backend,
        wrap: impl FnOnce(Fused) -> T,
    ) -> Result<&'s mut T, &'s mut MaybeUninit<T>> {
        match aes_ct::hazmat::RoundKeys::rounds_for(key.len()) {
            Some(_) => Fused::write_empty(backend, slot, wrap),
            None => Err(slot),
        }
    }

    /// A fused path's key form filled in where it lies from `key` (the
    /// other paths are built whole by `start`).
    #[inline(always)]
    fn fill_fused(&mut self, key: &Key<Self>) {
        #[cfg(feature = "aes")]
        self.fill_fused_with(|rk| aes_ct::hazmat::RoundKeys::expand_into(key, rk));
        #[cfg(not(feature = "aes"))]
        let _ = key;
    }

    /// Into `slot`, the key of path `backend` (which passed its CPU
    /// check), else of the generic path: a fused path's empty key form
    /// (for `fill_fused`), or the generic or `ctr-ghash` key whole.
    #[inline(always)]
    fn start_auto<'s>(
        slot: &'s mut MaybeUninit<Self>,
        key: &Key<Self>,
        backend: Backend,
    ) -> &'s mut Self {
        #[cfg(feature = "aes")]
        let slot = match Self::write_fused(slot, key, backend, Self::fused) {
            Ok(gcm) => return gcm,
            Err(slot) => slot,
        };
        slot.write(Self::cipher_path(Aes::new(key), backend))
    }

    /// Into `slot`, the key of path `backend`: a fused path's empty key
    /// form (for `fill_fused`; no cipher is made), or the cipher and
    /// ghash-ct's key; or the error.
    #[inline(always)]
    fn start<'s>(
        slot: &'s mut MaybeUninit<Result<Self, UnsupportedBackend>>,
        key: &Key<Self>,
        backend: Backend,
    ) -> &'s mut Result<Self, UnsupportedBackend> {
        let unsupported = Err(UnsupportedBackend(backend));
        if backend != Backend::Generic && !backend::is_aes_ct::<Aes>() {
            return slot.write(unsupported);
        }
        #[cfg(feature = "aes")]
        if backend != Backend::CtrGhash && backend != Backend::Generic {
            return match Self::write_fused(slot, key, backend, |f| Ok(Self::fused(f))) {
                Ok(gcm) => gcm,
                Err(slot) => slot.write(unsupported),
            };
        }
        slot.write(Ok(Self::cipher_path(Aes::new(key), backend)))
    }
}

impl<Aes, NonceSize, TagSize> AeadCore for AesGcm<Aes, NonceSize, TagSize>
where
    NonceSize: ArraySize,
    TagSize: crate::TagSize,
{
    type NonceSize = NonceSize;
    type TagSize = TagSize;
    const TAG_POSITION: TagPosition = TagPosition::Postfix;
}

impl<Aes, NonceSize, TagSize> AeadInOut for AesGcm<Aes, NonceSize, TagSize>
where
    Aes: BlockSizeUser<BlockSize = U16> + BlockCipherEncrypt,
    NonceSize: ArraySize,
    TagSize: crate::TagSize,
{
    fn encrypt_inout_detached(
        &self,
        nonce: &Nonce<NonceSize>,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
    ) -> Result<Tag<TagSize>, Error> {
        check_lengths(associated_data.len() as u64, buffer.len() as u64)?;
        let (mut j0, public) = self.j0(nonce)?;
        let full = self.crypt(&j0, public, associated_data, buffer, true);
        wipe(&mut j0.0);
        Tag::<TagSize>::try_from(&full[..TagSize::USIZE]).map_err(|_| Error)
    }

    fn decrypt_inout_detached(
        &self,
        nonce: &Nonce<NonceSize>,
        associated_data: &[u8],
        mut buffer: InOutBuf<'_, '_, u8>,
        tag: &Tag<TagSize>,
    ) -> Result<(), Error> {
        check_lengths(associated_data.len() as u64, buffer.len() as u64)?;
        let (mut j0, public) = self.j0(nonce)?;
        let mut expected = self.crypt(&j0, public, associated_data, buffer.reborrow(), false);
        use ctutils::CtEq;
        let ok: bool = expected[..TagSize::USIZE].ct_eq(tag.as_slice()).into();
        if !ok {
            // Turn the released plaintext back into ciphertext.
            let out = buffer.get_out();
            let _ = self.crypt(&j0, public, &[], InOutBuf::from(out), true);
        }
        wipe(&mut j0.0);
        // The right tag of a rejected message would be a forgery.
        wipe(&mut expected.0);
        if ok { Ok(()) } else { Err(Error) }
    }
}

impl<Aes, NonceSize, TagSize> AesGcm<Aes, NonceSize, TagSize>
where
    Aes: BlockSizeUser<BlockSize = U16> + BlockCipherEncrypt,
    TagSize: crate::TagSize,
{
    /// J0 (NIST SP 800-38D section 7.1): `IV || 0^31 || 1` for 96-bit IVs,
    /// otherwise `GHASH(IV || 0-pad || 0^64 || [len(IV)]_64)`. An empty IV is
    /// an error. With it, whether its counter word is public: true for
    /// 96-bit IVs (it starts at 1), false otherwise (derived from H).
    fn j0(&self, nonce: &[u8]) -> Result<(Block, bool), Error> {
        if nonce.is_empty() {
            return Err(Error);
        }
        if nonce.len() == 12 {
            let mut j0 = Block::default();
            j0[..12].copy_from_slice(nonce);
            j0[15] = 1;
            return Ok((j0, true));
        }
        Ok((self.path.ghash(nonce, &lens_block(0, nonce.len())), false))
    }

    /// Run the message through this key's path; returns the full tag.
    #[inline]
    fn crypt(
        &self,
        j0: &Block,
        counter_public: bool,
        aad: &[u8],
        buf: InOutBuf<'_, '_, u8>,
        encrypt: bool,
    ) -> Block {
        self.path.crypt(Msg {
            j0,
            counter_public,
            aad,
            buf,
            encrypt,
        })
    }
}

/// One seal or open as every path takes it: the pre-counter block J0, the
/// associated data, the text (read from `buf`'s input, written to its
/// output) and the direction.
pub(crate) struct Msg<'a, 'i, 'o> {
    pub(crate) j0: &'a Block,
    /// J0's counter word is public (a 96-bit nonce: it is 1, so every
    /// counter value follows from the block index alone). Only then may a
    /// path branch on a counter value; otherwise J0 = GHASH_H(nonce) and
    /// the counters are secret.
    #[allow(dead_code, reason = "read by the x86_64 VAES paths only")]
    pub(crate) counter_public: bool,
    pub(crate) aad: &'a [u8],
    pub(crate) buf: InOutBuf<'i, 'o, u8>,
    pub(crate) encrypt: bool,
}

/// The GHASH lengths block: `BE64(8 * a) || BE64(8 * b)` (bit lengths of
/// the AAD and the text, or 0 and the nonce for J0).
pub(crate) fn lens_block(a: usize, b: usize) -> Block {
    let mut lens = Block::default();
    lens[..8].copy_from_slice(&(a as u64 * 8).to_be_bytes());
    lens[8..].copy_from_slice(&(b as u64 * 8).to_be_bytes());
    lens
}

impl<Aes, NonceSize, TagSize> fmt::Debug for AesGcm<Aes, NonceSize, TagSize>
where
    TagSize: crate::TagSize,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("AesGcm");
        d.field("backend", &self.path.backend());
        if let Some(g) = self.path.ghash_key() {
            d.field("ghash", &g.backend());
        }
        d.finish_non_exhaustive()
    }
}

/// Every secret part (cipher, GHASH powers, fused key form) wipes itself on
/// drop.
impl<Aes, NonceSize, TagSize> zeroize::ZeroizeOnDrop for AesGcm<Aes, NonceSize, TagSize>
where
    Aes: zeroize::ZeroizeOnDrop,
    TagSize: crate::TagSize,
{
}

/// A counter declared public may steer a path's counter-block code (the
/// VAES main loops add their offsets to real blocks where no counter
/// carries out of its lowest byte). A real public counter starts at 2, so
/// messages reach only a few of the lowest byte's values at a loop's
/// entry; here J0s with every lowest byte, and near the 32-bit wrap, are
/// run both ways on every path this CPU has: the public and the secret
/// handling must give the same text and tag.
#[cfg(all(test, feature = "aes"))]
mod counter_public_tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    #[test]
    fn public_counter_matches_secret_for_every_low_byte() {
        // Long enough for the pair loop with several iterations (each
        // direction), plus a remainder with a partial block.
        let len = 9 * 512 + 3 * 16 + 5;
        let text: Vec<u8> = (0..len).map(|i| (i * 7 + i / 251) as u8).collect();
        let aad = [0x5a; 20];
        for backend in Backend::available() {
            let g = Aes256Gcm::new_with_backend(&[0x42; 32].into(), backend).unwrap();
            let mut j0 = Block::default();
            j0[..12].copy_from_slice(&[0xa5; 12]);
            for high in [0u32, 0x1234_5600, 0xffff_ff00] {
                for low in 0..=255u32 {
                    j0[12..].copy_from_slice(&(high | low).to_be_bytes());
                    for encrypt in [true, false] {
                        let run = |public: bool| {
                            let mut buf = text.clone();
                            let tag =
                                g.crypt(&j0, public, &aad, buf.as_mut_slice().into(), encrypt);
                            (buf, tag)
                        };
                        assert!(
                            run(true) == run(false),
                            "{backend:?} counter {:#010x} encrypt {encrypt}",
                            high | low
                        );
                    }
                }
            }
        }
    }
}
