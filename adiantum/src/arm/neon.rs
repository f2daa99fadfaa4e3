//! NEON assembly NH backend for 32-bit ARM (armv7) Linux.
//!
//! Technique: per 16-byte unit and pass p, `vadd.i32 T, M, K_p`, then one
//! `vmlal.u32 acc_p, T.lo, T.hi` computes (t0 t2, t1 t3) into the pass's two
//! 64-bit lanes: with stride 2 the two halves of a q register are exactly the
//! operands NH multiplies (Crowley & Biggers, IACR ToSC 2018(4), section 6.3
//! chose s = 2 for ARM32 NEON). The main loop takes 4 units and loads the 7
//! key vectors they share once. Assembly, not intrinsics: NEON intrinsics
//! are unstable on 32-bit ARM, and compilers spill 128-bit NEON code there
//! (design notes, section 2, NetBSD). NEON is detected at run time from
//! `getauxval(AT_HWCAP)` bit 12 (`HWCAP_NEON`), so the code is built with
//! `.fpu neon` inside a `global_asm!` function and entered only with a token.
//! Cost: per 4 units (64 bytes) 4 key loads, 2 message loads, 16 `vadd`,
//! 16 `vmlal`, 3 loop instructions: ~0.64 instructions per byte.
//!
//! Register plan (AAPCS: r0-r3, ip, q0-q3, q8-q15 are scratch; d8-d15 are
//! saved with `vpush`/`vpop`):
//!   r0  key pointer (advances 16 bytes per unit)
//!   r1  message pointer (advances 16 bytes per unit)
//!   r2  units left (public length)       r3  out pointer (8 x u64)
//!   ip  second key address
//!   q0-q3   pass sums 0..3 (two u64 lanes each)
//!   q4-q10  key vectors K[u]..K[u+6] (4-unit loop); q4-q7 in the 1-unit loop
//!   q12-q15 message units M[u]..M[u+3]
//!   q11 and each dead key/message register: T = M + K temporaries

use crate::backend::Engine;
use crate::nh::NhKey;
use core::sync::atomic::{AtomicU8, Ordering};

/// `HWCAP_NEON` in `AT_HWCAP` on 32-bit ARM Linux.
const HWCAP_NEON: libc::c_ulong = 1 << 12;

