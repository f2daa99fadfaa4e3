//! ARMv7 NEON GHASH/POLYVAL with `vmull.p8`, in assembly (`global_asm!`,
//! stable Rust; NEON intrinsics are unstable on 32-bit ARM, and compilers
//! spill 128-bit NEON code there).
//!
//! Technique: Camara, Gouvea, Lopez, Dahab, "Fast Software Polynomial
//! Multiplication on ARM Processors Using the NEON Engine" (CD-ARES 2013),
//! section 4, as in `aarch64/pmull8.rs`: a 64x64 carry-less product from 8
//! `vmull.p8` (families r = 0..4 of byte pairs a_i * b_(i+r mod 8), r = 1..3
//! as `a * rot(b, r) ^ rot(a, r) * b`), each family placed by moving its
//! wrapped lanes down 64 bits (three d-register ops with a keep mask) and
//! rotating up r bytes (one `vext`). Our arrangement:
//! - the key holds only the powers and their Karatsuba middle terms
//!   lo ^ hi (192 bytes, the carry-less-multiply backends' form); their
//!   rotations rot(part, 1..4) are four `vext` per block and pass, not
//!   kept (five times the key's size);
//! - Karatsuba over 64-bit halves; runs of up to 8 blocks against
//!   `H^n..H^1`; per run and per Karatsuba part, the families of all
//!   blocks are summed first and placed ONCE (placement is linear), then
//!   one Karatsuba fix-up and one shift-only Montgomery reduction.
//!
//! Cost per block: 24 `vmull.p8`, ~70 other instructions; per run of 8:
//! ~110 (placement, Karatsuba fix-up, reduction, wiping).
//!
//! Register plan of `ghash_ct_vmull8_run(acc r0, blocks r1, n|flags r2, key r3)`:
//! - r0: 16-byte accumulator (POLYVAL form), read and written;
//!   r1: the n blocks; r2: n (1..8) in bits 0..7, bit 8 set for GHASH
//!   (byte-reverse blocks); r3: the key's power H^n (`ClmulKey::hd[8 - n]`,
//!   16 bytes: part lo then hi; the middle terms `md[8 - n..]`, 8 bytes
//!   each, start 64 + 8n bytes further on).
//! - r4 data pointer of a pass, r5 its stride (also the key's: 16 for the
//!   lo and hi passes, 8 for mid), r6 key pointer of a pass (GHASH flag in
//!   the pre-pass), r7 block counter, r12 192-byte scratch
//!   on the stack: 8 prepared blocks (128 B) then their Karatsuba middle
//!   halves lo ^ hi (64 B).
//! - q0..q4 (d0..d9): family sums F0..F4 of a pass (then temporaries);
//!   q5, q6 (d10..d13): products; d14: data half a; d16..d20: key
//!   b, rot(b, 1..4); d21..d23: rot(a, 1..3), then the three keep masks;
//!   q12, q13, q14: the lo, hi, mid 128-bit products; q15: accumulator
//!   (zeroed after the first block is folded in).
//! - Saves r4-r8, lr and d8-d15 (AAPCS callee-saved; lr because the
//!   passes are a local subroutine called with `bl`).

use crate::Block;
use crate::clmul_key::ClmulKey;
use crate::clmul_key::by_runs;

/// Blocks per run (placement + reduction).
const WAYS: usize = 8;

/// Proof that this CPU has NEON (from `getauxval(AT_HWCAP)`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Token(());

/// Key powers, descending, with their Karatsuba middle terms (the form of
/// the carry-less-multiply backends, one block per vector; `repr(C)`, so
/// the middle terms follow the 128 bytes of powers).
type Key8 = ClmulKey<Token, WAYS, 1>;

unsafe extern "C" {
    /// See the register plan above. Reads `n` blocks and the key table,
    /// reads and writes `acc`.
    fn ghash_ct_vmull8_run(acc: *mut u128, blocks: *const u8, n_flags: u32, key: *const u64);
}

