//! AES-GCM with the ARMv8 Cryptography Extensions: `aese`/`aesmc` CTR and
//! 64-bit `pmull` GHASH, interleaved (aarch64).
//!
//! Technique: the Linux arm64 GHASH/GCM approach (arch/arm64/crypto,
//! `ghash-ce-core.S`: counter blocks in groups with their AES rounds interleaved
//! with the GHASH multiplies, key powers precomputed, one reduction per
//! group), here with groups of 8 blocks, and GHASH through POLYVAL
//! (RFC 8452 appendix A: byte-reversed blocks, H' = mulX_POLYVAL(rev(H)),
//! Montgomery reduction by two `pmull` with 0xc2000000_00000000), the same
//! arithmetic as the x86_64 AES-NI + PCLMULQDQ path.
//!
//! Cost per 8 blocks: 8 x NR (`aese` + `aesmc`) and 32 + 2 `pmull`; key
//! setup: 7 multiplications for H^2..H^8.
//!
//! Register plan (LLVM allocates from 32 vector registers): 8 AES states,
//! 11-15 round keys, 8 powers, 3 accumulators and the block being
//! multiplied fit without spills.

use super::tail::{LoopKey, Rest, finish_with};
use crate::{Block, Msg};
use core::arch::aarch64::*;

cpufeatures::new!(cpu_aes_pmull, "aes");

/// Round keys and H^1..H^8 (POLYVAL form). Wiped with its `AesGcm`.
pub(crate) type Key = crate::backend::FusedKey<8>;

fused_engine!(
    /// The path (CPU check: AES and PMULL).
    Armv8Pmull,
    cpu_aes_pmull::get(),
    encrypt_zero,
    powers,
    crypt_impl,
    ghash_by_h1,
    0
);

type V = uint8x16_t;
type Acc = (V, V, V);

/// E_K(0): the all-zero block through the `nr` rounds of `rk` (`nr` is
/// the public round count). `aese` XORs the round key first.
#[target_feature(enable = "neon,aes")]
fn encrypt_zero(rk: &[[u8; 16]; 15], nr: usize) -> [u8; 16] {
    let mut x = zero();
    for k in &rk[..nr - 1] {
        x = round(x, ld(k));
    }
    st(xor(vaeseq_u8(x, ld(&rk[nr - 1])), ld(&rk[nr])))
}

/// GHASH (GCM bytes) of `data` zero-padded, then `lens`, one block at a
/// time by H^1 (`h1`, POLYVAL form): J0 of a nonce that is not 96 bits.
#[target_feature(enable = "neon,aes")]
fn ghash_by_h1(h1: &[u8; 16], data: &[u8], lens: &Block) -> Block {
    // SAFETY: this function's features are `Ops for V`'s.
    unsafe { super::tail::ghash_by_h1::<V>(h1, data, lens) }
}

// SAFETY: `V` (`uint8x16_t`) is 16 bytes of plain bits; the methods are
// called only from this file's target-feature functions, which have NEON
// and PMULL (`aes`) (the trait's contract).
unsafe impl super::tail::Ops for V {
    #[inline(always)]
    unsafe fn xor(self, b: Self) -> Self {
        xor(self, b)
    }
    #[inline(always)]
    unsafe fn bswap(self) -> Self {
        bswap(self)
    }
    #[inline(always)]
    unsafe fn mul_h(self, h: Self) -> Self {
        // SAFETY: the trait's contract (PMULL).
        unsafe { reduce(mul(self, h)) }
    }
    #[inline(always)]
    unsafe fn zero() -> Self {
        zero()
    }
}

#[inline(always)]
fn ld(p: &[u8; 16]) -> V {
    // SAFETY: 16 readable bytes (NEON is baseline on aarch64).
    unsafe { vld1q_u8(p.as_ptr()) }
}

#[inline(always)]
fn st(v: V) -> [u8; 16] {
    let mut out = [0u8; 16];
    // SAFETY: 16 writable bytes.
    unsafe { vst1q_u8(out.as_mut_ptr(), v) };
    out
}

#[inline(always)]
fn xor(a: V, b: V) -> V {
    // SAFETY: NEON is baseline on aarch64.
    unsafe { veorq_u8(a, b) }
}

#[inline(always)]
fn zero() -> V {
    // SAFETY: NEON is baseline on aarch64.
    unsafe { vdupq_n_u8(0) }
}

