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
use crate::{
    Block,
    hybrid::Bitsliced,
    schedule::Schedule,
    soft::{
        bitslice,
        word::{Word, ortho},
    },
};
use cipher::{Array, consts::U8, inout::InOut};
#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;
use core::ops::{BitAnd, BitOr, BitXor, Not};
use zeroize::{Zeroize, ZeroizeOnDrop};

cpufeatures::new!(cpu_ssse3, "ssse3");

/// One bit plane of 8 blocks. Values of this type exist only inside the
/// `ssse3` functions of this module (after the token's CPU check), which is
/// what makes the intrinsic calls in its methods sound.
#[derive(Clone, Copy)]
struct X(__m128i);

impl Default for X {
    #[inline(always)]
    fn default() -> Self {
        // SAFETY: SSE2 (see the type's comment).
        X(unsafe { _mm_setzero_si128() })
    }
}

macro_rules! op {
    ($tr:ident, $f:ident, $i:ident) => {
        impl $tr for X {
            type Output = X;
            #[inline(always)]
            fn $f(self, o: X) -> X {
                // SAFETY: SSE2 (see the type's comment).
                X(unsafe { $i(self.0, o.0) })
            }
        }
    };
}
op!(BitXor, bitxor, _mm_xor_si128);
op!(BitAnd, bitand, _mm_and_si128);
op!(BitOr, bitor, _mm_or_si128);

impl Not for X {
    type Output = X;
    #[inline(always)]
    fn not(self) -> X {
        // SAFETY: SSE2 (see the type's comment).
        X(unsafe { _mm_xor_si128(self.0, _mm_set1_epi32(-1)) })
    }
}

impl Word for X {
    /// Not used by this layout (the ct64 row functions are not used).
    const LANE_BLOCKS: usize = 4;
    #[inline(always)]
    fn splat_const(m: u64) -> X {
        // SAFETY: SSE2 (see the type's comment).
        X(unsafe { _mm_set1_epi64x(m as i64) })
    }
    #[inline(always)]
    fn shl(self, n: u32) -> X {
        // SAFETY: SSE2 (see the type's comment).
        X(unsafe { _mm_sll_epi64(self.0, _mm_cvtsi32_si128(n as i32)) })
    }
    #[inline(always)]
    fn shr(self, n: u32) -> X {
        // SAFETY: SSE2 (see the type's comment).
        X(unsafe { _mm_srl_epi64(self.0, _mm_cvtsi32_si128(n as i32)) })
    }
    #[inline(always)]
    fn rotr(self, n: u32) -> X {
        self.shr(n) | self.shl(64 - n)
    }
    /// Block `j` into word `j`, then the bit transpose.
    #[inline(always)]
    fn load(get: impl Fn(usize) -> [u8; 16]) -> [X; 8] {
        // SAFETY: 16 readable bytes, unaligned load.
        let mut q = core::array::from_fn(|j| X(unsafe { _mm_loadu_si128(get(j).as_ptr().cast()) }));
        ortho(&mut q);
        q
    }
    #[inline(always)]
    fn store(q: &[X; 8], mut put: impl FnMut(usize, [u8; 16])) {
        let mut q = *q;
        ortho(&mut q);
        for (j, x) in q.iter().enumerate() {
            let mut b = [0u8; 16];
            // SAFETY: 16 writable bytes, unaligned store.
            unsafe { _mm_storeu_si128(b.as_mut_ptr().cast(), x.0) };
            put(j, b);
        }
    }
}

impl X {
    /// `pshufb` with a constant index vector.
    #[inline(always)]
    fn shuf(self, idx: X) -> X {
        // SAFETY: SSSE3 (see the type's comment).
        X(unsafe { _mm_shuffle_epi8(self.0, idx.0) })
    }

    #[inline(always)]
    fn ld(b: &[u8; 16]) -> X {
        // SAFETY: 16 readable bytes, unaligned load.
        X(unsafe { _mm_loadu_si128(b.as_ptr().cast()) })
    }
}

/// Byte shuffles on the state (byte `p = 4c + r`).
struct Shuffles {
    sr: X,
    isr: X,
    rot1: X,
    rot2: X,
}

const fn perm(kind: u8) -> [u8; 16] {
    let mut t = [0u8; 16];
    let mut p = 0;
    while p < 16 {
        let (c, r) = (p / 4, p % 4);
        t[p] = match kind {
            // ShiftRows: new (r, c) = old (r, c + r).
            0 => 4 * ((c + r) % 4) + r,
            1 => 4 * ((c + 4 - r) % 4) + r,
            // Row r <- row r + 1 / r + 2 in each column.
            2 => 4 * c + (r + 1) % 4,
            _ => 4 * c + (r + 2) % 4,
        } as u8;
        p += 1;
    }
    t
}

