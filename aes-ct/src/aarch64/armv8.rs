//! AES with the ARMv8 Cryptography Extensions (`aese`/`aesmc`/`aesd`/`aesimc`).
//!
//! Technique: one `aese` + `aesmc` pair per round (AddRoundKey, SubBytes,
//! ShiftRows, then MixColumns), the equivalent inverse cipher for
//! decryption (FIPS-197 section 5.3.5: `aesd` + `aesimc` with the
//! InvMixColumns'ed round keys from [`Schedule::dec`]). Eight independent
//! blocks are interleaved round by round so the AES unit's latency is hidden
//! (ARM Cortex-A57/A72 software optimisation guides: `aese`/`aesmc` fuse and
//! pipeline, 3-cycle latency, 1/cycle throughput).
//!
//! Constant time: the AES instructions are data-independent; no tables.
//! Cost: 2 instructions per round and block, plus loads/stores.
//!
//! Key form: the encryption and decryption round keys as bytes, loaded into
//! NEON registers once per `encrypt_with_backend` call (that copy is wiped
//! when the call returns).

use crate::{backend::Engine, schedule::Schedule};
use cipher::{
    Block, BlockCipherDecBackend, BlockCipherDecClosure, BlockCipherEncBackend,
    BlockCipherEncClosure, BlockSizeUser, ParBlocks, ParBlocksSizeUser,
    consts::{U8, U16},
    inout::InOut,
};
use core::arch::aarch64::*;
use zeroize::Zeroize;

cpufeatures::new!(cpu_aes, "aes");

/// Proof that this CPU has the AES instructions.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ArmV8(());

/// Encryption and (equivalent inverse cipher) decryption round keys.
#[derive(Clone)]
pub(crate) struct Key<const NR: usize> {
    enc: [[u8; 16]; 15],
    dec: [[u8; 16]; 15],
}

impl<const NR: usize> Drop for Key<NR> {
    fn drop(&mut self) {
        self.enc.zeroize();
        self.dec.zeroize();
    }
}

impl Engine for ArmV8 {
    type Token = ArmV8;
    type Key<const NR: usize> = Key<NR>;

    fn token() -> Option<ArmV8> {
        cpu_aes::get().then_some(ArmV8(()))
    }

    fn expand<const NR: usize>(_: ArmV8, ks: &Schedule<NR>) -> Key<NR> {
        Key {
            enc: ks.enc,
            dec: ks.dec(),
        }
    }

    fn encrypt<const NR: usize>(key: &Key<NR>, f: impl BlockCipherEncClosure<BlockSize = U16>) {
        // SAFETY: a `Key` is only built by `expand`, which takes an `ArmV8`
        // token, which `token()` hands out only when the CPU has AES.
        unsafe { with_enc::<NR>(&key.enc, f) }
    }

    fn decrypt<const NR: usize>(key: &Key<NR>, f: impl BlockCipherDecClosure<BlockSize = U16>) {
        // SAFETY: as in `encrypt`.
        unsafe { with_dec::<NR>(&key.dec, f) }
    }
}

/// The round keys, handed to the closure. They are read from the key
/// itself (no copy to wipe); inside one call the compiler keeps them in
/// registers across blocks.
struct Rk<'a, const NR: usize>(&'a [[u8; 16]; 15]);

#[target_feature(enable = "aes")]
fn with_enc<const NR: usize>(k: &[[u8; 16]; 15], f: impl BlockCipherEncClosure<BlockSize = U16>) {
    f.call(&Rk::<NR>(k));
}

#[target_feature(enable = "aes")]
fn with_dec<const NR: usize>(k: &[[u8; 16]; 15], f: impl BlockCipherDecClosure<BlockSize = U16>) {
    f.call(&Rk::<NR>(k));
}

impl<const NR: usize> BlockSizeUser for Rk<'_, NR> {
    type BlockSize = U16;
}

impl<const NR: usize> ParBlocksSizeUser for Rk<'_, NR> {
    type ParBlocksSize = U8;
}

#[inline(always)]
fn load(b: &crate::Block) -> uint8x16_t {
    // SAFETY: 16 readable bytes, no alignment needed.
    unsafe { vld1q_u8(b.as_ptr()) }
}

#[inline(always)]
fn load_key(k: &[u8; 16]) -> uint8x16_t {
    // SAFETY: 16 readable bytes, no alignment needed.
    unsafe { vld1q_u8(k.as_ptr()) }
}

#[inline(always)]
fn store(b: &mut crate::Block, v: uint8x16_t) {
    // SAFETY: 16 writable bytes, no alignment needed.
    unsafe { vst1q_u8(b.as_mut_ptr(), v) }
}

#[target_feature(enable = "aes")]
#[inline]
fn enc_n<const NR: usize, const N: usize>(k: &[[u8; 16]; 15], b: &mut [uint8x16_t; N]) {
    let rk: [uint8x16_t; 15] = core::array::from_fn(|i| load_key(&k[i]));
    for r in 0..NR - 1 {
        for x in b.iter_mut() {
            *x = vaesmcq_u8(vaeseq_u8(*x, rk[r]));
        }
    }
    for x in b.iter_mut() {
        *x = veorq_u8(vaeseq_u8(*x, rk[NR - 1]), rk[NR]);
    }
}

#[target_feature(enable = "aes")]
#[inline]
fn dec_n<const NR: usize, const N: usize>(k: &[[u8; 16]; 15], b: &mut [uint8x16_t; N]) {
    let rk: [uint8x16_t; 15] = core::array::from_fn(|i| load_key(&k[i]));
    for r in 0..NR - 1 {
        for x in b.iter_mut() {
            *x = vaesimcq_u8(vaesdq_u8(*x, rk[r]));
        }
    }
    for x in b.iter_mut() {
        *x = veorq_u8(vaesdq_u8(*x, rk[NR - 1]), rk[NR]);
    }
}

macro_rules! impl_dir {
    ($tr:ident, $one:ident, $par:ident, $f:ident) => {
        impl<const NR: usize> $tr for Rk<'_, NR> {
            #[inline(always)]
            fn $one(&self, mut block: InOut<'_, '_, Block<Self>>) {
                let mut b = [load(block.get_in())];
                // SAFETY: an `Rk` only exists inside `with_enc`/`with_dec`,
                // which run with the `aes` feature (checked by the token).
                unsafe { $f::<NR, 1>(&self.0, &mut b) };
                store(block.get_out(), b[0]);
            }

            #[inline(always)]
            fn $par(&self, mut blocks: InOut<'_, '_, ParBlocks<Self>>) {
                let mut b: [uint8x16_t; 8] = core::array::from_fn(|i| load(&blocks.get_in()[i]));
                // SAFETY: as in the single-block function.
                unsafe { $f::<NR, 8>(&self.0, &mut b) };
                let out = blocks.get_out();
                for i in 0..8 {
                    store(&mut out[i], b[i]);
                }
            }
        }
    };
}
impl_dir!(
    BlockCipherEncBackend,
    encrypt_block,
    encrypt_par_blocks,
    enc_n
);
impl_dir!(
    BlockCipherDecBackend,
    decrypt_block,
    decrypt_par_blocks,
    dec_n
);
