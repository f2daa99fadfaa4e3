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
//! Key form: the fixsliced encryption round keys, bitsliced and packed
//! after BearSSL's compressed `aes_ct64` key (`br_aes_ct64_keysched` /
//! `br_aes_ct64_skey_expand`): every block slot of a round-key plane would
//! hold the same bits, so one word set carries one round key per slot (4 per
//! `u64`, 2 per `u32`), 256 bytes for any key size. Each
//! `encrypt_with_backend` / `decrypt_with_backend` call unpacks the round
//! keys on the stack (per round key and plane: mask the slot, shift it to
//! slot 0, copy it to the other slots with 1 or 2 shift-ORs), wiped when
//! the call ends; no transposition per call. Encryption, the direction of
//! every CTR-based mode, uses them as they are; decryption undoes the
//! fixslicing per call (one row rotation and 4 NOTs per round key).

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

/// Blocks in one word.
#[cfg(target_pointer_width = "64")]
type ParSize = cipher::consts::U4;
#[cfg(not(target_pointer_width = "64"))]
type ParSize = cipher::consts::U2;

/// The portable backend (always available: its token is `()`-like).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Soft;

/// Round keys per packed word set: one per block slot.
const PACK: usize = <W as Word>::LANE_BLOCKS;
/// Packed word sets covering round keys `0..15` (the last slot is unused).
const PACKS: usize = 16 / PACK;
/// Bits of block slot 0 in a plane. `Word::load` puts byte `(r, c)` of
/// block `j` at bit `LANE_BLOCKS * c + j` of row `r`'s bit field, so slot
/// `j` is the bits at positions `j mod LANE_BLOCKS`: `0x55..` for `u32`,
/// `0x11..` for `u64`.
const SLOT0: u64 = u64::MAX / ((1 << PACK) - 1);

/// The long-term key: the fixsliced encryption round key `PACK * n + j`
/// (`bitslice::fixslice_key`) in block slot `j` of the bit planes `pk[n]`
/// (256 bytes; fully replicated planes would be four (64-bit) or two
/// (32-bit) times larger and set the size of every key).
#[derive(Clone)]
pub(crate) struct Key<const NR: usize> {
    pk: [[W; 8]; PACKS],
}

impl<const NR: usize> Drop for Key<NR> {
    fn drop(&mut self) {
        ct_dispatch::wipe::wipe(&mut self.pk);
    }
}

impl<const NR: usize> Key<NR> {
    /// Transpose and fixslice the round keys `0..=NR` one at a time and
    /// keep slot `i mod PACK` of round key `i` (fixslicing moves bits only
    /// between columns of a row, so slots stay apart; the slots of round
    /// keys past `NR` stay zero).
    fn pack(rk: &[[u8; 16]; 15]) -> Self {
        let mut pk = [[W::default(); 8]; PACKS];
        for (i, r) in rk.iter().enumerate().take(NR + 1) {
            let mut q = bitslice::fixslice_key(W::load(|_| *r), i);
            let m = W::splat_const(SLOT0 << (i % PACK));
            for (p, x) in pk[i / PACK].iter_mut().zip(q) {
                *p |= x & m;
            }
            wipe(&mut q);
        }
        Key { pk }
    }

    /// Fixsliced round key `i` (public) replicated in every block slot:
    /// masks and shifts only.
    #[inline(always)]
    fn unpack(&self, i: usize) -> [W; 8] {
        let j = (i % PACK) as u32;
        let m = W::splat_const(SLOT0 << j);
        self.pk[i / PACK].map(|x| {
            let mut x = (x & m).shr(j);
            let mut s = 1;
            while s < PACK as u32 {
                x = x | x.shl(s);
                s *= 2;
            }
            x
        })
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
            let q = key.unpack(i);
            p.rk[i] = if decrypt {
                bitslice::unfixslice_key(q, i)
            } else {
                q
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
        Key::pack(&ks.enc)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Both directions' per-call keys equal the transposed round keys
    /// (fixsliced for encryption) for every round index and key size, so
    /// the slot masks match `Word::load`'s layout and unfixslicing inverts
    /// fixslicing.
    fn planes_match_load<const NR: usize>() {
        let mut rk = [[0u8; 16]; 15];
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for b in rk.iter_mut().flatten() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            *b = x as u8;
        }
        let key = Key::<NR>::pack(&rk);
        let (enc, dec) = (Planes::new(&key, false), Planes::new(&key, true));
        for (i, r) in rk.iter().enumerate().take(NR + 1) {
            let plain = W::load(|_| *r);
            assert_eq!(dec.rk[i], plain, "NR {NR}, round key {i}");
            let fixed = bitslice::fixslice_key(plain, i);
            assert_eq!(enc.rk[i], fixed, "NR {NR}, round key {i}");
        }
    }

    #[test]
    fn planes_are_transposed_round_keys() {
        planes_match_load::<10>();
        planes_match_load::<12>();
        planes_match_load::<14>();
    }
}
