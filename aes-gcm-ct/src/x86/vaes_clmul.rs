//! AES-GCM with VAES + VPCLMULQDQ, CTR and GHASH stitched (x86_64), one
//! body for two vector widths: 512-bit (AVX-512: `vaes-clmul`) and 256-bit
//! (AVX2: `vaes-avx2-clmul`, for CPUs with VAES but no AVX-512 such as
//! Zen 3 and Alder Lake).
//!
//! Technique: the aggregated-reduction GHASH of Gueron and Kounavis
//! ("Intel Carry-Less Multiplication Instruction and its Usage for
//! Computing the GCM Mode", rev. 2.02), in the GHASH-through-POLYVAL form of
//! RFC 8452 appendix A (byte-reversed blocks, H as `mulX_POLYVAL(H)`,
//! Montgomery reduction), carried to vectors of L = 4 (or 2) 128-bit lanes
//! as in the VAES designs of Drucker, Gueron and Krasnov ("Making AES great
//! again: the forthcoming vectorized AES instruction", 2018) and Eric
//! Biggers' AVX10/AVX2 AES-GCM for the Linux kernel and BoringSSL (read for
//! the structure; this code is written independently).
//!
//! * Main loop: 16 blocks per iteration (four 512-bit or eight 256-bit
//!   vectors). Their AES rounds are interleaved with the `vpclmulqdq`
//!   (schoolbook, 4 per vector) of 16 ciphertext blocks against
//!   H^16..H^1 and one Montgomery reduction per 16 blocks (with 256-bit
//!   vectors, 8 blocks per reduction left the reduction's dependency chain
//!   the bottleneck). Encryption hashes the previous iteration's
//!   ciphertext (software pipelining: the multiplies never wait for the
//!   current AES), decryption the current input. Encryption gives each
//!   AES round from 1 on the multiplies of one hashed vector (vector k
//!   after round N - k, so the one holding the running hash comes last:
//!   shortest dependency chain), which keeps the AES and carry-less
//!   multiply units busy together where they compete for the same
//!   pipelines (512-bit operations issued as two 256-bit halves); bunched
//!   after one round, the multiplies stall the AES rounds behind them.
//!   Decryption's multiplies, whose inputs are loaded fresh, all follow
//!   round 1, vector 0 last (spread, they measured no faster). The sums
//!   are reduced lane-wise and then folded (one vector folded, not
//!   three). Counter blocks are
//!   kept with a little-endian counter word (vector 0's only, stepped
//!   with one add per batch; vector k's is one add of its offset away)
//!   and turned into real blocks with one shuffle per vector: the
//!   same instructions for every counter value, which is secret unless
//!   the nonce has 96 bits (J0 = GHASH_H(nonce)), so no branch on a carry.
//!   Schoolbook products (4 multiplies), not Karatsuba (3), in the
//!   compiled loop: Karatsuba's extra XORs and shuffles cost what the
//!   saved multiply gains there (`PERFORMANCE.md`). At 256 bits every
//!   batch after the first encrypted one (all when decrypting) runs in
//!   the hand-scheduled Karatsuba loop of `vaes_avx2_loop.rs`
//!   (`Lanes::hand_batches`), where it does gain. At 512 bits a message
//!   over `PAIRS_FROM` bytes first runs pairs of batches (32 blocks, eight
//!   AES states, one reduction against H^32..H^1) in the hand-scheduled
//!   loop of `vaes512_loop.rs` (`Lanes::hand_pairs`): four states keep
//!   the AES units exactly busy, eight leave the multiplies room; the
//!   single-batch loop takes what is left (at most one batch).
//! * Remainder (fewer than 16 blocks, the last one possibly partial; on
//!   AVX-512 also a whole last batch, which saves the loop's second
//!   reduction for the lengths block): ONE vectorised pass, not a
//!   block loop: the last vector is loaded/stored with a byte mask
//!   (AVX-512BW) or, on AVX2, with plain 128-bit moves and, for the
//!   partial block only, integer moves (`ct_dispatch::short`); the n data
//!   blocks are multiplied by H^(n+1)..H^2 and the lengths block by H^1,
//!   and all of it (remainder + lengths block) costs one reduction. The
//!   key holds H^20..H^1 highest first (plus four zero blocks) so the
//!   powers for any remainder are one unaligned vector load each.
//! * AAD: the same aggregated hashing (16 blocks per reduction, then one
//!   masked pass for the rest, one reduction).
//! * E(J0) (the tag mask): one 128-bit AES-NI block at the start; it
//!   overlaps with everything else.
//! * A message with no main-loop batch (at most 256 bytes of text, less
//!   than 256 of AAD) runs in the 256-bit body on both paths: at 512 bits
//!   the one pass cost more than the wider vectors save (measured in
//!   `PERFORMANCE.md`).
//!
//! Cost per 16 blocks: 16 x NR `vaesenc` lanes (NR / 4 or NR / 2
//! instructions per block) + 16 (or 32) `vpclmulqdq` + 2 `pclmulqdq`; per
//! message: E(J0), one reduction for remainder + lengths (+ one per AAD
//! batch/remainder).
//!
//! Register plan (LLVM allocates; the 256-bit main loop's plan is in
//! `vaes_avx2_loop.rs`): N = 4 (8) AES states, 3 accumulators, N hash
//! inputs, N power vectors; round keys broadcast once per message. With
//! 32 zmm registers the batch of ciphertext stays in registers; with 16
//! ymm registers (`Lanes::KEEP` false) it is read back from L1 where it
//! is hashed, and round keys and powers become memory operands.
//!
//! Constant time: loop bounds, the vector count of the remainder and the
//! masks depend on the public lengths only.

use super::aesni_clmul::{POLY, bswap, encrypt_zero, ghash_by_h1, ld, mul, poly, raise, st};
use crate::{Block, Msg};
use core::arch::x86_64::*;
use ct_dispatch::wipe::wipe;

ct_dispatch::x86_detect!(
    cpu_vaes512,
    "aes,pclmulqdq,sse2,ssse3,sse4.1,avx,avx2,avx512f,avx512bw,vaes,vpclmulqdq"
);
ct_dispatch::x86_detect!(
    cpu_vaes256,
    "aes,pclmulqdq,sse2,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq"
);

/// Blocks per main-loop batch (and per reduction), both widths.
pub(super) const BATCH: usize = 16;
/// Most vectors per batch (256-bit: 8), and the vectors of a pair of
/// batches at 512 bits.
const MAXN: usize = 8;

/// Messages longer than this run their batches in pairs where the width
/// has a pair loop ([`Lanes::hand_pairs`]). Shorter ones stay with single
/// batches: the pair loop's per-message cost (when encrypting, the first
/// pair's AES and the last pair's hash, twice the single loop's
/// unoverlapped ends) outweighs its faster iterations there
/// (`PERFORMANCE.md`).
const PAIRS_FROM: usize = 4096;
const _: () = assert!(
    PAIRS_FROM >= 2 * 16 * BATCH,
    "a message over it holds a pair"
);

/// Number of H powers the key holds (H^20..H^1: a batch and the lengths
/// block, H^17, rounded up to whole vectors), then `PAD` zero blocks. The
/// pair loop's H^32..H^17 are made per message: in the key they would cost
/// every key setup as much (`PERFORMANCE.md`).
const NPOW: usize = 20;
const PAD: usize = 4;

