//! The main loop of the 256-bit (`vaes-avx2-clmul`) path, scheduled by
//! hand, both directions: 16 blocks per iteration, their AES rounds
//! interleaved with the GHASH of 16 ciphertext blocks (encryption: the
//! previous iteration's output; decryption: this iteration's input).
//!
//! Technique: as `vaes_clmul.rs` (the aggregated-reduction GHASH of
//! Gueron and Kounavis, "Intel Carry-Less Multiplication Instruction and
//! its Usage for Computing the GCM Mode", rev. 2.02, in the POLYVAL form of
//! RFC 8452 appendix A), with Karatsuba products: each ciphertext vector
//! takes 3 `vpclmulqdq` (low halves, high halves, and the XORed halves
//! against the powers' XORed halves, `pmx`), the middle sum is
//! settled once per batch. Eight 256-bit AES states; middle round r
//! (1..=8) carries the products of ciphertext vector 8 - r, its
//! instructions placed between the round's `vaesenc` (the `vaesenc` and
//! `vpclmulqdq` units work side by side, and the scheduler is not left a
//! run of either); round 9 carries the one Montgomery reduction of the 16
//! products and the fold of its two lanes. The last round XORs the round
//! key with the input first (`aesenclast(x, k) ^ p = aesenclast(x, k ^
//! p)`). Why by hand: with 16 vector registers the compiler's allocation
//! of the same loop spilled the sums and AES states and regrouped the
//! products; written out, every value has its own register and the
//! products sit between the rounds. The loop is bound by its count of
//! vector operations (about 240 per 16 blocks), not by one unit, so each
//! saved operation counts; Karatsuba (3 products, a swap and an XOR per
//! vector) beat schoolbook (4 products) here, though not in the compiled
//! loop (`PERFORMANCE.md`).
//!
//! Counter blocks as in `vaes512_loop.rs`: the offsets are added to the
//! real blocks when the counter is public and no counter of the batch
//! carries out of its lowest byte (one shuffle instead of eight), else to
//! the little-endian form, each vector shuffled.
//!
//! Cost per 16 blocks: 8 NR `vaesenc`/`vaesenclast`, 26 `vpclmulqdq`
//! (24 products, 2 for the reduction), 17 or 24 shuffles (1 or 8 counter
//! blocks, 8 byte reversals, 8 Karatsuba half swaps), 16 vector loads, 8
//! stores.
//!
//! Register plan:
//!
//! | register | holds |
//! |---|---|
//! | ymm0-ymm7 | the AES states of vectors 0-7 (blocks 2k, 2k + 1) |
//! | ymm8, ymm9, ymm10 | the unreduced sums: low, middle (Karatsuba), high |
//! | ymm11 | the ciphertext vector being hashed; input ^ last round key |
//! | ymm12 | its halves XORed, then each product in turn; reduction temporary |
//! | ymm13 | vector 0's counter blocks, counter word little-endian |
//! | xmm14 | the running hash (upper lane zero) |
//! | ymm15 | the round key of the round |
//! | `rk` / `pm` / `pmx` / `cst` | round keys, powers, their XORed halves, the loop's constants ([`LoopConsts`], static) |
//! | `inp` / `out` / `hash` / `n` | this batch's input, output, hashed blocks; batches left |
//! | `low` | the lowest byte of the first counter (bits 0-7), or 256 for a secret counter ([`low_byte`](super::vaes_clmul::low_byte)) |
//!
//! Constant time: two branches, the loop's on the public batch count and
//! the counter blocks' on `low`, which is a counter value only when the
//! counter is public (96-bit nonce) and a constant otherwise; no memory
//! index depends on data.

use super::vaes_clmul::{BATCH, LoopConsts};
use core::arch::asm;
use core::arch::x86_64::{__m128i, __m256i};

/// Blocks (and counter steps) per iteration: one batch.
const STEP: usize = BATCH;

/// A batch's 16 counters `c .. c + 15` leave their lowest byte without a
/// carry when that byte of `c` is at most this.
const NO_CARRY_MAX: u32 = 256 - STEP as u32;

