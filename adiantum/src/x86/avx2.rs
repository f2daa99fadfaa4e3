//! AVX2 NH backend: two 16-byte units per 256-bit vector.
//!
//! Technique: as the SSE2 backend (message shuffled to (m0, m2, m1, m3),
//! key in the same swapped order, `vpmuludq(T, T >> 32)`), with unit `u` in
//! the low and unit `u+1` in the high 128-bit lane. The key vectors the two units need for pass p
//! (words `4(u+p)..` and `4(u+1+p)..`) are adjacent, so one unaligned
//! 256-bit load fetches both. `vpshufd` and `vpmuludq` work per lane, so the
//! SSE2 pattern carries over unchanged. An odd last unit goes through the
//! SSE2 code. Source: Crowley & Biggers, IACR ToSC 2018(4), section 6.3;
//! the lane split is Linux's `nh-avx2-x86_64.S` idea.
//! Cost: ~18 vector operations per 32 bytes, 1 of them a shuffle.

//!
//! ## ChaCha (8 blocks at a time)
//!
//! A profile of 4096-byte Adiantum-XChaCha12 messages put 58% of the time
//! in RustCrypto `chacha20`'s AVX2 backend (4 blocks per pass, one row per
//! register half, with lane rotations between column and diagonal rounds),
//! so this backend brings its own ChaCha: eight blocks in parallel, one
//! state word per 256-bit register (lane j = block j), the layout of
//! Linux's `chacha-avx2-x86_64.S` 8-block code and of Goll & Gueron's
//! "Vectorization of ChaCha stream cipher" (2014). Column and diagonal
//! rounds are the same code with different register indices, so no lane
//! rotation is needed; rotations by 16 and 8 are `vpshufb`, by 12 and 7
//! shift/shift/or. At the end an 8x8 transpose of 32-bit words (unpack
//! 32/64, `vperm2i128`) turns the 16 word vectors into 8 consecutive
//! blocks. Source for the round function: Bernstein, "ChaCha, a variant of
//! Salsa20" (2008). Cost per 512 bytes: 96 vector operations per double
//! round + ~80 for feed-forward, transpose and XOR.

use super::sse2;
use crate::nh::NhKey;
use cipher::InOutBuf;
#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;
use zeroize::Zeroize;

ct_dispatch::x86_detect!(avx2_cpuid, "avx2");

crate::backend::engine! {
    /// The AVX2 NH engine.
    Avx2, "has AVX2", avx2_cpuid::get();

    own_chacha(_, state, double_rounds, buf) {
        // SAFETY: the token exists only if the CPU has AVX2.
        unsafe { chacha_xor_avx2(state, double_rounds, buf) };
        true
    }

    #[inline]
    fn units(_: Token, key: &NhKey, msg: &[u8]) -> [u64; 4] {
        // SAFETY: the token exists only if the CPU has AVX2 (which implies SSE2).
        unsafe { units_avx2(&key.swapped, msg) }
    }
}

#[target_feature(enable = "avx2")]
fn units_avx2(key: &[u32], msg: &[u8]) -> [u64; 4] {
    let msg = &msg[..msg.len().min(1024)];
    let mut acc = [_mm256_setzero_si256(); 4];
    let pairs = msg.chunks_exact(32);
    let rest = pairs.remainder();
    let npairs = pairs.len();
    for (m, k) in pairs.zip(key.windows(20).step_by(8)) {
        // SAFETY: `m` has 32 bytes, `k` 20 words: the loads at word offsets
        // 0, 4, 8, 12 read 8 words each, the last ending at word 20.
        let (mv, kv) = unsafe {
            let kp = k.as_ptr();
            (
                _mm256_loadu_si256(m.as_ptr().cast()),
                [
                    _mm256_loadu_si256(kp.cast()),
                    _mm256_loadu_si256(kp.add(4).cast()),
                    _mm256_loadu_si256(kp.add(8).cast()),
                    _mm256_loadu_si256(kp.add(12).cast()),
                ],
            )
        };
        let mv = _mm256_shuffle_epi32::<0xd8>(mv);
        for p in 0..4 {
            let t = _mm256_add_epi32(mv, kv[p]);
            acc[p] = _mm256_add_epi64(acc[p], _mm256_mul_epu32(t, _mm256_srli_epi64::<32>(t)));
        }
    }
    let mut acc128 = [_mm_setzero_si128(); 4];
    for p in 0..4 {
        acc128[p] = _mm_add_epi64(
            _mm256_castsi256_si128(acc[p]),
            _mm256_extracti128_si256::<1>(acc[p]),
        );
    }
    if rest.len() >= 16 {
        let off = 8 * npairs;
        sse2::single_unit(&mut acc128, rest, &key[off..off + 16]);
    }
    sse2::finish(acc128)
}

