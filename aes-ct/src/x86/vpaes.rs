//! vpaes: AES with vector permutes (SSSE3 `pshufb`), one or two blocks
//! (two in one 256-bit register where the CPU has AVX2).
//!
//! Technique: M. Hamburg, "Accelerating AES with Vector Permute
//! Instructions", CHES 2009, section 4. The state is kept in a basis
//! where every byte is a pair of nibbles of the tower field
//! `GF(2^8) = GF(16)[t]/(t^2 + t + z)`: byte `x` is written `i t + j t'`
//! (`t' = t + 1`), and stored as high nibble `i`, low nibble `k = i + j`.
//! With `a = 1/z` the inverse of `x` is a sum of a function of
//! `io = j + 1/(1/i + a/k)` and a function of `jo = i + 1/(1/j + a/k)`,
//! because `1/io` and `1/jo` are `(i + z k)/N` and `(j + z k)/N` for the
//! norm `N`, an invertible GF(16)-linear mix of the inverse's
//! coordinates. So SubBytes is 6 lookups of 16-entry tables (`pshufb`
//! with the nibbles as indices) for the inversion and 2 more per output
//! (the affine map, basis change back and, for MixColumns, the factor 2 are
//! all folded into those output tables). An inverse of zero is a table
//! entry `0x80`, which makes the next `pshufb` return zero.
//!
//! Everything after the inversion is GF(2)-linear, so the state stays in
//! the tower basis between rounds; the round keys are stored in that basis
//! (with the S-box constant 0x63 folded in), and only the first (`ipt`)
//! and last (`sbo`) lookups use the standard basis. ShiftRows and the
//! column rotations of MixColumns are byte shuffles; ShiftRows is folded
//! into the four independent MixColumns shuffles, so the chain from one
//! S-box output to the next round's input is shuffle, XOR tree.
//!
//! All tables are derived at compile time below (`Tables::derive`) from
//! the field definitions and checked against FIPS-197 in the unit tests;
//! none is copied from elsewhere.
//!
//! Decryption uses the equivalent inverse cipher (FIPS-197 section
//! 5.3.5, keys from [`Schedule::dec`]) with the state in the basis
//! `T o A^-1` and output tables for the InvMixColumns factors 9, 11, 13, 14.
//!
//! Constant time: indices of `pshufb` are register contents, no memory is
//! indexed by secrets, no branches. Cost per round and block: 16 `pshufb`
//! and about 13 other SSE ops (encryption); the 2-block path interleaves
//! two independent dependency chains, or with AVX2 runs both blocks as the
//! two lanes of one 256-bit register (`vpshufb` looks up per lane; tables
//! and round keys broadcast): one chain, so two blocks cost little more
//! than one (aes-ct/PERFORMANCE-x86.md). The code is written once over the
//! register type ([`Lanes`](super::lanes::Lanes)).
//!
//! Key form: both directions' round keys converted into the state bases
//! (from the constant-time standard schedule), wiped on drop.

use crate::hybrid::wipe_blocks;
use crate::{
    Block,
    hybrid::{Pair, SingleBlock},
    schedule::Schedule,
};
use cipher::inout::InOut;
#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;
use zeroize::ZeroizeOnDrop;

use super::lanes::Lanes;
use super::{cpu_avx2, cpu_ssse3};

// ---------------------------------------------------------------------
// Table derivation (compile time).

/// `GF(16) = GF(2)[w]/(w^4 + w + 1)`.
const fn mul4(a: u8, b: u8) -> u8 {
    let mut r = 0u8;
    let mut i = 0;
    while i < 4 {
        if (b >> i) & 1 == 1 {
            r ^= a << i;
        }
        i += 1;
    }
    let mut i = 6;
    while i >= 4 {
        if (r >> i) & 1 == 1 {
            r ^= 0x13 << (i - 4);
        }
        i -= 1;
    }
    r
}

const fn inv4(a: u8) -> u8 {
    let mut x = 1;
    while x < 16 {
        if mul4(a, x) == 1 {
            return x;
        }
        x += 1;
    }
    0
}

/// Absolute trace GF(16) -> GF(2).
const fn trace4(z: u8) -> u8 {
    let mut t = z;
    let mut s = z;
    let mut i = 0;
    while i < 3 {
        t = mul4(t, t);
        s ^= t;
        i += 1;
    }
    s
}