#[inline(always)]
fn bswap(x: V) -> V {
    // SAFETY: NEON is baseline on aarch64.
    unsafe {
        let r = vrev64q_u8(x);
        vextq_u8(r, r, 8)
    }
}

/// 64 x 64 -> 128 carry-less multiply of lane `I` of `a` by lane `J` of `b`.
#[inline]
#[target_feature(enable = "neon,aes")]
fn clmul<const I: i32, const J: i32>(a: V, b: V) -> V {
    let x = vgetq_lane_u64::<I>(vreinterpretq_u64_u8(a));
    let y = vgetq_lane_u64::<J>(vreinterpretq_u64_u8(b));
    vreinterpretq_u8_p128(vmull_p64(x, y))
}

#[inline]
#[target_feature(enable = "neon,aes")]
fn mul(a: V, b: V) -> Acc {
    let lo = clmul::<0, 0>(a, b);
    let hi = clmul::<1, 1>(a, b);
    let mid = xor(clmul::<0, 1>(a, b), clmul::<1, 0>(a, b));
    (lo, mid, hi)
}

#[inline]
#[target_feature(enable = "neon,aes")]
fn mul_acc(acc: &mut Acc, a: V, b: V) {
    let (l, m, h) = mul(a, b);
    acc.0 = xor(acc.0, l);
    acc.1 = xor(acc.1, m);
    acc.2 = xor(acc.2, h);
}

/// Montgomery reduction: (hi:lo) * x^-128 mod P (POLYVAL).
#[inline]
#[target_feature(enable = "neon,aes")]
fn reduce((lo, mid, hi): Acc) -> V {
    let z = zero();
    let lo = xor(lo, vextq_u8(z, mid, 8));
    let hi = xor(hi, vextq_u8(mid, z, 8));
    let poly = vreinterpretq_u8_u64(vdupq_n_u64(0xc200_0000_0000_0000));
    let t = clmul::<0, 0>(lo, poly);
    let lo = xor(vextq_u8(lo, lo, 8), t);
    let t = clmul::<0, 0>(lo, poly);
    let lo = xor(vextq_u8(lo, lo, 8), t);
    xor(hi, lo)
}

#[target_feature(enable = "neon,aes")]
fn powers(h1: u128, out: &mut [[u8; 16]; 8]) {
    let h = ld(&h1.to_le_bytes());
    let mut p = h;
    out[0] = st(h);
    for o in out.iter_mut().skip(1) {
        p = reduce(mul(p, h));
        *o = st(p);
    }
}

#[inline]
#[target_feature(enable = "neon,aes")]
fn round(x: V, k: V) -> V {
    vaesmcq_u8(vaeseq_u8(x, k))
}

