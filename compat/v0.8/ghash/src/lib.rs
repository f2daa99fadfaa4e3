//! RustCrypto `ghash` 0.5's public API (universal-hash 0.5 traits) over
//! ghash-ct.
//!
//! A facade for `[patch.crates-io]` (see `compat/README.md`): [`GHash`]
//! holds a `ghash_ct::GHash` and forwards every call to it, so the field
//! arithmetic is ghash-ct's constant-time code on its detected backend.
//! Items as upstream: [`GHash`] with `KeyInit`, `new_with_init_block`,
//! `UniversalHash` (a `UhfBackend` for closures; `update`, `update_padded`,
//! `finalize`, `verify`), `Reset`, `Clone`, a `Debug` without secrets,
//! `ZeroizeOnDrop` with the `zeroize` feature (the key powers and state are
//! wiped on drop with or without it); [`Key`], [`Block`], [`Tag`];
//! [`universal_hash`] re-exported.
#![no_std]
#![warn(missing_docs)]

pub use universal_hash;

use core::fmt;
use ghash_ct::universal_hash::{
    array::Array, UhfBackend as UhfBackend06, UhfClosure as UhfClosure06,
    UniversalHash as UniversalHash06,
};
use universal_hash::{
    consts::{U16, U8},
    crypto_common::{BlockSizeUser, KeySizeUser, ParBlocksSizeUser},
    generic_array::GenericArray,
    KeyInit, Reset, UhfBackend, UhfClosure, UniversalHash,
};

/// GHASH keys (16-bytes)
pub type Key = universal_hash::Key<GHash>;

/// GHASH blocks (16-bytes)
pub type Block = universal_hash::Block<GHash>;

/// GHASH tags (16-bytes)
pub type Tag = universal_hash::Block<GHash>;

/// A block of universal-hash 0.6 (ghash-ct's).
type Block06 = Array<u8, U16>;

const _: () = {
    assert!(core::mem::size_of::<Block>() == 16 && core::mem::align_of::<Block>() == 1);
    assert!(core::mem::size_of::<Block06>() == 16 && core::mem::align_of::<Block06>() == 1);
};

/// Re-type a block reference.
#[inline(always)]
fn block06(b: &Block) -> &Block06 {
    // SAFETY: both are 16 bytes with alignment 1 and the layout of
    // `[u8; 16]` (asserted above); the borrow keeps its lifetime.
    unsafe { &*(b as *const Block).cast::<Block06>() }
}

/// Re-type a slice of blocks.
#[inline(always)]
fn blocks06(b: &[Block]) -> &[Block06] {
    // SAFETY: as `block06`, element by element; same length and lifetime.
    unsafe { core::slice::from_raw_parts(b.as_ptr().cast::<Block06>(), b.len()) }
}

/// The 16-byte H as ghash-ct's key type (a borrow, no copy of the secret).
#[inline(always)]
fn key06(h: &Key) -> &Block06 {
    block06(h)
}

/// **GHASH**: universal hash over GF(2^128) used by AES-GCM.
///
/// GHASH is a universal hash function used for message authentication in
/// the AES-GCM authenticated encryption cipher.
#[derive(Clone)]
pub struct GHash(ghash_ct::GHash);

impl KeySizeUser for GHash {
    type KeySize = U16;
}

impl GHash {
    /// Initialize GHASH with the given `H` field element and initial block
    #[inline]
    pub fn new_with_init_block(h: &Key, init_block: u128) -> Self {
        // Upstream's backends disagree on the argument's byte order (its
        // CLMUL and PMULL ones load `init_block.to_be_bytes()` as the state
        // block, its soft ones other orders); this follows the hardware
        // ones, what most callers get.
        let state = u128::from_le_bytes(init_block.to_be_bytes());
        Self(ghash_ct::GHash::new_with_init_block(key06(h), state))
    }

