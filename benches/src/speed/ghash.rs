//! GHASH: every ghash-ct backend this CPU can run, next to RustCrypto
//! `ghash` 0.6 (auto-detected in the normal build; its portable soft
//! backend in the second build, made with `--cfg polyval_backend="soft"`).
//!
//! One message per measurement, hashed from a fresh state: ours through
//! `GHashKey::update_padded` (key powers built once), RustCrypto through a
//! clone of a keyed `GHash` (its per-message state) and `update_padded`.

use super::{Buf, Col, Ctx, Role, keep};
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

/// MB/s per size of `hash(message)`.
fn cells(ctx: &Ctx, data: &[u8], mut hash: impl FnMut(&[u8])) -> Vec<(String, f64)> {
    SIZES
        .iter()
        .map(|&n| (n.to_string(), ctx.mbps(n, || hash(keep(&data[..n])))))
        .collect()
}

/// The suite entry point.
pub fn run(ctx: &mut Ctx) {
    let title = "GHASH";
    ctx.table(title, "MB/s per message size (fresh state per message)", COLS);
    let data: Vec<u8> = (0..SIZES[SIZES.len() - 1]).map(|i| (i * 131 + 7) as u8).collect();
    let data = Buf::from(&data[..]);

    if ctx.wants(Role::Ours) {
        for b in ghash_ct::Backend::available() {
            let Ok(key) = GHash::new_with_backend(&H.into(), b) else { continue };
            let k = key.key();
            let cells = cells(ctx, &data, |m| {
                let mut st = GHashState::new();
                k.update_padded(&mut st, m);
                keep(st.finalize());
            });
            ctx.row(title, Role::Ours, &format!("ghash-ct {}", b.name()), cells);
        }
    }

    let rc = ghash::GHash::new(&H.into());
    let cells = cells(ctx, &data, |m| {
        let mut s = rc.clone();
        s.update_padded(m);
        keep(s.finalize());
    });
    let name = if RUSTCRYPTO_SOFT { "RustCrypto ghash 0.6 soft" } else { "RustCrypto ghash 0.6 auto" };
    ctx.row(title, Role::Reference, name, cells);
}
