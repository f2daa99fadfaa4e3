//! RustCrypto `ghash` 0.6's public API (universal-hash 0.6) over ghash-ct.
//!
//! A facade for `[patch.crates-io]` (see `compat/README.md`). [`GHash`]
//! wraps `ghash_ct::GHash` (same trait generation: every call is forwarded
//! as it is, closures and backends included) and adds upstream's inherent
//! [`GHash::new`], so code that calls it without `KeyInit` in scope
//! compiles. Items as upstream: `KeyInit`, `KeySizeUser`, `BlockSizeUser`,
//! `UniversalHash`, `Reset`, `Clone`, a `Debug` without secrets,
//! `ZeroizeOnDrop` with the `zeroize` feature (the key powers and state are
//! wiped on drop with or without it); [`Key`], [`Block`], [`Tag`];
//! [`universal_hash`] re-exported.
#![no_std]
#![warn(missing_docs)]

pub use ghash_ct::universal_hash;

use core::fmt;
use universal_hash::{
    common::{BlockSizeUser, KeySizeUser},
    consts::U16,
    KeyInit, Reset, UhfClosure, UniversalHash,
};

/// GHASH keys (16-bytes)
pub type Key = universal_hash::Key<GHash>;

/// GHASH blocks (16-bytes)
pub type Block = universal_hash::Block<GHash>;

/// GHASH tags (16-bytes)
pub type Tag = universal_hash::Block<GHash>;

/// **GHASH**: universal hash over GF(2^128) used by AES-GCM.
#[derive(Clone)]
pub struct GHash(ghash_ct::GHash);

impl GHash {
    /// Initialize GHASH with the given `H` field element
    #[inline]
    pub fn new(h: &Key) -> Self {
        Self(<ghash_ct::GHash as KeyInit>::new(h))
    }

    /// The ghash-ct hasher this one forwards to (its backend).
    pub fn as_ghash_ct(&self) -> &ghash_ct::GHash {
        &self.0
    }
}

impl From<ghash_ct::GHash> for GHash {
    fn from(inner: ghash_ct::GHash) -> Self {
        Self(inner)
    }
}

impl KeySizeUser for GHash {
    type KeySize = U16;
}

impl KeyInit for GHash {
    /// Initialize GHASH with the given `H` field element
    #[inline]
    fn new(h: &Key) -> Self {
        Self::new(h)
    }
}

impl BlockSizeUser for GHash {
    type BlockSize = U16;
}

impl UniversalHash for GHash {
    #[inline]
    fn update_with_backend(&mut self, f: impl UhfClosure<BlockSize = Self::BlockSize>) {
        self.0.update_with_backend(f)
    }

    #[inline]
    fn update(&mut self, blocks: &[Block]) {
        self.0.update(blocks)
    }

    #[inline]
    fn update_padded(&mut self, data: &[u8]) {
        self.0.update_padded(data)
    }

    /// Get GHASH output
    #[inline]
    fn finalize(self) -> Tag {
        self.0.finalize()
    }

    #[inline]
    fn finalize_reset(&mut self) -> Tag {
        self.0.finalize_reset()
    }
}

impl Reset for GHash {
    fn reset(&mut self) {
        self.0.reset()
    }
}

impl fmt::Debug for GHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "GHash {{ backend: {}, .. }}", self.0.backend())
    }
}

/// The ghash-ct hasher inside wipes its key powers and state on drop.
#[cfg(feature = "zeroize")]
impl zeroize::ZeroizeOnDrop for GHash {}
