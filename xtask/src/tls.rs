//! `cargo xtask tls`: rustls over our AES-GCM against OpenSSL (a step of
//! `cargo xtask test`).
//!
//! The test is the crate `interop/tls` (its own workspace and lockfile, so
//! rustls stays out of the main lockfile and the main clippy runs): a
//! rustls client and server whose AES-GCM suites (TLS 1.3 AES-128/256-GCM,
//! TLS 1.2 ECDHE-ECDSA/RSA AES-128/256-GCM) seal and open every record with
//! aes-gcm-ct, against `openssl s_server` and `openssl s_client` on
//! 127.0.0.1: 1 MiB each way compared byte for byte, and tampered records
//! rejected, on the automatic backend and on the software path forced at
//! run time (one build serves both). This step checks its formatting and
//! clippy, builds it once (debug: the data is small) into
//! `<target>/interop-tls` and runs it.
//!
//! Not `--locked`: `interop/tls/Cargo.lock` pins rustls and everything
//! already in it, but a dependency the library crates gain must not fail
//! this step until someone refreshes that lockfile; cargo resolves the new
//! entry into it (commit the updated file).

use crate::prereq::Need;
use crate::util::{cargo, root, run, target_dir};
use std::process::Command;

/// What the step needs besides cargo: the OpenSSL command-line tool.
pub const NEEDS: &[Need] = &[Need::Tool {
    path: "openssl",
    package: "openssl",
}];

const MANIFEST: &str = "interop/tls/Cargo.toml";

pub fn main(args: &[String]) -> Result<(), String> {
    if let Some(a) = args.first() {
        if a == "-h" || a == "--help" {
            println!(
                "usage: cargo xtask tls\n\nfmt and clippy of interop/tls, then rustls over aes-gcm-ct against openssl s_server / s_client (automatic backend, then the software path)"
            );
            return Ok(());
        }
        return Err(format!("unknown argument `{a}` (see --help)"));
    }
    crate::prereq::ensure(NEEDS)?;
    test()
}

/// fmt, clippy, build, run.
pub fn test() -> Result<(), String> {
    let dir = target_dir().join("interop-tls");
    let with_dir = |c: &mut Command| {
        c.env("CARGO_TARGET_DIR", &dir);
    };
    run(cargo().args(["fmt", "--manifest-path", MANIFEST, "--check"]))?;
    let mut c = cargo();
    c.args([
        "clippy",
        "--manifest-path",
        MANIFEST,
        "--all-targets",
        "--",
        "-D",
        "warnings",
    ]);
    with_dir(&mut c);
    run(&mut c)?;
    let mut c = cargo();
    c.args(["build", "--manifest-path", MANIFEST]);
    with_dir(&mut c);
    run(&mut c)?;
    let bin = dir.join("debug").join("tls-interop");
    run(Command::new(&bin)
        .args(["--openssl", "openssl", "--mode", "both"])
        .current_dir(root()))
}
