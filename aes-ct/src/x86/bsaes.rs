//! bsaes: bitsliced AES on SSSE3, 8 blocks per batch.
//!
//! Technique: E. Käsper, P. Schwabe, "Faster and Timing-Attack Resistant
//! AES-GCM", CHES 2009, section 4: eight 128-bit registers hold the 8 bit
//! planes of 8 blocks. Here the planes come from the portable backend's
//! 8x8 bit transpose (`soft::word::ortho` on 64-bit lanes): plane `k`, byte
//! `p`, bit `j` is bit `k` of state byte `p` of block `j`. With whole state
//! bytes in register bytes, ShiftRows is one `pshufb` per plane and the
//! column rotations of MixColumns are `pshufb` too; the S-box is the
//! portable backend's Boyar-Peralta circuit (`soft::bitslice`, 113 gates)
//! on `__m128i` words, so the circuit exists once in the crate.
//!
//! Cost per round (8 blocks): ~117 S-box ops, 8 `pshufb` ShiftRows,
//! 16 `pshufb` + ~27 XOR MixColumns, 8 XOR AddRoundKey; plus 2 transposes
//! (72 ops) per batch. Decryption uses the straight inverse cipher with
//! the encryption round keys (the S-box sandwiched by inverse affine maps,
//! InvMixColumns = MixColumns o (05 00 04 00)).
//!
//! Key form: round key `r` as 8 planes, each byte 0x00 or 0xff (the bit of
//! that key byte, replicated to all 8 blocks); for encryption the S-box
//! constant 0x63 is folded into round keys 1..=NR. Made from the standard
//! schedule or from the vpaes key form (hybrid, per call) in constant time
//! (`pand` + `pcmpeqb`), wiped on drop.
//!
//! Constant time: only bitwise operations and fixed shuffles.

use super::vpaes::{self, Vpaes};
use crate::hybrid::wipe_blocks;
use crate::{
    Block,
    hybrid::{Bitsliced, Policy, X86_POLICY},
    perm,
    schedule::Schedule,
    soft::{
        bitslice,
        word::{Word, bit_ops, ortho},
    },
};
use cipher::{
    Array,
    consts::U32,
    inout::{InOut, InOutBuf},
};
#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;
use core::ops::Not;
use zeroize::ZeroizeOnDrop;

use super::{Lanes, cpu_avx2, cpu_ssse3};

ct_dispatch::x86_detect!(cpu_avx512, "avx512f", "avx512bw");

impl Lanes {
    /// Blocks in one pass of the bitsliced code at this width: 8, 16 or
    /// 32, a power of two (callers round with masks, not divisions).
    const fn pass_blocks(self) -> usize {
        8 * self as usize
    }
}

/// A register of bit planes: `LANES` 128-bit lanes of 8 blocks each.
/// Values of the implementing types exist only inside this module's
/// functions compiled with the matching target features (entered after
/// the token's CPU check); that is what makes the intrinsic calls in their
/// safe methods sound.
trait Reg: Word {
    const LANES: usize;
    /// `16 * LANES` bytes: lane `l` from `p + 16 l`.
    unsafe fn ldu(p: *const u8) -> Self;
    unsafe fn stu(self, p: *mut u8);
    /// `pshufb` in every lane with the same index vector.
    fn shuf(self, idx: Self) -> Self;
    /// The same 16 bytes in every lane.
    fn bcast(b: &[u8; 16]) -> Self;
}

