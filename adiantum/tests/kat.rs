//! Known answers: the Adiantum authors' vectors (google/adiantum
//! `test_vectors/ours`, copied into `tests/data`, see its README):
//! Adiantum and HPolyC with XChaCha8/12/20 in both directions for every
//! message length (16, 31, 128, 512, 1536, 4096) and tweak length (0, 17,
//! 32) the files contain, on every available NH backend; and the parts: NH,
//! NHPoly1305, Poly1305 and XChaCha.

use adiantum_ct::{
    Adiantum, AdiantumXChaCha8, AdiantumXChaCha20, Backend, HPolyC, HPolyCXChaCha8,
    HPolyCXChaCha20, HashVariant, Hbsh, NhPoly1305, Poly1305Hash, StreamVariant,
    UnsupportedBackend, XChaCha8, XChaCha12, XChaCha20, hazmat,
};
use cipher::KeyInit;
use serde_json::Value;
use std::collections::BTreeSet;

fn hx(v: &Value) -> Vec<u8> {
    hex::decode(v.as_str().expect("hex string")).expect("valid hex")
}

fn vectors(json: &str) -> Vec<Value> {
    match serde_json::from_str(json).expect("valid JSON") {
        Value::Array(a) => a,
        _ => panic!("expected a JSON array"),
    }
}

/// Checks one Adiantum/HPolyC vector in both directions, in place and
/// buffer to buffer.
fn check_one<S: StreamVariant, H: HashVariant>(c: &Hbsh<S, H>, v: &Value) {
    let tweak = hx(&v["input"]["tweak_hex"]);
    let pt = hx(&v["plaintext_hex"]);
    let ct = hx(&v["ciphertext_hex"]);
    assert_eq!(pt.len(), ct.len());

    let mut buf = pt.clone();
    c.encrypt(&tweak, &mut buf).expect("encrypt");
    assert_eq!(
        hex::encode(&buf),
        hex::encode(&ct),
        "encrypt {}",
        v["description"]
    );
    c.decrypt(&tweak, &mut buf).expect("decrypt");
    assert_eq!(buf, pt, "decrypt back");

    let mut out = vec![0u8; pt.len()];
    c.encrypt_to(&tweak, &pt, &mut out).expect("encrypt_to");
    assert_eq!(out, ct, "encrypt_to");
    c.decrypt_to(&tweak, &ct, &mut out).expect("decrypt_to");
    assert_eq!(out, pt, "decrypt_to");
}

/// Runs a whole file; returns the (tweak length, message length) pairs seen.
fn run_file<S: StreamVariant, H: HashVariant>(
    json: &str,
    name: &str,
    rounds: u64,
    make: impl Fn(&[u8; 32]) -> Vec<Hbsh<S, H>>,
) {
    let vs = vectors(json);
    assert_eq!(vs.len(), 72, "vector count in {name}");
    let mut seen = BTreeSet::new();
    for v in &vs {
        assert_eq!(v["cipher"]["cipher"], name);
        assert_eq!(v["cipher"]["streamcipher"]["rounds"], rounds);
        let key: [u8; 32] = hx(&v["input"]["key_hex"]).try_into().expect("32-byte key");
        for c in make(&key) {
            check_one(&c, v);
        }
        seen.insert((
            hx(&v["input"]["tweak_hex"]).len(),
            hx(&v["plaintext_hex"]).len(),
        ));
    }
    let want: BTreeSet<_> = [0usize, 17, 32]
        .iter()
        .flat_map(|&t| [16usize, 31, 128, 512, 1536, 4096].map(|m| (t, m)))
        .collect();
    assert_eq!(seen, want, "every tweak and message length of {name}");
}

/// One key per available NH backend, each asserted to use it.
fn every_backend<S: StreamVariant, H: HashVariant>(key: &[u8; 32]) -> Vec<Hbsh<S, H>> {
    let v: Vec<_> = Backend::available()
        .map(|b| {
            let c = Hbsh::<S, H>::new_with_backend(key.into(), b).expect("available backend");
            assert_eq!(c.backend(), b);
            c
        })
        .collect();
    assert!(!v.is_empty());
    v
}

/// One test per file of the authors' Adiantum/HPolyC vectors:
/// `$test: $alias = $cipher($stream, $rounds, $hash)` runs
/// `data/<$cipher>_XChaCha<$rounds>_32_AES256.json` on every backend with
/// `Hbsh<$stream, $hash>`, which the alias `$alias` must name.
macro_rules! kat_files {
    ($($test:ident: $alias:ident = $cipher:literal($s:ident, $rounds:literal, $h:ident);)*) => {$(
        #[test]
        fn $test() {
            run_file(
                include_str!(concat!("data/", $cipher, "_XChaCha", $rounds, "_32_AES256.json")),
                $cipher,
                $rounds,
                every_backend::<$s, $h>,
            );
            // The alias is this construction.
            let _: Hbsh<$s, $h> = $alias::new(&[0u8; 32].into());
        }
    )*};
}

kat_files! {
    adiantum_xchacha12: Adiantum = "Adiantum"(XChaCha12, 12, NhPoly1305);
    adiantum_xchacha20: AdiantumXChaCha20 = "Adiantum"(XChaCha20, 20, NhPoly1305);
    adiantum_xchacha8: AdiantumXChaCha8 = "Adiantum"(XChaCha8, 8, NhPoly1305);
    hpolyc_xchacha12: HPolyC = "HPolyC"(XChaCha12, 12, Poly1305Hash);
    hpolyc_xchacha20: HPolyCXChaCha20 = "HPolyC"(XChaCha20, 20, Poly1305Hash);
    hpolyc_xchacha8: HPolyCXChaCha8 = "HPolyC"(XChaCha8, 8, Poly1305Hash);
}

