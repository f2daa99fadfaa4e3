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
//! and compilers spill 128-bit NEON code there (NetBSD's experience with
//! its ARM AES and Adiantum code).
//!
//! Constant time: bitwise operations and fixed permutations only; no
//! branches or memory indices depending on data or key.
//!
//! Cost: see the per-segment instruction counts in `bsaes_asm.rs`
//! (AES-128: ~2300 instructions per 8 blocks). CTR (`aes_ct::Ctr32BE`)
//! runs whole batches through `aes_ct_bsaes_ctr32_armv7`, the same kernel
//! in a loop that builds the counter blocks in NEON registers and XORs the
//! keystream with the input there (~18.3 instructions per byte at 16 KiB,
//! `PERFORMANCE-arm.md`).
//!
//! Key form: the round keys as planes (each bit broadcast to all 8 block
//! slots), 128 bytes per round, 16-byte aligned; round keys 1..=NR carry
//! the S-box constant 0x63. Conversion is a small NEON routine (`vtbl` +
//! 8 `vtst` per round key), cheap enough for the hybrid to do per call
//! (the kernels use the S-box without it: for
//! encryption ShiftRows/MixColumns map a state of equal bytes to itself;
//! for decryption InvSubBytes = M^-1 S'(M^-1 (x ^ 0x63)) and InvMixColumns
//! also fixes equal bytes). The decryption form lists the round keys in
//! reverse order.

use super::{NeonToken, vpaes::ArmVpaes};
use crate::{Block, hybrid::Bitsliced, schedule::Schedule};
use cipher::{
    Array,
    consts::U8,
    inout::{InOut, InOutBuf},
};
use core::mem::MaybeUninit;
use zeroize::ZeroizeOnDrop;

unsafe extern "C" {
    /// Encrypt 8 blocks (128 bytes at `inp`, to `out`) with plane-form keys.
    fn aes_ct_bsaes_enc8_armv7(keys: *const u8, inp: *const u8, out: *mut u8, rounds: usize);
    /// Decrypt 8 blocks with plane-form keys in reverse order.
    fn aes_ct_bsaes_dec8_armv7(keys: *const u8, inp: *const u8, out: *mut u8, rounds: usize);
    /// CTR (32-bit big-endian counter) over `blocks` (a positive multiple
    /// of 8) blocks from `inp` to `out` with encryption plane-form keys,
    /// starting at the 16-byte counter block at `ctr` (read only).
    fn aes_ct_bsaes_ctr32_armv7(
        out: *mut u8,
        inp: *const u8,
        keys: *const u8,
        rounds: usize,
        blocks: usize,
        ctr: *const u8,
    );
}

/// Plane-form round keys (`NR + 1` used), wiped on drop.
/// Only the first `NR + 1` units are initialised (no memset of the rest).
#[derive(Clone)]
#[repr(C, align(16))]
pub(crate) struct Planes<const NR: usize> {
    p: MaybeUninit<[Planes16; 15]>,
    dec: bool,
}

impl<const NR: usize> Drop for Planes<NR> {
    fn drop(&mut self) {
        // All 15 units, not only the NR + 1 in use: `Clone` copies the
        // whole array, unused units included (ct-check's zeroize test found
        // 71 bytes left in a dropped clone).
        // SAFETY: `self.p` is 15 aligned 128-byte units we own. The routine
        // is plain ARM stores of NEON registers: a `Planes` only exists
        // after a NEON token was obtained.
        unsafe { aes_ct_bsaes_wipe_armv7(self.p.as_mut_ptr().cast(), 15) };
        core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
    }
}

impl<const NR: usize> ZeroizeOnDrop for Planes<NR> {}

