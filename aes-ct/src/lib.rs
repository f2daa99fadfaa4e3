//! Constant-time AES for RustCrypto stacks.
//!
//! `Aes128`, `Aes192`, `Aes256` and their encrypt-only / decrypt-only
//! variants implement the `cipher` 0.5 traits exactly like RustCrypto's
//! `aes` 0.9 types, so generic code (`ctr`, `cbc`, `aes-gcm`, ...) accepts
//! them unchanged. Every backend is constant time: no branch, loop bound or
//! memory index depends on the key or the data.
//!
//! [`Ctr32BE`] is CTR mode with a 32-bit big-endian counter, shaped like
//! RustCrypto `ctr::Ctr32BE` (`aes_ct::Ctr32BE<aes_ct::Aes128>` replaces
//! `ctr::Ctr32BE<aes::Aes128>`), with each backend's fused whole-block
//! loop.
//!
//! ```
//! use aes_ct::Aes128;
//! use aes_ct::cipher::{Array, BlockCipherDecrypt, BlockCipherEncrypt, KeyInit};
//!
//! // FIPS-197 appendix C.1
//! let key: [u8; 16] = core::array::from_fn(|i| i as u8);
//! let cipher = Aes128::new(&key.into());
//! let mut block = Array::from(core::array::from_fn(|i| (i as u8) * 0x11));
//! cipher.encrypt_block(&mut block);
//! assert_eq!(block[..4], [0x69, 0xc4, 0xe0, 0xd8]);
//! cipher.decrypt_block(&mut block);
//! assert_eq!(block[1], 0x11);
//! ```
//!
//! # Backend selection
//!
//! Backends, in order of preference (the one dispatch table,
//! `src/backend.rs`): `vaes` (VAES on AVX2 or AVX-512, AES-NI for single
//! blocks) and `aesni` on x86 and x86_64; `armv8` (Cryptography Extensions)
//! on aarch64; `hybrid` (vpaes for single blocks and tails, bitsliced bsaes
//! for batches) on x86 with SSSE3 and on aarch64 and armv7 with NEON, and
//! its halves `vpaes` and `bsaes` alone on the same CPUs; `soft`, the
//! portable bitsliced backend, everywhere.
//!
//! * **Automatic**: [`Backend::detected`] is the first backend of the table
//!   that this build contains and this CPU runs, detected once (CPUID and
//!   XCR0 on x86, `cpufeatures` on aarch64, `getauxval(AT_HWCAP)` on armv7
//!   Linux) and cached; every `new` uses it. `backend()` on a key and
//!   [`Backend::available`] tell which backends are in use and possible.
//! * **At run time**: `Aes128::new_with_backend(&key, Backend::Soft)` (and
//!   the same on every cipher type) returns [`UnsupportedBackend`] when
//!   this build or CPU cannot run the backend asked for.
//! * **At compile time**: `RUSTFLAGS='--cfg aes_ct_backend="NAME"'`, NAME
//!   one of the backend names above ([`Backend::name`]), narrows automatic
//!   selection to that backend; if the CPU cannot run it, the portable one
//!   is used (and `backend()` says so). [`Backend::forced`] reports it.
//! * **Cargo features** keep backends in the build, all on by default:
//!   `aesni`, `vaes` (needs `aesni`), `vpaes`, `bsaes`, `hybrid` (x86);
//!   `armv8` (aarch64); `neon` for the NEON `vpaes`, `bsaes` and `hybrid`
//!   (aarch64 and armv7, each with its own feature as well). `soft` is
//!   always there; with `default-features = false` it is the only backend.
//!   On soft-float aarch64 targets, whose ABI forbids NEON, the aarch64
//!   backends are left out.
//! * **`self-test`** (feature, off by default): before a backend is first
//!   chosen automatically it must pass a FIPS-197 known-answer test; one
//!   that fails is passed over for the next in the table (in the end
//!   `soft`).
//!
//! ```
//! use aes_ct::{Aes128, Backend};
//! use aes_ct::cipher::KeyInit;
//!
//! let key = [0x42u8; 16].into();
//! let auto = Aes128::new(&key);
//! assert_eq!(auto.backend(), Backend::detected());
//! let soft = Aes128::new_with_backend(&key, Backend::Soft)?; // always available
//! assert_eq!(soft.backend(), Backend::Soft);
//! for b in Backend::available() {
//!     println!("{b}"); // e.g. "vaes", "aesni", "hybrid", "vpaes", "bsaes", "soft"
//! }
//! # Ok::<(), aes_ct::UnsupportedBackend>(())
//! ```
#![no_std]
#![warn(missing_docs)]

