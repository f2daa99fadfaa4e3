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
//! NEON registers once per `encrypt_with_backend` call; what the compiler
//! spills of them is zeroed when the call returns.
//!
//! CTR32 (`crate::Ctr32BE`): a fused loop, counter blocks built in NEON
//! registers (one lane insert per block), 8 blocks interleaved, the
//! keystream XORed straight from registers.

use crate::{
    backend::Engine,
    schedule::{KeyOps, Schedule},
};
use cipher::{
    Block, BlockCipherDecBackend, BlockCipherDecClosure, BlockCipherEncBackend,
    BlockCipherEncClosure, BlockSizeUser, ParBlocks, ParBlocksSizeUser,
    consts::{U8, U16},
    inout::{InOut, InOutBuf},
};
use core::arch::aarch64::*;
use zeroize::Zeroize;

/// The encryption rounds over an array of blocks in registers (a macro,
/// so that every `aes` target-feature function using it has the rounds in
/// its own body: a shared function stops being inlined into the cipher
/// closures once it has several callers).
macro_rules! enc_rounds {
    ($nr:expr, $rk:expr, $b:expr) => {
        for r in 0..$nr - 1 {
            for x in $b.iter_mut() {
                *x = vaesmcq_u8(vaeseq_u8(*x, $rk[r]));
            }
        }
        for x in $b.iter_mut() {
            *x = veorq_u8(vaeseq_u8(*x, $rk[$nr - 1]), $rk[$nr]);
        }
    };
}

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

/// The schedule's SubWord and InvMixColumns in one instruction each.
impl KeyOps for ArmV8 {
    #[inline]
    fn sub_word(self, w: u32) -> u32 {
        // SAFETY: an `ArmV8` exists only after the CPU check for AES.
        unsafe { sub_word_armv8(w) }
    }
    #[inline]
    fn inv_mix_columns(self, s: &[u8; 16]) -> [u8; 16] {
        // SAFETY: as in `sub_word`.
        unsafe { inv_mix_armv8(s) }
    }
}

/// `aese` with a zero key on `w` in all four columns: ShiftRows only
/// moves equal bytes, so every column is SubWord(w).
#[target_feature(enable = "aes")]
fn sub_word_armv8(w: u32) -> u32 {
    let v = vreinterpretq_u8_u32(vdupq_n_u32(w));
    let r = vaeseq_u8(v, vdupq_n_u8(0));
    vgetq_lane_u32::<0>(vreinterpretq_u32_u8(r))
}

#[target_feature(enable = "aes")]
fn inv_mix_armv8(s: &[u8; 16]) -> [u8; 16] {
    let mut out = [0u8; 16];
    // SAFETY: 16 readable / writable bytes.
    unsafe {
        let v = vaesimcq_u8(vld1q_u8(s.as_ptr()));
        vst1q_u8(out.as_mut_ptr(), v);
    }
    out
}

impl Engine for ArmV8 {
    type Token = ArmV8;
    type Key<const NR: usize> = Key<NR>;

    fn token() -> Option<ArmV8> {
        cpu_aes::get().then_some(ArmV8(()))
    }

    fn enc_round_keys<const NR: usize>(key: &Key<NR>) -> Option<[[u8; 16]; 15]> {
        Some(key.enc)
    }

    fn schedule<const NR: usize>(t: ArmV8, key: &[u8], enc: &mut [[u8; 16]; 15]) {
        crate::schedule::expand_with::<NR>(t, key, enc)
    }

