//! Every hybrid branch (and every other backend) against RustCrypto `aes`:
//! block counts 1..=72 (every tail, fresh and converted, so every policy
//! threshold) and some longer, raw
//! `encrypt_blocks`/`decrypt_blocks` and `ctr::Ctr32BE`, in-place and
//! out-of-place, with in/out buffers at odd addresses; all available
//! backends forced in turn.

mod common;

use aes_ct::{
    Backend, Block,
    cipher::{
        Array, BlockCipherDecrypt, BlockCipherEncrypt, BlockSizeUser, InnerIvInit, KeyInit,
        StreamCipher, consts::U16,
    },
};
use common::bytes;

/// Block counts.
fn counts() -> Vec<usize> {
    // Every count up to 72 covers every tail length (0..32) both with the
    // bsaes key fresh (n < 32) and converted (32 <= n < 64), and so every
    // threshold of every width's policy; then a few longer ones.
    let mut v: Vec<usize> = (0..=72).collect();
    v.extend([95, 96, 97, 127, 128, 129, 200]);
    v
}

/// `n` blocks viewed at byte offset `off` of `buf`.
fn blocks_at(buf: &mut [u8], off: usize, n: usize) -> &mut [Block] {
    let (b, _) = Array::<u8, U16>::slice_as_chunks_mut(&mut buf[off..off + 16 * n]);
    b
}

/// `Ctr32BE` over a given cipher value (a forced backend).
fn ctr32<C: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16>>(
    c: C,
    iv: &[u8; 16],
) -> ctr::Ctr32BE<C> {
    ctr::Ctr32BE::from_core(ctr::CtrCore::inner_iv_init(c, &(*iv).into()))
}

fn check<C, R>(backend: Backend, klen: usize, mk: impl Fn(&[u8]) -> C)
where
    C: BlockCipherEncrypt + BlockCipherDecrypt + BlockSizeUser<BlockSize = U16>,
    R: BlockCipherEncrypt + BlockCipherDecrypt + BlockSizeUser<BlockSize = U16> + KeyInit,
{
    for (i, n) in counts().into_iter().enumerate() {
        let mut key = vec![0u8; klen];
        bytes(1000 + i as u64, &mut key);
        let ours = mk(&key);
        let theirs = R::new_from_slice(&key).unwrap();
        let mut pt = vec![0u8; 16 * n + 32];
        bytes(i as u64, &mut pt);

        let mut want = pt.clone();
        theirs.encrypt_blocks(blocks_at(&mut want, 0, n));

        for (oi, oo) in [(0, 0), (1, 3), (7, 0), (0, 9), (15, 15)] {
            // Out of place, odd addresses.
            let mut src = vec![0u8; 16 * n + 32];
            src[oi..oi + 16 * n].copy_from_slice(&pt[..16 * n]);
            let mut dst = vec![0u8; 16 * n + 32];
            {
                let (s, _) = Array::<u8, U16>::slice_as_chunks(&src[oi..oi + 16 * n]);
                ours.encrypt_blocks_b2b(s, blocks_at(&mut dst, oo, n))
                    .unwrap();
            }
            assert_eq!(
                &dst[oo..oo + 16 * n],
                &want[..16 * n],
                "{backend} k{klen} n={n} enc b2b {oi}/{oo}"
            );
            let mut back = vec![0u8; 16 * n + 32];
            {
                let (s, _) = Array::<u8, U16>::slice_as_chunks(&dst[oo..oo + 16 * n]);
                ours.decrypt_blocks_b2b(s, blocks_at(&mut back, oi, n))
                    .unwrap();
            }
            assert_eq!(
                &back[oi..oi + 16 * n],
                &pt[..16 * n],
                "{backend} k{klen} n={n} dec b2b {oi}/{oo}"
            );

            // In place, odd address.
            let mut buf = vec![0u8; 16 * n + 32];
            buf[oi..oi + 16 * n].copy_from_slice(&pt[..16 * n]);
            ours.encrypt_blocks(blocks_at(&mut buf, oi, n));
            assert_eq!(
                &buf[oi..oi + 16 * n],
                &want[..16 * n],
                "{backend} k{klen} n={n} enc in place {oi}"
            );
            ours.decrypt_blocks(blocks_at(&mut buf, oi, n));
            assert_eq!(
                &buf[oi..oi + 16 * n],
                &pt[..16 * n],
                "{backend} k{klen} n={n} dec in place {oi}"
            );
        }

        // Block by block.
        if n > 0 {
            let mut b = Block::try_from(&pt[..16]).unwrap();
            ours.encrypt_block(&mut b);
            assert_eq!(&b[..], &want[..16], "{backend} k{klen} single enc");
            ours.decrypt_block(&mut b);
            assert_eq!(&b[..], &pt[..16], "{backend} k{klen} single dec");
        }

        // CTR (32-bit big-endian counter, starting near the wrap), whole
        // and partial final blocks, out of place at odd addresses and in
        // place.
        let mut iv = [0u8; 16];
        bytes(77 + i as u64, &mut iv);
        iv[12..].copy_from_slice(&(u32::MAX - 3).to_be_bytes());
        for len in [16 * n, 16 * n + 5] {
            let mut want = pt[..len].to_vec();
            let mut c = ctr32::<R>(R::new_from_slice(&key).unwrap(), &iv);
            c.apply_keystream(&mut want);
            for (oi, oo) in [(0, 0), (3, 1), (0, 11)] {
                let mut src = vec![0u8; len + 16];
                src[oi..oi + len].copy_from_slice(&pt[..len]);
                let mut dst = vec![0u8; len + 16];
                let mut c = ctr32::<C>(mk(&key), &iv);
                c.apply_keystream_b2b(&src[oi..oi + len], &mut dst[oo..oo + len]);
                assert_eq!(
                    &dst[oo..oo + len],
                    &want[..],
                    "{backend} k{klen} ctr len={len} {oi}/{oo}"
                );
            }
            let mut buf = pt[..len].to_vec();
            let mut c = ctr32::<C>(mk(&key), &iv);
            // Split updates: the first call leaves a partial block.
            let cut = len.min(21);
            c.apply_keystream(&mut buf[..cut]);
            c.apply_keystream(&mut buf[cut..]);
            assert_eq!(buf, want, "{backend} k{klen} ctr in place len={len}");
        }
    }
}

