//! The universal-hash 0.5 face of a ghash-ct hasher, written once for this
//! crate's `Polyval` and the `ghash` 0.5 facade's `GHash` (which depends on
//! this crate, as upstream `ghash` 0.5 does on `polyval` 0.6): block
//! re-typing, adapters between universal-hash 0.5 closures/backends and
//! ghash-ct's universal-hash 0.6 ones, and [`hasher!`](crate::hasher), the
//! type and its trait impls. Not part of upstream's API.

pub use ghash_ct;

use ghash_ct::universal_hash::{
    array::Array, UhfBackend as UhfBackend06, UhfClosure as UhfClosure06,
};
use universal_hash::{
    consts::{U16, U8},
    crypto_common::{BlockSizeUser, ParBlocksSizeUser},
    generic_array::GenericArray,
    UhfBackend, UhfClosure,
};

/// A universal-hash 0.5 block (the facades' `Block`, `Key`, `Tag`).
pub type Block = GenericArray<u8, U16>;

/// A block of universal-hash 0.6 (ghash-ct's).
pub type Block06 = Array<u8, U16>;

const _: () = {
    assert!(core::mem::size_of::<Block>() == 16 && core::mem::align_of::<Block>() == 1);
    assert!(core::mem::size_of::<Block06>() == 16 && core::mem::align_of::<Block06>() == 1);
};

/// Re-type a block reference (also the 16-byte H as ghash-ct's key type:
/// a borrow, no copy of the secret).
#[inline(always)]
pub fn block06(b: &Block) -> &Block06 {
    // SAFETY: both are 16 bytes with alignment 1 and the layout of
    // `[u8; 16]` (asserted above); the borrow keeps its lifetime.
    unsafe { &*(b as *const Block).cast::<Block06>() }
}

/// Re-type a slice of blocks.
#[inline(always)]
pub fn blocks06(b: &[Block]) -> &[Block06] {
    // SAFETY: as `block06`, element by element; same length and lifetime.
    unsafe { core::slice::from_raw_parts(b.as_ptr().cast::<Block06>(), b.len()) }
}

/// Upstream `new_with_init_block`'s argument as ghash-ct's initial state.
/// Upstream's backends disagree on its byte order (its CLMUL and PMULL ones
/// load `init_block.to_be_bytes()` as the state block, its soft ones other
/// orders); this follows the hardware ones, what most callers get.
#[inline(always)]
pub fn init_state(init_block: u128) -> u128 {
    u128::from_le_bytes(init_block.to_be_bytes())
}

/// A universal-hash 0.5 closure as a 0.6 closure.
pub struct Closure<C>(pub C);

impl<C> core::fmt::Debug for Closure<C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Closure")
    }
}

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

/// `hasher!(Name(ghash_ct::Type), "ALG")`: upstream's `Key`, `Block`,
/// `Tag` and the facade type `Name` holding a ghash-ct hasher, with upstream's `KeyInit`, `new_with_init_block`,
/// `UniversalHash` (closures through the adapters above; `update` and
/// `update_padded` in one ghash-ct call), `Reset`, `Clone`, a `Debug`
/// without secrets, `as_ghash_ct`, and `ZeroizeOnDrop` under the calling
/// crate's `zeroize` feature (the hasher inside wipes its key powers and
/// state on drop either way).
#[doc(hidden)]
#[macro_export]
macro_rules! hasher {
    ($(#[$doc:meta])* $name:ident($inner:ty), $alg:literal) => {
        #[doc = concat!($alg, " keys (16-bytes)")]
        pub type Key = $crate::universal_hash::Key<$name>;

        #[doc = concat!($alg, " blocks (16-bytes)")]
        pub type Block = $crate::universal_hash::Block<$name>;

        #[doc = concat!($alg, " tags (16-bytes)")]
        pub type Tag = $crate::universal_hash::Block<$name>;

        $(#[$doc])*
        #[derive(Clone)]
        pub struct $name($inner);

        impl $crate::universal_hash::crypto_common::KeySizeUser for $name {
            type KeySize = $crate::universal_hash::consts::U16;
        }

        impl $crate::universal_hash::crypto_common::BlockSizeUser for $name {
            type BlockSize = $crate::universal_hash::consts::U16;
        }

        impl $name {
            #[doc = concat!("Initialize ", $alg, " with the given `H` field element and initial block")]
            #[inline]
            pub fn new_with_init_block(h: &$crate::bridge::Block, init_block: u128) -> Self {
                let state = $crate::bridge::init_state(init_block);
                Self(<$inner>::new_with_init_block($crate::bridge::block06(h), state))
            }

            /// The ghash-ct hasher this one forwards to (its backend, and the
            /// universal-hash 0.6 traits).
            pub fn as_ghash_ct(&self) -> &$inner {
                &self.0
            }
        }

        impl $crate::universal_hash::KeyInit for $name {
            #[doc = concat!("Initialize ", $alg, " with the given `H` field element")]
            #[inline]
            fn new(h: &$crate::bridge::Block) -> Self {
                Self(<$inner as $crate::bridge::ghash_ct::universal_hash::KeyInit>::new(
                    $crate::bridge::block06(h),
                ))
            }
        }

        impl $crate::universal_hash::UniversalHash for $name {
            fn update_with_backend(
                &mut self,
                f: impl $crate::universal_hash::UhfClosure<BlockSize = Self::BlockSize>,
            ) {
                $crate::bridge::ghash_ct::universal_hash::UniversalHash::update_with_backend(
                    &mut self.0,
                    $crate::bridge::Closure(f),
                )
            }

            /// All blocks in one ghash-ct call.
            #[inline]
            fn update(&mut self, blocks: &[$crate::bridge::Block]) {
                $crate::bridge::ghash_ct::universal_hash::UniversalHash::update(
                    &mut self.0,
                    $crate::bridge::blocks06(blocks),
                )
            }

            #[inline]
            fn update_padded(&mut self, data: &[u8]) {
                $crate::bridge::ghash_ct::universal_hash::UniversalHash::update_padded(
                    &mut self.0,
                    data,
                )
            }

            #[doc = concat!("Get ", $alg, " output")]
            #[inline]
            fn finalize(self) -> $crate::bridge::Block {
                let tag = $crate::bridge::ghash_ct::universal_hash::UniversalHash::finalize(self.0);
                $crate::bridge::Block::from(<[u8; 16]>::from(tag))
            }
        }

        impl $crate::universal_hash::Reset for $name {
            fn reset(&mut self) {
                $crate::bridge::ghash_ct::universal_hash::Reset::reset(&mut self.0)
            }
        }

        impl core::fmt::Debug for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                write!(f, concat!(stringify!($name), " {{ backend: {}, .. }}"), self.0.backend())
            }
        }

        /// The ghash-ct hasher inside wipes its key powers and state on drop.
        #[cfg(feature = "zeroize")]
        impl zeroize::ZeroizeOnDrop for $name {}
    };
}