    fn expand<const NR: usize>(t: ArmV8, ks: &Schedule<NR>) -> Key<NR> {
        Key {
            enc: ks.enc,
            dec: ks.dec_with(t),
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

    fn ctr32<const NR: usize>(
        key: &Key<NR>,
        nonce: &[u8; 12],
        ctr: u32,
        blocks: InOutBuf<'_, '_, crate::Block>,
    ) {
        // SAFETY: as in `encrypt`.
        unsafe { ctr_fused::<NR>(&key.enc, nonce, ctr, blocks) }
    }
}

/// CTR32, fused: counter blocks made in NEON registers (the nonce block
/// with the big-endian counter word inserted into lane 3), 8 blocks
/// interleaved (then 4, 2, 1 for the tail), the keystream XORed into the
/// data from registers; nothing of it is stored but the output.
#[target_feature(enable = "aes")]
fn ctr_fused<const NR: usize>(
    k: &[[u8; 16]; 15],
    nonce: &[u8; 12],
    ctr: u32,
    blocks: InOutBuf<'_, '_, crate::Block>,
) {
    let mut rk = load_keys::<NR>(k);
    let mut first = [0u8; 16];
    first[..12].copy_from_slice(nonce);
    // SAFETY: 16 readable bytes.
    let base = unsafe { vreinterpretq_u32_u8(vld1q_u8(first.as_ptr())) };
    // The nonce is secret when AES-GCM derives it from a long IV.
    ct_dispatch::wipe::wipe(&mut first);
    let n = blocks.len();
    // Both pointers straight from the buffer (no reference made): in
    // place, a `&mut` from `get_out` would invalidate a pointer taken from
    // `get_in` before the loop reads through it.
    let (inp, out) = blocks.into_raw();
    let (inp, out) = (inp.cast::<u8>(), out.cast::<u8>());
    let mut done = 0;
    let mut c = ctr;
    for g in [8usize, 4, 2, 1] {
        while n - done >= g {
            // SAFETY: `aes` is enabled here; blocks `done .. done + g` are
            // inside `blocks`.
            unsafe {
                match g {
                    8 => ctr_group::<NR, 8>(&rk, base, c, inp.add(16 * done), out.add(16 * done)),
                    4 => ctr_group::<NR, 4>(&rk, base, c, inp.add(16 * done), out.add(16 * done)),
                    2 => ctr_group::<NR, 2>(&rk, base, c, inp.add(16 * done), out.add(16 * done)),
                    _ => ctr_group::<NR, 1>(&rk, base, c, inp.add(16 * done), out.add(16 * done)),
                }
            }
            c = c.wrapping_add(g as u32);
            done += g;
        }
    }
    // `ctr_group` takes the round keys by reference: a stack copy.
    ct_dispatch::wipe::wipe(&mut rk);
}

/// `N` blocks of CTR from counter `c`. Safety: `N` blocks readable at
/// `inp` and writable at `out` (the same blocks or disjoint).
#[target_feature(enable = "aes")]
#[inline]
unsafe fn ctr_group<const NR: usize, const N: usize>(
    rk: &[uint8x16_t; 15],
    base: uint32x4_t,
    c: u32,
    inp: *const u8,
    out: *mut u8,
) {
    let mut b = [vdupq_n_u8(0); N];
    for (i, x) in b.iter_mut().enumerate() {
        let w = c.wrapping_add(i as u32).swap_bytes();
        *x = vreinterpretq_u8_u32(vsetq_lane_u32::<3>(w, base));
    }
    enc_rounds!(NR, rk, b);
    // SAFETY: the pointers per the contract above.
    unsafe {
        if N.is_multiple_of(4) {
            // Four registers per load and store (`ld1`/`st1` of 64 bytes).
            for (q, x) in b.chunks_exact(4).enumerate() {
                let d = vld1q_u8_x4(inp.add(64 * q));
                let o = uint8x16x4_t(
                    veorq_u8(x[0], d.0),
                    veorq_u8(x[1], d.1),
                    veorq_u8(x[2], d.2),
                    veorq_u8(x[3], d.3),
                );
                vst1q_u8_x4(out.add(64 * q), o);
            }
        } else {
            for (i, x) in b.iter().enumerate() {
                let d = vld1q_u8(inp.add(16 * i));
                vst1q_u8(out.add(16 * i), veorq_u8(*x, d));
            }
        }
    }
}

/// The round keys, handed to the closure. They are read from the key
/// itself; inside one call the compiler keeps them in registers across
/// blocks, and spills them to the closure's frames where the closure's own
/// code needs the registers (most of an AES-128 key was found there by
/// `ct-check`'s dead-stack test): those frames are zeroed after the call.
struct Rk<'a, const NR: usize>(&'a [[u8; 16]; 15]);

/// Bytes of dead stack zeroed after a call: the spills of the closure's
/// frames, with a margin.
const CALL_SCRUB: usize = 1024;

#[target_feature(enable = "aes")]
fn with_enc<const NR: usize>(k: &[[u8; 16]; 15], f: impl BlockCipherEncClosure<BlockSize = U16>) {
    call_enc(&Rk::<NR>(k), f);
    ct_dispatch::wipe::scrub_stack::<CALL_SCRUB>();
}

#[target_feature(enable = "aes")]
fn with_dec<const NR: usize>(k: &[[u8; 16]; 15], f: impl BlockCipherDecClosure<BlockSize = U16>) {
    call_dec(&Rk::<NR>(k), f);
    ct_dispatch::wipe::scrub_stack::<CALL_SCRUB>();
}

// The closure runs in a frame of its own, below the one the scrub starts
// from.
#[target_feature(enable = "aes")]
#[inline(never)]
fn call_enc<const NR: usize>(rk: &Rk<'_, NR>, f: impl BlockCipherEncClosure<BlockSize = U16>) {
    f.call(rk);
}

#[target_feature(enable = "aes")]
#[inline(never)]
fn call_dec<const NR: usize>(rk: &Rk<'_, NR>, f: impl BlockCipherDecClosure<BlockSize = U16>) {
    f.call(rk);
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

/// The round keys, in registers (LLVM drops the loads of unused ones).
#[inline(always)]
fn load_keys<const NR: usize>(k: &[[u8; 16]; 15]) -> [uint8x16_t; 15] {
    let mut rk = [load_key(&k[0]); 15];
    for (r, k) in rk.iter_mut().zip(k) {
        *r = load_key(k);
    }
    rk
}

#[target_feature(enable = "aes")]
#[inline]
fn enc_n<const NR: usize, const N: usize>(k: &[[u8; 16]; 15], b: &mut [uint8x16_t; N]) {
    let rk = load_keys::<NR>(k);
    enc_rounds!(NR, rk, b);
}

#[target_feature(enable = "aes")]
#[inline]
fn dec_n<const NR: usize, const N: usize>(k: &[[u8; 16]; 15], b: &mut [uint8x16_t; N]) {
    let rk = load_keys::<NR>(k);
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

#[cfg(test)]
mod key_ops_tests {
    extern crate std;
    /// The schedule steps on the AES instructions equal the software ones
    /// (on a CPU without them there is nothing to compare, and it says so).
    #[test]
    fn key_ops_match_software() {
        match <super::ArmV8 as crate::backend::Engine>::token() {
            Some(t) => crate::schedule::assert_ops_match_software(t),
            None => std::eprintln!("no AES on this CPU: nothing to compare"),
        }
    }
}
