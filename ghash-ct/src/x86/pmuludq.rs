//! Constant-time GHASH/POLYVAL for x86 without PCLMULQDQ: carry-less
//! products from the SIMD 32x32 -> 64 integer multiply `pmuludq` "with
//! holes", on 128-bit (SSSE3), 256-bit (AVX2) or 512-bit (AVX-512) vectors.
//!
//! Technique: the multiplication with holes of BearSSL's `ghash_ctmul32.c`
//! (Pornin, bearssl.org/constanttime.html), as in `soft/mul32.rs`: a 32-bit
//! word split into four bit classes (every 4th bit, 8 bits each) times a
//! class of the other operand counts at most 8 coinciding bit pairs per
//! position, which a 4-bit hole holds, so the low bit of each position of
//! the integer product is the carry-less product bit. Here every 64-bit
//! vector lane does one such product per `pmuludq` (which reads the low 32
//! bits of each lane and ignores the rest).
//!
//! Our arrangement (no tables, no data-dependent branch or index):
//! - A block X occupies two lanes, X.lo and X.hi; the key power P of its
//!   position occupies the same two lanes twice: "diagonal" (P.lo, P.hi) and
//!   "cross" (P.hi, P.lo). Diagonal lanes give X.lo*P.lo and X.hi*P.hi,
//!   cross lanes the two middle products: the 128x128 product as four
//!   64x64 ones, each lane's by Karatsuba over 32-bit halves (three
//!   32x32 products of 16 `pmuludq` each). The key's pieces are split into
//!   classes once, at key setup.
//! - Runs of W = 8 blocks take the powers H^8..H^1; the unmasked class
//!   products of a whole run are XOR-summed per lane (XOR carries nothing
//!   between positions, and each product is exact on its own), so masking,
//!   recombination, the fold across lanes and the one reduction happen once
//!   per run. A shorter run is zero-padded in front to a whole vector.
//! - Per vector of data: 96 `pmuludq`, ~96 XORs (fused in threes by
//!   `vpternlogq` on AVX-512) and ~20 shifts and masks; per run ~60
//!   operations to finish. One block is one 128-bit vector, four are one
//!   512-bit vector. Against the 64-bit scalar form (`soft64`, ~460
//!   instructions per block, 48 widening `mul`), this trades instruction
//!   count for vector width: see `aes-gcm-ct/README.md` for measured rates.
//!
//! Where it matters: x86 CPUs without PCLMULQDQ (Core 2, early Atom,
//! virtual machines that hide PCLMULQDQ), whose SSSE3 width is the design's
//! "constant-time SSSE3 GHASH"; the wider forms serve virtual machines that
//! hide only the AES and carry-less multiply instructions.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use crate::Block;
use crate::field::{Powers, load, reduce};
use zeroize::Zeroize;

cpufeatures::new!(cpu_ssse3, "ssse3");
cpufeatures::new!(cpu_avx2, "avx2", "ssse3");
cpufeatures::new!(cpu_avx512, "avx512f", "avx512bw", "avx2", "ssse3");

/// Blocks per reduction.
const W: usize = 8;

/// Bits 0, 4, 8, ... of a 32-bit word (class 0 of a key or data piece).
const M32: u64 = 0x1111_1111;
/// Bits 0, 4, 8, ... of a 64-bit product (class 0 of a 32x32 product).
const M64: u64 = 0x1111_1111_1111_1111;

/// Key powers: `k[t][p][c][j]` is, for the block at run position j (power
/// H^(W - j)), class c of Karatsuba piece p (lo, hi, lo ^ hi of a 64-bit
/// word) of the two lanes of layout t (0: diagonal (P.lo, P.hi); 1: cross
/// (P.hi, P.lo)). Each entry is below 2^32. A vector of n lanes at run
/// position j reads `k[t][p][c][j .. j + n / 2]` (contiguous).
#[derive(Clone)]
#[repr(C, align(64))]
pub(crate) struct PmuludqKey<T: Copy> {
    k: [[[[[u64; 2]; W]; 4]; 3]; 2],
    _token: T,
}

