//! RustCrypto `aes-gcm` 0.10's public API (aead 0.5, `AeadInPlace`) over
//! aes-gcm-ct.
//!
//! A facade for `[patch.crates-io]` (see `compat/README.md`). Every seal and
//! open is one call of aes-gcm-ct's `encrypt_inout_detached` /
//! `decrypt_inout_detached` on the caller's buffer: its constant-time
//! paths, its length checks, its tag comparison, and on a failed open its
//! restoring pass, so the buffer holds the ciphertext again when the error
//! returns (upstream leaves it untouched: the same bytes).
//!
//! Paths: for the facade `aes` crate's [`aes::Aes128`], `Aes192` and
//! [`aes::Aes256`] (what [`Aes128Gcm`] and [`Aes256Gcm`] use), `KeyInit`
//! builds aes-gcm-ct's `AesGcm` over the aes-ct type itself, so it takes the
//! fused AES + GHASH loops where the CPU has them; with upstream's
//! `--cfg aes_force_soft` it takes the generic path over the facade cipher
//! (aes-ct's portable backend) instead. Any other cipher 0.4 block cipher,
//! and every `From<Aes>`, runs aes-gcm-ct's generic path over it: the CTR
//! keystream through the cipher's own backend, GHASH by ghash-ct.
//!
//! Items as upstream: [`AesGcm`] with `KeyInit`, `KeySizeUser`, `From<Aes>`,
//! `AeadCore`, `AeadInPlace` (and through aead 0.5 `Aead` with `alloc`,
//! the `stream`, `heapless`, `arrayvec` buffers), `Clone`; [`Aes128Gcm`],
//! [`Aes256Gcm`], [`Nonce`], [`Tag`], [`TagSize`], [`A_MAX`], [`P_MAX`],
//! [`C_MAX`], [`aead`] and [`aes`] re-exported. Differences: the length
//! limits are the standard's (aes-gcm-ct's), the nonce size must also be a
//! hybrid-array size (every `U1` to `U512`), and a zero-length nonce is an
//! error.
#![no_std]
#![warn(missing_docs)]

pub use aead::{self, AeadCore, AeadInPlace, Error, Key, KeyInit, KeySizeUser};

#[cfg(feature = "aes")]
pub use aes;

use aead::generic_array::{ArrayLength, GenericArray};
use cipher::{consts::U16, BlockCipher, BlockEncrypt, BlockSizeUser};
use cipher05::array::{Array, ArraySize};
use core::fmt;

#[cfg(feature = "aes")]
use aes::{cipher::consts::U12, Aes128, Aes256};

mod bridge;

/// Maximum length of associated data: 2^61 - 1 bytes (NIST SP 800-38D;
/// aes-gcm-ct's limit, larger than upstream's 2^36).
pub const A_MAX: u64 = aes_gcm_ct::A_MAX;

/// Maximum length of plaintext: 2^36 - 32 bytes (NIST SP 800-38D: the
/// 32-bit counter's 2^32 - 2 blocks; upstream's 2^36 is 32 bytes more,
/// which would wrap the counter).
pub const P_MAX: u64 = aes_gcm_ct::P_MAX;

/// Maximum length of ciphertext (the plaintext limit plus a tag).
pub const C_MAX: u64 = P_MAX + 16;

/// AES-GCM nonces.
pub type Nonce<NonceSize> = GenericArray<u8, NonceSize>;

/// AES-GCM tags.
pub type Tag<TagSize = U16> = GenericArray<u8, TagSize>;

/// Trait implemented for valid tag sizes, i.e.
/// [`U12`][aead::consts::U12], [`U13`][aead::consts::U13],
/// [`U14`][aead::consts::U14], [`U15`][aead::consts::U15] and
/// [`U16`][aead::consts::U16].
pub trait TagSize: private::SealedTagSize {}

impl<T: private::SealedTagSize> TagSize for T {}

