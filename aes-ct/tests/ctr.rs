//! `aes_ct::Ctr32BE` (our CTR with each backend's fused whole-block loop)
//! against RustCrypto `ctr::Ctr32BE<aes::Aes*>`, every backend forced in
//! turn: random keys and IVs, lengths 0..=70 blocks plus odd byte counts,
//! split into random-size `apply_keystream` calls, in place and buffer to
//! buffer at odd addresses, counters that wrap mod 2^32 mid-message, seek
//! and `current_pos`, `try_apply_keystream` failing exactly where `ctr`
//! fails; a drop-in check through generic code over cipher's traits; the
//! CTR state and the per-call keystream and converted bsaes key wiped.

mod common;

use aes_ct::Backend;
use cipher::{
    AlgorithmName, BlockCipherEncrypt, BlockSizeUser, KeyInit, KeyIvInit, StreamCipher,
    StreamCipherSeek, consts::U16,
};
use common::{backends, rng};
use rand::{Rng, RngExt};

/// Build `aes_ct::Ctr32BE<C>` on backend `b`.
fn ours<C>(key: &[u8], iv: &[u8; 16], b: Backend) -> aes_ct::Ctr32BE<C>
where
    C: aes_ct::CtrCipher + NewWith,
{
    let c = C::with(key, b);
    let core = <aes_ct::CtrCore<C> as cipher::InnerIvInit>::inner_iv_init(c, iv.into());
    cipher::StreamCipherCoreWrapper::from_core(core)
}

trait NewWith: Sized {
    fn with(key: &[u8], b: Backend) -> Self;
}
macro_rules! new_with {
    ($($t:ty),*) => {$(
        impl NewWith for $t {
            fn with(key: &[u8], b: Backend) -> Self {
                let c = <$t>::new_with_backend(key.try_into().unwrap(), b).unwrap();
                assert_eq!(c.backend(), b);
                c
            }
        }
    )*};
}
new_with!(
    aes_ct::Aes128,
    aes_ct::Aes192,
    aes_ct::Aes256,
    aes_ct::Aes128Enc
);

/// Random IV; one in three has its counter word within 40 blocks of the
/// 2^32 wrap, so long messages wrap mid-message.
fn iv(r: &mut impl Rng) -> [u8; 16] {
    let mut iv = [0u8; 16];
    r.fill_bytes(&mut iv);
    if r.random_range(0..3u32) == 0 {
        let c = u32::MAX - r.random_range(0..40u32);
        iv[12..].copy_from_slice(&c.to_be_bytes());
    }
    iv
}

/// Apply in random-size pieces (sizes 0..=3 blocks + odd bytes).
fn apply_split(c: &mut impl StreamCipher, buf: &mut [u8], r: &mut impl Rng) {
    let mut i = 0;
    while i < buf.len() {
        let n = r.random_range(0..=50usize).min(buf.len() - i);
        c.apply_keystream(&mut buf[i..i + n]);
        i += n;
    }
}

fn diff<Ours, Theirs>(name: &str)
where
    Ours: aes_ct::CtrCipher + NewWith,
    Theirs: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16> + KeyInit,
{
    let mut r = rng(name);
    for b in backends() {
        for nb in 0..=70usize {
            let len = 16 * nb + r.random_range(0..16usize);
            let mut key = vec![0u8; Theirs::key_size()];
            r.fill_bytes(&mut key);
            let iv = iv(&mut r);
            let mut pt = vec![0u8; len];
            r.fill_bytes(&mut pt);
            let ctx = format!("{name} {b:?} len {len} iv {}", hex::encode(iv));

            let mut want = pt.clone();
            ctr::Ctr32BE::<Theirs>::new(key.as_slice().try_into().unwrap(), &iv.into())
                .apply_keystream(&mut want);

            // One call, in place.
            let mut got = pt.clone();
            ours::<Ours>(&key, &iv, b).apply_keystream(&mut got);
            assert_eq!(hex::encode(&got), hex::encode(&want), "one call, {ctx}");

            // Random splits, in place.
            let mut got = pt.clone();
            apply_split(&mut ours::<Ours>(&key, &iv, b), &mut got, &mut r);
            assert_eq!(got, want, "split, {ctx}");

            // Buffer to buffer, input and output at odd addresses.
            let (oi, oo) = (r.random_range(0..16usize), r.random_range(0..16usize));
            let mut inb = vec![0u8; len + 16];
            inb[oi..oi + len].copy_from_slice(&pt);
            let mut outb = vec![0xa5u8; len + 16];
            ours::<Ours>(&key, &iv, b)
                .apply_keystream_b2b(&inb[oi..oi + len], &mut outb[oo..oo + len]);
            assert_eq!(&outb[oo..oo + len], &want[..], "b2b, {ctx}");
            assert!(
                outb[..oo].iter().all(|&x| x == 0xa5),
                "b2b wrote before, {ctx}"
            );
            assert!(
                outb[oo + len..].iter().all(|&x| x == 0xa5),
                "b2b wrote after, {ctx}"
            );

            // In place at an odd address, in two pieces split off a block
            // boundary.
            let mut buf = vec![0u8; len + 16];
            buf[oi..oi + len].copy_from_slice(&pt);
            let cut = r.random_range(0..=len);
            let mut c = ours::<Ours>(&key, &iv, b);
            c.apply_keystream(&mut buf[oi..oi + cut]);
            c.apply_keystream(&mut buf[oi + cut..oi + len]);
            assert_eq!(&buf[oi..oi + len], &want[..], "odd address, {ctx}");
        }
    }
}