macro_rules! reg {
    ($X:ident, $T:ty, $lanes:expr,
     $xor:ident, $and:ident, $or:ident, $zero:ident, $set64:ident, $sll:ident, $srl:ident,
     $shuf:ident, $ldu:ident, $stu:ident, $bcast:expr) => {
        #[derive(Clone, Copy)]
        struct $X($T);

        impl Default for $X {
            #[inline(always)]
            fn default() -> Self {
                // SAFETY: see `Reg`.
                $X(unsafe { $zero() })
            }
        }
        bit_ops!(unsafe $X: $xor, $and, $or);
        impl Not for $X {
            type Output = $X;
            #[inline(always)]
            fn not(self) -> $X {
                self ^ <$X as Word>::splat_const(u64::MAX)
            }
        }
        impl Word for $X {
            /// Not used by this layout (the ct64 row functions are not used).
            const LANE_BLOCKS: usize = 4;
            #[inline(always)]
            fn splat_const(m: u64) -> $X {
                // SAFETY: see `Reg`.
                $X(unsafe { $set64(m as i64) })
            }
            #[inline(always)]
            fn shl(self, n: u32) -> $X {
                // SAFETY: see `Reg`.
                $X(unsafe { $sll(self.0, _mm_cvtsi32_si128(n as i32)) })
            }
            #[inline(always)]
            fn shr(self, n: u32) -> $X {
                // SAFETY: see `Reg`.
                $X(unsafe { $srl(self.0, _mm_cvtsi32_si128(n as i32)) })
            }
            #[inline(always)]
            fn rotr(self, n: u32) -> $X {
                self.shr(n) | self.shl(64 - n)
            }
            /// Word `i` lane `l` = block `LANES * i + l`, then the transpose.
            #[inline(always)]
            fn load(get: impl Fn(usize) -> [u8; 16]) -> [$X; 8] {
                let mut q = core::array::from_fn(|i| {
                    let b: [[u8; 16]; $lanes] = core::array::from_fn(|l| get($lanes * i + l));
                    // SAFETY: `b` is `16 * LANES` readable bytes.
                    unsafe { <$X as Reg>::ldu(b.as_ptr().cast()) }
                });
                ortho(&mut q);
                q
            }
            #[inline(always)]
            fn store(q: &[$X; 8], mut put: impl FnMut(usize, [u8; 16])) {
                let mut q = *q;
                ortho(&mut q);
                for (i, x) in q.iter().enumerate() {
                    let mut b = [[0u8; 16]; $lanes];
                    // SAFETY: `b` is `16 * LANES` writable bytes.
                    unsafe { x.stu(b.as_mut_ptr().cast()) };
                    for (l, v) in b.iter().enumerate() {
                        put($lanes * i + l, *v);
                    }
                }
            }
        }
        impl Reg for $X {
            const LANES: usize = $lanes;
            #[inline(always)]
            unsafe fn ldu(p: *const u8) -> $X {
                // SAFETY: the caller provides `16 * LANES` readable bytes.
                $X(unsafe { $ldu(p.cast()) })
            }
            #[inline(always)]
            unsafe fn stu(self, p: *mut u8) {
                // SAFETY: the caller provides `16 * LANES` writable bytes.
                unsafe { $stu(p.cast(), self.0) }
            }
            #[inline(always)]
            fn shuf(self, idx: $X) -> $X {
                // SAFETY: see `Reg`.
                $X(unsafe { $shuf(self.0, idx.0) })
            }
            #[inline(always)]
            fn bcast(b: &[u8; 16]) -> $X {
                // SAFETY: 16 readable bytes; see `Reg` for the features.
                $X(unsafe { $bcast(_mm_loadu_si128(b.as_ptr().cast())) })
            }
        }
    };
}

#[inline(always)]
unsafe fn id128(x: __m128i) -> __m128i {
    x
}

reg!(
    X128,
    __m128i,
    1,
    _mm_xor_si128,
    _mm_and_si128,
    _mm_or_si128,
    _mm_setzero_si128,
    _mm_set1_epi64x,
    _mm_sll_epi64,
    _mm_srl_epi64,
    _mm_shuffle_epi8,
    _mm_loadu_si128,
    _mm_storeu_si128,
    id128
);
reg!(
    X256,
    __m256i,
    2,
    _mm256_xor_si256,
    _mm256_and_si256,
    _mm256_or_si256,
    _mm256_setzero_si256,
    _mm256_set1_epi64x,
    _mm256_sll_epi64,
    _mm256_srl_epi64,
    _mm256_shuffle_epi8,
    _mm256_loadu_si256,
    _mm256_storeu_si256,
    _mm256_broadcastsi128_si256
);
reg!(
    X512,
    __m512i,
    4,
    _mm512_xor_si512,
    _mm512_and_si512,
    _mm512_or_si512,
    _mm512_setzero_si512,
    _mm512_set1_epi64,
    _mm512_sll_epi64,
    _mm512_srl_epi64,
    _mm512_shuffle_epi8,
    _mm512_loadu_si512,
    _mm512_storeu_si512,
    _mm512_broadcast_i32x4
);

