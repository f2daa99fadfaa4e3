//! `cargo xtask ct`: constant-time checks.
//!
//! Without options, the "ctgrind" check: builds the `ct-check` harness
//! (release, with line tables, into `<target>/ct`) and runs it under
//! `valgrind --error-exitcode=1 --track-origins=yes`. The harness marks the
//! secret inputs of every operation of every backend valgrind can run as
//! undefined; memcheck then reports each conditional jump/move ("Conditional
//! jump or move depends on uninitialised value(s)") and memory address ("Use
//! of uninitialised value of size N") computed from them. The command fails
//! on any such report, on a non-zero exit and on a wrong result, and prints
//! the covered and uncovered backends (with the reason, e.g. AVX-512 that
//! valgrind 3.19 cannot execute). Before that it proves the check works:
//! the harness's leaky toys (secret-indexed lookup, secret branch) must be
//! reported, its constant-time toy must not; then the same toys' tests in
//! `ct-check/tests/toys.rs`, which a plain `cargo test` leaves ignored
//! (they need valgrind), run with `--ignored`. `ct-check/valgrind.supp`
//! holds the declassifications (today one: aes-gcm-ct's open branches on
//! the tag-check result it returns), each matching only its own function.
//!
//! `--timing`: the dudect-style statistical test (`ct-timing` binary):
//! fixed-vs-random input classes, Welch's t, for the software backends on
//! this host. Not part of `cargo xtask test`.

use crate::prereq::{self, Need};
use crate::util::{cargo, in_ci, run, show, target_dir};
use std::process::Command;

const USAGE: &str = "\
usage: cargo xtask ct [options]

  --only SUBSTR     only the harness cases whose name contains SUBSTR (repeatable)
  --timing [ARGS]   dudect-style timing test instead (ARGS go to ct-timing;
                    `cargo xtask ct --timing --help`)

Runs the ct-check harness under valgrind memcheck; fails on any report of a
branch or address that depends on a secret.";

const VALGRIND: Need = Need::Tool {
    path: "valgrind",
    package: "valgrind",
};

/// The memcheck reports that mean "depends on a secret".
const REPORTS: &[&str] = &[
    "Conditional jump or move depends on uninitialised value(s)",
    "Use of uninitialised value of size",
    "Syscall param",
];

pub fn main(args: &[String]) -> Result<(), String> {
    if args.iter().any(|a| a == "--timing") {
        return timing(args.iter().filter(|a| *a != "--timing").cloned().collect());
    }
    let mut only = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--only" => only.push(it.next().ok_or("--only needs a value")?.clone()),
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            other => return Err(format!("unknown option `{other}`\n\n{USAGE}")),
        }
    }
    if let Err(why) = prereq::ensure(&[VALGRIND]) {
        return Err(format!(
            "valgrind is needed{}: {why}",
            if in_ci() { " (CI)" } else { "" }
        ));
    }
    let bin = build()?;

    println!("\n==> the check catches the toy leaks");
    for (toy, must_fail, report) in [
        ("toy-table", true, REPORTS[1]),
        ("toy-branch", true, REPORTS[0]),
        ("toy-clean", false, ""),
    ] {
        let (code, _out, err) = valgrind(&bin, &[toy])?;
        let reported = REPORTS.iter().any(|r| err.contains(r));
        if must_fail {
            if code == 0 || !err.contains(report) {
                return Err(format!(
                    "the harness did not catch {toy} (exit {code}); valgrind said:\n{err}"
                ));
            }
            println!("  {toy:<11} caught: \"{report}\"");
        } else {
            if code != 0 || reported {
                return Err(format!(
                    "false positive on {toy} (exit {code}); valgrind said:\n{err}"
                ));
            }
            println!("  {toy:<11} clean, as it should be");
        }
    }

    // The same toys as tests (`ct-check/tests/toys.rs`), ignored by a plain
    // `cargo test` because they need valgrind: run here, where it is
    // installed. `--workspace` keeps the host tests' feature set, so
    // nothing is rebuilt after them.
    println!("\n==> the toy tests, which need valgrind (ct-check/tests/toys.rs)");
    run(cargo().args(["test", "--workspace", "--test", "toys", "--", "--ignored"]))?;

    println!("\n==> constant-time check of every backend valgrind can run");
    let mut a: Vec<String> = vec!["run".into()];
    for o in &only {
        a.push("--only".into());
        a.push(o.clone());
    }
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let (code, out, err) = valgrind(&bin, &a)?;
    print!("{out}");
    let log = target_dir().join("ct").join("valgrind.log");
    let _ = std::fs::write(&log, &err);
    let found: Vec<&str> = REPORTS
        .iter()
        .copied()
        .filter(|r| err.contains(r))
        .collect();
    if code != 0 || !found.is_empty() {
        let excerpt: String = err.lines().take(80).collect::<Vec<_>>().join("\n");
        return Err(format!(
            "constant-time check failed (exit {code}; reports: {}); valgrind log {}:\n{excerpt}",
            if found.is_empty() {
                "none".to_string()
            } else {
                found.join(" / ")
            },
            log.display()
        ));
    }
    println!("\ncargo xtask ct: no secret-dependent branch or address; toy leaks caught");
    Ok(())
}