core::arch::global_asm!(
    ".text",
    ".syntax unified",
    ".arch armv7-a",
    ".fpu neon",
    ".arm",
    ".p2align 4",
    ".globl adiantum_ct_nh_neon_armv7",
    ".hidden adiantum_ct_nh_neon_armv7",
    ".type adiantum_ct_nh_neon_armv7, %function",
    "adiantum_ct_nh_neon_armv7:",
    "    vpush       {{d8-d15}}",
    "    vmov.i64    q0, #0",
    "    vmov.i64    q1, #0",
    "    vmov.i64    q2, #0",
    "    vmov.i64    q3, #0",
    "    subs        r2, r2, #4",
    "    blo         3f",
    "1:",
    "    vld1.32     {{d8-d11}}, [r0]!",  // q4 = K0, q5 = K1
    "    vld1.32     {{d12-d15}}, [r0]!", // q6 = K2, q7 = K3
    "    add         ip, r0, #32",
    "    vld1.32     {{d16-d19}}, [r0]",  // q8 = K4, q9 = K5
    "    vld1.32     {{d20-d21}}, [ip]",  // q10 = K6
    "    vld1.8      {{d24-d27}}, [r1]!", // q12 = M0, q13 = M1
    "    vld1.8      {{d28-d31}}, [r1]!", // q14 = M2, q15 = M3
    // unit 0: M0 with K0..K3
    "    vadd.i32    q11, q12, q4",
    "    vmlal.u32   q0, d22, d23",
    "    vadd.i32    q4, q12, q5",
    "    vmlal.u32   q1, d8, d9",
    "    vadd.i32    q11, q12, q6",
    "    vmlal.u32   q2, d22, d23",
    "    vadd.i32    q4, q12, q7",
    "    vmlal.u32   q3, d8, d9",
    // unit 1: M1 with K1..K4 (q12 free)
    "    vadd.i32    q11, q13, q5",
    "    vmlal.u32   q0, d22, d23",
    "    vadd.i32    q12, q13, q6",
    "    vmlal.u32   q1, d24, d25",
    "    vadd.i32    q11, q13, q7",
    "    vmlal.u32   q2, d22, d23",
    "    vadd.i32    q12, q13, q8",
    "    vmlal.u32   q3, d24, d25",
    // unit 2: M2 with K2..K5 (q5 free)
    "    vadd.i32    q11, q14, q6",
    "    vmlal.u32   q0, d22, d23",
    "    vadd.i32    q5, q14, q7",
    "    vmlal.u32   q1, d10, d11",
    "    vadd.i32    q11, q14, q8",
    "    vmlal.u32   q2, d22, d23",
    "    vadd.i32    q5, q14, q9",
    "    vmlal.u32   q3, d10, d11",
    // unit 3: M3 with K3..K6 (q6 free)
    "    vadd.i32    q11, q15, q7",
    "    vmlal.u32   q0, d22, d23",
    "    vadd.i32    q6, q15, q8",
    "    vmlal.u32   q1, d12, d13",
    "    vadd.i32    q11, q15, q9",
    "    vmlal.u32   q2, d22, d23",
    "    vadd.i32    q6, q15, q10",
    "    vmlal.u32   q3, d12, d13",
    "    subs        r2, r2, #4",
    "    bhs         1b",
    "3:",
    "    adds        r2, r2, #4",
    "    beq         5f",
    "4:",
    "    vld1.8      {{d24-d25}}, [r1]!", // q12 = M
    "    add         ip, r0, #32",
    "    vld1.32     {{d8-d11}}, [r0]",  // q4 = K0, q5 = K1
    "    vld1.32     {{d12-d15}}, [ip]", // q6 = K2, q7 = K3
    "    add         r0, r0, #16",
    "    vadd.i32    q11, q12, q4",
    "    vmlal.u32   q0, d22, d23",
    "    vadd.i32    q4, q12, q5",
    "    vmlal.u32   q1, d8, d9",
    "    vadd.i32    q5, q12, q6",
    "    vmlal.u32   q2, d10, d11",
    "    vadd.i32    q6, q12, q7",
    "    vmlal.u32   q3, d12, d13",
    "    subs        r2, r2, #1",
    "    bne         4b",
    "5:",
    "    vst1.64     {{d0-d3}}, [r3]!",
    "    vst1.64     {{d4-d7}}, [r3]",
    "    vpop        {{d8-d15}}",
    "    bx          lr",
    ".size adiantum_ct_nh_neon_armv7, .-adiantum_ct_nh_neon_armv7",
);

unsafe extern "C" {
    /// NH sums of `units` 16-byte units at `msg` under the key at `key`
    /// (reads key words `0..4 * units + 12`), written as 8 u64 lanes
    /// (pass p = lanes 2p + 2p+1) to `out`. Needs NEON.
    fn adiantum_ct_nh_neon_armv7(key: *const u32, msg: *const u8, units: usize, out: *mut u64);
}

/// The armv7 NEON assembly NH engine.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NeonAsm;

/// Proof that this CPU has NEON (only [`NeonAsm::token`] makes one).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Token(());

/// 0 = not yet asked, 1 = no NEON, 2 = NEON.
static HAS_NEON: AtomicU8 = AtomicU8::new(0);

impl Engine for NeonAsm {
    type Token = Token;

    fn token() -> Option<Token> {
        let mut v = HAS_NEON.load(Ordering::Relaxed);
        if v == 0 {
            // SAFETY: getauxval only reads the process's auxiliary vector.
            let hwcap = unsafe { libc::getauxval(libc::AT_HWCAP) };
            v = if hwcap & HWCAP_NEON != 0 { 2 } else { 1 };
            HAS_NEON.store(v, Ordering::Relaxed);
        }
        (v == 2).then_some(Token(()))
    }

    #[inline]
    fn units(_: Token, key: &NhKey, msg: &[u8]) -> [u64; 4] {
        // At most 64 units: the routine then reads key words < 4 * 64 + 12 = 268.
        let units = msg.len().min(1024) / 16;
        let mut lanes = [0u64; 8];
        // SAFETY: the token proves NEON; `key.words` has 268 words, `msg`
        // has at least 16 * units bytes, `lanes` has room for 8 u64; the
        // routine follows the AAPCS (saves d8-d15) and touches no other memory.
        unsafe {
            adiantum_ct_nh_neon_armv7(key.words.as_ptr(), msg.as_ptr(), units, lanes.as_mut_ptr())
        };
        [
            lanes[0].wrapping_add(lanes[1]),
            lanes[2].wrapping_add(lanes[3]),
            lanes[4].wrapping_add(lanes[5]),
            lanes[6].wrapping_add(lanes[7]),
        ]
    }
}
