//! The x86 software path at a chosen register width, next to RustCrypto
//! `aes-gcm` built soft, in one process (ratios; best of 5 timings of
//! N messages each). `cargo xtask speed` measures the software path with
//! everything this CPU has except AES-NI and PCLMULQDQ; this shows what a
//! CPU with less would run, e.g. SSSE3 only (Core 2 class): bsaes and
//! vpaes at 128 bits and the `pmuludq` GHASH.
//!
//! ```text
//! RUSTFLAGS='--cfg aes_backend="soft" --cfg polyval_backend="soft"
//!   --cfg aes_ct_backend="hybrid" --cfg ghash_ct_backend="pmuludq"' \
//!   cargo run --release -p aes-gcm-ct --example x86_software_width -- 1
//! ```
//!
//! The argument is the vpaes/bsaes width in 128-bit lanes (1: SSSE3,
//! 2: AVX2, 4: AVX-512); `ghash_ct_backend` picks the GHASH (`pmuludq`,
//! `vpmuludq256`, `vpmuludq512`, `soft64`). AES-128-GCM seal, 13 bytes of
//! AAD, in place.

#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
fn main() {
    use aes_gcm_ct::aead::{AeadInOut, KeyInit};
    use std::hint::black_box;
    use std::time::Instant;

    let lanes: u8 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(4);
    aes_ct::x86::bsaes_limit_width(lanes);
    let ours = aes_gcm_ct::Aes128Gcm::new(&[7u8; 16].into());
    let theirs = <aes_gcm::Aes128Gcm as aes_gcm::KeyInit>::new(&[7u8; 16].into());
    println!(
        "aes-gcm-ct path {}, GHASH {}, vpaes/bsaes width {lanes} lane(s)",
        ours.backend(),
        ours.ghash_backend()
    );
    let best = |f: &mut dyn FnMut(), n: u32| {
        (0..5)
            .map(|_| {
                let t = Instant::now();
                for _ in 0..n {
                    f();
                }
                t.elapsed().as_secs_f64() / f64::from(n)
            })
            .fold(f64::MAX, f64::min)
    };
    let (nonce, aad) = ([1u8; 12], [0x17u8; 13]);
    for len in [16usize, 1350, 16384] {
        let mut buf = vec![0u8; len];
        let n = (2_000_000 / (len as u32 + 64)).max(200);
        let a = best(
            &mut || {
                let t = ours.encrypt_inout_detached(
                    &nonce.into(),
                    &aad,
                    black_box(&mut buf[..]).into(),
                );
                black_box(t.unwrap());
            },
            n,
        );
        let b = best(
            &mut || {
                let t = aes_gcm::aead::AeadInOut::encrypt_inout_detached(
                    &theirs,
                    &nonce.into(),
                    &aad,
                    black_box(&mut buf[..]).into(),
                );
                black_box(t.unwrap());
            },
            n,
        );
        println!(
            "{len:>6} B seal: aes-gcm-ct {:>8.0} ns, RustCrypto {:>8.0} ns: {:.2}x",
            a * 1e9,
            b * 1e9,
            b / a
        );
    }
}

#[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
fn main() {
    eprintln!("x86 only");
}