/// Where the harnesses are built: their own target dir (release with line
/// tables, for readable reports), so the normal release build is not
/// invalidated. `xtask ct-trace` builds its host guest here too.
pub fn build_dir() -> std::path::PathBuf {
    target_dir().join("ct")
}

/// `cargo`, building into [`build_dir`] with its settings (release with
/// line tables), for every build that shares it.
pub fn cargo_in_build_dir() -> Command {
    let mut c = cargo();
    c.env("CARGO_TARGET_DIR", build_dir())
        .env("CARGO_PROFILE_RELEASE_DEBUG", "line-tables-only");
    c
}

/// The checks whose answer depends on the optimiser, on the optimised code
/// users run: the dead-stack scan of key setup and use (`ct-check`'s
/// zeroize test: register spills and hoisted loads exist only there) and
/// the single-step trace of every AES-GCM path of this CPU (`aes-gcm-ct`'s
/// `ct_trace`, ignored in debug builds). Built in [`build_dir`], whose
/// dependencies are the same release builds.
pub fn release_tests() -> Result<(), String> {
    for (krate, test) in [("ct-check", "zeroize"), ("aes-gcm-ct", "ct_trace")] {
        run(cargo_in_build_dir().args(["test", "--release", "-p", krate, "--test", test]))?;
    }
    Ok(())
}

/// Build the harness with line tables (for readable valgrind reports).
fn build() -> Result<std::path::PathBuf, String> {
    run(cargo_in_build_dir().args(["build", "--release", "-p", "ct-check", "--bin", "ct-check"]))?;
    Ok(build_dir()
        .join("release")
        .join(format!("ct-check{}", std::env::consts::EXE_SUFFIX)))
}

/// Run the harness under memcheck: (exit code, stdout, valgrind's stderr).
fn valgrind(bin: &std::path::Path, args: &[&str]) -> Result<(i32, String, String), String> {
    let mut c = Command::new("valgrind");
    c.args([
        "--error-exitcode=1",
        "--track-origins=yes",
        "--num-callers=16",
    ])
    .arg(format!(
        "--suppressions={}",
        crate::util::root().join("ct-check/valgrind.supp").display()
    ))
    .arg(bin)
    .args(args);
    println!("$ {}", show(&c));
    let out = c
        .output()
        .map_err(|e| format!("cannot start `{}`: {e}", show(&c)))?;
    Ok((
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    ))
}

/// `--timing`: build and run the dudect-style test.
fn timing(args: Vec<String>) -> Result<(), String> {
    run(cargo()
        .args([
            "run",
            "--release",
            "-p",
            "ct-check",
            "--bin",
            "ct-timing",
            "--",
        ])
        .args(&args))
}
