//! Quick interleaved timing of AES-GCM seal/open: every aes-gcm-ct path this
//! CPU runs, RustCrypto `aes-gcm` and `ring`, in one process, rounds
//! interleaved (so load from other processes hits all rows alike), best of
//! the rounds. Ratios between rows of one run are what to read.
//!
//!     cargo run --release -p aes-gcm-ct --example speed_gcm [-- 128|256 [rounds]]

use aes_gcm_ct::{AesGcm, Backend, aead::AeadInOut, aead::KeyInit};
use cipher::consts::U12;
use std::hint::black_box;
use std::time::Instant;

const SIZES: [usize; 5] = [16, 256, 1350, 8192, 16384];
const NONCE: [u8; 12] = [3; 12];

/// `f(buf, None)` seals `buf` and returns the tag; `f(buf, Some(tag))`
/// opens it and returns the tag back if it verified.
type F = Box<dyn Fn(&mut [u8], Option<&[u8; 16]>) -> Option<[u8; 16]>>;

fn ours<A>(key: &[u8], b: Backend) -> Option<F>
where
    A: cipher::BlockCipherEncrypt
        + cipher::BlockSizeUser<BlockSize = cipher::consts::U16>
        + cipher::KeyInit
        + Clone
        + 'static,
{
    let g = AesGcm::<A, U12>::new_with_backend(key.try_into().ok()?, b).ok()?;
    Some(Box::new(
        move |buf: &mut [u8], tag: Option<&[u8; 16]>| match tag {
            None => Some(
                g.encrypt_inout_detached(&NONCE.into(), b"", buf.into())
                    .unwrap()
                    .into(),
            ),
            Some(t) => g
                .decrypt_inout_detached(&NONCE.into(), b"", buf.into(), t.into())
                .ok()
                .map(|_| *t),
        },
    ))
}

fn rustcrypto(key: &[u8]) -> F {
    macro_rules! rc {
        ($t:ty) => {{
            let g = <$t>::new(key.try_into().unwrap());
            Box::new(move |buf: &mut [u8], tag: Option<&[u8; 16]>| match tag {
                None => Some(
                    g.encrypt_inout_detached(&NONCE.into(), b"", buf.into())
                        .unwrap()
                        .into(),
                ),
                Some(t) => g
                    .decrypt_inout_detached(&NONCE.into(), b"", buf.into(), t.into())
                    .ok()
                    .map(|_| *t),
            }) as F
        }};
    }
    if key.len() == 16 {
        rc!(aes_gcm::Aes128Gcm)
    } else {
        rc!(aes_gcm::Aes256Gcm)
    }
}

fn ring(key: &[u8]) -> F {
    use ring::aead::{AES_128_GCM, AES_256_GCM, Aad, LessSafeKey, Nonce, UnboundKey};
    let alg = if key.len() == 16 {
        &AES_128_GCM
    } else {
        &AES_256_GCM
    };
    let k = LessSafeKey::new(UnboundKey::new(alg, key).unwrap());
    Box::new(move |buf: &mut [u8], tag: Option<&[u8; 16]>| {
        let n = Nonce::assume_unique_for_key(NONCE);
        match tag {
            None => {
                let t = k.seal_in_place_separate_tag(n, Aad::empty(), buf).unwrap();
                Some(t.as_ref().try_into().unwrap())
            }
            Some(t) => k
                .open_in_place_separate_tag(n, Aad::empty(), (*t).into(), buf, 0..)
                .ok()
                .map(|_| *t),
        }
    })
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let bits: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(128);
    let rounds: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(15);
    let key = vec![7u8; bits / 8];
    let mut rows: Vec<(String, F)> = Vec::new();
    for b in Backend::available() {
        let f = if bits == 128 {
            ours::<aes_ct::Aes128>(&key, b)
        } else {
            ours::<aes_ct::Aes256>(&key, b)
        };
        if let Some(f) = f {
            rows.push((format!("ct/{}", b.name()), f));
        }
    }
    rows.push(("rustcrypto".into(), rustcrypto(&key)));
    rows.push(("ring".into(), ring(&key)));
    println!("AES-{bits}-GCM, best of {rounds} interleaved rounds, MB/s; ratio = row / ring");
    for op in [true, false] {
        for len in SIZES {
            let mut buf = vec![0x5au8; len];
            // Every row seals to the same ciphertext and tag (checked).
            let tag = rows[0].1(&mut buf, None).unwrap();
            let ct = buf.clone();
            for (name, f) in &rows {
                let mut b = vec![0x5au8; len];
                assert_eq!(f(&mut b, None), Some(tag), "{name}");
                assert_eq!(b, ct, "{name}");
                assert_eq!(f(&mut b, Some(&tag)), Some(tag), "{name}");
            }
            let iters = (4_000_000 / (len + 64)).max(50);
            let mut best = vec![f64::MAX; rows.len()];
            for _ in 0..rounds {
                for (i, (_, f)) in rows.iter().enumerate() {
                    let t = Instant::now();
                    // Open copies the ciphertext back first (all rows alike).
                    for _ in 0..iters {
                        if op {
                            black_box(f(black_box(&mut buf), None));
                        } else {
                            buf.copy_from_slice(&ct);
                            black_box(f(black_box(&mut buf), Some(&tag)));
                        }
                    }
                    let dt = t.elapsed().as_secs_f64() / iters as f64;
                    best[i] = best[i].min(dt);
                }
            }
            let ring_t = best[rows.len() - 1];
            let rc_t = best[rows.len() - 2];
            let op_name = if op { "seal" } else { "open" };
            for (i, (name, _)) in rows.iter().enumerate() {
                println!(
                    "{op_name} {len:>5} {name:<18} {:>8.0} MB/s {:>7.1} ns  vs ring {:>5.2}x  vs rustcrypto {:>5.2}x",
                    len as f64 / best[i] / 1e6,
                    best[i] * 1e9,
                    ring_t / best[i],
                    rc_t / best[i]
                );
            }
        }
    }
}
