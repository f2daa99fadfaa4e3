//! Bitsliced AES on aarch64 NEON: 8 blocks per batch ("bsaes").
//!
//! Technique: E. Käsper, P. Schwabe, "Faster and Timing-Attack Resistant
//! AES-GCM", CHES 2009, section 4: the 8 blocks are transposed into 8 bit
//! planes of 128 bits each. In plane `k`, byte `4r + c` holds bit `k` of
//! state byte (row `r`, column `c`) of all 8 blocks (bit `j` = block `j`).
//! That is exactly the layout of the portable circuit in
//! [`crate::soft::bitslice`] with 128-bit lanes and `LANE_BLOCKS = 8` (row
//! chunks of 32 bits, column `c` of block `j` at bit `8c + j`), so the
//! S-box (Boyar-Peralta), MixColumns and their inverses are the shared
//! generic code instantiated with [`Nq`]; only the parts that differ are
//! here: ShiftRows is one `tbl` per plane, MixColumns' row rotations are
//! `ext`, and the transposition is 12 SWAPMOVEs plus one `tbl` per block.
//!
//! Constant time: only bitwise operations, byte shuffles by constant
//! indices, no branches or memory indices depending on data or key.
//!
//! Cost (AES-128, one batch of 8 blocks): per round ~119 S-box ops, 8 `tbl`,
//! ~43 MixColumns ops, 8 round-key XORs; ~1.2 ops/byte of transposition.
//! One block costs a whole batch.
//!
//! Key form: every round key as 8 planes (each bit of the round key
//! broadcast to all 8 block slots), 128 bytes per round. Conversion from
//! the byte round keys is 1 `tbl` + 8 `cmtst` per round key
//! ([`convert_key`]), cheap enough for the hybrid to do per call.

use super::neon::*;
use super::vpaes::{Key as VKey, NeonVpaes};
use crate::{
    Block,
    hybrid::{Bitsliced, Policy, ScrubArea},
    schedule::Schedule,
    soft::{
        bitslice,
        word::{Word, bit_ops},
    },
};
use cipher::{Array, consts::U8, inout::InOut};
use core::{mem::MaybeUninit, ops::Not};
use zeroize::ZeroizeOnDrop;

/// One 128-bit bit plane of 8 blocks.
#[derive(Clone, Copy)]
pub(crate) struct Nq(pub(crate) uint8x16_t);

impl Default for Nq {
    #[inline(always)]
    fn default() -> Self {
        Nq(vdupq_n_u8(0))
    }
}

bit_ops!(Nq: veorq_u8, vandq_u8, vorrq_u8);

impl Not for Nq {
    type Output = Self;
    #[inline(always)]
    fn not(self) -> Self {
        Nq(vmvnq_u8(self.0))
    }
}

impl Nq {
    #[inline(always)]
    fn to_u128(self) -> u128 {
        u128::from_le_bytes(self.bytes())
    }

    #[inline(always)]
    fn from_u128(x: u128) -> Self {
        Self::from_bytes(&x.to_le_bytes())
    }

    #[inline(always)]
    fn bytes(self) -> [u8; 16] {
        let mut b = [0u8; 16];
        store(&mut b, self.0);
        b
    }

    #[inline(always)]
    pub(crate) fn from_bytes(b: &[u8; 16]) -> Self {
        Nq(load(b))
    }

    /// Byte `i` of the result is byte `idx[i]` of `self`.
    #[inline(always)]
    fn shuffle(self, idx: uint8x16_t) -> Self {
        Nq(vqtbl1q_u8(self.0, idx))
    }
}

/// Rotate the 128-bit value right by `8 * k` bits (byte `i` of the result
/// is byte `i + k mod 16`).
#[inline(always)]
fn rotr_bytes(x: uint8x16_t, k: u32) -> uint8x16_t {
    macro_rules! ext {
        ($($n:literal)*) => {
            match k % 16 {
                0 => x,
                $($n => vrot::<$n>(x),)*
                _ => x,
            }
        };
    }
    ext!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15)
}

/// The bitsliced circuit's word: one lane of 128 bits (8 blocks).
impl Word for Nq {
    const LANE_BLOCKS: usize = 8;

