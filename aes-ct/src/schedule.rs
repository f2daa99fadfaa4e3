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
//! constant time as those instructions are): [`Hw`]. Cost per AES-128
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

/// SubWord and InvMixColumns on the CPU's AES instructions, when it has
/// them (checked once per schedule, cached by `ct_dispatch::x86` or
/// `cpufeatures`).
#[derive(Clone, Copy)]
pub(crate) enum Hw {
    Soft,
    #[cfg(all(any(target_arch = "x86", target_arch = "x86_64"), feature = "aesni"))]
    AesNi,
    #[cfg(all(target_arch = "aarch64", target_feature = "neon", feature = "armv8"))]
    Armv8,
}

impl Hw {
    /// The hardware backends' own CPU checks (cached).
    pub(crate) fn detect() -> Self {
        #[cfg(all(any(target_arch = "x86", target_arch = "x86_64"), feature = "aesni"))]
        if <crate::x86::aesni::AesNi as crate::backend::Engine>::token().is_some() {
            return Hw::AesNi;
        }
        #[cfg(all(target_arch = "aarch64", target_feature = "neon", feature = "armv8"))]
        if <crate::aarch64::armv8::ArmV8 as crate::backend::Engine>::token().is_some() {
            return Hw::Armv8;
        }
        Hw::Soft
    }

    /// SubWord (byte-wise, so the byte order of `w` does not matter).
    #[inline]
    pub(crate) fn sub_word(self, w: u32) -> u32 {
        match self {
            Hw::Soft => sub_word(w),
            // SAFETY: `AesNi` is only made after the CPU check.
            #[cfg(all(any(target_arch = "x86", target_arch = "x86_64"), feature = "aesni"))]
            Hw::AesNi => unsafe { hw::sub_word_aesni(w) },
            // SAFETY: `Armv8` is only made after the CPU check.
            #[cfg(all(target_arch = "aarch64", target_feature = "neon", feature = "armv8"))]
            Hw::Armv8 => unsafe { hw::sub_word_armv8(w) },
        }
    }

    /// InvMixColumns of one state (FIPS-197 byte order).
    #[inline]
    pub(crate) fn inv_mix_columns(self, s: &[u8; 16]) -> [u8; 16] {
        match self {
            Hw::Soft => inv_mix_columns(s),
            // SAFETY: `AesNi` is only made after the CPU check.
            #[cfg(all(any(target_arch = "x86", target_arch = "x86_64"), feature = "aesni"))]
            Hw::AesNi => unsafe { hw::inv_mix_aesni(s) },
            // SAFETY: `Armv8` is only made after the CPU check.
            #[cfg(all(target_arch = "aarch64", target_feature = "neon", feature = "armv8"))]
            Hw::Armv8 => unsafe { hw::inv_mix_armv8(s) },
        }
    }
}

#[cfg(any(
    all(any(target_arch = "x86", target_arch = "x86_64"), feature = "aesni"),
    all(target_arch = "aarch64", target_feature = "neon", feature = "armv8")
))]
mod hw {
    #[cfg(target_arch = "aarch64")]
    use core::arch::aarch64::*;
    #[cfg(target_arch = "x86")]
    use core::arch::x86::*;
    #[cfg(target_arch = "x86_64")]
    use core::arch::x86_64::*;

    /// `aeskeygenassist` puts SubWord of dword 1 in dword 0.
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    #[target_feature(enable = "aes,sse2")]
    pub(super) fn sub_word_aesni(w: u32) -> u32 {
        let r = _mm_aeskeygenassist_si128::<0>(_mm_set_epi32(0, 0, w as i32, 0));
        _mm_cvtsi128_si32(r) as u32
    }

    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    #[target_feature(enable = "aes,sse2")]
    pub(super) fn inv_mix_aesni(s: &[u8; 16]) -> [u8; 16] {
        let mut out = [0u8; 16];
        // SAFETY: 16 readable / writable bytes, unaligned load and store.
        unsafe {
            let v = _mm_aesimc_si128(_mm_loadu_si128(s.as_ptr().cast()));
            _mm_storeu_si128(out.as_mut_ptr().cast(), v);
        }
        out
    }

    /// `aese` with a zero key on `w` in all four columns: ShiftRows only
    /// moves equal bytes, so every column is SubWord(w).
    #[cfg(target_arch = "aarch64")]
    #[target_feature(enable = "aes")]
    pub(super) fn sub_word_armv8(w: u32) -> u32 {
        let v = vreinterpretq_u8_u32(vdupq_n_u32(w));
        let r = vaeseq_u8(v, vdupq_n_u8(0));
        vgetq_lane_u32::<0>(vreinterpretq_u32_u8(r))
    }

    #[cfg(target_arch = "aarch64")]
    #[target_feature(enable = "aes")]
    pub(super) fn inv_mix_armv8(s: &[u8; 16]) -> [u8; 16] {
        let mut out = [0u8; 16];
        // SAFETY: 16 readable / writable bytes.
        unsafe {
            let v = vaesimcq_u8(vld1q_u8(s.as_ptr()));
            vst1q_u8(out.as_mut_ptr(), v);
        }
        out
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
        let hw = Hw::detect();
        let mut rcon: u8 = 1;
        for i in nk..4 * (NR + 1) {
            let mut t = w[i - 1];
            if i % nk == 0 {
                t = hw.sub_word(t.rotate_left(8)) ^ ((rcon as u32) << 24);
                rcon = xtime(rcon);
            } else if nk > 6 && i % nk == 4 {
                t = hw.sub_word(t);
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
        let hw = Hw::detect();
        let mut dec = [[0u8; 16]; 15];
        dec[0] = self.enc[NR];
        for i in 1..NR {
            dec[i] = hw.inv_mix_columns(&self.enc[NR - i]);
        }
        dec[NR] = self.enc[0];
        dec
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hardware SubWord / InvMixColumns (where this CPU has them) equal
    /// the software ones: every byte value in every byte position, and
    /// InvMixColumns on states built from all byte values.
    #[test]
    fn hardware_matches_software() {
        let hw = Hw::detect();
        for b in 0..=255u32 {
            for w in [
                b,
                b << 8,
                b << 16,
                b << 24,
                b * 0x0101_0101,
                b ^ 0xa55a_3cc3,
            ] {
                assert_eq!(hw.sub_word(w), sub_word(w), "SubWord {w:08x}");
            }
        }
        for k in 0..=255u8 {
            let s: [u8; 16] =
                core::array::from_fn(|i| k.wrapping_mul(31).wrapping_add(i as u8 * 17));
            assert_eq!(
                hw.inv_mix_columns(&s),
                inv_mix_columns(&s),
                "state {s:02x?}"
            );
        }
        // SubWord(0) = 0x63 per byte (FIPS-197 S-box), both ways.
        assert_eq!(sub_word(0), 0x6363_6363);
    }
}
