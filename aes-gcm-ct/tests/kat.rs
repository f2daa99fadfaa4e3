//! Known answers: GCM spec cases 1-18 (+2 BoringSSL extras), the NIST CAVP
//! subset in tests/data (all key sizes, IV lengths 8/96/1024 bits, tag
//! lengths 32..128 bits, FAIL records), and all of Wycheproof
//! aes_gcm_test.json, over every path this CPU runs.
mod common;
use common::*;
use serde_json::Value;

const SPEC: &str = include_str!("data/gcm_spec_mcgrew_viega.json");
const WYCHEPROOF: &str = include_str!("data/aes_gcm_test.json");

#[allow(clippy::too_many_arguments)]
/// Check one valid vector on `path`: seal (out of place and in place) and
/// open (both ways).
fn check_valid(
    path: Path,
    key: &[u8],
    iv: &[u8],
    aad: &[u8],
    pt: &[u8],
    ct: &[u8],
    tag: &[u8],
    what: &str,
) {
    let g = gcm(key, iv.len(), tag.len(), path)
        .unwrap_or_else(|| panic!("{what}: no cipher on {path:?}"));
    let (c, t) = g
        .seal(iv, aad, pt)
        .unwrap_or_else(|_| panic!("{what}: seal failed"));
    assert_eq!(
        (c.as_slice(), t.as_slice()),
        (ct, tag),
        "{what} on {path:?}"
    );
    let mut b = pt.to_vec();
    assert_eq!(
        g.seal_in_place(iv, aad, &mut b).unwrap(),
        tag,
        "{what} in place"
    );
    assert_eq!(b, ct, "{what} in place");
    let mut out = vec![0u8; ct.len()];
    g.open_into(iv, aad, ct, tag, &mut out)
        .unwrap_or_else(|_| panic!("{what}: open failed on {path:?}"));
    assert_eq!(out, pt, "{what} open");
    let mut b = ct.to_vec();
    g.open_in_place(iv, aad, &mut b, tag).unwrap();
    assert_eq!(b, pt, "{what} open in place");
}

/// Check one invalid vector: opening must fail and leave no plaintext.
fn check_invalid(g: &dyn Gcm, iv: &[u8], aad: &[u8], ct: &[u8], tag: &[u8], what: &str) {
    let mut b = ct.to_vec();
    assert!(
        g.open_in_place(iv, aad, &mut b, tag).is_err(),
        "{what}: accepted"
    );
    assert_eq!(b, ct, "{what}: buffer changed");
    let mut out = vec![0u8; ct.len()];
    assert!(
        g.open_into(iv, aad, ct, tag, &mut out).is_err(),
        "{what}: accepted"
    );
    // Rejected after decrypting: the output holds the ciphertext again;
    // rejected up front (bad nonce or length): the output is untouched.
    assert!(
        out == ct || out.iter().all(|&b| b == 0),
        "{what}: output holds other data"
    );
}

#[test]
fn gcm_spec_cases() {
    let v: Value = serde_json::from_str(SPEC).unwrap();
    let mut cases: Vec<&Value> = v["spec_test_cases"].as_array().unwrap().iter().collect();
    cases.extend(v["extra_boringssl"].as_array().unwrap());
    assert_eq!(cases.len(), 20);
    for path in all_paths() {
        for c in &cases {
            let f = |k: &str| unhex(c[k].as_str().unwrap());
            let what = format!("spec case {}", c["test_case"]);
            check_valid(
                path,
                &f("key_hex"),
                &f("iv_hex"),
                &f("aad_hex"),
                &f("plaintext_hex"),
                &f("ciphertext_hex"),
                &f("tag_hex"),
                &what,
            );
        }
    }
}

struct Record {
    key: Vec<u8>,
    iv: Vec<u8>,
    pt: Option<Vec<u8>>,
    aad: Vec<u8>,
    ct: Vec<u8>,
    tag: Vec<u8>,
    fail: bool,
    at: String,
}

fn parse_rsp(name: &str, text: &str) -> Vec<Record> {
    let mut out = Vec::new();
    let mut cur: Option<Record> = None;
    let mut group = String::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            group.push_str(line);
            continue;
        }
        if let Some(v) = line.strip_prefix("Count = ") {
            out.extend(cur.take());
            cur = Some(Record {
                key: vec![],
                iv: vec![],
                pt: None,
                aad: vec![],
                ct: vec![],
                tag: vec![],
                fail: false,
                at: format!("{name} {group} Count {v}"),
            });
            group.clear();
            continue;
        }
        let Some(r) = cur.as_mut() else { continue };
        if line == "FAIL" {
            r.fail = true;
        } else if let Some((k, v)) = line.split_once('=') {
            let v = unhex(v);
            match k.trim() {
                "Key" => r.key = v,
                "IV" => r.iv = v,
                "PT" => r.pt = Some(v),
                "AAD" => r.aad = v,
                "CT" => r.ct = v,
                "Tag" => r.tag = v,
                _ => {}
            }
        }
    }
    out.extend(cur);
    out
}

