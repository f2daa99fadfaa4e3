//! Fused CTR32 (big-endian 32-bit counter) loops for AES-NI and VAES: the
//! `Engine::ctr32` of those backends, behind [`crate::Ctr32BE`].
//!
//! Technique: counter blocks are made in vector registers, never in
//! memory: each 128-bit lane holds the nonce in bytes 0..12 and its block's
//! counter as a LITTLE-endian 32-bit word in bytes 12..16, so one
//! `paddd` steps every lane (mod 2^32, as CTR32 requires) and one `pshufb`
//! per vector turns the word big-endian (the arrangement of Gueron's
//! AES-NI CTR code and of BoringSSL's `aesni_ctr32_encrypt_blocks`). The
//! encrypted counters are XORed with the input straight from the
//! registers, so no keystream is ever written to memory. One body serves
//! three vector widths (`super::lanes::Lanes`): 128-bit AES-NI (8 blocks in flight),
//! 256-bit VAES with AVX2 (8 `ymm` = 16 blocks) and 512-bit VAES with
//! AVX-512 (8 `zmm` = 32 blocks). The final, partial group runs the
//! smallest interleave width (8/4/2/1 vectors) that covers it, and a last
//! vector only partly used is stored lane by lane.
//!
//! Cost: per group of 8 vectors, `NR + 1` AES instructions per vector plus
//! ~5 vector instructions per vector (counter add, shuffle, load, XOR,
//! store); the round keys are broadcast once per call, or where used when
//! no main loop runs.
//!
//! Constant time: the AES instructions and vector arithmetic are
//! data-independent; the counter value is only data. Loop bounds and the
//! tail's width depend on the length alone.

use super::lanes::Lanes;
use crate::Block;
use cipher::inout::InOutBuf;
#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;
use core::mem::MaybeUninit;

/// Vectors in flight per group in the main loop.
const U: usize = 8;

/// Byte order of one lane after the counter step: nonce bytes in place,
/// the little-endian counter word reversed to big-endian.
const BSWAP_CTR: [u8; 16] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 15, 14, 13, 12];

/// The per-call state: the round keys (`rk`, and their broadcast form
/// `k`), the next counter vector (little-endian counter words), the step,
/// the byte-swap mask.
///
/// `k` is filled, and wiped after, when the main loop runs; the loop keeps
/// the keys in one stack array of its own (the compiler would otherwise
/// hoist and spill them, a key copy no wipe reaches). A call with no main
/// loop (fewer than `U` vectors of blocks) broadcasts each round key from
/// `rk` where it is used (`DIRECT`): no copy, no wipe, which is a large
/// share of a short message's cost.
struct State<'k, V: Lanes, const NR: usize, const DIRECT: bool> {
    rk: &'k [[u8; 16]; 15],
    /// Entries `0..=NR` written unless `DIRECT`.
    k: [MaybeUninit<V>; 15],
    cur: V,
    step: V,
    bswap: V,
}

impl<V: Lanes, const NR: usize, const DIRECT: bool> State<'_, V, NR, DIRECT> {
    /// Round key `r` in every lane: broadcast from `rk` when `DIRECT` (a
    /// load with broadcast, no more than a load from `k`), else from `k`.
    #[inline(always)]
    unsafe fn key(&self, r: usize) -> V {
        if DIRECT {
            // SAFETY: the `Lanes` contract is the caller's.
            unsafe { V::tab(&self.rk[r]) }
        } else {
            // SAFETY: `r <= NR`, and entries `0..=NR` are written unless
            // `DIRECT`.
            unsafe { self.k[r].assume_init() }
        }
    }

    /// Up to `G * W` blocks (`G` vectors interleaved): `n` blocks
    /// (`n <= G * W`) from `inp` to `out`, counters advanced by `G * W`
    /// whatever `n` is (the caller stops after a partial group). Safety:
    /// the `Lanes` contract, and `n` blocks readable at `inp`, writable at
    /// `out`.
    #[inline(always)]
    unsafe fn group<const G: usize>(&mut self, inp: *const u8, out: *mut u8, n: usize) {
        // SAFETY: `Lanes` contract: only called inside this width's
        // target-feature functions; pointers valid per the caller.
        unsafe {
            // (Plain loops, not `array::from_fn`: a closure would be a
            // function of its own, compiled without the target features.)
            let k0 = self.key(0);
            let mut b = [k0; G];
            for x in b.iter_mut() {
                *x = V::xor(V::shuf(self.cur, self.bswap), k0);
                self.cur = V::add32(self.cur, self.step);
            }
            for r in 1..NR {
                let k = self.key(r);
                for x in b.iter_mut() {
                    *x = V::enc(*x, k);
                }
            }
            let k = self.key(NR);
            for x in b.iter_mut() {
                *x = V::enclast(*x, k);
            }
            let whole = n / V::W;
            for (j, x) in b.iter().enumerate().take(whole) {
                let off = j * V::W * 16;
                V::storeu(out.add(off), V::xor(*x, V::loadu(inp.add(off))));
            }
            // A last vector only partly used: lane by lane.
            for i in 0..n % V::W {
                let off = (whole * V::W + i) * 16;
                let ks = V::lane(b[whole], i);
                _mm_storeu_si128(
                    out.add(off).cast(),
                    _mm_xor_si128(ks, _mm_loadu_si128(inp.add(off).cast())),
                );
            }
        }
    }
}