    /// `m` in both 64-bit halves of the lane.
    #[inline(always)]
    fn splat_const(m: u64) -> Self {
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&m.to_le_bytes());
        b[8..].copy_from_slice(&m.to_le_bytes());
        Nq(load(&b))
    }

    #[inline(always)]
    fn shl(self, n: u32) -> Self {
        Self::from_u128(self.to_u128() << n)
    }

    #[inline(always)]
    fn shr(self, n: u32) -> Self {
        Self::from_u128(self.to_u128() >> n)
    }

    /// The circuit only rotates by whole rows (32 bits): one `ext`.
    #[inline(always)]
    fn rotr(self, n: u32) -> Self {
        if n.is_multiple_of(8) {
            Nq(rotr_bytes(self.0, n / 8))
        } else {
            Self::from_u128(self.to_u128().rotate_right(n))
        }
    }

    #[inline(always)]
    fn load(get: impl Fn(usize) -> [u8; 16]) -> [Self; 8] {
        let mut q: [Nq; 8] = core::array::from_fn(|j| Nq::from_bytes(&get(j)));
        to_planes(&mut q);
        q
    }

    #[inline(always)]
    fn store(q: &[Self; 8], mut put: impl FnMut(usize, [u8; 16])) {
        let mut q = *q;
        from_planes(&mut q);
        for (j, x) in q.iter().enumerate() {
            put(j, x.bytes());
        }
    }
}

/// Byte index permutations (as `tbl` index vectors).
const TRANSPOSE: [u8; 16] = {
    // Column-major state (FIPS byte 4c + r) <-> row-major (4r + c).
    let mut t = [0u8; 16];
    let mut i = 0;
    while i < 16 {
        t[i] = ((i % 4) * 4 + i / 4) as u8;
        i += 1;
    }
    t
};

/// ShiftRows^k in the row-major layout: new (r, c) = old (r, c + k r).
const fn rot_rows(k: usize) -> [u8; 16] {
    let mut t = [0u8; 16];
    let mut i = 0;
    while i < 16 {
        let (r, c) = (i / 4, i % 4);
        t[i] = (4 * r + (c + k * r) % 4) as u8;
        i += 1;
    }
    t
}
const INV_SR: [u8; 16] = rot_rows(3);

/// Fixslicing (A. Adomnicai, T. Peyrin, "Fixslicing AES-like ciphers",
/// TCHES 2021(1)): encryption never applies ShiftRows. After `j` skipped
/// ShiftRows the held state `H` and the real one `T` relate by
/// `T(r, c) = H(r, c + j r)` (`j` mod 4), so MixColumns reads its "row
/// below" at `(r + 1, c + j)` and its "two rows below" at `(r + 2, c + 2j)`:
/// still one `tbl` each (as the `ext` of plain MixColumns), and the 8
/// ShiftRows `tbl` of every round disappear. Round key `i` is stored in the
/// held form of round `i`; one fix-up permutation ends the cipher.
const fn skew_rows(rows: usize, j: usize) -> [u8; 16] {
    let mut t = [0u8; 16];
    let mut i = 0;
    while i < 16 {
        let (r, c) = (i / 4, i % 4);
        t[i] = (4 * ((r + rows) % 4) + (c + rows * j) % 4) as u8;
        i += 1;
    }
    t
}

/// `tbl` indices for round `j` (mod 4): row below, two rows below.
const MC_IDX: [[[u8; 16]; 2]; 4] = {
    let mut t = [[[0u8; 16]; 2]; 4];
    let mut j = 0;
    while j < 4 {
        t[j] = [skew_rows(1, j), skew_rows(2, j)];
        j += 1;
    }
    t
};

/// Round key `i` in held form: `K_h(r, c) = K(r, c - j r)`, composed with
/// [`TRANSPOSE`] (FIPS byte order in, row-major out).
const KEY_IDX: [[u8; 16]; 4] = crate::perm::KEY_SKEW;

#[inline(always)]
fn idx(t: &[u8; 16]) -> uint8x16_t {
    load(t)
}