core::arch::global_asm!(
    ".text",
    ".syntax unified",
    ".arm",
    ".fpu neon",
    ".p2align 4",
    ".globl ghash_ct_vmull8_run",
    ".hidden ghash_ct_vmull8_run",
    ".type ghash_ct_vmull8_run, %function",
    "ghash_ct_vmull8_run:",
    "push {{r4-r8, lr}}",
    "vpush {{d8-d15}}",
    "sub sp, sp, #192",
    "mov r12, sp",
    // Pre-pass: load, byte-reverse (GHASH), fold the accumulator into the
    // first block, store blocks and their lo ^ hi halves to the scratch.
    "vld1.8 {{d30, d31}}, [r0]",
    "and r7, r2, #0xff",
    "and r6, r2, #0x100",
    "mov r4, r12",
    "add r5, r12, #128",
    "1:",
    "vld1.8 {{d0, d1}}, [r1]!",
    "cmp r6, #0",
    "beq 2f",
    "vrev64.8 q0, q0",
    "vswp d0, d1",
    "2:",
    "veor q0, q0, q15",
    "vmov.i8 q15, #0",
    "veor d2, d0, d1",
    "vst1.8 {{d0, d1}}, [r4]!",
    "vst1.8 {{d2}}, [r5]!",
    "subs r7, r7, #1",
    "bne 1b",
    // Pass lo: halves at scratch + 0, stride 16; key part lo.
    "mov r4, r12",
    "mov r5, #16",
    "mov r6, r3",
    "bl 50f",
    "vmov q12, q0",
    // Pass hi: halves at scratch + 8, stride 16; key part hi.
    "add r4, r12, #8",
    "add r6, r3, #8",
    "bl 50f",
    "vmov q13, q0",
    // Pass mid: lo ^ hi at scratch + 64, stride 8; key part mid.
    "add r4, r12, #128",
    "mov r5, #8",
    "and r7, r2, #0xff",
    "add r6, r3, #64",
    "add r6, r6, r7, lsl #3",
    "bl 50f",
    // Karatsuba: mid ^= lo ^ hi; 256-bit product d24:d25:d26:d27.
    "veor q14, q0, q12",
    "veor q14, q14, q13",
    "veor d25, d25, d28",
    "veor d26, d26, d29",
    // Montgomery reduction by C = x^63 + x^62 + x^57 (see field.rs).
    "vshl.i64 d0, d24, #63",
    "vshl.i64 d1, d24, #62",
    "vshl.i64 d2, d24, #57",
    "veor d0, d0, d1",
    "veor d25, d25, d2",
    "veor d25, d25, d0",
    "vshr.u64 d0, d24, #1",
    "vshr.u64 d1, d24, #2",
    "vshr.u64 d2, d24, #7",
    "veor d26, d26, d24",
    "veor d0, d0, d1",
    "veor d26, d26, d2",
    "veor d26, d26, d0",
    "vshl.i64 d0, d25, #63",
    "vshl.i64 d1, d25, #62",
    "vshl.i64 d2, d25, #57",
    "veor d0, d0, d1",
    "veor d26, d26, d2",
    "veor d26, d26, d0",
    "vshr.u64 d0, d25, #1",
    "vshr.u64 d1, d25, #2",
    "vshr.u64 d2, d25, #7",
    "veor d27, d27, d25",
    "veor d0, d0, d1",
    "veor d27, d27, d2",
    "veor d27, d27, d0",
    "vst1.8 {{d26, d27}}, [r0]",
    // Wipe the scratch (prepared data) and the NEON registers that held
    // data or key material.
    "vmov.i8 q0, #0",
    "mov r4, r12",
    "vmov.i8 q1, #0",
    "vst1.8 {{d0, d1, d2, d3}}, [r4]!",
    "vst1.8 {{d0, d1, d2, d3}}, [r4]!",
    "vst1.8 {{d0, d1, d2, d3}}, [r4]!",
    "vst1.8 {{d0, d1, d2, d3}}, [r4]!",
    "vst1.8 {{d0, d1, d2, d3}}, [r4]!",
    "vst1.8 {{d0, d1, d2, d3}}, [r4]!",
    "veor q5, q5, q5",
    "veor q6, q6, q6",
    "veor q8, q8, q8",
    "veor q9, q9, q9",
    "veor q10, q10, q10",
    "veor q11, q11, q11",
    "veor q12, q12, q12",
    "veor q13, q13, q13",
    "veor q14, q14, q14",
    "add sp, sp, #192",
    "vpop {{d8-d15}}",
    "pop {{r4-r8, pc}}",
    // One pass over the n blocks for one Karatsuba part (local subroutine,
    // called with `bl`; the caller's lr is on the stack): sum the families
    // F0..F4 into q0..q4, place them, and leave the 128-bit product in q0.
    "50:",
    "vmov.i8 q0, #0",
    "vmov.i8 q1, #0",
    "vmov.i8 q2, #0",
    "vmov.i8 q3, #0",
    "vmov.i8 q4, #0",
    "and r7, r2, #0xff",
    "3:",
    "vld1.64 {{d14}}, [r4], r5",
    "vld1.64 {{d16}}, [r6], r5",
    "vext.8 d17, d16, d16, #1",
    "vext.8 d18, d16, d16, #2",
    "vext.8 d19, d16, d16, #3",
    "vext.8 d20, d16, d16, #4",
    "vext.8 d21, d14, d14, #1",
    "vext.8 d22, d14, d14, #2",
    "vext.8 d23, d14, d14, #3",
    "vmull.p8 q5, d14, d16",
    "veor q0, q0, q5",
    "vmull.p8 q5, d14, d17",
    "vmull.p8 q6, d21, d16",
    "veor q1, q1, q5",
    "veor q1, q1, q6",
    "vmull.p8 q5, d14, d18",
    "vmull.p8 q6, d22, d16",
    "veor q2, q2, q5",
    "veor q2, q2, q6",
    "vmull.p8 q5, d14, d19",
    "vmull.p8 q6, d23, d16",
    "veor q3, q3, q5",
    "veor q3, q3, q6",
    "vmull.p8 q5, d14, d20",
    "veor q4, q4, q5",
    "subs r7, r7, #1",
    "bne 3b",
    // Placement: keep masks for families 1, 2, 3 (wrapped lanes cleared).
    "vmov.i64 d22, #0x0000ffffffffffff",
    "vmov.i64 d23, #0x00000000ffffffff",
    "vmov.i64 d21, #0x000000000000ffff",
    "veor d2, d2, d3",
    "vand d3, d3, d22",
    "veor d2, d2, d3",
    "vext.8 q1, q1, q1, #15",
    "veor d4, d4, d5",
    "vand d5, d5, d23",
    "veor d4, d4, d5",
    "vext.8 q2, q2, q2, #14",
    "veor d6, d6, d7",
    "vand d7, d7, d21",
    "veor d6, d6, d7",
    "vext.8 q3, q3, q3, #13",
    "veor d8, d8, d9",
    "vmov.i64 d9, #0",
    "vext.8 q4, q4, q4, #12",
    "veor q0, q0, q1",
    "veor q2, q2, q3",
    "veor q0, q0, q4",
    "veor q0, q0, q2",
    "bx lr",
    ".size ghash_ct_vmull8_run, .-ghash_ct_vmull8_run",
);