/// `z`: the smallest element with trace 1, so `t^2 + t + z` is irreducible.
const ZETA: u8 = {
    let mut z = 2;
    while trace4(z) != 1 {
        z += 1;
    }
    z
};

/// Tower element `c1 t + c0` packed as `c1 << 4 | c0`; `t^2 = t + z`.
const fn tmul(a: u8, b: u8) -> u8 {
    let (a1, a0, b1, b0) = (a >> 4, a & 15, b >> 4, b & 15);
    let p = mul4(a1, b1);
    ((p ^ mul4(a1, b0) ^ mul4(a0, b1)) << 4) | (mul4(p, ZETA) ^ mul4(a0, b0))
}

const fn tpow(a: u8, n: u32) -> u8 {
    let mut r = 0x01;
    let mut i = 0;
    while i < n {
        r = tmul(r, a);
        i += 1;
    }
    r
}

/// A root of the AES polynomial `x^8 + x^4 + x^3 + x + 1` in the tower.
const BETA: u8 = {
    let mut c = 2u8;
    loop {
        if tpow(c, 8) ^ tpow(c, 4) ^ tpow(c, 3) ^ c ^ 1 == 0 {
            break c;
        }
        c += 1;
    }
};

/// `BETA^k` for `k < 8`.
const BETA_POW: [u8; 8] = {
    let mut p = [0u8; 8];
    let mut k = 0;
    while k < 8 {
        p[k] = tpow(BETA, k as u32);
        k += 1;
    }
    p
};

/// The field isomorphism AES -> tower (GF(2)-linear: `x^k -> BETA^k`).
const fn phi(x: u8) -> u8 {
    let mut r = 0;
    let mut k = 0;
    while k < 8 {
        if (x >> k) & 1 == 1 {
            r ^= BETA_POW[k];
        }
        k += 1;
    }
    r
}

/// The inverse isomorphism, as a table (compile time only).
const PHI_INV: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut x = 0;
    while x < 256 {
        t[phi(x as u8) as usize] = x as u8;
        x += 1;
    }
    t
};

const fn phi_inv(y: u8) -> u8 {
    PHI_INV[y as usize]
}

/// Standard byte -> state byte (`i` high nibble, `k` low nibble).
const fn to_state(x: u8) -> u8 {
    let c = phi(x);
    let (c1, c0) = (c >> 4, c & 15);
    ((c1 ^ c0) << 4) | c1
}

/// State byte -> standard byte.
const fn from_state(y: u8) -> u8 {
    let (i, k) = (y >> 4, y & 15);
    phi_inv((k << 4) | (i ^ k))
}

/// The tower element `u t + v t'` as a standard byte.
const fn elem(u: u8, v: u8) -> u8 {
    phi_inv(((u ^ v) << 4) | v)
}

/// Share of the inverse carried by `io` (see the module comment).
const fn from_io(io: u8) -> u8 {
    let w = inv4(io);
    elem(mul4(ZETA, w), mul4(ZETA ^ 1, w))
}

/// Share of the inverse carried by `jo`.
const fn from_jo(jo: u8) -> u8 {
    let w = inv4(jo);
    elem(mul4(ZETA ^ 1, w), mul4(ZETA, w))
}

/// Linear part of the S-box's affine map.
const fn aff(x: u8) -> u8 {
    x ^ x.rotate_left(1) ^ x.rotate_left(2) ^ x.rotate_left(3) ^ x.rotate_left(4)
}

/// Inverse of [`aff`].
const fn aff_inv(y: u8) -> u8 {
    y.rotate_left(1) ^ y.rotate_left(3) ^ y.rotate_left(6)
}

const fn gmul(a: u8, b: u8) -> u8 {
    let (mut a, mut b, mut r) = (a, b, 0u8);
    while b != 0 {
        if b & 1 == 1 {
            r ^= a;
        }
        a = (a << 1) ^ (0x1b * (a >> 7));
        b >>= 1;
    }
    r
}

