//! The AES S-box and its inverse as public 256-byte tables, computed at
//! compile time from the definition (FIPS-197 section 5.1.1: inversion in
//! GF(2^8), then the affine map). Only ever read whole, into registers
//! (aarch64 `tbl`, armv7 `vtbl`), never indexed by data in memory.
//! Shared by the aarch64 and armv7 single-block backends.

/// Multiply in GF(2^8) (compile time only: builds the public tables).
const fn gmul(mut a: u8, mut b: u8) -> u8 {
    let mut p = 0u8;
    while b != 0 {
        if b & 1 != 0 {
            p ^= a;
        }
        let hi = a & 0x80;
        a <<= 1;
        if hi != 0 {
            a ^= 0x1b;
        }
        b >>= 1;
    }
    p
}

/// The AES S-box (FIPS-197 section 5.1.1), and its inverse.
pub(crate) const SBOXES: ([u8; 256], [u8; 256]) = {
    let mut s = [0u8; 256];
    let mut inv = [0u8; 256];
    let mut x = 0usize;
    while x < 256 {
        // x^254 = x^-1 (0 -> 0)
        let mut r = 1u8;
        let mut e = 0;
        while e < 254 {
            r = gmul(r, x as u8);
            e += 1;
        }
        let b = if x == 0 { 0 } else { r };
        let v =
            b ^ b.rotate_left(1) ^ b.rotate_left(2) ^ b.rotate_left(3) ^ b.rotate_left(4) ^ 0x63;
        s[x] = v;
        inv[v as usize] = x as u8;
        x += 1;
    }
    (s, inv)
};

#[cfg(test)]
pub(crate) fn check() {
    let (s, inv) = SBOXES;
    assert_eq!((s[0], s[1], s[0x53], s[0xff]), (0x63, 0x7c, 0xed, 0x16));
    for x in 0..256 {
        assert_eq!(inv[s[x] as usize] as usize, x);
    }
}