/// Byte shuffles on the state (byte `p = 4c + r`).
struct Shuffles<R> {
    sr: R,
    isr: R,
    rot1: R,
    rot2: R,
}

/// ShiftRows, InvShiftRows, row `r` <- row `r + 1` / `r + 2` in each
/// column.
const PERMS: [[u8; 16]; 4] = [
    perm::shift_rows(false),
    perm::shift_rows(true),
    perm::rotate_rows(1),
    perm::rotate_rows(2),
];

impl<R: Reg> Shuffles<R> {
    #[inline(always)]
    fn new() -> Self {
        Shuffles {
            sr: R::bcast(&PERMS[0]),
            isr: R::bcast(&PERMS[1]),
            rot1: R::bcast(&PERMS[2]),
            rot2: R::bcast(&PERMS[3]),
        }
    }
}

#[inline(always)]
fn shuffle_all<R: Reg>(q: &mut [R; 8], idx: R) {
    for x in q.iter_mut() {
        *x = x.shuf(idx);
    }
}

/// MixColumns on bit planes (same formula as the portable backend, with
/// the row rotations as byte shuffles).
#[inline(always)]
fn mix_columns<R: Reg>(q: &mut [R; 8], s: &Shuffles<R>) {
    let r: [R; 8] = core::array::from_fn(|i| q[i].shuf(s.rot1));
    let a: [R; 8] = core::array::from_fn(|i| q[i] ^ r[i]);
    let t: [R; 8] = core::array::from_fn(|i| a[i].shuf(s.rot2));
    bitslice::mix_out(q, &r, &a, &t);
}

/// InvMixColumns = MixColumns o (b_r = a_r + 4 (a_r + a_{r+2})).
#[inline(always)]
fn inv_mix_columns<R: Reg>(q: &mut [R; 8], s: &Shuffles<R>) {
    let u: [R; 8] = core::array::from_fn(|i| q[i] ^ q[i].shuf(s.rot2));
    // 4 u: multiply by x twice (bit planes, reduction by 0x1b).
    let x4 = bitslice::xtime(bitslice::xtime(u));
    for i in 0..8 {
        q[i] = q[i] ^ x4[i];
    }
    mix_columns(q, s);
}

#[inline(always)]
fn ark<R: Reg>(q: &mut [R; 8], rk: &[[u8; 16]]) {
    for i in 0..8 {
        q[i] = q[i] ^ R::bcast(&rk[i]);
    }
}

/// Encrypt (or decrypt) `8 * R::LANES` blocks from `inp` to `out`
/// (which may be equal: all loads happen before all stores).
///
/// # Safety
/// `inp`/`out`: `8 * R::LANES` readable / writable blocks; the CPU has
/// `R`'s features.
#[inline(always)]
unsafe fn crypt<R: Reg, const NR: usize>(
    rk: &[[u8; 16]; 120],
    inp: *const u8,
    out: *mut u8,
    dec: bool,
) {
    let s = Shuffles::<R>::new();
    let w = 16 * R::LANES;
    // SAFETY: per the function contract.
    let mut q: [R; 8] = core::array::from_fn(|i| unsafe { R::ldu(inp.add(w * i)) });
    ortho(&mut q);
    if dec {
        ark(&mut q, &rk[8 * NR..8 * NR + 8]);
        for r in (1..NR).rev() {
            shuffle_all(&mut q, s.isr);
            bitslice::inv_sbox(&mut q);
            ark(&mut q, &rk[8 * r..8 * r + 8]);
            inv_mix_columns(&mut q, &s);
        }
        shuffle_all(&mut q, s.isr);
        bitslice::inv_sbox(&mut q);
        ark(&mut q, &rk[0..8]);
    } else {
        ark(&mut q, &rk[0..8]);
        for r in 1..NR {
            bitslice::sbox_no_const(&mut q);
            shuffle_all(&mut q, s.sr);
            mix_columns(&mut q, &s);
            ark(&mut q, &rk[8 * r..8 * r + 8]);
        }
        bitslice::sbox_no_const(&mut q);
        shuffle_all(&mut q, s.sr);
        ark(&mut q, &rk[8 * NR..8 * NR + 8]);
    }
    ortho(&mut q);
    for (i, x) in q.iter().enumerate() {
        // SAFETY: per the function contract.
        unsafe { x.stu(out.add(w * i)) };
    }
}

