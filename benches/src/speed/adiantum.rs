//! Adiantum: adiantum-ct's Adiantum (XChaCha12) on every backend this CPU
//! can run (forced with `new_with_backend`) and its XChaCha20 / XChaCha8
//! and HPolyC variants on the automatic backend, next to crates.io
//! `adiantum` 0.2 (XChaCha12 over RustCrypto `aes`, auto-detected in the
//! normal build, soft in the `--cfg aes_backend="soft"` build).
//!
//! Every message encrypted in place with a 32-byte tweak, the key set up
//! once. The parts table times adiantum-ct's building blocks alone: NH
//! over one 1024-byte chunk per backend, the XChaCha12 keystream over a
//! 4080-byte message's bulk per backend, scalar Poly1305 over 4080 bytes.

use super::{Buf, Col, Ctx, Role, keep};
use adiantum_ct::cipher::KeyInit;
use adiantum_ct::{
    Adiantum, AdiantumXChaCha8, AdiantumXChaCha20, Backend, HPolyC, HPolyCXChaCha8,
    HPolyCXChaCha20, hazmat,
};

/// Message sizes in bytes (a 512-byte sector, a 4096-byte page).
const SIZES: [usize; 2] = [512, 4096];

#[rustfmt::skip]
const COLS: &[Col] = &[
    Col { key: "512ns", header: "512 B ns", lower_is_better: true },
    Col { key: "512", header: "512 B", lower_is_better: false },
    Col { key: "4096", header: "4 KiB", lower_is_better: false },
];

#[rustfmt::skip]
const PART_COLS: &[Col] = &[
    Col { key: "ns", header: "ns", lower_is_better: true },
    Col { key: "mbps", header: "MB/s", lower_is_better: false },
];

const TITLE: &str = "Adiantum encrypt";
const PARTS: &str = "Adiantum parts (adiantum-ct)";

/// Was RustCrypto `aes` built with `--cfg aes_backend="soft"`?
#[allow(unexpected_cfgs)]
const RUSTCRYPTO_SOFT: bool = cfg!(aes_backend = "soft");

const KEY: [u8; 32] = [0x42; 32];
const TWEAK: [u8; 32] = [7; 32];

/// ns at 512 bytes, then MB/s per size, of `encrypt(buffer)`.
fn cells(ctx: &Ctx, mut encrypt: impl FnMut(&mut [u8])) -> Vec<(String, f64)> {
    let mut buf = Buf::zeroed(SIZES[SIZES.len() - 1]);
    let mut out = Vec::new();
    for n in SIZES {
        let t = ctx.measure(|| encrypt(keep(&mut buf[..n])));
        if n == 512 {
            out.push(("512ns".to_owned(), t * 1e9));
        }
        out.push((n.to_string(), n as f64 / t / 1e6));
    }
    out
}

/// adiantum-ct's row of one cipher value, or one row per listed cipher
/// type (on the automatic backend).
macro_rules! ours {
    ($ctx:ident, $c:expr, $name:expr) => {{
        let c = $c;
        let cells = cells($ctx, |b| keep(c.encrypt(&TWEAK, b).expect("message length")));
        $ctx.row(TITLE, Role::Ours, &$name, cells);
    }};
    ($ctx:ident; $($t:ty => $name:literal),+ $(,)?) => {
        $(ours!($ctx, <$t>::new(&KEY.into()), concat!("adiantum-ct ", $name));)+
    };
}

/// A part's row: `f` handles `bytes` per call.
fn part(ctx: &mut Ctx, name: &str, bytes: usize, f: impl FnMut()) {
    let t = ctx.measure(f);
    let cells = vec![
        ("ns".to_owned(), t * 1e9),
        ("mbps".to_owned(), bytes as f64 / t / 1e6),
    ];
    ctx.row(PARTS, Role::Ours, name, cells);
}

/// The suite entry point.
pub fn run(ctx: &mut Ctx) {
    ctx.table(
        TITLE,
        "ns per 512-byte message, then MB/s at N bytes; 32 B tweak, in place",
        COLS,
    );
    if ctx.wants(Role::Ours) {
        for b in Backend::available() {
            let Ok(c) = Adiantum::new_with_backend(&KEY.into(), b) else {
                continue;
            };
            ours!(
                ctx,
                c,
                format!("adiantum-ct Adiantum XChaCha12 {}", b.name())
            );
        }
        ours!(ctx;
            AdiantumXChaCha20 => "Adiantum XChaCha20",
            AdiantumXChaCha8 => "Adiantum XChaCha8",
            HPolyC => "HPolyC XChaCha12",
            HPolyCXChaCha20 => "HPolyC XChaCha20",
            HPolyCXChaCha8 => "HPolyC XChaCha8",
        );
        ctx.note(
            "Adiantum XChaCha20/XChaCha8 and HPolyC rows are compared with the XChaCha12 \
             reference.",
        );
    }

    let rc = adiantum::Cipher::<chacha20::XChaCha12, aes::Aes256>::new(&KEY.into());
    let cells = cells(ctx, |b| rc.encrypt(b, &TWEAK));
    let name = if RUSTCRYPTO_SOFT {
        "crates.io adiantum 0.2 (XChaCha12), aes soft"
    } else {
        "crates.io adiantum 0.2 (XChaCha12), aes auto"
    };
    ctx.row(TITLE, Role::Reference, name, cells);

    if ctx.wants(Role::Ours) {
        ctx.table(PARTS, "ns and MB/s per call", PART_COLS);
        let (nh_key, chunk) = ([1u8; 1072], [2u8; 1024]);
        let mut stream = vec![0u8; 4080];
        for b in Backend::available() {
            part(
                ctx,
                &format!("NH 1024 B, {}", b.name()),
                chunk.len(),
                || {
                    keep(hazmat::nh(b, keep(&nh_key), keep(&chunk)).expect("available backend"));
                },
            );
            part(
                ctx,
                &format!("XChaCha12 4080 B, {}", b.name()),
                stream.len(),
                || {
                    let r = hazmat::xchacha_xor::<adiantum_ct::XChaCha12>(
                        b,
                        &KEY,
                        &[0; 24],
                        0,
                        keep(&mut stream),
                    );
                    keep(r.expect("available backend"));
                },
            );
        }
        part(ctx, "Poly1305 4080 B", stream.len(), || {
            keep(hazmat::poly1305(&[3; 16], keep(&stream)));
        });
    }
}