/// Round keys and `h[i]` = H^(20 - i) for i < 20 (POLYVAL form), four zero
/// blocks after. Wiped with its `AesGcm`.
pub(crate) type Key = crate::backend::FusedKey<{ NPOW + PAD }>;

/// The key's powers, `L` at a time: H^1..H^4 by the 128-bit tree of
/// `aesni_clmul::raise`, then vectors of `L` consecutive powers, each the
/// product of a lower vector and one broadcast power (H^4, H^8, H^16), so
/// the vector products form a tree of depth three (five with the 128-bit
/// levels, the least that reaches H^20): 16 / L vector products instead of
/// 16 128-bit ones. The vectors stay in registers, from the 128-bit powers
/// to the lane-reversed stores into `out`, so no load waits on a narrower
/// store. Nothing here is wiped: a wipe of the 128-bit powers would pin
/// them to the stack, and the first vector would then be loaded across
/// four narrower stores (a store-forwarding stall on every key setup);
/// whatever the compiler spills lies in a frame the constructor's
/// dead-stack scrub zeroes (`ct-check`'s dead-stack test).
#[inline(always)]
unsafe fn powers_v<V: Lanes>(h1: u128, out: &mut [[u8; 16]; NPOW + PAD]) {
    // SAFETY: the trait contract (the CPU features of V) is the caller's;
    // every vector store covers `L` consecutive entries of `out[..NPOW]`
    // (`NPOW` is a multiple of 4 and of `L`).
    unsafe {
        let mut p4 = [_mm_setzero_si128(); 4];
        raise(ld(&h1.to_le_bytes()), &mut p4);
        // v[j] = H^(jL + 1) .. H^(jL + L), lane 0 the lowest, stored into
        // out (out[i] = H^(NPOW - i), so lane-reversed) as soon as it is
        // made: only the sources of later products stay live.
        let put = |out: &mut [[u8; 16]; NPOW + PAD], j: usize, x: V| {
            V::store(out[NPOW - (j + 1) * V::L].as_mut_ptr(), x.rev_lanes());
        };
        let mut v = [V::zero(); NPOW / 2];
        for (j, l) in p4.chunks_exact(V::L).enumerate() {
            v[j] = V::from_lanes(l);
            put(out, j, v[j]);
        }
        for (from, to) in [(4, 8), (8, 16), (16, NPOW)] {
            let hb = V::bcast(v[from / V::L - 1].last_lane());
            for i in (from..to).step_by(V::L) {
                v[i / V::L] = mul_lanes(v[(i - from) / V::L], hb);
                put(out, i / V::L, v[i / V::L]);
            }
        }
    }
}

#[target_feature(
    enable = "aes,pclmulqdq,sse2,ssse3,sse4.1,avx,avx2,avx512f,avx512bw,vaes,vpclmulqdq"
)]
fn powers512(h1: u128, out: &mut [[u8; 16]; NPOW + PAD]) {
    // SAFETY: this fn's features are `Z`'s.
    unsafe { powers_v::<Z>(h1, out) }
}

#[target_feature(enable = "aes,pclmulqdq,sse2,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
fn powers256(h1: u128, out: &mut [[u8; 16]; NPOW + PAD]) {
    // SAFETY: this fn's features are `Y`'s.
    unsafe { powers_v::<Y>(h1, out) }
}

fused_engine!(
    /// The AVX-512 path (CPU check: AES-NI, PCLMULQDQ, AVX-512F/BW, VAES,
    /// VPCLMULQDQ).
    VaesClmul,
    cpu_vaes512::get(),
    encrypt_zero,
    powers512,
    crypt512,
    ghash_by_h1,
    NPOW - 1
);

fused_engine!(
    /// The AVX2 path (CPU check: AES-NI, PCLMULQDQ, AVX2, VAES, VPCLMULQDQ).
    VaesAvx2Clmul,
    cpu_vaes256::get(),
    encrypt_zero,
    powers256,
    crypt256,
    ghash_by_h1,
    NPOW - 1
);

#[target_feature(
    enable = "aes,pclmulqdq,sse2,ssse3,sse4.1,avx,avx2,avx512f,avx512bw,vaes,vpclmulqdq"
)]
fn crypt512<const NR: usize>(key: &Key, msg: Msg<'_, '_, '_>) -> Block {
    // A message of at most one batch of text and less than one of AAD
    // (no main loop) runs in the 256-bit body: same key form, and this
    // CPU has its features; its AAD pass and tail cost less there
    // (`PERFORMANCE.md`). The lengths are public.
    if msg.aad.len() < 16 * BATCH && msg.buf.len() <= 16 * BATCH {
        return crypt256::<NR>(key, msg);
    }
    let (j0, aad, buf, encrypt) = (msg.j0, msg.aad, msg.buf, msg.encrypt);
    let len = buf.len();
    let (inp, out) = buf.into_raw();
    // SAFETY: `inp`/`out` are valid for `len` bytes (`InOutBuf`); `Z`
    // needs exactly these features.
    unsafe { body::<Z, NR>(key, j0, msg.counter_public, aad, inp, out, len, encrypt) }
}

#[target_feature(enable = "aes,pclmulqdq,sse2,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
fn crypt256<const NR: usize>(key: &Key, msg: Msg<'_, '_, '_>) -> Block {
    let (j0, aad, buf, encrypt) = (msg.j0, msg.aad, msg.buf, msg.encrypt);
    let len = buf.len();
    let (inp, out) = buf.into_raw();
    // SAFETY: `inp`/`out` are valid for `len` bytes (`InOutBuf`); `Y`
    // needs exactly these features.
    unsafe { body::<Y, NR>(key, j0, msg.counter_public, aad, inp, out, len, encrypt) }
}

/// The one-intrinsic operations of a vector of 128-bit lanes, both widths
/// from one table ([`ct_dispatch::intrinsic_columns!`]). Only used inside
/// `crypt512` / `crypt256` and `powers512` / `powers256`, entered after the
/// matching CPU check, and inlined there (so the intrinsics run with those
/// target features).
///
/// # Safety
/// Every method requires the CPU features of its width (see the CPU
/// checks above).
trait Ops: Copy + ct_dispatch::wipe::Zeroable {
    unsafe fn zero() -> Self;
    unsafe fn bcast(x: __m128i) -> Self;
    /// `x` in lane 0, zero elsewhere.
    unsafe fn lane0(x: __m128i) -> Self;
    unsafe fn load(p: *const u8) -> Self;
    unsafe fn store(p: *mut u8, v: Self);
    unsafe fn xor(self, b: Self) -> Self;
    unsafe fn add32(self, b: Self) -> Self;
    unsafe fn shuf(self, m: Self) -> Self;
    unsafe fn aesenc(self, k: Self) -> Self;
    unsafe fn aesenclast(self, k: Self) -> Self;
    unsafe fn clmul<const I: i32>(self, b: Self) -> Self;
    /// Each lane shifted left (`bsl8`) or right (`bsr8`) by 8 bytes.
    unsafe fn bsl8(self) -> Self;
    unsafe fn bsr8(self) -> Self;
    /// Each lane's two 64-bit halves swapped.
    unsafe fn swap64(self) -> Self;
    /// Lane `L - 1`.
    unsafe fn last_lane(self) -> __m128i;
    /// The lanes in reverse order.
    unsafe fn rev_lanes(self) -> Self;
}