/// `n` blocks (a multiple of the pass width `8 * R::LANES`) in passes of
/// [`crypt`].
///
/// # Safety
/// `n` readable / writable blocks; the CPU has `R`'s features.
#[inline(always)]
unsafe fn passes<R: Reg, const NR: usize>(
    rk: &[[u8; 16]; 120],
    inp: *const u8,
    out: *mut u8,
    n: usize,
    dec: bool,
) {
    // A plain counted loop: a pass-sized call (the hybrid's generic
    // backend) runs it once, and `step_by`'s setup showed in that.
    let mut s = 0;
    while s < n {
        // SAFETY: blocks `s..s + 8 * R::LANES` are inside the `n` blocks
        // (`n` is a multiple of the pass).
        unsafe { crypt::<R, NR>(rk, inp.add(16 * s), out.add(16 * s), dec) };
        s += 8 * R::LANES;
    }
}

/// `n` blocks (a multiple of 8, at most 32), 8 per pass.
///
/// # Safety
/// `n` readable / writable blocks; SSSE3.
#[target_feature(enable = "ssse3")]
unsafe fn crypt_x128<const NR: usize>(
    rk: &[[u8; 16]; 120],
    inp: *const u8,
    out: *mut u8,
    n: usize,
    dec: bool,
) {
    // SAFETY: per the function contract.
    unsafe { passes::<X128, NR>(rk, inp, out, n, dec) }
}

/// As [`crypt_x128`], 16 blocks per pass (`n` a multiple of 16); AVX2.
#[target_feature(enable = "avx2")]
unsafe fn crypt_x256<const NR: usize>(
    rk: &[[u8; 16]; 120],
    inp: *const u8,
    out: *mut u8,
    n: usize,
    dec: bool,
) {
    // SAFETY: per the function contract.
    unsafe { passes::<X256, NR>(rk, inp, out, n, dec) }
}

/// As [`crypt_x128`], 32 blocks (`n == 32`); AVX-512F + BW.
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn crypt_x512<const NR: usize>(
    rk: &[[u8; 16]; 120],
    inp: *const u8,
    out: *mut u8,
    dec: bool,
) {
    // SAFETY: per the function contract.
    unsafe { passes::<X512, NR>(rk, inp, out, 32, dec) }
}

/// Bitsliced round keys: 8 planes per round key, and the register width
/// (in 128-bit lanes) the batch code uses.
#[derive(Clone)]
pub(crate) struct Key<const NR: usize> {
    rk: [[u8; 16]; 120],
    lanes: Lanes,
}

impl<const NR: usize> Drop for Key<NR> {
    fn drop(&mut self) {
        wipe_blocks(&mut self.rk);
    }
}

impl<const NR: usize> ZeroizeOnDrop for Key<NR> {}

impl<const NR: usize> Key<NR> {
    /// Run `n` blocks (`n` a multiple of the pass width, at most 32).
    ///
    /// # Safety
    /// `inp` / `out`: `n` readable / writable blocks.
    #[inline(always)]
    unsafe fn run(&self, inp: *const u8, out: *mut u8, n: usize, dec: bool) {
        // SAFETY: per the function contract.
        unsafe { self.run_at(self.lanes, inp, out, n, dec) }
    }

