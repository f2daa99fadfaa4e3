//! Single-block AES with NEON `vtbl`/`vtbx` on armv7 (the vpaes side of the
//! armv7 hybrid), in assembly.
//!
//! Technique: vector-permute AES in the sense of M. Hamburg (CHES 2009):
//! every table lookup is a register permute, never a load from a
//! data-dependent address. `vtbl`/`vtbx` index up to four d registers (32
//! bytes), so SubBytes walks the public 256-byte S-box in eight 32-byte
//! chunks, each loaded whole from a fixed address: chunk 0 with `vtbl`
//! (out-of-range indices give 0), chunks 1-7 with `vtbx` (out-of-range
//! indices keep the byte) after subtracting 32 from every index. ShiftRows
//! is one more `vtbl` pair; MixColumns uses shifts within 32-bit columns
//! (`vshr`+`vsli` rotates a column by one row, `vrev32.16` by two) and a
//! branch-free doubling. Written from FIPS-197; the S-box tables come from
//! `aarch64/sbox.rs` (computed at compile time).
//!
//! Constant time: the only memory reads are the round keys and the whole
//! tables in order; `vtbl`/`vtbx` read registers. No data-dependent
//! branches (the loop count is the public number of rounds).
//!
//! Cost per round and block: 2 (ShiftRows) + 8 loads + 7 `vsub` + 16
//! `vtbl`/`vtbx` (SubBytes) + 10 (MixColumns) + 2 (AddRoundKey) + 2 loop:
//! ~47 instructions, ~29 per byte for AES-128; decryption adds 11 per
//! round for InvMixColumns (MixColumns after a pre-multiplication, Rijndael
//! book section 4.1.3).
//!
//! Register plan (AAPCS: only caller-saved q0-q3, q8-q15 are used, so no
//! `vpush`; r4 and lr saved):
//!   r0  round keys (advancing by r4 = +16 for encryption, -16 for
//!       decryption, which starts at the last round key)
//!   r1  input block           r2  output block
//!   r3  rounds left           r12 tables: S-box (256 B), permutation (16 B)
//!   lr  walks the S-box chunks
//!   q0  state                 q1  permuted state / S-box indices
//!   q2  column rotated by one row      q3  t = a ^ rot1(a)
//!   q8, q9  the current 32-byte S-box chunk (d16-d19)
//!   q10 rot2(t) / scratch     q11 doubling mask
//!   q13 0x1b in every byte    q14 32 in every byte
//!   q15 ShiftRows (or InvShiftRows) permutation

use super::sbox::SBOXES;
use cipher::inout::InOut;

/// Tables handed to the routines (public constants).
#[repr(C, align(16))]
pub(crate) struct Tables {
    sbox: [u8; 256],
    perm: [u8; 16],
}

pub(crate) static ENC_TABLES: Tables = Tables {
    sbox: SBOXES.0,
    perm: crate::perm::shift_rows(false),
};
pub(crate) static DEC_TABLES: Tables = Tables {
    sbox: SBOXES.1,
    perm: crate::perm::shift_rows(true),
};