/// A vector of `L` 128-bit lanes: its sizes and the operations that take
/// more than one intrinsic.
///
/// # Safety
/// As [`Ops`].
trait Lanes: Ops {
    /// 128-bit lanes per vector.
    const L: usize;
    /// Vectors per main-loop batch (N L = 16 blocks, one reduction).
    const N: usize;
    /// Whether the registers hold a batch of ciphertext beside the AES
    /// states (32 zmm: yes; 16 ymm: no, it is read back from L1).
    const KEEP: bool;
    /// The counter word (dword 3) of lane i = i, all else zero.
    #[inline(always)]
    unsafe fn lane_index() -> Self {
        const IDX: [u32; 16] = [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3];
        // SAFETY: the trait's contract; `IDX` holds 16 L <= 64 bytes.
        unsafe { Self::load(IDX.as_ptr().cast()) }
    }
    /// `n` (1..=16L) bytes from `p`, zero above.
    unsafe fn load_part(p: *const u8, n: usize) -> Self;
    /// Store the low `n` (1..=16L) bytes of `v` to `p`; returns `v` with
    /// the bytes above `n` zeroed.
    unsafe fn store_part(p: *mut u8, v: Self, n: usize) -> Self;
    /// XOR of the lanes.
    unsafe fn fold(self) -> __m128i;
    /// The vector of lanes `l[0]` (lane 0) .. `l[L - 1]`; `l` has `L`
    /// entries.
    unsafe fn from_lanes(l: &[__m128i]) -> Self;
    /// Run `n` >= 1 batches of the main loop at `inp`/`out`, hashing the
    /// batches at `hash` (`out` one batch back when encrypting, `inp` when
    /// decrypting), in a hand-scheduled loop where this width has one
    /// (returns true), stepping `c0` and `acc` as the loop in `body`
    /// would; false: there is none, nothing was done.
    ///
    /// # Safety
    /// The CPU features of the width; `inp` and `hash` readable and `out`
    /// writable for `16 BATCH n` bytes.
    unsafe fn hand_batches<const NR: usize>(st: LoopState<'_, Self>) -> bool;
    /// Whether the width has a pair loop ([`Lanes::hand_pairs`]).
    const PAIRS: bool;
    /// Run `n` >= 1 pairs of batches (`MAXN` vectors, 32 blocks, one
    /// reduction each) at `inp`/`out`, hashing the pairs at `hash` (`out`
    /// one pair back when encrypting, `inp` when decrypting) against the
    /// pair's powers `pm` (and their XORed halves after them). Called only
    /// where `PAIRS` is true.
    ///
    /// # Safety
    /// The CPU features of the width; `inp` and `hash` readable and `out`
    /// writable for `32 BATCH n` bytes.
    unsafe fn hand_pairs<const NR: usize>(st: LoopState<'_, Self>);
}

/// 512-bit vector (AVX-512F/BW + VAES + VPCLMULQDQ).
type Z = __m512i;

/// 256-bit vector (AVX2 + VAES + VPCLMULQDQ).
type Y = __m256i;

ct_dispatch::intrinsic_columns! {
    impl Ops for [Z, Y] {
        fn zero() = [_mm512_setzero_si512, _mm256_setzero_si256];
        fn bcast(x: __m128i) = [_mm512_broadcast_i32x4, _mm256_broadcastsi128_si256];
        fn lane0(x: __m128i) = [_mm512_zextsi128_si512, _mm256_zextsi128_si256];
        fn load(p: *const u8) = [_mm512_loadu_si512, _mm256_loadu_si256];
        fn store(p: *mut u8, v) = [_mm512_storeu_si512, _mm256_storeu_si256];
        fn xor(self, Self) = [_mm512_xor_si512, _mm256_xor_si256];
        fn add32(self, Self) = [_mm512_add_epi32, _mm256_add_epi32];
        fn shuf(self, Self) = [_mm512_shuffle_epi8, _mm256_shuffle_epi8];
        fn aesenc(self, Self) = [_mm512_aesenc_epi128, _mm256_aesenc_epi128];
        fn aesenclast(self, Self) = [_mm512_aesenclast_epi128, _mm256_aesenclast_epi128];
        fn bsl8(self) = [_mm512_bslli_epi128::<8>, _mm256_bslli_epi128::<8>];
        fn bsr8(self) = [_mm512_bsrli_epi128::<8>, _mm256_bsrli_epi128::<8>];
        fn swap64(self) = [_mm512_shuffle_epi32::<0x4e>, _mm256_shuffle_epi32::<0x4e>];
        fn clmul<const I: i32>(self, Self) = [_mm512_clmulepi64_epi128, _mm256_clmulepi64_epi128];
        fn last_lane(self) -> __m128i
            = [_mm512_extracti32x4_epi32::<3>, _mm256_extracti128_si256::<1>];
        fn rev_lanes(self, self)
            = [_mm512_shuffle_i64x2::<0x1b>, _mm256_permute2x128_si256::<0x01>];
    }
}

impl Lanes for Z {
    const L: usize = 4;
    const N: usize = 4;
    const KEEP: bool = true;
    /// None: with 32 registers the compiler keeps the loop in registers
    /// (and the pair loop takes every batch but the last one or two).
    #[inline(always)]
    unsafe fn hand_batches<const NR: usize>(_: LoopState<'_, Self>) -> bool {
        false
    }
    const PAIRS: bool = true;
    /// `vaes512_loop.rs`: eight AES states where the batch loop has four.
    #[inline(always)]
    unsafe fn hand_pairs<const NR: usize>(st: LoopState<'_, Self>) {
        assert!(st.n >= 1, "the pair loop runs at least one pair");
        // SAFETY: the trait's contract (the features, the byte ranges);
        // `pm` is the pair's 8 = `MAXN` power vectors and their 8 XORed
        // halves (`body`'s `pw`), `rk` has `NR + 1` or more.
        unsafe {
            let (io, n) = ((st.inp, st.out, st.hash), st.n);
            let ctr = (st.c0, low_byte(st.ctr));
            super::vaes512_loop::pairs::<NR>(st.rk, st.pm, ctr, st.acc, io, n);
        }
    }
    #[inline(always)]
    unsafe fn load_part(p: *const u8, n: usize) -> Self {
        let m = if n >= 64 { !0u64 } else { (1u64 << n) - 1 };
        // SAFETY: the trait's contract gives the CPU features; a masked load touches only
        // the `n` selected bytes (no fault or access beyond them).
        unsafe { _mm512_maskz_loadu_epi8(m, p.cast()) }
    }
    #[inline(always)]
    unsafe fn store_part(p: *mut u8, v: Self, n: usize) -> Self {
        let m = if n >= 64 { !0u64 } else { (1u64 << n) - 1 };
        // SAFETY: the trait's contract gives the CPU features; the masked store writes only
        // the `n` selected bytes.
        unsafe {
            _mm512_mask_storeu_epi8(p.cast(), m, v);
            _mm512_maskz_mov_epi8(m, v)
        }
    }
    #[inline(always)]
    unsafe fn fold(self) -> __m128i {
        // SAFETY: the trait's contract gives the CPU features.
        unsafe {
            let a = _mm256_xor_si256(
                _mm512_castsi512_si256(self),
                _mm512_extracti64x4_epi64::<1>(self),
            );
            _mm_xor_si128(_mm256_castsi256_si128(a), _mm256_extracti128_si256::<1>(a))
        }
    }
    #[inline(always)]
    unsafe fn from_lanes(l: &[__m128i]) -> Self {
        // SAFETY: the trait's contract gives the CPU features.
        unsafe {
            let v = _mm512_inserti32x4::<1>(_mm512_castsi128_si512(l[0]), l[1]);
            _mm512_inserti32x4::<3>(_mm512_inserti32x4::<2>(v, l[2]), l[3])
        }
    }
}

impl Lanes for Y {
    const L: usize = 2;
    const N: usize = 8;
    const KEEP: bool = false;
    /// `vaes_avx2_loop.rs`: with 16 registers the compiler spills.
    #[inline(always)]
    unsafe fn hand_batches<const NR: usize>(st: LoopState<'_, Self>) -> bool {
        assert!(st.n >= 1, "the hand-scheduled loop runs at least one batch");
        // SAFETY: the trait's contract (the features, the byte ranges);
        // `pm` is the key's powers for 8 = `MAXN` vectors (`Ctx::powers`
        // of the loop's blocks), `rk` has `NR + 1` or more.
        unsafe {
            // Karatsuba's middle operands: key material, wiped below.
            let mut pmx = [Self::zero(); MAXN];
            for (k, x) in pmx.iter_mut().enumerate() {
                *x = halves_xored(power_vec::<Self>(st.pm, k));
            }
            let (io, n) = ((st.inp, st.out, st.hash), st.n);
            let ctr = (st.c0, low_byte(st.ctr));
            super::vaes_avx2_loop::batches::<NR>(st.rk, st.pm, &pmx, ctr, st.acc, io, n);
            ct_dispatch::wipe::wipe_slice(&mut pmx);
        }
        true
    }
    /// None: 16 registers do not hold eight AES states and the hashing.
    const PAIRS: bool = false;
    /// Never called (`PAIRS` is false).
    #[inline(always)]
    unsafe fn hand_pairs<const NR: usize>(_: LoopState<'_, Self>) {}
    #[inline(always)]
    unsafe fn load_part(p: *const u8, n: usize) -> Self {
        // SAFETY: the trait's contract gives the CPU features (`n` readable bytes; the high
        // half is only read when n > 16).
        unsafe {
            let lo = load16(p, n.min(16));
            let hi = load16(p.wrapping_add(16), n.saturating_sub(16));
            _mm256_set_m128i(hi, lo)
        }
    }
    #[inline(always)]
    unsafe fn store_part(p: *mut u8, v: Self, n: usize) -> Self {
        // SAFETY: the trait's contract gives the CPU features (`n` writable bytes; the high
        // half is only written when n > 16).
        unsafe {
            let lo = store16(p, _mm256_castsi256_si128(v), n.min(16));
            let hi = store16(
                p.wrapping_add(16),
                _mm256_extracti128_si256::<1>(v),
                n.saturating_sub(16),
            );
            _mm256_set_m128i(hi, lo)
        }
    }
    #[inline(always)]
    unsafe fn fold(self) -> __m128i {
        // SAFETY: the trait's contract gives the CPU features.
        unsafe {
            _mm_xor_si128(
                _mm256_castsi256_si128(self),
                _mm256_extracti128_si256::<1>(self),
            )
        }
    }
    #[inline(always)]
    unsafe fn from_lanes(l: &[__m128i]) -> Self {
        // SAFETY: the trait's contract gives the CPU features.
        unsafe { _mm256_set_m128i(l[1], l[0]) }
    }
}

/// `n` (0..=16) bytes from `p`, zero above: a plain load for a whole
/// block, two integer loads (`ct_dispatch::short`, no stack copy, no
/// `memcpy` call) for a partial one.
///
/// # Safety
/// `n` readable bytes at `p`; SSE2.
#[inline(always)]
unsafe fn load16(p: *const u8, n: usize) -> __m128i {
    // SAFETY: the caller's contract.
    unsafe {
        if n >= 16 {
            _mm_loadu_si128(p.cast())
        } else if n == 0 {
            _mm_setzero_si128()
        } else {
            let [lo, hi] = ct_dispatch::short::read_halves(core::slice::from_raw_parts(p, n));
            _mm_set_epi64x(hi as i64, lo as i64)
        }
    }
}

/// Store the low `n` (0..=16) bytes of `v` at `p`; returns `v` with the
/// bytes above `n` zeroed.
///
/// # Safety
/// `n` writable bytes at `p`; SSE4.1.
#[inline(always)]
unsafe fn store16(p: *mut u8, v: __m128i, n: usize) -> __m128i {
    // SAFETY: the caller's contract.
    unsafe {
        if n >= 16 {
            _mm_storeu_si128(p.cast(), v);
            v
        } else if n == 0 {
            _mm_setzero_si128()
        } else {
            let halves = [
                _mm_cvtsi128_si64(v) as u64,
                _mm_extract_epi64::<1>(v) as u64,
            ];
            ct_dispatch::short::write_halves(core::slice::from_raw_parts_mut(p, n), halves);
            // Bytes i < n kept: (n > i) per byte lane (n < 16).
            let keep = _mm_cmpgt_epi8(
                _mm_set1_epi8(n as i8),
                _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
            );
            _mm_and_si128(v, keep)
        }
    }
}

/// Unreduced sums (lo, mid, hi) of products.
type Acc<V> = (V, V, V);

/// `s += y * h` (schoolbook, 4 `vpclmulqdq`).
#[inline(always)]
unsafe fn mul_acc<V: Lanes>(s: &mut Acc<V>, y: V, h: V) {
    // SAFETY: the trait contract is the caller's.
    unsafe {
        s.0 = s.0.xor(y.clmul::<0x00>(h));
        s.1 = s.1.xor(y.clmul::<0x01>(h)).xor(y.clmul::<0x10>(h));
        s.2 = s.2.xor(y.clmul::<0x11>(h));
    }
}

/// `a * b` lane by lane, each lane reduced (POLYVAL products).
#[inline(always)]
unsafe fn mul_lanes<V: Lanes>(a: V, b: V) -> V {
    // SAFETY: the trait contract is the caller's.
    unsafe {
        let mut s = (V::zero(), V::zero(), V::zero());
        mul_acc(&mut s, a, b);
        reduce_lanes(s)
    }
}

/// Montgomery reduction of each lane (as `aesni_clmul::reduce`).
#[inline(always)]
unsafe fn reduce_lanes<V: Lanes>((lo, mid, hi): Acc<V>) -> V {
    // SAFETY: the trait contract is the caller's.
    unsafe {
        let lo = lo.xor(mid.bsl8());
        let hi = hi.xor(mid.bsr8());
        let poly = V::bcast(poly());
        let lo = lo.swap64().xor(lo.clmul::<0x10>(poly));
        let lo = lo.swap64().xor(lo.clmul::<0x10>(poly));
        hi.xor(lo)
    }
}

/// Add `extra` (128-bit parts) to lane 0 of `s`, reduce every lane
/// (Montgomery, as `aesni_clmul::reduce`, lane-wise: the reduction is
/// linear, so reducing the lanes and then XORing them equals reducing
/// their XOR), then fold the lanes. Reducing before folding folds one
/// vector instead of three (7 fewer vector operations per 16 blocks; the
/// loop's bound is the AES and multiply pipelines, see the file header).
#[inline(always)]
unsafe fn finish<V: Lanes>(s: Acc<V>, extra: Option<(__m128i, __m128i, __m128i)>) -> __m128i {
    // SAFETY: the trait contract is the caller's.
    unsafe {
        let (mut lo, mut mid, mut hi) = s;
        if let Some((l, m, h)) = extra {
            lo = lo.xor(V::lane0(l));
            mid = mid.xor(V::lane0(m));
            hi = hi.xor(V::lane0(h));
        }
        reduce_lanes((lo, mid, hi)).fold()
    }
}

/// What the main loop carries from batch to batch and the operands it
/// reads: the part a hand-scheduled loop ([`Lanes::hand_batches`]) takes
/// over.
struct LoopState<'a, V> {
    /// Round keys, broadcast to every lane.
    rk: &'a [V; 15],
    /// The loop's powers, vector k's for its blocks at `16 L k` bytes on:
    /// in the key ([`Ctx::powers`]) for a batch; for a pair, a
    /// per-message copy (wiped by `body`) followed, `MAXN` vectors on, by
    /// each power vector's [`halves_xored`].
    pm: *const u8,
    /// Vector 0's counter blocks (stepped).
    c0: &'a mut V,
    /// The counter word of vector 0's first block when the counter is
    /// public ([`Msg::counter_public`]), else `None`. A loop may branch on
    /// counter values only through this.
    ctr: Option<u32>,
    /// The running hash (updated).
    acc: &'a mut __m128i,
    /// The batches' input and output, the blocks they hash, their count.
    inp: *const u8,
    out: *mut u8,
    hash: *const u8,
    n: usize,
}

/// Byte reversal of a lane (GHASH blocks to POLYVAL order), as
/// little-endian dwords.
const REV: [u32; 4] = [0x0c0d_0e0f, 0x0809_0a0b, 0x0405_0607, 0x0001_0203];
/// Turns a counter block whose counter word (dword 3) is little-endian
/// into the real (big-endian) block, and back, as little-endian dwords.
const CSWAP: [u32; 4] = [0x0302_0100, 0x0706_0504, 0x0b0a_0908, 0x0c0d_0e0f];

/// The public constants of a hand-scheduled loop (`vaes_avx2_loop.rs`,
/// `vaes512_loop.rs`) for vectors of `W` dwords, in the order its assembly
/// addresses them, in vectors from the start: 0 `cswap`, 1 `rev`, 2
/// `poly`, 3 `inc`, 4 + k `offs[k]`, 12 + k `offs_be[k]`. Each loop reads
/// its own `static` table, so a message builds none of it; Karatsuba's
/// middle operands (key material) come beside the powers instead
/// ([`halves_xored`]), made per message and wiped.
#[repr(C, align(64))]
pub(super) struct LoopConsts<const W: usize> {
    /// [`CSWAP`] in every lane.
    pub cswap: [u32; W],
    /// [`REV`] in every lane.
    pub rev: [u32; W],
    /// The reduction's constant ([`POLY`]) in every lane.
    pub poly: [u32; W],
    /// The counter step per iteration.
    pub inc: [u32; W],
    /// Vector k's counter offset from vector 0's ([`ctr_off`]).
    pub offs: [[u32; W]; MAXN],
    /// `offs[k]` for real (big-endian) counter blocks: added to the
    /// counter's lowest byte, the top byte of dword 3. Right only where
    /// that byte does not carry, which a loop may know only of a public
    /// counter ([`LoopState::ctr`]).
    pub offs_be: [[u32; W]; MAXN],
}

impl<const W: usize> LoopConsts<W> {
    /// The table of a loop stepping `inc` blocks per iteration.
    pub(super) const fn new(inc: u32) -> Self {
        /// `lane` in each of the `W / 4` lanes.
        const fn lanes<const W: usize>(lane: [u32; 4]) -> [u32; W] {
            let mut v = [0; W];
            let mut i = 0;
            while i < W {
                v[i] = lane[i % 4];
                i += 1;
            }
            v
        }
        let l = (W / 4) as u32;
        let mut offs = [[0; W]; MAXN];
        let mut offs_be = [[0; W]; MAXN];
        let mut k = 0;
        while k < MAXN {
            offs[k] = lanes([0, 0, 0, l * k as u32]);
            offs_be[k] = lanes([0, 0, 0, (l * k as u32) << 24]);
            k += 1;
        }
        Self {
            cswap: lanes(CSWAP),
            rev: lanes(REV),
            poly: lanes(POLY),
            inc: lanes([0, 0, 0, inc]),
            offs,
            offs_be,
        }
    }
}

/// A hand-scheduled loop's `low` operand: the lowest byte of vector 0's
/// first counter `ctr` when it is public; for a secret one (`None`) 256,
/// which the loop's check (`low <= 256 - blocks per iteration`, bits 8 and
/// up untouched by its 8-bit step) never passes, so no counter value
/// reaches a branch.
pub(super) fn low_byte(ctr: Option<u32>) -> u32 {
    ctr.map_or(256, |c| c & 0xff)
}

/// Each 64-bit half of every lane of `h` replaced by the XOR of that
/// lane's two halves: Karatsuba's middle operand (`LoopConsts`' loops).
///
/// # Safety
/// `V`'s features.
#[inline(always)]
unsafe fn halves_xored<V: Lanes>(h: V) -> V {
    // SAFETY: the caller's contract.
    unsafe { h.xor(h.swap64()) }
}

/// Constants of one message.
struct Ctx<V> {
    /// Byte reversal of each lane (GHASH blocks to POLYVAL order).
    rev: V,
    /// Turns a counter block with a little-endian counter word into the
    /// real (big-endian) counter block.
    cswap: V,
    /// The H power table (`Key::h`) as bytes.
    hp: *const u8,
}

impl<V: Lanes> Ctx<V> {
    /// Where the powers for `n` consecutive blocks ending with H^`last`
    /// start in the key: vector k of them ([`power_vec`]) holds
    /// H^(last + n - 1 - (L k + j)) in lane j. The loops and the hashing
    /// read their powers there, so no copy of them is made.
    #[inline(always)]
    fn powers(&self, n: usize, last: usize) -> *const u8 {
        assert!(
            last >= 1 && last + n <= NPOW + 1,
            "the key holds H^{NPOW}..H^1"
        );
        self.hp.wrapping_add(16 * (NPOW + 1 - last - n))
    }

    /// Vector k of [`Ctx::powers`]`(n, last)`.
    #[inline(always)]
    unsafe fn pow(&self, n: usize, last: usize, k: usize) -> V {
        // SAFETY: the vector ends inside the key's NPOW + PAD entries for
        // every call (n <= 16, last >= 1; lanes past the n blocks read the
        // zero padding or higher powers, multiplied by zero blocks).
        unsafe { power_vec(self.powers(n, last), k) }
    }
}

/// Hash `NV` vectors of `n` bytes (the last one partial) into an
/// unreduced sum against powers ending with H^`last`; `acc` is added to
/// the first block.
#[inline(always)]
unsafe fn hash_part<V: Lanes, const NV: usize>(
    c: &Ctx<V>,
    p: *const u8,
    n: usize,
    acc: __m128i,
    last: usize,
) -> Acc<V> {
    // SAFETY: the caller's contract: the features, `n` readable bytes.
    unsafe {
        let nb = n.div_ceil(16);
        let mut s = (V::zero(), V::zero(), V::zero());
        for k in 0..NV {
            let x = if k + 1 < NV {
                V::load(p.add(16 * V::L * k))
            } else {
                V::load_part(p.add(16 * V::L * k), n - 16 * V::L * k)
            };
            let mut y = x.shuf(c.rev);
            if k == 0 {
                y = y.xor(V::lane0(acc));
            }
            mul_acc(&mut s, y, c.pow(nb, last, k));
        }
        s
    }
}

/// Vector `k` of the powers at `p` (from [`Ctx::powers`]).
///
/// # Safety
/// `V`'s features; `16 L (k + 1)` readable bytes at `p`.
#[inline(always)]
unsafe fn power_vec<V: Lanes>(p: *const u8, k: usize) -> V {
    // SAFETY: the caller's contract.
    unsafe { V::load(p.add(16 * V::L * k)) }
}

/// `acc` after hashing `nv` whole vectors at `p` (readable for that many)
/// against the powers at `pw` ([`Ctx::powers`]), `acc` added to the first
/// block: one reduction. Vector 0 (which takes `acc`) last: shortest
/// dependency chain.
///
/// # Safety
/// `V`'s features; `16 L nv` readable bytes at `p` and at `pw`.
#[inline(always)]
unsafe fn hash_whole<V: Lanes>(
    c: &Ctx<V>,
    p: *const u8,
    acc: __m128i,
    pw: *const u8,
    nv: usize,
) -> __m128i {
    // SAFETY: the caller's contract.
    unsafe {
        let mut s = (V::zero(), V::zero(), V::zero());
        for k in (0..nv).rev() {
            let mut y = V::load(p.add(16 * V::L * k)).shuf(c.rev);
            if k == 0 {
                y = y.xor(V::lane0(acc));
            }
            mul_acc(&mut s, y, power_vec(pw, k));
        }
        finish(s, None)
    }
}

/// GHASH of the AAD (whole, zero-padded) from zero.
#[inline(always)]
unsafe fn hash_aad<V: Lanes>(c: &Ctx<V>, aad: &[u8]) -> __m128i {
    // SAFETY: the caller's contract (features); all reads are within `aad`.
    unsafe {
        let bb = 16 * BATCH;
        let z = _mm_setzero_si128();
        let mut acc = z;
        let p = aad.as_ptr();
        let mut off = 0;
        while aad.len() - off >= bb {
            acc = hash_whole(c, p.add(off), acc, c.powers(BATCH, 1), V::N);
            off += bb;
        }
        let r = aad.len() - off;
        let q = p.add(off);
        let s = match r.div_ceil(16 * V::L) {
            0 => return acc,
            1 => hash_part::<V, 1>(c, q, r, acc, 1),
            2 => hash_part::<V, 2>(c, q, r, acc, 1),
            3 => hash_part::<V, 3>(c, q, r, acc, 1),
            4 => hash_part::<V, 4>(c, q, r, acc, 1),
            5 => hash_part::<V, 5>(c, q, r, acc, 1),
            6 => hash_part::<V, 6>(c, q, r, acc, 1),
            7 => hash_part::<V, 7>(c, q, r, acc, 1),
            _ => hash_part::<V, 8>(c, q, r, acc, 1),
        };
        finish(s, None)
    }
}

/// The remainder (`r` < 256 bytes, `NV` vectors) and the lengths block:
/// CTR over the remainder (vector k's counters: `c0 + off(k)`), GHASH of
/// remainder and `lens`, one reduction.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn tail<V: Lanes, const NR: usize, const NV: usize>(
    c: &Ctx<V>,
    rk: &[V; 15],
    c0: V,
    acc: __m128i,
    inp: *const u8,
    out: *mut u8,
    r: usize,
    encrypt: bool,
    lens: __m128i,
    h1: __m128i,
) -> __m128i {
    // SAFETY: the caller's contract: the features, `r` readable bytes at
    // `inp` and writable at `out`.
    unsafe {
        let part = |k: usize| r - 16 * V::L * k;
        let mut x = [V::zero(); NV];
        // The counter blocks of the `NV` vectors only, in the AES states
        // (wiped below).
        for (k, v) in x.iter_mut().enumerate() {
            *v = c0.add32(ctr_off::<V>(k)).shuf(c.cswap).xor(rk[0]);
        }
        let mut s = (V::zero(), V::zero(), V::zero());
        let mut d = [V::zero(); NV];
        for (k, v) in d.iter_mut().enumerate() {
            *v = if k + 1 < NV {
                V::load(inp.add(16 * V::L * k))
            } else {
                V::load_part(inp.add(16 * V::L * k), part(k))
            };
        }
        let nb = r.div_ceil(16);
        if !encrypt {
            for (k, v) in d.iter().enumerate() {
                let mut y = v.shuf(c.rev);
                if k == 0 {
                    y = y.xor(V::lane0(acc));
                }
                mul_acc(&mut s, y, c.pow(nb, 2, k));
            }
        }
        for key in &rk[1..NR] {
            for v in x.iter_mut() {
                *v = v.aesenc(*key);
            }
        }
        for k in 0..NV {
            let o = d[k].xor(x[k].aesenclast(rk[NR]));
            let o = if k + 1 < NV {
                V::store(out.add(16 * V::L * k), o);
                o
            } else {
                V::store_part(out.add(16 * V::L * k), o, part(k))
            };
            if encrypt {
                let mut y = o.shuf(c.rev);
                if k == 0 {
                    y = y.xor(V::lane0(acc));
                }
                mul_acc(&mut s, y, c.pow(nb, 2, k));
            }
        }
        let l = if NV == 0 {
            _mm_xor_si128(lens, acc)
        } else {
            lens
        };
        let h = finish(s, Some(mul(l, h1)));
        // The AES states (keystream) and the input (plaintext when
        // encrypting) of the remainder.
        wipe(&mut x);
        wipe(&mut d);
        wipe(&mut s);
        h
    }
}

/// Vector k's counter offset from vector 0's: `L k` in each lane's
/// counter word.
///
/// # Safety
/// `V`'s features.
#[inline(always)]
unsafe fn ctr_off<V: Lanes>(k: usize) -> V {
    // SAFETY: the caller's contract.
    unsafe { V::bcast(_mm_set_epi32((V::L * k) as i32, 0, 0, 0)) }
}

/// Vector 0's counter blocks of the batch whose first counter is `c`
/// (lane i holds counter c + i), with the counter word little-endian (so
/// it can be added to; `cswap` makes the real block; the 32-bit add wraps
/// as GCM's inc32). Built in registers from `j0v` (J0 is secret unless the
/// nonce has 96 bits, so no stack copy of it is made).
///
/// # Safety
/// `V`'s features.
#[inline(always)]
unsafe fn ctr_le<V: Lanes>(j0v: __m128i, c: u32) -> V {
    // SAFETY: the caller's contract (SSE4.1 is among `V`'s features).
    unsafe { V::bcast(_mm_insert_epi32::<3>(j0v, c as i32)).add32(V::lane_index()) }
}

#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn body<V: Lanes, const NR: usize>(
    key: &Key,
    j0: &Block,
    counter_public: bool,
    aad: &[u8],
    inp: *const u8,
    out: *mut u8,
    len: usize,
    encrypt: bool,
) -> Block {
    // SAFETY: the caller's contract: the CPU features of `V` (which include
    // AES-NI, PCLMULQDQ, SSSE3, SSE4.1), `inp` readable and `out` writable
    // for `len` bytes (possibly equal). Every offset below stays within
    // `len` (loop conditions, `r` = the rest).
    unsafe {
        let l = V::L;
        let bb = 16 * BATCH;
        // E(J0) first: independent of everything below.
        let j0v = ld(&j0.0);
        let mut m = _mm_xor_si128(j0v, ld(&key.rk[0]));
        for k in &key.rk[1..NR] {
            m = _mm_aesenc_si128(m, ld(k));
        }
        let mut mask = _mm_aesenclast_si128(m, ld(&key.rk[NR]));

        let mut rk = [V::zero(); 15];
        for (r, k) in rk[..=NR].iter_mut().zip(&key.rk[..=NR]) {
            *r = V::bcast(ld(k));
        }
        let c = Ctx {
            rev: V::bcast(_mm_loadu_si128(REV.as_ptr().cast())),
            cswap: V::bcast(_mm_loadu_si128(CSWAP.as_ptr().cast())),
            hp: key.h.as_ptr().cast::<u8>(),
        };
        // Powers of the main loop: block j of a batch gets H^(16 - j),
        // read from the key where used.
        let pm = c.powers(BATCH, 1);

        let mut acc = if aad.is_empty() {
            _mm_setzero_si128()
        } else {
            hash_aad(&c, aad)
        };

        // Counter blocks: built once here (`ctr_le`), then stepped as
        // vectors only. The scalar `ctr0` goes no further than
        // `public_ctr` below, which hands it to a loop only when it is
        // public, so nothing below can branch on a secret counter.
        let ctr0 = u32::from_be_bytes([j0[12], j0[13], j0[14], j0[15]]).wrapping_add(1);
        // The loops keep vector 0's counters (`c0`) only, stepped by one
        // 32-bit add of `BATCH` per batch, and make vector k's by adding
        // its offset (L k): the other vectors' counters would otherwise be
        // loaded, stepped and stored back every batch. The counter is
        // secret whenever the nonce is not 96 bits long (J0 =
        // GHASH_H(nonce)), so the step takes no scalar counter and has no
        // branch: its instructions are the same for every counter value,
        // carries into the higher counter bytes included (the adds are on
        // the little-endian word; one shuffle per vector fixes the byte
        // order where the blocks are used).
        let mut c0 = ctr_le::<V>(j0v, ctr0);
        let inc = V::bcast(_mm_set_epi32(BATCH as i32, 0, 0, 0));
        // The hand-scheduled loop of this width, if it has one (false:
        // none, the loops below run the batches).
        // Vector 0's first counter where the loop handed block `first`
        // starts, when the counter is public (`Msg::counter_public`).
        let public_ctr = |first: usize| counter_public.then(|| ctr0.wrapping_add(first as u32));
        // `first`: the index of the batches' first block in the text.
        let hand = |c0: &mut V, acc: &mut __m128i, first: usize, inp, out, hash, n| {
            let rk = &rk;
            let ctr = public_ctr(first);
            let st = LoopState {
                rk,
                pm,
                c0,
                ctr,
                acc,
                inp,
                out,
                hash,
                n,
            };
            // (Inside `body`'s unsafe block: the callers give `n` whole
            // batches at `inp`, `out` and `hash`, see each call.)
            V::hand_batches::<NR>(st)
        };
        // Decryption's multiplies go right after AES round 1, vector 0
        // (which takes `acc`) last; encryption spreads them, one vector per
        // round (the file header says why).
        let mul_round = 1;

        // With 32 registers (`V::KEEP`) the last batch, even a whole one,
        // is left to `tail`: its one pass hashes the blocks and the lengths
        // block with one reduction, where the loop's would need a second,
        // dependent one for the lengths (a 256-byte message is then one
        // pass). With 16, a whole batch in `tail` spills, and the loop
        // takes it. The bound is the public length.
        let last = bb + usize::from(V::KEEP);
        let mut off = 0usize;
        // Pairs of batches, where the width has a loop for them
        // (`V::PAIRS`) and the message is long enough (`PAIRS_FROM`),
        // leaving at least one byte to the loops below and `tail` (a whole
        // last batch goes to `tail`, as above). The bounds are the public
        // length.
        if V::PAIRS && len > PAIRS_FROM {
            let pb = 2 * bb;
            let n2 = (len - 1) / pb;
            // What the pair loop and its first and last pair are handed.
            assert!(n2 >= 1 && n2 * pb < len, "whole pairs inside the message");
            // The pair's powers: H^32..H^17 (the batch's times H^16), then
            // the batch's H^16..H^1, then each one's XORed halves
            // (Karatsuba's middle operands); a copy the loop reads, wiped
            // below.
            let h16 = V::bcast(ld(&key.h[NPOW - BATCH]));
            let mut pw = [V::zero(); 2 * MAXN];
            for k in 0..V::N {
                let p = power_vec::<V>(pm, k);
                pw[k] = mul_lanes(p, h16);
                pw[V::N + k] = p;
            }
            for k in 0..MAXN {
                pw[MAXN + k] = halves_xored(pw[k]);
            }
            let pwp = pw.as_ptr().cast::<u8>();
            let inc2 = V::bcast(_mm_set_epi32(2 * BATCH as i32, 0, 0, 0));
            // `first`: the index of the pairs' first block in the text.
            let pairs = |c0: &mut V, acc: &mut __m128i, first: usize, inp, out, hash, n| {
                let (rk, pm) = (&rk, pwp);
                let ctr = public_ctr(first);
                let st = LoopState {
                    rk,
                    pm,
                    c0,
                    ctr,
                    acc,
                    inp,
                    out,
                    hash,
                    n,
                };
                // (Inside `body`'s unsafe block: the callers give `n` whole
                // pairs at `inp`, `out` and `hash`, see each call.)
                V::hand_pairs::<NR>(st)
            };
            if encrypt {
                // The first pair has nothing before it to hash: AES only.
                let mut x = [V::zero(); MAXN];
                for (k, v) in x.iter_mut().enumerate() {
                    *v = c0.add32(ctr_off::<V>(k)).shuf(c.cswap).xor(rk[0]);
                }
                c0 = c0.add32(inc2);
                for key in &rk[1..NR] {
                    for v in x.iter_mut() {
                        *v = v.aesenc(*key);
                    }
                }
                for (k, v) in x.iter().enumerate() {
                    let p = 16 * l * k;
                    V::store(out.add(p), V::load(inp.add(p)).xor(v.aesenclast(rk[NR])));
                }
                wipe(&mut x);
                // The other pairs, each hashing the one before (n2 pairs
                // of 2 bb bytes fit in `len`).
                if n2 > 1 {
                    pairs(
                        &mut c0,
                        &mut acc,
                        pb / 16,
                        inp.add(pb),
                        out.add(pb),
                        out,
                        n2 - 1,
                    );
                }
                // The hash of the last pair (written above or by the loop).
                acc = hash_whole(&c, out.add(pb * (n2 - 1)), acc, pwp, MAXN);
            } else {
                pairs(&mut c0, &mut acc, 0, inp, out, inp, n2);
            }
            ct_dispatch::wipe::wipe_slice(&mut pw);
            off = n2 * pb;
        }
        if encrypt {
            // Software pipelined: the multiplies of batch i - 1's
            // ciphertext run between batch i's AES rounds. With 16 ymm
            // registers (`!V::KEEP`) that ciphertext is read back from the
            // output (L1), leaving the registers to the AES states.
            let mut kept = [V::zero(); MAXN];
            let prev = |off: usize, k: usize, acc: __m128i, kept: &[V; MAXN]| {
                let y = if V::KEEP {
                    kept[k]
                } else {
                    // SAFETY: 16 L k + 16 L <= bb <= off: inside the bytes
                    // of `out` written by the previous iteration.
                    V::load(out.add(off - bb + 16 * l * k)).shuf(c.rev)
                };
                if k == 0 { y.xor(V::lane0(acc)) } else { y }
            };
            const { assert!(NR > V::N, "a middle round per hashed vector") };
            let mut have_prev = false;
            while len - off >= last {
                // Every batch after the first, where the width has a
                // hand-scheduled loop. `last` is one batch there (16
                // registers: `!V::KEEP`), so `n` counts the batches this
                // loop would run.
                let n = (len - off) / bb;
                // SAFETY (`out.add(off - bb)`): a batch was written there.
                if have_prev
                    && hand(
                        &mut c0,
                        &mut acc,
                        off / 16,
                        inp.add(off),
                        out.add(off),
                        out.add(off - bb),
                        n,
                    )
                {
                    off += n * bb;
                    break;
                }
                let mut x = [V::zero(); MAXN];
                for k in 0..V::N {
                    x[k] = c0.add32(ctr_off::<V>(k)).shuf(c.cswap).xor(rk[0]);
                }
                c0 = c0.add32(inc);
                let mut s = (V::zero(), V::zero(), V::zero());
                for r in 1..NR {
                    for v in &mut x[..V::N] {
                        *v = v.aesenc(rk[r]);
                    }
                    // Vector N - r after round r, vector 0 last (every
                    // vector gets a round: NR - 1 >= 9 > N).
                    if have_prev && r <= V::N {
                        let k = V::N - r;
                        mul_acc(&mut s, prev(off, k, acc, &kept), power_vec(pm, k));
                    }
                }
                if have_prev {
                    acc = finish(s, None);
                }
                for k in 0..V::N {
                    let p = off + 16 * l * k;
                    let o = V::load(inp.add(p)).xor(x[k].aesenclast(rk[NR]));
                    V::store(out.add(p), o);
                    if V::KEEP {
                        kept[k] = o.shuf(c.rev);
                    }
                }
                have_prev = true;
                off += bb;
            }
            if have_prev {
                let mut s = (V::zero(), V::zero(), V::zero());
                for k in (0..V::N).rev() {
                    mul_acc(&mut s, prev(off, k, acc, &kept), power_vec(pm, k));
                }
                acc = finish(s, None);
            }
        } else {
            // The input ciphertext: loaded once and kept (`V::KEEP`), or
            // loaded where it is hashed and again for the XOR (L1).
            while len - off >= last {
                // As in encryption: the hand-scheduled loop where there is
                // one (`last` is one batch there), from the first batch.
                let n = (len - off) / bb;
                let (i, o) = (inp.add(off), out.add(off));
                if hand(&mut c0, &mut acc, off / 16, i, o, i, n) {
                    off += n * bb;
                    break;
                }
                let mut x = [V::zero(); MAXN];
                let mut d = [V::zero(); MAXN];
                for k in 0..V::N {
                    x[k] = c0.add32(ctr_off::<V>(k)).shuf(c.cswap).xor(rk[0]);
                    if V::KEEP {
                        d[k] = V::load(inp.add(off + 16 * l * k));
                    }
                }
                c0 = c0.add32(inc);
                let input = |k: usize, d: &[V; MAXN]| {
                    if V::KEEP {
                        d[k]
                    } else {
                        // SAFETY: off + 16 L k + 16 L <= off + bb <= len.
                        V::load(inp.add(off + 16 * l * k))
                    }
                };
                let mut s = (V::zero(), V::zero(), V::zero());
                for r in 1..NR {
                    for v in &mut x[..V::N] {
                        *v = v.aesenc(rk[r]);
                    }
                    if r == mul_round {
                        for k in (0..V::N).rev() {
                            let mut y = input(k, &d).shuf(c.rev);
                            if k == 0 {
                                y = y.xor(V::lane0(acc));
                            }
                            mul_acc(&mut s, y, power_vec(pm, k));
                        }
                    }
                }
                acc = finish(s, None);
                for k in 0..V::N {
                    let o = input(k, &d).xor(x[k].aesenclast(rk[NR]));
                    V::store(out.add(off + 16 * l * k), o);
                }
                off += bb;
            }
        }

        let mut lens = [0u8; 16];
        lens[..8].copy_from_slice(&(aad.len() as u64 * 8).to_be_bytes());
        lens[8..].copy_from_slice(&(len as u64 * 8).to_be_bytes());
        let lens = bswap(ld(&lens));
        let h1 = ld(&key.h[NPOW - 1]);
        let r = len - off;
        let ctrs = c0;
        let (i, o) = (inp.add(off), out.add(off));
        acc = match r.div_ceil(16 * l) {
            0 => tail::<V, NR, 0>(&c, &rk, ctrs, acc, i, o, r, encrypt, lens, h1),
            1 => tail::<V, NR, 1>(&c, &rk, ctrs, acc, i, o, r, encrypt, lens, h1),
            2 => tail::<V, NR, 2>(&c, &rk, ctrs, acc, i, o, r, encrypt, lens, h1),
            3 => tail::<V, NR, 3>(&c, &rk, ctrs, acc, i, o, r, encrypt, lens, h1),
            4 => tail::<V, NR, 4>(&c, &rk, ctrs, acc, i, o, r, encrypt, lens, h1),
            5 => tail::<V, NR, 5>(&c, &rk, ctrs, acc, i, o, r, encrypt, lens, h1),
            6 => tail::<V, NR, 6>(&c, &rk, ctrs, acc, i, o, r, encrypt, lens, h1),
            7 => tail::<V, NR, 7>(&c, &rk, ctrs, acc, i, o, r, encrypt, lens, h1),
            _ => tail::<V, NR, 8>(&c, &rk, ctrs, acc, i, o, r, encrypt, lens, h1),
        };
        let tag = Block::from(st(_mm_xor_si128(bswap(acc), mask)));

        // Secrets the stack may hold (the round keys, E(J0), the counters
        // derived from J0, the GHASH state; the batch powers are read from
        // the key where used, the pair powers wiped above): registers the
        // compiler spilled are out of reach, named values are not. Only the
        // entries that were filled: the rest still hold the zeros they were
        // made with (a short message pays for every store here).
        ct_dispatch::wipe::wipe_slice(&mut rk[..=NR]);
        wipe(&mut c0);
        wipe(&mut m);
        wipe(&mut mask);
        wipe(&mut acc);
        tag
    }
}
