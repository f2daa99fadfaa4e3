//! Bad inputs that the crates' own `tests/bad_input.rs` do not try yet
//! (the bad-input table in README.md): each gives an error
//! (or a documented harmless result), never a panic, and leaves buffers
//! alone.

use aes_ct::cipher::{BlockCipherDecrypt, BlockCipherEncrypt, KeyInit};

#[test]
fn aes_b2b_mismatched_lengths_every_type_and_direction() {
    use aes_ct::{Aes128, Aes128Dec, Aes128Enc, Aes256, Backend, Block};
    for b in Backend::available() {
        let c = Aes256::new_with_backend(&[3u8; 32].into(), b).unwrap();
        let inp = [Block::default(); 9];
        for n in [0usize, 1, 8, 10, 40] {
            let mut out = vec![Block::from([0x77u8; 16]); n];
            assert!(c.encrypt_blocks_b2b(&inp, &mut out).is_err(), "{b} enc {n}");
            assert!(c.decrypt_blocks_b2b(&inp, &mut out).is_err(), "{b} dec {n}");
            assert!(
                out.iter().all(|x| x == &Block::from([0x77u8; 16])),
                "output touched"
            );
        }
        // Empty input and output: nothing to do, not an error.
        assert!(c.encrypt_blocks_b2b(&[], &mut []).is_ok());
        let mut none: [Block; 0] = [];
        c.encrypt_blocks(&mut none);
        c.decrypt_blocks(&mut none);
    }
    let e = Aes128Enc::new(&[1u8; 16].into());
    let d = Aes128Dec::from(&Aes128::new(&[1u8; 16].into()));
    let inp = [Block::default(); 3];
    let mut out = [Block::default(); 2];
    assert!(e.encrypt_blocks_b2b(&inp, &mut out).is_err());
    assert!(d.decrypt_blocks_b2b(&inp, &mut out).is_err());
}

#[test]
fn ghash_empty_and_odd_updates_are_fine() {
    use ghash_ct::{Backend, GHash, universal_hash::UniversalHash};
    for b in Backend::available() {
        let mut g = GHash::new_with_backend(&[9u8; 16].into(), b).unwrap();
        g.update(&[]);
        g.update_padded(&[]);
        // Empty message: GHASH of nothing is zero.
        assert_eq!(g.finalize().as_slice(), &[0u8; 16]);
    }
}

#[test]
fn adiantum_unavailable_nh_backend_is_an_error() {
    use adiantum_ct::{Adiantum, Backend, UnsupportedBackend};
    let mut missing = 0;
    for &b in Backend::ALL {
        match Adiantum::new_with_backend(&[1u8; 32].into(), b) {
            Ok(c) => assert_eq!(c.backend(), b),
            Err(e) => {
                assert_eq!(e, UnsupportedBackend(b));
                assert!(!b.is_available());
                assert!(e.to_string().contains(b.name()));
                missing += 1;
            }
        }
    }
    // Every build lacks the other architectures' NH backends.
    assert!(missing > 0);
}

/// The longest message is 16 + 64 (2^32 - 1) bytes (the XChaCha block
/// counter). A buffer that long cannot be allocated in a test, but the
/// same limit guards the sector size, which an empty buffer can carry.
#[cfg(target_pointer_width = "64")]
#[test]
fn adiantum_message_length_limit_via_sector_size() {
    use adiantum_ct::{Adiantum, Error, HPolyC};
    let max = 16 + 64 * (u32::MAX as usize);
    let c = Adiantum::new(&[2u8; 32].into());
    assert_eq!(c.encrypt_sectors(&mut [], max, 0), Ok(()));
    assert_eq!(
        c.encrypt_sectors(&mut [], max + 1, 0),
        Err(Error::BadSectorSize(max + 1))
    );
    assert_eq!(
        c.decrypt_sectors(&mut [], max + 1, 0),
        Err(Error::BadSectorSize(max + 1))
    );
    let h = HPolyC::new(&[2u8; 32].into());
    assert_eq!(
        h.encrypt_sectors(&mut [], usize::MAX, 0),
        Err(Error::BadSectorSize(usize::MAX))
    );
}

/// Adiantum is not authenticated: a tampered ciphertext or a wrong tweak
/// decrypts without an error, to unrelated bytes (the wide-block property:
/// every 16-byte block of the plaintext changes).
#[test]
fn adiantum_tampered_ciphertext_decrypts_to_garbage() {
    use adiantum_ct::Adiantum;
    let c = Adiantum::new(&[6u8; 32].into());
    let pt = [0x42u8; 512];
    let mut ct = pt;
    c.encrypt(b"tweak", &mut ct).unwrap();
    for pos in [0usize, 100, 495, 496, 511] {
        let mut bad = ct;
        bad[pos] ^= 0x01;
        c.decrypt(b"tweak", &mut bad).unwrap();
        let same = pt
            .chunks(16)
            .zip(bad.chunks(16))
            .filter(|(a, b)| a == b)
            .count();
        assert_eq!(same, 0, "flip at {pos}: {same} plaintext blocks survived");
    }
    let mut wrong_tweak = ct;
    c.decrypt(b"tweaK", &mut wrong_tweak).unwrap();
    assert_ne!(wrong_tweak, pt);
}