/// The loop: whole groups of `U` vectors, then one narrower group for the
/// rest (8, 4, 2 or 1 vectors: the fewest that cover it). A call with no
/// main loop (fewer than `U` vectors of blocks) takes the `DIRECT` form.
#[inline(always)]
unsafe fn ctr_loop<V: Lanes, const NR: usize>(
    rk: &[[u8; 16]; 15],
    nonce: &[u8; 12],
    ctr: u32,
    blocks: InOutBuf<'_, '_, Block>,
) {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        if blocks.len() < U * V::W {
            ctr_body::<V, NR, true>(rk, nonce, ctr, blocks)
        } else {
            ctr_body::<V, NR, false>(rk, nonce, ctr, blocks)
        }
    }
}

/// [`ctr_loop`] with every round key broadcast from `rk` where used
/// (`DIRECT`: no main loop runs) or read from the broadcast array `k`.
#[inline(always)]
unsafe fn ctr_body<V: Lanes, const NR: usize, const DIRECT: bool>(
    rk: &[[u8; 16]; 15],
    nonce: &[u8; 12],
    ctr: u32,
    blocks: InOutBuf<'_, '_, Block>,
) {
    let mut first = [0u8; 16];
    first[..12].copy_from_slice(nonce);
    first[12..].copy_from_slice(&ctr.to_le_bytes());
    // SAFETY: the caller is one of this width's target-feature functions
    // (the `Lanes` contract); every pointer below is `inp`/`out` plus at
    // most `n` blocks, inside `blocks`.
    unsafe {
        let mut st = State::<V, NR, DIRECT> {
            rk,
            k: [MaybeUninit::uninit(); 15],
            cur: V::ramp(_mm_loadu_si128(first.as_ptr().cast())),
            step: V::step(),
            bswap: V::tab(&BSWAP_CTR),
        };
        // The round keys loaded once, straight into their broadcast form
        // (the one stack copy, wiped below), unless no group reads it.
        let wide = if DIRECT { 0 } else { NR + 1 };
        for (k, r) in st.k.iter_mut().zip(rk).take(wide) {
            k.write(V::bcast(_mm_loadu_si128(r.as_ptr().cast())));
        }
        let n = blocks.len();
        // Both pointers straight from the buffer (no reference made): in
        // place, a `&mut` from `get_out` would invalidate a pointer taken
        // from `get_in` before the loop reads through it.
        let (inp, out) = blocks.into_raw();
        let (inp, out) = (inp.cast::<u8>(), out.cast::<u8>());
        let per = U * V::W;
        let mut done = 0;
        while !DIRECT && n - done >= per {
            st.group::<U>(inp.add(done * 16), out.add(done * 16), per);
            done += per;
        }
        let rest = n - done;
        let vecs = rest.div_ceil(V::W);
        let (i, o) = (inp.add(done * 16), out.add(done * 16));
        match vecs {
            0 => {}
            1 => st.group::<1>(i, o, rest),
            2 => st.group::<2>(i, o, rest),
            3 | 4 => st.group::<4>(i, o, rest),
            _ => st.group::<U>(i, o, rest),
        }
        // The broadcast round keys may have been spilled to this frame;
        // the counter block is secret when AES-GCM derives it from a long
        // IV.
        if !DIRECT {
            ct_dispatch::wipe::wipe_raw(st.k.as_mut_ptr().cast(), (NR + 1) * size_of::<V>());
        }
        ct_dispatch::wipe::wipe_bytes(&mut st.cur);
        ct_dispatch::wipe::wipe(&mut first);
    }
}

/// The entry points: one per width, compiled with its target features and
/// reachable only with the token whose CPU check covers them.
macro_rules! entry {
    ($(#[$m:meta])* $name:ident, $token:ty, $features:literal, $v:ty) => {
        $(#[$m])*
        #[target_feature(enable = $features)]
        pub(super) fn $name<const NR: usize>(
            _: $token,
            rk: &[[u8; 16]; 15],
            nonce: &[u8; 12],
            ctr: u32,
            blocks: InOutBuf<'_, '_, Block>,
        ) {
            // SAFETY: this function is compiled with the features the
            // width's `Lanes` methods need, the token proves the CPU has
            // them, and the pointers `ctr_loop` forms stay inside `blocks`.
            unsafe { ctr_loop::<$v, NR>(rk, nonce, ctr, blocks) };
        }
    };
}

entry!(
    /// AES-NI, 8 blocks in flight (SSSE3 for the counter shuffle).
    ctr128, super::aesni::AesNi, "aes,sse2,ssse3", __m128i
);
#[cfg(feature = "vaes")]
entry!(
    /// VAES on 256-bit vectors (AVX2): 16 blocks in flight.
    ctr256, super::vaes::Vaes, "aes,vaes,avx2", __m256i
);
#[cfg(feature = "vaes")]
entry!(
    /// VAES on 512-bit vectors (AVX-512F/BW, a wide `Vaes` token): 32
    /// blocks in flight.
    ctr512, super::vaes::Vaes, "aes,vaes,avx512f,avx512bw", __m512i
);