    /// `run` at `lanes` <= `self.lanes` (the key form is the same at every
    /// width).
    ///
    /// # Safety
    /// `inp` / `out`: `n` readable / writable blocks.
    #[inline(always)]
    unsafe fn run_at(&self, lanes: Lanes, inp: *const u8, out: *mut u8, n: usize, dec: bool) {
        // A wider pass than the token's would run instructions the CPU
        // may lack; a count that is not whole passes would run past the
        // caller's `n` blocks.
        assert!(lanes <= self.lanes);
        // Pass widths are powers of two: a mask, not a division (whose
        // latency depends on its operands; the trace check reports any).
        assert!(n <= 32 && n & (lanes.pass_blocks() - 1) == 0);
        // SAFETY: a `Key` is only made with a `Bsaes` token, whose `lanes`
        // reflects the CPU check (SSSE3; X2: AVX2; X4: AVX-512F/BW), and
        // `lanes` is at or below it; each routine runs whole passes of
        // `lanes` over exactly the `n` blocks the caller vouches for (the
        // 512-bit one always 32: `n` is 32 when it is a nonzero multiple
        // of 32, and 0 runs nothing).
        unsafe {
            match lanes {
                Lanes::X4 if n == 32 => crypt_x512::<NR>(&self.rk, inp, out, dec),
                Lanes::X4 => {}
                Lanes::X2 => crypt_x256::<NR>(&self.rk, inp, out, n, dec),
                Lanes::X1 => crypt_x128::<NR>(&self.rk, inp, out, n, dec),
            }
        }
    }

    #[inline(always)]
    fn batch(&self, b: InOut<'_, '_, Array<Block, U32>>, dec: bool) {
        let (i, o) = b.into_raw();
        // SAFETY: `i` / `o` point to 32 readable / writable blocks.
        unsafe { self.run(i.cast(), o.cast(), 32, dec) };
    }

    /// Fewer than 32 blocks: zero-padded to whole passes of the narrowest
    /// width whose one pass holds them (up to 8 blocks: 128-bit, up to 16:
    /// 256-bit; a 256-bit pass costs about what a 512-bit one does, so 16
    /// blocks at the AVX-512 width paid for 32), else of this key's width.
    #[inline(always)]
    fn short(&self, mut b: InOutBuf<'_, '_, Block>, dec: bool) {
        let n = b.len();
        let lanes = match n {
            0..=8 => Lanes::X1,
            9..=16 => Lanes::X2,
            _ => Lanes::X4,
        }
        .min(self.lanes);
        let pass = lanes.pass_blocks();
        if n & (pass - 1) == 0 {
            // Whole passes (a pass-sized run from the hybrid's generic
            // backend): on the caller's blocks, no padded copy.
            let (i, o) = b.into_raw();
            // SAFETY: `i` / `o` point to `n` readable / writable blocks
            // (in place or apart, as `InOutBuf` guarantees; a pass loads
            // all its blocks before it stores any).
            unsafe { self.run_at(lanes, i.cast(), o.cast(), n, dec) };
            return;
        }
        // Round up to whole passes with a mask (pass widths are powers of
        // two), not a division.
        let m = (n + pass - 1) & !(pass - 1);
        let mut tmp = [[0u8; 16]; 32];
        // The padded count must fit the buffer: true for every width that
        // exists (8, 16, 32 blocks per pass, `n` < 32), checked here where
        // it is computed so no width can run past it.
        assert!(m <= tmp.len());
        for (t, s) in tmp.iter_mut().zip(b.get_in()) {
            *t = (*s).into();
        }
        let p = tmp.as_mut_ptr().cast::<u8>();
        // SAFETY: `m` blocks of `tmp` (asserted above), read and written.
        unsafe { self.run_at(lanes, p, p, m, dec) };
        for (d, s) in b.get_out().iter_mut().zip(tmp.iter()) {
            *d = (*s).into();
        }
        wipe_blocks(&mut tmp);
    }
}

