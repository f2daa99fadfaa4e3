//! adiantum-ct against the crates.io `adiantum` 0.2 crate (criterion).
//!
//! `cargo bench -p benches --bench adiantum` encrypts 512- and 4096-byte
//! messages in place with a 32-byte tweak: the reference crate (XChaCha12 +
//! RustCrypto `aes`), and adiantum-ct's Adiantum (XChaCha12) on every NH
//! backend this CPU runs (forced with `new_with_backend`), plus the XChaCha20
//! / XChaCha8 and HPolyC variants on the default backend. Group
//! `adiantum/<len>`, throughput in bytes.

use adiantum_ct::{
    Adiantum, AdiantumXChaCha8, AdiantumXChaCha20, Backend, HPolyC, HPolyCXChaCha8,
    HPolyCXChaCha20, cipher::KeyInit,
};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::{hint::black_box, time::Duration};

const KEY: [u8; 32] = [0x42; 32];
const TWEAK: [u8; 32] = [7; 32];

fn adiantum(c: &mut Criterion) {
    for len in [512usize, 4096] {
        let mut g = c.benchmark_group(format!("adiantum/{len}"));
        g.throughput(Throughput::Bytes(len as u64));
        let mut buf = vec![0u8; len];

        let reference = adiantum::Cipher::<chacha20::XChaCha12, aes::Aes256>::new(&KEY.into());
        g.bench_function("crate-adiantum-0.2", |b| {
            b.iter(|| reference.encrypt(black_box(&mut buf), black_box(&TWEAK)))
        });
        for be in Backend::available() {
            let ours = Adiantum::new_with_backend(&KEY.into(), be).unwrap();
            g.bench_function(format!("ct-xchacha12-{}", be.name()), |b| {
                b.iter(|| {
                    ours.encrypt(black_box(&TWEAK), black_box(&mut buf))
                        .unwrap()
                })
            });
        }
        macro_rules! variant {
            ($t:ty, $name:literal) => {
                let ours = <$t>::new(&KEY.into());
                g.bench_function($name, |b| {
                    b.iter(|| {
                        ours.encrypt(black_box(&TWEAK), black_box(&mut buf))
                            .unwrap()
                    })
                });
            };
        }
        variant!(AdiantumXChaCha20, "ct-xchacha20");
        variant!(AdiantumXChaCha8, "ct-xchacha8");
        variant!(HPolyC, "ct-hpolyc-xchacha12");
        variant!(HPolyCXChaCha20, "ct-hpolyc-xchacha20");
        variant!(HPolyCXChaCha8, "ct-hpolyc-xchacha8");
        g.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(Duration::from_secs(2)).warm_up_time(Duration::from_millis(500));
    targets = adiantum
}
criterion_main!(benches);
