//! AES-GCM with AES-NI and PCLMULQDQ, CTR and GHASH stitched (x86_64):
//! two paths from one source, `aesni-avx-clmul` (compiled with AVX, so in
//! three-operand VEX encoding: no register copies before the destructive
//! two-operand SSE forms) and `aesni-clmul` (SSE encoding, for CPUs without
//! AVX).
//!
//! Technique: S. Gueron and M. Kounavis, "Intel Carry-Less Multiplication
//! Instruction and its Usage for Computing the GCM Mode" (Intel white
//! paper, rev. 2.02, 2014), section on aggregated reduction, with the
//! GHASH-through-POLYVAL formulation of RFC 8452 appendix A: blocks are
//! byte-reversed on load, H becomes `mulX_POLYVAL(ByteReverse(H))`, and a
//! product is reduced by Montgomery reduction (two `pclmulqdq` by the
//! constant 0xc2000000_00000000, as in Gueron-Langley-Lindell's AES-GCM-SIV
//! reference code). Key powers H^1..H^8 are computed once at key setup.
//!
//! Loop: 8 counter blocks per iteration; their AES rounds are interleaved
//! with the 8 carry-less multiplications of 8 ciphertext blocks against
//! H^8..H^1, accumulated unreduced, and one reduction per 8 blocks. The
//! products are Karatsuba's (3 `pclmulqdq` each: low halves, high halves,
//! and the XORed halves against the power's XORed halves, made per message
//! in [`Mids`]): on CPUs that issue `pclmulqdq` every other cycle the
//! products bound the loop, and the swap and XOR that replace the fourth
//! go to other units. Encryption hashes the previous iteration's
//! ciphertext (software pipelining), read back from the output buffer
//! (L1); decryption hashes the current iteration's input, read where it is
//! used (in the round that hashes it, and again for the last XOR): 16 xmm
//! registers hold the 8 AES states, not 8 more blocks beside them. AAD
//! runs of 8 blocks keep the schoolbook product (4 `pclmulqdq`). The
//! blocks after the last batch, the partial block, the lengths block and
//! the tag go through the shared byte-level `super::tail::finish_with`
//! (one block at a time).
//!
//! Cost per 8 blocks: 8 x NR `aesenc` + 24 + 2 `pclmulqdq`; at setup 7
//! multiplications for the powers, per message of 128 bytes or more 8
//! swaps and XORs for the middle operands.
//!
//! Register plan (LLVM allocates): 8 AES states, 3 accumulators (lo, mid,
//! hi), the block being multiplied; round keys, powers and middle
//! operands are memory operands from the stack copies (L1).

use super::tail::{LoopKey, Rest, finish_with};
use crate::{Block, Msg};
use core::arch::x86_64::*;

ct_dispatch::x86_detect!(cpu_clmul, "aes", "pclmulqdq", "sse2", "ssse3", "sse4.1");
ct_dispatch::x86_detect!(
    cpu_clmul_avx,
    "aes",
    "pclmulqdq",
    "sse2",
    "ssse3",
    "sse4.1",
    "avx"
);

/// Round keys and H^1..H^8 (POLYVAL form). Wiped with its `AesGcm`.
pub(crate) type Key = crate::backend::FusedKey<8>;

fused_engine!(
    /// The path (CPU check: AES-NI, PCLMULQDQ, SSSE3, SSE4.1).
    AesniClmul,
    cpu_clmul::get(),
    encrypt_zero,
    powers,
    crypt_impl,
    ghash_by_h1,
    0
);

fused_engine!(
    /// The same loops in VEX encoding (CPU check: those and AVX, with the
    /// OS saving its state); key setup is shared.
    AesniAvxClmul,
    cpu_clmul_avx::get(),
    encrypt_zero,
    powers,
    crypt_avx,
    ghash_by_h1,
    0
);