/// The register widths of the x86 bsaes batches and vpaes pairs to run a
/// backend with (the hook limits the width for keys made afterwards).
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
fn widths(b: Backend) -> Vec<u8> {
    if matches!(b.name(), "hybrid" | "bsaes" | "vpaes") {
        vec![1, 2, 4]
    } else {
        vec![4]
    }
}

#[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
fn widths(_: Backend) -> Vec<u8> {
    vec![0]
}

#[test]
fn every_backend_every_length() {
    let backends: Vec<Backend> = Backend::available().collect();
    assert!(!backends.is_empty());
    for b in backends {
        for w in widths(b) {
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            aes_ct::x86::bsaes_limit_width(w);
            eprintln!("backend {b} (x86 bsaes width {w})");
            check::<aes_ct::Aes128, aes::Aes128>(b, 16, |k| {
                aes_ct::Aes128::new_with_backend(k.try_into().unwrap(), b).unwrap()
            });
            check::<aes_ct::Aes192, aes::Aes192>(b, 24, |k| {
                aes_ct::Aes192::new_with_backend(k.try_into().unwrap(), b).unwrap()
            });
            check::<aes_ct::Aes256, aes::Aes256>(b, 32, |k| {
                aes_ct::Aes256::new_with_backend(k.try_into().unwrap(), b).unwrap()
            });
        }
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        aes_ct::x86::bsaes_limit_width(4);
    }
}

/// `Backend::available()` lists exactly the x86 backends this build has
/// and this CPU can run, judged by std's own feature detection (not the
/// crate's): so the test above runs every backend the CPU offers, and none
/// it cannot run is claimed.
#[test]
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
fn x86_backends_listed() {
    use std::arch::is_x86_feature_detected as has;
    let ssse3 = has!("ssse3");
    let aesni = has!("aes") && has!("sse2") && ssse3;
    let vaes = has!("aes") && has!("vaes") && has!("avx2");
    let want = [
        ("vaes", cfg!(feature = "vaes") && vaes),
        ("aesni", cfg!(feature = "aesni") && aesni),
        ("hybrid", cfg!(feature = "hybrid") && ssse3),
        ("vpaes", cfg!(feature = "vpaes") && ssse3),
        ("bsaes", cfg!(feature = "bsaes") && ssse3),
        ("soft", true),
    ];
    let names: Vec<&str> = Backend::available().map(|b| b.name()).collect();
    eprintln!("available: {names:?}");
    for (name, expected) in want {
        assert_eq!(
            names.contains(&name),
            expected,
            "backend {name}: listed {:?}, this CPU and build {}",
            names.contains(&name),
            if expected { "can run it" } else { "cannot" }
        );
    }
    for n in &names {
        assert!(
            want.iter().any(|(w, _)| w == n),
            "unexpected backend {n} on x86"
        );
    }
}
