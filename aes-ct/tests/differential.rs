//! Differential: every backend this CPU can run against RustCrypto `aes`
//! (its own auto-detected backend), for random keys of all three sizes,
//! block counts 0..=64, buffers at every byte offset 0..16 (so blocks are
//! not aligned), in place and buffer to buffer, encrypt and decrypt.

mod common;

use aes_ct::{Backend, Block};
use cipher::{Array, BlockCipherDecrypt, BlockCipherEncrypt, KeyInit, consts::U16};
use common::{backends, rng};
use rand::{Rng, RngExt};

fn blocks_at(buf: &mut [u8], off: usize, n: usize) -> &mut [Block] {
    let (b, rest) = Array::slice_as_chunks_mut(&mut buf[off..off + 16 * n]);
    assert!(rest.is_empty());
    b
}

fn diff<Ours, Theirs>(name: &str, mk: impl Fn(&[u8], Backend) -> Ours)
where
    Ours: BlockCipherEncrypt<BlockSize = U16> + BlockCipherDecrypt,
    Theirs: BlockCipherEncrypt<BlockSize = U16> + BlockCipherDecrypt + KeyInit,
{
    let mut r = rng(name);
    for b in backends() {
        for n in 0..=64usize {
            let mut key = vec![0u8; Theirs::key_size()];
            r.fill_bytes(&mut key);
            let ours = mk(&key, b);
            let theirs = Theirs::new_from_slice(&key).unwrap();
            let off = r.random_range(0..16usize);
            let mut pt = vec![0u8; 16 * n + 32];
            r.fill_bytes(&mut pt);
            let ctx = format!("{name} backend {b:?} blocks {n} offset {off}");

            // Reference.
            let mut want = pt.clone();
            theirs.encrypt_blocks(blocks_at(&mut want, off, n));

            // In place, unaligned.
            let mut got = pt.clone();
            ours.encrypt_blocks(blocks_at(&mut got, off, n));
            assert_eq!(got, want, "encrypt in place, {ctx}");
            ours.decrypt_blocks(blocks_at(&mut got, off, n));
            assert_eq!(got, pt, "decrypt in place, {ctx}");

            // Buffer to buffer, with a different offset for the output.
            let off2 = (off + 7) % 16;
            let mut src = pt.clone();
            let mut dst = vec![0u8; pt.len()];
            let inb: Vec<Block> = blocks_at(&mut src, off, n).to_vec();
            ours.encrypt_blocks_b2b(&inb, blocks_at(&mut dst, off2, n))
                .unwrap();
            assert_eq!(
                &dst[off2..off2 + 16 * n],
                &want[off..off + 16 * n],
                "encrypt b2b, {ctx}"
            );
            let enc: Vec<Block> = blocks_at(&mut dst, off2, n).to_vec();
            let mut back = vec![0u8; pt.len()];
            ours.decrypt_blocks_b2b(&enc, blocks_at(&mut back, off, n))
                .unwrap();
            assert_eq!(
                &back[off..off + 16 * n],
                &pt[off..off + 16 * n],
                "decrypt b2b, {ctx}"
            );

            // Reference decryption of random data agrees too.
            let mut want_d = pt.clone();
            theirs.decrypt_blocks(blocks_at(&mut want_d, off, n));
            let mut got_d = pt.clone();
            ours.decrypt_blocks(blocks_at(&mut got_d, off, n));
            assert_eq!(got_d, want_d, "decrypt random, {ctx}");
        }
    }
}

macro_rules! mk {
    ($t:ty) => {
        |k: &[u8], b: Backend| {
            let c = <$t>::new_with_backend(k.try_into().unwrap(), b).unwrap();
            assert_eq!(c.backend(), b);
            c
        }
    };
}

#[test]
fn aes128_vs_rustcrypto() {
    diff::<_, aes::Aes128>("aes128", mk!(aes_ct::Aes128));
}

#[test]
fn aes192_vs_rustcrypto() {
    diff::<_, aes::Aes192>("aes192", mk!(aes_ct::Aes192));
}

#[test]
fn aes256_vs_rustcrypto() {
    diff::<_, aes::Aes256>("aes256", mk!(aes_ct::Aes256));
}

/// Encrypt-only and decrypt-only types, and the conversions between types,
/// agree with the full type.
#[test]
fn one_direction_types_and_conversions() {
    let mut r = rng("one-direction");
    for b in backends() {
        let mut key = [0u8; 32];
        r.fill_bytes(&mut key);
        let full = aes_ct::Aes256::new_with_backend(&key.into(), b).unwrap();
        let enc = aes_ct::Aes256Enc::new_with_backend(&key.into(), b).unwrap();
        let dec = aes_ct::Aes256Dec::from(&enc);
        let full2 = aes_ct::Aes256::from(enc.clone());
        let enc2 = aes_ct::Aes256Enc::from(&full);
        for (bk, x) in [
            (dec.backend(), "dec"),
            (full2.backend(), "full2"),
            (enc2.backend(), "enc2"),
        ] {
            assert_eq!(bk, b, "{x} kept the backend");
        }
        let mut blocks = vec![Block::default(); 19];
        for x in blocks.iter_mut() {
            r.fill_bytes(x);
        }
        let mut a = blocks.clone();
        full.encrypt_blocks(&mut a);
        let mut c = blocks.clone();
        enc.encrypt_blocks(&mut c);
        assert_eq!(a, c);
        let mut c = blocks.clone();
        enc2.encrypt_blocks(&mut c);
        assert_eq!(a, c);
        dec.decrypt_blocks(&mut c);
        assert_eq!(c, blocks);
        full2.decrypt_blocks(&mut a);
        assert_eq!(a, blocks);
    }
}