armv7_asm!(
    // aes_ct_bsaes_key_armv7(rk, out, c, perm): the round key at `rk`
    // (16 bytes, FIPS order) XOR the byte `c` in every position, bytes
    // permuted by `perm` (16 indices: the row-major transposition, skewed
    // for fixsliced encryption), as 8 planes of 16 bytes at `out` (16-byte
    // aligned): plane k, byte i = 0xff if bit k of permuted byte i is set
    // (`vtst`), else 0.
    // Registers: r0 rk, r1 out (advances), r2 c, r3 perm;
    // q0 plane, q1 permuted key, q2 permutation, q3 bit mask.
    ".globl aes_ct_bsaes_key_armv7",
    ".hidden aes_ct_bsaes_key_armv7",
    ".type aes_ct_bsaes_key_armv7, %function",
    "aes_ct_bsaes_key_armv7:",
    "    vld1.8      {{d4-d5}}, [r3]",
    "    vld1.8      {{d0-d1}}, [r0]",
    "    vdup.8      q1, r2",
    "    veor        q0, q0, q1",
    "    vtbl.8      d2, {{d0-d1}}, d4",
    "    vtbl.8      d3, {{d0-d1}}, d5",
    "    vmov.i8     q3, #1",
    "    .rept 8",
    "    vtst.8      q0, q1, q3",
    "    vst1.8      {{d0-d1}}, [r1 :128]!",
    "    vshl.i8     q3, q3, #1",
    "    .endr",
    "    vmov.i8     q0, #0",
    "    vmov.i8     q1, #0",
    "    bx          lr",
    ".size aes_ct_bsaes_key_armv7, .-aes_ct_bsaes_key_armv7",
    // aes_ct_bsaes_wipe_armv7(p, n): zero n (> 0) aligned 128-byte units
    // at p. Registers: r0 pointer (advances), r1 count; q0, q1 zero.
    ".globl aes_ct_bsaes_wipe_armv7",
    ".hidden aes_ct_bsaes_wipe_armv7",
    ".type aes_ct_bsaes_wipe_armv7, %function",
    "aes_ct_bsaes_wipe_armv7:",
    "    vmov.i8     q0, #0",
    "    vmov.i8     q1, #0",
    "1:",
    "    vst1.8      {{d0-d3}}, [r0 :128]!",
    "    vst1.8      {{d0-d3}}, [r0 :128]!",
    "    vst1.8      {{d0-d3}}, [r0 :128]!",
    "    vst1.8      {{d0-d3}}, [r0 :128]!",
    "    subs        r1, r1, #1",
    "    bne         1b",
    "    bx          lr",
    ".size aes_ct_bsaes_wipe_armv7, .-aes_ct_bsaes_wipe_armv7",
);

unsafe extern "C" {
    fn aes_ct_bsaes_key_armv7(rk: *const u8, out: *mut u8, c: u32, perm: *const u8);
    fn aes_ct_bsaes_wipe_armv7(p: *mut u8, units: usize);
}

/// Key byte permutations: FIPS byte order to the row-major plane layout
/// (`j = 0`), and for fixsliced encryption round `i` with `j = i mod 4`
/// the held form `K_h(r, c) = K(r, c - j r)` (see `aarch64/bsaes.rs`).
static KEY_PERM: [[u8; 16]; 4] = crate::perm::KEY_SKEW;

/// One round key (XOR `c` in every byte, skewed by `j`) as 8 planes.
#[inline]
fn planes(_: NeonToken, rk: &[u8; 16], fold: bool, j: usize, out: *mut Planes16) {
    let c = if fold { 0x63 } else { 0 };
    // SAFETY: the token proves NEON; `rk` and the permutation are 16
    // readable bytes; `out` is 128 writable bytes, 16-byte aligned
    // (`Planes16`); AAPCS routine.
    unsafe { aes_ct_bsaes_key_armv7(rk.as_ptr(), out.cast(), c, KEY_PERM[j % 4].as_ptr()) }
}

/// 8 planes of one round key, 16-byte aligned.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
struct Planes16([[u8; 16]; 8]);

impl<const NR: usize> Planes<NR> {
    /// The key form of one direction, written into `slot` in place (no
    /// move of the 2 KB form: a move leaves a copy and costs a `memcpy`).
    /// Decryption: the round keys reversed, plain layout; encryption:
    /// fixsliced (round key `j` skewed by `j`), round keys 1..=NR folded.
    #[inline(always)]
    fn build_into(t: NeonToken, rk: &[[u8; 16]; 15], dec: bool, slot: &mut MaybeUninit<Self>) {
        let s = slot.as_mut_ptr();
        // SAFETY: `s` points at writable, aligned storage for a `Planes`;
        // `dec` is written through a raw place (no reference to
        // uninitialised memory), the units `0..=NR` by the routine below;
        // the rest stay uninitialised, which `MaybeUninit` allows.
        let base = unsafe {
            core::ptr::addr_of_mut!((*s).dec).write(dec);
            core::ptr::addr_of_mut!((*s).p).cast::<Planes16>()
        };
        for j in 0..=NR {
            let (i, fold, skew) = if dec {
                (NR - j, j < NR, 0)
            } else {
                (j, j > 0, j)
            };
            // SAFETY: j <= NR < 15, so `base + j` is inside the array; the
            // routine writes all 128 bytes of that unit.
            planes(t, &rk[i], fold, skew, unsafe { base.add(j) });
        }
    }