/// Planes of standard round keys; `fold`: XOR 0x63 into keys 1..=NR.
#[target_feature(enable = "ssse3")]
fn planes<const NR: usize>(std: &[[u8; 16]; 15], fold: bool, lanes: Lanes) -> Key<NR> {
    let mut rk = [[0u8; 16]; 120];
    let c = _mm_set1_epi8(if fold { 0x63 } else { 0 });
    for r in 0..=NR {
        // SAFETY: 16 readable bytes.
        let mut v = unsafe { _mm_loadu_si128(std[r].as_ptr().cast()) };
        if r > 0 {
            v = _mm_xor_si128(v, c);
        }
        for k in 0..8 {
            let m = _mm_set1_epi8(1 << k);
            let p = _mm_cmpeq_epi8(_mm_and_si128(v, m), m);
            // SAFETY: 16 writable bytes, unaligned store.
            unsafe { _mm_storeu_si128(rk[8 * r + k].as_mut_ptr().cast(), p) };
        }
    }
    Key { rk, lanes }
}

/// [`planes`] of the standard round keys recovered from the vpaes form
/// (the copy wiped).
fn from_single<const NR: usize>(t: Bsaes, k: &vpaes::Key<NR>, fold: bool) -> Key<NR> {
    let mut std = [[0u8; 16]; 15];
    vpaes::standard_enc(k, &mut std);
    // SAFETY: the token proves SSSE3.
    let key = unsafe { planes::<NR>(&std, fold, t.lanes) };
    wipe_blocks(&mut std);
    key
}

#[target_feature(enable = "avx2")]
fn scrub256(a: &mut core::mem::MaybeUninit<crate::hybrid::ScrubArea>) {
    // SAFETY: `__m256i` is 32 bytes of plain data, 32-byte aligned.
    unsafe { crate::hybrid::scrub_with(a, _mm256_setzero_si256()) }
}

#[target_feature(enable = "avx512f")]
fn scrub512(a: &mut core::mem::MaybeUninit<crate::hybrid::ScrubArea>) {
    // SAFETY: `__m512i` is 64 bytes of plain data, 64-byte aligned.
    unsafe { crate::hybrid::scrub_with(a, _mm512_setzero_si512()) }
}

/// Proof that this CPU has SSSE3 (and how wide the batch code may go).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bsaes {
    lanes: Lanes,
}

impl Bitsliced<Vpaes> for Bsaes {
    type Token = Bsaes;
    type Batch = U32;
    type Key<const NR: usize> = Key<NR>;

    fn token() -> Option<Bsaes> {
        if !cpu_ssse3::get() {
            return None;
        }
        let hw = if cpu_avx512::get() {
            Lanes::X4
        } else if cpu_avx2::get() {
            Lanes::X2
        } else {
            Lanes::X1
        };
        Some(Bsaes {
            lanes: hw.min(super::simd_lanes()),
        })
    }

    fn enc_key_from_single<const NR: usize>(t: Bsaes, k: &vpaes::Key<NR>) -> Key<NR> {
        from_single(t, k, true)
    }

    fn dec_key_from_single<const NR: usize>(t: Bsaes, k: &vpaes::Key<NR>) -> Key<NR> {
        from_single(t, k, false)
    }

    fn enc_key_from_schedule<const NR: usize>(t: Bsaes, ks: &Schedule<NR>) -> Key<NR> {
        // SAFETY: the token proves SSSE3.
        unsafe { planes::<NR>(&ks.enc, true, t.lanes) }
    }

    fn dec_key_from_schedule<const NR: usize>(t: Bsaes, ks: &Schedule<NR>) -> Key<NR> {
        // SAFETY: the token proves SSSE3.
        unsafe { planes::<NR>(&ks.enc, false, t.lanes) }
    }

    #[inline(always)]
    fn encrypt_batch<const NR: usize>(k: &Key<NR>, b: InOut<'_, '_, Array<Block, U32>>) {
        k.batch(b, false)
    }

    #[inline(always)]
    fn decrypt_batch<const NR: usize>(k: &Key<NR>, b: InOut<'_, '_, Array<Block, U32>>) {
        k.batch(b, true)
    }

