//! `cargo xtask speed`: the speed table.
//!
//! The measuring is done by the `speed` binary of the `benches` package
//! (`benches/src/bin/speed.rs`, one module per crate under
//! `benches/src/speed/`). This command builds it twice in release mode:
//! normally, and into `target/speed-soft` with
//! `RUSTFLAGS='--cfg aes_backend="soft" --cfg polyval_backend="soft"
//! --cfg aes_ct_backend="hybrid" --cfg ghash_ct_backend="NAME"'` so
//! RustCrypto's `aes`, `ghash` and `aes-gcm` use their portable code and
//! aes-gcm-ct selects its software path (aes-ct `hybrid` + ghash-ct NAME,
//! path `ctr-ghash`) as on a CPU without AES and carry-less multiply
//! instructions: NAME is the GHASH backend ghash-ct's automatic selection
//! takes on this CPU with PCLMULQDQ hidden (the first build's
//! `speed --ghash-without-clmul`). It
//! then runs the first build, which measures every backend this CPU can
//! run, RustCrypto auto-detected, ring and OpenSSL, asks the second build
//! for the RustCrypto-soft and aes-gcm-ct software-path rows, and prints
//! one table per suite with ratios. Arguments are passed to the binary
//! (`cargo xtask speed -- --help`; `cargo xtask speed -- gcm` runs only
//! the AES-GCM suite).

use crate::util::{cargo, run, target_dir};
use std::process::Command;

pub fn main(args: &[String]) -> Result<(), String> {
    let args: Vec<&String> = args.iter().filter(|a| *a != "--").collect();
    let target = target_dir();
    let soft_dir = target.join("speed-soft");

    run(cargo().args(["build", "--release", "-p", "benches", "--bin", "speed"]))?;
    let bin = |dir: &std::path::Path| {
        dir.join("release")
            .join(format!("speed{}", std::env::consts::EXE_SUFFIX))
    };

    let mut flags = std::env::var("RUSTFLAGS").unwrap_or_default();
    if !flags.is_empty() {
        flags.push(' ');
    }
    flags.push_str(concat!(
        r#"--cfg aes_backend="soft" --cfg polyval_backend="soft" "#,
        r#"--cfg aes_ct_backend="hybrid" "#
    ));
    // The GHASH this CPU would select without its carry-less multiply,
    // asked of the first build (ghash-ct's own table order).
    let out = Command::new(bin(&target))
        .arg("--ghash-without-clmul")
        .output()
        .map_err(|e| format!("speed --ghash-without-clmul: {e}"))?;
    let ghash = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    if !out.status.success() || ghash.is_empty() {
        return Err("speed --ghash-without-clmul printed no backend".into());
    }
    flags.push_str(&format!(r#"--cfg ghash_ct_backend="{ghash}""#));
    run(cargo()
        .args(["build", "--release", "-p", "benches", "--bin", "speed"])
        .env("CARGO_TARGET_DIR", &soft_dir)
        .env("RUSTFLAGS", flags))?;

    run(Command::new(bin(&target))
        .arg("--rustcrypto-soft")
        .arg(bin(&soft_dir))
        .args(args))
}