pub use cipher;

// NEON (ASIMD) is in the aarch64 baseline except on soft-float targets
// (`aarch64-unknown-none-softfloat`), whose ABI forbids it: there every
// aarch64 backend is left out and the portable one is used.
#[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
mod aarch64;
// armv7 has only the NEON engines: no module without one of them.
#[cfg(all(target_arch = "arm", aes_ct_simd))]
mod arm;
mod backend;
mod ctr;
#[doc(hidden)]
pub mod hazmat;
mod hybrid;
mod perm;
mod schedule;
#[cfg(feature = "self-test")]
mod selftest;
mod soft;
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
#[doc(hidden)]
pub mod x86;

// The vector ISA module whose `Vpaes`, `Bsaes` and `Hybrid` engines the
// backend table names (build.rs sets `aes_ct_simd` where there is one).
#[cfg(all(aes_ct_simd, target_arch = "aarch64"))]
use aarch64 as simd;
#[cfg(all(aes_ct_simd, target_arch = "arm"))]
use arm as simd;
#[cfg(all(aes_ct_simd, any(target_arch = "x86", target_arch = "x86_64")))]
use x86 as simd;

use backend::KeyBox;
pub use backend::{Backend, UnsupportedBackend};
pub use ctr::{Ctr32BE, CtrCipher, CtrCore};

use cipher::{
    AlgorithmName, Array, BlockCipherDecClosure, BlockCipherDecrypt, BlockCipherEncClosure,
    BlockCipherEncrypt, BlockSizeUser, Key, KeyInit, KeySizeUser,
    consts::{U16, U24, U32},
    inout::InOut,
};
use core::fmt;

// The README's examples run as doctests too: it is the page crates.io
// shows, so its code must compile and pass.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

/// A 128-bit AES block.
pub type Block = Array<u8, U16>;

macro_rules! common {
    ($name:ident, $ks:ty, $nr:literal, $alg:expr) => {
        impl $name {
            /// Make a key that uses `backend`, or fail if this build or CPU
            /// cannot run it.
            // Inlined: the slot `scrubbed` reads the key out of is then
            // the caller's, and no frame of ours keeps a copy.
            #[inline(always)]
            pub fn new_with_backend(
                key: &Key<Self>,
                backend: Backend,
            ) -> Result<Self, UnsupportedBackend> {
                ct_dispatch::wipe::scrubbed::<_, { crate::backend::SETUP_SCRUB }>(|| {
                    Ok(Self {
                        keys: KeyBox::new(backend, key)?,
                    })
                })
            }

            /// The backend this key uses.
            pub fn backend(&self) -> Backend {
                self.keys.backend()
            }

            /// The standard encryption round keys when the backend keeps
            /// them (the AES-instruction backends), else `None`: how
            /// aes-gcm-ct's `From<cipher>` takes its fused paths. Hidden,
            /// not a stable API.
            #[doc(hidden)]
            pub fn enc_round_keys(&self) -> Option<hazmat::RoundKeys> {
                self.keys.enc_round_keys()
            }
        }

        impl KeySizeUser for $name {
            type KeySize = $ks;
        }

        impl KeyInit for $name {
            // Inlined, as `new_with_backend`.
            #[inline(always)]
            fn new(key: &Key<Self>) -> Self {
                ct_dispatch::wipe::scrubbed::<_, { crate::backend::SETUP_SCRUB }>(|| {
                    match KeyBox::new(Backend::detected(), key) {
                        Ok(keys) => Self { keys },
                        // The detected backend passed its CPU check already;
                        // the portable one can always be built.
                        Err(_) => KeyBox::new(Backend::Soft, key)
                            .map(|keys| Self { keys })
                            .unwrap_or_else(|_| {
                                unreachable!("portable backend is always available")
                            }),
                    }
                })
            }
        }

        impl BlockSizeUser for $name {
            type BlockSize = U16;
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(
                    f,
                    concat!(stringify!($name), " {{ backend: {}, .. }}"),
                    self.backend()
                )
            }
        }

        impl AlgorithmName for $name {
            fn write_alg_name(f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str($alg)
            }
        }

        /// Every key form wipes itself on drop.
        impl zeroize::ZeroizeOnDrop for $name {}
    };
}