armv7_asm!(
    // SubBytes(q1) -> q0; ShiftRows already applied. Clobbers q1, q8, q9, lr.
    ".macro aes_ct_vtbl_sub",
    "    mov         lr, r12",
    "    vld1.8      {{d16-d19}}, [lr]!",
    "    vtbl.8      d0, {{d16-d19}}, d2",
    "    vtbl.8      d1, {{d16-d19}}, d3",
    "    .rept 7",
    "    vsub.i8     q1, q1, q14",
    "    vld1.8      {{d16-d19}}, [lr]!",
    "    vtbx.8      d0, {{d16-d19}}, d2",
    "    vtbx.8      d1, {{d16-d19}}, d3",
    "    .endr",
    ".endm",
    // q0 = MixColumns(q0). Clobbers q2, q3, q10, q11.
    ".macro aes_ct_mixcol",
    "    vshr.u32    q2, q0, #8",
    "    vsli.32     q2, q0, #24", // q2 = a_{r+1}
    "    veor        q3, q0, q2",  // q3 = t = a_r ^ a_{r+1}
    "    vrev32.16   q10, q3",     // q10 = a_{r+2} ^ a_{r+3}
    "    vshr.s8     q11, q3, #7",
    "    vand        q11, q11, q13",
    "    vadd.i8     q3, q3, q3",
    "    veor        q3, q3, q11", // q3 = 2 t
    "    veor        q0, q3, q2",
    "    veor        q0, q0, q10",
    ".endm",
    // The routines' start, after r12 = tables and r4 = the round-key step:
    // constants (q13 = 0x1b, q14 = 32 per byte, d30-d31 = the ShiftRows
    // permutation after the 256 S-box bytes), q0 = in ^ round key 0 (r0
    // stepped). Clobbers q1, lr.
    ".macro aes_ct_vtbl_start",
    "    vmov.i8     q13, #0x1b",
    "    vmov.i8     q14, #32",
    "    add         lr, r12, #256",
    "    vld1.8      {{d30-d31}}, [lr]",
    "    vld1.8      {{d0-d1}}, [r1]",
    "    vld1.8      {{d2-d3}}, [r0], r4",
    "    veor        q0, q0, q1",
    ".endm",
    // One round's ShiftRows (permutation d30-d31) and SubBytes: q0 -> q0.
    // Clobbers q1, q8, q9, lr.
    ".macro aes_ct_vtbl_round",
    "    vtbl.8      d2, {{d0-d1}}, d30",
    "    vtbl.8      d3, {{d0-d1}}, d31",
    "    aes_ct_vtbl_sub",
    ".endm",
    // aes_ct_vtbl_enc1_armv7(rk, in, out, rounds, tables)
    ".p2align 4",
    ".globl aes_ct_vtbl_enc1_armv7",
    ".hidden aes_ct_vtbl_enc1_armv7",
    ".type aes_ct_vtbl_enc1_armv7, %function",
    "aes_ct_vtbl_enc1_armv7:",
    "    push        {{r4, lr}}",
    "    ldr         r12, [sp, #8]",
    "    mov         r4, #16",
    "    aes_ct_vtbl_start",
    "1:",
    "    aes_ct_vtbl_round",
    "    subs        r3, r3, #1",
    "    beq         2f",
    "    aes_ct_mixcol",
    "    vld1.8      {{d2-d3}}, [r0], r4",
    "    veor        q0, q0, q1",
    "    b           1b",
    "2:",
    "    vld1.8      {{d2-d3}}, [r0]",
    "    veor        q0, q0, q1",
    "    vst1.8      {{d0-d1}}, [r2]",
    "    b           aes_ct_vtbl_clear_armv7",
    ".size aes_ct_vtbl_enc1_armv7, .-aes_ct_vtbl_enc1_armv7",
    // aes_ct_vtbl_dec1_armv7(rk_last, in, out, rounds, tables): straight
    // inverse cipher, round keys walked backwards from `rk_last`.
    ".p2align 4",
    ".globl aes_ct_vtbl_dec1_armv7",
    ".hidden aes_ct_vtbl_dec1_armv7",
    ".type aes_ct_vtbl_dec1_armv7, %function",
    "aes_ct_vtbl_dec1_armv7:",
    "    push        {{r4, lr}}",
    "    ldr         r12, [sp, #8]",
    "    mvn         r4, #15", // r4 = -16
    "    aes_ct_vtbl_start",
    "1:",
    "    aes_ct_vtbl_round",
    "    vld1.8      {{d2-d3}}, [r0], r4",
    "    veor        q0, q0, q1",
    "    subs        r3, r3, #1",
    "    beq         2f",
    // InvMixColumns(a) = MixColumns(a ^ 4 (a ^ a_{r+2}))
    "    vrev32.16   q3, q0",
    "    veor        q3, q3, q0",
    "    vshr.s8     q11, q3, #7",
    "    vand        q11, q11, q13",
    "    vadd.i8     q3, q3, q3",
    "    veor        q3, q3, q11",
    "    vshr.s8     q11, q3, #7",
    "    vand        q11, q11, q13",
    "    vadd.i8     q3, q3, q3",
    "    veor        q3, q3, q11",
    "    veor        q0, q0, q3",
    "    aes_ct_mixcol",
    "    b           1b",
    "2:",
    "    vst1.8      {{d0-d1}}, [r2]",
    "    b           aes_ct_vtbl_clear_armv7",
    ".size aes_ct_vtbl_dec1_armv7, .-aes_ct_vtbl_dec1_armv7",
    // Common exit: clear every NEON register that held state or key bytes.
    ".p2align 2",
    ".type aes_ct_vtbl_clear_armv7, %function",
    "aes_ct_vtbl_clear_armv7:",
    "    vmov.i8     q0, #0",
    "    vmov.i8     q1, #0",
    "    vmov.i8     q2, #0",
    "    vmov.i8     q3, #0",
    "    vmov.i8     q8, #0",
    "    vmov.i8     q9, #0",
    "    vmov.i8     q10, #0",
    "    vmov.i8     q11, #0",
    "    pop         {{r4, pc}}",
    ".size aes_ct_vtbl_clear_armv7, .-aes_ct_vtbl_clear_armv7",
);