/// E_K(0): the all-zero block through the `nr` rounds of `rk` (`nr` is
/// the public round count).
#[target_feature(enable = "aes,sse2")]
pub(super) fn encrypt_zero(rk: &[[u8; 16]; 15], nr: usize) -> [u8; 16] {
    let mut x = ld(&rk[0]);
    for k in &rk[1..nr] {
        x = _mm_aesenc_si128(x, ld(k));
    }
    st(_mm_aesenclast_si128(x, ld(&rk[nr])))
}

/// GHASH (GCM bytes) of `data` zero-padded, then `lens`, one block at a
/// time by H^1 (`h1`, POLYVAL form): J0 of a nonce that is not 96 bits.
#[target_feature(enable = "sse2,ssse3,pclmulqdq")]
pub(super) fn ghash_by_h1(h1: &[u8; 16], data: &[u8], lens: &Block) -> Block {
    // SAFETY: this function's features are `Ops for __m128i`'s.
    unsafe { super::tail::ghash_by_h1::<__m128i>(h1, data, lens) }
}

// SAFETY: `__m128i` is 16 bytes of plain bits; the methods are called
// only from this file's target-feature functions, which have SSSE3 and
// PCLMULQDQ (the trait's contract).
unsafe impl super::tail::Ops for __m128i {
    ct_dispatch::intrinsic_methods! {
        fn xor(self, Self) = _mm_xor_si128;
        fn bswap(self) = bswap;
        fn zero() = _mm_setzero_si128;
    }
    #[inline(always)]
    unsafe fn mul_h(self, h: Self) -> Self {
        // SAFETY: the trait's contract (PCLMULQDQ).
        unsafe { reduce(mul(self, h)) }
    }
}

#[inline(always)]
pub(super) fn ld(p: &[u8; 16]) -> __m128i {
    // SAFETY: 16 readable bytes; unaligned load (SSE2).
    unsafe { _mm_loadu_si128(p.as_ptr().cast()) }
}

#[inline(always)]
pub(super) fn st(v: __m128i) -> [u8; 16] {
    let mut out = [0u8; 16];
    // SAFETY: 16 writable bytes; unaligned store (SSE2).
    unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), v) };
    out
}

#[inline]
#[target_feature(enable = "sse2,ssse3")]
pub(super) fn bswap(x: __m128i) -> __m128i {
    _mm_shuffle_epi8(
        x,
        _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
    )
}

/// Unreduced product parts of `a * b`: (lo, mid, hi).
#[inline]
#[target_feature(enable = "sse2,pclmulqdq")]
pub(super) fn mul(a: __m128i, b: __m128i) -> (__m128i, __m128i, __m128i) {
    let lo = _mm_clmulepi64_si128(a, b, 0x00);
    let hi = _mm_clmulepi64_si128(a, b, 0x11);
    let mid = _mm_xor_si128(
        _mm_clmulepi64_si128(a, b, 0x01),
        _mm_clmulepi64_si128(a, b, 0x10),
    );
    (lo, mid, hi)
}

/// Accumulate `a * b` into (lo, mid, hi).
#[inline]
#[target_feature(enable = "sse2,pclmulqdq")]
fn mul_acc(acc: &mut (__m128i, __m128i, __m128i), a: __m128i, b: __m128i) {
    let (l, m, h) = mul(a, b);
    acc.0 = _mm_xor_si128(acc.0, l);
    acc.1 = _mm_xor_si128(acc.1, m);
    acc.2 = _mm_xor_si128(acc.2, h);
}

/// Karatsuba's middle operands of the powers (each 64-bit half of `0[i]`
/// holds the XOR of the two halves of H^(i+1)), for the 8-block loops;
/// wiped when dropped.
struct Mids([__m128i; 8]);

