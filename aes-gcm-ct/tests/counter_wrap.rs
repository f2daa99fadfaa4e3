//! Counter carries with secret counters: 16-byte nonces, so J0 =
//! GHASH_H(nonce) depends on the key, chosen so that J0's last byte takes
//! every value 0..=255. The messages run past at least one carry out of
//! the counter's low byte inside the fused paths' batches (16 blocks on
//! VAES, 8 on AES-NI / ARMv8) and in their remainders, on every path this
//! CPU runs, sealed and opened, against RustCrypto `aes-gcm`.
//! (`ct_trace.rs` checks that these counters do not steer the control
//! flow; this file checks the blocks are right.)
mod common;
use aes_gcm::aead::{AeadInOut as _, KeyInit as _};
use cipher::consts::U16;
use common::*;

fn reference(key: &[u8], nonce: &[u8; 16], aad: &[u8], pt: &[u8]) -> (Vec<u8>, Vec<u8>) {
    type G128 = aes_gcm::AesGcm<aes::Aes128, U16>;
    type G256 = aes_gcm::AesGcm<aes::Aes256, U16>;
    let mut buf = pt.to_vec();
    let n = nonce.into();
    let tag = match key.len() {
        16 => G128::new(key.try_into().unwrap())
            .encrypt_inout_detached(n, aad, buf.as_mut_slice().into())
            .unwrap(),
        _ => G256::new(key.try_into().unwrap())
            .encrypt_inout_detached(n, aad, buf.as_mut_slice().into())
            .unwrap(),
    };
    (buf, tag.to_vec())
}

#[test]
fn every_low_counter_byte_on_every_path() {
    let mut rng = Rng(0xbb67_ae85_84ca_a73b);
    // Two VAES batches and a remainder of 3 blocks and 5 bytes (AES-NI:
    // four batches and the same remainder), and one long enough that every
    // low byte carries inside a main-loop batch.
    let lens = [2 * 256 + 3 * 16 + 5, 17 * 256 + 7];
    for key_len in [16, 32] {
        let key = rng.bytes(key_len);
        let nonces = nonces_by_low_byte(&key);
        let aad = rng.bytes(20);
        for &len in &lens {
            let pt = rng.bytes(len);
            let expect: Vec<_> = nonces
                .iter()
                .map(|n| reference(&key, n, &aad, &pt))
                .collect();
            for path in aes_gcm_ct::Backend::available().map(Path::Gcm) {
                let g = gcm(&key, 16, 16, path).unwrap();
                for (low, (n, (rct, rtag))) in nonces.iter().zip(&expect).enumerate() {
                    let what = format!("{path:?} key {key_len} len {len} J0 low byte {low:#04x}");
                    let (c, t) = g.seal(n, &aad, &pt).unwrap();
                    assert!(c == *rct && t == *rtag, "seal {what}");
                    let mut buf = rct.clone();
                    g.open_in_place(n, &aad, &mut buf, rtag).unwrap();
                    assert!(buf == pt, "open {what}");
                }
            }
        }
    }
}