/// Output map applied after the inversion share.
#[derive(Clone, Copy)]
enum Out {
    /// `to_state(m * aff(x))`
    Enc(u8),
    /// `aff(x)` in the standard basis (last round).
    EncLast,
    /// `to_state(aff_inv(m * x))`
    Dec(u8),
    /// `x` in the standard basis (last round).
    DecLast,
}

const fn out(o: Out, x: u8) -> u8 {
    match o {
        Out::Enc(m) => to_state(gmul(m, aff(x))),
        Out::EncLast => aff(x),
        Out::Dec(m) => to_state(aff_inv(gmul(m, x))),
        Out::DecLast => x,
    }
}

/// A pair of output tables (indexed by `io` and by `jo`).
const fn out_tables(o: Out) -> [[u8; 16]; 2] {
    let mut t = [[0u8; 16]; 2];
    let mut n = 1;
    while n < 16 {
        t[0][n] = out(o, from_io(n as u8));
        t[1][n] = out(o, from_jo(n as u8));
        n += 1;
    }
    t
}

/// A GF(2)-linear byte map as nibble tables (`lo[x & 15] ^ hi[x >> 4]`).
const fn lin_tables(f: Lin) -> [[u8; 16]; 2] {
    let mut t = [[0u8; 16]; 2];
    let mut n = 0;
    while n < 16 {
        t[0][n] = f.apply(n as u8);
        t[1][n] = f.apply((n as u8) << 4);
        n += 1;
    }
    t
}

/// The GF(2)-linear byte maps used as input/output conversions.
#[derive(Clone, Copy)]
enum Lin {
    /// standard -> encryption state basis
    ToState,
    /// standard -> decryption state basis (`to_state o aff_inv`)
    DecIn,
    /// encryption state basis -> standard
    FromState,
}

impl Lin {
    const fn apply(self, x: u8) -> u8 {
        match self {
            Lin::ToState => to_state(x),
            Lin::DecIn => to_state(aff_inv(x)),
            Lin::FromState => from_state(x),
        }
    }
}

/// Every constant vpaes needs.
pub(super) struct Tables {
    /// `1/x` in GF(16), `0x80` for `x = 0`.
    inv: [u8; 16],
    /// `a/x`, `0x80` for `x = 0`.
    ak: [u8; 16],
    /// Encryption: S-box share (`[io table, jo table]`), its double, and
    /// the last round's (standard basis).
    sb1: [[u8; 16]; 2],
    sb2: [[u8; 16]; 2],
    sbo: [[u8; 16]; 2],
    /// Decryption: InvMixColumns factors 9, 11, 13, 14 and the last round.
    db9: [[u8; 16]; 2],
    dbb: [[u8; 16]; 2],
    dbd: [[u8; 16]; 2],
    dbe: [[u8; 16]; 2],
    dbo: [[u8; 16]; 2],
    /// Input maps (standard -> state basis) for encryption and decryption,
    /// and standard <- encryption state basis (key conversion).
    ipt: [[u8; 16]; 2],
    dipt: [[u8; 16]; 2],
    #[cfg_attr(not(feature = "hybrid"), allow(dead_code))]
    opt: [[u8; 16]; 2],
    /// ShiftRows and InvShiftRows.
    sr: [u8; 16],
    isr: [u8; 16],
    /// `rot_k o ShiftRows` and `rot_k o InvShiftRows` for k = 1, 2, 3, where
    /// `rot_k` moves row `r + k` to row `r` in each column: MixColumns
    /// shuffles with the round's (Inv)ShiftRows folded in.
    esr: [[u8; 16]; 3],
    dsr: [[u8; 16]; 3],
}

