//! Adiantum and HPolyC: length-preserving ("wide-block") encryption,
//! constant time, with SIMD NH.
//!
//! Both constructions are from Crowley & Biggers, "Adiantum:
//! length-preserving encryption for entry-level processors", IACR ToSC
//! 2018(4) (the HBSH construction, section 3). A message of `n >= 16` bytes
//! is split into `P_L` (the first `n - 16` bytes) and `P_R` (the last 16):
//!
//! ```text
//! P_M = P_R + H(T, P_L)           (mod 2^128, little endian)
//! C_M = AES-256_K_E(P_M)
//! C_L = P_L xor XChaCha_K_S(C_M || 1)
//! C_R = C_M - H(T, C_L)
//! ```
//!
//! Every ciphertext bit depends on every plaintext bit. AES runs once per
//! message; XChaCha and the hash do the bulk. Adiantum's hash is NH followed
//! by Poly1305 ([`NhPoly1305`]), HPolyC's is Poly1305 alone ([`Poly1305Hash`]).
//! All subkeys (the AES key, the Poly1305 keys and NH's 1072-byte key) are
//! derived once, in [`KeyInit::new`], from the XChaCha keystream for the
//! empty nonce.
//!
//! | type | stream | hash |
//! |---|---|---|
//! | [`Adiantum`] | XChaCha12 | NH + Poly1305 |
//! | [`AdiantumXChaCha20`] | XChaCha20 | NH + Poly1305 |
//! | [`AdiantumXChaCha8`] | XChaCha8 | NH + Poly1305 |
//! | [`HPolyC`] | XChaCha12 | Poly1305 |
//! | [`HPolyCXChaCha20`] | XChaCha20 | Poly1305 |
//! | [`HPolyCXChaCha8`] | XChaCha8 | Poly1305 |
//!
//! NH has SSE2, AVX2, aarch64 NEON, armv7 NEON-assembly and portable
//! backends, chosen once per process ([`Backend::detected`]); the AVX2 and
//! armv7 NEON backends also bring their own ChaCha. A key can ask for one
//! ([`Hbsh::new_with_backend`]) and tell which it uses ([`Hbsh::backend`]).
//! Otherwise XChaCha is RustCrypto's `chacha20`; Poly1305 is our own code on
//! 64-bit targets and RustCrypto's `poly1305` on 32-bit ones (see `poly.rs`);
//! AES-256 is `aes_ct::Aes256`.
//!
//! Limits (errors, never panics): messages of 16 bytes up to
//! 16 + 64 (2^32 - 1) bytes (the XChaCha counter, see `stream.rs`); Adiantum
//! tweaks of any length; HPolyC tweaks of at most (2^32 - 1) / 8 bytes (the
//! tweak's bit length is encoded in 32 bits).
#![no_std]
#![warn(missing_docs)]

pub use aes_ct;
pub use cipher;

mod backend;
mod hash;
mod nh;
mod poly;
mod soft;
mod stream;

#[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
mod aarch64;
#[cfg(all(target_arch = "arm", target_os = "linux"))]
mod arm;
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
mod x86;

pub use backend::{Backend, UnsupportedBackend};
pub use hash::{HashVariant, NhPoly1305, Poly1305Hash};
pub use stream::{StreamVariant, XChaCha8, XChaCha12, XChaCha20};

use aes_ct::Aes256;
use backend::Nh;
// The README's examples run as doctests too: it is the page crates.io
// shows, so its code must compile and pass.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

use cipher::{
    Array, BlockCipherDecrypt, BlockCipherEncrypt, InOutBuf, Key, KeyInit, KeySizeUser, consts::U32,
};
use core::{fmt, marker::PhantomData};
use zeroize::{Zeroize, ZeroizeOnDrop};