#[test]
fn ctr32_aes128_vs_rustcrypto_ctr() {
    diff::<aes_ct::Aes128, aes::Aes128>("ctr128");
}

#[test]
fn ctr32_aes192_vs_rustcrypto_ctr() {
    diff::<aes_ct::Aes192, aes::Aes192>("ctr192");
}

#[test]
fn ctr32_aes256_vs_rustcrypto_ctr() {
    diff::<aes_ct::Aes256, aes::Aes256>("ctr256");
}

#[test]
fn ctr32_encrypt_only_type_vs_rustcrypto_ctr() {
    diff::<aes_ct::Aes128Enc, aes::Aes128>("ctr128enc");
}

/// Long messages (up to 300 blocks, so several full bsaes batches and the
/// x86 32-block batches) with the counter wrapping inside a batch.
#[test]
fn ctr32_long_messages_wrap_inside_batches() {
    let mut r = rng("ctr-long");
    for b in backends() {
        for nb in [8usize, 9, 15, 16, 31, 32, 33, 64, 100, 255, 300] {
            for back in [1u32, 3, 7, 8, 20] {
                let mut key = [0u8; 16];
                r.fill_bytes(&mut key);
                let mut iv = [0u8; 16];
                r.fill_bytes(&mut iv);
                iv[12..].copy_from_slice(&(u32::MAX - back + 1).to_be_bytes());
                let mut want = vec![0u8; 16 * nb + 5];
                r.fill_bytes(&mut want);
                let mut got = want.clone();
                ctr::Ctr32BE::<aes::Aes128>::new(&key.into(), &iv.into())
                    .apply_keystream(&mut want);
                ours::<aes_ct::Aes128>(&key, &iv, b).apply_keystream(&mut got);
                assert_eq!(got, want, "{b:?} {nb} blocks, wrap after {back}");
            }
        }
    }
}

/// Seek to random positions (and near the end of the keystream): the same
/// output and the same `current_pos` as `ctr`.
#[test]
fn ctr32_seek_matches_rustcrypto_ctr() {
    let mut r = rng("ctr-seek");
    let end: u64 = 16 << 32;
    for b in backends() {
        for _ in 0..40 {
            let mut key = [0u8; 16];
            r.fill_bytes(&mut key);
            let iv = iv(&mut r);
            let mut theirs = ctr::Ctr32BE::<aes::Aes128>::new(&key.into(), &iv.into());
            let mut ours = ours::<aes_ct::Aes128>(&key, &iv, b);
            for _ in 0..4 {
                let pos: u64 = match r.random_range(0..3u32) {
                    0 => r.random_range(0..2000u64),
                    1 => r.random_range(0..end),
                    _ => end - r.random_range(1..2000u64),
                };
                let (st, so) = (theirs.try_seek(pos), ours.try_seek(pos));
                assert_eq!(st.is_err(), so.is_err(), "{b:?} seek {pos}");
                if st.is_err() {
                    continue;
                }
                assert_eq!(ours.current_pos::<u64>(), theirs.current_pos::<u64>());
                assert_eq!(ours.current_pos::<u64>(), pos);
                let n = r.random_range(0..300usize).min((end - pos) as usize);
                let mut want = vec![0u8; n];
                r.fill_bytes(&mut want);
                let mut got = want.clone();
                let et = theirs.try_apply_keystream(&mut want);
                let eo = ours.try_apply_keystream(&mut got);
                assert_eq!(et.is_err(), eo.is_err(), "{b:?} seek {pos} len {n}");
                assert_eq!(got, want, "{b:?} seek {pos} len {n}");
                assert_eq!(
                    ours.try_current_pos::<u64>().ok(),
                    theirs.try_current_pos::<u64>().ok()
                );
            }
            // Seeking past the end fails for both, without panicking.
            assert_eq!(
                ours.try_seek(end + 1).is_err(),
                theirs.try_seek(end + 1).is_err()
            );
        }
    }
}

