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
//! Key form: the standard round keys. Each `encrypt_with_backend` /
//! `decrypt_with_backend` call converts them to the bitsliced round keys
//! of its direction for one word (each round key replicated in every block
//! slot; plain for decryption, pre-rotated for encryption) on the stack,
//! wiped when the call ends: 11 to 15 transposes and key rotations, about
//! one batch's cost, once per call (a lone block costs about two batches).

pub(crate) mod bitslice;
pub(crate) mod word;

use crate::{backend::Engine, schedule::Schedule};
use cipher::{
    Block, BlockCipherDecBackend, BlockCipherDecClosure, BlockCipherEncBackend,
    BlockCipherEncClosure, BlockSizeUser, ParBlocks, ParBlocksSizeUser, consts::U16, inout::InOut,
};
use word::Word;

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

/// The long-term key: the standard round keys (240 bytes, the smallest
/// form; the bitsliced one is four (64-bit) or two (32-bit) times larger
/// and would set the size of every key).
#[derive(Clone)]
pub(crate) struct Key<const NR: usize> {
    rk: [[u8; 16]; 15],
}

impl<const NR: usize> Drop for Key<NR> {
    fn drop(&mut self) {
        ct_dispatch::wipe::wipe(&mut self.rk);
    }
}

/// Bitsliced round keys of one direction (each round key replicated in
/// every block slot), made for one call on the stack and wiped with it:
/// plain for decryption, pre-rotated for fixsliced encryption.
struct Planes<const NR: usize> {
    rk: [[W; 8]; 15],
    decrypt: bool,
}

impl<const NR: usize> Drop for Planes<NR> {
    fn drop(&mut self) {
        ct_dispatch::wipe::wipe(&mut self.rk);
    }
}

impl<const NR: usize> Planes<NR> {
    /// Convert `key` for one direction (`decrypt`: the caller's code path,
    /// not data). Round keys `NR + 1..15` stay zero.
    #[inline(always)]
    fn new(key: &Key<NR>, decrypt: bool) -> Self {
        let mut p = Planes {
            rk: [[W::default(); 8]; 15],
            decrypt,
        };
        for i in 0..=NR {
            let q = W::load(|_| key.rk[i]);
            p.rk[i] = if decrypt {
                q
            } else {
                bitslice::fixslice_key(q, i)
            };
        }
        p
    }

    /// Encrypt or decrypt (this form's direction) one batch of bit planes
    /// in place.
    #[inline(always)]
    fn crypt(&self, q: &mut [W; 8]) {
        if self.decrypt {
            bitslice::decrypt::<W, NR>(q, |i| self.rk[i]);
        } else {
            bitslice::encrypt::<W, NR>(q, |i| self.rk[i]);
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
        Key { rk: ks.enc }
    }

    /// One conversion per call, kept for every batch of it.
    fn encrypt<const NR: usize>(key: &Key<NR>, f: impl BlockCipherEncClosure<BlockSize = U16>) {
        let key = Planes::new(key, false);
        f.call(&Batch { key: &key })
    }

    fn decrypt<const NR: usize>(key: &Key<NR>, f: impl BlockCipherDecClosure<BlockSize = U16>) {
        let key = Planes::new(key, true);
        f.call(&Batch { key: &key })
    }
}

/// The cipher-trait backend handed to closures.
struct Batch<'a, const NR: usize> {
    key: &'a Planes<NR>,
}

impl<const NR: usize> BlockSizeUser for Batch<'_, NR> {
    type BlockSize = U16;
}

impl<const NR: usize> ParBlocksSizeUser for Batch<'_, NR> {
    type ParBlocksSize = ParSize;
}

macro_rules! impl_dir {
    ($tr:ident, $one:ident, $par:ident) => {
        impl<const NR: usize> $tr for Batch<'_, NR> {
            #[inline(always)]
            fn $one(&self, mut block: InOut<'_, '_, Block<Self>>) {
                let b: [u8; 16] = block.clone_in().into();
                let mut q = W::load(|j| if j == 0 { b } else { [0u8; 16] });
                self.key.crypt(&mut q);
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
                self.key.crypt(&mut q);
                let out = blocks.get_out();
                W::store(&q, |j, v| out[j] = v.into());
                wipe(&mut q);
            }
        }
    };
}
impl_dir!(BlockCipherEncBackend, encrypt_block, encrypt_par_blocks);
impl_dir!(BlockCipherDecBackend, decrypt_block, decrypt_par_blocks);