const PERMS: [[u8; 16]; 4] = [perm(0), perm(1), perm(2), perm(3)];

impl Shuffles {
    #[inline(always)]
    fn new() -> Self {
        Shuffles {
            sr: X::ld(&PERMS[0]),
            isr: X::ld(&PERMS[1]),
            rot1: X::ld(&PERMS[2]),
            rot2: X::ld(&PERMS[3]),
        }
    }
}

#[inline(always)]
fn shuffle_all(q: &mut [X; 8], idx: X) {
    for x in q.iter_mut() {
        *x = x.shuf(idx);
    }
}

/// MixColumns on bit planes (same formula as the portable backend, with
/// the row rotations as byte shuffles).
#[inline(always)]
fn mix_columns(q: &mut [X; 8], s: &Shuffles) {
    let r: [X; 8] = core::array::from_fn(|i| q[i].shuf(s.rot1));
    let a: [X; 8] = core::array::from_fn(|i| q[i] ^ r[i]);
    let t: [X; 8] = core::array::from_fn(|i| a[i].shuf(s.rot2));
    q[0] = a[7] ^ r[0] ^ t[0];
    q[1] = a[0] ^ a[7] ^ r[1] ^ t[1];
    q[2] = a[1] ^ r[2] ^ t[2];
    q[3] = a[2] ^ a[7] ^ r[3] ^ t[3];
    q[4] = a[3] ^ a[7] ^ r[4] ^ t[4];
    q[5] = a[4] ^ r[5] ^ t[5];
    q[6] = a[5] ^ r[6] ^ t[6];
    q[7] = a[6] ^ r[7] ^ t[7];
}

/// InvMixColumns = MixColumns o (b_r = a_r + 4 (a_r + a_{r+2})).
#[inline(always)]
fn inv_mix_columns(q: &mut [X; 8], s: &Shuffles) {
    let u: [X; 8] = core::array::from_fn(|i| q[i] ^ q[i].shuf(s.rot2));
    // 4 u: multiply by x twice (bit planes, reduction by 0x1b).
    let x2 = [
        u[7],
        u[0] ^ u[7],
        u[1],
        u[2] ^ u[7],
        u[3] ^ u[7],
        u[4],
        u[5],
        u[6],
    ];
    let x4 = [
        x2[7],
        x2[0] ^ x2[7],
        x2[1],
        x2[2] ^ x2[7],
        x2[3] ^ x2[7],
        x2[4],
        x2[5],
        x2[6],
    ];
    for i in 0..8 {
        q[i] = q[i] ^ x4[i];
    }
    mix_columns(q, s);
}

#[inline(always)]
fn ark(q: &mut [X; 8], rk: &[[u8; 16]]) {
    for i in 0..8 {
        q[i] = q[i] ^ X::ld(&rk[i]);
    }
}

/// Bitsliced round keys: 8 planes per round key.
#[derive(Clone)]
pub(crate) struct Key<const NR: usize> {
    rk: [[u8; 16]; 120],
}

impl<const NR: usize> Drop for Key<NR> {
    fn drop(&mut self) {
        self.rk.zeroize();
    }
}

impl<const NR: usize> ZeroizeOnDrop for Key<NR> {}