/// Exchange bits `x[i]_{k+d}` and `x[i+d]_k` for `k & d == 0` (mask `m`).
#[inline(always)]
fn swapmove<const D: i32>(q: &mut [Nq; 8], i: usize, m: uint8x16_t) {
    let (a, b) = (q[i].0, q[i + D as usize].0);
    let t = vandq_u8(veorq_u8(vshrq_n_u8::<D>(a), b), m);
    q[i + D as usize] = Nq(veorq_u8(b, t));
    q[i] = Nq(veorq_u8(a, vshlq_n_u8::<D>(t)));
}

/// 8x8 bit transpose in every byte position (an involution).
#[inline(always)]
fn bit_transpose(q: &mut [Nq; 8]) {
    let m1 = vdupq_n_u8(0x55);
    let m2 = vdupq_n_u8(0x33);
    let m4 = vdupq_n_u8(0x0f);
    for i in [0, 2, 4, 6] {
        swapmove::<1>(q, i, m1);
    }
    for i in [0, 1, 4, 5] {
        swapmove::<2>(q, i, m2);
    }
    for i in [0, 1, 2, 3] {
        swapmove::<4>(q, i, m4);
    }
}

/// 8 blocks (FIPS byte order) to bit planes.
#[inline(always)]
pub(crate) fn to_planes(q: &mut [Nq; 8]) {
    let t = idx(&TRANSPOSE);
    for x in q.iter_mut() {
        *x = x.shuffle(t);
    }
    bit_transpose(q);
}

/// Bit planes back to 8 blocks.
#[inline(always)]
pub(crate) fn from_planes(q: &mut [Nq; 8]) {
    bit_transpose(q);
    let t = idx(&TRANSPOSE);
    for x in q.iter_mut() {
        *x = x.shuffle(t);
    }
}

/// One round key (FIPS byte order) as planes: plane `k` byte `4r + c` is
/// `0xff` if bit `k` of byte (`r`, `c`) is set.
#[inline(always)]
pub(crate) fn convert_key(rk: &[u8; 16]) -> [Nq; 8] {
    convert_key_skewed(rk, 0)
}

/// [`convert_key`] in the held form of fixsliced round `j` (mod 4).
#[inline(always)]
fn convert_key_skewed(rk: &[u8; 16], j: usize) -> [Nq; 8] {
    let x = Nq::from_bytes(rk).shuffle(idx(&KEY_IDX[j % 4])).0;
    core::array::from_fn(|k| Nq(vtstq_u8(x, vdupq_n_u8(1 << k))))
}

/// Round keys in plane form (`NR + 1` used), for encryption (with the
/// S-box constant folded in) or decryption (plain). Wiped on drop.
#[derive(Clone)]
pub(crate) struct Planes<const NR: usize>([[Nq; 8]; 15]);

impl<const NR: usize> Drop for Planes<NR> {
    fn drop(&mut self) {
        // SAFETY: plain vectors, for which zero bytes are a valid value.
        unsafe { ct_dispatch::wipe::wipe_bytes(&mut self.0) };
    }
}

impl<const NR: usize> ZeroizeOnDrop for Planes<NR> {}

impl<const NR: usize> Planes<NR> {
    /// The key form of one direction, written into `slot` in place (a
    /// key form built by value and moved there costs a zeroing and two
    /// copies of its 1920 bytes, and leaves the copies on the stack).
    /// Decryption: the round keys as they are. Encryption: fixsliced (see
    /// [`MC_IDX`]); round keys 1..=NR also carry the S-box's constant 0x63
    /// (bits 0, 1, 5, 6), which [`bitslice::sbox_no_const`] leaves out:
    /// ShiftRows and MixColumns map a state of equal bytes `c` to itself,
    /// so `c` can move to the next AddRoundKey. Units past `NR` are zero.
    #[inline(always)]
    fn build_into(enc: &[[u8; 16]; 15], dec: bool, slot: &mut MaybeUninit<Self>) {
        // SAFETY: a place projection of storage we may write (no reference
        // to uninitialised memory is made).
        let base = unsafe { core::ptr::addr_of_mut!((*slot.as_mut_ptr()).0) }.cast::<[Nq; 8]>();
        for (i, rk) in enc.iter().enumerate() {
            let unit = if i > NR {
                [Nq::default(); 8]
            } else if dec {
                convert_key(rk)
            } else {
                let mut r = convert_key_skewed(rk, i);
                if i > 0 {
                    for k in [0, 1, 5, 6] {
                        r[k] = !r[k];
                    }
                }
                r
            };
            // SAFETY: i < 15, so `base + i` is inside the array; all 15
            // units are written, so the slot is initialised afterwards.
            unsafe { base.add(i).write(unit) };
        }
    }