/// Adiantum with XChaCha12 (the default and Linux's `adiantum(xchacha12,aes)`).
///
/// ```
/// use adiantum_ct::{Adiantum, cipher::KeyInit};
///
/// let disk = Adiantum::new(&[0x42; 32].into());
/// let plain: Vec<u8> = (0..8 * 4096).map(|i| (i % 251) as u8).collect();
///
/// // Eight 4096-byte sectors, numbered 1000 to 1007 (dm-crypt `plain64`
/// // tweaks with `iv_large_sectors`).
/// let mut buf = plain.clone();
/// disk.encrypt_sectors(&mut buf, 4096, 1000)?;
/// assert_ne!(buf, plain);
///
/// // Each sector alone, with its own tweak, gives the same ciphertext.
/// let mut one = plain[4096..8192].to_vec();
/// disk.encrypt(&adiantum_ct::sector_tweak(1001), &mut one)?;
/// assert_eq!(one, buf[4096..8192]);
///
/// disk.decrypt_sectors(&mut buf, 4096, 1000)?;
/// assert_eq!(buf, plain);
///
/// // Bad input is an error, not a panic: 100 bytes are not whole sectors.
/// assert!(disk.encrypt_sectors(&mut [0u8; 100], 4096, 0).is_err());
/// # Ok::<(), adiantum_ct::Error>(())
/// ```
pub type Adiantum = Hbsh<XChaCha12, NhPoly1305>;
/// Adiantum with XChaCha20 (Linux's `adiantum(xchacha20,aes)`).
pub type AdiantumXChaCha20 = Hbsh<XChaCha20, NhPoly1305>;
/// Adiantum with XChaCha8.
pub type AdiantumXChaCha8 = Hbsh<XChaCha8, NhPoly1305>;
/// HPolyC with XChaCha12.
pub type HPolyC = Hbsh<XChaCha12, Poly1305Hash>;
/// HPolyC with XChaCha20.
pub type HPolyCXChaCha20 = Hbsh<XChaCha20, Poly1305Hash>;
/// HPolyC with XChaCha8.
pub type HPolyCXChaCha8 = Hbsh<XChaCha8, Poly1305Hash>;

/// Smallest message: one AES block.
pub const MIN_MESSAGE: usize = 16;
/// Tweak length the sector helpers use (Linux's Adiantum IV size).
pub const SECTOR_TWEAK: usize = 32;

/// Why an operation was refused. Nothing was written when this is returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The message is shorter than 16 bytes.
    MessageTooShort(usize),
    /// The message is longer than this implementation's stream allows.
    MessageTooLong(usize),
    /// The tweak is longer than the variant allows (HPolyC only).
    TweakTooLong(usize),
    /// Input and output buffers differ in length.
    LengthMismatch {
        /// Input length.
        input: usize,
        /// Output length.
        output: usize,
    },
    /// The sector size is below 16 bytes (or, for the 512-unit helpers, not
    /// a multiple of 512).
    BadSectorSize(usize),
    /// The buffer is not a whole number of sectors.
    NotWholeSectors {
        /// Buffer length.
        len: usize,
        /// Sector size.
        sector_size: usize,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Error::MessageTooShort(n) => write!(f, "message of {n} bytes is shorter than 16 bytes"),
            Error::MessageTooLong(n) => write!(f, "message of {n} bytes is too long"),
            Error::TweakTooLong(n) => write!(f, "tweak of {n} bytes is too long"),
            Error::LengthMismatch { input, output } => {
                write!(f, "input of {input} bytes but output of {output} bytes")
            }
            Error::BadSectorSize(n) => write!(f, "unsupported sector size {n}"),
            Error::NotWholeSectors { len, sector_size } => {
                write!(
                    f,
                    "buffer of {len} bytes is not a whole number of {sector_size}-byte sectors"
                )
            }
        }
    }
}

impl core::error::Error for Error {}

/// The HBSH construction over stream cipher `S` and hash `H`: use the
/// aliases [`Adiantum`], [`HPolyC`], ...
pub struct Hbsh<S: StreamVariant, H: HashVariant> {
    stream_key: [u8; 32],
    nh: Nh,
    aes: Aes256,
    hash: H::Key,
    _s: PhantomData<S>,
}

impl<S: StreamVariant, H: HashVariant> Clone for Hbsh<S, H> {
    #[inline(always)]
    fn clone(&self) -> Self {
        ct_dispatch::wipe::scrubbed::<_, SETUP_SCRUB>(|| Hbsh {
            stream_key: self.stream_key,
            nh: self.nh,
            aes: self.aes.clone(),
            hash: self.hash.clone(),
            _s: PhantomData,
        })
    }
}

/// Bytes of dead stack a constructor or clone zeroes after building the
/// key (`ct_dispatch::wipe::scrubbed`; the constructors are inlined around
/// it, so no frame of ours keeps a copy): the deepest frame with a copy of
/// a subkey, with a margin, in optimised builds. `ct-check/tests/zeroize.rs`
/// (`key_setup_and_use_leave_no_key_on_dead_stack`) fails when it is too
/// small.
const SETUP_SCRUB: usize = 32 * 1024;