/// Near the end of the keystream `try_apply_keystream` errors (and leaves
/// the buffer alone) exactly where `ctr` does; where it succeeds the bytes
/// agree.
#[test]
fn ctr32_keystream_end_errors_like_rustcrypto_ctr() {
    let mut r = rng("ctr-end");
    let end: u64 = 16 << 32;
    for b in backends() {
        for back in [0u64, 1, 5, 15, 16, 17, 31, 32, 33, 100, 127, 128, 129, 200] {
            for len in [0usize, 1, 15, 16, 17, 32, 100, 128, 129, 200, 300] {
                let mut key = [0u8; 16];
                r.fill_bytes(&mut key);
                let iv = iv(&mut r);
                let mut theirs = ctr::Ctr32BE::<aes::Aes128>::new(&key.into(), &iv.into());
                let mut ours = ours::<aes_ct::Aes128>(&key, &iv, b);
                let pos = end - back;
                let (st, so) = (theirs.try_seek(pos), ours.try_seek(pos));
                assert_eq!(st.is_err(), so.is_err(), "{b:?} seek to end - {back}");
                if st.is_err() {
                    continue;
                }
                let mut want = vec![0u8; len];
                r.fill_bytes(&mut want);
                let mut got = want.clone();
                let orig = want.clone();
                let et = theirs.try_apply_keystream(&mut want);
                let eo = ours.try_apply_keystream(&mut got);
                assert_eq!(
                    et.is_err(),
                    eo.is_err(),
                    "{b:?} end - {back}, len {len}: ctr {et:?}, ours {eo:?}"
                );
                assert_eq!(got, want, "{b:?} end - {back}, len {len}");
                if eo.is_err() {
                    assert_eq!(got, orig, "the failed call touched the buffer");
                }
            }
        }
    }
}

/// Generic code written against cipher's traits takes our type where it
/// took `ctr::Ctr32BE<aes::Aes128>` (the one-line change).
#[test]
fn ctr32_dropin_generic_code() {
    fn seal<C: KeyIvInit + StreamCipher + StreamCipherSeek>(
        key: &[u8],
        iv: &[u8],
        msg: &[u8],
    ) -> Vec<u8> {
        let mut c = C::new_from_slices(key, iv).unwrap();
        let mut out = msg.to_vec();
        c.apply_keystream(&mut out[..msg.len() / 2]);
        c.apply_keystream(&mut out[msg.len() / 2..]);
        // Rewind and decrypt a copy.
        c.seek(0u64);
        let mut back = out.clone();
        c.apply_keystream(&mut back);
        assert_eq!(back, msg);
        out
    }
    let mut r = rng("ctr-dropin");
    for len in [0usize, 1, 16, 100, 1000, 4096 + 3] {
        let mut key = [0u8; 16];
        r.fill_bytes(&mut key);
        let mut iv = [0u8; 16];
        r.fill_bytes(&mut iv);
        let mut msg = vec![0u8; len];
        r.fill_bytes(&mut msg);
        assert_eq!(
            seal::<aes_ct::Ctr32BE<aes_ct::Aes128>>(&key, &iv, &msg),
            seal::<ctr::Ctr32BE<aes::Aes128>>(&key, &iv, &msg),
        );
    }
    // IV state and a new IV, as `ctr`'s core.
    {
        use cipher::{IvState, SetIvState, StreamCipherCore};
        let (key, iv1, iv2) = ([3u8; 16], [0xffu8; 16], [0x10u8; 16]);
        let mut ours = aes_ct::Ctr32BE::<aes_ct::Aes128>::new(&key.into(), &iv1.into());
        let mut theirs = ctr::Ctr32BE::<aes::Aes128>::new(&key.into(), &iv1.into());
        let mut a = [0u8; 40];
        let mut b = [0u8; 40];
        ours.apply_keystream(&mut a);
        theirs.apply_keystream(&mut b);
        assert_eq!(a, b);
        assert_eq!(ours.get_core().iv_state(), theirs.get_core().iv_state());
        let mut oc = ours.get_core().clone();
        let mut tc =
            ctr::CtrCore::<aes::Aes128, ctr::flavors::Ctr32BE>::new(&key.into(), &iv1.into());
        oc.set_iv(&iv2.into());
        tc.set_iv(&iv2.into());
        let (mut x, mut y) = ([cipher::Array::default(); 3], [cipher::Array::default(); 3]);
        oc.apply_keystream_blocks(&mut x);
        tc.apply_keystream_blocks(&mut y);
        assert_eq!(x, y);
        assert_eq!(oc.iv_state(), tc.iv_state());
    }
    // Wrong key/IV lengths are errors, as for `ctr`.
    assert!(aes_ct::Ctr32BE::<aes_ct::Aes128>::new_from_slices(&[0; 15], &[0; 16]).is_err());
    assert!(aes_ct::Ctr32BE::<aes_ct::Aes128>::new_from_slices(&[0; 16], &[0; 12]).is_err());
    // The name, and a `Debug` without secrets.
    struct Name;
    impl core::fmt::Display for Name {
        fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            aes_ct::CtrCore::<aes_ct::Aes256>::write_alg_name(f)
        }
    }
    assert_eq!(Name.to_string(), "Ctr32BE<Aes256>");
    let c = aes_ct::Ctr32BE::<aes_ct::Aes128>::new(&[0x11; 16].into(), &[0x22; 16].into());
    let d = format!("{:?}", c.get_core());
    assert!(
        !d.contains("17") && !d.contains("34") && !d.contains("11"),
        "{d}"
    );
}

