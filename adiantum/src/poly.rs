//! Poly1305 as Adiantum and HPolyC use it: the polynomial hash
//! `Poly_K(M) = fromint_128(PolyP(clamp(K), M))` of the paper (Crowley &
//! Biggers, IACR ToSC 2018(4), section 6.1): Poly1305 evaluated mod
//! 2^130 - 5, fully reduced, truncated to 128 bits, with **no** "+ s"
//! one-time mask. Callers add two such values mod 2^128 themselves.
//!
//! Built on RustCrypto `poly1305` 0.9 (constant time, AVX2 on x86): its tag
//! is `(h mod p + s) mod 2^128`, so a key with `s = 0` gives exactly
//! `Poly_K`. Full blocks go through `UniversalHash::update` (the crate's
//! multi-block path), the final partial block through `compute_unpadded`
//! (the "append 1, zero-pad" rule of `PolyP`). The prepared state is cloned
//! per message, so the key (and on AVX2 the powers of r) is set up once.
//! Cost: one 130-bit multiply-reduce per 16 bytes.

use poly1305::{Block, Poly1305, universal_hash::KeyInit, universal_hash::UniversalHash};
use zeroize::Zeroize;

/// A Poly1305 hash key `r` (clamped by the crate), ready to clone.
#[derive(Clone)]
pub struct PolyKey(Poly1305);

impl core::fmt::Debug for PolyKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("PolyKey { .. }")
    }
}

impl PolyKey {
    pub(crate) fn new(r: &[u8]) -> Self {
        let mut k = [0u8; 32];
        k[..16].copy_from_slice(&r[..16]);
        let p = Poly1305::new(&k.into());
        k.zeroize();
        PolyKey(p)
    }

    /// A fresh hash state under this key.
    #[inline]
    pub(crate) fn start(&self) -> PolyState {
        PolyState(self.0.clone())
    }
}

/// A running `Poly_K` computation (wiped on drop by the crate).
pub(crate) struct PolyState(Poly1305);

impl PolyState {
    /// Absorbs whole 16-byte blocks; `data.len()` must be a multiple of 16
    /// (a trailing partial block is ignored).
    #[inline]
    pub(crate) fn blocks(&mut self, data: &[u8]) {
        let (blocks, _) = Block::slice_as_chunks(data);
        self.0.update(blocks);
    }

    /// Absorbs `tail` (fewer than 16 bytes, padded with 1 then zeros, as
    /// `PolyP` does for a final partial block) and returns `Poly_K` of
    /// everything absorbed as a little-endian integer.
    #[inline]
    pub(crate) fn finish(self, tail: &[u8]) -> u128 {
        let tag = self.0.compute_unpadded(tail);
        u128::from_le_bytes(tag.into())
    }
}