impl<T: Copy> Zeroize for PmuludqKey<T> {
    fn zeroize(&mut self) {
        self.k.zeroize();
    }
}

impl<T: Copy> PmuludqKey<T> {
    fn new(token: T, h: u128) -> Self {
        let pw = Powers::<W>::new(h);
        let mut k = [[[[[0u64; 2]; W]; 4]; 3]; 2];
        for j in 0..W {
            let p = pw.0[W - 1 - j];
            let (lo, hi) = (p as u64, (p >> 64) as u64);
            for (t, lanes) in [[lo, hi], [hi, lo]].iter().enumerate() {
                for (s, &y) in lanes.iter().enumerate() {
                    let (yl, yh) = (y & 0xFFFF_FFFF, y >> 32);
                    for (pc, piece) in [yl, yh, yl ^ yh].into_iter().enumerate() {
                        for c in 0..4 {
                            k[t][pc][c][j][s] = piece & M32 << c;
                        }
                    }
                }
            }
        }
        Self { k, _token: token }
    }
}

/// One vector width. Methods are thin wrappers over the named intrinsics;
/// callers are `target_feature` functions that enable what the impl needs
/// (the trait contract), and inline them.
trait Lane: Copy {
    /// Blocks per vector (two 64-bit lanes each).
    const BLOCKS: usize;
    unsafe fn zero() -> Self;
    unsafe fn splat(x: u64) -> Self;
    /// `BLOCKS` pairs of words from `p` (readable for that many).
    unsafe fn load(p: *const [u64; 2]) -> Self;
    unsafe fn and(self, o: Self) -> Self;
    unsafe fn xor(self, o: Self) -> Self;
    unsafe fn or(self, o: Self) -> Self;
    /// `pmuludq`: low 32 bits of each 64-bit lane times the other's, 64-bit.
    unsafe fn mul(self, o: Self) -> Self;
    /// 64-bit lanes shifted right / left by 32.
    unsafe fn srl32(self) -> Self;
    unsafe fn sll32(self) -> Self;
    /// XOR of all 128-bit parts.
    unsafe fn fold(self) -> __m128i;
}

// SAFETY (all three impls): thin wrappers over the named intrinsics; the
// trait contract gives the CPU features; `load` reads `BLOCKS * 16` bytes
// that its caller guarantees readable.
impl Lane for __m128i {
    const BLOCKS: usize = 1;
    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY: see the impl comment.
        unsafe { _mm_setzero_si128() }
    }
    #[inline(always)]
    unsafe fn splat(x: u64) -> Self {
        // SAFETY: see the impl comment.
        unsafe { _mm_set1_epi64x(x as i64) }
    }
    #[inline(always)]
    unsafe fn load(p: *const [u64; 2]) -> Self {
        // SAFETY: see the impl comment.
        unsafe { _mm_loadu_si128(p.cast()) }
    }
    #[inline(always)]
    unsafe fn and(self, o: Self) -> Self {
        // SAFETY: see the impl comment.
        unsafe { _mm_and_si128(self, o) }
    }
    #[inline(always)]
    unsafe fn xor(self, o: Self) -> Self {
        // SAFETY: see the impl comment.
        unsafe { _mm_xor_si128(self, o) }
    }
    #[inline(always)]
    unsafe fn or(self, o: Self) -> Self {
        // SAFETY: see the impl comment.
        unsafe { _mm_or_si128(self, o) }
    }
    #[inline(always)]
    unsafe fn mul(self, o: Self) -> Self {
        // SAFETY: see the impl comment.
        unsafe { _mm_mul_epu32(self, o) }
    }
    #[inline(always)]
    unsafe fn srl32(self) -> Self {
        // SAFETY: see the impl comment.
        unsafe { _mm_srli_epi64::<32>(self) }
    }
    #[inline(always)]
    unsafe fn sll32(self) -> Self {
        // SAFETY: see the impl comment.
        unsafe { _mm_slli_epi64::<32>(self) }
    }
    #[inline(always)]
    unsafe fn fold(self) -> __m128i {
        self
    }
}

