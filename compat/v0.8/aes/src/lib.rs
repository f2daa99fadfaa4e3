//! RustCrypto `aes` 0.8's public API (cipher 0.4 traits) over aes-ct.
//!
//! A facade for `[patch.crates-io]` (see `compat/README.md`): every crate of
//! a dependency graph that names `aes = "0.8"` gets these types, which hold
//! an [`aes_ct`] key and forward every call to it. No AES code lives here:
//! the blocks go through aes-ct's constant-time backends, chosen as aes-ct
//! chooses them (its `--cfg aes_ct_backend` included).
//!
//! Items as upstream: [`Aes128`], [`Aes192`], [`Aes256`] and their
//! `Enc`/`Dec` variants with `BlockCipher`, `BlockEncrypt`/`BlockDecrypt`,
//! `KeyInit`, `KeySizeUser`, `BlockSizeUser`, `AlgorithmName`, `Clone`,
//! `Debug`, the `From` conversions between them, `ZeroizeOnDrop` with the
//! `zeroize` feature (the keys are wiped on drop with or without it),
//! [`Block`], [`Block8`] and [`cipher`] re-exported.
//!
//! Configuration flags: `--cfg aes_force_soft` (upstream's) makes every key
//! use aes-ct's portable constant-time backend; `aes_compact` and
//! `aes_armv8` change nothing (the portable backend has one form, and the
//! ARMv8 instructions are detected at run time). With the `hazmat` feature,
//! upstream's round functions, on aes-ct's portable bitsliced code.
#![no_std]
#![warn(missing_docs)]

#[cfg(feature = "hazmat")]
pub mod hazmat;

mod bridge;

pub use cipher;
use cipher::{
    consts::{U16, U24, U32, U8},
    generic_array::GenericArray,
    inout::{InOut, InOutBuf},
    AlgorithmName, BlockCipher, BlockClosure, BlockDecrypt, BlockEncrypt, BlockSizeUser, Key,
    KeyInit, KeySizeUser,
};
use cipher05::{BlockCipherDecrypt as _, BlockCipherEncrypt as _};
use core::fmt;

/// 128-bit AES block
pub type Block = GenericArray<u8, U16>;
/// Eight 128-bit AES blocks
pub type Block8 = GenericArray<Block, U8>;

/// An aes-ct key from a cipher 0.4 key of the same size: with
/// `--cfg aes_force_soft` on the portable backend, else on the one aes-ct
/// detects.
trait NewCt: Sized {
    fn make(key: &[u8]) -> Self;
}

macro_rules! new_with_backend {
    ($($t:ty),*) => {$(
        impl NewCt for $t {
            #[inline]
            fn make(key: &[u8]) -> Self {
                // The key has this type's size (the caller's `Key<Self>`),
                // so `new_from_slice` borrows it without a copy and cannot
                // fail; the arm that keeps it panic-free is the empty-key
                // error no caller reaches.
                let key = match <&cipher05::Key<$t>>::try_from(key) {
                    Ok(k) => k,
                    Err(_) => unreachable!("cipher 0.4 and 0.5 key sizes are the same typenum"),
                };
                #[cfg(aes_force_soft)]
                if let Ok(k) = <$t>::new_with_backend(key, aes_ct::Backend::Soft) {
                    return k;
                }
                <$t as cipher05::KeyInit>::new(key)
            }
        }
    )*};
}

new_with_backend!(
    aes_ct::Aes128,
    aes_ct::Aes128Enc,
    aes_ct::Aes128Dec,
    aes_ct::Aes192,
    aes_ct::Aes192Enc,
    aes_ct::Aes192Dec,
    aes_ct::Aes256,
    aes_ct::Aes256Enc,
    aes_ct::Aes256Dec
);

macro_rules! common {
    ($name:ident, $ct:ty, $ks:ty) => {
        impl $name {
            /// The aes-ct key this one forwards to (its backend, and the
            /// cipher 0.5 traits).
            pub fn as_aes_ct(&self) -> &$ct {
                &self.inner
            }
        }

        impl From<$ct> for $name {
            /// Wrap an aes-ct key (no copy of the round keys).
            fn from(inner: $ct) -> Self {
                Self { inner }
            }
        }

        impl KeySizeUser for $name {
            type KeySize = $ks;
        }

        impl KeyInit for $name {
            #[inline]
            fn new(key: &Key<Self>) -> Self {
                Self {
                    inner: <$ct as NewCt>::make(key),
                }
            }
        }

        impl BlockSizeUser for $name {
            type BlockSize = U16;
        }

        impl BlockCipher for $name {}

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(
                    f,
                    concat!(stringify!($name), " {{ backend: {}, .. }}"),
                    self.inner.backend()
                )
            }
        }

        impl AlgorithmName for $name {
            fn write_alg_name(f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(stringify!($name))
            }
        }

        /// The aes-ct key inside wipes itself on drop.
        #[cfg(feature = "zeroize")]
        impl zeroize::ZeroizeOnDrop for $name {}
    };
}

