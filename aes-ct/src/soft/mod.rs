//! Portable constant-time AES: bitsliced, no tables, no SIMD intrinsics.
//!
//! Technique: the state bits of several blocks are transposed into 8 bit
//! planes (one machine word each), so the S-box becomes a Boolean circuit
//! (Boyar-Peralta) and ShiftRows / MixColumns become shifts, rotations and
//! XORs on whole words. Layout after BearSSL's `aes_ct64` (T. Pornin,
//! "Constant-time AES", bearssl.org/constanttime.html), written anew and
//! generalised over the word width: 4 blocks per `u64` on 64-bit targets,
//! 2 blocks per `u32` on 32-bit targets. Encryption is fixsliced (Adomnicai
//! and Peyrin, TCHES 2021(1)): ShiftRows is never computed, MixColumns is
//! specialised for the 4 possible row offsets, round keys are pre-rotated.
//!
//! Cost per round and word: 109 gates of S-box (its 0x63 constant is folded
//! into the round keys), 2 to 10 operations of rotation/masking and 35 XORs
//! of MixColumns; about 35 operations per byte for AES-128 on 64-bit words,
//! plus the transposition in and out. One block costs as much as a whole
//! batch (the unused slots are zero). Decryption is the straight inverse
//! cipher (13 operations of InvShiftRows per word and round).
//!
//! Key form: the bitsliced round keys for one word (each round key
//! replicated in every block slot) in plain form for decryption and
//! pre-rotated for encryption, computed once at key setup.

pub(crate) mod bitslice;
pub(crate) mod word;

use crate::{backend::Engine, schedule::Schedule};
use cipher::{
    Block, BlockCipherDecBackend, BlockCipherDecClosure, BlockCipherEncBackend,
    BlockCipherEncClosure, BlockSizeUser, ParBlocks, ParBlocksSizeUser, consts::U16, inout::InOut,
};
use word::Word;
use zeroize::Zeroize;

#[cfg(target_pointer_width = "64")]
type W = u64;
#[cfg(not(target_pointer_width = "64"))]
type W = u32;

/// Blocks in one [`Pair`] of words.
/// Blocks in one word.
#[cfg(target_pointer_width = "64")]
type ParSize = cipher::consts::U4;
#[cfg(not(target_pointer_width = "64"))]
type ParSize = cipher::consts::U2;

/// The portable backend (always available: its token is `()`-like).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Soft;

/// Bitsliced round keys.
#[derive(Clone)]
pub(crate) struct Key<const NR: usize> {
    /// Round keys for decryption (plain bitsliced form).
    rk: [[W; 8]; 15],
    /// Round keys for encryption (pre-rotated for fixslicing).
    erk: [[W; 8]; 15],
}

impl<const NR: usize> Drop for Key<NR> {
    fn drop(&mut self) {
        self.rk.zeroize();
        self.erk.zeroize();
    }
}

impl<const NR: usize> Key<NR> {
    pub(crate) fn new(ks: &Schedule<NR>) -> Self {
        let mut rk = [[W::default(); 8]; 15];
        let mut erk = [[W::default(); 8]; 15];
        for i in 0..=NR {
            rk[i] = W::load(|_| *ks.rk(i));
            erk[i] = bitslice::fixslice_key(rk[i], i);
        }
        Key { rk, erk }
    }

    /// Encrypt or decrypt one batch of bit planes in place.
    #[inline(always)]
    fn crypt(&self, q: &mut [W; 8], decrypt: bool) {
        if decrypt {
            bitslice::decrypt::<W, NR>(q, |i| self.rk[i]);
        } else {
            bitslice::encrypt::<W, NR>(q, |i| self.erk[i]);
        }
    }
}

/// Wipe a bitsliced state (a few volatile word stores).
#[inline(always)]
fn wipe<V: Word>(q: &mut [V; 8]) {
    // SAFETY: `q` is valid for writes; a `Word` is a plain integer or
    // vector, for which zero bytes are a valid value.
    unsafe { ct_dispatch::wipe::wipe_bytes(q) };
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
                let b: [u8; 16] = block.clone_in().into();
                let mut q = W::load(|j| if j == 0 { b } else { [0u8; 16] });
                self.key.crypt(&mut q, $dec);
                let out = block.get_out();
                W::store(&q, |j, v| {
                    if j == 0 {
                        *out = v.into()
                    }
                });
                wipe(&mut q);
            }

            #[inline(always)]
            fn $par(&self, mut blocks: InOut<'_, '_, ParBlocks<Self>>) {
                // Read everything before writing: `in` and `out` may alias.
                let inp = blocks.get_in();
                let mut q = W::load(|j| inp[j].into());
                self.key.crypt(&mut q, $dec);
                let out = blocks.get_out();
                W::store(&q, |j, v| out[j] = v.into());
                wipe(&mut q);
            }
        }
    };
}
impl_dir!(
    BlockCipherEncBackend,
    encrypt_block,
    encrypt_par_blocks,
    false
);
impl_dir!(
    BlockCipherDecBackend,
    decrypt_block,
    decrypt_par_blocks,
    true
);