impl<S: StreamVariant, H: HashVariant> KeySizeUser for Hbsh<S, H> {
    type KeySize = U32;
}

impl<S: StreamVariant, H: HashVariant> KeyInit for Hbsh<S, H> {
    #[inline(always)]
    fn new(key: &Key<Self>) -> Self {
        ct_dispatch::wipe::scrubbed::<_, SETUP_SCRUB>(|| Self::with_nh(key, Backend::detected()))
    }
}

/// The public sector methods of `Hbsh`: `$name(buf, $size, $first)`
/// encrypts (`$encrypt` true) or decrypts every sector of `buf`, sector `i`
/// with the tweak of number `$first + i * $step` (`$step` may read `$size`,
/// and refuse it with an error before anything is touched).
macro_rules! sector_methods {
    ($(
        $(#[$doc:meta])*
        $name:ident($size:ident, $first:ident), step $step:expr, encrypt $encrypt:literal;
    )*) => {$(
        $(#[$doc])*
        pub fn $name(&self, buf: &mut [u8], $size: usize, $first: u64) -> Result<(), Error> {
            self.sectors(buf, $size, $first, $step, $encrypt)
        }
    )*};
}

impl<S: StreamVariant, H: HashVariant> Hbsh<S, H> {
    /// Make a key that uses `backend`, or fail if this build or CPU cannot
    /// run it. The backend runs NH (Adiantum only) and, where it has its own
    /// ChaCha (armv7 `neon-asm`), XChaCha (Adiantum and HPolyC).
    #[inline(always)]
    pub fn new_with_backend(key: &Key<Self>, backend: Backend) -> Result<Self, UnsupportedBackend> {
        ct_dispatch::wipe::scrubbed::<_, SETUP_SCRUB>(|| {
            let nh = Nh::new(backend)?;
            Ok(Self::from_parts(key, nh))
        })
    }

    /// The backend this key uses.
    pub fn backend(&self) -> Backend {
        self.nh.backend()
    }

    fn with_nh(key: &Key<Self>, backend: Backend) -> Self {
        // The detected backend passed its CPU check already; the portable
        // one is always available.
        let nh = Nh::new(backend).or_else(|_| Nh::new(Backend::Soft));
        match nh {
            Ok(nh) => Self::from_parts(key, nh),
            Err(_) => unreachable!("the portable NH backend is always available"),
        }
    }

    fn from_parts(key: &Key<Self>, nh: Nh) -> Self {
        let mut stream_key = [0u8; 32];
        stream_key.copy_from_slice(key);
        // K_E || K_H = S_K(empty nonce): at most 32 + 1104 bytes.
        let mut km = [0u8; 32 + 16 + 16 + nh::KEY_BYTES];
        let km_len = 32 + H::KEY_BYTES;
        stream::derive::<S>(&stream_key, &mut km[..km_len]);
        let mut aes_key = Array::<u8, U32>::default();
        aes_key.copy_from_slice(&km[..32]);
        let aes = Aes256::new(&aes_key);
        aes_key.zeroize();
        let hash = H::key(&km[32..km_len], backend::NhChoice(nh));
        km.zeroize();
        Hbsh {
            stream_key,
            nh,
            aes,
            hash,
            _s: PhantomData,
        }
    }

    fn check(&self, tweak: &[u8], len: usize) -> Result<(), Error> {
        if len < MIN_MESSAGE {
            return Err(Error::MessageTooShort(len));
        }
        if (len - MIN_MESSAGE) as u64 > stream::MAX_BULK {
            return Err(Error::MessageTooLong(len));
        }
        if tweak.len() > H::MAX_TWEAK {
            return Err(Error::TweakTooLong(tweak.len()));
        }
        Ok(())
    }

    /// HBSH in either direction: the two are mirror images. With `X` the
    /// input and `Y` the output,
    ///
    /// ```text
    /// X_M = X_R + H(T, X_L)
    /// Y_M = E(X_M) if ENCRYPT, else D(X_M)
    /// Y_L = X_L xor S(C_M)      (C_M: Y_M if ENCRYPT, else X_M)
    /// Y_R = Y_M - H(T, Y_L)
    /// ```
    ///
    /// `ENCRYPT` is a const parameter, so each direction is its own code
    /// with no test of it.
    fn hbsh<const ENCRYPT: bool>(
        &self,
        tweak: &[u8],
        buf: InOutBuf<'_, '_, u8>,
    ) -> Result<(), Error> {
        let n = buf.len();
        self.check(tweak, n)?;
        let (mut left, mut right) = buf.split_at(n - MIN_MESSAGE);
        let prefix = H::prefix(&self.hash, tweak, n - MIN_MESSAGE);
        let xr = le128(right.get_in());
        // `m` goes from `X_M` to `Y_M`.
        let mut m = Array::from(
            xr.wrapping_add(H::hash(&self.hash, &prefix, left.get_in()))
                .to_le_bytes(),
        );
        if ENCRYPT {
            self.aes.encrypt_block(&mut m);
        }
        // `C_M`: the block cipher's output when encrypting, its input when
        // decrypting.
        let mut cm = [0u8; 16];
        cm.copy_from_slice(&m);
        stream::xor::<S>(&self.stream_key, &cm, left.reborrow(), self.nh)
            .map_err(|_| Error::MessageTooLong(n))?;
        if !ENCRYPT {
            self.aes.decrypt_block(&mut m);
        }
        let yr = le128(&m).wrapping_sub(H::hash(&self.hash, &prefix, left.get_out()));
        right.get_out().copy_from_slice(&yr.to_le_bytes());
        m.zeroize();
        cm.zeroize();
        Ok(())
    }

    /// Encrypts `buf` (at least 16 bytes) in place under `tweak`.
    pub fn encrypt(&self, tweak: &[u8], buf: &mut [u8]) -> Result<(), Error> {
        self.hbsh::<true>(tweak, InOutBuf::from(buf))
    }

    /// Decrypts `buf` (at least 16 bytes) in place under `tweak`.
    pub fn decrypt(&self, tweak: &[u8], buf: &mut [u8]) -> Result<(), Error> {
        self.hbsh::<false>(tweak, InOutBuf::from(buf))
    }

    /// Encrypts `input` into `output` (same length, at least 16 bytes).
    pub fn encrypt_to(&self, tweak: &[u8], input: &[u8], output: &mut [u8]) -> Result<(), Error> {
        self.hbsh::<true>(tweak, in_out(input, output)?)
    }

    /// Decrypts `input` into `output` (same length, at least 16 bytes).
    pub fn decrypt_to(&self, tweak: &[u8], input: &[u8], output: &mut [u8]) -> Result<(), Error> {
        self.hbsh::<false>(tweak, in_out(input, output)?)
    }

    sector_methods! {
        /// Encrypts `buf`, a run of `sector_size`-byte sectors, in place; sector
        /// `i` of the buffer uses the tweak of sector number `first_sector + i`
        /// in dm-crypt's `plain64` form (see [`sector_tweak`]).
        ///
        /// This is dm-crypt with 512-byte sectors, or with larger sectors and
        /// the `iv_large_sectors` option (IVs counted in `sector_size` units).
        /// dm-crypt's default for larger sectors counts IVs in 512-byte units:
        /// use [`Self::encrypt_sectors_512`] for that.
        encrypt_sectors(sector_size, first_sector), step 1, encrypt true;

        /// Decrypts what [`Self::encrypt_sectors`] encrypted.
        decrypt_sectors(sector_size, first_sector), step 1, encrypt false;

        /// As [`Self::encrypt_sectors`], but with sector numbers counted in
        /// 512-byte units, dm-crypt's default when `sector_size` > 512 (without
        /// `iv_large_sectors`): sector `i` of the buffer uses number
        /// `first_sector_512 + i * sector_size / 512`. `sector_size` must be a
        /// multiple of 512.
        encrypt_sectors_512(sector_size, first_sector_512), step step_512(sector_size)?, encrypt true;

        /// Decrypts what [`Self::encrypt_sectors_512`] encrypted.
        decrypt_sectors_512(sector_size, first_sector_512), step step_512(sector_size)?, encrypt false;
    }

    fn sectors(
        &self,
        buf: &mut [u8],
        size: usize,
        first: u64,
        step: u64,
        encrypt: bool,
    ) -> Result<(), Error> {
        if size < MIN_MESSAGE || (size - MIN_MESSAGE) as u64 > stream::MAX_BULK {
            return Err(Error::BadSectorSize(size));
        }
        if !buf.len().is_multiple_of(size) {
            return Err(Error::NotWholeSectors {
                len: buf.len(),
                sector_size: size,
            });
        }
        let mut number = first;
        for sector in buf.chunks_exact_mut(size) {
            let tweak = sector_tweak(number);
            if encrypt {
                self.encrypt(&tweak, sector)?;
            } else {
                self.decrypt(&tweak, sector)?;
            }
            number = number.wrapping_add(step);
        }
        Ok(())
    }
}

/// `input` and `output` as one buffer, or [`Error::LengthMismatch`].
fn in_out<'i, 'o>(input: &'i [u8], output: &'o mut [u8]) -> Result<InOutBuf<'i, 'o, u8>, Error> {
    let (i, o) = (input.len(), output.len());
    InOutBuf::new(input, output).map_err(|_| Error::LengthMismatch {
        input: i,
        output: o,
    })
}

fn step_512(sector_size: usize) -> Result<u64, Error> {
    if sector_size == 0 || !sector_size.is_multiple_of(512) {
        return Err(Error::BadSectorSize(sector_size));
    }
    Ok((sector_size / 512) as u64)
}

/// The 32-byte tweak of sector `number` as Linux's dm-crypt `plain64` IV
/// generator makes it for Adiantum (whose IV size is 32): the sector number
/// as a little-endian 64-bit integer, zero-padded to 32 bytes.
pub fn sector_tweak(number: u64) -> [u8; SECTOR_TWEAK] {
    let mut t = [0u8; SECTOR_TWEAK];
    t[..8].copy_from_slice(&number.to_le_bytes());
    t
}

/// The building blocks, exposed for the known-answer tests only. Not a
/// stable API.
#[doc(hidden)]
pub mod hazmat {
    use crate::{Backend, StreamVariant, UnsupportedBackend, backend::Nh, hash, nh, poly, stream};

    /// NH of `msg` (at most 1024 bytes, zero-padded to 16) under a
    /// 1072-byte key, on `backend`.
    pub fn nh(
        backend: Backend,
        key: &[u8; 1072],
        msg: &[u8],
    ) -> Result<[u8; 32], UnsupportedBackend> {
        let nh = Nh::new(backend)?;
        Ok(nh::nh_chunk(nh, &nh::NhKey::from_bytes(key), msg))
    }

    /// Linux's NHPoly1305: key = 16-byte Poly1305 `r` || 1072-byte NH key.
    pub fn nhpoly1305(
        backend: Backend,
        key: &[u8; 1088],
        msg: &[u8],
    ) -> Result<[u8; 16], UnsupportedBackend> {
        // The NH key straight from `key`: `NhKey` is its one copy, wiped on drop.
        let nk = nh::NhKey::from_bytes(key[16..].try_into().expect("1072 bytes"));
        let r = poly::PolyKey::new(&key[..16]);
        let h = hash::nh_poly1305(&r, Nh::new(backend)?, &nk, msg);
        Ok(h.to_le_bytes())
    }

    /// `Poly_r(msg)` as a little-endian integer (no `+ s`).
    pub fn poly1305(r: &[u8; 16], msg: &[u8]) -> u128 {
        let mut st = poly::PolyKey::new(r).start();
        let whole = msg.len() - msg.len() % 16;
        st.blocks(&msg[..whole]);
        st.finish(&msg[whole..])
    }

    /// XChaCha keystream XOR for a raw nonce from 64-byte block `block`, on
    /// the stream path of `backend` (its own ChaCha, or the `chacha20` crate).
    pub fn xchacha_xor<S: StreamVariant>(
        backend: Backend,
        key: &[u8; 32],
        nonce: &[u8; 24],
        block: u32,
        buf: &mut [u8],
    ) -> Result<bool, UnsupportedBackend> {
        let nh = Nh::new(backend)?;
        Ok(stream::xor_raw::<S>(key, nonce, block, buf, nh).is_ok())
    }
}

fn le128(b: &[u8]) -> u128 {
    let mut a = [0u8; 16];
    a.copy_from_slice(&b[..16]);
    u128::from_le_bytes(a)
}

impl<S: StreamVariant, H: HashVariant> Drop for Hbsh<S, H> {
    fn drop(&mut self) {
        // `aes` and the hash key wipe themselves.
        self.stream_key.zeroize();
    }
}

/// Every key part wipes itself on drop.
impl<S: StreamVariant, H: HashVariant> ZeroizeOnDrop for Hbsh<S, H> {}

impl<S: StreamVariant, H: HashVariant> fmt::Debug for Hbsh<S, H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Hbsh {{ stream: {}, hash: {}, aes: {:?}, .. }}",
            S::NAME,
            H::NAME,
            self.aes
        )
    }
}
