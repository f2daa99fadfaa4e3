//! Drop-in: our ciphers plugged into RustCrypto's own generic crates give
//! the published answers and the same bytes as RustCrypto's `aes`:
//! `ctr` (SP 800-38A F.5 and RFC 3686 vectors), `cbc` (SP 800-38A F.2 and
//! long random messages), and `aes_gcm::AesGcm<Aes, U12>`.

mod common;

use aes_ct::Backend;
use cipher::{
    BlockCipherEncrypt, BlockModeDecrypt, BlockModeEncrypt, InnerIvInit, KeyInit, KeyIvInit,
    StreamCipher, StreamCipherCoreWrapper, consts::U12,
};
use common::{backends, rng, unhex};
use rand::Rng;

fn ctr_with<C: BlockCipherEncrypt + cipher::BlockSizeUser<BlockSize = cipher::consts::U16>>(
    c: C,
    iv: &[u8],
    buf: &mut [u8],
) {
    let core = ctr::CtrCore::<C, ctr::flavors::Ctr128BE>::inner_iv_init(c, iv.try_into().unwrap());
    StreamCipherCoreWrapper::from_core(core).apply_keystream(buf);
}

/// SP 800-38A F.5.1/3/5 and RFC 3686 section 6, from the JSON we carry.
#[test]
fn ctr_published_vectors() {
    let text = include_str!("data/aes_ecb_ctr_sp800_38a_rfc3686.json");
    let v: serde_json::Value = serde_json::from_str(text).unwrap();
    let mut checked = 0;
    for g in v["groups"].as_array().unwrap() {
        if g["mode"] != "CTR" {
            continue;
        }
        for t in g["vectors"].as_array().unwrap() {
            let key = unhex(t["key_hex"].as_str().unwrap());
            let iv = unhex(t["initial_counter_block_hex"].as_str().unwrap());
            let pt = unhex(t["plaintext_hex"].as_str().unwrap());
            let ct = unhex(t["ciphertext_hex"].as_str().unwrap());
            for b in backends() {
                let mut buf = pt.clone();
                match key.len() {
                    16 => ctr_with(
                        aes_ct::Aes128::new_with_backend(key.as_slice().try_into().unwrap(), b)
                            .unwrap(),
                        &iv,
                        &mut buf,
                    ),
                    24 => ctr_with(
                        aes_ct::Aes192::new_with_backend(key.as_slice().try_into().unwrap(), b)
                            .unwrap(),
                        &iv,
                        &mut buf,
                    ),
                    _ => ctr_with(
                        aes_ct::Aes256::new_with_backend(key.as_slice().try_into().unwrap(), b)
                            .unwrap(),
                        &iv,
                        &mut buf,
                    ),
                }
                assert_eq!(
                    hex::encode(&buf),
                    hex::encode(&ct),
                    "{} backend {b:?}",
                    t["comment"]
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 12, "only {checked} CTR vectors checked");
}

/// `ctr::Ctr32BE<aes_ct::Aes128>` and `Ctr128BE<Aes256>` equal RustCrypto's over
/// long buffers and odd lengths (one `encrypt_with_backend` call each).
#[test]
fn ctr_matches_rustcrypto() {
    let mut r = rng("ctr");
    for b in backends() {
        for len in [
            0usize,
            1,
            15,
            16,
            17,
            63,
            64,
            65,
            127,
            128,
            129,
            255,
            1350,
            4096,
            16384 + 5,
        ] {
            let mut key = [0u8; 32];
            let mut iv = [0u8; 16];
            r.fill_bytes(&mut key);
            r.fill_bytes(&mut iv);
            iv[12..].copy_from_slice(&[0xff, 0xff, 0xff, 0xf0]); // wrap the 32-bit counter
            let mut data = vec![0u8; len];
            r.fill_bytes(&mut data);

            let mut want = data.clone();
            ctr::Ctr32BE::<aes::Aes128>::new(key[..16].try_into().unwrap(), &iv.into())
                .apply_keystream(&mut want);
            let ours = aes_ct::Aes128::new_with_backend(key[..16].try_into().unwrap(), b).unwrap();
            let mut got = data.clone();
            let core = ctr::CtrCore::<_, ctr::flavors::Ctr32BE>::inner_iv_init(ours, &iv.into());
            StreamCipherCoreWrapper::from_core(core).apply_keystream(&mut got);
            assert_eq!(got, want, "Ctr32BE AES-128 backend {b:?} len {len}");

            let mut want = data.clone();
            ctr::Ctr128BE::<aes::Aes256>::new(&key.into(), &iv.into()).apply_keystream(&mut want);
            let mut got = data.clone();
            ctr_with(
                aes_ct::Aes256::new_with_backend(&key.into(), b).unwrap(),
                &iv,
                &mut got,
            );
            assert_eq!(got, want, "Ctr128BE AES-256 backend {b:?} len {len}");
        }
    }
    // The plain `KeyIvInit` route works too (auto-detected backend).
    let mut x = [0u8; 33];
    ctr::Ctr64BE::<aes_ct::Aes192>::new(&[1u8; 24].into(), &[2u8; 16].into())
        .apply_keystream(&mut x);
    let mut y = [0u8; 33];
    ctr::Ctr64BE::<aes::Aes192>::new(&[1u8; 24].into(), &[2u8; 16].into()).apply_keystream(&mut y);
    assert_eq!(x, y);
}

/// SP 800-38A F.2.1 (CBC-AES128.Encrypt) and random round trips against
/// `cbc` over RustCrypto `aes`.
#[test]
fn cbc_matches_rustcrypto() {
    let key = unhex("2b7e151628aed2a6abf7158809cf4f3c");
    let iv = unhex("000102030405060708090a0b0c0d0e0f");
    let pt = unhex(
        "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710",
    );
    let ct = unhex(
        "7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b273bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7",
    );
    let mut r = rng("cbc");
    for b in backends() {
        let c = aes_ct::Aes128::new_with_backend(key.as_slice().try_into().unwrap(), b).unwrap();
        let mut buf = pt.clone();
        let (blocks, _) = cipher::Array::slice_as_chunks_mut(&mut buf);
        cbc::Encryptor::inner_iv_init(c.clone(), iv.as_slice().try_into().unwrap())
            .encrypt_blocks(blocks);
        assert_eq!(
            hex::encode(&buf),
            hex::encode(&ct),
            "CBC F.2.1 backend {b:?}"
        );
        let (blocks, _) = cipher::Array::slice_as_chunks_mut(&mut buf);
        cbc::Decryptor::inner_iv_init(c, iv.as_slice().try_into().unwrap()).decrypt_blocks(blocks);
        assert_eq!(buf, pt, "CBC F.2.2 backend {b:?}");

        for n in [1usize, 2, 3, 7, 8, 9, 31, 64] {
            let mut key = [0u8; 32];
            let mut iv = [0u8; 16];
            r.fill_bytes(&mut key);
            r.fill_bytes(&mut iv);
            let mut data = vec![0u8; 16 * n];
            r.fill_bytes(&mut data);
            let mut want = data.clone();
            let (wb, _) = cipher::Array::slice_as_chunks_mut(&mut want);
            cbc::Encryptor::<aes::Aes256>::new(&key.into(), &iv.into()).encrypt_blocks(wb);
            let mut got = data.clone();
            let (gb, _) = cipher::Array::slice_as_chunks_mut(&mut got);
            let ours = aes_ct::Aes256::new_with_backend(&key.into(), b).unwrap();
            cbc::Encryptor::inner_iv_init(ours.clone(), &iv.into()).encrypt_blocks(gb);
            assert_eq!(got, want, "CBC encrypt backend {b:?} blocks {n}");
            let (gb, _) = cipher::Array::slice_as_chunks_mut(&mut got);
            cbc::Decryptor::inner_iv_init(ours, &iv.into()).decrypt_blocks(gb);
            assert_eq!(got, data, "CBC decrypt backend {b:?} blocks {n}");
        }
    }
}

/// RustCrypto's generic `aes_gcm::AesGcm<Aes, U12>` over our cipher: GCM
/// spec test case 4 (AES-128) and 16 (AES-256), and random messages equal
/// to `aes_gcm::Aes128Gcm` / `Aes256Gcm` over RustCrypto `aes`.
#[test]
fn aes_gcm_generic_matches_rustcrypto() {
    use aes_gcm::aead::{Aead, Payload};
    let tc4_key = unhex("feffe9928665731c6d6a8f9467308308");
    let tc4_iv = unhex("cafebabefacedbaddecaf888");
    let tc4_pt = unhex(
        "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
    );
    let tc4_aad = unhex("feedfacedeadbeeffeedfacedeadbeefabaddad2");
    let tc4_ct = "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e0915bc94fbc3221a5db94fae95ae7121a47";
    let mut r = rng("gcm");
    for b in backends() {
        let c =
            aes_ct::Aes128::new_with_backend(tc4_key.as_slice().try_into().unwrap(), b).unwrap();
        let gcm = aes_gcm::AesGcm::<aes_ct::Aes128, U12>::from(c);
        let out = gcm
            .encrypt(
                tc4_iv.as_slice().try_into().unwrap(),
                Payload {
                    msg: &tc4_pt,
                    aad: &tc4_aad,
                },
            )
            .unwrap();
        assert_eq!(hex::encode(&out), tc4_ct, "GCM test case 4, backend {b:?}");
        let back = gcm
            .decrypt(
                tc4_iv.as_slice().try_into().unwrap(),
                Payload {
                    msg: &out,
                    aad: &tc4_aad,
                },
            )
            .unwrap();
        assert_eq!(back, tc4_pt);

        for len in [0usize, 1, 16, 100, 1350, 4000] {
            let mut key = [0u8; 32];
            let mut nonce = [0u8; 12];
            r.fill_bytes(&mut key);
            r.fill_bytes(&mut nonce);
            let mut msg = vec![0u8; len];
            r.fill_bytes(&mut msg);
            let aad = [7u8; 13];
            let ours = aes_gcm::AesGcm::<aes_ct::Aes256, U12>::from(
                aes_ct::Aes256::new_with_backend(&key.into(), b).unwrap(),
            );
            let theirs = aes_gcm::Aes256Gcm::new(&key.into());
            let p = || Payload {
                msg: &msg,
                aad: &aad,
            };
            let a = ours.encrypt(&nonce.into(), p()).unwrap();
            let t = theirs.encrypt(&nonce.into(), p()).unwrap();
            assert_eq!(a, t, "AES-256-GCM backend {b:?} len {len}");
            let mut bad = a.clone();
            bad[0] ^= 1;
            assert!(
                ours.decrypt(
                    &nonce.into(),
                    Payload {
                        msg: &bad,
                        aad: &aad
                    }
                )
                .is_err()
            );
        }
    }
    // `KeyInit` route with auto-detection.
    let _ = aes_gcm::AesGcm::<aes_ct::Aes128, U12>::new(&[0u8; 16].into());
    let _: Backend = Backend::detected();
}