    #[inline(always)]
    fn build(enc: &[[u8; 16]; 15], dec: bool) -> Self {
        let mut p = MaybeUninit::uninit();
        Self::build_into(enc, dec, &mut p);
        // SAFETY: `build_into` wrote all 15 units.
        unsafe { p.assume_init() }
    }

    /// Encrypt 8 blocks held as planes (encryption form).
    #[inline(always)]
    fn encrypt(&self, q: &mut [Nq; 8]) {
        ark(q, &self.0[0]);
        for i in 1..NR {
            bitslice::sbox_no_const(q);
            mix_columns_skewed(q, i % 4);
            ark(q, &self.0[i]);
        }
        bitslice::sbox_no_const(q);
        ark(q, &self.0[NR]);
        // Undo the skew of NR skipped ShiftRows: T(r, c) = H(r, c + NR r).
        if !NR.is_multiple_of(4) {
            let fix = idx(&rot_rows(NR % 4));
            for x in q.iter_mut() {
                *x = x.shuffle(fix);
            }
        }
    }

    /// Decrypt 8 blocks held as planes (decryption form;
    /// straight inverse cipher).
    #[inline(always)]
    fn decrypt(&self, q: &mut [Nq; 8]) {
        let isr = idx(&INV_SR);
        ark(q, &self.0[NR]);
        for i in (1..NR).rev() {
            for x in q.iter_mut() {
                *x = x.shuffle(isr);
            }
            bitslice::inv_sbox(q);
            ark(q, &self.0[i]);
            bitslice::inv_mix_columns(q);
        }
        for x in q.iter_mut() {
            *x = x.shuffle(isr);
        }
        bitslice::inv_sbox(q);
        ark(q, &self.0[0]);
    }

    #[inline(never)]
    fn run(&self, mut b: InOut<'_, '_, Array<Block, U8>>, dec: bool) {
        let mut q = {
            let inp = b.get_in();
            Nq::load(|j| inp[j].into())
        };
        if dec {
            self.decrypt(&mut q);
        } else {
            self.encrypt(&mut q);
        }
        let out = b.get_out();
        Nq::store(&q, |j, v| out[j] = v.into());
        // One wipe of the whole state (one pointer, paired stores).
        // SAFETY: plain vectors, for which zero bytes are a valid value.
        unsafe { ct_dispatch::wipe::wipe_bytes(&mut q) };
    }
}

/// MixColumns on the held state of fixsliced round `j` (see [`MC_IDX`]):
/// `out = 2 (a_r ^ a_{r+1}) ^ a_{r+1} ^ (a_{r+2} ^ a_{r+3})` per bit plane,
/// with the carry of the doubling into planes 1, 3, 4 (x^8 = x^4 + x^3 +
/// x + 1). 16 `tbl` + 27 XOR.
#[inline(always)]
fn mix_columns_skewed(q: &mut [Nq; 8], j: usize) {
    let (p1, p2) = (idx(&MC_IDX[j][0]), idx(&MC_IDX[j][1]));
    let r: [Nq; 8] = core::array::from_fn(|i| q[i].shuffle(p1));
    let a: [Nq; 8] = core::array::from_fn(|i| q[i] ^ r[i]);
    let s: [Nq; 8] = core::array::from_fn(|i| a[i].shuffle(p2) ^ r[i]);
    q[0] = a[7] ^ s[0];
    q[1] = a[0] ^ a[7] ^ s[1];
    q[2] = a[1] ^ s[2];
    q[3] = a[2] ^ a[7] ^ s[3];
    q[4] = a[3] ^ a[7] ^ s[4];
    q[5] = a[4] ^ s[5];
    q[6] = a[5] ^ s[6];
    q[7] = a[6] ^ s[7];
}