/// Planes of standard round keys; `fold`: XOR 0x63 into keys 1..=NR.
#[target_feature(enable = "ssse3")]
fn planes<const NR: usize>(std: &[[u8; 16]; 15], fold: bool) -> Key<NR> {
    let mut rk = [[0u8; 16]; 120];
    let c = _mm_set1_epi8(if fold { 0x63 } else { 0 });
    for r in 0..=NR {
        let mut v = X::ld(&std[r]).0;
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
    Key { rk }
}

#[target_feature(enable = "ssse3")]
fn enc8<const NR: usize>(k: &Key<NR>, mut b: InOut<'_, '_, Array<Block, U8>>) {
    let s = Shuffles::new();
    let mut q = {
        let i = b.get_in();
        X::load(|j| i[j].into())
    };
    ark(&mut q, &k.rk[0..8]);
    for r in 1..NR {
        bitslice::sbox_no_const(&mut q);
        shuffle_all(&mut q, s.sr);
        mix_columns(&mut q, &s);
        ark(&mut q, &k.rk[8 * r..8 * r + 8]);
    }
    bitslice::sbox_no_const(&mut q);
    shuffle_all(&mut q, s.sr);
    ark(&mut q, &k.rk[8 * NR..8 * NR + 8]);
    let o = b.get_out();
    X::store(&q, |j, v| o[j] = v.into());
}

#[target_feature(enable = "ssse3")]
fn dec8<const NR: usize>(k: &Key<NR>, mut b: InOut<'_, '_, Array<Block, U8>>) {
    let s = Shuffles::new();
    let mut q = {
        let i = b.get_in();
        X::load(|j| i[j].into())
    };
    ark(&mut q, &k.rk[8 * NR..8 * NR + 8]);
    for r in (1..NR).rev() {
        shuffle_all(&mut q, s.isr);
        bitslice::inv_sbox(&mut q);
        ark(&mut q, &k.rk[8 * r..8 * r + 8]);
        inv_mix_columns(&mut q, &s);
    }
    shuffle_all(&mut q, s.isr);
    bitslice::inv_sbox(&mut q);
    ark(&mut q, &k.rk[0..8]);
    let o = b.get_out();
    X::store(&q, |j, v| o[j] = v.into());
}

/// Proof that this CPU has SSSE3.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bsaes(());

impl Bitsliced<Vpaes> for Bsaes {
    type Token = Bsaes;
    type Batch = U8;
    type Key<const NR: usize> = Key<NR>;

    fn token() -> Option<Bsaes> {
        cpu_ssse3::get().then_some(Bsaes(()))
    }

    fn enc_key_from_single<const NR: usize>(_: Bsaes, k: &vpaes::Key<NR>) -> Key<NR> {
        let mut std = [[0u8; 16]; 15];
        // SAFETY: the token proves SSSE3.
        let key = unsafe {
            vpaes::standard_enc(k, &mut std);
            planes::<NR>(&std, true)
        };
        std.zeroize();
        key
    }

    fn dec_key_from_single<const NR: usize>(_: Bsaes, k: &vpaes::Key<NR>) -> Key<NR> {
        let mut std = [[0u8; 16]; 15];
        // SAFETY: the token proves SSSE3.
        let key = unsafe {
            vpaes::standard_enc(k, &mut std);
            planes::<NR>(&std, false)
        };
        std.zeroize();
        key
    }

    fn enc_key_from_schedule<const NR: usize>(_: Bsaes, ks: &Schedule<NR>) -> Key<NR> {
        // SAFETY: the token proves SSSE3.
        unsafe { planes::<NR>(&ks.enc, true) }
    }

    fn dec_key_from_schedule<const NR: usize>(_: Bsaes, ks: &Schedule<NR>) -> Key<NR> {
        // SAFETY: the token proves SSSE3.
        unsafe { planes::<NR>(&ks.enc, false) }
    }

    #[inline(always)]
    fn encrypt_batch<const NR: usize>(k: &Key<NR>, b: InOut<'_, '_, Array<Block, U8>>) {
        // SAFETY: a bsaes `Key` is only made with a `Bsaes` token (SSSE3).
        unsafe { enc8(k, b) }
    }

    #[inline(always)]
    fn decrypt_batch<const NR: usize>(k: &Key<NR>, b: InOut<'_, '_, Array<Block, U8>>) {
        // SAFETY: as above.
        unsafe { dec8(k, b) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hybrid::SingleBlock;

    /// A bsaes key converted from the vpaes form equals (byte for byte,
    /// and so encrypts identically to) one made from the standard
    /// schedule, for both directions and all key sizes.
    fn conversion<const NR: usize>() {
        let (Some(vt), Some(bt)) = (Vpaes::token(), Bsaes::token()) else {
            return;
        };
        for seed in 0..32u8 {
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
            // And a batch through each gives the same ciphertext.
            let mut x: Array<Block, U8> = Default::default();
            for (j, blk) in x.iter_mut().enumerate() {
                blk[0] = seed;
                blk[1] = j as u8;
            }
            let mut y = x.clone();
            Bsaes::encrypt_batch(&a, (&mut x).into());
            Bsaes::encrypt_batch(&b, (&mut y).into());
            assert_eq!(x, y);
            Bsaes::decrypt_batch(&c, (&mut x).into());
            assert_eq!(x[3][1], 3);
        }
    }

    #[test]
    fn key_conversion_all_sizes() {
        conversion::<10>();
        conversion::<12>();
        conversion::<14>();
    }
}
