//! Bitsliced AES on armv7 NEON: 8 blocks per batch ("bsaes"), assembly.
//!
//! Technique: E. Käsper, P. Schwabe, CHES 2009 (bitslicing 8 blocks into 8
//! 128-bit planes). Layout as on aarch64 (`aarch64/bsaes.rs`): plane `k`,
//! byte `4r + c`, bit `j` = bit `k` of byte (row `r`, column `c`) of block
//! `j`; ShiftRows is a `vtbl` pair per plane, MixColumns' row rotations are
//! `vext`. The S-box is the shared Boyar-Peralta circuit of
//! `soft/bitslice.rs`: the kernels in `bsaes_asm.rs` are generated from it
//! by `gen_bsaes.py` (register allocation with 16 q registers, spills to
//! an aligned stack frame), since 32-bit ARM has no stable NEON intrinsics
//! and compilers spill 128-bit NEON code there (design notes, section 2).
//!
//! Constant time: bitwise operations and fixed permutations only; no
//! branches or memory indices depending on data or key.
//!
//! Cost: see the per-segment instruction counts in `bsaes_asm.rs`
//! (AES-128: ~2500 instructions per 8 blocks).
//!
//! Key form: the round keys as planes (each bit broadcast to all 8 block
//! slots), 128 bytes per round, 16-byte aligned; round keys 1..=NR carry
//! the S-box constant 0x63 (the kernels use the S-box without it: for
//! encryption ShiftRows/MixColumns map a state of equal bytes to itself;
//! for decryption InvSubBytes = M^-1 S'(M^-1 (x ^ 0x63)) and InvMixColumns
//! also fixes equal bytes). The decryption form lists the round keys in
//! reverse order.

use super::{NeonToken, vpaes::ArmVpaes};
use crate::{Block, hybrid::Bitsliced, schedule::Schedule};
use cipher::{Array, consts::U8, inout::InOut};
use zeroize::{Zeroize, ZeroizeOnDrop};

unsafe extern "C" {
    /// Encrypt 8 blocks (128 bytes at `inp`, to `out`) with plane-form keys.
    fn aes_ct_bsaes_enc8_armv7(keys: *const u8, inp: *const u8, out: *mut u8, rounds: usize);
    /// Decrypt 8 blocks with plane-form keys in reverse order.
    fn aes_ct_bsaes_dec8_armv7(keys: *const u8, inp: *const u8, out: *mut u8, rounds: usize);
}

/// Plane-form round keys (`NR + 1` used), wiped on drop.
#[derive(Clone)]
#[repr(C, align(16))]
pub(crate) struct Planes<const NR: usize> {
    p: [[[u8; 16]; 8]; 15],
    dec: bool,
}

impl<const NR: usize> Drop for Planes<NR> {
    fn drop(&mut self) {
        self.p.zeroize();
    }
}

impl<const NR: usize> ZeroizeOnDrop for Planes<NR> {}

/// One round key as 8 planes, constant time (masks, no branches).
fn planes(rk: &[u8; 16], fold: bool) -> [[u8; 16]; 8] {
    let c = if fold { 0x63u8 } else { 0 };
    let mut out = [[0u8; 16]; 8];
    for (k, plane) in out.iter_mut().enumerate() {
        for r in 0..4 {
            for col in 0..4 {
                let b = rk[4 * col + r] ^ c;
                plane[4 * r + col] = 0u8.wrapping_sub((b >> k) & 1);
            }
        }
    }
    out
}

impl<const NR: usize> Planes<NR> {
    fn enc(rk: &[[u8; 16]; 15]) -> Self {
        let mut p = [[[0u8; 16]; 8]; 15];
        for i in 0..=NR {
            p[i] = planes(&rk[i], i > 0);
        }
        Planes { p, dec: false }
    }

    fn dec(rk: &[[u8; 16]; 15]) -> Self {
        let mut p = [[[0u8; 16]; 8]; 15];
        for j in 0..=NR {
            p[j] = planes(&rk[NR - j], j < NR);
        }
        Planes { p, dec: true }
    }

    #[inline(always)]
    fn run(&self, mut b: InOut<'_, '_, Array<Block, U8>>) {
        let (inp, out) = (
            b.get_in().as_ptr().cast::<u8>(),
            b.get_out().as_mut_ptr().cast::<u8>(),
        );
        debug_assert!(!self.dec || NR > 0);
        // SAFETY: a `Planes` only exists with a NEON token (see
        // `NeonBsaes`); `inp`/`out` point at 8 contiguous 16-byte blocks
        // (`Array<Block, U8>`; they may be equal, the kernel loads
        // everything before storing); the keys hold NR + 1 aligned round
        // keys; the kernels follow the AAPCS.
        unsafe {
            if self.dec {
                aes_ct_bsaes_dec8_armv7(self.p.as_ptr().cast(), inp, out, NR)
            } else {
                aes_ct_bsaes_enc8_armv7(self.p.as_ptr().cast(), inp, out, NR)
            }
        }
    }
}

/// The bsaes side of the armv7 hybrid (and the forceable `bsaes`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct NeonBsaes(NeonToken);

impl Bitsliced<ArmVpaes> for NeonBsaes {
    type Token = NeonToken;
    type Batch = U8;
    type Key<const NR: usize> = Planes<NR>;

    fn token() -> Option<NeonToken> {
        NeonToken::get()
    }

    fn enc_key_from_single<const NR: usize>(_: NeonToken, k: &super::vpaes::Key<NR>) -> Planes<NR> {
        Planes::enc(&k.rk)
    }

    fn dec_key_from_single<const NR: usize>(_: NeonToken, k: &super::vpaes::Key<NR>) -> Planes<NR> {
        Planes::dec(&k.rk)
    }

    fn enc_key_from_schedule<const NR: usize>(_: NeonToken, ks: &Schedule<NR>) -> Planes<NR> {
        Planes::enc(&ks.enc)
    }

    fn dec_key_from_schedule<const NR: usize>(_: NeonToken, ks: &Schedule<NR>) -> Planes<NR> {
        Planes::dec(&ks.enc)
    }

    #[inline(always)]
    fn encrypt_batch<const NR: usize>(k: &Planes<NR>, b: InOut<'_, '_, Array<Block, U8>>) {
        debug_assert!(!k.dec);
        k.run(b)
    }

    #[inline(always)]
    fn decrypt_batch<const NR: usize>(k: &Planes<NR>, b: InOut<'_, '_, Array<Block, U8>>) {
        debug_assert!(k.dec);
        k.run(b)
    }
}
