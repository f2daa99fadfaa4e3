//! Single-block AES with NEON table lookups in registers (the vpaes side of
//! the aarch64 hybrid).
//!
//! Technique: vector-permute AES in the sense of M. Hamburg ("Accelerating
//! AES with Vector Permute Instructions", CHES 2009): every table lookup is
//! a byte permute (`tbl`) from registers, never a load from a
//! data-dependent address. Hamburg's design splits bytes into nibbles
//! because `pshufb` (and armv7's `vtbl`) only index 16 (32) bytes; AArch64's
//! `tbl`/`tbx` index up to 4 registers (64 bytes) and AArch64 has 32 vector
//! registers, so here the whole 256-byte S-box lives in 16 registers and
//! SubBytes is one `tbl` + three `tbx` on 64-byte quarters (the approach of
//! Linux's arm64 `aes-neon.S`, A. Biesheuvel). That costs fewer
//! instructions than the nibble decomposition (which needs ~31 per round
//! and block on aarch64, e.g. BoringSSL's vpaes-armv8). Written from the
//! AES definition (FIPS-197); the S-box tables are computed at compile
//! time below.
//!
//! Constant time: `tbl`/`tbx` read registers only; out-of-range indices
//! select "keep"/zero in hardware, with no data-dependent timing. No
//! branches on data or key.
//!
//! Cost per block and round: ShiftRows 1 `tbl`, SubBytes 7 (`tbl`, 3 x
//! `sub` + `tbx`), MixColumns 9, AddRoundKey 1: ~18 instructions, ~12
//! instructions/byte for AES-128 including loads. Decryption (straight
//! inverse cipher) adds ~11 per round for InvMixColumns.
//!
//! Key form: the FIPS-197 encryption round keys (bytes), used for both
//! directions; wiped on drop.

use super::neon::*;
use crate::{
    Block,
    hybrid::{Pair, SingleBlock},
    perm,
    schedule::Schedule,
};
use cipher::inout::InOut;
use zeroize::ZeroizeOnDrop;

use super::sbox::SBOXES;

const SR: [u8; 16] = perm::shift_rows(false);
const INV_SR: [u8; 16] = perm::shift_rows(true);
/// Rotate each column by one row: (r, c) <- (r + 1, c).
const ROT1: [u8; 16] = perm::rotate_rows(1);

/// A 256-byte table as four 64-byte register groups.
#[derive(Clone, Copy)]
struct Table([uint8x16x4_t; 4]);

impl Table {
    #[inline(always)]
    fn load(t: &[u8; 256]) -> Self {
        Table(core::array::from_fn(|q| {
            let r = |i: usize| {
                let s: &[u8; 16] = t[64 * q + 16 * i..64 * q + 16 * i + 16]
                    .try_into()
                    .unwrap_or(&[0; 16]);
                load(s)
            };
            uint8x16x4_t(r(0), r(1), r(2), r(3))
        }))
    }

    /// Look up every byte of `x` (constant time: register permutes only).
    #[inline(always)]
    fn sub(&self, x: uint8x16_t, c64: uint8x16_t) -> uint8x16_t {
        let x1 = vsubq_u8(x, c64);
        let x2 = vsubq_u8(x1, c64);
        let x3 = vsubq_u8(x2, c64);
        let mut y = vqtbl4q_u8(self.0[0], x);
        y = vqtbx4q_u8(y, self.0[1], x1);
        y = vqtbx4q_u8(y, self.0[2], x2);
        vqtbx4q_u8(y, self.0[3], x3)
    }
}

/// Constants of one call, loaded once.
#[derive(Clone, Copy)]
struct Consts {
    table: Table,
    sr: uint8x16_t,
    rot1: uint8x16_t,
    c64: uint8x16_t,
    c1b: uint8x16_t,
}

impl Consts {
    #[inline(always)]
    fn new(inverse: bool) -> Self {
        Consts {
            table: Table::load(if inverse { &SBOXES.1 } else { &SBOXES.0 }),
            sr: load(if inverse { &INV_SR } else { &SR }),
            rot1: load(&ROT1),
            c64: vdupq_n_u8(64),
            c1b: vdupq_n_u8(0x1b),
        }
    }

    /// Multiply every byte by `x` in GF(2^8).
    #[inline(always)]
    fn xtime(&self, t: uint8x16_t) -> uint8x16_t {
        // 0xff where the top bit is set, as `sshr #7`.
        let m = vtstq_u8(t, vdupq_n_u8(0x80));
        veorq_u8(vaddq_u8(t, t), vandq_u8(m, self.c1b))
    }

    #[inline(always)]
    fn mix_columns(&self, a: uint8x16_t) -> uint8x16_t {
        // out_r = 2 (a_r ^ a_{r+1}) ^ a_{r+1} ^ (a_{r+2} ^ a_{r+3})
        let r1 = vqtbl1q_u8(a, self.rot1);
        let t = veorq_u8(a, r1);
        veorq_u8(veorq_u8(self.xtime(t), r1), rot16_in_words(t))
    }