/// Rotates every 32-bit lane left by `L` (12 or 7) with two shifts.
#[inline(always)]
fn rotl<const L: i32, const R: i32>(x: __m256i) -> __m256i {
    // SAFETY: only called from the AVX2 functions below (inlined there).
    unsafe { _mm256_or_si256(_mm256_slli_epi32::<L>(x), _mm256_srli_epi32::<R>(x)) }
}

/// One quarter round on word vectors a, b, c, d of `v` (eight blocks).
#[inline(always)]
fn qr(v: &mut [__m256i; 16], a: usize, b: usize, c: usize, d: usize, r16: __m256i, r8: __m256i) {
    // SAFETY: only called from `keystream8` (AVX2 enabled, inlined there).
    unsafe {
        v[a] = _mm256_add_epi32(v[a], v[b]);
        v[d] = _mm256_shuffle_epi8(_mm256_xor_si256(v[d], v[a]), r16);
        v[c] = _mm256_add_epi32(v[c], v[d]);
        v[b] = rotl::<12, 20>(_mm256_xor_si256(v[b], v[c]));
        v[a] = _mm256_add_epi32(v[a], v[b]);
        v[d] = _mm256_shuffle_epi8(_mm256_xor_si256(v[d], v[a]), r8);
        v[c] = _mm256_add_epi32(v[c], v[d]);
        v[b] = rotl::<7, 25>(_mm256_xor_si256(v[b], v[c]));
    }
}

/// Transposes 8 word vectors (`r[i]` lane j = word i of block j) into 8
/// vectors of 8 consecutive words (`out[j]` = words of block j).
#[inline(always)]
fn transpose8(r: &[__m256i]) -> [__m256i; 8] {
    // SAFETY: only called from `keystream8` (AVX2 enabled, inlined there).
    unsafe {
        let t0 = _mm256_unpacklo_epi32(r[0], r[1]);
        let t1 = _mm256_unpackhi_epi32(r[0], r[1]);
        let t2 = _mm256_unpacklo_epi32(r[2], r[3]);
        let t3 = _mm256_unpackhi_epi32(r[2], r[3]);
        let t4 = _mm256_unpacklo_epi32(r[4], r[5]);
        let t5 = _mm256_unpackhi_epi32(r[4], r[5]);
        let t6 = _mm256_unpacklo_epi32(r[6], r[7]);
        let t7 = _mm256_unpackhi_epi32(r[6], r[7]);
        let u0 = _mm256_unpacklo_epi64(t0, t2);
        let u1 = _mm256_unpackhi_epi64(t0, t2);
        let u2 = _mm256_unpacklo_epi64(t1, t3);
        let u3 = _mm256_unpackhi_epi64(t1, t3);
        let u4 = _mm256_unpacklo_epi64(t4, t6);
        let u5 = _mm256_unpackhi_epi64(t4, t6);
        let u6 = _mm256_unpacklo_epi64(t5, t7);
        let u7 = _mm256_unpackhi_epi64(t5, t7);
        [
            _mm256_permute2x128_si256::<0x20>(u0, u4),
            _mm256_permute2x128_si256::<0x20>(u1, u5),
            _mm256_permute2x128_si256::<0x20>(u2, u6),
            _mm256_permute2x128_si256::<0x20>(u3, u7),
            _mm256_permute2x128_si256::<0x31>(u0, u4),
            _mm256_permute2x128_si256::<0x31>(u1, u5),
            _mm256_permute2x128_si256::<0x31>(u2, u6),
            _mm256_permute2x128_si256::<0x31>(u3, u7),
        ]
    }
}

