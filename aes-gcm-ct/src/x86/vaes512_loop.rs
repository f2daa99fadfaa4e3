//! The main loop of the 512-bit (`vaes-clmul`) path, scheduled by hand,
//! both directions: 32 blocks per iteration in eight AES states, their
//! rounds interleaved with the GHASH of 32 ciphertext blocks (encryption:
//! the previous iteration's output; decryption: this iteration's input)
//! against H^32..H^1, one reduction per iteration.
//!
//! Technique: as `vaes_clmul.rs` (the aggregated-reduction GHASH of
//! Gueron and Kounavis, "Intel Carry-Less Multiplication Instruction and
//! its Usage for Computing the GCM Mode", rev. 2.02, in the POLYVAL form of
//! RFC 8452 appendix A), with Karatsuba products: each ciphertext vector
//! takes 3 `vpclmulqdq` (low halves, high halves, and its XORed halves
//! against the powers' XORed halves, which follow the powers), the middle sum
//! settled once per iteration (a multiply competes with the AES rounds for
//! their pipelines; the swap and XOR that replace one do not). The products
//! of two vectors go into the sums with one three-way XOR (`vpternlogq`)
//! per sum: vector XORs also issue to the AES pipelines, so each one saved
//! gives the rounds time back.
//!
//! Why eight states and not four: a 512-bit `vaesenc`'s latency is about
//! as long as four of them take to issue, so four states keep the AES
//! units exactly busy and every multiply placed among the rounds delays
//! the round chain; with eight, a round's instructions outlast its
//! latency and the multiplies fill the gaps. Middle round r (1..=8)
//! carries the products of vector 8 - r (vector 0, which takes the running
//! hash, last: the shortest chain into the next iteration), round 9 the
//! reduction of each lane and the fold of the four lanes (AES-192/256's
//! later rounds carry nothing: spreading the products over them measured
//! no faster, `PERFORMANCE.md`). The last round XORs the round key with
//! the input first (`aesenclast(x, k) ^ p = aesenclast(x, k ^ p)`). Why by
//! hand: the compiler's schedule of the same loop (eight states,
//! intrinsics) bunched the products between rounds and ran AES-256 slower
//! than four states (`PERFORMANCE.md`).
//!
//! Counter blocks: vector 0's are kept with a little-endian counter word
//! (stepped by one add), and each vector's real blocks are one add of its
//! offset and one shuffle away. When no counter of an iteration carries
//! out of its lowest byte, the offsets are added to the real blocks
//! instead (that byte is the top byte of dword 3), after one shuffle of
//! vector 0's: seven shuffles fewer, and shuffles issue to an AES
//! pipeline. Whether it carries depends on the counter value, so only a
//! public counter (96-bit nonce) takes that path; with a secret one every
//! iteration takes the shuffles (the check below fails by construction,
//! [`low_byte`](super::vaes_clmul::low_byte)).
//!
//! Cost per 32 blocks: 8 NR `vaesenc`/`vaesenclast`, 26 `vpclmulqdq`
//! (24 products, 2 for the reduction), 17 or 24 shuffles (1 or 8 counter
//! blocks, 8 byte reversals, 8 half swaps), 12 three-way XORs gathering
//! the products, 16 vector loads, 8 stores.
//!
//! Register plan:
//!
//! | register | holds |
//! |---|---|
//! | zmm0-zmm7 | the AES states of vectors 0-7 (blocks 4k .. 4k + 3) |
//! | zmm8, zmm9, zmm10 | the unreduced sums: low, middle, high (set by vectors 7 and 6, then added to) |
//! | zmm11 | the ciphertext vector being hashed, then an even vector's high product; input ^ last round key |
//! | zmm12 | its halves XORed, then an even vector's middle product; reduction temporary |
//! | zmm28 | an even vector's low product |
//! | zmm29, zmm30, zmm31 | an odd vector's products (low, high, middle), added with the next vector's |
//! | zmm13 | vector 0's counter blocks, counter word little-endian |
//! | xmm14 | the running hash (upper lanes zero) |
//! | zmm15 | the round key of the round |
//! | zmm16, zmm17, zmm18, zmm19 | counter byte order, byte reversal, the reduction's constant, the counter step |
//! | zmm20-zmm27 | the powers: vector k's (H^(32 - 4k) .. H^(29 - 4k)) in zmm(20 + k) |
//! | `rk` / `pw` / `cst` | round keys; powers, then their XORed halves; the loop's constants ([`LoopConsts`], static) |
//! | `inp` / `out` / `hash` / `n` | this iteration's input, output, hashed blocks; iterations left |
//! | `low` | the lowest byte of the first counter (bits 0-7), or 256 for a secret counter ([`low_byte`](super::vaes_clmul::low_byte)) |
//!
//! Constant time: two branches, the loop's on the public iteration count
//! and the counter blocks' on `low`, which is a counter value only when
//! the counter is public (96-bit nonce) and a constant otherwise; no
//! memory index depends on data.