    #[inline(always)]
    fn inv_mix_columns(&self, a: uint8x16_t) -> uint8x16_t {
        // InvMixColumns(a) = MixColumns(a ^ 4 (a ^ a_{r+2})) (Rijndael
        // book, section 4.1.3).
        let u = veorq_u8(a, rot16_in_words(a));
        self.mix_columns(veorq_u8(a, self.xtime(self.xtime(u))))
    }
}

#[inline(always)]
fn encrypt_n<const NR: usize, const N: usize>(rk: &[[u8; 16]; 15], x: &mut [uint8x16_t; N]) {
    let c = Consts::new(false);
    let k = load(&rk[0]);
    for v in x.iter_mut() {
        *v = veorq_u8(*v, k);
    }
    for i in 1..=NR {
        let k = load(&rk[i]);
        for v in x.iter_mut() {
            // ShiftRows commutes with SubBytes; doing it first lets the
            // permute run on the round input.
            let s = c.table.sub(vqtbl1q_u8(*v, c.sr), c.c64);
            *v = veorq_u8(if i < NR { c.mix_columns(s) } else { s }, k);
        }
    }
}

#[inline(always)]
fn decrypt_n<const NR: usize, const N: usize>(rk: &[[u8; 16]; 15], x: &mut [uint8x16_t; N]) {
    let c = Consts::new(true);
    let k = load(&rk[NR]);
    for v in x.iter_mut() {
        *v = veorq_u8(*v, k);
    }
    for i in (0..NR).rev() {
        let k = load(&rk[i]);
        for v in x.iter_mut() {
            let s = veorq_u8(c.table.sub(vqtbl1q_u8(*v, c.sr), c.c64), k);
            *v = if i > 0 { c.inv_mix_columns(s) } else { s };
        }
    }
}

/// The vpaes side of the aarch64 hybrid (and the forceable `vpaes`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct NeonVpaes(());

/// Encryption round keys (both directions use them; the schedule wipes
/// itself on drop). Only [`NeonVpaes::expand`] makes one.
#[derive(Clone)]
pub(crate) struct Key<const NR: usize> {
    pub(super) ks: Schedule<NR>,
}

impl<const NR: usize> ZeroizeOnDrop for Key<NR> {}

#[inline(always)]
fn crypt<const N: usize>(b: &mut [uint8x16_t; N], get: impl Fn(usize) -> [u8; 16]) {
    for (i, v) in b.iter_mut().enumerate() {
        *v = load(&get(i));
    }
}

impl SingleBlock for NeonVpaes {
    type Token = NeonVpaes;
    type Key<const NR: usize> = Key<NR>;

    fn token() -> Option<NeonVpaes> {
        // NEON (ASIMD) is part of the aarch64 baseline.
        Some(NeonVpaes(()))
    }

    fn expand<const NR: usize>(_: NeonVpaes, ks: &Schedule<NR>) -> Key<NR> {
        Key { ks: ks.clone() }
    }

    #[inline(always)]
    fn encrypt1<const NR: usize>(k: &Key<NR>, b: InOut<'_, '_, Block>) {
        run1::<NR, false>(k, b)
    }

    #[inline(always)]
    fn encrypt2<const NR: usize>(k: &Key<NR>, b: InOut<'_, '_, Pair>) {
        run2::<NR, false>(k, b)
    }

    #[inline(always)]
    fn decrypt1<const NR: usize>(k: &Key<NR>, b: InOut<'_, '_, Block>) {
        run1::<NR, true>(k, b)
    }

    #[inline(always)]
    fn decrypt2<const NR: usize>(k: &Key<NR>, b: InOut<'_, '_, Pair>) {
        run2::<NR, true>(k, b)
    }
}

/// `N` states through the cipher (`DEC`: the inverse cipher).
#[inline(always)]
fn crypt_n<const NR: usize, const N: usize, const DEC: bool>(k: &Key<NR>, x: &mut [uint8x16_t; N]) {
    if DEC {
        decrypt_n::<NR, N>(&k.ks.enc, x)
    } else {
        encrypt_n::<NR, N>(&k.ks.enc, x)
    }
}

#[inline(always)]
fn run1<const NR: usize, const DEC: bool>(k: &Key<NR>, mut b: InOut<'_, '_, Block>) {
    let mut x = [vdupq_n_u8(0)];
    crypt(&mut x, |_| b.clone_in().into());
    crypt_n::<NR, 1, DEC>(k, &mut x);
    put(b.get_out(), x[0]);
}

#[inline(always)]
fn run2<const NR: usize, const DEC: bool>(k: &Key<NR>, mut b: InOut<'_, '_, Pair>) {
    let mut x = [vdupq_n_u8(0); 2];
    crypt(&mut x, |i| b.get_in()[i].into());
    crypt_n::<NR, 2, DEC>(k, &mut x);
    let out = b.get_out();
    put(&mut out[0], x[0]);
    put(&mut out[1], x[1]);
}

#[inline(always)]
fn put(b: &mut Block, v: uint8x16_t) {
    let o: &mut [u8; 16] = b.as_mut();
    store(o, v);
}

#[cfg(test)]
mod tests {
    #[test]
    fn sbox_values() {
        super::super::sbox::check();
    }
}