impl Tables {
    const fn derive() -> Self {
        let mut inv = [0x80u8; 16];
        let mut ak = [0x80u8; 16];
        let a = inv4(ZETA);
        let mut n = 1;
        while n < 16 {
            inv[n] = inv4(n as u8);
            ak[n] = mul4(a, inv4(n as u8));
            n += 1;
        }
        let mut sr = [0u8; 16];
        let mut isr = [0u8; 16];
        let mut esr = [[0u8; 16]; 3];
        let mut dsr = [[0u8; 16]; 3];
        let mut p = 0;
        while p < 16 {
            let (c, r) = (p / 4, p % 4);
            // ShiftRows: new (r, c) = old (r, c + r).
            sr[p] = (4 * ((c + r) % 4) + r) as u8;
            isr[p] = (4 * ((c + 4 - r) % 4) + r) as u8;
            p += 1;
        }
        let mut p = 0;
        while p < 16 {
            let (c, r) = (p / 4, p % 4);
            let mut k = 1;
            while k < 4 {
                let q = 4 * c + (r + k) % 4;
                esr[k - 1][p] = sr[q];
                dsr[k - 1][p] = isr[q];
                k += 1;
            }
            p += 1;
        }
        Tables {
            inv,
            ak,
            sb1: out_tables(Out::Enc(1)),
            sb2: out_tables(Out::Enc(2)),
            sbo: out_tables(Out::EncLast),
            db9: out_tables(Out::Dec(9)),
            dbb: out_tables(Out::Dec(11)),
            dbd: out_tables(Out::Dec(13)),
            dbe: out_tables(Out::Dec(14)),
            dbo: out_tables(Out::DecLast),
            ipt: lin_tables(Lin::ToState),
            dipt: lin_tables(Lin::DecIn),
            opt: lin_tables(Lin::FromState),
            sr,
            isr,
            esr,
            dsr,
        }
    }
}

pub(super) static TABLES: Tables = Tables::derive();

// ---------------------------------------------------------------------
// The vector code, for one block per 128-bit register (SSSE3) or two
// blocks in one 256-bit register (AVX2: every table and round key in both
// lanes; `vpshufb` looks up within each lane), written once over [`Lanes`].

#[inline(always)]
fn ld(t: &[u8; 16]) -> __m128i {
    // SAFETY: 16 readable bytes, unaligned load (SSE2).
    unsafe { _mm_loadu_si128(t.as_ptr().cast()) }
}

/// `lo[x & 15] ^ hi[x >> 4]` on every byte.
///
/// # Safety
/// [`Lanes`]' contract.
#[inline(always)]
unsafe fn lin<L: Lanes>(t: &[[u8; 16]; 2], x: L) -> L {
    // SAFETY: the caller's contract.
    unsafe {
        let m = L::splat(0x0f);
        let lo = x.and(m);
        let hi = x.srl4().and(m);
        L::tab(&t[0]).shuf(lo).xor(L::tab(&t[1]).shuf(hi))
    }
}

/// The two inversion shares `(io, jo)` of every byte.
///
/// # Safety
/// [`Lanes`]' contract.
#[inline(always)]
unsafe fn inv_parts<L: Lanes>(x: L) -> (L, L) {
    // SAFETY: the caller's contract.
    unsafe {
        let t = &TABLES;
        let (inv, ak) = (L::tab(&t.inv), L::tab(&t.ak));
        let m = L::splat(0x0f);
        let k = x.and(m);
        let i = x.srl4().and(m);
        let a = ak.shuf(k);
        let j = k.xor(i);
        let iak = inv.shuf(i).xor(a);
        let jak = inv.shuf(j).xor(a);
        let io = inv.shuf(iak).xor(j);
        let jo = inv.shuf(jak).xor(i);
        (io, jo)
    }
}

/// An output table pair applied to the shares.
///
/// # Safety
/// [`Lanes`]' contract.
#[inline(always)]
unsafe fn outp<L: Lanes>(t: &[[u8; 16]; 2], io: L, jo: L) -> L {
    // SAFETY: the caller's contract.
    unsafe { L::tab(&t[0]).shuf(io).xor(L::tab(&t[1]).shuf(jo)) }
}

