//! Differential against RustCrypto `ghash` 0.6 / `polyval` 0.7: random H,
//! messages of 0..4 KiB split across many `update`/`update_padded` calls of
//! random sizes, for every backend this CPU can run, forced in turn.

mod common;
use common::*;

use ghash_ct::{
    Backend, GHash, GHashKey, GHashState, Polyval,
    universal_hash::{KeyInit, Reset, UniversalHash, consts::U16},
};

/// Messages per backend (fewer under qemu would still cover every path;
/// lengths are random in 0..=4096).
const MESSAGES: usize = 150;

/// Apply the same random sequence of calls to `ours` and the reference.
fn run_calls<A: UniversalHash<BlockSize = U16>, B: UniversalHash<BlockSize = U16>>(
    rng: &mut Rng,
    ours: &mut A,
    reference: &mut B,
    data: &[u8],
) {
    let mut rest = data;
    while !rest.is_empty() {
        let take = match rng.below(4) {
            0 => rng.below(16 * 20 + 1),
            1 => 16 * rng.below(40),
            2 => rng.below(17),
            _ => rest.len(),
        }
        .min(rest.len());
        let (now, later) = rest.split_at(take);
        rest = later;
        if take % 16 == 0 && rng.below(2) == 0 {
            let (blocks, _) = ghash_ct::Block::slice_as_chunks(now);
            ours.update(blocks);
            reference.update_padded(now);
        } else {
            ours.update_padded(now);
            reference.update_padded(now);
        }
    }
}

#[test]
fn ghash_matches_rustcrypto_every_backend() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for b in backends() {
        for i in 0..MESSAGES {
            let h = rng.array::<16>();
            let len = if i < 40 { i * 7 } else { rng.below(4097) };
            let data = rng.bytes(len);
            let mut ours = GHash::new_with_backend(&h.into(), b).unwrap();
            assert_eq!(ours.backend(), b);
            let mut reference = ghash::GHash::new(&h.into());
            run_calls(&mut rng, &mut ours, &mut reference, &data);
            let want = reference.finalize();

            // Clone mid-way, then finish both.
            let copy = ours.clone();
            assert_eq!(copy.finalize(), want, "clone, backend {b}, len {len}");
            assert_eq!(ours.clone().finalize(), want, "backend {b}, len {len}");
            assert_eq!(ours.finalize_reset(), want, "finalize_reset, backend {b}");
            // After reset: the empty hash is zero, and the key still works.
            assert_eq!(ours.clone().finalize(), ghash_ct::Tag::default());
            ours.update_padded(&data);
            let mut r2 = ghash::GHash::new(&h.into());
            r2.update_padded(&data);
            let whole = r2.finalize();
            assert_eq!(ours.finalize(), whole, "after reset, backend {b}");

            // The key-powers-once API: one key, two messages, states only.
            let key = GHashKey::new_with_backend(&h.into(), b).unwrap();
            let (mut s1, mut s2) = (GHashState::new(), GHashState::new());
            key.update_padded(&mut s1, &data);
            key.update_padded(&mut s2, &data[..len / 2]);
            let mut r3 = ghash::GHash::new(&h.into());
            r3.update_padded(&data[..len / 2]);
            assert_eq!(key.finalize(s1), whole, "GHashKey, backend {b}");
            assert_eq!(
                key.finalize(s2),
                r3.finalize(),
                "GHashKey 2nd msg, backend {b}"
            );
        }
    }
}