    #[inline(always)]
    fn policy(t: Bsaes) -> Policy {
        X86_POLICY[match t.lanes {
            Lanes::X4 => 2,
            Lanes::X2 => 1,
            Lanes::X1 => 0,
        }]
    }

    #[inline(always)]
    fn pass_blocks(t: Bsaes) -> usize {
        t.lanes.pass_blocks()
    }

    #[inline(always)]
    fn encrypt_short<const NR: usize>(k: &Key<NR>, b: InOutBuf<'_, '_, Block>) {
        k.short(b, false)
    }

    /// Whole-register stores at the batch width (the 16-byte default made
    /// the scrub after a converting call cost more than the 256-byte GCM
    /// seal's AES).
    fn scrub(t: Bsaes, a: &mut core::mem::MaybeUninit<crate::hybrid::ScrubArea>) {
        // SAFETY: `lanes` X4 / X2 only after the AVX-512F / AVX2 checks
        // (`token`).
        unsafe {
            match t.lanes {
                Lanes::X4 => scrub512(a),
                Lanes::X2 => scrub256(a),
                Lanes::X1 => crate::hybrid::scrub_generic(a),
            }
        }
    }

    #[inline(always)]
    fn decrypt_short<const NR: usize>(k: &Key<NR>, b: InOutBuf<'_, '_, Block>) {
        k.short(b, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hybrid::SingleBlock;

    /// A bsaes key converted from the vpaes form equals (byte for byte,
    /// and so encrypts identically to) one made from the standard
    /// schedule, for both directions and all key sizes; and every register
    /// width this CPU has gives the same result as vpaes, for whole
    /// batches and for short (padded) runs.
    fn conversion<const NR: usize>(lanes: u8) {
        crate::x86::bsaes_limit_width(lanes);
        let (Some(vt), Some(bt)) = (Vpaes::token(), Bsaes::token()) else {
            return;
        };
        for seed in 0..16u8 {
            let mut key = [0u8; 32];
            for (i, b) in key.iter_mut().enumerate() {
                *b = (i as u8).wrapping_mul(37) ^ seed.wrapping_mul(101) ^ (seed >> 3);
            }
            let ks = Schedule::<NR>::new(&key[..4 * (NR - 6)]);
            let vk = Vpaes::expand(vt, &ks);
            let (a, b) = (
                Bsaes::enc_key_from_single(bt, &vk),
                Bsaes::enc_key_from_schedule(bt, &ks),
            );
            assert_eq!(a.rk, b.rk, "enc NR={NR} seed={seed}");
            let (c, d) = (
                Bsaes::dec_key_from_single(bt, &vk),
                Bsaes::dec_key_from_schedule(bt, &ks),
            );
            assert_eq!(c.rk, d.rk, "dec NR={NR} seed={seed}");
            // A batch against vpaes, both directions.
            let mut x: Array<Block, U32> = Default::default();
            for (j, blk) in x.iter_mut().enumerate() {
                blk[0] = seed;
                blk[1] = j as u8;
                blk[5] = key[j % 16];
            }
            let pt = x;
            let mut want = x;
            for w in want.iter_mut() {
                Vpaes::encrypt1(&vk, w.into());
            }
            Bsaes::encrypt_batch(&a, (&mut x).into());
            assert_eq!(x, want, "batch lanes={lanes} NR={NR}");
            Bsaes::decrypt_batch(&c, (&mut x).into());
            assert_eq!(x, pt);
            // Short runs.
            for n in 1..32 {
                let mut y = pt;
                Bsaes::encrypt_short(&a, (&mut y[..n]).into());
                assert_eq!(&y[..n], &want[..n], "short n={n} lanes={lanes}");
                assert_eq!(&y[n..], &pt[n..]);
                Bsaes::decrypt_short(&c, (&mut y[..n]).into());
                assert_eq!(y, pt);
            }
        }
    }

    #[test]
    fn key_conversion_all_sizes_all_widths() {
        for lanes in [1, 2, 4] {
            conversion::<10>(lanes);
            conversion::<12>(lanes);
            conversion::<14>(lanes);
        }
        crate::x86::bsaes_limit_width(4);
    }
}
