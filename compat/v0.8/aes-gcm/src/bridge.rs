//! A cipher 0.4 block cipher seen through cipher 0.5's `BlockCipherEncrypt`,
//! so aes-gcm-ct's generic path can run over it.
//!
//! One cipher 0.5 call (`encrypt_with_backend(f)`, which aes-gcm-ct makes
//! once per message) becomes one cipher 0.4 call of the caller's cipher:
//! [`Cipher05`] wraps the 0.5 closure, and when the cipher hands over its
//! 0.4 backend the closure gets an adapter over it. The adapter regroups
//! blocks (0.5 batches of 8 become the 0.4 backend's own batches plus one
//! tail call) and re-types pointers; the blocks go through the caller's
//! cipher only.
//!
//! The two generations' block types are both 16 bytes laid out as
//! `[u8; 16]` (asserted below); the `inout` pointer pairs keep their
//! contract (valid, and either equal or disjoint) when re-typed.

use cipher::{
    consts::{U16, U8},
    generic_array::GenericArray,
    inout as inout01, BlockBackend, BlockClosure, BlockEncrypt, BlockSizeUser,
};
use cipher05::{
    array::Array, inout as inout02, BlockCipherEncBackend, BlockCipherEncClosure,
    BlockCipherEncrypt, ParBlocksSizeUser,
};
use core::cell::RefCell;

type Block04 = GenericArray<u8, U16>;
type Block05 = Array<u8, U16>;

const _: () = {
    assert!(core::mem::size_of::<Block04>() == 16 && core::mem::align_of::<Block04>() == 1);
    assert!(core::mem::size_of::<Block05>() == 16 && core::mem::align_of::<Block05>() == 1);
};

/// A cipher 0.4 block cipher as a cipher 0.5 `BlockCipherEncrypt`.
#[derive(Clone)]
pub(crate) struct Cipher05<Aes>(pub(crate) Aes);

impl<Aes> cipher05::BlockSizeUser for Cipher05<Aes> {
    type BlockSize = U16;
}

impl<Aes: BlockEncrypt + BlockSizeUser<BlockSize = U16>> BlockCipherEncrypt for Cipher05<Aes> {
    #[inline]
    fn encrypt_with_backend(&self, f: impl BlockCipherEncClosure<BlockSize = U16>) {
        self.0.encrypt_with_backend(Closure04(f))
    }
}

/// A cipher 0.5 closure as a cipher 0.4 closure.
struct Closure04<F>(F);

impl<F: BlockCipherEncClosure<BlockSize = U16>> BlockSizeUser for Closure04<F> {
    type BlockSize = U16;
}

impl<F: BlockCipherEncClosure<BlockSize = U16>> BlockClosure for Closure04<F> {
    #[inline(always)]
    fn call<B: BlockBackend<BlockSize = U16>>(self, backend: &mut B) {
        self.0.call(&Backend05(RefCell::new(backend)))
    }
}

/// A cipher 0.4 backend (`&mut self` methods) as a cipher 0.5 backend
/// (`&self`): the cell hands out the one mutable borrow per call; no method
/// re-enters another, so a borrow never meets an outstanding one.
struct Backend05<'a, B>(RefCell<&'a mut B>);

impl<B> cipher05::BlockSizeUser for Backend05<'_, B> {
    type BlockSize = U16;
}

impl<B> ParBlocksSizeUser for Backend05<'_, B> {
    type ParBlocksSize = U8;
}

impl<B: BlockBackend<BlockSize = U16>> BlockCipherEncBackend for Backend05<'_, B> {
    #[inline(always)]
    fn encrypt_block(&self, block: inout02::InOut<'_, '_, Block05>) {
        let (i, o) = block.into_raw();
        // SAFETY: the pointers come from a live `InOut` of the same
        // lifetimes (valid, equal or disjoint, as `from_raw` requires) and
        // point to 16-byte, align-1 values of one layout (asserted above).
        let block = unsafe { inout01::InOut::from_raw(i.cast::<Block04>(), o.cast::<Block04>()) };
        self.0.borrow_mut().proc_block(block)
    }

    #[inline(always)]
    fn encrypt_par_blocks(&self, blocks: inout02::InOut<'_, '_, Array<Block05, U8>>) {
        self.encrypt_tail_blocks(blocks.into_buf())
    }

    /// Any number of blocks: the 0.4 backend's whole batches, then its tail
    /// call (which requires fewer than one batch).
    #[inline(always)]
    fn encrypt_tail_blocks(&self, blocks: inout02::InOutBuf<'_, '_, Block05>) {
        let len = blocks.len();
        let (i, o) = blocks.into_raw();
        // SAFETY: as in `encrypt_block`, for `len` consecutive blocks that
        // were one slice (so `len * 16` fits in `isize`).
        let blocks =
            unsafe { inout01::InOutBuf::from_raw(i.cast::<Block04>(), o.cast::<Block04>(), len) };
        let mut b = self.0.borrow_mut();
        let (chunks, tail) = blocks.into_chunks::<B::ParBlocksSize>();
        for chunk in chunks {
            b.proc_par_blocks(chunk);
        }
        if !tail.is_empty() {
            b.proc_tail_blocks(tail);
        }
    }
}
