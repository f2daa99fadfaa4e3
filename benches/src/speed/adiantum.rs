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

use super::{Buf, Col, Ctx, Measured, Probe, Role, Unit, keep};
use adiantum_ct::cipher::KeyInit;
use adiantum_ct::{
    Adiantum, AdiantumXChaCha8, AdiantumXChaCha20, Backend, HPolyC, HPolyCXChaCha8,
    HPolyCXChaCha20, HashVariant, Hbsh, StreamVariant, hazmat,
};

/// Message sizes in bytes (a 512-byte sector, a 4096-byte page).
const SIZES: [usize; 2] = [512, 4096];
/// The bulk of a 4096-byte message (its last 16 bytes are hashed apart),
/// the length the parts table streams and hashes.
const BULK: usize = 4080;

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

/// ns at 512 bytes, then MB/s per size, of `encrypt(buffer)`; each probe
/// with a buffer of its own.
fn probes<'a>(encrypt: &'a dyn Fn(&mut [u8])) -> Vec<Probe<'a>> {
    SIZES
        .iter()
        .map(|&n| {
            let mut buf = Buf::zeroed(n);
            let run = move || encrypt(keep(&mut buf[..]));
            if n == 512 {
                Probe::new(&[("512ns", Unit::Ns), ("512", Unit::Mbps(n))], run)
            } else {
                Probe::mbps(n, run)
            }
        })
        .collect()
}

/// An encryption of adiantum-ct's for [`probes`], owning its cipher.
type Encrypt = Box<dyn Fn(&mut [u8])>;

/// adiantum-ct's encryption with cipher `c`.
fn ours<S: StreamVariant + 'static, H: HashVariant + 'static>(c: Hbsh<S, H>) -> Encrypt {
    Box::new(move |b| {
        c.encrypt(&TWEAK, b).expect("message length");
    })
}

/// A part's row: `f` handles `bytes` per call.
fn part<'a>(name: String, bytes: usize, f: impl FnMut() + 'a) -> Measured<'a> {
    let probe = Probe::new(&[("ns", Unit::Ns), ("mbps", Unit::Mbps(bytes))], f);
    Measured::new(name, Role::Ours, vec![probe])
}

/// The suite entry point.
pub fn run(ctx: &mut Ctx) {
    ctx.table(
        TITLE,
        "ns per 512-byte message, then MB/s at N bytes; 32 B tweak, in place",
        COLS,
    );
    let mut encs: Vec<(String, Role, Encrypt)> = Vec::new();
    if ctx.wants(Role::Ours) {
        for b in Backend::available() {
            let Ok(c) = Adiantum::new_with_backend(&KEY.into(), b) else {
                continue;
            };
            let name = format!("adiantum-ct Adiantum XChaCha12 {}", b.name());
            encs.push((name, Role::Ours, ours(c)));
        }
        macro_rules! variants {
            ($($t:ty => $name:literal),+ $(,)?) => {
                $(encs.push((
                    concat!("adiantum-ct ", $name).to_owned(),
                    Role::Ours,
                    ours(<$t>::new(&KEY.into())),
                ));)+
            };
        }
        variants!(
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
    let name = if RUSTCRYPTO_SOFT {
        "crates.io adiantum 0.2 (XChaCha12), aes soft"
    } else {
        "crates.io adiantum 0.2 (XChaCha12), aes auto"
    };
    encs.push((
        name.to_owned(),
        Role::Reference,
        Box::new(move |b| rc.encrypt(b, &TWEAK)),
    ));
    let rows = encs
        .iter()
        .map(|(name, role, e)| Measured::new(name.clone(), *role, probes(&**e)))
        .collect();
    ctx.rows_side_by_side(TITLE, rows);

    if ctx.wants(Role::Ours) {
        ctx.table(PARTS, "ns and MB/s per call", PART_COLS);
        // Each part with data of its own: the rows run side by side.
        let (nh_key, chunk) = ([1u8; 1072], [2u8; 1024]);
        let mut rows = Vec::new();
        for b in Backend::available() {
            let nh = move || {
                keep(hazmat::nh(b, keep(&nh_key), keep(&chunk)).expect("available backend"));
            };
            rows.push(part(format!("NH 1024 B, {}", b.name()), chunk.len(), nh));
            let mut stream = vec![0u8; BULK];
            let xor = move || {
                let r = hazmat::xchacha_xor::<adiantum_ct::XChaCha12>(
                    b,
                    &KEY,
                    &[0; 24],
                    0,
                    keep(&mut stream),
                );
                keep(r.expect("available backend"));
            };
            rows.push(part(format!("XChaCha12 {BULK} B, {}", b.name()), BULK, xor));
        }
        let stream = vec![0u8; BULK];
        let poly = move || {
            keep(hazmat::poly1305(&[3; 16], keep(&stream)));
        };
        rows.push(part(format!("Poly1305 {BULK} B"), BULK, poly));
        ctx.rows_side_by_side(PARTS, rows);
    }
}
