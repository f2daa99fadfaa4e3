//! Differential test against the crates.io `adiantum` 0.2 crate (generic
//! over RustCrypto `chacha20` XChaCha and `aes` AES-256) for random keys,
//! tweaks (0..=32 bytes) and lengths (16..=4112, the reference's range),
//! Adiantum with XChaCha12, XChaCha20 and XChaCha8, on every NH backend this
//! CPU can run, forced in turn.
//!
//! Little-endian only: the reference's NH reads its key as native-endian
//! `u32` words and returns its sums as native-endian `u64` bytes, so on a
//! big-endian machine it computes something other than Adiantum (this
//! crate still matches the authors' vectors there, `kat.rs`).

mod common;

use adiantum_ct::{Backend, Hbsh, NhPoly1305, StreamVariant, XChaCha8, XChaCha12, XChaCha20};
use cipher::KeyInit;
use common::Rng;

type Ref<S> = adiantum::Cipher<S, aes::Aes256>;

fn against<Ours: StreamVariant, Theirs>(seed: u64, cases: usize)
where
    Theirs: chacha20::cipher::KeyIvInit<KeySize = cipher::consts::U32, IvSize = cipher::consts::U24>
        + chacha20::cipher::StreamCipher,
{
    let mut rng = Rng(seed);
    let backends: Vec<Backend> = Backend::available().collect();
    for case in 0..cases {
        let key = rng.array::<32>();
        let reference = Ref::<Theirs>::new(&key.into());
        let n = match case {
            0 => 16,
            1 => 17,
            2 => 4112,
            3 => 4096,
            4 => 1040,
            _ => rng.range(16, 4112),
        };
        let tlen = rng.range(0, 32);
        let tweak = rng.bytes(tlen);
        let pt = rng.bytes(n);
        let mut want = pt.clone();
        reference.encrypt(&mut want, &tweak);
        for &b in &backends {
            let ours =
                Hbsh::<Ours, NhPoly1305>::new_with_backend(&key.into(), b).expect("available");
            assert_eq!(ours.backend(), b);
            let mut got = pt.clone();
            ours.encrypt(&tweak, &mut got).expect("encrypt");
            assert_eq!(
                got,
                want,
                "encrypt, backend {b}, {n} bytes, tweak {}",
                tweak.len()
            );
            // Decrypt what the reference decrypts (random "ciphertext").
            let ct = rng.bytes(n);
            let mut want_pt = ct.clone();
            reference.decrypt(&mut want_pt, &tweak);
            let mut got_pt = vec![0u8; n];
            ours.decrypt_to(&tweak, &ct, &mut got_pt).expect("decrypt");
            assert_eq!(got_pt, want_pt, "decrypt, backend {b}, {n} bytes");
        }
    }
}

#[test]
#[cfg_attr(target_endian = "big", ignore = "reference NH is little-endian only")]
fn xchacha12_vs_adiantum_crate() {
    against::<XChaCha12, chacha20::XChaCha12>(10, 120);
}

#[test]
#[cfg_attr(target_endian = "big", ignore = "reference NH is little-endian only")]
fn xchacha20_vs_adiantum_crate() {
    against::<XChaCha20, chacha20::XChaCha20>(11, 40);
}

#[test]
#[cfg_attr(target_endian = "big", ignore = "reference NH is little-endian only")]
fn xchacha8_vs_adiantum_crate() {
    against::<XChaCha8, chacha20::XChaCha8>(12, 40);
}

/// The SIMD backend of this architecture is really exercised here.
#[test]
fn expected_backends_available() {
    let avail: Vec<Backend> = Backend::available().collect();
    println!(
        "available NH backends: {avail:?}, detected: {}",
        Backend::detected()
    );
    assert!(avail.contains(&Backend::Soft));
    assert!(avail.contains(&Backend::detected()));
    #[cfg(target_arch = "x86_64")]
    assert!(avail.contains(&Backend::Sse2));
    #[cfg(target_arch = "aarch64")]
    assert!(avail.contains(&Backend::Neon));
    // The armv7 runner is qemu-arm -cpu cortex-a15, which has NEON.
    #[cfg(all(target_arch = "arm", target_os = "linux"))]
    assert!(avail.contains(&Backend::NeonAsm));
    // Forced with --cfg adiantum_ct_backend="...": that one, if it can run.
    for &b in Backend::ALL {
        if cfg!(adiantum_ct_backend = "soft") && b == Backend::Soft
            || cfg!(adiantum_ct_backend = "sse2") && b.name() == "sse2"
            || cfg!(adiantum_ct_backend = "avx2") && b.name() == "avx2"
            || cfg!(adiantum_ct_backend = "neon") && b.name() == "neon"
            || cfg!(adiantum_ct_backend = "neon-asm") && b.name() == "neon-asm"
        {
            let want = if b.is_available() { b } else { Backend::Soft };
            assert_eq!(Backend::detected(), want);
            assert_eq!(
                adiantum_ct::Adiantum::new(&[0u8; 32].into()).backend(),
                want
            );
        }
    }
    let forced = ["soft", "sse2", "avx2", "neon", "neon-asm"]
        .iter()
        .any(|n| {
            (cfg!(adiantum_ct_backend = "soft") && *n == "soft")
                || (cfg!(adiantum_ct_backend = "sse2") && *n == "sse2")
                || (cfg!(adiantum_ct_backend = "avx2") && *n == "avx2")
                || (cfg!(adiantum_ct_backend = "neon") && *n == "neon")
                || (cfg!(adiantum_ct_backend = "neon-asm") && *n == "neon-asm")
        });
    if !forced {
        assert_eq!(
            Backend::detected(),
            avail[0],
            "best available backend is the default"
        );
    }
    // Backends that cannot run here are refused, not faked.
    for &b in Backend::ALL {
        let r = adiantum_ct::Adiantum::new_with_backend(&[0u8; 32].into(), b);
        assert_eq!(r.is_ok(), avail.contains(&b), "{b}");
    }
}

/// Our Poly1305 (own 44-bit-limb code on 64-bit targets) against RustCrypto
/// `poly1305` with `s = 0`, random and extreme keys and messages (all-ones
/// blocks push h over p, exercising the final reduction).
#[test]
fn poly1305_vs_rustcrypto() {
    use poly1305::universal_hash::KeyInit as _;
    let mut rng = Rng(13);
    for case in 0..400 {
        let mut r = [0u8; 16];
        rng.fill(&mut r);
        if case % 4 == 0 {
            r = [0xff; 16];
        }
        let n = rng.range(0, 200);
        let mut msg = rng.bytes(n);
        if case % 3 == 0 {
            msg.fill(0xff);
        }
        let mut k = [0u8; 32];
        k[..16].copy_from_slice(&r);
        let want = poly1305::Poly1305::new(&k.into()).compute_unpadded(&msg);
        assert_eq!(
            adiantum_ct::hazmat::poly1305(&r, &msg).to_le_bytes(),
            want[..],
            "case {case}"
        );
    }
}