impl Mids {
    #[inline]
    #[target_feature(enable = "sse2")]
    fn new(hp: &[__m128i; 8]) -> Self {
        let mut m = [_mm_setzero_si128(); 8];
        for (m, &h) in m.iter_mut().zip(hp) {
            *m = _mm_xor_si128(h, _mm_shuffle_epi32(h, 0x4e));
        }
        Mids(m)
    }
}

impl Drop for Mids {
    fn drop(&mut self) {
        ct_dispatch::wipe::wipe(&mut self.0);
    }
}

/// Accumulate `a * b` into (lo, mid, hi) by Karatsuba: three products,
/// the middle one against `bx` (from [`Mids`]); the sum's middle part is
/// settled by [`reduce_karatsuba`]. On CPUs where `pclmulqdq` issues only
/// every other cycle the products bound the loop, so one fewer per block
/// counts; the extra shuffle and XOR go to other units.
#[inline]
#[target_feature(enable = "sse2,pclmulqdq")]
fn mul_acc_karatsuba(acc: &mut (__m128i, __m128i, __m128i), a: __m128i, b: __m128i, bx: __m128i) {
    acc.0 = _mm_xor_si128(acc.0, _mm_clmulepi64_si128(a, b, 0x00));
    acc.2 = _mm_xor_si128(acc.2, _mm_clmulepi64_si128(a, b, 0x11));
    let ax = _mm_xor_si128(a, _mm_shuffle_epi32(a, 0x4e));
    acc.1 = _mm_xor_si128(acc.1, _mm_clmulepi64_si128(ax, bx, 0x00));
}

/// [`reduce`] of Karatsuba sums: the middle part is (lo ^ hi) ^ mid.
#[inline]
#[target_feature(enable = "sse2,pclmulqdq")]
fn reduce_karatsuba((lo, mid, hi): (__m128i, __m128i, __m128i)) -> __m128i {
    reduce((lo, _mm_xor_si128(mid, _mm_xor_si128(lo, hi)), hi))
}

/// The Montgomery reduction's constant (POLYVAL's polynomial, as RFC 8452
/// appendix A multiplies by it) as little-endian dwords: every reduction
/// here and in the VAES paths takes it from here.
pub(super) const POLY: [u32; 4] = [1, 0, 0, 0xc200_0000];

/// [`POLY`] in a register.
#[inline(always)]
pub(super) fn poly() -> __m128i {
    // SAFETY: SSE2 is part of x86_64; `POLY` is 16 readable bytes.
    unsafe { _mm_loadu_si128(POLY.as_ptr().cast()) }
}

/// Montgomery reduction: (hi:lo) * x^-128 mod P (POLYVAL).
#[inline]
#[target_feature(enable = "sse2,pclmulqdq")]
pub(super) fn reduce((lo, mid, hi): (__m128i, __m128i, __m128i)) -> __m128i {
    let lo = _mm_xor_si128(lo, _mm_slli_si128(mid, 8));
    let hi = _mm_xor_si128(hi, _mm_srli_si128(mid, 8));
    let poly = poly();
    let t = _mm_clmulepi64_si128(lo, poly, 0x10);
    let lo = _mm_xor_si128(_mm_shuffle_epi32(lo, 0x4e), t);
    let t = _mm_clmulepi64_si128(lo, poly, 0x10);
    let lo = _mm_xor_si128(_mm_shuffle_epi32(lo, 0x4e), t);
    _mm_xor_si128(hi, lo)
}

/// `p[i]` = H^(i+1) from `p[0]` = H: each power the product of two lower
/// ones (H^n = H^a H^(n-a), `a` the largest power of two below `n`), so
/// the multiplications form a tree of depth log2(len) that the CPU
/// overlaps, not a chain of `len - 1`.
#[target_feature(enable = "sse2,pclmulqdq")]
pub(super) fn raise(h: __m128i, p: &mut [__m128i]) {
    p[0] = h;
    for i in 1..p.len() {
        let n = i + 1;
        let a = n.next_power_of_two() / 2;
        p[i] = reduce(mul(p[a - 1], p[n - a - 1]));
    }
}

