//! NH, the first hashing stage of Adiantum (Crowley & Biggers, "Adiantum:
//! length-preserving encryption for entry-level processors", IACR ToSC
//! 2018(4), section 6.3 "NH"; the same function as UMAC's NH, RFC 4418).
//!
//! Parameters: word size w = 32, stride s = 2, passes r = 4, chunk size
//! u = 1024 bytes. The key is 1072 bytes (268 words). Each 16-byte unit of
//! the message adds, for every pass p = 0..4, the 64-bit product
//! `(m0+k0)(m2+k2) + (m1+k1)(m3+k3)` where `k` are the four key words at
//! word offset `4*(unit + p)`. A chunk (at most 1024 bytes, zero-padded to a
//! multiple of 16) gives four 64-bit sums = 32 bytes of output.
//!
//! Cost: 8 32-bit multiplies, 16 adds per 16 bytes, all lanes independent,
//! which is why the SIMD backends (selected in `backend.rs`) pay off. This
//! module holds what the backends share: the key form and the chunking,
//! including the zero-padded tail unit.

use crate::backend::Nh;
use zeroize::{Zeroize, ZeroizeOnDrop};

/// Bytes in one NH chunk (u / 8).
pub(crate) const CHUNK: usize = 1024;
/// Bytes in one NH unit (2 s w / 8).
pub(crate) const UNIT: usize = 16;
/// Words in the NH key: (u + 2 s w (r - 1)) / w.
pub(crate) const KEY_WORDS: usize = 268;
/// Bytes in the NH key.
pub(crate) const KEY_BYTES: usize = KEY_WORDS * 4;

/// The NH key: 268 little-endian 32-bit words, and the same words with
/// the middle two of every group of four swapped (`k0 k2 k1 k3`), the form
/// the x86 backends use so that one 64-bit shift replaces two shuffles.
/// Wiped on drop.
#[derive(Clone)]
pub(crate) struct NhKey {
    pub(crate) words: [u32; KEY_WORDS],
    pub(crate) swapped: [u32; KEY_WORDS],
}

impl NhKey {
    pub(crate) fn from_bytes(bytes: &[u8; KEY_BYTES]) -> Self {
        let mut words = [0u32; KEY_WORDS];
        for (w, b) in words.iter_mut().zip(bytes.chunks_exact(4)) {
            *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
        let mut swapped = words;
        for g in swapped.chunks_exact_mut(4) {
            g.swap(1, 2);
        }
        NhKey { words, swapped }
    }
}

impl Drop for NhKey {
    fn drop(&mut self) {
        self.words.zeroize();
        self.swapped.zeroize();
    }
}

impl ZeroizeOnDrop for NhKey {}

/// The portable NH of whole units: adds the sums of `msg` (a multiple of
/// 16 bytes, at most `(key.len() - 12) * 4` bytes) to `acc`. Also used by the
/// SIMD backends for the zero-padded tail unit.
#[inline]
pub(crate) fn nh_units_portable(key: &[u32], msg: &[u8], acc: &mut [u64; 4]) {
    for (m, k) in msg.chunks_exact(UNIT).zip(key.windows(16).step_by(4)) {
        let m0 = u32::from_le_bytes([m[0], m[1], m[2], m[3]]);
        let m1 = u32::from_le_bytes([m[4], m[5], m[6], m[7]]);
        let m2 = u32::from_le_bytes([m[8], m[9], m[10], m[11]]);
        let m3 = u32::from_le_bytes([m[12], m[13], m[14], m[15]]);
        for (p, a) in acc.iter_mut().enumerate() {
            let k = &k[4 * p..4 * p + 4];
            let x = u64::from(m0.wrapping_add(k[0])) * u64::from(m2.wrapping_add(k[2]));
            let y = u64::from(m1.wrapping_add(k[1])) * u64::from(m3.wrapping_add(k[3]));
            *a = a.wrapping_add(x).wrapping_add(y);
        }
    }
}

/// NH of one chunk of at most 1024 bytes, any length: the whole units go to
/// the backend, a partial last unit is zero-padded here. Returns the 32-byte
/// output (four little-endian 64-bit sums).
pub(crate) fn nh_chunk(nh: Nh, key: &NhKey, chunk: &[u8]) -> [u8; 32] {
    let chunk = &chunk[..chunk.len().min(CHUNK)];
    let whole = chunk.len() - chunk.len() % UNIT;
    let mut sums = nh.units(key, &chunk[..whole]);
    if whole < chunk.len() {
        let mut last: [u8; UNIT] = ct_dispatch::short::read_block(&chunk[whole..]);
        nh_units_portable(&key.words[whole / 4..], &last, &mut sums);
        last.zeroize();
    }
    let mut out = [0u8; 32];
    for (o, s) in out.chunks_exact_mut(8).zip(sums.iter()) {
        o.copy_from_slice(&s.to_le_bytes());
    }
    sums.zeroize();
    out
}