/// The NEON `vmull.p8` engine.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Vmull8;

impl crate::backend::Engine for Vmull8 {
    type Token = Token;
    type Key = Key8;

    fn token() -> Option<Token> {
        super::has_neon().then_some(Token(()))
    }

    fn new_key(token: Token, h: u128) -> Self::Key {
        ClmulKey::new(token, h, crate::soft::dot)
    }

    fn update<const GHASH: bool>(key: &Self::Key, acc: &mut u128, blocks: &[Block]) {
        const { assert!(core::mem::offset_of!(Key8, md) == core::mem::offset_of!(Key8, hd) + 16 * WAYS) };
        let flag = if GHASH { 0x100 } else { 0 };
        let run = |key: &Key8, mut a: u128, run: &[Block]| {
            let n = run.len();
            // The routine reads powers and middle terms n..1.
            assert!((1..=WAYS).contains(&n));
            let k = core::ptr::from_ref(key)
                .cast::<u8>()
                .wrapping_add(core::mem::offset_of!(Key8, hd) + 16 * (WAYS - n));
            // SAFETY: a key holds a `Token`, so this CPU has NEON. The
            // routine reads `n` (1..=8) blocks from `run`, the key's powers
            // H^n..H^1 from `k` (`hd[8 - n..]`) and their middle terms from
            // `md[8 - n..]`, which follows `hd` (checked above), all inside
            // `key`, and reads/writes the 16 bytes of `a`; it saves every
            // callee-saved register it uses.
            unsafe { ghash_ct_vmull8_run(&mut a, run.as_ptr().cast(), n as u32 | flag, k.cast()) };
            a
        };
        *acc = by_runs::<WAYS, false, _, _>(key, *acc, blocks, |k, a, r| run(k, a, r), run);
    }
}
