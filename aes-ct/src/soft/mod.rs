//! Portable constant-time AES: bitsliced, no tables, no SIMD intrinsics.
//!
//! Technique: the state bits of several blocks are transposed into 8 bit
//! planes (one machine word each), so the S-box becomes a Boolean circuit
//! (Boyar-Peralta) and ShiftRows / MixColumns become shifts, rotations and
//! XORs on whole words. Layout after BearSSL's `aes_ct64` (T. Pornin,
//! "Constant-time AES", bearssl.org/constanttime.html), written anew and
//! generalised over the word width: 4 blocks per `u64` on 64-bit targets,
//! 2 blocks per `u32` on 32-bit targets; bulk work uses a [`Pair`] of words
//! (8 or 4 blocks) which LLVM vectorises where 128-bit SIMD exists.
//!
//! Cost: per round and word, ~115 gates of S-box, ~19 ops of ShiftRows and
//! ~9 of MixColumns; about 45 ops per byte for 4-block batches of AES-128.
//! One block costs as much as a whole batch (the unused slots are zero).
//!
//! Key form: the bitsliced round keys for one word (each round key
//! replicated in every block slot), computed once at key setup.

pub(crate) mod bitslice;
pub(crate) mod word;

use crate::{backend::Engine, schedule::Schedule};
use cipher::{
    Block, BlockCipherDecBackend, BlockCipherDecClosure, BlockCipherEncBackend,
    BlockCipherEncClosure, BlockSizeUser, ParBlocks, ParBlocksSizeUser, consts::U16, inout::InOut,
};
use word::{Pair, Word};
use zeroize::Zeroize;

#[cfg(target_pointer_width = "64")]
type W = u64;
#[cfg(not(target_pointer_width = "64"))]
type W = u32;

/// Blocks in one [`Pair`] of words.
#[cfg(target_pointer_width = "64")]
type ParSize = cipher::consts::U8;
#[cfg(not(target_pointer_width = "64"))]
type ParSize = cipher::consts::U4;

/// The portable backend (always available: its token is `()`-like).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Soft;

/// Bitsliced round keys.
#[derive(Clone)]
pub(crate) struct Key<const NR: usize> {
    rk: [[W; 8]; 15],
}

impl<const NR: usize> Drop for Key<NR> {
    fn drop(&mut self) {
        self.rk.zeroize();
    }
}

impl<const NR: usize> Key<NR> {
    pub(crate) fn new(ks: &Schedule<NR>) -> Self {
        let mut rk = [[W::default(); 8]; 15];
        let mut rep = [[0u8; 16]; 4];
        for (i, k) in rk.iter_mut().enumerate().take(NR + 1) {
            rep[..W::BLOCKS].fill(*ks.rk(i));
            *k = W::load(&rep[..W::BLOCKS]);
        }
        rep.zeroize();
        Key { rk }
    }

    /// Encrypt `W::BLOCKS` (or fewer) blocks.
    #[inline(always)]
    fn crypt_small(&self, block: &mut [u8; 16], decrypt: bool) {
        let mut b = [[0u8; 16]; 4];
        b[0] = *block;
        let mut q = W::load(&b[..W::BLOCKS]);
        if decrypt {
            bitslice::decrypt::<W, NR>(&mut q, |i| self.rk[i]);
        } else {
            bitslice::encrypt::<W, NR>(&mut q, |i| self.rk[i]);
        }
        W::store(&q, &mut b[..W::BLOCKS]);
        *block = b[0];
        q.zeroize();
        b.zeroize();
    }

    #[inline(always)]
    fn crypt_par(&self, blocks: &mut [[u8; 16]], decrypt: bool) {
        let mut q = Pair::<W>::load(blocks);
        if decrypt {
            bitslice::decrypt::<Pair<W>, NR>(&mut q, |i| self.rk[i].map(Pair::splat));
        } else {
            bitslice::encrypt::<Pair<W>, NR>(&mut q, |i| self.rk[i].map(Pair::splat));
        }
        Pair::<W>::store(&q, blocks);
        for p in q.iter_mut() {
            p.0.zeroize();
        }
    }
}

impl Engine for Soft {
    type Token = Soft;
    type Key<const NR: usize> = Key<NR>;

    fn token() -> Option<Soft> {
        Some(Soft)
    }

    fn expand<const NR: usize>(_: Soft, ks: &Schedule<NR>) -> Key<NR> {
        Key::new(ks)
    }

    fn encrypt<const NR: usize>(key: &Key<NR>, f: impl BlockCipherEncClosure<BlockSize = U16>) {
        f.call(&Batch { key })
    }

    fn decrypt<const NR: usize>(key: &Key<NR>, f: impl BlockCipherDecClosure<BlockSize = U16>) {
        f.call(&Batch { key })
    }
}

/// The cipher-trait backend handed to closures.
struct Batch<'a, const NR: usize> {
    key: &'a Key<NR>,
}

impl<const NR: usize> BlockSizeUser for Batch<'_, NR> {
    type BlockSize = U16;
}

impl<const NR: usize> ParBlocksSizeUser for Batch<'_, NR> {
    type ParBlocksSize = ParSize;
}


macro_rules! impl_dir {
    ($tr:ident, $one:ident, $par:ident, $dec:expr) => {
        impl<const NR: usize> $tr for Batch<'_, NR> {
            #[inline(always)]
            fn $one(&self, mut block: InOut<'_, '_, Block<Self>>) {
                let mut b: [u8; 16] = block.clone_in().into();
                self.key.crypt_small(&mut b, $dec);
                *block.get_out() = b.into();
                b.zeroize();
            }

            #[inline(always)]
            fn $par(&self, mut blocks: InOut<'_, '_, ParBlocks<Self>>) {
                let mut b = [[0u8; 16]; 8];
                let n = <ParSize as cipher::typenum::Unsigned>::USIZE;
                for (d, s) in b.iter_mut().zip(blocks.get_in().iter()) {
                    *d = (*s).into();
                }
                self.key.crypt_par(&mut b[..n], $dec);
                for (d, s) in blocks.get_out().iter_mut().zip(b.iter()) {
                    *d = (*s).into();
                }
                b.zeroize();
            }
        }
    };
}
impl_dir!(BlockCipherEncBackend, encrypt_block, encrypt_par_blocks, false);
impl_dir!(BlockCipherDecBackend, decrypt_block, decrypt_par_blocks, true);
