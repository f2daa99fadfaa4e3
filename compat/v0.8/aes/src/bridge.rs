//! cipher 0.5 backends seen through cipher 0.4's `BlockBackend`.
//!
//! A cipher 0.4 call (`encrypt_with_backend(f)`) becomes exactly one
//! cipher 0.5 call on the aes-ct key: [`Enc`]/[`Dec`] wrap the 0.4 closure
//! `f`, and when aes-ct hands them its backend they give `f` an adapter
//! over it. So a key form that is converted per call (the hybrid's
//! bitsliced key) is converted once per 0.4 call, as with aes-ct's own
//! traits, and every block goes through aes-ct's code: the adapter only
//! regroups blocks (0.4 batches of [`ParBlocks04`] become the backend's own
//! batches plus one tail call) and re-types pointers.
//!
//! The two generations' block types are both 16 bytes laid out as
//! `[u8; 16]` (generic-array's `GenericArray` and hybrid-array's `Array`
//! are `repr(transparent)` over it, asserted below); the `inout` pointer
//! pairs keep their contract (valid, and either equal or disjoint) when
//! re-typed.

use cipher::{
    consts::{U16, U32},
    generic_array::GenericArray,
    inout as inout01, BlockBackend, BlockClosure, BlockSizeUser, ParBlocksSizeUser,
};
use cipher05::{
    array::Array, inout as inout02, BlockCipherDecBackend, BlockCipherDecClosure,
    BlockCipherEncBackend, BlockCipherEncClosure,
};

/// A block of cipher 0.4 (`GenericArray`).
pub(crate) type Block04 = GenericArray<u8, U16>;
/// A block of cipher 0.5 (`Array`).
type Block05 = Array<u8, U16>;
/// How many blocks a 0.4 caller gets to hand over at once: 32, the widest
/// batch of any aes-ct backend (VAES on AVX-512), so callers that fill
/// `ParBlocks` (ctr 0.9's keystream, cbc 0.1's decryption) give every
/// backend whole batches.
pub(crate) type ParBlocks04 = U32;

const _: () = {
    assert!(core::mem::size_of::<Block04>() == 16 && core::mem::align_of::<Block04>() == 1);
    assert!(core::mem::size_of::<Block05>() == 16 && core::mem::align_of::<Block05>() == 1);
};

/// Re-type one block pair.
#[inline(always)]
pub(crate) fn inout<'i, 'o>(b: inout01::InOut<'i, 'o, Block04>) -> inout02::InOut<'i, 'o, Block05> {
    let (i, o) = b.into_raw();
    // SAFETY: the pointers come from a live `InOut` of the same lifetimes
    // (valid, equal or disjoint, as `from_raw` requires) and point to
    // 16-byte, align-1 values of the same layout (asserted above).
    unsafe { inout02::InOut::from_raw(i.cast(), o.cast()) }
}

/// Re-type a buffer of block pairs.
#[inline(always)]
pub(crate) fn inout_buf<'i, 'o>(
    b: inout01::InOutBuf<'i, 'o, Block04>,
) -> inout02::InOutBuf<'i, 'o, Block05> {
    let len = b.len();
    let (i, o) = b.into_raw();
    // SAFETY: as in `inout`, for `len` consecutive blocks of the same
    // layout; `len * 16` bytes were one slice, so it fits in `isize`.
    unsafe { inout02::InOutBuf::from_raw(i.cast(), o.cast(), len) }
}

macro_rules! bridge {
    ($closure:ident, $adapter:ident, $cl05:ident, $be05:ident, $one:ident, $par:ident, $tail:ident) => {
        /// A cipher 0.4 closure as a cipher 0.5 closure.
        pub(crate) struct $closure<F>(pub(crate) F);

        impl<F: BlockClosure<BlockSize = U16>> cipher05::BlockSizeUser for $closure<F> {
            type BlockSize = U16;
        }

        impl<F: BlockClosure<BlockSize = U16>> $cl05 for $closure<F> {
            #[inline(always)]
            fn call<B: $be05<BlockSize = U16>>(self, backend: &B) {
                self.0.call(&mut $adapter(backend))
            }
        }

        /// A cipher 0.5 backend as a cipher 0.4 backend.
        struct $adapter<'a, B>(&'a B);

        impl<B> BlockSizeUser for $adapter<'_, B> {
            type BlockSize = U16;
        }

        impl<B> ParBlocksSizeUser for $adapter<'_, B> {
            type ParBlocksSize = ParBlocks04;
        }

        impl<B: $be05<BlockSize = U16>> BlockBackend for $adapter<'_, B> {
            #[inline(always)]
            fn proc_block(&mut self, block: inout01::InOut<'_, '_, Block04>) {
                self.0.$one(inout(block))
            }

            #[inline(always)]
            fn proc_par_blocks(
                &mut self,
                blocks: inout01::InOut<'_, '_, GenericArray<Block04, ParBlocks04>>,
            ) {
                self.proc_tail_blocks(blocks.into_buf())
            }

            /// Any number of blocks (also the 0.4 tail, fewer than 32):
            /// the backend's whole batches, then its tail call.
            #[inline(always)]
            fn proc_tail_blocks(&mut self, blocks: inout01::InOutBuf<'_, '_, Block04>) {
                let (chunks, tail) = inout_buf(blocks).into_chunks::<B::ParBlocksSize>();
                for chunk in chunks {
                    self.0.$par(chunk);
                }
                if !tail.is_empty() {
                    self.0.$tail(tail);
                }
            }
        }
    };
}

bridge!(
    Enc,
    EncAdapter,
    BlockCipherEncClosure,
    BlockCipherEncBackend,
    encrypt_block,
    encrypt_par_blocks,
    encrypt_tail_blocks
);
bridge!(
    Dec,
    DecAdapter,
    BlockCipherDecClosure,
    BlockCipherDecBackend,
    decrypt_block,
    decrypt_par_blocks,
    decrypt_tail_blocks
);
