//! Copies of at most 16 bytes whose length is known only at run time:
//! the partial block of a message, its AAD or its tag, read into a
//! zero-padded 16-byte block or written out of one.
//!
//! Technique: the length is public (a message's, its AAD's), so it may
//! choose the instructions; each copy is at most two 8-byte loads or
//! stores and, for the bytes past 8, two overlapping loads or stores of
//! the largest size that fits (4, 2 or 1 bytes) - the overlapped bytes are
//! read or written twice with the same value. `copy_from_slice` of such a
//! length compiles to a call of the C library's `memcpy`, and in code
//! that holds vector registers around it, to their spills and reloads
//! (every vector register is caller-saved on x86-64 and AArch64): a
//! short message paid more for the call than for its copy.
//!
//! Cost: up to 4 loads or stores and a few shifts per copy, no call, no
//! stack buffer (the bytes travel in two integer registers); a whole
//! block or half is one plain copy.
//!
//! Constant time: the branches and addresses depend on the length only;
//! the bytes are never compared or used as an index.

/// The little-endian value of `s` (at most 8 bytes), zero above.
#[inline(always)]
fn read8(s: &[u8]) -> u64 {
    let n = s.len();
    if let Ok(w) = <[u8; 8]>::try_from(s) {
        u64::from_le_bytes(w)
    } else if n >= 4 {
        let a = u32::from_le_bytes([s[0], s[1], s[2], s[3]]);
        let b = u32::from_le_bytes([s[n - 4], s[n - 3], s[n - 2], s[n - 1]]);
        u64::from(a) | u64::from(b) << (8 * (n - 4))
    } else if n >= 2 {
        let a = u16::from_le_bytes([s[0], s[1]]);
        let b = u16::from_le_bytes([s[n - 2], s[n - 1]]);
        u64::from(a) | u64::from(b) << (8 * (n - 2))
    } else if n == 1 {
        u64::from(s[0])
    } else {
        0
    }
}

/// Write the low `d.len()` (at most 8) bytes of `v`, little-endian.
#[inline(always)]
fn write8(d: &mut [u8], v: u64) {
    let n = d.len();
    if n == 8 {
        d.copy_from_slice(&v.to_le_bytes());
    } else if n >= 4 {
        d[..4].copy_from_slice(&(v as u32).to_le_bytes());
        d[n - 4..].copy_from_slice(&((v >> (8 * (n - 4))) as u32).to_le_bytes());
    } else if n >= 2 {
        d[..2].copy_from_slice(&(v as u16).to_le_bytes());
        d[n - 2..].copy_from_slice(&((v >> (8 * (n - 2))) as u16).to_le_bytes());
    } else if n == 1 {
        d[0] = v as u8;
    }
}

/// `s` (at most 16 bytes) as the two little-endian halves of a block
/// zero-padded after it: bytes 0..8 in the first, 8..16 in the second.
///
/// # Panics
/// If `s` is longer than 16 bytes.
#[inline(always)]
pub fn read_halves(s: &[u8]) -> [u64; 2] {
    assert!(s.len() <= 16, "a short copy takes at most 16 bytes");
    if s.len() >= 8 {
        let (lo, hi) = s.split_at(8);
        [read8(lo), read8(hi)]
    } else {
        [read8(s), 0]
    }
}

/// `s` (at most 16 bytes) zero-padded to a block.
///
/// # Panics
/// If `s` is longer than 16 bytes.
#[inline(always)]
pub fn read_block(s: &[u8]) -> [u8; 16] {
    if let Ok(b) = <[u8; 16]>::try_from(s) {
        return b;
    }
    let [lo, hi] = read_halves(s);
    (u128::from(lo) | u128::from(hi) << 64).to_le_bytes()
}

/// Write the first `d.len()` (at most 16) bytes of the block whose
/// little-endian halves are `v` into `d`.
///
/// # Panics
/// If `d` is longer than 16 bytes.
#[inline(always)]
pub fn write_halves(d: &mut [u8], v: [u64; 2]) {
    assert!(d.len() <= 16, "a short copy takes at most 16 bytes");
    if d.len() >= 8 {
        let (lo, hi) = d.split_at_mut(8);
        lo.copy_from_slice(&v[0].to_le_bytes());
        write8(hi, v[1]);
    } else {
        write8(d, v[0]);
    }
}

/// Write the first `d.len()` (at most 16) bytes of `b` into `d`.
///
/// # Panics
/// If `d` is longer than 16 bytes.
#[inline(always)]
pub fn write_block(d: &mut [u8], b: &[u8; 16]) {
    if d.len() == 16 {
        d.copy_from_slice(b);
        return;
    }
    let v = u128::from_le_bytes(*b);
    write_halves(d, [v as u64, (v >> 64) as u64]);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every length 0..=16 at every offset of a larger buffer: the bytes
    /// read are the slice's, zero-padded; a write touches exactly the
    /// slice.
    #[test]
    fn every_length_reads_and_writes_exactly_its_bytes() {
        let src: [u8; 40] = core::array::from_fn(|i| (i as u8).wrapping_mul(37).wrapping_add(11));
        for off in 0..8 {
            for n in 0..=16 {
                let s = &src[off..off + n];
                let mut want = [0u8; 16];
                want[..n].copy_from_slice(s);
                assert_eq!(read_block(s), want, "read off {off} n {n}");
                let h = read_halves(s);
                assert_eq!(
                    (u128::from(h[0]) | u128::from(h[1]) << 64).to_le_bytes(),
                    want
                );

                let mut dst = [0xa5u8; 40];
                let b: [u8; 16] = core::array::from_fn(|i| 0x80 | i as u8);
                write_block(&mut dst[off..off + n], &b);
                for (i, &d) in dst.iter().enumerate() {
                    let w = if (off..off + n).contains(&i) {
                        b[i - off]
                    } else {
                        0xa5
                    };
                    assert_eq!(d, w, "write off {off} n {n} byte {i}");
                }
            }
        }
    }

    #[test]
    #[should_panic(expected = "at most 16 bytes")]
    fn a_longer_read_panics() {
        read_block(&[0; 17]);
    }

    #[test]
    #[should_panic(expected = "at most 16 bytes")]
    fn a_longer_write_panics() {
        write_block(&mut [0; 17], &[0; 16]);
    }
}
