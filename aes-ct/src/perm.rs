//! Byte permutations of the AES state that the SIMD backends apply with
//! byte shuffles (`pshufb`, `tbl`, `vtbl`), computed at compile time.
//! State byte `4c + r` is row `r`, column `c` (FIPS-197 order); in each
//! table, byte `i` of the result is byte `t[i]` of the input.

#![allow(dead_code, reason = "not every architecture uses every table")]

/// ShiftRows: byte (r, c) from (r, c + r); `inverse`: from (r, c - r).
pub(crate) const fn shift_rows(inverse: bool) -> [u8; 16] {
    let mut t = [0u8; 16];
    let mut i = 0;
    while i < 16 {
        let (c, r) = (i / 4, i % 4);
        let from = if inverse {
            (c + 4 - r) % 4
        } else {
            (c + r) % 4
        };
        t[i] = (4 * from + r) as u8;
        i += 1;
    }
    t
}

/// The rows of every column rotated by `k`: byte (r, c) from (r + k, c).
pub(crate) const fn rotate_rows(k: usize) -> [u8; 16] {
    let mut t = [0u8; 16];
    let mut i = 0;
    while i < 16 {
        let (c, r) = (i / 4, i % 4);
        t[i] = (4 * c + (r + k) % 4) as u8;
        i += 1;
    }
    t
}

/// A round key in FIPS order to the row-major bit-plane layout of the
/// NEON bsaes backends (byte `4r + c`), in the held form of fixsliced
/// round `j` (mod 4): `K_h(r, c) = K(r, c - j r)`; `j = 0` is the plain
/// transposition.
pub(crate) const fn key_skew(j: usize) -> [u8; 16] {
    let mut t = [0u8; 16];
    let mut i = 0;
    while i < 16 {
        let (r, c) = (i / 4, i % 4);
        t[i] = (4 * ((c + 16 - (j % 4) * r) % 4) + r) as u8;
        i += 1;
    }
    t
}

/// [`key_skew`] for the four rounds mod 4.
pub(crate) const KEY_SKEW: [[u8; 16]; 4] = [key_skew(0), key_skew(1), key_skew(2), key_skew(3)];
