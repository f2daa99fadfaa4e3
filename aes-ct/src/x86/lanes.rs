//! The vector widths of the x86 code, written once: a register of `W`
//! 128-bit lanes (`__m128i`: 1, `__m256i`: 2, `__m512i`: 4), one block per
//! lane. vpaes, the fused CTR loops and the VAES batches are each written
//! once over [`Lanes`] and instantiated per width.
//!
//! Every method is an intrinsic wrapper, `#[inline(always)]`, so it
//! compiles into the target-feature function that calls it, as the
//! intrinsic itself would.
//!
//! One trait serves the AES-instruction rounds (AES-NI, VAES, their CTR)
//! and vpaes's nibble split: a build with only one of those families (the
//! backend features) leaves the other's methods unused.
#![cfg_attr(not(all(feature = "aesni", aes_ct_simd)), allow(dead_code))]

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

/// One vector width.
///
/// # Safety
/// Every method may only run inside a function compiled with the
/// target features of its width and operation (SSSE3 for `__m128i`, AVX2
/// for `__m256i`, AVX-512F/BW for `__m512i`; AES-NI or VAES besides for
/// the AES rounds), and pointers must be valid for `W` blocks.
pub(super) trait Lanes: Copy {
    /// Blocks per vector.
    const W: usize;
    /// `k` in every lane.
    unsafe fn bcast(k: __m128i) -> Self;
    unsafe fn loadu(p: *const u8) -> Self;
    unsafe fn storeu(p: *mut u8, v: Self);
    /// Byte `b` everywhere.
    unsafe fn splat(b: i8) -> Self;
    unsafe fn and(self, o: Self) -> Self;
    unsafe fn xor(self, o: Self) -> Self;
    /// 32-bit words shifted right by 4.
    unsafe fn srl4(self) -> Self;
    /// `pshufb`: the bytes of each lane of `self` picked by the same lane
    /// of `idx` (a set top bit gives zero).
    unsafe fn shuf(self, idx: Self) -> Self;
    /// 32-bit words added (mod 2^32).
    unsafe fn add32(self, o: Self) -> Self;
    /// One AES round on every lane (`aesenc`).
    unsafe fn enc(self, k: Self) -> Self;
    unsafe fn enclast(self, k: Self) -> Self;
    /// One equivalent-inverse-cipher round on every lane (`aesdec`).
    unsafe fn dec(self, k: Self) -> Self;
    unsafe fn declast(self, k: Self) -> Self;
    /// Lanes `first, first + 1, ...` (counter word of each lane stepped).
    #[inline(always)]
    unsafe fn ramp(first: __m128i) -> Self {
        /// Dword 3 (the counter word) of lane i = i.
        const RAMP: [u32; 16] = [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3];
        // SAFETY: the trait's contract; `RAMP` holds 64 >= 16 W bytes.
        unsafe { Self::bcast(first).add32(Self::loadu(RAMP.as_ptr().cast())) }
    }
    /// Every lane's counter word = `W` (the step from vector to vector).
    #[inline(always)]
    unsafe fn step() -> Self {
        // SAFETY: the trait's contract (SSE2 is in every width's features).
        unsafe { Self::bcast(_mm_set_epi32(Self::W as i32, 0, 0, 0)) }
    }
    /// Lane `i` (< W).
    unsafe fn lane(self, i: usize) -> __m128i;

    /// A 16-byte table (or round key) in every lane.
    #[inline(always)]
    unsafe fn tab(t: &[u8; 16]) -> Self {
        // SAFETY: the trait's contract; 16 readable bytes, unaligned load.
        unsafe { Self::bcast(_mm_loadu_si128(t.as_ptr().cast())) }
    }
}

/// The AES rounds on `N` vectors, interleaved round by round: round keys
/// `rk[0..=NR]`, `aesenc` (or with `DEC` the equivalent inverse cipher's
/// `aesdec`) rounds, the last round without MixColumns.
///
/// # Safety
/// [`Lanes`]' contract.
#[inline(always)]
pub(super) unsafe fn aes_rounds<V: Lanes, const NR: usize, const DEC: bool, const N: usize>(
    rk: &[V; 15],
    b: &mut [V; N],
) {
    // SAFETY: the caller's contract.
    unsafe {
        for x in b.iter_mut() {
            *x = x.xor(rk[0]);
        }
        for r in 1..NR {
            for x in b.iter_mut() {
                *x = if DEC { x.dec(rk[r]) } else { x.enc(rk[r]) };
            }
        }
        for x in b.iter_mut() {
            *x = if DEC {
                x.declast(rk[NR])
            } else {
                x.enclast(rk[NR])
            };
        }
    }
}