/// SP 800-38A F.5.1 (CTR-AES128.Encrypt; its counter block
/// f0f1...fcfdfeff never carries out of the low 32 bits in 4 blocks, so
/// the 128-bit-counter answer is also the 32-bit one).
#[test]
fn ctr32_sp800_38a_f51() {
    let key = common::unhex("2b7e151628aed2a6abf7158809cf4f3c");
    let iv = common::unhex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff");
    let pt = common::unhex(
        "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51\
         30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710",
    );
    let ct = common::unhex(
        "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff\
         5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee",
    );
    for b in backends() {
        let mut got = pt.clone();
        ours::<aes_ct::Aes128>(&key, iv.as_slice().try_into().unwrap(), b)
            .apply_keystream(&mut got);
        assert_eq!(hex::encode(&got), hex::encode(&ct), "{b:?}");
    }
}

/// Zeroization (method of `ct-check/tests/zeroize.rs`): the value is built
/// in a zeroed slot, dropped in place, and its bytes counted.
mod wipe {
    use super::*;
    use core::mem::MaybeUninit;
    use core::ptr;

    #[inline(never)]
    fn clear_stack() {
        let buf = [0u8; 256 * 1024];
        core::hint::black_box(&buf);
    }

    /// The CTR state is wiped on drop: the nonce and the counter (found by
    /// their distinctive bytes in the dropped value), and, with aes-ct's
    /// `zeroize` feature (which turns on cipher's), the wrapper's buffered
    /// keystream after a partial block. (The cipher's own key forms are
    /// covered by `ct-check/tests/zeroize.rs`; counting all non-zero bytes
    /// does not work here, since moving the key enum into `CtrCore` copies
    /// stale bytes of its inactive variants along.)
    #[test]
    fn ctr32_state_wiped_on_drop_every_backend() {
        let key = [0x5au8; 16];
        let iv: [u8; 16] = core::array::from_fn(|i| 0x81 + 7 * i as u8);
        // Keystream bytes 5..16 stay buffered after a 5-byte call.
        let mut ks = [0u8; 16];
        ctr::Ctr32BE::<aes::Aes128>::new(&key.into(), &iv.into()).apply_keystream(&mut ks);
        for b in backends() {
            clear_stack();
            let mut slot = MaybeUninit::<aes_ct::Ctr32BE<aes_ct::Aes128>>::zeroed();
            let c = slot.write(ours::<aes_ct::Aes128>(&key, &iv, b));
            let mut buf = [0u8; 5];
            c.apply_keystream(&mut buf);
            assert_eq!(buf, ks[..5]);
            let bytes = |slot: &MaybeUninit<_>| -> Vec<u8> {
                let p = slot as *const MaybeUninit<aes_ct::Ctr32BE<aes_ct::Aes128>> as *const u8;
                (0..size_of::<aes_ct::Ctr32BE<aes_ct::Aes128>>())
                    // SAFETY: byte reads within the zero-initialised slot.
                    .map(|i| unsafe { ptr::read_volatile(p.add(i)) })
                    .collect()
            };
            let has = |v: &[u8], n: &[u8]| v.windows(n.len()).any(|w| w == n);
            let before = bytes(&slot);
            assert!(
                has(&before, &iv[..12]),
                "{b:?}: nonce not found before drop"
            );
            #[cfg(feature = "zeroize")]
            assert!(
                has(&before, &ks[5..]),
                "{b:?}: buffer not found before drop"
            );
            // SAFETY: initialised, dropped once, not used afterwards.
            unsafe { ptr::drop_in_place(slot.as_mut_ptr()) };
            let after = bytes(&slot);
            assert!(!has(&after, &iv[..12]), "{b:?}: nonce left after drop");
            assert!(
                !has(&after, &iv[12..]),
                "{b:?}: counter word left after drop"
            );
            #[cfg(feature = "zeroize")]
            assert!(
                !has(&after, &ks[5..]),
                "{b:?}: buffered keystream left after drop"
            );
        }
    }

