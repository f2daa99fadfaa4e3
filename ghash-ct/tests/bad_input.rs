//! Bad input gives an error, never a panic.

mod common;
use common::*;

use ghash_ct::{
    Backend, GHash, GHashKey, Polyval, UnsupportedBackend,
    universal_hash::{KeyInit, UniversalHash},
};

#[test]
fn wrong_key_length_is_an_error() {
    for n in [0usize, 1, 15, 17, 24, 32] {
        let k = vec![0x42u8; n];
        assert!(GHash::new_from_slice(&k).is_err(), "{n}");
        assert!(Polyval::new_from_slice(&k).is_err(), "{n}");
        assert!(GHashKey::new_from_slice(&k).is_err(), "{n}");
    }
    assert!(GHash::new_from_slice(&[0x42u8; 16]).is_ok());
}

#[test]
fn verify_rejects_wrong_tag_and_accepts_right_one() {
    let kats = kats();
    for b in backends() {
        for k in kats.iter().take(8) {
            let mac = || {
                let mut g = GHash::new_with_backend(&k.h.into(), b).unwrap();
                g.update_padded(&k.a);
                g.update_padded(&k.c);
                g.update(&[len_block(k.a.len(), k.c.len()).into()]);
                g
            };
            assert!(mac().verify(&k.s.into()).is_ok(), "{} on {b}", k.src);
            for bit in [0usize, 1, 7, 8, 63, 64, 120, 127] {
                let mut bad = k.s;
                bad[bit / 8] ^= 1 << (bit % 8);
                assert!(
                    mac().verify(&bad.into()).is_err(),
                    "{} on {b}, bit {bit}",
                    k.src
                );
            }
            assert!(mac().verify(&[0u8; 16].into()).is_err() || k.s == [0u8; 16]);
        }
    }
}

#[test]
fn unavailable_backend_is_an_error() {
    let h = [1u8; 16].into();
    let mut missing = 0;
    for &b in Backend::ALL {
        match GHash::new_with_backend(&h, b) {
            Ok(g) => {
                assert!(b.is_available());
                assert_eq!(g.backend(), b);
            }
            Err(e) => {
                assert_eq!(e, UnsupportedBackend(b));
                assert!(!b.is_available());
                assert!(!e.to_string().is_empty());
                missing += 1;
            }
        }
    }
    // Every build lacks the other architectures' backends.
    assert!(missing > 0);
    assert!(Backend::available().any(|b| b == Backend::detected()));
}