/// One width's impl: the intrinsic of each uniform operation (wrapped by
/// `ct_dispatch::intrinsic_methods!`), the broadcast and the lane
/// extracts of the wider widths (`lane = [index => intrinsic, ...]`), then
/// the width's own methods.
macro_rules! lanes {
    ($v:ty, W = $w:literal, load = $load:ident, store = $store:ident,
     splat = $splat:ident, and = $and:ident, xor = $xor:ident, srl = $srl:ident,
     shuf = $shuf:ident, add32 = $add:ident, enc = $enc:ident,
     enclast = $enclast:ident, dec = $dec:ident, declast = $declast:ident,
     $(bcast = $bcast:ident, lane = [$($li:pat => $lf:ident $(::<$ln:literal>)?),+],)?
     { $($own:item)* }) => {
        impl Lanes for $v {
            const W: usize = $w;
            ct_dispatch::intrinsic_methods! {
                fn loadu(p: *const u8) = $load;
                fn storeu(p: *mut u8, v) = $store;
                fn splat(b: i8) = $splat;
                fn and(self, Self) = $and;
                fn xor(self, Self) = $xor;
                fn shuf(self, Self) = $shuf;
                fn add32(self, Self) = $add;
                fn enc(self, Self) = $enc;
                fn enclast(self, Self) = $enclast;
                fn dec(self, Self) = $dec;
                fn declast(self, Self) = $declast;
                fn srl4(self) = $srl::<4>;
                $(fn bcast(k: __m128i) = $bcast;)?
            }
            $(
                #[inline(always)]
                unsafe fn lane(self, i: usize) -> __m128i {
                    // SAFETY: the trait's contract.
                    unsafe {
                        match i {
                            $($li => $lf $(::<$ln>)? (self),)+
                        }
                    }
                }
            )?
            $($own)*
        }
    };
}

lanes! {
    __m128i, W = 1, load = _mm_loadu_si128, store = _mm_storeu_si128,
    splat = _mm_set1_epi8, and = _mm_and_si128, xor = _mm_xor_si128,
    srl = _mm_srli_epi32, shuf = _mm_shuffle_epi8, add32 = _mm_add_epi32,
    enc = _mm_aesenc_si128, enclast = _mm_aesenclast_si128,
    dec = _mm_aesdec_si128, declast = _mm_aesdeclast_si128, {
        #[inline(always)]
        unsafe fn bcast(k: __m128i) -> Self {
            k
        }
        #[inline(always)]
        unsafe fn lane(self, _: usize) -> __m128i {
            self
        }
    }
}

lanes! {
    __m256i, W = 2, load = _mm256_loadu_si256, store = _mm256_storeu_si256,
    splat = _mm256_set1_epi8, and = _mm256_and_si256, xor = _mm256_xor_si256,
    srl = _mm256_srli_epi32, shuf = _mm256_shuffle_epi8, add32 = _mm256_add_epi32,
    enc = _mm256_aesenc_epi128, enclast = _mm256_aesenclast_epi128,
    dec = _mm256_aesdec_epi128, declast = _mm256_aesdeclast_epi128,
    bcast = _mm256_broadcastsi128_si256,
    lane = [0 => _mm256_castsi256_si128, _ => _mm256_extracti128_si256::<1>], {}
}

#[cfg(feature = "vaes")]
lanes! {
    __m512i, W = 4, load = _mm512_loadu_si512, store = _mm512_storeu_si512,
    splat = _mm512_set1_epi8, and = _mm512_and_si512, xor = _mm512_xor_si512,
    srl = _mm512_srli_epi32, shuf = _mm512_shuffle_epi8, add32 = _mm512_add_epi32,
    enc = _mm512_aesenc_epi128, enclast = _mm512_aesenclast_epi128,
    dec = _mm512_aesdec_epi128, declast = _mm512_aesdeclast_epi128,
    bcast = _mm512_broadcast_i32x4, lane = [0 => _mm512_castsi512_si128,
    1 => _mm512_extracti32x4_epi32::<1>, 2 => _mm512_extracti32x4_epi32::<2>,
    _ => _mm512_extracti32x4_epi32::<3>], {}
}
