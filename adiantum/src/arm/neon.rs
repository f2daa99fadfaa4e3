//! NEON assembly NH and ChaCha backend for 32-bit ARM (armv7) Linux.
//!
//! ## NH
//!
//! Technique: per 16-byte unit and pass p, `vadd.i32 T, M, K_p`, then one
//! `vmlal.u32 acc_p, T.lo, T.hi` computes (t0 t2, t1 t3) into the pass's two
//! 64-bit lanes: with stride 2 the two halves of a q register are exactly the
//! operands NH multiplies (Crowley & Biggers, IACR ToSC 2018(4), section 6.3
//! chose s = 2 for ARM32 NEON). The main loop takes 4 units and loads the 7
//! key vectors they share once. Assembly, not intrinsics: NEON intrinsics
//! are unstable on 32-bit ARM, and compilers spill 128-bit NEON code there
//! (NetBSD's experience with its Adiantum code). NEON is detected at run time from
//! `getauxval(AT_HWCAP)` bit 12 (`HWCAP_NEON`), so the code is built with
//! `.fpu neon` inside a `global_asm!` function and entered only with a token.
//! Cost: per 4 units (64 bytes) 4 key loads, 2 message loads, 16 `vadd`,
//! 16 `vmlal`, 3 loop instructions: ~0.64 instructions per byte.
//!
//! Register plan (AAPCS: r0-r3, ip, q0-q3, q8-q15 are scratch; d8-d15 are
//! saved with `vpush`/`vpop`):
//! ```text
//!   r0  key pointer (advances 16 bytes per unit)
//!   r1  message pointer (advances 16 bytes per unit)
//!   r2  units left (public length)       r3  out pointer (8 x u64)
//!   ip  second key address
//!   q0-q3   pass sums 0..3 (two u64 lanes each)
//!   q4-q10  key vectors K[u]..K[u+6] (4-unit loop); q4-q7 in the 1-unit loop
//!   q12-q15 message units M[u]..M[u+3]
//!   q11 and each dead key/message register: T = M + K temporaries
//! ```

//!
//! ## ChaCha
//!
//! RustCrypto `chacha20` has no NEON code for 32-bit ARM (its portable
//! code is most of an Adiantum-XChaCha12 message there: figures in
//! `PERFORMANCE.md`), so this backend brings its own ChaCha block loop.
//! Technique: one block per iteration, one state row per q register (Bernstein's "ChaCha, a variant of Salsa20"
//! round function, vectorised across the four columns as in the NEON
//! implementations in Linux's `chacha-neon-core.S` and NetBSD): a column
//! round, `vext.32` to move rows b, c, d by 1, 2, 3 lanes so the diagonals
//! become columns, the same round, and `vext` back. Rotations: 16 with
//! `vrev32.16`, 12/8/7 with `vshl` + `vsri`. Cost per 64-byte block: 36
//! instructions per double round (6 for ChaCha12) + ~20 for the feed-forward,
//! XOR and loop: ~3.9 instructions per byte for XChaCha12.
//!
//! Register plan (`adiantum_ct_chacha_neon_armv7`):
//!   r0  state pointer (16 words; word 12, the counter, written back)
//!   r1  input pointer  r2  output pointer (may equal r1; each block is
//!       loaded before it is stored)   r3  blocks left (public length)
//!   r4  double rounds (5th argument, on the stack; 4, 6 or 10)
//!   r5  double-round counter     (r4, r5 saved with push/pop)
//!   q0-q3   working rows a, b, c, d
//!   q8-q11  input state rows (q11 = counter/nonce row, counter += 1 per block)
//!   q12     [1, 0, 0, 0]         q13-q15 rotation / data temporaries

use crate::nh::NhKey;
use cipher::InOutBuf;
use zeroize::Zeroize;

/// The directives that open a `global_asm!` function `$name` of this
/// file: ARM (not Thumb) state, ARMv7-A with NEON, 16-byte aligned, global
/// to the link but hidden from other objects.
macro_rules! neon_fn {
    ($name:literal) => {
        concat!(
            ".text\n",
            ".syntax unified\n",
            ".arch armv7-a\n",
            ".fpu neon\n",
            ".arm\n",
            ".p2align 4\n",
            ".globl ",
            $name,
            "\n",
            ".hidden ",
            $name,
            "\n",
            ".type ",
            $name,
            ", %function\n",
            $name,
            ":",
        )
    };
}

