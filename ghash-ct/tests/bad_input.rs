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

/// Empty and odd-length updates, against one call and RustCrypto's
/// hashers: an empty `update` or `update_padded` changes nothing (GHASH of
/// nothing is zero); whole blocks by `update` and the odd tail by
/// `update_padded` equal one `update_padded` of the message; and since
/// `update_padded` pads each call with zeros to a whole block, odd pieces
/// fed one call each equal one call over the pieces zero-padded and joined.
fn odd_updates<O, R>(what: &str, ours: impl Fn() -> O, theirs: impl Fn() -> R)
where
    O: UniversalHash<BlockSize = ghash_ct::universal_hash::consts::U16>,
    R: UniversalHash<BlockSize = ghash_ct::universal_hash::consts::U16>,
{
    let data: Vec<u8> = (0..100u8).map(|i| i.wrapping_mul(37) ^ 0x5a).collect();
    let mut g = ours();
    g.update(&[]);
    g.update_padded(&[]);
    assert_eq!(
        g.finalize().as_slice(),
        &[0u8; 16],
        "{what}: hash of nothing"
    );
    for len in [1usize, 7, 15, 16, 17, 31, 33, 47, 100] {
        let msg = &data[..len];
        let mut r = theirs();
        r.update_padded(msg);
        let want = r.finalize();

        let mut g = ours();
        g.update_padded(msg);
        assert_eq!(g.finalize(), want, "{what}: one call, {len} bytes");

        let (blocks, tail) = ghash_ct::Block::slice_as_chunks(msg);
        let mut g = ours();
        g.update_padded(&[]);
        g.update(blocks);
        g.update(&[]);
        g.update_padded(tail);
        g.update_padded(&[]);
        assert_eq!(
            g.finalize(),
            want,
            "{what}: {} blocks then a {}-byte tail, empty updates between",
            blocks.len(),
            tail.len()
        );

        for cut in [1usize, 5, 15, 17, 33].into_iter().filter(|&c| c < len) {
            let (a, b) = msg.split_at(cut);
            let mut g = ours();
            g.update_padded(a);
            g.update_padded(b);
            let mut joined = a.to_vec();
            joined.resize(a.len().next_multiple_of(16), 0);
            joined.extend_from_slice(b);
            let mut r = theirs();
            r.update_padded(&joined);
            assert_eq!(
                g.finalize(),
                r.finalize(),
                "{what}: {len} bytes as {cut} + {} in two padded calls",
                len - cut
            );
        }
    }
}

#[test]
fn empty_and_odd_length_updates() {
    let h = [9u8; 16];
    for b in backends() {
        odd_updates(
            &format!("GHASH on {b}"),
            || GHash::new_with_backend(&h.into(), b).unwrap(),
            || <ghash::GHash as KeyInit>::new(&h.into()),
        );
        odd_updates(
            &format!("POLYVAL on {b}"),
            || Polyval::new_with_backend(&h.into(), b).unwrap(),
            || <polyval::Polyval as KeyInit>::new(&h.into()),
        );
    }
}
