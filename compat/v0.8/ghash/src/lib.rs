//! RustCrypto `ghash` 0.5's public API (universal-hash 0.5 traits) over
//! ghash-ct.
//!
//! A facade for `[patch.crates-io]` (see `compat/README.md`): [`GHash`]
//! holds a `ghash_ct::GHash` and forwards every call to it, so the field
//! arithmetic is ghash-ct's constant-time code on its detected backend.
//! Like upstream it depends on `polyval` 0.6: the `polyval` facade's
//! universal-hash 0.5 bridge, written once for both.
//! Items as upstream: [`GHash`] with `KeyInit`, `new_with_init_block`,
//! `UniversalHash` (a `UhfBackend` for closures; `update`, `update_padded`,
//! `finalize`, `verify`), `Reset`, `Clone`, a `Debug` without secrets,
//! `ZeroizeOnDrop` with the `zeroize` feature (the key powers and state are
//! wiped on drop with or without it); [`Key`], [`Block`], [`Tag`];
//! [`universal_hash`] re-exported.
#![no_std]
#![warn(missing_docs)]

pub use polyval::universal_hash;

polyval::hasher!(
    /// **GHASH**: universal hash over GF(2^128) used by AES-GCM.
    ///
    /// GHASH is a universal hash function used for message authentication in
    /// the AES-GCM authenticated encryption cipher.
    GHash(ghash_ct::GHash),
    "GHASH"
);

#[cfg(test)]
mod tests {
    use super::*;
    use universal_hash::{consts::U16, KeyInit, UniversalHash};

    /// Upstream's meaning of the initial block on its CLMUL / PMULL
    /// backends: the starting state (`state`, in the hash's byte order), so
    /// with no input it is the output, and absorbing X from it equals
    /// absorbing `state XOR X` from zero.
    fn init_block_is_the_starting_state<H>(
        new_with_init_block: fn(&Key, u128) -> H,
        init: u128,
        state: [u8; 16],
    ) where
        H: KeyInit<KeySize = U16> + UniversalHash<BlockSize = U16>,
    {
        let h = Key::from([7u8; 16]);
        assert_eq!(new_with_init_block(&h, init).finalize(), Block::from(state));
        let x = [0x5au8; 16];
        let mut a = new_with_init_block(&h, init);
        a.update(&[x.into()]);
        let mut b = H::new(&h);
        let mixed: [u8; 16] = core::array::from_fn(|i| x[i] ^ state[i]);
        b.update(&[mixed.into()]);
        assert_eq!(a.finalize(), b.finalize());
    }

    const INIT: u128 = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210;

    #[test]
    fn ghash_init_block_is_the_starting_state() {
        init_block_is_the_starting_state(GHash::new_with_init_block, INIT, INIT.to_le_bytes());
    }

    /// The `polyval` facade's, through the same bridge (its own crate
    /// tests `mulx`).
    #[test]
    fn polyval_init_block_is_the_starting_state() {
        init_block_is_the_starting_state(
            polyval::Polyval::new_with_init_block,
            INIT,
            INIT.to_be_bytes(),
        );
    }
}
