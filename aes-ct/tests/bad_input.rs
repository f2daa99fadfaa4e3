//! Bad input: wrong key lengths give `InvalidLength`, never a panic; an
//! unsupported backend request gives `UnsupportedBackend`; mismatched
//! buffer lengths give an error.

mod common;

use aes_ct::{
    Aes128, Aes128Dec, Aes128Enc, Aes192, Aes192Dec, Aes192Enc, Aes256, Aes256Dec, Aes256Enc,
    Backend, Block,
};
use cipher::{BlockCipherEncrypt, KeyInit};

fn wrong_lengths<C: KeyInit>(good: usize) {
    for len in [0usize, 1, 8, 15, 16, 17, 23, 24, 25, 31, 32, 33, 64] {
        let key = vec![0u8; len];
        let r = C::new_from_slice(&key);
        assert_eq!(r.is_ok(), len == good, "key length {len}, expected {good}");
    }
}

#[test]
fn wrong_key_lengths_are_errors() {
    wrong_lengths::<Aes128>(16);
    wrong_lengths::<Aes128Enc>(16);
    wrong_lengths::<Aes128Dec>(16);
    wrong_lengths::<Aes192>(24);
    wrong_lengths::<Aes192Enc>(24);
    wrong_lengths::<Aes192Dec>(24);
    wrong_lengths::<Aes256>(32);
    wrong_lengths::<Aes256Enc>(32);
    wrong_lengths::<Aes256Dec>(32);
}

#[test]
fn unsupported_backend_is_an_error() {
    let unavailable: Vec<Backend> = Backend::ALL
        .iter()
        .copied()
        .filter(|b| !b.is_available())
        .collect();
    eprintln!("not available here: {unavailable:?}");
    for b in unavailable {
        let e = Aes128::new_with_backend(&[0u8; 16].into(), b).unwrap_err();
        assert_eq!(e.0, b);
        assert!(e.to_string().contains(b.name()));
    }
    for b in Backend::available() {
        assert!(Aes256::new_with_backend(&[0u8; 32].into(), b).is_ok());
    }
}

#[test]
fn mismatched_buffer_lengths_are_errors() {
    let c = Aes128::new(&[0u8; 16].into());
    let inp = [Block::default(); 5];
    let mut out = [Block::default(); 4];
    assert!(c.encrypt_blocks_b2b(&inp, &mut out).is_err());
}

/// Mismatched `*_b2b` lengths on every backend, both directions, for the
/// key types and the encrypt-only / decrypt-only ones: an error, the output
/// untouched; empty slices are nothing to do, not an error.
#[test]
fn b2b_mismatched_lengths_every_type_and_direction() {
    use cipher::BlockCipherDecrypt;
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
        assert!(c.decrypt_blocks_b2b(&[], &mut []).is_ok());
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
