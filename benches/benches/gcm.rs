//! AES-GCM seal/open: aes-gcm-ct against RustCrypto `aes-gcm` 0.11 and
//! `ring` 0.17 (criterion).
//!
//! `cargo bench -p benches --bench gcm` measures, for AES-128 and AES-256
//! at 16, 256, 1350, 8192 and 16384 bytes (the sizes of `bssl speed`),
//! seal and open with no AAD:
//! * `ct/<path>`: aes-gcm-ct with each path this CPU runs (forced with
//!   `new_with_backend`; `generic` = detected aes-ct and ghash-ct backends);
//! * `ct/sw`: the constant-time software path (generic path over aes-ct's
//!   vpaes/bsaes `hybrid` and ghash-ct's best portable backend), as on a CPU
//!   without AES-NI/PCLMULQDQ;
//! * `rustcrypto`: `aes-gcm` as built (auto-detected). For its soft backend
//!   build again with `RUSTFLAGS='--cfg aes_backend="soft" --cfg
//!   polyval_backend="soft"'` in another target dir;
//! * `ring`.
//!
//! Filter with criterion's usual argument, e.g. `-- 'gcm/aes128/seal/1350'`.

use aes_gcm_ct::{AesGcm, Backend, aead::AeadInOut, aead::KeyInit};
use cipher::consts::U12;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::{hint::black_box, time::Duration};

const SIZES: [usize; 5] = [16, 256, 1350, 8192, 16384];
const NONCE: [u8; 12] = [3; 12];

type Seal = Box<dyn Fn(&mut [u8]) -> [u8; 16]>;
type Open = Box<dyn Fn(&mut [u8], &[u8; 16]) -> bool>;

fn ours<A>(key: &[u8], path: Option<Backend>) -> Option<(Seal, Open)>
where
    A: cipher::BlockCipherEncrypt
        + cipher::BlockSizeUser<BlockSize = cipher::consts::U16>
        + cipher::KeyInit
        + Clone
        + 'static,
{
    let g = match path {
        Some(b) => AesGcm::<A, U12>::new_with_backend(key.try_into().ok()?, b).ok()?,
        None => {
            // Constant-time software: hybrid AES + portable GHASH.
            let aes_b = aes_ct::Backend::available().find(|b| b.name() == "hybrid")?;
            let gh = ghash_ct::Backend::available().find(|b| b.name().starts_with("soft"))?;
            let k = aes_sw::<A>(key, aes_b)?;
            AesGcm::<A, U12>::with_ghash_backend(k, gh).ok()?
        }
    };
    let g2 = g.clone();
    Some((
        Box::new(move |buf: &mut [u8]| {
            g.encrypt_inout_detached(&NONCE.into(), b"", buf.into())
                .unwrap()
                .into()
        }),
        Box::new(move |buf: &mut [u8], tag: &[u8; 16]| {
            g2.decrypt_inout_detached(&NONCE.into(), b"", buf.into(), tag.into())
                .is_ok()
        }),
    ))
}

/// An aes-ct key of type `A` with backend `b`.
fn aes_sw<A: 'static + Clone>(key: &[u8], b: aes_ct::Backend) -> Option<A> {
    use std::any::Any;
    let k: Box<dyn Any> = match key.len() {
        16 => Box::new(aes_ct::Aes128::new_with_backend(key.try_into().ok()?, b).ok()?),
        32 => Box::new(aes_ct::Aes256::new_with_backend(key.try_into().ok()?, b).ok()?),
        _ => return None,
    };
    k.downcast_ref::<A>().cloned()
}

fn rustcrypto(key: &[u8]) -> (Seal, Open) {
    macro_rules! rc {
        ($t:ty) => {{
            let g = <$t>::new(key.try_into().unwrap());
            let g2 = g.clone();
            (
                Box::new(move |buf: &mut [u8]| {
                    g.encrypt_inout_detached(&NONCE.into(), b"", buf.into())
                        .unwrap()
                        .into()
                }) as Seal,
                Box::new(move |buf: &mut [u8], tag: &[u8; 16]| {
                    g2.decrypt_inout_detached(&NONCE.into(), b"", buf.into(), tag.into())
                        .is_ok()
                }) as Open,
            )
        }};
    }
    if key.len() == 16 {
        rc!(aes_gcm::Aes128Gcm)
    } else {
        rc!(aes_gcm::Aes256Gcm)
    }
}

fn ring(key: &[u8]) -> (Seal, Open) {
    use ring::aead::{AES_128_GCM, AES_256_GCM, Aad, LessSafeKey, Nonce, Tag, UnboundKey};
    let alg = if key.len() == 16 {
        &AES_128_GCM
    } else {
        &AES_256_GCM
    };
    let k = LessSafeKey::new(UnboundKey::new(alg, key).unwrap());
    let k2 = LessSafeKey::new(UnboundKey::new(alg, key).unwrap());
    (
        Box::new(move |buf: &mut [u8]| {
            let t: Tag = k
                .seal_in_place_separate_tag(Nonce::assume_unique_for_key(NONCE), Aad::empty(), buf)
                .unwrap();
            t.as_ref().try_into().unwrap()
        }),
        Box::new(move |buf: &mut [u8], tag: &[u8; 16]| {
            k2.open_in_place_separate_tag(
                Nonce::assume_unique_for_key(NONCE),
                Aad::empty(),
                (*tag).into(),
                buf,
                0..,
            )
            .is_ok()
        }),
    )
}

fn gcm(c: &mut Criterion) {
    for (bits, key) in [(128, &[7u8; 16][..]), (256, &[7u8; 32][..])] {
        let mut impls: Vec<(String, Seal, Open)> = Vec::new();
        for b in Backend::available() {
            let x = if bits == 128 {
                ours::<aes_ct::Aes128>(key, Some(b))
            } else {
                ours::<aes_ct::Aes256>(key, Some(b))
            };
            if let Some((s, o)) = x {
                impls.push((format!("ct/{}", b.name()), s, o));
            }
        }
        let sw = if bits == 128 {
            ours::<aes_ct::Aes128>(key, None)
        } else {
            ours::<aes_ct::Aes256>(key, None)
        };
        if let Some((s, o)) = sw {
            impls.push(("ct/sw".into(), s, o));
        }
        let (s, o) = rustcrypto(key);
        impls.push(("rustcrypto".into(), s, o));
        let (s, o) = ring(key);
        impls.push(("ring".into(), s, o));

        for len in SIZES {
            for op in ["seal", "open"] {
                let mut g = c.benchmark_group(format!("gcm/aes{bits}/{op}/{len}"));
                g.throughput(Throughput::Bytes(len as u64));
                for (name, seal, open) in &impls {
                    let mut buf = vec![0x5au8; len];
                    if op == "seal" {
                        g.bench_function(name.as_str(), |bn| bn.iter(|| seal(black_box(&mut buf))));
                    } else {
                        // Opening alternates the buffer between two valid
                        // ciphertexts (one nonce: the ciphertext's plaintext
                        // is the ciphertext of the ciphertext), so nothing is
                        // copied between opens.
                        let tag = seal(&mut buf);
                        let mut back = buf.clone();
                        let tags = [tag, seal(&mut back)];
                        let mut next = 0;
                        g.bench_function(name.as_str(), |bn| {
                            bn.iter(|| {
                                assert!(open(black_box(&mut buf), &tags[next]));
                                next ^= 1;
                            })
                        });
                    }
                }
                g.finish();
            }
        }
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(Duration::from_millis(700)).warm_up_time(Duration::from_millis(200));
    targets = gcm
}
criterion_main!(benches);
