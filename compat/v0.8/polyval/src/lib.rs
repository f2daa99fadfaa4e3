//! RustCrypto `polyval` 0.6's public API (universal-hash 0.5 traits) over
//! ghash-ct.
//!
//! A facade for `[patch.crates-io]` (see `compat/README.md`): [`Polyval`]
//! holds a `ghash_ct::Polyval` and forwards every call to it, so the field
//! arithmetic is ghash-ct's constant-time code on its detected backend.
//! Items as upstream: [`mulx`], [`BLOCK_SIZE`], [`KEY_SIZE`]; [`Polyval`] with `KeyInit`, `new_with_init_block`,
//! `UniversalHash` (a `UhfBackend` for closures; `update`, `update_padded`,
//! `finalize`, `verify`), `Reset`, `Clone`, a `Debug` without secrets,
//! `ZeroizeOnDrop` with the `zeroize` feature (the key powers and state are
//! wiped on drop with or without it); [`Key`], [`Block`], [`Tag`];
//! [`universal_hash`] re-exported.
#![no_std]
#![warn(missing_docs)]

pub use universal_hash;

#[doc(hidden)]
pub mod bridge;

/// Size of a POLYVAL block in bytes
pub const BLOCK_SIZE: usize = 16;

/// Size of a POLYVAL key in bytes
pub const KEY_SIZE: usize = 16;

crate::hasher!(
    /// **POLYVAL**: GHASH-like universal hash over GF(2^128) (RFC 8452).
    Polyval(ghash_ct::Polyval),
    "POLYVAL"
);

/// The `mulX_POLYVAL()` function of RFC 8452 appendix A: multiply by x in
/// GF(2^128), ghash-ct's constant-time form (no branch on the top bit).
pub fn mulx(block: &Block) -> Block {
    Block::from(ghash_ct::mulx_polyval(&<[u8; 16]>::from(*block)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 8452 appendix A's mulX_POLYVAL vector, as corrected by its
    /// erratum (the RFC's text has a typo).
    #[test]
    fn mulx_rfc8452() {
        let mut input = [0u8; 16];
        let mut expect = [0u8; 16];
        for (i, (a, b)) in input.iter_mut().zip(expect.iter_mut()).enumerate() {
            let h = |s: &str| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap_or(0);
            *a = h("9c98c04df9387ded828175a92ba652d8");
            *b = h("3931819bf271fada0503eb52574ca572");
        }
        assert_eq!(mulx(&input.into()), Block::from(expect));
    }
}
