//! Tampering with any byte of ciphertext, AAD, nonce or tag fails
//! decryption and leaves no plaintext in the buffer (in place: the
//! ciphertext as it was; out of place: the ciphertext or untouched).
mod common;
use common::*;

#[test]
fn any_flipped_byte_fails_every_path() {
    let mut rng = Rng(0xdead_beef);
    for path in some_paths() {
        for &(len, aad_len, nonce_len) in &[
            (0, 0, 12),
            (1, 3, 12),
            (37, 20, 12),
            (300, 17, 16),
            (2100, 5, 12),
            (64, 0, 1),
        ] {
            let kl = 16 + 8 * rng.below(3);
            let key = rng.bytes(kl);
            let nonce = rng.bytes(nonce_len);
            let aad = rng.bytes(aad_len);
            let pt = rng.bytes(len);
            let g = gcm(&key, nonce_len, 16, path).unwrap();
            let (ct, tag) = g.seal(&nonce, &aad, &pt).unwrap();
            let bit = 1u8 << rng.below(8);
            let fails = |n: &[u8], a: &[u8], c: &[u8], t: &[u8], what: &str| {
                let mut b = c.to_vec();
                assert!(
                    g.open_in_place(n, a, &mut b, t).is_err(),
                    "{what} accepted on {path:?}"
                );
                assert_eq!(b, c, "{what}: buffer is not the ciphertext on {path:?}");
                let mut out = vec![0u8; c.len()];
                assert!(
                    g.open_into(n, a, c, t, &mut out).is_err(),
                    "{what} accepted"
                );
                assert_eq!(out, c, "{what}: output is not the ciphertext");
            };
            for i in 0..ct.len() {
                let mut c = ct.clone();
                c[i] ^= bit;
                fails(&nonce, &aad, &c, &tag, "ciphertext");
            }
            for i in 0..aad.len() {
                let mut a = aad.clone();
                a[i] ^= bit;
                fails(&nonce, &a, &ct, &tag, "aad");
            }
            for i in 0..nonce.len() {
                let mut n = nonce.clone();
                n[i] ^= bit;
                fails(&n, &aad, &ct, &tag, "nonce");
            }
            for i in 0..tag.len() {
                let mut t = tag.clone();
                t[i] ^= bit;
                fails(&nonce, &aad, &ct, &t, "tag");
            }
            // Untampered still opens.
            let mut b = ct.clone();
            g.open_in_place(&nonce, &aad, &mut b, &tag).unwrap();
            assert_eq!(b, pt);
        }
    }
}

#[test]
fn truncated_tag_types_fail_on_tamper() {
    let mut rng = Rng(5);
    for tag_len in [12, 13, 14, 15] {
        let key = rng.bytes(16);
        let nonce = rng.bytes(12);
        let pt = rng.bytes(100);
        let g = gcm(
            &key,
            12,
            tag_len,
            Path::Gcm(aes_gcm_ct::Backend::detected()),
        )
        .unwrap();
        let full = gcm(&key, 12, 16, Path::Gcm(aes_gcm_ct::Backend::detected())).unwrap();
        let (ct, tag) = g.seal(&nonce, b"", &pt).unwrap();
        let (_, tag16) = full.seal(&nonce, b"", &pt).unwrap();
        assert_eq!(tag, tag16[..tag_len]);
        for i in 0..tag_len {
            let mut t = tag.clone();
            t[i] ^= 0x80;
            let mut b = ct.clone();
            assert!(g.open_in_place(&nonce, b"", &mut b, &t).is_err());
            assert_eq!(b, ct);
        }
    }
}
