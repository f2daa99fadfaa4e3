//! Differential: against RustCrypto `aes-gcm` (AES-128/192/256) and `ring`
//! 0.17 (AES-128/256) with random keys, nonces, AAD of 0..=300 bytes and
//! messages of 0..=8 KiB, in place and out of place, at unaligned offsets,
//! on every path this CPU runs (fused paths and generic x every AES/GHASH
//! backend pair).
mod common;
use aes_gcm::aead::{AeadInOut as _, KeyInit as _};
use common::*;

type RcAes192Gcm = aes_gcm::AesGcm<aes::Aes192, cipher::consts::U12>;

fn reference(key: &[u8], nonce: &[u8], aad: &[u8], pt: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let mut buf = pt.to_vec();
    let n = nonce.try_into().unwrap();
    let tag = match key.len() {
        16 => aes_gcm::Aes128Gcm::new(key.try_into().unwrap())
            .encrypt_inout_detached(n, aad, buf.as_mut_slice().into())
            .unwrap(),
        24 => RcAes192Gcm::new(key.try_into().unwrap())
            .encrypt_inout_detached(n, aad, buf.as_mut_slice().into())
            .unwrap(),
        _ => aes_gcm::Aes256Gcm::new(key.try_into().unwrap())
            .encrypt_inout_detached(n, aad, buf.as_mut_slice().into())
            .unwrap(),
    };
    (buf, tag.to_vec())
}

fn ring_seal(key: &[u8], nonce: &[u8], aad: &[u8], pt: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    use ring::aead::{AES_128_GCM, AES_256_GCM, Aad, LessSafeKey, Nonce, UnboundKey};
    let alg = match key.len() {
        16 => &AES_128_GCM,
        32 => &AES_256_GCM,
        _ => return None,
    };
    let k = LessSafeKey::new(UnboundKey::new(alg, key).unwrap());
    let mut buf = pt.to_vec();
    let tag = k
        .seal_in_place_separate_tag(
            Nonce::try_assume_unique_for_key(nonce).unwrap(),
            Aad::from(aad),
            &mut buf,
        )
        .unwrap();
    Some((buf, tag.as_ref().to_vec()))
}

fn run(path: Path, rng: &mut Rng, iters: usize, max_len: usize) {
    for i in 0..iters {
        let kl = [16, 24, 32][rng.below(3)];
        let key = rng.bytes(kl);
        let nonce = rng.bytes(12);
        let al = rng.below(301);
        let aad = rng.bytes(al);
        // Bias towards interesting lengths: around block and chunk edges.
        let len = match i % 4 {
            0 => rng.below(max_len + 1),
            1 => rng.below(260),
            2 => (rng.below(max_len / 16 + 1) * 16).saturating_sub(rng.below(3)),
            _ => (2048 * (1 + rng.below(4))).min(max_len) - 1 + rng.below(3),
        }
        .min(max_len);
        let pt = rng.bytes(len);
        let (rct, rtag) = reference(&key, &nonce, &aad, &pt);
        if let Some((c, t)) = ring_seal(&key, &nonce, &aad, &pt) {
            assert_eq!((&c, &t), (&rct, &rtag), "ring vs RustCrypto");
        }
        let g = gcm(&key, 12, 16, path).unwrap();
        let what = format!("{path:?} key {} aad {} len {len}", key.len(), aad.len());

        // Out of place, unaligned input and output.
        let (oi, oo) = (rng.below(16), rng.below(16));
        let mut inb = vec![0u8; len + oi];
        inb[oi..].copy_from_slice(&pt);
        let (c, t) = g.seal(&nonce, &aad, &inb[oi..]).unwrap();
        assert_eq!((&c, &t), (&rct, &rtag), "seal {what}");
        let mut outb = vec![0u8; len + oo];
        g.open_into(&nonce, &aad, &rct, &rtag, &mut outb[oo..])
            .unwrap();
        assert_eq!(&outb[oo..], &pt[..], "open {what}");

        // In place, unaligned.
        let mut b = vec![0u8; len + oi];
        b[oi..].copy_from_slice(&pt);
        let t = g.seal_in_place(&nonce, &aad, &mut b[oi..]).unwrap();
        assert_eq!(
            (&b[oi..], &t[..]),
            (&rct[..], &rtag[..]),
            "seal in place {what}"
        );
        g.open_in_place(&nonce, &aad, &mut b[oi..], &rtag).unwrap();
        assert_eq!(&b[oi..], &pt[..], "open in place {what}");
    }
}

#[test]
fn against_rustcrypto_and_ring_every_path() {
    let paths = all_paths();
    eprintln!("{} paths: {paths:?}", paths.len());
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for path in paths {
        run(path, &mut rng, 60, 8192);
    }
}

#[test]
fn against_rustcrypto_default_path_many() {
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    run(
        Path::Gcm(aes_gcm_ct::Backend::detected()),
        &mut rng,
        600,
        8192,
    );
}