mod private {
    use aead::generic_array::ArrayLength;
    use cipher::{consts, Unsigned};

    // Sealed: the sizes upstream allows, each also one of aes-gcm-ct's.
    pub trait SealedTagSize: ArrayLength<u8> + Unsigned + aes_gcm_ct::TagSize {}

    impl SealedTagSize for consts::U12 {}
    impl SealedTagSize for consts::U13 {}
    impl SealedTagSize for consts::U14 {}
    impl SealedTagSize for consts::U15 {}
    impl SealedTagSize for consts::U16 {}
}

/// AES-GCM with a 128-bit key and 96-bit nonce.
#[cfg(feature = "aes")]
pub type Aes128Gcm = AesGcm<Aes128, U12>;

/// AES-GCM with a 256-bit key and 96-bit nonce.
#[cfg(feature = "aes")]
pub type Aes256Gcm = AesGcm<Aes256, U12>;

/// AES-GCM: generic over an underlying AES implementation and nonce size.
///
/// It is NOT intended to be instantiated with any block cipher besides AES.
/// The `NonceSize` parameter allows other nonce sizes (96 bits
/// recommended); `TagSize` tags of 12 to 16 bytes.
#[derive(Clone)]
pub struct AesGcm<Aes, NonceSize, TagSize = U16>
where
    TagSize: self::TagSize,
{
    inner: Inner<Aes, NonceSize, TagSize>,
}

/// The aes-gcm-ct key: over an aes-ct type (fused paths), or over the
/// caller's cipher 0.4 cipher (generic path).
#[derive(Clone)]
enum Inner<Aes, NonceSize, TagSize>
where
    TagSize: self::TagSize,
{
    #[cfg(feature = "aes")]
    Aes128(aes_gcm_ct::AesGcm<aes_ct::Aes128, NonceSize, TagSize>),
    #[cfg(feature = "aes")]
    Aes192(aes_gcm_ct::AesGcm<aes_ct::Aes192, NonceSize, TagSize>),
    #[cfg(feature = "aes")]
    Aes256(aes_gcm_ct::AesGcm<aes_ct::Aes256, NonceSize, TagSize>),
    Generic(aes_gcm_ct::AesGcm<bridge::Cipher05<Aes>, NonceSize, TagSize>),
}

/// `$f` applied to whichever aes-gcm-ct key `$inner` holds.
macro_rules! with_inner {
    ($inner:expr, |$g:ident| $f:expr) => {
        match $inner {
            #[cfg(feature = "aes")]
            Inner::Aes128($g) => $f,
            #[cfg(feature = "aes")]
            Inner::Aes192($g) => $f,
            #[cfg(feature = "aes")]
            Inner::Aes256($g) => $f,
            Inner::Generic($g) => $f,
        }
    };
}

impl<Aes, NonceSize, TagSize> KeySizeUser for AesGcm<Aes, NonceSize, TagSize>
where
    Aes: KeySizeUser,
    TagSize: self::TagSize,
{
    type KeySize = Aes::KeySize;
}

impl<Aes, NonceSize, TagSize> KeyInit for AesGcm<Aes, NonceSize, TagSize>
where
    Aes: BlockSizeUser<BlockSize = U16> + BlockEncrypt + KeyInit,
    TagSize: self::TagSize,
{
    fn new(key: &Key<Self>) -> Self {
        #[cfg(all(feature = "aes", not(aes_force_soft)))]
        if let Some(inner) = Self::aes_ct(key) {
            return Self { inner };
        }
        Aes::new(key).into()
    }
}