use super::vaes_clmul::{BATCH, LoopConsts};
use core::arch::asm;
use core::arch::x86_64::{__m128i, __m512i};

/// Blocks (and counter steps) per iteration: a pair of batches.
const STEP: usize = 2 * BATCH;

/// An iteration's 32 counters `c .. c + 31` leave their lowest byte
/// without a carry when that byte of `c` is at most this.
const NO_CARRY_MAX: u32 = 256 - STEP as u32;

/// The loop's public constants: 16 dwords per vector, 32 blocks per
/// iteration.
static CST: LoopConsts<16> = LoopConsts::new(STEP as u32);
// The byte offsets the assembly reads `CST` at (vectors 0-3 as one run
// into zmm16-zmm19, then `offs`, then `offs_be`).
const _: () = {
    use core::mem::offset_of;
    assert!(offset_of!(LoopConsts<16>, inc) == 3 * 64);
    assert!(offset_of!(LoopConsts<16>, offs) == 256);
    assert!(offset_of!(LoopConsts<16>, offs_be) == 768);
};

/// Encrypt or decrypt `n` iterations of 512 bytes from `inp` to `out`,
/// each also hashing the 512 bytes at `hash` (stepped by 512 too:
/// `out - 512` when encrypting, the previous iteration's output; `inp`
/// when decrypting) into `acc`; `c0` holds vector 0's counter blocks and
/// is stepped by one iteration each time; `low` is
/// [`low_byte`](super::vaes_clmul::low_byte) of the first block's counter.
///
/// # Safety
/// The CPU has AVX-512F/BW, VAES and VPCLMULQDQ; `n >= 1`; `inp` and `hash`
/// are readable and `out` writable for `512 n` bytes; `rk` holds round
/// keys 0..=`NR` broadcast to every lane; `pw` is readable for 1024
/// bytes (any alignment): the powers of vector k at `64 k`, their XORed
/// halves at `512 + 64 k`.
#[inline]
#[target_feature(enable = "avx,avx2,avx512f,avx512bw,vaes,vpclmulqdq")]
pub(super) unsafe fn pairs<const NR: usize>(
    rk: &[__m512i; 15],
    pw: *const u8,
    (c0, low): (&mut __m512i, u32),
    acc: &mut __m128i,
    (inp, out, hash): (*const u8, *mut u8, *const u8),
    n: usize,
) {
    const { assert!(NR == 10 || NR == 12 || NR == 14) };
    // SAFETY: the caller's contract; the assembly reads rk[0..=NR], 1024
    // bytes at pw, `CST` and 512 n bytes from each of `inp` and `hash`,
    // writes 512 n bytes to `out`, and touches no other memory and no
    // stack. Its first
    // instruction zeroes the upper lanes of zmm14 (the running hash is
    // XORed into vector 0 as a whole register).
    unsafe {
        asm!(
            r"
            vmovdqa xmm14, xmm14
            // Vector k's low, high and middle products into zmm`lo`,
            // zmm`hi`, zmm`mid`, between AES rounds of states 4, 5, 6.
            .macro vaes512_products lo, hi, mid, k
                vpclmulqdq zmm\lo, zmm11, zmm2\k, 0x00
                vaesenc zmm4, zmm4, zmm15
                vpclmulqdq zmm\hi, zmm11, zmm2\k, 0x11
                vaesenc zmm5, zmm5, zmm15
                vpclmulqdq zmm\mid, zmm12, zmmword ptr [{pw} + 512 + 64*\k], 0x00
                vaesenc zmm6, zmm6, zmm15
            .endm
            .irp c, 16,17,18,19
                vmovdqa64 zmm\c, zmmword ptr [{cst} + 64*(\c-16)]
            .endr
            .irp k, 0,1,2,3,4,5,6,7
                vmovdqu64 zmm2\k, zmmword ptr [{pw} + 64*\k]
            .endr
            2:
            vmovdqa64 zmm15, zmmword ptr [{rk}]
            // Counter blocks: offsets added to the real blocks when no
            // counter carries out of its lowest byte, else the shuffles
            // (out of line, at 5).
            cmp {low:e}, {no_carry_max}
            ja 5f
            vpshufb zmm0, zmm13, zmm16
            .irp k, 1,2,3,4,5,6,7
                vpaddd zmm\k, zmm0, zmmword ptr [{cst} + 768 + 64*\k]
                vpxorq zmm\k, zmm\k, zmm15
            .endr
            vpxorq zmm0, zmm0, zmm15
            3:
            vpaddd zmm13, zmm13, zmm19
            add {low:l}, {step}
            .irp i, 1,2,3,4,5,6,7,8,9,10,11,12,13
            .if \i < {nr}
                vmovdqa64 zmm15, zmmword ptr [{rk} + 64*\i]
                .irp k, 0,1,2,3,4,5,6,7
                .if \i == 8 - \k
                    vaesenc zmm0, zmm0, zmm15
                    vmovdqu64 zmm11, zmmword ptr [{hash} + 64*\k]
                    vaesenc zmm1, zmm1, zmm15
                    vpshufb zmm11, zmm11, zmm17
                    .if \k == 0
                        vpxorq zmm11, zmm11, zmm14
                    .endif
                    vaesenc zmm2, zmm2, zmm15
                    vpshufd zmm12, zmm11, 0x4e
                    vaesenc zmm3, zmm3, zmm15
                    vpxorq zmm12, zmm12, zmm11
                    .if \k & 1
                        vaes512_products 29, 30, 31, \k
                    .else
                        vaes512_products 28, 11, 12, \k
                        .if \k == 6
                            vpxorq zmm8, zmm29, zmm28
                            vpxorq zmm10, zmm30, zmm11
                            vpxorq zmm9, zmm31, zmm12
                        .else
                            vpternlogq zmm8, zmm29, zmm28, 0x96
                            vpternlogq zmm10, zmm30, zmm11, 0x96
                            vpternlogq zmm9, zmm31, zmm12, 0x96
                        .endif
                    .endif
                    vaesenc zmm7, zmm7, zmm15
                .endif
                .endr
                .if \i > 8
                    .irp k, 0,1,2,3,4,5,6,7
                        vaesenc zmm\k, zmm\k, zmm15
                    .endr
                .endif
                .if \i == 9
                    vpternlogq zmm9, zmm8, zmm10, 0x96
                    vpslldq zmm12, zmm9, 8
                    vpsrldq zmm9, zmm9, 8
                    vpxorq zmm8, zmm8, zmm12
                    vpxorq zmm10, zmm10, zmm9
                    vpclmulqdq zmm12, zmm8, zmm18, 0x10
                    vpshufd zmm8, zmm8, 0x4e
                    vpxorq zmm8, zmm8, zmm12
                    vpclmulqdq zmm12, zmm8, zmm18, 0x10
                    vpshufd zmm8, zmm8, 0x4e
                    vpternlogq zmm10, zmm8, zmm12, 0x96
                    vextracti64x4 ymm12, zmm10, 1
                    vpxor ymm10, ymm10, ymm12
                    vextracti128 xmm12, ymm10, 1
                    vpxor xmm14, xmm10, xmm12
                .endif
            .endif
            .endr
            vmovdqa64 zmm15, zmmword ptr [{rk} + 64*{nr}]
            .irp k, 0,1,2,3,4,5,6,7
                vpxorq zmm11, zmm15, zmmword ptr [{inp} + 64*\k]
                vaesenclast zmm\k, zmm\k, zmm11
                vmovdqu64 zmmword ptr [{out} + 64*\k], zmm\k
            .endr
            add {inp}, 512
            add {out}, 512
            add {hash}, 512
            dec {n}
            jnz 2b
            jmp 6f
            5:
            vpshufb zmm0, zmm13, zmm16
            vpxorq zmm0, zmm0, zmm15
            .irp k, 1,2,3,4,5,6,7
                vpaddd zmm\k, zmm13, zmmword ptr [{cst} + 256 + 64*\k]
                vpshufb zmm\k, zmm\k, zmm16
                vpxorq zmm\k, zmm\k, zmm15
            .endr
            jmp 3b
            6:
            .purgem vaes512_products
            ",
            rk = in(reg) rk.as_ptr(),
            pw = in(reg) pw,
            cst = in(reg) &CST,
            inp = inout(reg) inp => _,
            out = inout(reg) out => _,
            hash = inout(reg) hash => _,
            n = inout(reg) n => _,
            low = inout(reg) low => _,
            nr = const NR,
            no_carry_max = const NO_CARRY_MAX,
            step = const STEP,
            inout("zmm13") *c0,
            inout("xmm14") *acc,
            out("zmm0") _, out("zmm1") _, out("zmm2") _, out("zmm3") _,
            out("zmm4") _, out("zmm5") _, out("zmm6") _, out("zmm7") _,
            out("zmm8") _, out("zmm9") _, out("zmm10") _, out("zmm11") _,
            out("zmm12") _, out("zmm15") _,
            out("zmm16") _, out("zmm17") _, out("zmm18") _, out("zmm19") _,
            out("zmm20") _, out("zmm21") _, out("zmm22") _, out("zmm23") _,
            out("zmm24") _, out("zmm25") _, out("zmm26") _, out("zmm27") _,
            out("zmm28") _, out("zmm29") _, out("zmm30") _, out("zmm31") _,
            options(nostack),
        );
    }
}
