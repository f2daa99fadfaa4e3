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
//! - 128x128 by Karatsuba over 64-bit halves: a run's blocks X lie in the
//!   lanes as X.lo, X.hi ("diagonal", times P.lo, P.hi of the block's key
//!   power P) and, in a second set of vectors, as X.lo ^ X.hi, one lane
//!   per block (times P.lo ^ P.hi). Each lane's 64x64 product is itself
//!   Karatsuba over 32-bit halves: three 32x32 products of 16 `pmuludq`.
//!   So 3 lanes x 48 = 144 lane multiplies per block: 18 `vpmuludq` on
//!   512-bit vectors, 72 `pmuludq` on 128-bit ones. The key's 32-bit
//!   pieces are made once, at key setup (576 bytes), and split into classes
//!   as they are loaded: stored split they would take four times the
//!   space, and a ghash-ct key is as large as its largest form.
//! - Runs of W = 8 blocks take the powers H^8..H^1; the unmasked class
//!   products of a whole run are XOR-summed per lane (XOR carries nothing
//!   between positions, and each product is exact on its own), so masking,
//!   recombination, the fold across lanes and the one reduction happen once
//!   per run (~60 operations). A shorter run is zero-padded in front to
//!   whole vectors.
//!
//! Cost: 144 lane multiplies per block, so the multiply throughput is the
//! bound; a lone block pays two vectors of 48 multiplies and the fixed
//! finish, more than `soft64`'s ~460 scalar instructions. Figures per width
//! against `soft64` / `soft32`: `ghash-ct/PERFORMANCE.md`.
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
use crate::field::{Powers, reduce_public, split_public_last};
use zeroize::Zeroize;

ct_dispatch::x86_detect!(cpu_ssse3, "ssse3");
ct_dispatch::x86_detect!(cpu_avx2, "avx2", "ssse3");
ct_dispatch::x86_detect!(cpu_avx512, "avx512f", "avx512bw", "avx2", "ssse3");

/// Blocks per reduction.
const W: usize = 8;

/// Where a run ends when a public last block follows it (times H^1, apart).
const PUBLIC_AT: usize = W - 1;

/// Bits 0, 4, 8, ... of a 32-bit word (class 0 of a key or data piece).
const M32: u64 = 0x1111_1111;
/// Bits 0, 4, 8, ... of a 64-bit product (class 0 of a 32x32 product).
const M64: u64 = 0x1111_1111_1111_1111;

/// Key powers, for the block at run position j (power P = H^(W - j)):
/// `d[2j + s]` is word s of P (for the diagonal products X.lo * P.lo,
/// X.hi * P.hi), and `m[j]` is P.lo ^ P.hi (the Karatsuba middle product),
/// each a plain 64-bit word as the data's; `d2` and `m2` hold their third
/// 32-bit piece (lo ^ hi). A vector of n lanes reads n consecutive entries
/// and makes the piece (lo as loaded, hi by a shift) and its classes (four
/// ANDs) as it goes; the third piece is stored because its shift and XOR,
/// beside the data's, slow the SSSE3 width (`ghash-ct/PERFORMANCE.md`).
/// Stored split into classes, the key would be four times larger, and
/// every ghash-ct key is as large as the largest form.
#[derive(Clone)]
pub(crate) struct PmuludqKey<T: Copy> {
    d: [u64; 2 * W],
    m: [u64; W],
    d2: [u64; 2 * W],
    m2: [u64; W],
    _token: T,
}

impl<T: Copy> Zeroize for PmuludqKey<T> {
    fn zeroize(&mut self) {
        self.d.zeroize();
        self.m.zeroize();
        self.d2.zeroize();
        self.m2.zeroize();
    }
}

/// The third 32-bit Karatsuba piece (lo ^ hi) of a 64-bit word.
fn piece2(y: u64) -> u64 {
    (y ^ y >> 32) & 0xFFFF_FFFF
}