#[cfg(all(feature = "aes", not(aes_force_soft)))]
impl<Aes, NonceSize, TagSize> AesGcm<Aes, NonceSize, TagSize>
where
    Aes: KeySizeUser,
    TagSize: self::TagSize,
{
    /// aes-gcm-ct over the aes-ct type when `Aes` is one of the facade's
    /// AES types (whose keys are exactly aes-ct keys of the same bytes),
    /// else `None`. The lifetime-erased `TypeId` is exact here: the facade
    /// types have no lifetime parameters.
    fn aes_ct(key: &[u8]) -> Option<Inner<Aes, NonceSize, TagSize>> {
        use cipher05::KeyInit as _;
        let t = typeid::of::<Aes>();
        if t == typeid::of::<aes::Aes128>() {
            aes_gcm_ct::AesGcm::new_from_slice(key)
                .ok()
                .map(Inner::Aes128)
        } else if t == typeid::of::<aes::Aes192>() {
            aes_gcm_ct::AesGcm::new_from_slice(key)
                .ok()
                .map(Inner::Aes192)
        } else if t == typeid::of::<aes::Aes256>() {
            aes_gcm_ct::AesGcm::new_from_slice(key)
                .ok()
                .map(Inner::Aes256)
        } else {
            None
        }
    }
}

impl<Aes, NonceSize, TagSize> From<Aes> for AesGcm<Aes, NonceSize, TagSize>
where
    Aes: BlockSizeUser<BlockSize = U16> + BlockEncrypt,
    TagSize: self::TagSize,
{
    /// aes-gcm-ct's generic path over `cipher`.
    fn from(cipher: Aes) -> Self {
        Self {
            inner: Inner::Generic(bridge::Cipher05(cipher).into()),
        }
    }
}

impl<Aes, NonceSize, TagSize> AeadCore for AesGcm<Aes, NonceSize, TagSize>
where
    NonceSize: ArrayLength<u8>,
    TagSize: self::TagSize,
{
    type NonceSize = NonceSize;
    type TagSize = TagSize;
    type CiphertextOverhead = cipher::consts::U0;
}

impl<Aes, NonceSize, TagSize> AeadInPlace for AesGcm<Aes, NonceSize, TagSize>
where
    Aes: BlockCipher + BlockSizeUser<BlockSize = U16> + BlockEncrypt,
    NonceSize: ArrayLength<u8> + ArraySize,
    TagSize: self::TagSize,
{
    fn encrypt_in_place_detached(
        &self,
        nonce: &Nonce<NonceSize>,
        associated_data: &[u8],
        buffer: &mut [u8],
    ) -> Result<Tag<TagSize>, Error> {
        use aes_gcm_ct::AeadInOut as _;
        let nonce = nonce06(nonce)?;
        let tag = with_inner!(&self.inner, |g| g
            .encrypt_inout_detached(nonce, associated_data, buffer.into())
            .map_err(|_| Error)?);
        GenericArray::from_exact_iter(tag).ok_or(Error)
    }

    fn decrypt_in_place_detached(
        &self,
        nonce: &Nonce<NonceSize>,
        associated_data: &[u8],
        buffer: &mut [u8],
        tag: &Tag<TagSize>,
    ) -> Result<(), Error> {
        use aes_gcm_ct::AeadInOut as _;
        let nonce = nonce06(nonce)?;
        let tag = <&Array<u8, TagSize>>::try_from(tag.as_slice()).map_err(|_| Error)?;
        with_inner!(&self.inner, |g| g
            .decrypt_inout_detached(nonce, associated_data, buffer.into(), tag)
            .map_err(|_| Error))
    }
}

/// The nonce as aes-gcm-ct's type (a borrow of the same bytes; the sizes
/// are one typenum, so the conversion cannot fail).
fn nonce06<N: ArrayLength<u8> + ArraySize>(nonce: &Nonce<N>) -> Result<&Array<u8, N>, Error> {
    <&Array<u8, N>>::try_from(nonce.as_slice()).map_err(|_| Error)
}

impl<Aes, NonceSize, TagSize> fmt::Debug for AesGcm<Aes, NonceSize, TagSize>
where
    TagSize: self::TagSize,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        with_inner!(&self.inner, |g| fmt::Debug::fmt(g, f))
    }
}