/// `BlockCipherEncrypt` for a type holding `keys: KeyBox<_>`.
macro_rules! encrypt_impl {
    ($t:ty) => {
        impl BlockCipherEncrypt for $t {
            #[inline]
            fn encrypt_with_backend(&self, f: impl BlockCipherEncClosure<BlockSize = U16>) {
                self.keys.encrypt(f)
            }
            /// One block through the backend's lone-block path.
            #[inline]
            fn encrypt_block_inout(&self, block: InOut<'_, '_, Block>) {
                self.keys.encrypt1(block)
            }
        }
    };
}

/// `BlockCipherDecrypt` for a type holding `keys: KeyBox<_>`.
macro_rules! decrypt_impl {
    ($t:ty) => {
        impl BlockCipherDecrypt for $t {
            #[inline]
            fn decrypt_with_backend(&self, f: impl BlockCipherDecClosure<BlockSize = U16>) {
                self.keys.decrypt(f)
            }
            /// One block through the backend's lone-block path.
            #[inline]
            fn decrypt_block_inout(&self, block: InOut<'_, '_, Block>) {
                self.keys.decrypt1(block)
            }
        }
    };
}

/// `From<&$src>` (a copy of the keys: every direction shares one key
/// schedule) or `From<$src>` (through the borrowed form) for each `$dst`.
macro_rules! from_keys {
    (&$src:ty => $($dst:ty),+) => {
        $(impl From<&$src> for $dst {
            fn from(e: &$src) -> Self {
                Self {
                    keys: e.keys.clone(),
                }
            }
        })+
    };
    ($src:ty => $($dst:ty),+) => {
        $(impl From<$src> for $dst {
            fn from(e: $src) -> Self {
                Self::from(&e)
            }
        })+
    };
}

macro_rules! define_aes {
    ($name:ident, $enc:ident, $dec:ident, $ks:ty, $nr:literal, $doc:literal) => {
        #[doc = concat!($doc, " block cipher.")]
        ///
        /// ```
        /// use aes_ct::cipher::{Array, BlockCipherDecrypt, BlockCipherEncrypt, Key, KeyInit};
        #[doc = concat!("let cipher = aes_ct::", stringify!($name), "::new(&Key::<aes_ct::", stringify!($name), ">::default());")]
        /// let mut blocks = [Array::from([1u8; 16]), Array::from([2u8; 16])];
        /// cipher.encrypt_blocks(&mut blocks); // batches go to the backend's parallel path
        /// assert_ne!(blocks[0], Array::from([1u8; 16]));
        /// cipher.decrypt_blocks(&mut blocks);
        /// assert_eq!(blocks[1], Array::from([2u8; 16]));
        /// ```
        #[derive(Clone)]
        pub struct $name {
            keys: KeyBox<$nr>,
        }
        common!($name, $ks, $nr, stringify!($name));

        #[doc = concat!($doc, " block cipher (encrypt-only).")]
        #[derive(Clone)]
        pub struct $enc {
            keys: KeyBox<$nr>,
        }
        common!($enc, $ks, $nr, stringify!($enc));

        #[doc = concat!($doc, " block cipher (decrypt-only).")]
        #[derive(Clone)]
        pub struct $dec {
            keys: KeyBox<$nr>,
        }
        common!($dec, $ks, $nr, stringify!($dec));

        encrypt_impl!($name);
        decrypt_impl!($name);
        encrypt_impl!($enc);
        decrypt_impl!($dec);

        from_keys!(&$enc => $name, $dec);
        from_keys!(&$name => $enc, $dec);
        from_keys!($enc => $name, $dec);
    };
}

define_aes!(Aes128, Aes128Enc, Aes128Dec, U16, 10, "AES-128");
define_aes!(Aes192, Aes192Enc, Aes192Dec, U24, 12, "AES-192");
define_aes!(Aes256, Aes256Enc, Aes256Dec, U32, 14, "AES-256");