    #[inline(always)]
    fn build(t: NeonToken, rk: &[[u8; 16]; 15], dec: bool) -> Self {
        let mut p = MaybeUninit::uninit();
        Self::build_into(t, rk, dec, &mut p);
        // SAFETY: `build_into` initialised `dec` and the units in use; the
        // array is `MaybeUninit`, so its unused units need no value.
        unsafe { p.assume_init() }
    }

    fn enc(t: NeonToken, rk: &[[u8; 16]; 15]) -> Self {
        Self::build(t, rk, false)
    }

    fn dec(t: NeonToken, rk: &[[u8; 16]; 15]) -> Self {
        Self::build(t, rk, true)
    }

    /// One batch; `dec` is the caller's direction (a constant at each call
    /// site, so the kernel is chosen at compile time).
    #[inline(always)]
    fn run(&self, b: InOut<'_, '_, Array<Block, U8>>, dec: bool) {
        // Both pointers straight from the `InOut` (no reference made): for
        // an in-place batch, a `&mut` from `get_out` would invalidate a
        // pointer taken from `get_in` before the kernel reads through it.
        let (inp, out) = b.into_raw();
        let (inp, out) = (inp.cast::<u8>(), out.cast::<u8>());
        debug_assert!(self.dec == dec && NR > 0);
        // SAFETY: a `Planes` only exists with a NEON token (see
        // `NeonBsaes`); `inp`/`out` point at 8 contiguous 16-byte blocks
        // (`Array<Block, U8>`; they may be equal, the kernel loads
        // everything before storing); the keys hold NR + 1 aligned round
        // keys; the kernels follow the AAPCS.
        unsafe {
            if dec {
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

    fn enc_key_from_single<const NR: usize>(t: NeonToken, k: &super::vpaes::Key<NR>) -> Planes<NR> {
        Planes::enc(t, &k.ks.enc)
    }

    fn enc_key_from_single_into<const NR: usize>(
        t: NeonToken,
        k: &super::vpaes::Key<NR>,
        slot: &mut MaybeUninit<Planes<NR>>,
    ) {
        Planes::build_into(t, &k.ks.enc, false, slot)
    }

    fn dec_key_from_single_into<const NR: usize>(
        t: NeonToken,
        k: &super::vpaes::Key<NR>,
        slot: &mut MaybeUninit<Planes<NR>>,
    ) {
        Planes::build_into(t, &k.ks.enc, true, slot)
    }

    fn dec_key_from_single<const NR: usize>(t: NeonToken, k: &super::vpaes::Key<NR>) -> Planes<NR> {
        Planes::dec(t, &k.ks.enc)
    }

    fn enc_key_from_schedule<const NR: usize>(t: NeonToken, ks: &Schedule<NR>) -> Planes<NR> {
        Planes::enc(t, &ks.enc)
    }

    fn dec_key_from_schedule<const NR: usize>(t: NeonToken, ks: &Schedule<NR>) -> Planes<NR> {
        Planes::dec(t, &ks.enc)
    }

    #[inline(always)]
    fn policy(_: NeonToken) -> crate::hybrid::Policy {
        crate::hybrid::ARMV7_POLICY
    }

    /// NEON stores, 32 bytes each (`aes_ct_bsaes_wipe_armv7`).
    #[inline(always)]
    fn scrub(t: NeonToken, a: &mut MaybeUninit<crate::hybrid::ScrubArea>) {
        let _ = t;
        // SAFETY: the token proves NEON; `a` is STACK_SCRUB bytes (a
        // multiple of 128), 16-byte aligned, owned by the caller.
        unsafe { aes_ct_bsaes_wipe_armv7(a.as_mut_ptr().cast(), crate::hybrid::STACK_SCRUB / 128) };
    }

    #[inline(always)]
    fn encrypt_batch<const NR: usize>(k: &Planes<NR>, b: InOut<'_, '_, Array<Block, U8>>) {
        k.run(b, false)
    }

    /// The assembly CTR loop (`aes_ct_bsaes_ctr32_armv7`): counters built
    /// in NEON registers, keystream XORed with the input in registers, one
    /// call for all full batches.
    #[inline(always)]
    fn ctr32_batches<const NR: usize>(
        k: &Planes<NR>,
        nonce: &[u8; 12],
        ctr: u32,
        blocks: InOutBuf<'_, '_, Block>,
    ) {
        debug_assert!(!k.dec);
        let n = blocks.len();
        // The assembly loop runs whole batches: a partial one would read and
        // write past the buffer. Checked here, where the count handed to it
        // is taken.
        assert!(n.is_multiple_of(8), "bsaes CTR: whole batches only");
        if n == 0 {
            return;
        }
        let cb = crate::ctr::counter_block(nonce, ctr);
        let (inp, out) = blocks.into_raw();
        // SAFETY: a `Planes` only exists with a NEON token; `k` holds NR + 1
        // aligned encryption round keys (NR is 10, 12 or 14); `inp`/`out`
        // come from one `InOutBuf` of `n` blocks (`n` a positive multiple
        // of 8, asserted above; they may be equal: each batch is loaded before it is
        // stored); `cb` is 16 readable bytes; the routine follows the
        // AAPCS (two arguments on the stack).
        unsafe {
            aes_ct_bsaes_ctr32_armv7(
                out.cast(),
                inp.cast(),
                k.p.as_ptr().cast(),
                NR,
                n,
                cb.as_ptr(),
            )
        }
    }

    #[inline(always)]
    fn decrypt_batch<const NR: usize>(k: &Planes<NR>, b: InOut<'_, '_, Array<Block, U8>>) {
        k.run(b, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hybrid::Bitsliced;

    fn key() -> Option<Planes<10>> {
        let t = NeonToken::get()?;
        let ks = Schedule::<10>::new(&[0x2b; 16]);
        Some(NeonBsaes::enc_key_from_schedule(t, &ks))
    }

    /// A block count that is not whole batches is refused before the
    /// assembly loop sees it (in every build profile, not only with debug
    /// assertions).
    #[test]
    #[should_panic(expected = "whole batches only")]
    fn ctr32_batches_refuses_a_partial_batch() {
        let Some(k) = key() else {
            panic!("no NEON here: nothing to check (whole batches only)");
        };
        let mut buf = [Block::default(); 16];
        NeonBsaes::ctr32_batches(&k, &[7; 12], 0, (&mut buf[..7]).into());
    }

    /// The assembly CTR loop ends on `in < end`, not `in == end`: handed 12
    /// blocks directly (bypassing the assert), it stops after the second
    /// batch (16 blocks), leaving the rest of the buffer alone, where an
    /// equality test would never have been met and would have run on
    /// through memory.
    #[test]
    fn ctr32_asm_loop_ends_past_a_partial_batch() {
        let Some(k) = key() else { return };
        let mut buf = [[0u8; 16]; 32];
        let cb = crate::ctr::counter_block(&[7; 12], 5);
        // SAFETY: NEON (the key exists); 32 blocks at `buf`, of which at
        // most 16 are touched by a loop that ends on `lo`; `cb` is 16
        // readable bytes.
        unsafe {
            let p = buf.as_mut_ptr().cast::<u8>();
            aes_ct_bsaes_ctr32_armv7(p, p, k.p.as_ptr().cast(), 10, 12, cb.as_ptr());
        }
        assert!(
            buf[16..].iter().all(|b| *b == [0; 16]),
            "ran past 16 blocks"
        );
        let mut want = [Block::default(); 16];
        NeonBsaes::ctr32_batches(&k, &[7; 12], 5, (&mut want[..]).into());
        for (g, w) in buf[..16].iter().zip(want.iter()) {
            assert_eq!(&g[..], &w[..]);
        }
    }
}