impl Lane for __m256i {
    const BLOCKS: usize = 2;
    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY: see the impl comment.
        unsafe { _mm256_setzero_si256() }
    }
    #[inline(always)]
    unsafe fn splat(x: u64) -> Self {
        // SAFETY: see the impl comment.
        unsafe { _mm256_set1_epi64x(x as i64) }
    }
    #[inline(always)]
    unsafe fn load(p: *const [u64; 2]) -> Self {
        // SAFETY: see the impl comment.
        unsafe { _mm256_loadu_si256(p.cast()) }
    }
    #[inline(always)]
    unsafe fn and(self, o: Self) -> Self {
        // SAFETY: see the impl comment.
        unsafe { _mm256_and_si256(self, o) }
    }
    #[inline(always)]
    unsafe fn xor(self, o: Self) -> Self {
        // SAFETY: see the impl comment.
        unsafe { _mm256_xor_si256(self, o) }
    }
    #[inline(always)]
    unsafe fn or(self, o: Self) -> Self {
        // SAFETY: see the impl comment.
        unsafe { _mm256_or_si256(self, o) }
    }
    #[inline(always)]
    unsafe fn mul(self, o: Self) -> Self {
        // SAFETY: see the impl comment.
        unsafe { _mm256_mul_epu32(self, o) }
    }
    #[inline(always)]
    unsafe fn srl32(self) -> Self {
        // SAFETY: see the impl comment.
        unsafe { _mm256_srli_epi64::<32>(self) }
    }
    #[inline(always)]
    unsafe fn sll32(self) -> Self {
        // SAFETY: see the impl comment.
        unsafe { _mm256_slli_epi64::<32>(self) }
    }
    #[inline(always)]
    unsafe fn fold(self) -> __m128i {
        // SAFETY: see the impl comment.
        unsafe {
            _mm_xor_si128(
                _mm256_castsi256_si128(self),
                _mm256_extracti128_si256::<1>(self),
            )
        }
    }
}

impl Lane for __m512i {
    const BLOCKS: usize = 4;
    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY: see the impl comment.
        unsafe { _mm512_setzero_si512() }
    }
    #[inline(always)]
    unsafe fn splat(x: u64) -> Self {
        // SAFETY: see the impl comment.
        unsafe { _mm512_set1_epi64(x as i64) }
    }
    #[inline(always)]
    unsafe fn load(p: *const [u64; 2]) -> Self {
        // SAFETY: see the impl comment.
        unsafe { _mm512_loadu_si512(p.cast()) }
    }
    #[inline(always)]
    unsafe fn and(self, o: Self) -> Self {
        // SAFETY: see the impl comment.
        unsafe { _mm512_and_si512(self, o) }
    }
    #[inline(always)]
    unsafe fn xor(self, o: Self) -> Self {
        // SAFETY: see the impl comment.
        unsafe { _mm512_xor_si512(self, o) }
    }
    #[inline(always)]
    unsafe fn or(self, o: Self) -> Self {
        // SAFETY: see the impl comment.
        unsafe { _mm512_or_si512(self, o) }
    }
    #[inline(always)]
    unsafe fn mul(self, o: Self) -> Self {
        // SAFETY: see the impl comment.
        unsafe { _mm512_mul_epu32(self, o) }
    }
    #[inline(always)]
    unsafe fn srl32(self) -> Self {
        // SAFETY: see the impl comment.
        unsafe { _mm512_srli_epi64::<32>(self) }
    }
    #[inline(always)]
    unsafe fn sll32(self) -> Self {
        // SAFETY: see the impl comment.
        unsafe { _mm512_slli_epi64::<32>(self) }
    }
    #[inline(always)]
    unsafe fn fold(self) -> __m128i {
        // SAFETY: see the impl comment.
        unsafe {
            let y = _mm256_xor_si256(
                _mm512_castsi512_si256(self),
                _mm512_extracti64x4_epi64::<1>(self),
            );
            _mm_xor_si128(_mm256_castsi256_si128(y), _mm256_extracti128_si256::<1>(y))
        }
    }
}