/// Encrypt `N` registers of blocks (interleaved). `rk`: key in encryption
/// state form.
///
/// # Safety
/// [`Lanes`]' contract.
#[inline(always)]
unsafe fn enc_n<L: Lanes, const NR: usize, const N: usize>(rk: &[[u8; 16]; 15], x: &mut [L; N]) {
    // SAFETY: the caller's contract.
    unsafe {
        let t = &TABLES;
        let sr = L::tab(&t.sr);
        let [p1, p2, p3] = [L::tab(&t.esr[0]), L::tab(&t.esr[1]), L::tab(&t.esr[2])];
        for v in x.iter_mut() {
            *v = lin(&t.ipt, *v).xor(L::tab(&rk[0]));
        }
        for r in 1..NR {
            let k = L::tab(&rk[r]);
            for v in x.iter_mut() {
                let (io, jo) = inv_parts(*v);
                let s = outp(&t.sb1, io, jo);
                let s2 = outp(&t.sb2, io, jo);
                // 3 s = 2 s ^ s: one XOR, not a third lookup pair (the
                // shuffle port is the limit even for one block).
                let s3 = s2.xor(s);
                // ShiftRows, then MixColumns 2 a_r + 3 a_{r+1} + a_{r+2} +
                // a_{r+3} as four independent shuffles (short dependency
                // chain).
                let a = s2.shuf(sr).xor(k).xor(s3.shuf(p1));
                let b = s.shuf(p2).xor(s.shuf(p3));
                *v = a.xor(b);
            }
        }
        let k = L::tab(&rk[NR]);
        for v in x.iter_mut() {
            let (io, jo) = inv_parts(v.shuf(sr));
            *v = outp(&t.sbo, io, jo).xor(k);
        }
    }
}

/// Decrypt `N` registers of blocks (interleaved). `rk`: key in decryption
/// state form.
///
/// # Safety
/// [`Lanes`]' contract.
#[inline(always)]
unsafe fn dec_n<L: Lanes, const NR: usize, const N: usize>(rk: &[[u8; 16]; 15], x: &mut [L; N]) {
    // SAFETY: the caller's contract.
    unsafe {
        let t = &TABLES;
        let isr = L::tab(&t.isr);
        let [p1, p2, p3] = [L::tab(&t.dsr[0]), L::tab(&t.dsr[1]), L::tab(&t.dsr[2])];
        for v in x.iter_mut() {
            *v = lin(&t.dipt, *v).xor(L::tab(&rk[0]));
        }
        for r in 1..NR {
            let k = L::tab(&rk[r]);
            for v in x.iter_mut() {
                let (io, jo) = inv_parts(*v);
                // InvShiftRows, then InvMixColumns
                // 14 w_r + 11 w_{r+1} + 13 w_{r+2} + 9 w_{r+3}.
                let a = outp(&t.dbe, io, jo)
                    .shuf(isr)
                    .xor(outp(&t.dbb, io, jo).shuf(p1));
                let b = outp(&t.dbd, io, jo)
                    .shuf(p2)
                    .xor(outp(&t.db9, io, jo).shuf(p3));
                *v = a.xor(k).xor(b);
            }
        }
        let k = L::tab(&rk[NR]);
        for v in x.iter_mut() {
            let (io, jo) = inv_parts(v.shuf(isr));
            *v = outp(&t.dbo, io, jo).xor(k);
        }
    }
}

/// [`enc_n`] on 128-bit registers (one block each).
#[target_feature(enable = "ssse3")]
fn enc_x<const NR: usize, const N: usize>(rk: &[[u8; 16]; 15], x: &mut [__m128i; N]) {
    // SAFETY: SSSE3 is enabled here.
    unsafe { enc_n::<__m128i, NR, N>(rk, x) }
}

/// [`dec_n`] on 128-bit registers (one block each).
#[target_feature(enable = "ssse3")]
fn dec_x<const NR: usize, const N: usize>(rk: &[[u8; 16]; 15], x: &mut [__m128i; N]) {
    // SAFETY: SSSE3 is enabled here.
    unsafe { dec_n::<__m128i, NR, N>(rk, x) }
}

/// Two blocks in one 256-bit register through [`enc_n`] (`dec`: through
/// [`dec_n`]): one dependency chain for both, where the 2x SSSE3 form
/// runs two.
#[target_feature(enable = "avx2")]
fn crypt_y<const NR: usize>(rk: &[[u8; 16]; 15], b: &[Block; 2], out: &mut [Block; 2], dec: bool) {
    // SAFETY: AVX2 is enabled here; `b` and `out` are 32 bytes each
    // (unaligned loads/stores).
    unsafe {
        let mut v = [_mm256_loadu_si256(b.as_ptr().cast())];
        if dec {
            dec_n::<__m256i, NR, 1>(rk, &mut v);
        } else {
            enc_n::<__m256i, NR, 1>(rk, &mut v);
        }
        _mm256_storeu_si256(out.as_mut_ptr().cast(), v[0]);
    }
}