/// The two d halves of a q register, as `vmlal.u32` takes its operands
/// (the registers the NH routine uses as temporaries).
macro_rules! halves {
    (q4) => {
        "d8, d9"
    };
    (q5) => {
        "d10, d11"
    };
    (q6) => {
        "d12, d13"
    };
    (q11) => {
        "d22, d23"
    };
    (q12) => {
        "d24, d25"
    };
}

/// NH of one message unit `$m` for the four passes: pass p computes
/// `$t_p = $m + $k_p` (`vadd.i32`), then one `vmlal.u32` adds
/// `$t_p.lo * $t_p.hi` into the pass sums `q<p>`. A temporary may be a key
/// register that is dead after its own pass's add.
macro_rules! nh_unit {
    (
        $m:ident;
        $k0:ident, $k1:ident, $k2:ident, $k3:ident;
        $t0:ident, $t1:ident, $t2:ident, $t3:ident
    ) => {
        concat!(
            nh_unit!(@pass q0, $m, $k0, $t0),
            nh_unit!(@pass q1, $m, $k1, $t1),
            nh_unit!(@pass q2, $m, $k2, $t2),
            nh_unit!(@pass q3, $m, $k3, $t3),
        )
    };
    (@pass $acc:ident, $m:ident, $k:ident, $t:ident) => {
        concat!(
            "    vadd.i32    ", stringify!($t), ", ", stringify!($m), ", ", stringify!($k), "\n",
            "    vmlal.u32   ", stringify!($acc), ", ", halves!($t), "\n",
        )
    };
}

core::arch::global_asm!(
    neon_fn!("adiantum_ct_nh_neon_armv7"),
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
    nh_unit!(q12; q4, q5, q6, q7; q11, q4, q11, q4),
    // unit 1: M1 with K1..K4 (q12 free)
    nh_unit!(q13; q5, q6, q7, q8; q11, q12, q11, q12),
    // unit 2: M2 with K2..K5 (q5 free)
    nh_unit!(q14; q6, q7, q8, q9; q11, q5, q11, q5),
    // unit 3: M3 with K3..K6 (q6 free)
    nh_unit!(q15; q7, q8, q9, q10; q11, q6, q11, q6),
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
    nh_unit!(q12; q4, q5, q6, q7; q11, q4, q5, q6),
    "    subs        r2, r2, #1",
    "    bne         4b",
    "5:",
    "    vst1.64     {{d0-d3}}, [r3]!",
    "    vst1.64     {{d4-d7}}, [r3]",
    "    vpop        {{d8-d15}}",
    "    bx          lr",
    ".size adiantum_ct_nh_neon_armv7, .-adiantum_ct_nh_neon_armv7",
);

/// One ChaCha quarter round on all four columns (or diagonals) at once:
/// rows a = q0, b = q1, c = q2, d = q3, temporary q13.
macro_rules! chacha_qr {
    () => {
        concat!(
            "    vadd.i32    q0, q0, q1\n",
            "    veor        q3, q3, q0\n",
            "    vrev32.16   q3, q3\n",
            "    vadd.i32    q2, q2, q3\n",
            "    veor        q13, q1, q2\n",
            "    vshl.i32    q1, q13, #12\n",
            "    vsri.32     q1, q13, #20\n",
            "    vadd.i32    q0, q0, q1\n",
            "    veor        q13, q3, q0\n",
            "    vshl.i32    q3, q13, #8\n",
            "    vsri.32     q3, q13, #24\n",
            "    vadd.i32    q2, q2, q3\n",
            "    veor        q13, q1, q2\n",
            "    vshl.i32    q1, q13, #7\n",
            "    vsri.32     q1, q13, #25\n",
        )
    };
}

