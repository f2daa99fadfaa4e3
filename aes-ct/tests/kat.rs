//! Known answers: FIPS-197 appendix C and every record of the NIST CAVP AES
//! KAT files (GFSbox, KeySbox, VarKey, VarTxt for 128/192/256-bit keys,
//! encrypt and decrypt sections), on every backend this CPU can run, through
//! the full, encrypt-only and decrypt-only types.

mod common;

use aes_ct::{
    Aes128, Aes128Dec, Aes128Enc, Aes192, Aes192Dec, Aes192Enc, Aes256, Aes256Dec, Aes256Enc,
    Backend, Block,
};
use cipher::{BlockCipherDecrypt, BlockCipherEncrypt, KeyInit, consts::U16};
use common::{backends, unhex};

struct Record {
    encrypt: bool,
    key: Vec<u8>,
    pt: [u8; 16],
    ct: [u8; 16],
}

fn parse_rsp(text: &str) -> Vec<Record> {
    let mut out = Vec::new();
    let mut encrypt = true;
    let (mut key, mut pt, mut ct) = (None, None, None);
    for line in text.lines().map(str::trim) {
        match line {
            "[ENCRYPT]" => encrypt = true,
            "[DECRYPT]" => encrypt = false,
            _ => {}
        }
        let Some((k, v)) = line.split_once(" = ") else {
            continue;
        };
        match k {
            "KEY" => key = Some(unhex(v)),
            "PLAINTEXT" => pt = Some(unhex(v).try_into().unwrap()),
            "CIPHERTEXT" => ct = Some(unhex(v).try_into().unwrap()),
            _ => {}
        }
        if let (Some(_), Some(_), Some(_)) = (&key, &pt, &ct) {
            out.push(Record {
                encrypt,
                key: key.take().unwrap(),
                pt: pt.take().unwrap(),
                ct: ct.take().unwrap(),
            });
        }
    }
    out
}

/// Check one record with the full type and the one-direction type.
fn check<C, E, D>(backend: Backend, r: &Record, mk: impl Fn(&[u8], Backend) -> (C, E, D))
where
    C: BlockCipherEncrypt<BlockSize = U16> + BlockCipherDecrypt,
    E: BlockCipherEncrypt<BlockSize = U16>,
    D: BlockCipherDecrypt + cipher::BlockSizeUser<BlockSize = U16>,
{
    let (c, e, d) = mk(&r.key, backend);
    let ctx = format!("backend {backend:?} key {}", hex::encode(&r.key));
    if r.encrypt {
        let mut b = Block::from(r.pt);
        c.encrypt_block(&mut b);
        assert_eq!(b, Block::from(r.ct), "encrypt, {ctx}");
        let mut b = Block::from(r.pt);
        e.encrypt_block(&mut b);
        assert_eq!(b, Block::from(r.ct), "encrypt-only, {ctx}");
    } else {
        let mut b = Block::from(r.ct);
        c.decrypt_block(&mut b);
        assert_eq!(b, Block::from(r.pt), "decrypt, {ctx}");
        let mut b = Block::from(r.ct);
        d.decrypt_block(&mut b);
        assert_eq!(b, Block::from(r.pt), "decrypt-only, {ctx}");
    }
}

macro_rules! mk {
    ($full:ty, $enc:ty, $dec:ty) => {
        |k: &[u8], b: Backend| {
            let key = k.try_into().unwrap();
            (
                <$full>::new_with_backend(key, b).unwrap(),
                <$enc>::new_with_backend(key, b).unwrap(),
                <$dec>::new_with_backend(key, b).unwrap(),
            )
        }
    };
}

fn run_file(name: &str, text: &str) {
    let records = parse_rsp(text);
    assert!(
        records.len() >= 10,
        "{name}: parsed only {} records",
        records.len()
    );
    assert!(records.iter().any(|r| r.encrypt) && records.iter().any(|r| !r.encrypt));
    for b in backends() {
        for r in &records {
            match r.key.len() {
                16 => check(b, r, mk!(Aes128, Aes128Enc, Aes128Dec)),
                24 => check(b, r, mk!(Aes192, Aes192Enc, Aes192Dec)),
                32 => check(b, r, mk!(Aes256, Aes256Enc, Aes256Dec)),
                n => panic!("{name}: key length {n}"),
            }
        }
    }
}

macro_rules! kat_files {
    ($($test:ident => $file:literal,)*) => {$(
        #[test]
        fn $test() {
            run_file($file, include_str!(concat!("data/", $file)));
        }
    )*};
}

kat_files! {
    gfsbox_128 => "ECBGFSbox128.rsp",
    gfsbox_192 => "ECBGFSbox192.rsp",
    gfsbox_256 => "ECBGFSbox256.rsp",
    keysbox_128 => "ECBKeySbox128.rsp",
    keysbox_192 => "ECBKeySbox192.rsp",
    keysbox_256 => "ECBKeySbox256.rsp",
    varkey_128 => "ECBVarKey128.rsp",
    varkey_192 => "ECBVarKey192.rsp",
    varkey_256 => "ECBVarKey256.rsp",
    vartxt_128 => "ECBVarTxt128.rsp",
    vartxt_192 => "ECBVarTxt192.rsp",
    vartxt_256 => "ECBVarTxt256.rsp",
}

/// FIPS-197 appendix C.1-C.3: key 000102..., plaintext 00112233...
#[test]
fn fips197_appendix_c() {
    let key: Vec<u8> = (0u8..32).collect();
    let pt = Block::from(<[u8; 16]>::try_from(unhex("00112233445566778899aabbccddeeff")).unwrap());
    let cases = [
        (16, "69c4e0d86a7b0430d8cdb78070b4c55a"),
        (24, "dda97ca4864cdfe06eaf70a0ec0d7191"),
        (32, "8ea2b7ca516745bfeafc49904b496089"),
    ];
    for b in backends() {
        for (n, ct) in cases {
            let r = Record {
                encrypt: true,
                key: key[..n].to_vec(),
                pt: pt.into(),
                ct: unhex(ct).try_into().unwrap(),
            };
            let d = Record {
                encrypt: false,
                ..Record {
                    key: r.key.clone(),
                    ..r
                }
            };
            for rec in [&r, &d] {
                match n {
                    16 => check(b, rec, mk!(Aes128, Aes128Enc, Aes128Dec)),
                    24 => check(b, rec, mk!(Aes192, Aes192Enc, Aes192Dec)),
                    _ => check(b, rec, mk!(Aes256, Aes256Enc, Aes256Dec)),
                }
            }
        }
    }
}

/// Many blocks at once (the parallel paths) give the single-block answer.
#[test]
fn batches_match_single_blocks() {
    let key: Vec<u8> = (0u8..32).collect();
    for b in backends() {
        let c = Aes256::new_with_backend(key.as_slice().try_into().unwrap(), b).unwrap();
        let blocks: Vec<Block> = (0..67u8).map(|i| Block::from([i; 16])).collect();
        let mut bulk = blocks.clone();
        c.encrypt_blocks(&mut bulk);
        for (i, (p, x)) in blocks.iter().zip(&bulk).enumerate() {
            let mut one = *p;
            c.encrypt_block(&mut one);
            assert_eq!(&one, x, "backend {b:?}, block {i}");
        }
        c.decrypt_blocks(&mut bulk);
        assert_eq!(bulk, blocks, "backend {b:?}: decrypt(encrypt(x)) != x");
    }
    let _ = Aes128::new(&[0u8; 16].into());
}