/// Round keys in the state bases.
#[target_feature(enable = "ssse3")]
fn expand_keys<const NR: usize>(ks: &Schedule<NR>) -> Key<NR> {
    let t = &TABLES;
    let mut enc = [[0u8; 16]; 15];
    let mut dec = [[0u8; 16]; 15];
    let mut d = ks.dec();
    let c63 = _mm_set1_epi8(0x63);
    let st = |tab: &[[u8; 16]; 2], v: __m128i, out: &mut [u8; 16]| {
        // SAFETY: 16 writable bytes, unaligned store; SSSE3 is enabled
        // here (`lin`'s contract).
        unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), lin(tab, v)) }
    };
    for r in 0..=NR {
        let e = ld(&ks.enc[r]);
        let dk = ld(&d[r]);
        if r == 0 {
            st(&t.ipt, e, &mut enc[0]);
        } else if r < NR {
            st(&t.ipt, _mm_xor_si128(e, c63), &mut enc[r]);
        } else {
            // SAFETY: 16 writable bytes.
            unsafe { _mm_storeu_si128(enc[r].as_mut_ptr().cast(), _mm_xor_si128(e, c63)) };
        }
        if r < NR {
            st(&t.dipt, _mm_xor_si128(dk, c63), &mut dec[r]);
        } else {
            dec[r] = d[r];
        }
    }
    wipe_blocks(&mut d);
    Key {
        enc,
        dec,
        pair256: false,
    }
}

/// The standard encryption round keys, recovered from the vpaes form
/// (constant time; for the bsaes key conversion).
#[cfg_attr(not(feature = "hybrid"), allow(dead_code))]
pub(super) fn standard_enc<const NR: usize>(k: &Key<NR>, out: &mut [[u8; 16]; 15]) {
    // SAFETY: a vpaes `Key` exists only after the SSSE3 check (token).
    unsafe { standard_enc_ssse3(k, out) }
}

#[cfg_attr(not(feature = "hybrid"), allow(dead_code))]
#[target_feature(enable = "ssse3")]
fn standard_enc_ssse3<const NR: usize>(k: &Key<NR>, out: &mut [[u8; 16]; 15]) {
    let t = &TABLES;
    let c63 = _mm_set1_epi8(0x63);
    for r in 0..=NR {
        let v = ld(&k.enc[r]);
        let s = if r == NR {
            v
        } else {
            // SAFETY: SSSE3 is enabled here (`lin`'s contract).
            unsafe { lin(&t.opt, v) }
        };
        let s = if r == 0 { s } else { _mm_xor_si128(s, c63) };
        // SAFETY: 16 writable bytes, unaligned store.
        unsafe { _mm_storeu_si128(out[r].as_mut_ptr().cast(), s) };
    }
}

/// The vpaes key form: encryption and decryption round keys, each in the
/// state basis of its direction (constant 0x63 folded in).
#[derive(Clone)]
pub(crate) struct Key<const NR: usize> {
    enc: [[u8; 16]; 15],
    dec: [[u8; 16]; 15],
    /// Pairs of blocks go through one 256-bit register (AVX2, checked when
    /// the key was made; not secret).
    pair256: bool,
}

impl<const NR: usize> Drop for Key<NR> {
    fn drop(&mut self) {
        wipe_blocks(&mut self.enc);
        wipe_blocks(&mut self.dec);
    }
}

impl<const NR: usize> ZeroizeOnDrop for Key<NR> {}

/// Proof that this CPU has SSSE3 (`pair256`: and AVX2, allowed by
/// [`super::simd_lanes`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Vpaes {
    pair256: bool,
}

/// Load `N` blocks, run `f` (an SSSE3 function), store them (all loads
/// before all stores, so in-place buffers work).
#[inline(always)]
fn run<const N: usize>(inp: &[Block], out: &mut [Block], f: impl FnOnce(&mut [__m128i; N])) {
    let mut v: [__m128i; N] = core::array::from_fn(|i| ld(inp[i].as_ref()));
    f(&mut v);
    for i in 0..N {
        // SAFETY: 16 writable bytes, unaligned store.
        unsafe { _mm_storeu_si128(out[i].as_mut_ptr().cast(), v[i]) };
    }
}