#[target_feature(enable = "neon,aes")]
fn crypt_impl<const NR: usize>(key: &Key, msg: Msg<'_, '_, '_>) -> Block {
    let (j0, aad, buf, encrypt) = (msg.j0, msg.aad, msg.buf, msg.encrypt);
    // SAFETY: this function has `Ops for V`'s features.
    let mut k = unsafe { LoopKey::<V>::zero() };
    k.fill::<NR>(&key.rk, &key.h, ld);
    let (rk, hp) = (&k.rk, &k.hp);
    // aese XORs the round key first: rounds 0..NR-1 with aesmc, the last
    // without, then the final round key.
    let last = |x: V| -> V { xor(vaeseq_u8(x, rk[NR - 1]), rk[NR]) };
    let aes1 = |x: V| -> V {
        let mut x = x;
        for k in &rk[..NR - 1] {
            x = round(x, *k);
        }
        last(x)
    };
    let ghash1 = |acc: V, x: V| -> V { reduce(mul(xor(acc, x), hp[0])) };
    let zero3 = || (zero(), zero(), zero());

    let j0v = ld(&j0.0);
    let mask = aes1(j0v);
    let mut acc = zero();

    // AAD: 8 blocks per reduction, then single blocks, then a padded one.
    // Written out, not through `tail::ghash_input`: with its closures LLVM
    // allocates this function's registers worse, and the main loop runs
    // more instructions per block (aes-gcm-ct/PERFORMANCE.md).
    let (groups, rest) = aad.as_chunks::<128>();
    for g in groups {
        let mut s = zero3();
        for i in 0..8 {
            // SAFETY: `g` has 128 readable bytes.
            let x = bswap(unsafe { vld1q_u8(g.as_ptr().add(16 * i)) });
            let x = if i == 0 { xor(x, acc) } else { x };
            mul_acc(&mut s, x, hp[7 - i]);
        }
        acc = reduce(s);
    }
    let (blocks, tail) = rest.as_chunks::<16>();
    for b in blocks {
        acc = ghash1(acc, bswap(ld(b)));
    }
    if !tail.is_empty() {
        let t = ct_dispatch::short::read_block(tail);
        acc = ghash1(acc, bswap(ld(&t)));
    }

    let len = buf.len();
    let (inp, out) = buf.into_raw();
    let mut ctr = u32::from_be_bytes([j0[12], j0[13], j0[14], j0[15]]).wrapping_add(1);
    let j0w = vreinterpretq_u32_u8(j0v);
    let cblock = |c: u32| vreinterpretq_u8_u32(vsetq_lane_u32::<3>(c.swap_bytes(), j0w));
    let mut off = 0usize;

    if encrypt {
        let mut prev = [zero(); 8];
        let mut have_prev = false;
        while len - off >= 128 {
            let mut b = [zero(); 8];
            for (j, x) in b.iter_mut().enumerate() {
                *x = cblock(ctr.wrapping_add(j as u32));
            }
            ctr = ctr.wrapping_add(8);
            let mut s = zero3();
            if have_prev {
                prev[0] = xor(prev[0], acc);
            }
            for r in 0..NR - 1 {
                for x in b.iter_mut() {
                    *x = round(*x, rk[r]);
                }
                if have_prev && r < 8 {
                    mul_acc(&mut s, prev[r], hp[7 - r]);
                }
            }
            if have_prev {
                acc = reduce(s);
            }
            // 64 bytes per load and store (`ld1`/`st1` of four registers).
            for q in 0..2 {
                // SAFETY: off + 64 * q + 64 <= off + 128 <= len for both
                // buffers.
                let d = unsafe { vld1q_u8_x4(inp.add(off + 64 * q)) };
                let k = [0, 1, 2, 3].map(|i| last(b[4 * q + i]));
                let c = uint8x16x4_t(
                    xor(d.0, k[0]),
                    xor(d.1, k[1]),
                    xor(d.2, k[2]),
                    xor(d.3, k[3]),
                );
                // SAFETY: as the load.
                unsafe { vst1q_u8_x4(out.add(off + 64 * q), c) };
                prev[4 * q] = bswap(c.0);
                prev[4 * q + 1] = bswap(c.1);
                prev[4 * q + 2] = bswap(c.2);
                prev[4 * q + 3] = bswap(c.3);
            }
            have_prev = true;
            off += 128;
        }
        if have_prev {
            let mut s = zero3();
            prev[0] = xor(prev[0], acc);
            for i in 0..8 {
                mul_acc(&mut s, prev[i], hp[7 - i]);
            }
            acc = reduce(s);
        }
    } else {
        while len - off >= 128 {
            let mut b = [zero(); 8];
            let mut c = [zero(); 8];
            for (j, x) in b.iter_mut().enumerate() {
                *x = cblock(ctr.wrapping_add(j as u32));
            }
            for q in 0..2 {
                // SAFETY: off + 64 * q + 64 <= off + 128 <= len.
                let d = unsafe { vld1q_u8_x4(inp.add(off + 64 * q)) };
                (c[4 * q], c[4 * q + 1], c[4 * q + 2], c[4 * q + 3]) = (d.0, d.1, d.2, d.3);
            }
            ctr = ctr.wrapping_add(8);
            let mut s = zero3();
            for r in 0..NR - 1 {
                for x in b.iter_mut() {
                    *x = round(*x, rk[r]);
                }
                if r < 8 {
                    let y = bswap(c[r]);
                    let y = if r == 0 { xor(y, acc) } else { y };
                    mul_acc(&mut s, y, hp[7 - r]);
                }
            }
            acc = reduce(s);
            for q in 0..2 {
                let p = |i: usize| xor(c[4 * q + i], last(b[4 * q + i]));
                let o = uint8x16x4_t(p(0), p(1), p(2), p(3));
                // SAFETY: off + 64 * q + 64 <= off + 128 <= len.
                unsafe { vst1q_u8_x4(out.add(off + 64 * q), o) };
            }
            off += 128;
        }
    }

    // The rest (whole blocks, partial block, lengths, tag) is shared; `k`
    // wipes itself.
    let rest = Rest(inp, out, off, len, aad.len(), encrypt);
    // SAFETY: `inp`/`out` hold `len` bytes, off <= len; the features.
    unsafe { finish_with(rest, acc, mask, ctr, hp[0], |c| aes1(cblock(c))) }
}
