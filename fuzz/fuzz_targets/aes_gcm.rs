//! aes-gcm-ct against RustCrypto `aes-gcm` on every available path: input
//! = selector byte (key size, AAD length), key, 12-byte nonce, AAD, then
//! the message. Seal must equal the reference (ciphertext and tag), open
//! must round trip, a flipped tag or ciphertext bit must be rejected with
//! the buffer given back as it was; and the raw input tail opened as
//! "ciphertext || tag" (arbitrary bytes) must be rejected, never panic.
#![no_main]

use aes_gcm_ct::{
    AeadInOut, AesGcm, Backend,
    aead::inout::InOutBuf,
};
use cipher::{
    Array, BlockCipherEncrypt, BlockSizeUser,
    consts::{U12, U16},
};
use libfuzzer_sys::fuzz_target;

fn check<A, R>(key: &[u8], nonce: &[u8; 12], aad: &[u8], msg: &[u8], sel: u8)
where
    A: BlockSizeUser<BlockSize = U16> + BlockCipherEncrypt + cipher::KeyInit + 'static,
    R: aes_gcm::aead::AeadInOut + aes_gcm::aead::KeyInit,
{
    let reference = R::new_from_slice(key).expect("key length");
    let rn = aes_gcm::aead::Nonce::<R>::try_from(&nonce[..]).expect("12");
    let mut want = msg.to_vec();
    let want_tag = reference
        .encrypt_inout_detached(&rn, aad, want.as_mut_slice().into())
        .expect("reference seal");
    let n = Array::<u8, U12>::from(*nonce);
    for b in Backend::available() {
        let ours = AesGcm::<A, U12>::new_with_backend(key.try_into().expect("len"), b)
            .expect("available");
        let mut buf = msg.to_vec();
        let tag = ours
            .encrypt_inout_detached(&n, aad, InOutBuf::from(buf.as_mut_slice()))
            .expect("seal");
        assert_eq!(buf, want, "ciphertext, path {b}, {} bytes", msg.len());
        assert_eq!(tag.as_slice(), want_tag.as_slice(), "tag, path {b}");

        let mut pt = buf.clone();
        ours.decrypt_inout_detached(&n, aad, InOutBuf::from(pt.as_mut_slice()), &tag)
            .expect("open of a sealed message");
        assert_eq!(pt, msg, "round trip, path {b}");

        // Tampered tag, then tampered ciphertext: rejected, buffer restored.
        let mut bad = tag;
        bad[usize::from(sel) % 16] ^= 1 << (sel % 8);
        let mut c = buf.clone();
        assert!(
            ours.decrypt_inout_detached(&n, aad, InOutBuf::from(c.as_mut_slice()), &bad)
                .is_err(),
            "accepted a tampered tag, path {b}"
        );
        assert_eq!(c, buf, "buffer not restored, path {b}");
        if !buf.is_empty() {
            let mut c = buf.clone();
            let i = usize::from(sel) % c.len();
            c[i] ^= 0x01;
            let orig = c.clone();
            assert!(
                ours.decrypt_inout_detached(&n, aad, InOutBuf::from(c.as_mut_slice()), &tag)
                    .is_err(),
                "accepted a tampered ciphertext, path {b}"
            );
            assert_eq!(c, orig, "buffer not restored, path {b}");
        }

        // Arbitrary bytes as ciphertext || tag.
        if msg.len() >= 16 {
            let (ct, t) = msg.split_at(msg.len() - 16);
            let t = Array::<u8, U16>::try_from(t).expect("16");
            let mut c = ct.to_vec();
            let r = ours.decrypt_inout_detached(&n, aad, InOutBuf::from(c.as_mut_slice()), &t);
            let mut c2 = ct.to_vec();
            let rt = aes_gcm::aead::Tag::<R>::try_from(&t[..]).expect("16");
            let r2 = reference.decrypt_inout_detached(&rn, aad, c2.as_mut_slice().into(), &rt);
            assert_eq!(r.is_ok(), r2.is_ok(), "disagrees with the reference, path {b}");
            assert!(r.is_err(), "accepted arbitrary bytes, path {b}");
            assert_eq!(c, ct, "buffer not restored, path {b}");
        }
    }
}

fuzz_target!(|input: &[u8]| {
    let Some((&sel, rest)) = input.split_first() else {
        return;
    };
    let klen = if sel & 1 == 0 { 16 } else { 32 };
    if rest.len() < klen + 12 {
        return;
    }
    let (key, rest) = rest.split_at(klen);
    let (nonce, rest) = rest.split_at(12);
    let nonce: [u8; 12] = nonce.try_into().expect("12");
    let alen = usize::from(sel >> 1).min(rest.len());
    let (aad, msg) = rest.split_at(alen);
    if klen == 16 {
        check::<aes_ct::Aes128, aes_gcm::Aes128Gcm>(key, &nonce, aad, msg, sel);
    } else {
        check::<aes_ct::Aes256, aes_gcm::Aes256Gcm>(key, &nonce, aad, msg, sel);
    }
});
