//! Known answers: GHASH values derived from the GCM spec (McGrew & Viega,
//! appendix B) and NIST CAVP GCM records (tests/data/ghash_kat.txt, made by
//! tests/data/derive_ghash_kat.py from the vectors' tags), and POLYVAL from
//! RFC 8452 appendix A, for every backend this CPU can run.

mod common;
use common::*;

use ghash_ct::{GHash, GHashKey, GHashState, Polyval, universal_hash::UniversalHash};

#[test]
fn ghash_kats_every_backend() {
    let kats = kats();
    for b in backends() {
        for k in &kats {
            let lens = len_block(k.a.len(), k.c.len());

            let mut g = GHash::new_with_backend(&k.h.into(), b).unwrap();
            assert_eq!(g.backend(), b);
            g.update_padded(&k.a);
            g.update_padded(&k.c);
            g.update(&[lens.into()]);
            assert_eq!(g.finalize().as_slice(), &k.s, "{} on {b}", k.src);

            // The AEAD-facing API: key built once, per-message state.
            let key = GHashKey::new_with_backend(&k.h.into(), b).unwrap();
            let mut st = GHashState::new();
            key.update_padded(&mut st, &k.a);
            key.update_padded(&mut st, &k.c);
            key.update_padded(&mut st, &lens);
            assert_eq!(
                key.finalize(st).as_slice(),
                &k.s,
                "{} on {b} (GHashKey)",
                k.src
            );

            let mut r = key.hasher();
            r.update_padded(&k.a);
            r.update_padded(&k.c);
            r.update_padded(&lens);
            assert_eq!(r.finalize().as_slice(), &k.s, "{} on {b} (GHashRef)", k.src);
        }
    }
}

/// GHASH(H, A, C) values printed in the GCM specification, appendix B.
#[test]
fn gcm_spec_printed_values() {
    let cases = [
        (
            "66e94bd4ef8a2c3b884cfa59ca342b2e",
            2,
            "f38cbb1ad69223dcc3457ae5b6b0f885",
        ),
        (
            "b83b533708bf535d0aa6e52980d53b78",
            3,
            "7f1b32b81b820d02614f8895ac1d4eac",
        ),
        (
            "b83b533708bf535d0aa6e52980d53b78",
            4,
            "698e57f70e6ecc7fd9463b7260a9ae5f",
        ),
    ];
    let kats = kats();
    for (h, case, s) in cases {
        let k = kats
            .iter()
            .find(|k| k.src == format!("GCM spec test case {case}"))
            .unwrap();
        assert_eq!(k.h, arr16(h));
        assert_eq!(k.s, arr16(s));
    }
}

/// RFC 8452 appendix A: POLYVAL(H, X_1, X_2).
#[test]
fn polyval_rfc8452_every_backend() {
    let h = arr16("25629347589242761d31f826ba4b757b");
    let x1 = arr16("4f4f95668c83dfb6401762bb2d01a262");
    let x2 = arr16("d1a24ddd2721d006bbe45f20d3c9f362");
    let want = arr16("f7a3b47b846119fae5b7866cf5e5b77e");
    for b in backends() {
        let mut p = Polyval::new_with_backend(&h.into(), b).unwrap();
        assert_eq!(p.backend(), b);
        p.update(&[x1.into(), x2.into()]);
        assert_eq!(p.finalize().as_slice(), &want, "{b}");
    }
}

/// Cross-check of the derived data (not of our code): H = AES_K(0) and
/// S xor AES_K(J0) = tag, recomputed with RustCrypto `aes` and `ghash`.
#[test]
fn derived_data_agrees_with_reference_crates() {
    use aes::cipher::{BlockCipherEncrypt, KeyInit};
    let kats = kats();
    for k in &kats {
        let mut r = ghash::GHash::new(&k.h.into());
        r.update_padded(&k.a);
        r.update_padded(&k.c);
        r.update_padded(&len_block(k.a.len(), k.c.len()));
        assert_eq!(r.finalize().as_slice(), &k.s, "{}", k.src);
    }
    let txt = include_str!("data/nist_gcm_selected.rsp");
    let mut checked = 0;
    for rec in txt
        .split("\n\n")
        .filter(|r| r.contains("Count =") && !r.contains("FAIL"))
    {
        let f = |n: &str| {
            let line = rec
                .lines()
                .find(|l| l.starts_with(&format!("{n} =")))
                .unwrap();
            unhex(line.split_once('=').unwrap().1)
        };
        let (key, iv, tag) = (f("Key"), f("IV"), f("Tag"));
        let enc = |blk: [u8; 16]| -> [u8; 16] {
            let mut b = blk.into();
            match key.len() {
                16 => aes::Aes128::new_from_slice(&key)
                    .unwrap()
                    .encrypt_block(&mut b),
                24 => aes::Aes192::new_from_slice(&key)
                    .unwrap()
                    .encrypt_block(&mut b),
                _ => aes::Aes256::new_from_slice(&key)
                    .unwrap()
                    .encrypt_block(&mut b),
            }
            b.into()
        };
        let h = enc([0; 16]);
        let (a, c) = (f("AAD"), f("CT"));
        let k = kats
            .iter()
            .find(|k| k.h == h && k.a == a && k.c == c)
            .expect("record in KAT file");
        let j0 = if iv.len() == 12 {
            let mut j = [0u8; 16];
            j[..12].copy_from_slice(&iv);
            j[15] = 1;
            j
        } else {
            let mut r = ghash::GHash::new(&h.into());
            r.update_padded(&iv);
            r.update_padded(&len_block(0, iv.len()));
            r.finalize().into()
        };
        let e = enc(j0);
        let t: Vec<u8> = k.s.iter().zip(e).map(|(x, y)| x ^ y).collect();
        assert_eq!(t, tag, "{}", k.src);
        checked += 1;
    }
    assert_eq!(checked, 5);
}