/// The loop's public constants: 8 dwords per vector, 16 blocks per
/// iteration.
static CST: LoopConsts<8> = LoopConsts::new(STEP as u32);
// The byte offsets the assembly reads `CST` at.
const _: () = {
    use core::mem::offset_of;
    assert!(offset_of!(LoopConsts<8>, rev) == 32);
    assert!(offset_of!(LoopConsts<8>, poly) == 64);
    assert!(offset_of!(LoopConsts<8>, inc) == 96);
    assert!(offset_of!(LoopConsts<8>, offs) == 128);
    assert!(offset_of!(LoopConsts<8>, offs_be) == 384);
};

/// Encrypt or decrypt `n` whole batches of 256 bytes from `inp` to `out`,
/// each iteration also hashing the 256 bytes at `hash` (stepped by 256
/// too: `out - 256` when encrypting, the previous batch's output; `inp`
/// when decrypting) into `acc`; `c0` holds vector 0's counter blocks and
/// is stepped by one batch per iteration; `low` is
/// [`low_byte`](super::vaes_clmul::low_byte) of the first block's counter.
///
/// # Safety
/// The CPU has AVX2, VAES and VPCLMULQDQ; `n >= 1`; `inp` and `hash` are
/// readable and `out` writable for `256 n` bytes; `rk` holds round keys
/// 0..=`NR`, broadcast to both lanes; `pm` is readable for 256 bytes, the
/// powers of vector k at `32 k` (in the key: any alignment), and `pmx[k]`
/// their XORed halves.
#[inline]
#[target_feature(enable = "avx,avx2,vaes,vpclmulqdq")]
pub(super) unsafe fn batches<const NR: usize>(
    rk: &[__m256i; 15],
    pm: *const u8,
    pmx: &[__m256i; 8],
    (c0, low): (&mut __m256i, u32),
    acc: &mut __m128i,
    (inp, out, hash): (*const u8, *mut u8, *const u8),
    n: usize,
) {
    const { assert!(NR == 10 || NR == 12 || NR == 14) };
    // SAFETY: the caller's contract; the assembly reads rk[0..=NR], 256
    // bytes at pm, pmx, `CST` and 256 n bytes from each of `inp` and `hash`, writes 256 n
    // bytes to `out`, and touches no other memory and no stack. Its first
    // instruction zeroes the upper lane of ymm14 (the running hash is
    // XORed into vector 0 as a whole register).
    unsafe {
        asm!(
            r"
            vmovdqa xmm14, xmm14
            2:
            vmovdqa ymm15, ymmword ptr [{rk}]
            // Counter blocks: offsets added to the real blocks when no
            // counter carries out of its lowest byte, else the shuffles
            // (out of line, at 5).
            cmp {low:e}, {no_carry_max}
            ja 5f
            vpshufb ymm0, ymm13, ymmword ptr [{cst}]
            .irp k, 1,2,3,4,5,6,7
                vpaddd ymm\k, ymm0, ymmword ptr [{cst} + 384 + 32*\k]
                vpxor ymm\k, ymm\k, ymm15
            .endr
            vpxor ymm0, ymm0, ymm15
            3:
            vpaddd ymm13, ymm13, ymmword ptr [{cst} + 96]
            add {low:l}, {step}
            .irp i, 1,2,3,4,5,6,7,8,9,10,11,12,13
            .if \i < {nr}
                vmovdqa ymm15, ymmword ptr [{rk} + 32*\i]
                .if \i <= 8
                    vaesenc ymm0, ymm0, ymm15
                    vmovdqu ymm11, ymmword ptr [{hash} + 256 - 32*\i]
                    vpshufb ymm11, ymm11, ymmword ptr [{cst} + 32]
                    vaesenc ymm1, ymm1, ymm15
                    .if \i == 8
                        vpxor ymm11, ymm11, ymm14
                    .endif
                    vpshufd ymm12, ymm11, 0x4e
                    vaesenc ymm2, ymm2, ymm15
                    vpxor ymm12, ymm12, ymm11
                    .if \i == 1
                        vpclmulqdq ymm9, ymm12, ymmword ptr [{pmx} + 224], 0x00
                        vaesenc ymm3, ymm3, ymm15
                        vpclmulqdq ymm8, ymm11, ymmword ptr [{pm} + 224], 0x00
                        vaesenc ymm4, ymm4, ymm15
                        vpclmulqdq ymm10, ymm11, ymmword ptr [{pm} + 224], 0x11
                        vaesenc ymm5, ymm5, ymm15
                        vaesenc ymm6, ymm6, ymm15
                        vaesenc ymm7, ymm7, ymm15
                    .else
                        vpclmulqdq ymm12, ymm12, ymmword ptr [{pmx} + 256 - 32*\i], 0x00
                        vaesenc ymm3, ymm3, ymm15
                        vpxor ymm9, ymm9, ymm12
                        vpclmulqdq ymm12, ymm11, ymmword ptr [{pm} + 256 - 32*\i], 0x00
                        vaesenc ymm4, ymm4, ymm15
                        vpxor ymm8, ymm8, ymm12
                        vpclmulqdq ymm12, ymm11, ymmword ptr [{pm} + 256 - 32*\i], 0x11
                        vaesenc ymm5, ymm5, ymm15
                        vpxor ymm10, ymm10, ymm12
                        vaesenc ymm6, ymm6, ymm15
                        vaesenc ymm7, ymm7, ymm15
                    .endif
                .else
                    .irp k, 0,1,2,3,4,5,6,7
                        vaesenc ymm\k, ymm\k, ymm15
                    .endr
                .endif
                .if \i == 9
                    vpxor ymm9, ymm9, ymm8
                    vpxor ymm9, ymm9, ymm10
                    vpslldq ymm12, ymm9, 8
                    vpxor ymm8, ymm8, ymm12
                    vpsrldq ymm9, ymm9, 8
                    vpxor ymm10, ymm10, ymm9
                    vpclmulqdq ymm12, ymm8, ymmword ptr [{cst} + 64], 0x10
                    vpshufd ymm8, ymm8, 0x4e
                    vpxor ymm8, ymm8, ymm12
                    vpclmulqdq ymm12, ymm8, ymmword ptr [{cst} + 64], 0x10
                    vpshufd ymm8, ymm8, 0x4e
                    vpxor ymm8, ymm8, ymm12
                    vpxor ymm10, ymm10, ymm8
                    vextracti128 xmm12, ymm10, 1
                    vpxor xmm14, xmm10, xmm12
                .endif
            .endif
            .endr
            vmovdqa ymm15, ymmword ptr [{rk} + 32*{nr}]
            .irp k, 0,1,2,3,4,5,6,7
                vpxor ymm11, ymm15, ymmword ptr [{inp} + 32*\k]
                vaesenclast ymm\k, ymm\k, ymm11
                vmovdqu ymmword ptr [{out} + 32*\k], ymm\k
            .endr
            add {inp}, 256
            add {out}, 256
            add {hash}, 256
            dec {n}
            jnz 2b
            jmp 6f
            5:
            vpshufb ymm0, ymm13, ymmword ptr [{cst}]
            vpxor ymm0, ymm0, ymm15
            .irp k, 1,2,3,4,5,6,7
                vpaddd ymm\k, ymm13, ymmword ptr [{cst} + 128 + 32*\k]
                vpshufb ymm\k, ymm\k, ymmword ptr [{cst}]
                vpxor ymm\k, ymm\k, ymm15
            .endr
            jmp 3b
            6:
            ",
            rk = in(reg) rk.as_ptr(),
            pm = in(reg) pm,
            pmx = in(reg) pmx.as_ptr(),
            cst = in(reg) &CST,
            inp = inout(reg) inp => _,
            out = inout(reg) out => _,
            hash = inout(reg) hash => _,
            n = inout(reg) n => _,
            low = inout(reg) low => _,
            nr = const NR,
            no_carry_max = const NO_CARRY_MAX,
            step = const STEP,
            inout("ymm13") *c0,
            inout("xmm14") *acc,
            out("ymm0") _, out("ymm1") _, out("ymm2") _, out("ymm3") _,
            out("ymm4") _, out("ymm5") _, out("ymm6") _, out("ymm7") _,
            out("ymm8") _, out("ymm9") _, out("ymm10") _, out("ymm11") _,
            out("ymm12") _, out("ymm15") _,
            options(nostack),
        );
    }
}