/// A run's data: blocks as POLYVAL elements (lo, hi words), the
/// accumulator folded into the first; zero in front of a short run.
#[repr(C, align(64))]
struct Buf([[u64; 2]; W]);

/// The masked 32x32 products of piece `P` (0: lo, 1: hi, 2: lo ^ hi) of
/// every lane, summed over the run's vectors from `v0`: (diagonal, cross).
#[inline(always)]
unsafe fn piece<L: Lane, const P: usize>(
    k: &[[[[[u64; 2]; W]; 4]; 3]; 2],
    buf: &Buf,
    v0: usize,
) -> (L, L) {
    // SAFETY: the caller enables L's features; every load reads
    // `L::BLOCKS` pairs from run position `v * L::BLOCKS`, inside the
    // W-entry arrays since `W` is a multiple of `L::BLOCKS`.
    unsafe {
        let mut a = [L::zero(); 4];
        let mut b = [L::zero(); 4];
        let m = L::splat(M32);
        for v in v0..W / L::BLOCKS {
            let j = v * L::BLOCKS;
            let x = L::load(&buf.0[j]);
            let x = match P {
                0 => x,
                1 => x.srl32(),
                _ => x.xor(x.srl32()),
            };
            // The four classes of the data piece, times the key's.
            let xc = [
                x.and(m),
                x.and(L::splat(M32 << 1)),
                x.and(L::splat(M32 << 2)),
                x.and(L::splat(M32 << 3)),
            ];
            let ka: [L; 4] = [
                L::load(&k[0][P][0][j]),
                L::load(&k[0][P][1][j]),
                L::load(&k[0][P][2][j]),
                L::load(&k[0][P][3][j]),
            ];
            classes(&mut a, &xc, &ka);
            let kb: [L; 4] = [
                L::load(&k[1][P][0][j]),
                L::load(&k[1][P][1][j]),
                L::load(&k[1][P][2][j]),
                L::load(&k[1][P][3][j]),
            ];
            classes(&mut b, &xc, &kb);
        }
        (mask(&a), mask(&b))
    }
}

/// Add the 16 class products of `x * y` into the class sums: class i of x
/// times class j of y lands in class (i + j) mod 4. Written out (constant
/// indices) so the sums stay in registers.
#[inline(always)]
unsafe fn classes<L: Lane>(s: &mut [L; 4], x: &[L; 4], y: &[L; 4]) {
    // SAFETY: the caller enables L's features.
    unsafe {
        let [x0, x1, x2, x3] = *x;
        let [y0, y1, y2, y3] = *y;
        s[0] = s[0]
            .xor(x0.mul(y0).xor(x1.mul(y3)))
            .xor(x2.mul(y2).xor(x3.mul(y1)));
        s[1] = s[1]
            .xor(x0.mul(y1).xor(x1.mul(y0)))
            .xor(x2.mul(y3).xor(x3.mul(y2)));
        s[2] = s[2]
            .xor(x0.mul(y2).xor(x1.mul(y1)))
            .xor(x2.mul(y0).xor(x3.mul(y3)));
        s[3] = s[3]
            .xor(x0.mul(y3).xor(x1.mul(y2)))
            .xor(x2.mul(y1).xor(x3.mul(y0)));
    }
}

/// Keep the low bit of each hole: class c of sum c.
#[inline(always)]
unsafe fn mask<L: Lane>(s: &[L; 4]) -> L {
    // SAFETY: the caller enables L's features.
    unsafe {
        s[0].and(L::splat(M64))
            .or(s[1].and(L::splat(M64 << 1)))
            .or(s[2].and(L::splat(M64 << 2)))
            .or(s[3].and(L::splat(M64 << 3)))
    }
}

