//! Bad input gives errors, never panics: over-limit lengths (through the
//! length check every call runs, so no 64 GiB buffer is needed), wrong
//! key lengths, an empty nonce, a tag of the wrong length.
use aes_gcm_ct::{
    A_MAX, Aes128Gcm, Aes256Gcm, AesGcm, Backend, P_MAX,
    aead::{AeadInOut, KeyInit},
    check_lengths,
};
use cipher::consts::{U0, U12};

#[test]
fn limits_are_rustcrypto_s() {
    assert_eq!(A_MAX, aes_gcm::A_MAX);
    assert_eq!(P_MAX, aes_gcm::P_MAX);
    assert_eq!(A_MAX, (1 << 61) - 1);
    assert_eq!(P_MAX, (1 << 36) - 32);
}

#[test]
fn length_check() {
    assert!(check_lengths(0, 0).is_ok());
    assert!(check_lengths(A_MAX, P_MAX).is_ok());
    assert!(check_lengths(A_MAX + 1, 0).is_err());
    assert!(check_lengths(0, P_MAX + 1).is_err());
    assert!(check_lengths(u64::MAX, u64::MAX).is_err());
    assert!(check_lengths(0, 1 << 36).is_err());
}

#[test]
fn wrong_key_length_is_an_error() {
    for n in [0usize, 1, 15, 17, 24, 31, 33, 64] {
        let k = vec![0u8; n];
        assert!(
            Aes128Gcm::new_from_slice(&k).is_err() == (n != 16),
            "len {n}"
        );
        assert!(
            Aes256Gcm::new_from_slice(&k).is_err() == (n != 32),
            "len {n}"
        );
    }
}

#[test]
fn empty_nonce_is_an_error() {
    let g = AesGcm::<aes_ct::Aes128, U0>::new(&[1u8; 16].into());
    let mut buf = [5u8; 20];
    assert!(
        g.encrypt_inout_detached(&Default::default(), b"", buf.as_mut_slice().into())
            .is_err()
    );
    assert_eq!(buf, [5u8; 20]);
    assert!(
        g.decrypt_inout_detached(
            &Default::default(),
            b"",
            buf.as_mut_slice().into(),
            &[0u8; 16].into()
        )
        .is_err()
    );
    assert_eq!(buf, [5u8; 20]);
}

#[test]
fn short_ciphertext_is_an_error_not_a_panic() {
    use aes_gcm_ct::aead::Aead;
    let g = Aes128Gcm::new(&[1u8; 16].into());
    for n in 0..16 {
        assert!(
            g.decrypt(&[0u8; 12].into(), vec![0u8; n].as_slice())
                .is_err()
        );
    }
}

#[test]
fn unavailable_paths_are_errors() {
    for &b in Backend::ALL {
        let r = AesGcm::<aes_ct::Aes128, U12>::new_with_backend(&[0u8; 16].into(), b);
        assert_eq!(r.is_ok(), b.is_available(), "{b}");
        if let Ok(g) = r {
            assert_eq!(g.backend(), b);
        }
        // RustCrypto's `aes` only ever gets the generic path.
        let r = AesGcm::<aes::Aes128, U12>::new_with_backend(&[0u8; 16].into(), b);
        assert_eq!(r.is_ok(), b == Backend::Generic, "{b}");
    }
}

#[test]
fn debug_prints_no_secret() {
    let g = Aes128Gcm::new(&[0x42u8; 16].into());
    let s = format!("{g:?}");
    assert!(s.contains("backend"), "{s}");
    assert!(!s.contains("42") && !s.contains("66"), "{s}");
}