impl<T: Copy> PmuludqKey<T> {
    fn new(token: T, h: u128) -> Self {
        let pw = Powers::<W>::new(h);
        let word = |j: usize, s: usize| (pw.0[W - 1 - j] >> (64 * s)) as u64;
        let d = core::array::from_fn(|i| word(i / 2, i % 2));
        let m = core::array::from_fn(|j| word(j, 0) ^ word(j, 1));
        Self {
            d,
            m,
            d2: d.map(piece2),
            m2: m.map(piece2),
            _token: token,
        }
    }
}

/// One vector width. Methods are thin wrappers over the named intrinsics;
/// callers are `target_feature` functions that enable what the impl needs
/// (the trait contract), and inline them.
trait Lane: Copy {
    /// 64-bit lanes per vector.
    const LANES: usize;
    unsafe fn zero() -> Self;
    unsafe fn splat(x: u64) -> Self;
    /// `LANES` words from `p` (readable for that many).
    unsafe fn load(p: *const u64) -> Self;
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

/// One `Lane` impl from its intrinsics (the three widths differ only in
/// their names) and its fold to 128 bits.
macro_rules! lane {
    ($t:ty, $lanes:expr, zero: $zero:ident, splat: $splat:ident, load: $load:ident,
     $($op:ident: $binary:ident),+; $($shift:ident: $by32:ident),+; |$v:ident| $fold:expr) => {
        impl Lane for $t {
            const LANES: usize = $lanes;
            ct_dispatch::intrinsic_methods! {
                fn zero() = $zero;
                fn load(p: *const u64) = $load;
                $(fn $op(self, Self) = $binary;)*
                $(fn $shift(self) = $by32::<32>;)*
            }
            #[inline(always)]
            unsafe fn splat(x: u64) -> Self {
                // SAFETY: the trait's contract gives the CPU features.
                unsafe { $splat(x as i64) }
            }
            #[inline(always)]
            unsafe fn fold(self) -> __m128i {
                let $v = self;
                // SAFETY: the trait's contract gives the CPU features.
                #[allow(unused_unsafe, reason = "the 128-bit fold is the value itself")]
                unsafe {
                    $fold
                }
            }
        }
    };
}

lane!(
    __m128i,
    2,
    zero: _mm_setzero_si128,
    splat: _mm_set1_epi64x,
    load: _mm_loadu_si128,
    and: _mm_and_si128,
    xor: _mm_xor_si128,
    or: _mm_or_si128,
    mul: _mm_mul_epu32;
    srl32: _mm_srli_epi64,
    sll32: _mm_slli_epi64;
    |v| v
);
lane!(
    __m256i,
    4,
    zero: _mm256_setzero_si256,
    splat: _mm256_set1_epi64x,
    load: _mm256_loadu_si256,
    and: _mm256_and_si256,
    xor: _mm256_xor_si256,
    or: _mm256_or_si256,
    mul: _mm256_mul_epu32;
    srl32: _mm256_srli_epi64,
    sll32: _mm256_slli_epi64;
    |v| _mm_xor_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v))
);
lane!(
    __m512i,
    8,
    zero: _mm512_setzero_si512,
    splat: _mm512_set1_epi64,
    load: _mm512_loadu_si512,
    and: _mm512_and_si512,
    xor: _mm512_xor_si512,
    or: _mm512_or_si512,
    mul: _mm512_mul_epu32;
    srl32: _mm512_srli_epi64,
    sll32: _mm512_slli_epi64;
    |v| {
        let y = _mm256_xor_si256(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64::<1>(v));
        _mm_xor_si128(_mm256_castsi256_si128(y), _mm256_extracti128_si256::<1>(y))
    }
);

/// A run's data as POLYVAL elements, the accumulator folded into the
/// first block, zero in front of a short run: `d[2j + s]` word s of block
/// j, `m[j]` its lo ^ hi.
#[repr(C, align(64))]
struct Buf {
    d: [u64; 2 * W],
    m: [u64; W],
}

/// The fewest whole vectors of `L` covering words `at..end` of an N-word
/// array: (first word, vector count), inside the array (`N` is a multiple
/// of `LANES`; the window may start before `at` and end after `end`,
/// where the run's data words are zero).
#[inline(always)]
fn window<L: Lane, const N: usize>(at: usize, end: usize) -> (usize, usize) {
    let count = (end - at).div_ceil(L::LANES);
    let hi = N.min(at + count * L::LANES);
    (hi - count * L::LANES, count)
}