/// Does `tag` (possibly shorter than 16 bytes) authenticate `ct`? For tag
/// lengths the API has no type for (4 and 8 bytes without the `hazmat`
/// feature), computed through the API as far as it goes: decrypt by CTR
/// (sealing the ciphertext yields the plaintext), seal that plaintext with
/// a 16-byte tag, and compare the prefix.
fn short_tag_ok(key: &[u8], iv: &[u8], aad: &[u8], ct: &[u8], tag: &[u8], path: Path) -> bool {
    let g = gcm(key, iv.len(), 16, path).unwrap();
    let (pt, _) = g.seal(iv, aad, ct).unwrap();
    let (ct2, full) = g.seal(iv, aad, &pt).unwrap();
    assert_eq!(ct2, ct);
    full[..tag.len()] == *tag
}

const NIST: [(&str, &str); 6] = [
    (
        "gcmEncryptExtIV128",
        include_str!("data/gcmEncryptExtIV128.subset.rsp"),
    ),
    (
        "gcmEncryptExtIV192",
        include_str!("data/gcmEncryptExtIV192.subset.rsp"),
    ),
    (
        "gcmEncryptExtIV256",
        include_str!("data/gcmEncryptExtIV256.subset.rsp"),
    ),
    (
        "gcmDecrypt128",
        include_str!("data/gcmDecrypt128.subset.rsp"),
    ),
    (
        "gcmDecrypt192",
        include_str!("data/gcmDecrypt192.subset.rsp"),
    ),
    (
        "gcmDecrypt256",
        include_str!("data/gcmDecrypt256.subset.rsp"),
    ),
];

#[test]
fn nist_cavp_subset() {
    let (mut typed, mut short, mut fails) = (0, 0, 0);
    for path in some_paths() {
        for (name, text) in NIST {
            let recs = parse_rsp(name, text);
            assert!(recs.len() > 1500, "{name}");
            for r in recs {
                let typed_cipher = gcm(&r.key, r.iv.len(), r.tag.len(), path);
                match (&typed_cipher, r.fail) {
                    (Some(_), false) => {
                        let pt = r.pt.as_ref().expect("PT");
                        check_valid(path, &r.key, &r.iv, &r.aad, pt, &r.ct, &r.tag, &r.at);
                        typed += 1;
                    }
                    (Some(g), true) => {
                        check_invalid(g.as_ref(), &r.iv, &r.aad, &r.ct, &r.tag, &r.at);
                        fails += 1;
                    }
                    (None, fail) => {
                        // 4- and 8-byte tags without the `hazmat` feature.
                        assert!(matches!(r.tag.len(), 4 | 8), "{}: unsupported sizes", r.at);
                        assert_eq!(
                            short_tag_ok(&r.key, &r.iv, &r.aad, &r.ct, &r.tag, path),
                            !fail,
                            "{}",
                            r.at
                        );
                        if let Some(pt) = &r.pt {
                            let g = gcm(&r.key, r.iv.len(), 16, path).unwrap();
                            let (c, t) = g.seal(&r.iv, &r.aad, pt).unwrap();
                            assert_eq!(
                                (c, &t[..r.tag.len()]),
                                (r.ct.clone(), &r.tag[..]),
                                "{}",
                                r.at
                            );
                        }
                        short += 1;
                    }
                }
            }
        }
    }
    eprintln!(
        "NIST: {typed} typed valid, {fails} FAIL rejected, {short} short-tag records checked via 16-byte tags"
    );
    assert!(typed > 0 && fails > 0);
}

#[test]
fn wycheproof_aes_gcm() {
    let v: Value = serde_json::from_str(WYCHEPROOF).unwrap();
    let mut n = 0;
    for path in some_paths() {
        for group in v["testGroups"].as_array().unwrap() {
            for t in group["tests"].as_array().unwrap() {
                let f = |k: &str| unhex(t[k].as_str().unwrap());
                let (key, iv, aad, msg, ct, tag) =
                    (f("key"), f("iv"), f("aad"), f("msg"), f("ct"), f("tag"));
                let what = format!("wycheproof tcId {} ({})", t["tcId"], t["comment"]);
                let g = gcm(&key, iv.len(), tag.len(), path);
                match t["result"].as_str().unwrap() {
                    "valid" | "acceptable" => {
                        check_valid(path, &key, &iv, &aad, &msg, &ct, &tag, &what);
                    }
                    _ => {
                        let g = g.unwrap_or_else(|| panic!("{what}: no cipher for these sizes"));
                        check_invalid(g.as_ref(), &iv, &aad, &ct, &tag, &what);
                        if iv.is_empty() {
                            assert!(g.seal(&iv, &aad, &msg).is_err(), "{what}: empty IV sealed");
                        }
                    }
                }
                n += 1;
            }
        }
    }
    assert!(n >= 316);
}