/// The 128-bit products of each lane from its three Karatsuba pieces:
/// (low, high) 64-bit halves.
#[inline(always)]
unsafe fn combine<L: Lane>(l: L, h: L, m: L) -> (__m128i, __m128i) {
    // SAFETY: the caller enables L's features.
    unsafe {
        let mid = m.xor(l).xor(h);
        (l.xor(mid.sll32()).fold(), h.xor(mid.srl32()).fold())
    }
}

/// One run in `buf` from vector `v0` on: sum of block j times H^(W - j),
/// reduced once.
#[inline(always)]
unsafe fn run<L: Lane>(key: &[[[[[u64; 2]; W]; 4]; 3]; 2], buf: &Buf, v0: usize) -> u128 {
    // SAFETY: the caller enables L's features.
    let (al, bl) = unsafe { piece::<L, 0>(key, buf, v0) };
    // SAFETY: as above.
    let (ah, bh) = unsafe { piece::<L, 1>(key, buf, v0) };
    // SAFETY: as above.
    let (am, bm) = unsafe { piece::<L, 2>(key, buf, v0) };
    // SAFETY: as above.
    let ((dlo, dhi), (clo, chi)) = unsafe { (combine(al, ah, am), combine(bl, bh, bm)) };
    let mut o = [[0u64; 2]; 4];
    for (slot, v) in o.iter_mut().zip([dlo, dhi, clo, chi]) {
        // SAFETY: 16 writable bytes; SSE2 is enabled with any of L's sets.
        unsafe { _mm_storeu_si128((slot as *mut [u64; 2]).cast(), v) };
    }
    // Lane 0 (X.lo) and lane 1 (X.hi) of each sum: diagonal products land
    // at bit 0 and 128, cross products at bit 64.
    let [dlo, dhi, clo, chi] = o;
    let r0 = dlo[0];
    let r1 = dhi[0] ^ clo[0] ^ clo[1];
    let r2 = dlo[1] ^ chi[0] ^ chi[1];
    let r3 = dhi[1];
    o.zeroize();
    reduce(
        (r1 as u128) << 64 | r0 as u128,
        (r3 as u128) << 64 | r2 as u128,
    )
}

/// All of `update`, for one vector width.
#[inline(always)]
unsafe fn update<L: Lane, const GHASH: bool>(
    key: &[[[[[u64; 2]; W]; 4]; 3]; 2],
    acc: &mut u128,
    blocks: &[Block],
) {
    let mut buf = Buf([[0; 2]; W]);
    let (runs, rest) = blocks.as_chunks::<W>();
    let fill = |buf: &mut Buf, at: usize, bs: &[Block], acc: u128| {
        for (i, b) in bs.iter().enumerate() {
            let mut x = load::<GHASH>(&b.0);
            if i == 0 {
                x ^= acc;
            }
            buf.0[at + i] = [x as u64, (x >> 64) as u64];
        }
    };
    for r in runs {
        fill(&mut buf, 0, r, *acc);
        // SAFETY: the caller enables L's features.
        *acc = unsafe { run::<L>(key, &buf, 0) };
    }
    if !rest.is_empty() {
        let at = W - rest.len();
        buf.0[..at].fill([0; 2]);
        fill(&mut buf, at, rest, *acc);
        // SAFETY: as above.
        *acc = unsafe { run::<L>(key, &buf, at / L::BLOCKS) };
    }
    buf.0.zeroize();
}

#[target_feature(enable = "ssse3")]
fn update128<const GHASH: bool>(
    key: &[[[[[u64; 2]; W]; 4]; 3]; 2],
    acc: &mut u128,
    blocks: &[Block],
) {
    // SAFETY: SSSE3 (with SSE2) is enabled here.
    unsafe { update::<__m128i, GHASH>(key, acc, blocks) }
}