/// The masked 32x32 products of piece `P` (0: lo, 1: hi, 2: lo ^ hi) of
/// the data words `x[lo..lo + count * LANES]` times the same piece of the
/// key words `k[same]` (for piece 2, `k` holds the piece itself), summed
/// over vectors lane by lane.
#[inline(always)]
unsafe fn piece<L: Lane, const P: usize, const N: usize>(
    k: &[u64; N],
    x: &[u64; N],
    (lo, count): (usize, usize),
) -> L {
    assert!(lo + count * L::LANES <= N, "vector window inside the run");
    // SAFETY: the caller enables L's features; every load reads `LANES`
    // words from index `lo + v * LANES`, inside the N-word arrays (the
    // assert above).
    unsafe {
        let mut a = [L::zero(); 4];
        let m = [
            L::splat(M32),
            L::splat(M32 << 1),
            L::splat(M32 << 2),
            L::splat(M32 << 3),
        ];
        for v in 0..count {
            let j = lo + v * L::LANES;
            let piece = |w: L| match P {
                0 => w,
                1 => w.srl32(),
                _ => w.xor(w.srl32()),
            };
            let x = piece(L::load(&x[j]));
            // The four classes of the data piece, times the key's.
            let xc = [x.and(m[0]), x.and(m[1]), x.and(m[2]), x.and(m[3])];
            let y = L::load(&k[j]);
            let y = if P == 1 { y.srl32() } else { y };
            let kc = [y.and(m[0]), y.and(m[1]), y.and(m[2]), y.and(m[3])];
            classes(&mut a, &xc, &kc);
        }
        mask(&a)
    }
}