/// The key's eight powers into `out`. Not wiped here (as in
/// `vaes_clmul::powers_v`): spills lie in a frame the constructor's
/// dead-stack scrub zeroes, and a wipe would keep the powers on the stack.
#[target_feature(enable = "sse2,pclmulqdq")]
fn powers(h1: u128, out: &mut [[u8; 16]; 8]) {
    let mut p = [_mm_setzero_si128(); 8];
    raise(ld(&h1.to_le_bytes()), &mut p);
    for (o, v) in out.iter_mut().zip(&p) {
        *o = st(*v);
    }
}

const ZERO3: fn() -> (__m128i, __m128i, __m128i) = || {
    // SAFETY: SSE2 is baseline on x86_64.
    unsafe {
        (
            _mm_setzero_si128(),
            _mm_setzero_si128(),
            _mm_setzero_si128(),
        )
    }
};

/// The whole 8-block batches from the buffer's start (`$off` 0), with
/// Karatsuba products, for one direction (`$encrypt` a literal, so each
/// expansion is a loop of its own, in its caller's frame: a function would
/// keep copies of the round keys and powers in a frame of its own, which no
/// wipe reaches): encryption hashes the previous batch's ciphertext
/// (software pipelining), read back from the output (L1), then the last
/// batch's after the loop; decryption hashes this batch's input. The hashed
/// blocks are read where they are used, in the round that multiplies them
/// (16 xmm registers hold the 8 AES states, not 8 more blocks), and the
/// input again for the last XOR. Leaves the bytes done in `$off`, the next
/// counter in `$ctr` and the running hash in `$acc`. Expands only inside
/// `crypt_fn!`'s functions (their target features); `$inp` is readable and
/// `$out` writable for `$len` >= 128 bytes (they may be equal).
macro_rules! batches {
    ($encrypt:literal, $k:ident, $mids:ident, $cblock:ident, ($inp:ident, $out:ident, $len:ident),
     $off:ident, $ctr:ident, $acc:ident) => {{
        let (rk, hp, hx) = (&$k.rk, &$k.hp, &$mids.0);
        // Where the blocks hashed during the batch at `off` are: the
        // output 128 bytes back, or the input at `off`.
        let (hashed, back) = if $encrypt {
            ($out.cast_const(), 128)
        } else {
            ($inp, 0)
        };
        let block = |p: *const u8, at: usize, j: usize| {
            // SAFETY: 16 * j + 16 <= 128, and `at` starts 128 bytes
            // of the input (a batch) or of the output (the batch
            // just written), within the `len` bytes of both.
            unsafe { _mm_loadu_si128(p.add(at + 16 * j).cast()) }
        };
        // Encryption's first batch has nothing to hash yet.
        let mut hashing = !$encrypt;
        while $len - $off >= 128 {
            let mut b = [_mm_setzero_si128(); 8];
            for (j, x) in b.iter_mut().enumerate() {
                *x = _mm_xor_si128($cblock($ctr.wrapping_add(j as u32)), rk[0]);
            }
            $ctr = $ctr.wrapping_add(8);
            let mut s = ZERO3();
            for r in 1..NR {
                for x in b.iter_mut() {
                    *x = _mm_aesenc_si128(*x, rk[r]);
                }
                if hashing && r <= 8 {
                    let y = bswap(block(hashed, $off - back, r - 1));
                    let y = if r == 1 { _mm_xor_si128(y, $acc) } else { y };
                    mul_acc_karatsuba(&mut s, y, hp[8 - r], hx[8 - r]);
                }
            }
            if hashing {
                $acc = reduce_karatsuba(s);
            }
            for (j, x) in b.iter().enumerate() {
                let k = _mm_aesenclast_si128(*x, rk[NR]);
                let c = _mm_xor_si128(block($inp, $off, j), k);
                // SAFETY: off + 16 * j + 16 <= len; block j of the input
                // was read just before (in place, the same bytes).
                unsafe { _mm_storeu_si128($out.add($off + 16 * j).cast(), c) };
            }
            hashing = true;
            $off += 128;
        }
        if $encrypt {
            // The last batch's ciphertext.
            let mut s = ZERO3();
            for i in 0..8 {
                let y = bswap(block(hashed, $off - back, i));
                let y = if i == 0 { _mm_xor_si128(y, $acc) } else { y };
                mul_acc_karatsuba(&mut s, y, hp[7 - i], hx[7 - i]);
            }
            $acc = reduce_karatsuba(s);
        }
    }};
}