#[target_feature(enable = "avx2,ssse3")]
fn update256<const GHASH: bool>(
    key: &[[[[[u64; 2]; W]; 4]; 3]; 2],
    acc: &mut u128,
    blocks: &[Block],
) {
    // SAFETY: AVX2 is enabled here.
    unsafe { update::<__m256i, GHASH>(key, acc, blocks) }
}

#[target_feature(enable = "avx512f,avx512bw,avx2,ssse3")]
fn update512<const GHASH: bool>(
    key: &[[[[[u64; 2]; W]; 4]; 3]; 2],
    acc: &mut u128,
    blocks: &[Block],
) {
    // SAFETY: AVX-512F is enabled here.
    unsafe { update::<__m512i, GHASH>(key, acc, blocks) }
}

macro_rules! engine {
    ($(#[$m:meta])* $name:ident, $token:ident, $cpu:ident, $update:ident) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug)]
        pub(crate) struct $name;

        /// Proof that this CPU passed the engine's check.
        #[derive(Clone, Copy, Debug)]
        pub(crate) struct $token(());

        impl crate::backend::Engine for $name {
            type Token = $token;
            type Key = PmuludqKey<$token>;
            fn token() -> Option<$token> {
                $cpu::get().then_some($token(()))
            }
            fn new_key(token: $token, h: u128) -> Self::Key {
                PmuludqKey::new(token, h)
            }
            fn update<const GHASH: bool>(key: &Self::Key, acc: &mut u128, blocks: &[Block]) {
                // SAFETY: a key holds the token, which `token()` only hands
                // out after the CPU check for the update's features passed.
                unsafe { $update::<GHASH>(&key.k, acc, blocks) }
            }
        }
    };
}

engine!(
    /// `vpmuludq` on 512-bit vectors (AVX-512F/BW), four blocks per vector.
    Vpmuludq512,
    Token512,
    cpu_avx512,
    update512
);
engine!(
    /// `vpmuludq` on 256-bit vectors (AVX2), two blocks per vector.
    Vpmuludq256,
    Token256,
    cpu_avx2,
    update256
);
engine!(
    /// `pmuludq` on 128-bit vectors (SSSE3), one block per vector.
    Pmuludq,
    Token128,
    cpu_ssse3,
    update128
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::Engine;

    /// Every width against the portable multiply, with the all-ones words
    /// that make the class counts largest (8 per position: a count of 16
    /// would carry across a hole), and runs of every length.
    fn check<E: Engine>() {
        let Some(t) = E::token() else { return };
        let keys = [
            u128::MAX,
            1,
            1 << 127,
            0xFFFF_FFFF_0000_0000_FFFF_FFFF_0000_0000,
            0x0123_4567_89AB_CDEF_FEDC_BA98_7654_3210,
        ];
        let datas = [[0xFF; 16], [0x80; 16], [0x5A; 16]];
        for &h in &keys {
            let ours = E::new_key(t, h);
            let soft = <crate::soft::Soft32 as Engine>::new_key((), h);
            for d in datas {
                let all: [Block; 2 * W + 3] = core::array::from_fn(|i| {
                    let mut b = d;
                    b[i % 16] ^= i as u8;
                    Block::from(b)
                });
                for n in 0..=all.len() {
                    let blocks = &all[..n];
                    let (mut a, mut b) = (u128::MAX, u128::MAX);
                    E::update::<true>(&ours, &mut a, blocks);
                    crate::soft::Soft32::update::<true>(&soft, &mut b, blocks);
                    assert_eq!(a, b, "GHASH, h {h:x}, {n} blocks");
                    E::update::<false>(&ours, &mut a, blocks);
                    crate::soft::Soft32::update::<false>(&soft, &mut b, blocks);
                    assert_eq!(a, b, "POLYVAL, h {h:x}, {n} blocks");
                }
            }
        }
    }

    #[test]
    fn widths_match_portable() {
        check::<Pmuludq>();
        check::<Vpmuludq256>();
        check::<Vpmuludq512>();
    }
}