unsafe extern "C" {
    /// Encrypt the block at `inp` into `out` with `rounds + 1` round keys
    /// at `rk` (16 bytes each, FIPS byte order). Needs NEON.
    fn aes_ct_vtbl_enc1_armv7(
        rk: *const u8,
        inp: *const u8,
        out: *mut u8,
        rounds: usize,
        t: *const Tables,
    );
    /// Decrypt with the same round keys; `rk_last` points at round key
    /// `rounds`. Needs NEON.
    fn aes_ct_vtbl_dec1_armv7(
        rk_last: *const u8,
        inp: *const u8,
        out: *mut u8,
        rounds: usize,
        t: *const Tables,
    );
}

/// Encrypt one block. `rk` holds at least `NR + 1` round keys.
///
/// # Safety
/// The CPU must have NEON.
#[inline]
pub(super) unsafe fn encrypt1<const NR: usize>(rk: &[[u8; 16]; 15], inp: *const u8, out: *mut u8) {
    // SAFETY: the caller guarantees NEON; `rk` has NR + 1 <= 15 round keys;
    // `inp`/`out` are 16-byte blocks (they may be equal: the routine reads
    // the block before writing it); the routine follows the AAPCS.
    unsafe { aes_ct_vtbl_enc1_armv7(rk.as_ptr().cast(), inp, out, NR, &ENC_TABLES) }
}

/// Decrypt one block (straight inverse cipher with the encryption keys).
///
/// # Safety
/// The CPU must have NEON.
#[inline]
pub(super) unsafe fn decrypt1<const NR: usize>(rk: &[[u8; 16]; 15], inp: *const u8, out: *mut u8) {
    // SAFETY: as in `encrypt1`; the routine reads round keys NR down to 0.
    unsafe { aes_ct_vtbl_dec1_armv7(rk[NR].as_ptr(), inp, out, NR, &DEC_TABLES) }
}

/// The vpaes side of the armv7 hybrid (and the forceable `vpaes`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ArmVpaes;

/// Encryption round keys (both directions use them; the schedule wipes
/// itself on drop). Only `ArmVpaes`'s `SingleBlock::expand` makes one, with a NEON
/// token.
#[derive(Clone)]
pub(crate) struct Key<const NR: usize> {
    pub(super) ks: crate::schedule::Schedule<NR>,
}

impl<const NR: usize> zeroize::ZeroizeOnDrop for Key<NR> {}

/// Both pointers of `b` straight from the `InOut` (no reference made): for
/// an in-place block, a `&mut` from `get_out` would invalidate a pointer
/// taken from `get_in` before the routine reads through it.
#[inline(always)]
fn raw(b: InOut<'_, '_, crate::Block>) -> (*const u8, *mut u8) {
    let (i, o) = b.into_raw();
    (i.cast(), o.cast())
}

impl crate::hybrid::SingleBlock for ArmVpaes {
    type Token = super::NeonToken;
    type Key<const NR: usize> = Key<NR>;

    fn token() -> Option<super::NeonToken> {
        super::NeonToken::get()
    }

    fn expand<const NR: usize>(_: super::NeonToken, ks: &crate::schedule::Schedule<NR>) -> Key<NR> {
        Key { ks: ks.clone() }
    }

    #[inline]
    fn encrypt1<const NR: usize>(k: &Key<NR>, b: InOut<'_, '_, crate::Block>) {
        let (i, o) = raw(b);
        // SAFETY: a `Key` is only made by `expand`, which takes a NEON
        // token; `i`/`o` are one block each.
        unsafe { encrypt1::<NR>(&k.ks.enc, i, o) }
    }

    #[inline]
    fn decrypt1<const NR: usize>(k: &Key<NR>, b: InOut<'_, '_, crate::Block>) {
        let (i, o) = raw(b);
        // SAFETY: as in `encrypt1`.
        unsafe { decrypt1::<NR>(&k.ks.enc, i, o) }
    }
}