impl SingleBlock for Vpaes {
    type Token = Vpaes;
    type Key<const NR: usize> = Key<NR>;

    fn token() -> Option<Vpaes> {
        cpu_ssse3::get().then(|| Vpaes {
            pair256: cpu_avx2::get() && super::simd_lanes() >= super::Lanes::X2,
        })
    }

    fn expand<const NR: usize>(t: Vpaes, ks: &Schedule<NR>) -> Key<NR> {
        // SAFETY: the token proves SSSE3.
        let mut k = unsafe { expand_keys(ks) };
        k.pair256 = t.pair256;
        k
    }

    #[inline(always)]
    fn encrypt1<const NR: usize>(k: &Key<NR>, mut b: InOut<'_, '_, Block>) {
        let i = *b.get_in();
        // SAFETY: a vpaes `Key` exists only after the SSSE3 check (token).
        run::<1>(
            core::slice::from_ref(&i),
            core::slice::from_mut(b.get_out()),
            |v| unsafe { enc_x::<NR, 1>(&k.enc, v) },
        );
    }

    #[inline(always)]
    fn encrypt2<const NR: usize>(k: &Key<NR>, mut b: InOut<'_, '_, Pair>) {
        let i = *b.get_in();
        if k.pair256 {
            // SAFETY: `pair256` is set only after the AVX2 check (token).
            unsafe { crypt_y::<NR>(&k.enc, &i.0, &mut b.get_out().0, false) };
        } else {
            // SAFETY: a vpaes `Key` exists only after the SSSE3 check (token).
            run::<2>(&i, b.get_out(), |v| unsafe { enc_x::<NR, 2>(&k.enc, v) });
        }
    }

    #[inline(always)]
    fn decrypt1<const NR: usize>(k: &Key<NR>, mut b: InOut<'_, '_, Block>) {
        let i = *b.get_in();
        // SAFETY: a vpaes `Key` exists only after the SSSE3 check (token).
        run::<1>(
            core::slice::from_ref(&i),
            core::slice::from_mut(b.get_out()),
            |v| unsafe { dec_x::<NR, 1>(&k.dec, v) },
        );
    }

    #[inline(always)]
    fn decrypt2<const NR: usize>(k: &Key<NR>, mut b: InOut<'_, '_, Pair>) {
        let i = *b.get_in();
        if k.pair256 {
            // SAFETY: `pair256` is set only after the AVX2 check (token).
            unsafe { crypt_y::<NR>(&k.dec, &i.0, &mut b.get_out().0, true) };
        } else {
            // SAFETY: a vpaes `Key` exists only after the SSSE3 check (token).
            run::<2>(&i, b.get_out(), |v| unsafe { dec_x::<NR, 2>(&k.dec, v) });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gf_inv(x: u8) -> u8 {
        (1..=255u8).find(|&y| gmul(x, y) == 1).unwrap_or(0)
    }

    #[test]
    fn field_maps() {
        for x in 0..=255u8 {
            assert_eq!(from_state(to_state(x)), x);
            assert_eq!(aff_inv(aff(x)), x);
        }
        for a in 0..=255u8 {
            for b in [1u8, 2, 3, 0x53, 0xca, 0xff] {
                assert_eq!(phi(gmul(a, b)), tmul(phi(a), phi(b)));
            }
        }
    }

    /// The nibble-share inversion reproduces GF(2^8) inversion (emulating
    /// `pshufb`'s zeroing of indices with bit 7 set).
    #[test]
    fn inversion() {
        let t = &TABLES;
        let sh = |tab: &[u8; 16], i: u8| {
            if i & 0x80 != 0 {
                0
            } else {
                tab[(i & 15) as usize]
            }
        };
        for x in 0..=255u8 {
            let y = to_state(x);
            let (i, k) = (y >> 4, y & 15);
            let a = sh(&t.ak, k);
            let j = i ^ k;
            let io = sh(&t.inv, sh(&t.inv, i) ^ a) ^ j;
            let jo = sh(&t.inv, sh(&t.inv, j) ^ a) ^ i;
            assert_eq!(sh(&t.dbo[0], io) ^ sh(&t.dbo[1], jo), gf_inv(x), "x={x:#x}");
        }
    }
}
