//! The standard FIPS-197 key schedule, in constant time.
//!
//! Every backend derives its own key form from this one: the encryption
//! round keys as bytes (FIPS-197 section 5.2) and the round keys of the
//! equivalent inverse cipher (section 5.3.5: reversed, with InvMixColumns
//! applied to rounds 1..Nr-1), which AES-NI / ARMv8 style decryption needs.
//!
//! SubWord goes through the bitsliced S-box circuit (one byte per bit
//! lane), so no table is ever indexed by key material. Cost: one bitsliced
//! S-box evaluation per SubWord, negligible next to key setup elsewhere.

use crate::soft::bitslice;
use zeroize::Zeroize;

/// Round keys of AES with `NR` rounds (`NR + 1` keys, stored in a
/// maximum-size array so one type serves all key sizes).
#[derive(Clone)]
pub(crate) struct Schedule<const NR: usize> {
    /// Encryption round keys, FIPS-197 byte order.
    pub(crate) enc: [[u8; 16]; 15],
}

impl<const NR: usize> Zeroize for Schedule<NR> {
    fn zeroize(&mut self) {
        self.enc.zeroize();
    }
}

impl<const NR: usize> Drop for Schedule<NR> {
    fn drop(&mut self) {
        self.zeroize();
    }
}

/// SubWord: the S-box on each byte of `w`.
pub(crate) fn sub_word(w: u32) -> u32 {
    // Bit plane k: bit j is bit k of byte j.
    let mut q = [0u32; 8];
    for k in 0..8 {
        for j in 0..4 {
            q[k] |= ((w >> (8 * j + k)) & 1) << j;
        }
    }
    bitslice::sbox(&mut q);
    let mut out = 0u32;
    for k in 0..8 {
        for j in 0..4 {
            out |= ((q[k] >> j) & 1) << (8 * j + k);
        }
    }
    q.zeroize();
    out
}

/// Multiply by `x` in GF(2^8), branch-free.
#[inline]
pub(crate) fn xtime(b: u8) -> u8 {
    (b << 1) ^ (0x1b & 0u8.wrapping_sub(b >> 7))
}

/// InvMixColumns of one 16-byte state (4 columns), branch-free.
pub(crate) fn inv_mix_columns(s: &[u8; 16]) -> [u8; 16] {
    let mut out = [0u8; 16];
    for c in 0..4 {
        let a = &s[4 * c..4 * c + 4];
        for r in 0..4 {
            let (a0, a1, a2, a3) = (a[r], a[(r + 1) % 4], a[(r + 2) % 4], a[(r + 3) % 4]);
            // 0e a0 ^ 0b a1 ^ 0d a2 ^ 09 a3
            let x2 = |v: u8| xtime(v);
            let x4 = |v: u8| xtime(xtime(v));
            let x8 = |v: u8| xtime(xtime(xtime(v)));
            out[4 * c + r] = (x8(a0) ^ x4(a0) ^ x2(a0))
                ^ (x8(a1) ^ x2(a1) ^ a1)
                ^ (x8(a2) ^ x4(a2) ^ a2)
                ^ (x8(a3) ^ a3);
        }
    }
    out
}

impl<const NR: usize> Schedule<NR> {
    /// Key length in 32-bit words.
    pub(crate) const NK: usize = NR - 6;

    /// Expand `key` (`4 * NK` bytes).
    pub(crate) fn new(key: &[u8]) -> Self {
        debug_assert_eq!(key.len(), 4 * Self::NK);
        let nk = Self::NK;
        let mut w = [0u32; 60];
        for i in 0..nk {
            w[i] = u32::from_be_bytes([key[4 * i], key[4 * i + 1], key[4 * i + 2], key[4 * i + 3]]);
        }
        let mut rcon: u8 = 1;
        for i in nk..4 * (NR + 1) {
            let mut t = w[i - 1];
            if i % nk == 0 {
                t = sub_word(t.rotate_left(8)) ^ ((rcon as u32) << 24);
                rcon = xtime(rcon);
            } else if nk > 6 && i % nk == 4 {
                t = sub_word(t);
            }
            w[i] = w[i - nk] ^ t;
        }
        let mut enc = [[0u8; 16]; 15];
        for (r, rk) in enc.iter_mut().enumerate().take(NR + 1) {
            for c in 0..4 {
                rk[4 * c..4 * c + 4].copy_from_slice(&w[4 * r + c].to_be_bytes());
            }
        }
        w.zeroize();
        Schedule { enc }
    }

    /// Round keys of the equivalent inverse cipher: `dec[0] = enc[NR]`,
    /// `dec[i] = InvMixColumns(enc[NR - i])`, `dec[NR] = enc[0]`.
    #[allow(dead_code, reason = "used by hardware backends and tests")]
    pub(crate) fn dec(&self) -> [[u8; 16]; 15] {
        let mut dec = [[0u8; 16]; 15];
        dec[0] = self.enc[NR];
        for i in 1..NR {
            dec[i] = inv_mix_columns(&self.enc[NR - i]);
        }
        dec[NR] = self.enc[0];
        dec
    }

    /// Round key `i`.
    #[inline(always)]
    pub(crate) fn rk(&self, i: usize) -> &[u8; 16] {
        &self.enc[i]
    }
}