/// The message through one of the loops' two encodings: `$name` with the
/// target features `$features` (the same source compiled twice, so the
/// AVX form gets three-operand instructions throughout).
macro_rules! crypt_fn {
    ($name:ident, $features:literal) => {
        #[target_feature(enable = $features)]
        fn $name<const NR: usize>(key: &Key, msg: Msg<'_, '_, '_>) -> Block {
            let (j0, aad, buf, encrypt) = (msg.j0, msg.aad, msg.buf, msg.encrypt);
            // SAFETY: this function has `Ops for __m128i`'s features.
            let mut k = unsafe { LoopKey::<__m128i>::zero() };
            k.fill::<NR>(&key.rk, &key.h, ld);
            let (rk, hp) = (&k.rk, &k.hp);
            let aes1 = |x: __m128i| -> __m128i {
                let mut x = _mm_xor_si128(x, rk[0]);
                for k in &rk[1..NR] {
                    x = _mm_aesenc_si128(x, *k);
                }
                _mm_aesenclast_si128(x, rk[NR])
            };
            let ghash1 =
                |acc: __m128i, x: __m128i| -> __m128i { reduce(mul(_mm_xor_si128(acc, x), hp[0])) };

            let j0v = ld(&j0.0);
            let mask = aes1(j0v);

            // AAD: 8 blocks per reduction against H^8..H^1.
            let group = |acc, g: &[u8; 128]| {
                let mut s = ZERO3();
                for (i, b) in g.as_chunks::<16>().0.iter().enumerate() {
                    let x = bswap(ld(b));
                    let x = if i == 0 { _mm_xor_si128(x, acc) } else { x };
                    mul_acc(&mut s, x, hp[7 - i]);
                }
                reduce(s)
            };
            let one = |acc, b: &[u8; 16]| ghash1(acc, bswap(ld(b)));
            let mut acc = super::tail::ghash_input(_mm_setzero_si128(), aad, group, one);

            let len = buf.len();
            let (inp, out) = buf.into_raw();
            let mut ctr = u32::from_be_bytes([j0[12], j0[13], j0[14], j0[15]]).wrapping_add(1);
            let cblock = |c: u32| _mm_insert_epi32(j0v, c.swap_bytes() as i32, 3);
            let mut off = 0usize;

            if len >= 128 {
                let mids = Mids::new(hp);
                if encrypt {
                    batches!(true, k, mids, cblock, (inp, out, len), off, ctr, acc);
                } else {
                    batches!(false, k, mids, cblock, (inp, out, len), off, ctr, acc);
                }
            }

            // The rest (whole blocks, partial block, lengths, tag) is shared; `k`
            // wipes itself.
            let rest = Rest(inp, out, off, len, aad.len(), encrypt);
            // SAFETY: `inp`/`out` hold `len` bytes, off <= len; the features.
            unsafe { finish_with(rest, acc, mask, ctr, hp[0], |c| aes1(cblock(c))) }
        }
    };
}

crypt_fn!(crypt_impl, "aes,pclmulqdq,sse2,ssse3,sse4.1");
crypt_fn!(crypt_avx, "aes,pclmulqdq,sse2,ssse3,sse4.1,avx");