/// `update_public_last` (a backend may multiply the last block apart) gives
/// what `update` gives, for GHASH and POLYVAL, on every backend: runs of
/// every length around the 8- and 16-block reductions, a state that is
/// not empty before the call, and public last blocks of every kind (zero,
/// a GCM lengths block, all ones, random).
#[test]
fn update_public_last_matches_update_every_backend() {
    let mut rng = Rng(0x5eed_1a57);
    for b in backends() {
        for n in 1..=35 {
            let h = rng.array::<16>();
            let nb = rng.below(3) * 16 + rng.below(2) * 7;
            let before = rng.bytes(nb);
            let mut blocks: Vec<ghash_ct::Block> =
                (0..n).map(|_| rng.array::<16>().into()).collect();
            let mut lens = [0u8; 16];
            lens[..8].copy_from_slice(&(8 * before.len() as u64).to_be_bytes());
            lens[8..].copy_from_slice(&(128 * n as u64).to_be_bytes());
            let lasts = [[0u8; 16], lens, [0xFF; 16], rng.array::<16>()];
            *blocks.last_mut().unwrap() = lasts[n % 4].into();

            // The same calls on each family's key and states.
            macro_rules! both_ways {
                ($key:ty, $state:ty, $what:literal) => {{
                    let key = <$key>::new_with_backend(&h.into(), b).unwrap();
                    let (mut s1, mut s2) = (<$state>::new(), <$state>::new());
                    key.update_padded(&mut s1, &before);
                    key.update_padded(&mut s2, &before);
                    key.update(&mut s1, &blocks);
                    key.update_public_last(&mut s2, &blocks);
                    let (t1, t2) = (key.finalize(s1), key.finalize(s2));
                    assert_eq!(t2, t1, "{}, backend {b}, {n} blocks", $what);
                }};
            }
            both_ways!(GHashKey, GHashState, "GHASH");
            both_ways!(ghash_ct::PolyvalKey, ghash_ct::PolyvalState, "POLYVAL");
        }
    }
}

#[test]
fn polyval_matches_rustcrypto_every_backend() {
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    for b in backends() {
        for _ in 0..MESSAGES / 2 {
            let h = rng.array::<16>();
            let len = rng.below(4097);
            let data = rng.bytes(len);
            let mut ours = Polyval::new_with_backend(&h.into(), b).unwrap();
            assert_eq!(ours.backend(), b);
            let mut reference = polyval::Polyval::new(&h.into());
            run_calls(&mut rng, &mut ours, &mut reference, &data);
            assert_eq!(
                ours.finalize(),
                reference.finalize(),
                "backend {b}, len {len}"
            );
        }
    }
}

#[test]
fn default_backend_matches_too() {
    let mut rng = Rng(7);
    let h = rng.array::<16>();
    let data = rng.bytes(3000);
    let mut ours = GHash::new(&h.into());
    assert_eq!(ours.backend(), Backend::detected());
    let mut reference = ghash::GHash::new(&h.into());
    ours.update_padded(&data);
    reference.update_padded(&data);
    assert_eq!(ours.finalize(), reference.finalize());
    let mut ours = GHash::new(&h.into());
    ours.update_padded(&data);
    ours.reset();
    assert_eq!(ours.finalize(), ghash_ct::Tag::default());
}

/// `--cfg ghash_ct_backend="NAME"` narrows detection to NAME (or the
/// portable backend if this CPU cannot run NAME).
#[test]
fn forced_backend_cfg_is_honoured() {
    let forced = [
        ("vpclmul512", cfg!(ghash_ct_backend = "vpclmul512")),
        ("vpclmul256", cfg!(ghash_ct_backend = "vpclmul256")),
        ("pclmul", cfg!(ghash_ct_backend = "pclmul")),
        ("pmull", cfg!(ghash_ct_backend = "pmull")),
        ("pmull8", cfg!(ghash_ct_backend = "pmull8")),
        ("vmull8", cfg!(ghash_ct_backend = "vmull8")),
        ("soft64", cfg!(ghash_ct_backend = "soft64")),
        ("soft32", cfg!(ghash_ct_backend = "soft32")),
    ];
    match forced.iter().find(|f| f.1) {
        Some(&(name, _)) => {
            let b = *Backend::ALL.iter().find(|b| b.name() == name).unwrap();
            let want = if b.is_available() {
                b
            } else {
                Backend::PORTABLE
            };
            assert_eq!(Backend::detected(), want);
            assert_eq!(GHash::new(&[3u8; 16].into()).backend(), want);
        }
        None => assert_eq!(Backend::detected(), Backend::available().next().unwrap()),
    }
}