#[inline(always)]
fn ark(q: &mut [Nq; 8], k: &[Nq; 8]) {
    for i in 0..8 {
        q[i] = q[i] ^ k[i];
    }
}

/// The bsaes side of the aarch64 hybrid (and the forceable `bsaes`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct NeonBsaes(());

impl Bitsliced<NeonVpaes> for NeonBsaes {
    type Token = NeonBsaes;
    type Batch = U8;
    type Key<const NR: usize> = Planes<NR>;

    fn token() -> Option<NeonBsaes> {
        // NEON (ASIMD) is part of the aarch64 baseline.
        Some(NeonBsaes(()))
    }

    fn enc_key_from_single<const NR: usize>(_: NeonBsaes, k: &VKey<NR>) -> Planes<NR> {
        Planes::build(&k.ks.enc, false)
    }

    fn dec_key_from_single<const NR: usize>(_: NeonBsaes, k: &VKey<NR>) -> Planes<NR> {
        Planes::build(&k.ks.enc, true)
    }

    fn enc_key_from_single_into<const NR: usize>(
        _: NeonBsaes,
        k: &VKey<NR>,
        slot: &mut MaybeUninit<Planes<NR>>,
    ) {
        Planes::build_into(&k.ks.enc, false, slot)
    }

    fn dec_key_from_single_into<const NR: usize>(
        _: NeonBsaes,
        k: &VKey<NR>,
        slot: &mut MaybeUninit<Planes<NR>>,
    ) {
        Planes::build_into(&k.ks.enc, true, slot)
    }

    fn enc_key_from_schedule<const NR: usize>(_: NeonBsaes, ks: &Schedule<NR>) -> Planes<NR> {
        Planes::build(&ks.enc, false)
    }

    fn dec_key_from_schedule<const NR: usize>(_: NeonBsaes, ks: &Schedule<NR>) -> Planes<NR> {
        Planes::build(&ks.enc, true)
    }

    #[inline(always)]
    fn policy(_: NeonBsaes) -> Policy {
        crate::hybrid::AARCH64_POLICY
    }

    /// The wipe's own stores (`ct_dispatch::wipe`: the compiler's
    /// `write_bytes`, a `memset` of the area with wide paired stores)
    /// instead of the default 16-byte volatile stores, one per 16 bytes.
    #[inline(always)]
    fn scrub(_: NeonBsaes, a: &mut MaybeUninit<ScrubArea>) {
        // SAFETY: `a` is writable storage owned by the caller; any bytes
        // are a valid `MaybeUninit`.
        unsafe { ct_dispatch::wipe::wipe_bytes(a.as_mut_ptr()) };
    }

    #[inline(always)]
    fn encrypt_batch<const NR: usize>(k: &Planes<NR>, b: InOut<'_, '_, Array<Block, U8>>) {
        k.run(b, false)
    }

    #[inline(always)]
    fn decrypt_batch<const NR: usize>(k: &Planes<NR>, b: InOut<'_, '_, Array<Block, U8>>) {
        k.run(b, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transpose_roundtrip() {
        let mut data = [0u8; 128];
        super::super::tests::bytes(7, &mut data);
        let blocks: [[u8; 16]; 8] =
            core::array::from_fn(|j| data[16 * j..16 * j + 16].try_into().unwrap());
        let q = Nq::load(|j| blocks[j]);
        // plane k byte 4r+c bit j = bit k of block j byte 4c+r
        for k in 0..8 {
            let p = q[k].bytes();
            for r in 0..4 {
                for c in 0..4 {
                    for j in 0..8 {
                        assert_eq!((p[4 * r + c] >> j) & 1, (blocks[j][4 * c + r] >> k) & 1);
                    }
                }
            }
        }
        let mut back = [[0u8; 16]; 8];
        Nq::store(&q, |j, v| back[j] = v);
        assert_eq!(back, blocks);
    }
}
