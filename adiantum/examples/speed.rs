//! Quick, load-tolerant timing: the minimum over many short batches, with
//! the reference crate and adiantum-ct interleaved. Prints ns per message
//! and the ratio. `cargo run --release -p adiantum-ct --example speed`.

use adiantum_ct::{
    Adiantum, AdiantumXChaCha8, AdiantumXChaCha20, Backend, HPolyC, HPolyCXChaCha8,
    HPolyCXChaCha20,
    cipher::{BlockCipherEncrypt, KeyInit},
};
use std::{hint::black_box, time::Instant};

const KEY: [u8; 32] = [0x42; 32];
const TWEAK: [u8; 32] = [7; 32];

/// Minimum ns per call of `f` over `rounds` batches of `batch` calls.
fn min_ns(rounds: usize, batch: usize, mut f: impl FnMut()) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..rounds {
        let t = Instant::now();
        for _ in 0..batch {
            f();
        }
        best = best.min(t.elapsed().as_nanos() as f64 / batch as f64);
    }
    best
}

fn main() {
    let rounds = 200;
    for len in [512usize, 4096] {
        let batch = if len == 512 { 200 } else { 40 };
        let mut buf = vec![0u8; len];
        let reference = adiantum::Cipher::<chacha20::XChaCha12, aes::Aes256>::new(&KEY.into());
        let r = min_ns(rounds, batch, || {
            reference.encrypt(black_box(&mut buf), black_box(&TWEAK))
        });
        println!(
            "{len:5} B  crate adiantum 0.2 (XChaCha12)     {r:9.0} ns  {:7.0} MB/s",
            len as f64 * 1e3 / r
        );
        for be in Backend::available() {
            let ours = Adiantum::new_with_backend(&KEY.into(), be).unwrap();
            let o = min_ns(rounds, batch, || {
                ours.encrypt(black_box(&TWEAK), black_box(&mut buf))
                    .unwrap()
            });
            println!(
                "{len:5} B  adiantum-ct Adiantum XChaCha12 {:9} {o:9.0} ns  {:7.0} MB/s  {:.2}x",
                be.name(),
                len as f64 * 1e3 / o,
                r / o
            );
        }
        macro_rules! v {
            ($t:ty, $name:literal) => {
                let ours = <$t>::new(&KEY.into());
                let o = min_ns(rounds, batch, || {
                    ours.encrypt(black_box(&TWEAK), black_box(&mut buf))
                        .unwrap()
                });
                println!(
                    "{len:5} B  adiantum-ct {:32} {o:9.0} ns  {:7.0} MB/s  {:.2}x",
                    $name,
                    len as f64 * 1e3 / o,
                    r / o
                );
            };
        }
        v!(AdiantumXChaCha20, "Adiantum XChaCha20");
        v!(AdiantumXChaCha8, "Adiantum XChaCha8");
        v!(HPolyC, "HPolyC XChaCha12");
        v!(HPolyCXChaCha20, "HPolyC XChaCha20");
        v!(HPolyCXChaCha8, "HPolyC XChaCha8");
    }
    // Parts.
    let aes = aes_ct::Aes256::new(&KEY.into());
    let mut blk = [0u8; 16].into();
    let a = min_ns(rounds, 200, || aes.encrypt_block(black_box(&mut blk)));
    println!(
        "part: aes-ct AES-256 one block ({:?}) {a:.0} ns",
        aes.backend()
    );
    let raes = aes::Aes256::new(&KEY.into());
    let a = min_ns(rounds, 200, || raes.encrypt_block(black_box(&mut blk)));
    println!("part: RustCrypto aes AES-256 one block {a:.0} ns");
    let key = [1u8; 1072];
    let msg = [2u8; 1024];
    for be in Backend::available() {
        let n = min_ns(rounds, 200, || {
            black_box(adiantum_ct::hazmat::nh(be, black_box(&key), black_box(&msg)).unwrap());
        });
        println!("part: NH 1024 B on {be}: {n:.0} ns");
    }
    let mut ks = vec![0u8; 4080];
    let n = min_ns(rounds, 40, || {
        let _ = adiantum_ct::hazmat::xchacha_xor::<adiantum_ct::XChaCha12>(
            Backend::detected(),
            &KEY,
            &[0; 24],
            0,
            black_box(&mut ks),
        );
    });
    println!("part: XChaCha12 4080 B {n:.0} ns");
    let n = min_ns(rounds, 40, || {
        black_box(adiantum_ct::hazmat::poly1305(&[3; 16], black_box(&ks)));
    });
    println!("part: Poly1305 4080 B {n:.0} ns");
}
