//! Adiantum / HPolyC loop for instruction counting under qemu (`cargo
//! xtask armcount adiantum`).
//!
//! usage: `armcount_adiantum <impl> <bytes> <iters>`
//!   impl: adiantum12 | adiantum20 | adiantum8 | hpolyc12 | hpolyc20 | hpolyc8
//!         (adiantum-ct, default NH backend; `adiantum12-<backend>` forces
//!         one, e.g. `adiantum12-soft`), `xts` (AES-256-XTS: RustCrypto
//!         `xts-mode` 0.6 over `aes_ct::Aes256`, whatever backend aes-ct
//!         selects), or `ref12` (crates.io `adiantum` 0.2, XChaCha12 + `aes`).
//!
//! Each iteration encrypts one `bytes`-long sector in place with a new
//! 32-byte tweak (sector number). Keys are set up once before the loop, so
//! the difference of two runs (10 and 20 iterations) is the
//! per-message cost.

use adiantum_ct::{
    Adiantum, AdiantumXChaCha8, AdiantumXChaCha20, Backend, HPolyC, HPolyCXChaCha8,
    HPolyCXChaCha20, HashVariant, Hbsh, StreamVariant, cipher::KeyInit, sector_tweak,
};
use benches::armcount::Args;
use std::process::ExitCode;

const KEY: [u8; 32] = [0x42; 32];

fn run<S: StreamVariant, H: HashVariant>(c: &Hbsh<S, H>, buf: &mut [u8], iters: usize) -> u8 {
    let mut acc = 0;
    for i in 0..iters {
        c.encrypt(&sector_tweak(i as u64), buf)
            .expect("valid length");
        acc ^= buf[buf.len() / 2];
    }
    acc
}

fn main() -> ExitCode {
    let Args { imp, bytes, iters } = Args::parse(
        "armcount_adiantum",
        "<adiantum12|adiantum20|adiantum8|hpolyc12|hpolyc20|hpolyc8|adiantum12-BACKEND|xts|ref12>",
    );
    if bytes < 16 {
        eprintln!("bytes must be at least 16");
        return ExitCode::FAILURE;
    }
    let mut buf = vec![0x5au8; bytes];
    let key = KEY.into();
    // A cipher type's run, with nothing to add to the report line.
    macro_rules! plain {
        ($t:ty) => {
            (run(&<$t>::new(&key), &mut buf, iters), String::new())
        };
    }
    let (acc, what) = match imp.as_str() {
        "adiantum12" => {
            let c = Adiantum::new(&key);
            (run(&c, &mut buf, iters), format!("nh={}", c.backend()))
        }
        "adiantum20" => plain!(AdiantumXChaCha20),
        "adiantum8" => plain!(AdiantumXChaCha8),
        "hpolyc12" => plain!(HPolyC),
        "hpolyc20" => plain!(HPolyCXChaCha20),
        "hpolyc8" => plain!(HPolyCXChaCha8),
        "xts" => {
            let k1 = aes_ct::Aes256::new(&[1u8; 32].into());
            let k2 = aes_ct::Aes256::new(&[2u8; 32].into());
            let what = format!("aes-ct={}", k1.backend());
            let xts = xts_mode::Xts128::new(k1, k2);
            let mut acc = 0;
            for i in 0..iters {
                xts.encrypt_sector(&mut buf, xts_mode::get_tweak_default(i as u128));
                acc ^= buf[bytes / 2];
            }
            (acc, what)
        }
        "ref12" => {
            let c = adiantum::Cipher::<chacha20::XChaCha12, aes::Aes256>::new(&key);
            let mut acc = 0;
            for i in 0..iters {
                c.encrypt(&mut buf, &sector_tweak(i as u64));
                acc ^= buf[bytes / 2];
            }
            (acc, String::new())
        }
        other => {
            let Some(b) = other
                .strip_prefix("adiantum12-")
                .and_then(|n| Backend::ALL.iter().copied().find(|b| b.name() == n))
            else {
                eprintln!("unknown impl {other}");
                return ExitCode::FAILURE;
            };
            let Ok(c) = Adiantum::new_with_backend(&key, b) else {
                eprintln!("backend {b} not available here");
                return ExitCode::FAILURE;
            };
            (run(&c, &mut buf, iters), format!("nh={b}"))
        }
    };
    println!("{imp} len={bytes} iters={iters} acc={acc:02x} {what}");
    ExitCode::SUCCESS
}
