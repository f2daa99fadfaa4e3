//! The standard FIPS-197 key schedule, in constant time.
//!
//! Every backend derives its own key form from this one: the encryption
//! round keys as bytes (FIPS-197 section 5.2) and the round keys of the
//! equivalent inverse cipher (section 5.3.5: reversed, with InvMixColumns
//! applied to rounds 1..Nr-1), which AES-NI / ARMv8 style decryption needs.
//!
//! SubWord goes through the bitsliced S-box circuit (one byte per bit
//! lane), so no table is ever indexed by key material; InvMixColumns is
//! branch-free byte arithmetic. Where the CPU has AES instructions (and the
//! crate its hardware backend), both are one instruction instead
//! (`aeskeygenassist` / `aesimc` on x86, `aese` / `aesimc` on aarch64;
//! constant time as those instructions are): [`KeyOps`], implemented by
//! those backends on their capability tokens. Cost per AES-128
//! schedule with decryption keys: about 6,500 instructions in software
//! (10 SubWords at about 440, 9 InvMixColumns at about 230), a few hundred
//! with AES-NI.

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
        // 16 bytes per volatile store (`Zeroize` on byte arrays stores
        // byte by byte).
        crate::hybrid::wipe_blocks(&mut self.enc);
    }
}

impl<const NR: usize> Drop for Schedule<NR> {
    fn drop(&mut self) {
        self.zeroize();
    }
}

/// The two steps of the schedule that AES instructions do in one
/// instruction each. A backend with AES instructions implements this on
/// its capability token (so only a CPU-checked value reaches the
/// instructions, and the target-feature code stays in that backend's
/// module); every other backend schedules with [`SoftOps`].
pub(crate) trait KeyOps: Copy {
    /// SubWord (byte-wise, so the byte order of `w` does not matter).
    fn sub_word(self, w: u32) -> u32;
    /// InvMixColumns of one state (FIPS-197 byte order).
    fn inv_mix_columns(self, s: &[u8; 16]) -> [u8; 16];
}

/// The software schedule steps: the bitsliced S-box circuit and
/// branch-free InvMixColumns.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SoftOps;

impl KeyOps for SoftOps {
    #[inline]
    fn sub_word(self, w: u32) -> u32 {
        sub_word(w)
    }
    #[inline]
    fn inv_mix_columns(self, s: &[u8; 16]) -> [u8; 16] {
        inv_mix_columns(s)
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
pub(crate) const fn xtime(b: u8) -> u8 {
    (b << 1) ^ (0x1b & 0u8.wrapping_sub(b >> 7))
}

/// The round constants (FIPS-197 section 5.2): `RCON[i] = x^i` in GF(2^8);
/// AES-128 uses all ten, AES-192 eight, AES-256 seven.
pub(crate) const RCON: [u8; 10] = {
    let mut r = [1u8; 10];
    let mut i = 1;
    while i < 10 {
        r[i] = xtime(r[i - 1]);
        i += 1;
    }
    r
};

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

    /// All-zero round keys, for [`expand_with`] to fill in place.
    pub(crate) const fn zeroed() -> Self {
        Schedule { enc: [[0; 16]; 15] }
    }

    /// Expand `key` (`4 * NK` bytes) in software (the reference the
    /// AES-instruction schedules are tested against).
    #[cfg(test)]
    #[allow(dead_code, reason = "the reference of some backends' tests only")]
    pub(crate) fn new(key: &[u8]) -> Self {
        let mut ks = Self::zeroed();
        expand_with::<NR>(SoftOps, key, &mut ks.enc);
        ks
    }

    /// Round keys of the equivalent inverse cipher: `dec[0] = enc[NR]`,
    /// `dec[i] = InvMixColumns(enc[NR - i])`, `dec[NR] = enc[0]`.
    #[allow(dead_code, reason = "used by some backends only")]
    pub(crate) fn dec(&self) -> [[u8; 16]; 15] {
        self.dec_with(SoftOps)
    }

    /// [`Self::dec`] with `ops`' InvMixColumns.
    #[allow(dead_code, reason = "used by some backends only")]
    #[inline(always)]
    pub(crate) fn dec_with(&self, ops: impl KeyOps) -> [[u8; 16]; 15] {
        let mut dec = [[0u8; 16]; 15];
        dec[0] = self.enc[NR];
        for i in 1..NR {
            dec[i] = ops.inv_mix_columns(&self.enc[NR - i]);
        }
        dec[NR] = self.enc[0];
        dec
    }
}

/// Expand `key` (`4 * NK` bytes) with `ops`' SubWord into `enc` (its
/// first `NR + 1` entries; the rest are zeroed), in place so no copy of the
/// round keys is left behind. Inlined, so a backend can compile it with
/// its instructions enabled.
#[inline(always)]
pub(crate) fn expand_with<const NR: usize>(ops: impl KeyOps, key: &[u8], enc: &mut [[u8; 16]; 15]) {
    let nk = Schedule::<NR>::NK;
    assert_eq!(key.len(), 4 * nk, "AES key length");
    let mut w = [0u32; 60];
    for i in 0..nk {
        w[i] = u32::from_be_bytes([key[4 * i], key[4 * i + 1], key[4 * i + 2], key[4 * i + 3]]);
    }
    for i in nk..4 * (NR + 1) {
        let mut t = w[i - 1];
        if i % nk == 0 {
            t = ops.sub_word(t.rotate_left(8)) ^ ((RCON[i / nk - 1] as u32) << 24);
        } else if nk > 6 && i % nk == 4 {
            t = ops.sub_word(t);
        }
        w[i] = w[i - nk] ^ t;
    }
    // Words past round key NR are still zero.
    for (r, rk) in enc.iter_mut().enumerate() {
        for c in 0..4 {
            rk[4 * c..4 * c + 4].copy_from_slice(&w[4 * r + c].to_be_bytes());
        }
    }
    w.zeroize();
}

/// Test helper for the backends' own [`KeyOps`]: `ops` must equal the
/// software steps on every byte value in every byte position, and on
/// InvMixColumns states built from all byte values.
#[cfg(test)]
#[allow(dead_code, reason = "used by the AES-instruction backends' tests")]
pub(crate) fn assert_ops_match_software(ops: impl KeyOps) {
    for b in 0..=255u32 {
        for w in [
            b,
            b << 8,
            b << 16,
            b << 24,
            b * 0x0101_0101,
            b ^ 0xa55a_3cc3,
        ] {
            assert_eq!(ops.sub_word(w), sub_word(w), "SubWord {w:08x}");
        }
    }
    for k in 0..=255u8 {
        let s: [u8; 16] = core::array::from_fn(|i| k.wrapping_mul(31).wrapping_add(i as u8 * 17));
        assert_eq!(
            ops.inv_mix_columns(&s),
            inv_mix_columns(&s),
            "state {s:02x?}"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SubWord(0) = 0x63 per byte (FIPS-197 S-box).
    #[test]
    fn sub_word_of_zero() {
        assert_eq!(sub_word(0), 0x6363_6363);
    }
}
