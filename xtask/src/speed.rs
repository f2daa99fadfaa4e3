//! `cargo xtask speed`: the speed tables and charts.
//!
//! The measuring is done by the `speed` binary of the `benches` package
//! (`benches/src/bin/speed.rs`, one module per crate under
//! `benches/src/speed/`). This command builds it twice in release
//! mode, each into a folder of its own under the target directory:
//!
//! 1. `speed-peers`, with `RUSTFLAGS='--cfg speed_peers'`: every backend
//!    this CPU can run, RustCrypto auto-detected, ring, aws-lc-rs (behind
//!    that cfg, not a feature, because aws-lc-sys compiles AWS-LC's C
//!    sources, minutes `cargo xtask test --all-features` must not pay) and
//!    OpenSSL.
//! 2. `speed-soft`, with `RUSTFLAGS='--cfg aes_backend="soft" --cfg
//!    polyval_backend="soft" --cfg aes_ct_backend="hybrid" --cfg
//!    ghash_ct_backend="NAME"'`, so RustCrypto's `aes`, `ghash` and
//!    `aes-gcm` use their portable code and aes-gcm-ct selects its software
//!    path (aes-ct `hybrid` + ghash-ct NAME, path `ctr-ghash`) as on a CPU
//!    without AES and carry-less multiply instructions: NAME is the GHASH
//!    backend ghash-ct's automatic selection takes on this CPU with
//!    PCLMULQDQ hidden (the first build's `speed --ghash-without-clmul`).
//!
//! It then runs the first build, which asks the others for their rows,
//! prints one table per suite with ratios and writes the tables and the
//! throughput-by-size charts to `<target>/speed/speed.txt` and
//! `speed.svg`. Arguments are passed to the binary (`cargo xtask speed --
//! --help`; `cargo xtask speed -- gcm` runs only the AES-GCM suite).

use crate::util::{cargo, fmt_duration, run, target_dir};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// The soft build's cfgs before the GHASH backend's.
const SOFT_CFGS: &str = concat!(
    r#"--cfg aes_backend="soft" --cfg polyval_backend="soft" "#,
    r#"--cfg aes_ct_backend="hybrid""#
);

pub fn main(args: &[String]) -> Result<(), String> {
    let start = Instant::now();
    let args: Vec<&String> = args.iter().filter(|a| *a != "--").collect();
    let target = target_dir();
    let peers_dir = target.join("speed-peers");
    let soft_dir = target.join("speed-soft");
    let bin = |dir: &Path| {
        dir.join("release")
            .join(format!("speed{}", std::env::consts::EXE_SUFFIX))
    };
    let user_flags = std::env::var("RUSTFLAGS").unwrap_or_default();
    let flags = |extra: &str| {
        if user_flags.is_empty() {
            extra.to_owned()
        } else {
            format!("{user_flags} {extra}")
        }
    };

    run(cargo()
        .args(["build", "--release", "-p", "benches", "--bin", "speed"])
        .env("CARGO_TARGET_DIR", &peers_dir)
        .env("RUSTFLAGS", flags("--cfg speed_peers")))?;

    // The GHASH this CPU would select without its carry-less multiply,
    // asked of the first build (ghash-ct's own table order).
    let out = Command::new(bin(&peers_dir))
        .arg("--ghash-without-clmul")
        .output()
        .map_err(|e| format!("speed --ghash-without-clmul: {e}"))?;
    let ghash = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    if !out.status.success() || ghash.is_empty() {
        return Err("speed --ghash-without-clmul printed no backend".into());
    }
    run(cargo()
        .args(["build", "--release", "-p", "benches", "--bin", "speed"])
        .env("CARGO_TARGET_DIR", &soft_dir)
        .env(
            "RUSTFLAGS",
            flags(&format!(r#"{SOFT_CFGS} --cfg ghash_ct_backend="{ghash}""#)),
        ))?;

    let mut cmd = Command::new(bin(&peers_dir));
    cmd.arg("--rustcrypto-soft").arg(bin(&soft_dir));
    cmd.arg("--write").arg(target.join("speed")).args(args);
    run(&mut cmd)?;
    println!(
        "cargo xtask speed took {} (builds included).",
        fmt_duration(start.elapsed())
    );
    Ok(())
}