/// Lengths 0..=600 one by one, every path (block, batch and chunk edges).
#[test]
fn every_short_length_every_path() {
    let mut rng = Rng(42);
    for path in some_paths() {
        let key = rng.bytes(16);
        let nonce = rng.bytes(12);
        let g = gcm(&key, 12, 16, path).unwrap();
        for len in 0..=600 {
            let pt = rng.bytes(len);
            let aad = rng.bytes(len % 41);
            let (rct, rtag) = reference(&key, &nonce, &aad, &pt);
            let (c, t) = g.seal(&nonce, &aad, &pt).unwrap();
            assert_eq!((&c, &t), (&rct, &rtag), "{path:?} len {len}");
        }
    }
}

/// The 32-bit counter wraps (non-96-bit nonce chosen so it does), compared
/// with RustCrypto.
#[test]
fn counter_wrap_other_nonce_sizes() {
    use aes_gcm_ct::aead::{AeadInOut, KeyInit};
    let mut rng = Rng(7);
    for _ in 0..50 {
        let key = rng.bytes(16);
        let nonce = rng.bytes(16);
        let pl = rng.below(3000);
        let pt = rng.bytes(pl);
        let al = rng.below(40);
        let aad = rng.bytes(al);
        let rc = aes_gcm::AesGcm::<aes::Aes128, cipher::consts::U16>::new(
            key.as_slice().try_into().unwrap(),
        );
        let mut b1 = pt.clone();
        let t1 = rc
            .encrypt_inout_detached(
                nonce.as_slice().try_into().unwrap(),
                &aad,
                b1.as_mut_slice().into(),
            )
            .unwrap();
        for path in some_paths() {
            let g = gcm(&key, 16, 16, path).unwrap();
            let (c, t) = g.seal(&nonce, &aad, &pt).unwrap();
            assert_eq!((&c[..], &t[..]), (&b1[..], &t1[..]), "{path:?}");
        }
        let ours = aes_gcm_ct::AesGcm::<aes_ct::Aes128, cipher::consts::U16>::new(
            key.as_slice().try_into().unwrap(),
        );
        let mut b2 = pt.clone();
        let t2 = ours
            .encrypt_inout_detached(
                nonce.as_slice().try_into().unwrap(),
                &aad,
                b2.as_mut_slice().into(),
            )
            .unwrap();
        assert_eq!((b1, t1.to_vec()), (b2, t2.to_vec()));
    }
}

/// RustCrypto's own `aes` plugs into our generic path.
#[test]
fn rustcrypto_aes_plugs_in() {
    use aes_gcm_ct::aead::{Aead, KeyInit};
    let mut rng = Rng(9);
    for _ in 0..100 {
        let key = rng.bytes(32);
        let nonce = rng.bytes(12);
        let pl = rng.below(5000);
        let pt = rng.bytes(pl);
        let ours = aes_gcm_ct::AesGcm::<aes::Aes256, cipher::consts::U12>::new(
            key.as_slice().try_into().unwrap(),
        );
        assert_eq!(ours.backend(), aes_gcm_ct::Backend::Generic);
        let c = ours
            .encrypt(nonce.as_slice().try_into().unwrap(), pt.as_slice())
            .unwrap();
        let (rct, rtag) = reference(&key, &nonce, &[], &pt);
        assert_eq!(&c[..pt.len()], &rct[..]);
        assert_eq!(&c[pt.len()..], &rtag[..]);
        assert_eq!(
            ours.decrypt(nonce.as_slice().try_into().unwrap(), c.as_slice())
                .unwrap(),
            pt
        );
    }
}

/// Message lengths within 17 bytes of every batch edge of the fused paths
/// (8 blocks = 128 B for `aesni-clmul` and `vaes-avx2-clmul`, 16 blocks =
/// 256 B for `vaes-clmul`) up to 2 KiB, around 1350 and 4096, with AAD
/// lengths around the same edges; AES-128/192/256, seal out of place and
/// open in place, every fused path and the generic path, vs RustCrypto.
#[test]
fn batch_edges_every_fused_path() {
    let mut rng = Rng(0x5eed);
    let mut lens = Vec::new();
    // 4096 and up: the edges of the 512-bit path's pairs of batches.
    for base in (128..=2048)
        .step_by(128)
        .chain([1350, 4096, 4608, 5120, 8192])
    {
        for d in 0..=34 {
            lens.push(base + d - 17);
        }
    }
    let aads = [
        0, 1, 13, 16, 17, 127, 128, 129, 255, 256, 257, 300, 511, 512, 513,
    ];
    let paths: Vec<Path> = aes_gcm_ct::Backend::available().map(Path::Gcm).collect();
    for (i, &len) in lens.iter().enumerate() {
        let kl = [16, 24, 32][i % 3];
        let key = rng.bytes(kl);
        let nonce = rng.bytes(12);
        let aad = rng.bytes(aads[i % aads.len()]);
        let pt = rng.bytes(len);
        let (rct, rtag) = reference(&key, &nonce, &aad, &pt);
        for &path in &paths {
            let what = format!("{path:?} key {kl} aad {} len {len}", aad.len());
            let g = gcm(&key, 12, 16, path).unwrap();
            let (c, t) = g.seal(&nonce, &aad, &pt).unwrap();
            assert_eq!((&c, &t), (&rct, &rtag), "seal {what}");
            let mut b = rct.clone();
            g.open_in_place(&nonce, &aad, &mut b, &rtag).unwrap();
            assert_eq!(b, pt, "open {what}");
        }
    }
}
