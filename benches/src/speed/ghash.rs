//! GHASH: every ghash-ct backend this CPU can run, next to RustCrypto
//! `ghash` 0.6 (auto-detected in the normal build; its portable soft
//! backend in the second build, made with `--cfg polyval_backend="soft"`).
//!
//! One message per measurement, hashed from a fresh state: ours through
//! `GHashKey::update_padded` (key powers built once), RustCrypto through a
//! clone of a keyed `GHash` (its per-message state) and `update_padded`.

use super::{Buf, Col, Ctx, Measured, Probe, Role, keep};
use ghash_ct::{GHash, GHashState, universal_hash::UniversalHash};

/// Message sizes in bytes.
const SIZES: [usize; 4] = [16, 1024, 8192, 16384];

const COLS: &[Col] = &[
    Col { key: "16", header: "16 B", lower_is_better: false },
    Col { key: "1024", header: "1 KiB", lower_is_better: false },
    Col { key: "8192", header: "8 KiB", lower_is_better: false },
    Col { key: "16384", header: "16 KiB", lower_is_better: false },
];

/// Was RustCrypto's `polyval` built with `--cfg polyval_backend="soft"`?
#[allow(unexpected_cfgs)]
const RUSTCRYPTO_SOFT: bool = cfg!(polyval_backend = "soft");

const H: [u8; 16] = *b"0123456789abcdef";

/// MB/s per size of `hash(message)`, for a row measured side by side.
fn probes<'a>(data: &'a [u8], hash: impl Fn(&[u8]) + Copy + 'a) -> Vec<Probe<'a>> {
    SIZES
        .iter()
        .map(|&n| Probe::mbps(n, move || hash(keep(&data[..n]))))
        .collect()
}

/// The suite entry point.
pub fn run(ctx: &mut Ctx) {
    let title = "GHASH";
    ctx.table(title, "MB/s per message size (fresh state per message)", COLS);
    let data: Vec<u8> = (0..SIZES[SIZES.len() - 1]).map(|i| (i * 131 + 7) as u8).collect();
    let data = Buf::from(&data[..]);

    let keys: Vec<(ghash_ct::Backend, GHash)> = if ctx.wants(Role::Ours) {
        ghash_ct::Backend::available()
            .filter_map(|b| Some((b, GHash::new_with_backend(&H.into(), b).ok()?)))
            .collect()
    } else {
        Vec::new()
    };
    let rc = ghash::GHash::new(&H.into());
    let mut rows: Vec<Measured<'_>> = keys
        .iter()
        .map(|(b, key)| {
            let k = key.key();
            let hash = move |m: &[u8]| {
                let mut st = GHashState::new();
                k.update_padded(&mut st, m);
                keep(st.finalize());
            };
            Measured::new(format!("ghash-ct {}", b.name()), Role::Ours, probes(&data, hash))
        })
        .collect();
    let name = if RUSTCRYPTO_SOFT { "RustCrypto ghash 0.6 soft" } else { "RustCrypto ghash 0.6 auto" };
    let hash = |m: &[u8]| {
        let mut s = rc.clone();
        s.update_padded(m);
        keep(s.finalize());
    };
    rows.push(Measured::new(name, Role::Reference, probes(&data, hash)));
    ctx.rows_side_by_side(title, rows);
}