    /// Scan 64 KiB of dead stack below the caller for any of `needles`.
    fn scan(needles: &[Vec<u8>]) -> usize {
        ct_dispatch::test_util::dead_stack_hits(needles)
    }

    #[inline(never)]
    fn leave_copy(needle: &[u8]) {
        let mut buf = [0u8; 4096];
        buf[1000..1032].copy_from_slice(needle);
        core::hint::black_box(&buf);
    }

    #[inline(never)]
    fn clear() {
        let buf = [0u8; 4 * 65536];
        core::hint::black_box(&buf);
    }

    #[inline(never)]
    fn ctr_call(c: &mut aes_ct::Ctr32BE<aes_ct::Aes128>, buf: &mut [u8]) {
        c.apply_keystream(buf);
    }

    /// After a hybrid CTR call over 67 blocks (full bsaes batches through
    /// the fused loop, a vpaes tail), the dead stack holds neither the
    /// keystream (32-byte runs of it) nor the bsaes key converted for the
    /// call (runs of the long-term `bsaes` key form of the same key).
    #[test]
    fn hybrid_ctr32_leaves_no_keystream_or_converted_key_on_stack() {
        if !Backend::Hybrid.is_available() || !Backend::Bsaes.is_available() {
            eprintln!("skipped: hybrid/bsaes not available");
            return;
        }
        let key = [0x3cu8; 16];
        let mut key = key;
        for (i, k) in key.iter_mut().enumerate() {
            *k ^= (i as u8).wrapping_mul(37) | 1;
        }
        let iv = [0x6bu8; 16];
        // The keystream: CTR over zeros (computed by `ctr` + `aes`).
        let mut ks = vec![0u8; 67 * 16];
        ctr::Ctr32BE::<aes::Aes128>::new(&key.into(), &iv.into()).apply_keystream(&mut ks);
        let mut needles: Vec<Vec<u8>> = ks.chunks_exact(32).map(|c| c.to_vec()).collect();
        // Runs of the bitsliced key form.
        clear_stack();
        let mut slot = MaybeUninit::<aes_ct::Aes128>::zeroed();
        slot.write(aes_ct::Aes128::new_with_backend(&key.into(), Backend::Bsaes).unwrap());
        let p = slot.as_ptr() as *const u8;
        // SAFETY: byte reads within the slot.
        let bytes: Vec<u8> = (0..size_of::<aes_ct::Aes128>())
            .map(|i| unsafe { ptr::read_volatile(p.add(i)) })
            .collect();
        // SAFETY: initialised, dropped once, not used afterwards.
        unsafe { ptr::drop_in_place(slot.as_mut_ptr()) };
        let key_runs: Vec<Vec<u8>> = bytes
            .chunks_exact(32)
            .filter(|c| c.windows(2).filter(|w| w[0] != w[1]).count() >= 8)
            .take(16)
            .map(|c| c.to_vec())
            .collect();
        assert!(key_runs.len() >= 4, "too few distinctive key runs");
        needles.extend(key_runs);

        leave_copy(&needles[0]);
        assert!(
            scan(&needles) >= 1,
            "control: the scanner cannot see dead stack"
        );
        clear();
        assert_eq!(
            scan(&needles),
            0,
            "control: clearing the stack did not work"
        );

        let mut c = ours::<aes_ct::Aes128>(&key, &iv, Backend::Hybrid);
        let mut buf = vec![0u8; 67 * 16];
        clear();
        ctr_call(&mut c, &mut buf);
        assert_eq!(buf, ks, "the call computed the keystream");
        let found = scan(&needles);
        assert_eq!(
            found, 0,
            "{found} runs of keystream or converted key left on the stack"
        );
    }
}
