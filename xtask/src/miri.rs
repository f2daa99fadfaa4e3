//! `cargo xtask miri` and `cargo xtask asan`, both on nightly.
//!
//! `miri`: Miri (undefined behaviour: out-of-bounds, uninitialised reads,
//! aliasing under Stacked Borrows, invalid values) over the portable
//! backends' tests. The crates are built with
//! `--cfg <crate>_backend="<portable>"` and, under Miri, `cpufeatures`
//! reports only the target's compile-time features, so the SIMD backends
//! that need run-time detection are not entered. Miri is ~1000x slower than
//! native code, so only the tests listed in [`MIRI_TESTS`] run: small
//! known-answer and bad-input tests that reach every line of the portable
//! code.
//!
//! `asan`: the host test suite of the library crates built with
//! `-Zsanitizer=address` (heap/stack out-of-bounds, use after free), every
//! backend this CPU can run.

use crate::util::{root, run, target_dir};
use std::process::Command;

/// Does `cargo <args>` on the nightly toolchain run and succeed (a
/// tool's `--version`: is it installed)?
pub fn nightly_ok(args: &[&str]) -> bool {
    nightly(args).output().is_ok_and(|o| o.status.success())
}

/// `cargo` on the nightly toolchain (through rustup), with the variables
/// that tie a child cargo to the stable toolchain that runs xtask removed.
pub fn nightly(args: &[&str]) -> Command {
    let mut c = Command::new("rustup");
    c.args(["run", "nightly", "cargo"]).args(args);
    for v in [
        "RUSTC",
        "RUSTDOC",
        "CARGO",
        "RUSTUP_TOOLCHAIN",
        "RUSTC_WRAPPER",
    ] {
        c.env_remove(v);
    }
    c.current_dir(root());
    c
}

/// The portable backend of each crate, forced for Miri.
const PORTABLE_CFG: &str = concat!(
    r#"--cfg aes_ct_backend="soft" "#,
    r#"--cfg ghash_ct_backend="soft64" "#,
    r#"--cfg adiantum_ct_backend="soft""#
);

/// (package, cargo test-target arguments, test-name filter and libtest
/// options): what Miri runs. Chosen to finish in minutes under Miri while
/// reaching the key schedule, the bitsliced encrypt/decrypt, GHASH/POLYVAL's
/// multiply and aggregation, NH, Poly1305, XChaCha and Adiantum's glue.
/// Left out: ghash-ct's `forms_match_reference` (2000 random products
/// against a bit-serial reference; over 10 minutes under Miri). On a
/// loaded 2-core machine the whole list took about 15 minutes (NH and
/// NHPoly1305 known answers 145 s, ghash-ct bad input 78 s).
const MIRI_TESTS: &[(&str, &[&str], &[&str])] = &[
    ("aes-ct", &["--lib"], &[]),
    ("aes-ct", &["--test", "bad_input"], &[]),
    ("aes-ct", &["--test", "kat"], &["fips197"]),
    (
        "ghash-ct",
        &["--test", "bad_input"],
        &["--skip", "verify_rejects"],
    ),
    ("ghash-ct", &["--test", "kat"], &["spec"]),
    ("adiantum-ct", &["--lib"], &[]),
    ("adiantum-ct", &["--test", "bad_input"], &["mismatched"]),
    ("adiantum-ct", &["--test", "kat"], &["nh"]),
];

const USAGE_MIRI: &str = "\
usage: cargo xtask miri [--list]

Runs Miri (nightly) over the portable backends' tests listed in
xtask/src/miri.rs (MIRI_TESTS). Installs the miri component if missing.";

fn ensure_miri() -> Result<(), String> {
    if nightly_ok(&["miri", "--version"]) {
        return Ok(());
    }
    println!("xtask: installing the nightly miri component");
    run(Command::new("rustup").args(["+nightly", "component", "add", "miri", "rust-src"]))
}

pub fn main(args: &[String]) -> Result<(), String> {
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{USAGE_MIRI}");
        return Ok(());
    }
    if args.iter().any(|a| a == "--list") {
        for (p, t, f) in MIRI_TESTS {
            println!("{p} {} {}", t.join(" "), f.join(" "));
        }
        return Ok(());
    }
    if let Some(a) = args.first() {
        return Err(format!("unknown option `{a}`\n\n{USAGE_MIRI}"));
    }
    ensure_miri()?;
    let mut failed = Vec::new();
    for (pkg, targets, filter) in MIRI_TESTS {
        println!(
            "\n==> miri: {pkg} {} {}",
            targets.join(" "),
            filter.join(" ")
        );
        let mut c = nightly(&["miri", "test", "-p", pkg]);
        c.args(*targets)
            .env("CARGO_TARGET_DIR", target_dir().join("miri"))
            .env("RUSTFLAGS", crate::util::rustflags(PORTABLE_CFG))
            .env("MIRIFLAGS", "-Zmiri-strict-provenance");
        if !filter.is_empty() {
            c.arg("--").args(*filter);
        }
        if let Err(e) = run(&mut c) {
            failed.push(e);
        }
    }
    if failed.is_empty() {
        println!("\ncargo xtask miri: all {} runs clean", MIRI_TESTS.len());
        Ok(())
    } else {
        Err(failed.join("\n"))
    }
}

/// The packages ASan runs (the libraries and their tests; not xtask,
/// benches or the harness, which only drive the libraries).
const ASAN_PACKAGES: &[&str] = &["aes-ct", "ghash-ct", "adiantum-ct", "aes-gcm-ct"];

/// `cargo xtask asan`.
pub fn asan(args: &[String]) -> Result<(), String> {
    if let Some(a) = args.first() {
        return Err(format!(
            "unknown option `{a}`\n\nusage: cargo xtask asan  (host test suite under AddressSanitizer, nightly)"
        ));
    }
    let host = host_triple()?;
    let mut c = nightly(&["test", "--no-fail-fast", "--target", &host]);
    for p in ASAN_PACKAGES {
        c.args(["-p", p]);
    }
    // `--target` keeps the flags off build scripts and proc macros.
    c.env("CARGO_TARGET_DIR", target_dir().join("asan"))
        .env("RUSTFLAGS", crate::util::rustflags("-Zsanitizer=address"))
        .env("RUSTDOCFLAGS", "-Zsanitizer=address")
        .env(
            "ASAN_OPTIONS",
            "detect_leaks=1:detect_stack_use_after_return=1",
        );
    run(&mut c)?;
    println!("\ncargo xtask asan: clean");
    Ok(())
}

fn host_triple() -> Result<String, String> {
    let out = Command::new("rustc")
        .arg("-vV")
        .output()
        .map_err(|e| format!("rustc -vV: {e}"))?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_owned))
        .ok_or_else(|| "rustc -vV printed no host".into())
}