/// Eight key-stream blocks (counters `state[12] + 0..8`) into `ks`.
#[target_feature(enable = "avx2")]
fn keystream8(state: &[u32; 16], double_rounds: usize, ks: &mut [u8; 512]) {
    let r16 = _mm256_setr_epi8(
        2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9,
        14, 15, 12, 13,
    );
    let r8 = _mm256_setr_epi8(
        3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14, 3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10,
        15, 12, 13, 14,
    );
    // The input words are broadcast again for the feed-forward rather than
    // kept in a second array: 32 live vectors would spill to the stack.
    let word = |i: usize| _mm256_set1_epi32(state[i] as i32);
    let lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    let mut v = [_mm256_setzero_si256(); 16];
    for (i, x) in v.iter_mut().enumerate() {
        *x = word(i);
    }
    v[12] = _mm256_add_epi32(v[12], lanes);
    for _ in 0..double_rounds {
        qr(&mut v, 0, 4, 8, 12, r16, r8);
        qr(&mut v, 1, 5, 9, 13, r16, r8);
        qr(&mut v, 2, 6, 10, 14, r16, r8);
        qr(&mut v, 3, 7, 11, 15, r16, r8);
        qr(&mut v, 0, 5, 10, 15, r16, r8);
        qr(&mut v, 1, 6, 11, 12, r16, r8);
        qr(&mut v, 2, 7, 8, 13, r16, r8);
        qr(&mut v, 3, 4, 9, 14, r16, r8);
    }
    for (i, x) in v.iter_mut().enumerate() {
        *x = _mm256_add_epi32(*x, word(i));
    }
    v[12] = _mm256_add_epi32(v[12], lanes);
    let lo = transpose8(&v[..8]);
    let hi = transpose8(&v[8..]);
    for j in 0..8 {
        // SAFETY: block j occupies bytes 64 j .. 64 j + 64 of the 512-byte `ks`.
        unsafe {
            let p = ks.as_mut_ptr().add(64 * j).cast::<__m256i>();
            _mm256_storeu_si256(p, lo[j]);
            _mm256_storeu_si256(p.add(1), hi[j]);
        }
    }
    // The key stream itself is in `ks` (wiped by the caller); the working
    // vectors live in registers (no array is kept in memory here).
}

/// XORs the key stream over `buf`, 512 bytes (8 blocks) at a time; the
/// last group may be shorter (the counter then advances by the blocks used).
#[target_feature(enable = "avx2")]
fn chacha_xor_avx2(state: &mut [u32; 16], double_rounds: usize, buf: InOutBuf<'_, '_, u8>) {
    let len = buf.len();
    let (input, output) = buf.into_raw();
    let mut ks = [0u8; 512];
    let mut off = 0;
    while off < len {
        keystream8(state, double_rounds, &mut ks);
        let n = (len - off).min(512);
        let mut k = 0;
        while k + 32 <= n {
            // SAFETY: `off + k + 32 <= len`: in bounds of both buffers of the
            // `InOutBuf` (equal or non-overlapping; each 32 bytes are read
            // before they are written); `k + 32 <= 512` for `ks`.
            unsafe {
                let x = _mm256_loadu_si256(input.add(off + k).cast());
                let y = _mm256_loadu_si256(ks.as_ptr().add(k).cast());
                _mm256_storeu_si256(output.add(off + k).cast(), _mm256_xor_si256(x, y));
            }
            k += 32;
        }
        while k < n {
            // SAFETY: `off + k < len`, as above.
            unsafe { *output.add(off + k) = *input.add(off + k) ^ ks[k] };
            k += 1;
        }
        state[12] = state[12].wrapping_add(n.div_ceil(64) as u32);
        off += n;
    }
    ks.zeroize();
}
