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

/// Size of a POLYVAL block in bytes
pub const BLOCK_SIZE: usize = 16;

/// Size of a POLYVAL key in bytes
pub const KEY_SIZE: usize = 16;

/// POLYVAL keys (16-bytes)
pub type Key = universal_hash::Key<Polyval>;

/// POLYVAL blocks (16-bytes)
pub type Block = universal_hash::Block<Polyval>;

/// POLYVAL tags (16-bytes)
pub type Tag = universal_hash::Block<Polyval>;

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

/// **POLYVAL**: GHASH-like universal hash over GF(2^128) (RFC 8452).
#[derive(Clone)]
pub struct Polyval(ghash_ct::Polyval);

impl KeySizeUser for Polyval {
    type KeySize = U16;
}

impl Polyval {
    /// Initialize POLYVAL with the given `H` field element and initial block
    #[inline]
    pub fn new_with_init_block(h: &Key, init_block: u128) -> Self {
        // Upstream's backends disagree on the argument's byte order (its
        // CLMUL and PMULL ones load `init_block.to_be_bytes()` as the state
        // block, its soft ones other orders); this follows the hardware
        // ones, what most callers get.
        let state = u128::from_le_bytes(init_block.to_be_bytes());
        Self(ghash_ct::Polyval::new_with_init_block(key06(h), state))
    }

    /// The ghash-ct hasher this one forwards to (its backend, and the
    /// universal-hash 0.6 traits).
    pub fn as_ghash_ct(&self) -> &ghash_ct::Polyval {
        &self.0
    }
}

impl KeyInit for Polyval {
    /// Initialize POLYVAL with the given `H` field element
    #[inline]
    fn new(h: &Key) -> Self {
        Self(<ghash_ct::Polyval as ghash_ct::universal_hash::KeyInit>::new(key06(h)))
    }
}

impl BlockSizeUser for Polyval {
    type BlockSize = U16;
}

/// The `mulX_POLYVAL()` function of RFC 8452 appendix A: multiply by x in
/// GF(2^128), ghash-ct's constant-time form (no branch on the top bit).
pub fn mulx(block: &Block) -> Block {
    Block::from(ghash_ct::mulx_polyval(&<[u8; 16]>::from(*block)))
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

impl UniversalHash for Polyval {
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

    /// Get POLYVAL output
    #[inline]
    fn finalize(self) -> Tag {
        Tag::from(<[u8; 16]>::from(self.0.finalize()))
    }
}

impl Reset for Polyval {
    fn reset(&mut self) {
        ghash_ct::universal_hash::Reset::reset(&mut self.0)
    }
}

impl fmt::Debug for Polyval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Polyval {{ backend: {}, .. }}", self.0.backend())
    }
}

/// The ghash-ct hasher inside wipes its key powers and state on drop.
#[cfg(feature = "zeroize")]
impl zeroize::ZeroizeOnDrop for Polyval {}

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

    /// Upstream's meaning of the initial block on its CLMUL / PMULL
    /// backends: the starting state, so with no input it is the output, and
    /// absorbing X from it equals absorbing `state XOR X` from zero.
    #[test]
    fn init_block_is_the_starting_state() {
        let h = Key::from([7u8; 16]);
        let init = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210u128;
        let state = init.to_be_bytes();
        assert_eq!(
            Polyval::new_with_init_block(&h, init).finalize(),
            Block::from(state)
        );
        let x = [0x5au8; 16];
        let mut a = Polyval::new_with_init_block(&h, init);
        a.update(&[x.into()]);
        let mut b = Polyval::new(&h);
        let mixed: [u8; 16] = core::array::from_fn(|i| x[i] ^ state[i]);
        b.update(&[mixed.into()]);
        assert_eq!(a.finalize(), b.finalize());
    }
}