    /// The ghash-ct hasher this one forwards to (its backend, and the
    /// universal-hash 0.6 traits).
    pub fn as_ghash_ct(&self) -> &ghash_ct::GHash {
        &self.0
    }
}

impl KeyInit for GHash {
    /// Initialize GHASH with the given `H` field element
    #[inline]
    fn new(h: &Key) -> Self {
        Self(<ghash_ct::GHash as ghash_ct::universal_hash::KeyInit>::new(
            key06(h),
        ))
    }
}

impl BlockSizeUser for GHash {
    type BlockSize = U16;
}

/// A universal-hash 0.5 closure as a 0.6 closure.
struct Closure<C>(C);

impl<C: UhfClosure<BlockSize = U16>> ghash_ct::universal_hash::common::BlockSizeUser
    for Closure<C>
{
    type BlockSize = U16;
}

impl<C: UhfClosure<BlockSize = U16>> UhfClosure06 for Closure<C> {
    #[inline(always)]
    fn call<B: UhfBackend06<BlockSize = U16>>(self, backend: &mut B) {
        self.0.call(&mut Adapter(backend))
    }
}

/// A universal-hash 0.6 backend as a 0.5 backend: batches of 8 blocks
/// become the backend's own batches, the rest single blocks.
struct Adapter<'a, B>(&'a mut B);

impl<B> BlockSizeUser for Adapter<'_, B> {
    type BlockSize = U16;
}

impl<B> ParBlocksSizeUser for Adapter<'_, B> {
    type ParBlocksSize = U8;
}

impl<B: UhfBackend06<BlockSize = U16>> UhfBackend for Adapter<'_, B> {
    #[inline(always)]
    fn proc_block(&mut self, block: &Block) {
        self.0.proc_block(block06(block))
    }

    #[inline(always)]
    fn proc_par_blocks(&mut self, blocks: &GenericArray<Block, U8>) {
        let (chunks, rest) = Array::slice_as_chunks(blocks06(blocks));
        for chunk in chunks {
            self.0.proc_par_blocks(chunk);
        }
        for b in rest {
            self.0.proc_block(b);
        }
    }

    #[inline(always)]
    fn blocks_needed_to_align(&self) -> usize {
        self.0.blocks_needed_to_align()
    }
}

impl UniversalHash for GHash {
    fn update_with_backend(&mut self, f: impl UhfClosure<BlockSize = Self::BlockSize>) {
        self.0.update_with_backend(Closure(f))
    }

    /// All blocks in one ghash-ct call.
    #[inline]
    fn update(&mut self, blocks: &[Block]) {
        self.0.update(blocks06(blocks))
    }

    #[inline]
    fn update_padded(&mut self, data: &[u8]) {
        self.0.update_padded(data)
    }

    /// Get GHASH output
    #[inline]
    fn finalize(self) -> Tag {
        Tag::from(<[u8; 16]>::from(self.0.finalize()))
    }
}

impl Reset for GHash {
    fn reset(&mut self) {
        ghash_ct::universal_hash::Reset::reset(&mut self.0)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Upstream's meaning of the initial block on its CLMUL / PMULL
    /// backends: the starting state, so with no input it is the output, and
    /// absorbing X from it equals absorbing `state XOR X` from zero.
    #[test]
    fn init_block_is_the_starting_state() {
        let h = Key::from([7u8; 16]);
        let init = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210u128;
        let state = init.to_le_bytes();
        assert_eq!(
            GHash::new_with_init_block(&h, init).finalize(),
            Block::from(state)
        );
        let x = [0x5au8; 16];
        let mut a = GHash::new_with_init_block(&h, init);
        a.update(&[x.into()]);
        let mut b = GHash::new(&h);
        let mixed: [u8; 16] = core::array::from_fn(|i| x[i] ^ state[i]);
        b.update(&[mixed.into()]);
        assert_eq!(a.finalize(), b.finalize());
    }
}