/// `hazmat::nh` or `hazmat::nhpoly1305`: a `K`-byte key, an `O`-byte hash.
type HashFn<const K: usize, const O: usize> =
    fn(Backend, &[u8; K], &[u8]) -> Result<[u8; O], UnsupportedBackend>;

/// Runs a file of NH-family vectors (`count` of them, whose message lengths
/// are exactly `lens`) through `hash` with a `K`-byte key on every
/// available backend.
fn hash_file<const K: usize, const O: usize>(
    json: &str,
    name: &str,
    count: usize,
    lens: &[usize],
    hash: HashFn<K, O>,
) {
    let vs = vectors(json);
    assert_eq!(vs.len(), count, "vector count in {name}");
    let mut seen = BTreeSet::new();
    for v in &vs {
        let key: [u8; K] = hx(&v["input"]["key_hex"])
            .try_into()
            .unwrap_or_else(|_| panic!("{K}-byte key in {name}"));
        let msg = hx(&v["input"]["message_hex"]);
        seen.insert(msg.len());
        let want = hx(&v["hash_hex"]);
        for b in Backend::available() {
            let got = hash(b, &key, &msg).expect("available backend");
            assert_eq!(got.to_vec(), want, "{name} on {b}, {} bytes", msg.len());
        }
    }
    assert_eq!(
        seen,
        BTreeSet::from_iter(lens.iter().copied()),
        "message lengths in {name}"
    );
}

#[test]
fn nh() {
    hash_file(
        include_str!("data/NH.json"),
        "NH",
        15,
        &[16, 1008, 1024],
        hazmat::nh,
    );
}

#[test]
fn nhpoly1305() {
    hash_file(
        include_str!("data/NHPoly1305.json"),
        "NHPoly1305",
        30,
        &[0, 16, 19, 1024, 1040, 2048],
        hazmat::nhpoly1305,
    );
}

#[test]
fn poly1305() {
    let mut n = 0;
    for json in [
        include_str!("data/Poly1305.json"),
        include_str!("data/Poly1305_other.json"),
    ] {
        for v in vectors(json) {
            let r: [u8; 16] = hx(&v["input"]["key_hex"]).try_into().expect("16-byte r");
            let s: [u8; 16] = hx(&v["input"]["mask_hex"]).try_into().expect("16-byte s");
            let msg = hx(&v["input"]["message_hex"]);
            let mac = hazmat::poly1305(&r, &msg).wrapping_add(u128::from_le_bytes(s));
            assert_eq!(
                mac.to_le_bytes().to_vec(),
                hx(&v["mac_hex"]),
                "Poly1305 {}",
                v["description"]
            );
            n += 1;
        }
    }
    assert_eq!(n, 24);
}

fn xchacha_blocks<S: StreamVariant>(json: &str, rounds: u64) {
    let vs = vectors(json);
    assert_eq!(vs.len(), 5);
    for v in vs {
        assert_eq!(v["cipher"]["rounds"], rounds);
        let key: [u8; 32] = hx(&v["input"]["key_hex"]).try_into().expect("32-byte key");
        let nonce: [u8; 24] = hx(&v["input"]["nonce_hex"])
            .try_into()
            .expect("24-byte nonce");
        let tests = v["tests"].as_array().expect("tests");
        assert_eq!(tests.len(), 5);
        for t in tests {
            let offset = u32::try_from(t["input"]["offset"].as_u64().expect("offset"))
                .expect("small offset");
            for b in Backend::available() {
                // One block, and the same block at the end of a 3-block run
                // (whole blocks and a partial tail on the backend path).
                let mut block = [0u8; 64];
                assert!(
                    hazmat::xchacha_xor::<S>(b, &key, &nonce, offset, &mut block)
                        .expect("available")
                );
                assert_eq!(
                    block.to_vec(),
                    hx(&t["result_hex"]),
                    "block {offset} on {b}"
                );
                if offset >= 2 {
                    let mut run = [0u8; 3 * 64 - 5];
                    assert!(
                        hazmat::xchacha_xor::<S>(b, &key, &nonce, offset - 2, &mut run)
                            .expect("available")
                    );
                    assert_eq!(
                        run[128..].to_vec(),
                        hx(&t["result_hex"])[..59].to_vec(),
                        "run to {offset} on {b}"
                    );
                }
            }
        }
    }
}

#[test]
fn xchacha() {
    xchacha_blocks::<XChaCha8>(include_str!("data/XChaCha8_32.json"), 8);
    xchacha_blocks::<XChaCha12>(include_str!("data/XChaCha12_32.json"), 12);
    xchacha_blocks::<XChaCha20>(include_str!("data/XChaCha20_32.json"), 20);
    let vs = vectors(include_str!("data/XChaCha_other.json"));
    assert_eq!(vs.len(), 10);
    for v in vs {
        let key: [u8; 32] = hx(&v["input"]["key_hex"]).try_into().expect("32-byte key");
        let nonce: [u8; 24] = hx(&v["input"]["nonce_hex"])
            .try_into()
            .expect("24-byte nonce");
        for b in Backend::available() {
            let mut buf = hx(&v["plaintext_hex"]);
            assert!(
                hazmat::xchacha_xor::<XChaCha20>(b, &key, &nonce, 0, &mut buf).expect("available")
            );
            assert_eq!(buf, hx(&v["ciphertext_hex"]), "on {b}");
        }
    }
}