/// Add the 16 class products of `x * y` into the class sums: class i of x
/// times class j of y lands in class (i + j) mod 4. The loops have constant
/// bounds and are unrolled, so every index is a constant and the sums stay
/// in registers.
#[inline(always)]
unsafe fn classes<L: Lane>(s: &mut [L; 4], x: &[L; 4], y: &[L; 4]) {
    for (c, sc) in s.iter_mut().enumerate() {
        // SAFETY: the caller enables L's features.
        let t = |i: usize| unsafe { x[i].mul(y[(c + 4 - i) % 4]) };
        // SAFETY: as above.
        *sc = unsafe { sc.xor(t(0).xor(t(1))).xor(t(2).xor(t(3))) };
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

/// One run in `buf`, blocks `at..end` (zero elsewhere), plus the public
/// block `last` (zero for none) at position `PUBLIC_AT` (`end` is
/// `PUBLIC_AT` then): the sum of block j times H^(W - j), reduced once.
#[inline(always)]
unsafe fn run<L: Lane>(
    key: &PmuludqKey<impl Copy>,
    buf: &Buf,
    (at, end): (usize, usize),
    last: u128,
) -> u128 {
    // The fewest whole vectors holding the run's blocks.
    let (vd, vm) = (
        window::<L, { 2 * W }>(2 * at, 2 * end),
        window::<L, W>(at, end),
    );
    // SAFETY: the caller enables L's features.
    let (dl, ml) = unsafe {
        (
            piece::<L, 0, { 2 * W }>(&key.d, &buf.d, vd),
            piece::<L, 0, W>(&key.m, &buf.m, vm),
        )
    };
    // SAFETY: as above.
    let (dh, mh) = unsafe {
        (
            piece::<L, 1, { 2 * W }>(&key.d, &buf.d, vd),
            piece::<L, 1, W>(&key.m, &buf.m, vm),
        )
    };
    // SAFETY: as above.
    let (dm, mm) = unsafe {
        (
            piece::<L, 2, { 2 * W }>(&key.d2, &buf.d, vd),
            piece::<L, 2, W>(&key.m2, &buf.m, vm),
        )
    };
    // SAFETY: as above.
    let ((dlo, dhi), (mlo, mhi)) = unsafe { (combine(dl, dh, dm), combine(ml, mh, mm)) };
    let mut o = [[0u64; 2]; 4];
    for (slot, v) in o.iter_mut().zip([dlo, dhi, mlo, mhi]) {
        // SAFETY: 16 writable bytes; SSE2 is enabled with any of L's sets.
        unsafe { _mm_storeu_si128((slot as *mut [u64; 2]).cast(), v) };
    }
    // Lane 0 of the diagonal sums holds the X.lo * P.lo products, lane 1
    // the X.hi * P.hi ones; both lanes of the middle sums are middle
    // products. Karatsuba: middle term = M ^ L ^ H, at bit 64.
    let [dlo, dhi, mlo, mhi] = o;
    let l = (dhi[0] as u128) << 64 | dlo[0] as u128;
    let h = (dhi[1] as u128) << 64 | dlo[1] as u128;
    let m = ((mhi[0] ^ mhi[1]) as u128) << 64 | (mlo[0] ^ mlo[1]) as u128;
    let mid = m ^ l ^ h;
    ct_dispatch::wipe::wipe(&mut o);
    // H^1, by which the public block is multiplied.
    let h1 = (key.d[2 * W - 1] as u128) << 64 | key.d[2 * W - 2] as u128;
    reduce_public(l ^ mid << 64, h ^ mid >> 64, last, h1)
}

/// All of `update` (`PUBLIC_LAST`: of `update_public_last`), for one
/// vector width.
#[inline(always)]
unsafe fn update<L: Lane, const GHASH: bool, const PUBLIC_LAST: bool>(
    key: &PmuludqKey<impl Copy>,
    acc: &mut u128,
    blocks: &[Block],
) {
    let mut buf = Buf {
        d: [0; 2 * W],
        m: [0; W],
    };
    // The public last block is multiplied apart after any rest of blocks
    // (which then ends at `PUBLIC_AT`).
    let (blocks, last) = split_public_last::<GHASH, W>(blocks, |r| PUBLIC_LAST && r != 0);
    let (last, end) = last.map_or((0, W), |l| (l, PUBLIC_AT));
    let (runs, rest) = blocks.as_chunks::<W>();
    for r in runs {
        // SAFETY: the caller enables L's features (SSSE3 among them).
        unsafe { fill::<GHASH>(&mut buf, 0, r, *acc) };
        // SAFETY: the caller enables L's features.
        *acc = unsafe { run::<L>(key, &buf, (0, W), 0) };
    }
    if !rest.is_empty() {
        let at = end - rest.len();
        if !runs.is_empty() {
            // Zero around the run (`buf` starts zero).
            buf.d[..2 * at].fill(0);
            buf.m[..at].fill(0);
            buf.d[2 * end..].fill(0);
            buf.m[end..].fill(0);
        }
        // A GCM message's last call (a few blocks, then the lengths) gets
        // code with its window fixed: unrolled, no index checks.
        let n = rest.len();
        let (b, a) = (&mut buf, *acc);
        *acc = match (n, end) {
            // SAFETY: the caller enables L's features.
            (1, PUBLIC_AT) => unsafe { short::<L, GHASH, 1>(key, b, rest, a, last) },
            // SAFETY: as above.
            (2, PUBLIC_AT) => unsafe { short::<L, GHASH, 2>(key, b, rest, a, last) },
            // SAFETY: as above.
            (3, PUBLIC_AT) => unsafe { short::<L, GHASH, 3>(key, b, rest, a, last) },
            _ => {
                // SAFETY: as above.
                unsafe { fill::<GHASH>(&mut buf, at, rest, *acc) };
                // SAFETY: as above.
                unsafe { run::<L>(key, &buf, (at, end), last) }
            }
        };
    }
    ct_dispatch::wipe::wipe(&mut buf.d);
    ct_dispatch::wipe::wipe(&mut buf.m);
}

/// `N` blocks then the public block `last` (positions `PUBLIC_AT - N ..`):
/// [`run`] with the window known at compile time.
#[inline(always)]
unsafe fn short<L: Lane, const GHASH: bool, const N: usize>(
    key: &PmuludqKey<impl Copy>,
    buf: &mut Buf,
    blocks: &[Block],
    acc: u128,
    last: u128,
) -> u128 {
    let at = PUBLIC_AT - N;
    // SAFETY: the caller enables L's features (SSSE3 among them).
    unsafe {
        fill::<GHASH>(buf, at, &blocks[..N], acc);
        run::<L>(key, buf, (at, PUBLIC_AT), last)
    }
}

/// Blocks `bs` into `buf` from position `at` on, the accumulator folded
/// into the first. Each block's two words are written by one 16-byte
/// store: the run's vector loads follow at once, and a load spanning two
/// narrower stores waits for them to reach the cache (no store forwarding).
#[inline(always)]
unsafe fn fill<const GHASH: bool>(buf: &mut Buf, at: usize, bs: &[Block], acc: u128) {
    assert!(at + bs.len() <= W, "blocks inside the run");
    // SAFETY: SSSE3 is enabled with any of the widths' feature sets; the
    // stores write 16 bytes at word 2 * (at + i) < 2 * W - 1 and 8 bytes
    // at word at + i < W (the assert).
    unsafe {
        // Byte reversal: the u128 of a GHASH block is its big-endian value.
        let rev = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        let mut a = _mm_set_epi64x((acc >> 64) as i64, acc as i64);
        for (i, b) in bs.iter().enumerate() {
            let mut x = _mm_loadu_si128(b.0.as_ptr().cast());
            if GHASH {
                x = _mm_shuffle_epi8(x, rev);
            }
            x = _mm_xor_si128(x, a);
            a = _mm_setzero_si128();
            _mm_storeu_si128(buf.d.as_mut_ptr().add(2 * (at + i)).cast(), x);
            let m = _mm_xor_si128(x, _mm_unpackhi_epi64(x, x));
            _mm_storel_epi64(buf.m.as_mut_ptr().add(at + i).cast(), m);
        }
    }
}

/// One width's engine: `$name` runs on `$token`s from the cached CPU
/// check `$cpu`; its update is `$update`, the generic `update` on `$lane`
/// vectors inside a `target_feature` function enabling `$features` (what
/// that check proves), so every `Lane` method inlines into vector code.
macro_rules! engine {
    (
        $(#[$m:meta])*
        $name:ident, $token:ident, $cpu:ident, $update:ident, $features:literal, $lane:ty
    ) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug)]
        pub(crate) struct $name;

        /// Proof that this CPU passed the engine's check.
        #[derive(Clone, Copy, Debug)]
        pub(crate) struct $token(());

        #[target_feature(enable = $features)]
        fn $update<const GHASH: bool, const PUBLIC_LAST: bool>(
            key: &PmuludqKey<$token>,
            acc: &mut u128,
            blocks: &[Block],
        ) {
            // SAFETY: the features of this width's `Lane` impl are enabled here.
            unsafe { update::<$lane, GHASH, PUBLIC_LAST>(key, acc, blocks) }
        }

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
                unsafe { $update::<GHASH, false>(key, acc, blocks) }
            }
            fn update_public_last<const GHASH: bool>(
                key: &Self::Key,
                acc: &mut u128,
                blocks: &[Block],
            ) {
                // SAFETY: as in `update`.
                unsafe { $update::<GHASH, true>(key, acc, blocks) }
            }
        }
    };
}

engine!(
    /// `vpmuludq` on 512-bit vectors (AVX-512F/BW), four blocks per vector.
    Vpmuludq512,
    Token512,
    cpu_avx512,
    update512,
    "avx512f,avx512bw,avx2,ssse3",
    __m512i
);
engine!(
    /// `vpmuludq` on 256-bit vectors (AVX2), two blocks per vector.
    Vpmuludq256,
    Token256,
    cpu_avx2,
    update256,
    "avx2,ssse3",
    __m256i
);
engine!(
    /// `pmuludq` on 128-bit vectors (SSSE3), one block per vector.
    Pmuludq,
    Token128,
    cpu_ssse3,
    update128,
    "ssse3",
    __m128i
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
                    if n > 0 {
                        E::update_public_last::<true>(&ours, &mut a, blocks);
                        crate::soft::Soft32::update::<true>(&soft, &mut b, blocks);
                        assert_eq!(a, b, "GHASH, public last, h {h:x}, {n} blocks");
                    }
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
