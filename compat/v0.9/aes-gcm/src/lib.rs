//! RustCrypto `aes-gcm` 0.11's public API (aead 0.6): aes-gcm-ct's items.
//!
//! A facade for `[patch.crates-io]` (see `compat/README.md`). aes-gcm-ct
//! implements the same trait generation with the same public surface, so
//! this re-exports it: [`AesGcm`] IS `aes_gcm_ct::AesGcm`, and [`aes`] is
//! the `aes` 0.9 facade, whose types are aes-ct's (so [`Aes128Gcm`] and
//! [`Aes256Gcm`] take the fused AES + GHASH paths where the CPU has them).
//! Features as upstream. Differences are aes-gcm-ct's (its crate docs): a
//! zero-length nonce is an error.
#![no_std]

pub use aes_gcm_ct::{
    aead, AeadCore, AeadInOut, AesGcm, Error, Key, KeyInit, KeySizeUser, Nonce, Tag, TagSize,
    A_MAX, P_MAX,
};

#[cfg(feature = "aes")]
pub use aes;

#[cfg(feature = "aes")]
pub use aes_gcm_ct::{Aes128Gcm, Aes192Gcm, Aes256Gcm};