/// `BlockEncrypt` or `BlockDecrypt` for `$name`: the closure path through
/// the bridge's adapter, the lone-block and bulk paths straight to aes-ct's.
macro_rules! direction {
    ($name:ident, $trait:ident, $adapter:ident,
     $with_backend:ident, $block_inout:ident, $blocks_inout:ident,
     $block:ident, $block_b2b:ident, $blocks:ident) => {
        impl $trait for $name {
            #[inline]
            fn $with_backend(&self, f: impl BlockClosure<BlockSize = U16>) {
                self.inner.$with_backend(bridge::$adapter(f))
            }
            /// aes-ct's lone-block path.
            #[inline]
            fn $block_inout(&self, block: InOut<'_, '_, Block>) {
                self.inner.$block_inout(bridge::inout(block))
            }
            /// All blocks in one aes-ct call.
            #[inline]
            fn $blocks_inout(&self, blocks: InOutBuf<'_, '_, Block>) {
                self.inner.$blocks_inout(bridge::inout_buf(blocks))
            }
            #[inline]
            fn $block(&self, block: &mut Block) {
                self.$block_inout(block.into())
            }
            #[inline]
            fn $block_b2b(&self, in_block: &Block, out_block: &mut Block) {
                self.$block_inout((in_block, out_block).into())
            }
            #[inline]
            fn $blocks(&self, blocks: &mut [Block]) {
                self.$blocks_inout(blocks.into())
            }
        }
    };
}

macro_rules! encrypt {
    ($name:ident) => {
        direction! { $name, BlockEncrypt, Enc, encrypt_with_backend, encrypt_block_inout,
        encrypt_blocks_inout, encrypt_block, encrypt_block_b2b, encrypt_blocks }
    };
}

macro_rules! decrypt {
    ($name:ident) => {
        direction! { $name, BlockDecrypt, Dec, decrypt_with_backend, decrypt_block_inout,
        decrypt_blocks_inout, decrypt_block, decrypt_block_b2b, decrypt_blocks }
    };
}

/// A cipher type over the aes-ct type of the same name, with `common!`
/// and the given directions (`encrypt`, `decrypt`).
macro_rules! cipher_type {
    ($name:ident, $ks:ty, $doc:expr, $($dir:ident),+) => {
        #[doc = $doc]
        #[derive(Clone)]
        pub struct $name {
            inner: aes_ct::$name,
        }
        common!($name, aes_ct::$name, $ks);
        $($dir!($name);)+
    };
}

macro_rules! define_aes {
    ($name:ident, $enc:ident, $dec:ident, $ks:ty, $doc:literal) => {
        define_aes!(@ $name, $enc, $dec, $ks, $doc, [$name, $dec]);
    };
    (@ $name:ident, $enc:ident, $dec:ident, $ks:ty, $doc:literal, [$($to:ident),+]) => {
        cipher_type!($name, $ks, concat!($doc, " block cipher"), encrypt, decrypt);
        cipher_type!(
            $enc,
            $ks,
            concat!($doc, " block cipher (encrypt-only)"),
            encrypt
        );
        cipher_type!(
            $dec,
            $ks,
            concat!($doc, " block cipher (decrypt-only)"),
            decrypt
        );

        // Upstream's conversions from the encrypt-only key (aes-ct's).
        $(
            impl From<$enc> for $to {
                #[inline]
                fn from(enc: $enc) -> $to {
                    Self::from(&enc)
                }
            }
            impl From<&$enc> for $to {
                fn from(enc: &$enc) -> $to {
                    Self {
                        inner: (&enc.inner).into(),
                    }
                }
            }
        )+
    };
}

define_aes!(Aes128, Aes128Enc, Aes128Dec, U16, "AES-128");
define_aes!(Aes192, Aes192Enc, Aes192Dec, U24, "AES-192");
define_aes!(Aes256, Aes256Enc, Aes256Dec, U32, "AES-256");