core::arch::global_asm!(
    neon_fn!("adiantum_ct_chacha_neon_armv7"),
    "    push        {{r4, r5}}",
    "    ldr         r4, [sp, #8]",
    "    vld1.32     {{d16-d19}}, [r0]!", // q8 = constants, q9 = key 0..3
    "    vld1.32     {{d20-d23}}, [r0]",  // q10 = key 4..7, q11 = counter/nonce
    "    vmov.i32    q12, #0",
    "    mov         ip, #1",
    "    vmov.32     d24[0], ip",
    "    cmp         r3, #0",
    "    beq         3f",
    "1:",
    "    vmov        q0, q8",
    "    vmov        q1, q9",
    "    vmov        q2, q10",
    "    vmov        q3, q11",
    "    mov         r5, r4",
    "2:",
    chacha_qr!(),
    "    vext.32     q1, q1, q1, #1",
    "    vext.32     q2, q2, q2, #2",
    "    vext.32     q3, q3, q3, #3",
    chacha_qr!(),
    "    vext.32     q1, q1, q1, #3",
    "    vext.32     q2, q2, q2, #2",
    "    vext.32     q3, q3, q3, #1",
    "    subs        r5, r5, #1",
    "    bne         2b",
    "    vadd.i32    q0, q0, q8",
    "    vadd.i32    q1, q1, q9",
    "    vadd.i32    q2, q2, q10",
    "    vadd.i32    q3, q3, q11",
    "    vld1.8      {{d26-d29}}, [r1]!",
    "    veor        q0, q0, q13",
    "    veor        q1, q1, q14",
    "    vld1.8      {{d26-d29}}, [r1]!",
    "    veor        q2, q2, q13",
    "    veor        q3, q3, q14",
    "    vst1.8      {{d0-d3}}, [r2]!",
    "    vst1.8      {{d4-d7}}, [r2]!",
    "    vadd.i32    q11, q11, q12",
    "    subs        r3, r3, #1",
    "    bne         1b",
    "3:",
    "    add         ip, r0, #16",
    "    vst1.32     {{d22-d23}}, [ip]", // write back the counter row
    // Leave no key stream or key material in the scratch registers.
    "    vmov.i32    q0, #0",
    "    vmov.i32    q1, #0",
    "    vmov.i32    q2, #0",
    "    vmov.i32    q3, #0",
    "    vmov.i32    q9, #0",
    "    vmov.i32    q10, #0",
    "    vmov.i32    q13, #0",
    "    vmov.i32    q14, #0",
    "    pop         {{r4, r5}}",
    "    bx          lr",
    ".size adiantum_ct_chacha_neon_armv7, .-adiantum_ct_chacha_neon_armv7",
);

unsafe extern "C" {
    /// XORs `blocks` 64-byte ChaCha key-stream blocks of `state` (16 words,
    /// `double_rounds` double rounds; word 12 advanced by `blocks`) over
    /// `input` into `output` (may be the same address). Needs NEON.
    fn adiantum_ct_chacha_neon_armv7(
        state: *mut u32,
        input: *const u8,
        output: *mut u8,
        blocks: usize,
        double_rounds: usize,
    );

    /// NH sums of `units` 16-byte units at `msg` under the key at `key`
    /// (reads key words `0..4 * units + 12`), written as 8 u64 lanes
    /// (pass p = lanes 2p + 2p+1) to `out`. Needs NEON.
    fn adiantum_ct_nh_neon_armv7(key: *const u32, msg: *const u8, units: usize, out: *mut u64);
}

crate::backend::engine! {
    /// The armv7 NEON assembly NH engine.
    NeonAsm, "has NEON", ct_dispatch::arm::has_neon();

    own_chacha(t, state, double_rounds, buf) {
        // Anything else would not be ChaCha8/12/20 (and the routine needs
        // at least one double round).
        if !matches!(double_rounds, 4 | 6 | 10) {
            return false;
        }
        let whole = buf.len() - buf.len() % 64;
        let (head, mut tail) = buf.split_at(whole);
        chacha_whole_blocks(t, state, double_rounds, head);
        if !tail.is_empty() {
            let mut ks = [0u8; 64];
            chacha_whole_blocks(t, state, double_rounds, InOutBuf::from(&mut ks[..]));
            tail.xor_in2out(&ks[..tail.len()]);
            ks.zeroize();
        }
        true
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

/// Whole 64-byte blocks of `buf` (a partial tail is left alone) through the
/// assembly routine; `double_rounds` is 4, 6 or 10.
fn chacha_whole_blocks(
    _: Token,
    state: &mut [u32; 16],
    double_rounds: usize,
    buf: InOutBuf<'_, '_, u8>,
) {
    let blocks = buf.len() / 64;
    let (input, output) = buf.into_raw();
    // SAFETY: the token proves NEON; `input` and `output` come from one
    // `InOutBuf` of at least 64 * blocks bytes (equal or non-overlapping
    // buffers, each block read before it is written); `state` is 16 words;
    // `double_rounds` >= 1 (the caller checked 4, 6 or 10); the routine
    // follows the AAPCS (r4, r5 saved; only q0-q3, q8-q15 used) and touches
    // no other memory.
    unsafe {
        adiantum_ct_chacha_neon_armv7(state.as_mut_ptr(), input, output, blocks, double_rounds)
    };
}
