//! The valgrind check catches what it must: the leaky toys (a
//! secret-indexed table lookup, a secret branch) make memcheck report and
//! the run fail; the constant-time toy passes. Also checks that the
//! harness refuses to "pass" when it is not under valgrind.
//!
//! The valgrind tests are `#[ignore]`d, so a plain `cargo test` reports
//! them as not run rather than passing them: `cargo xtask ct` (a step of
//! `cargo xtask test`) installs valgrind and runs them with `--ignored`,
//! where they fail when valgrind is missing. x86_64 only: the
//! harness's client requests are x86_64 code, and under qemu the host's
//! valgrind cannot run the guest.
#![cfg(target_arch = "x86_64")]

use std::process::Command;

const EXE: &str = env!("CARGO_BIN_EXE_ct-check");

/// Run a toy under memcheck; (exit code, valgrind's stderr). Panics when
/// valgrind cannot be run: a missing tool fails, never passes.
fn toy(which: &str) -> (i32, String) {
    let version = Command::new("valgrind").arg("--version").output();
    assert!(
        version.as_ref().is_ok_and(|o| o.status.success()),
        "valgrind cannot be run ({version:?}): install it (`cargo xtask ct` does) \
         or leave these tests ignored"
    );
    let out = Command::new("valgrind")
        .args(["--error-exitcode=1", "--track-origins=yes"])
        .arg(EXE)
        .arg(which)
        .output()
        .expect("run valgrind");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Run a leaky toy: the run must fail with memcheck's `report`, located
/// in the toy's function `leaky_fn`.
fn caught(which: &str, report: &str, leaky_fn: &str) {
    let (code, err) = toy(which);
    assert_ne!(code, 0, "the leak was not caught:\n{err}");
    assert!(err.contains(report), "no {report:?} report:\n{err}");
    assert!(err.contains(leaky_fn), "report not in the toy:\n{err}");
}

#[test]
#[ignore = "needs valgrind; `cargo xtask ct` installs it and runs these with --ignored"]
fn secret_indexed_table_lookup_is_caught() {
    caught(
        "toy-table",
        "Use of uninitialised value of size",
        "leaky_table",
    );
}

#[test]
#[ignore = "needs valgrind; `cargo xtask ct` installs it and runs these with --ignored"]
fn secret_branch_is_caught() {
    caught(
        "toy-branch",
        "Conditional jump or move depends on uninitialised value(s)",
        "leaky_branch",
    );
}

#[test]
#[ignore = "needs valgrind; `cargo xtask ct` installs it and runs these with --ignored"]
fn constant_time_toy_passes() {
    let (code, err) = toy("toy-clean");
    assert_eq!(code, 0, "false positive:\n{err}");
    assert!(!err.contains("uninitialised"), "false positive:\n{err}");
}

#[test]
fn native_run_refuses_to_pass() {
    let out = Command::new(EXE).arg("toy-table").output().expect("run");
    assert_eq!(out.status.code(), Some(2));
    let out = Command::new(EXE).arg("run").output().expect("run");
    assert_eq!(out.status.code(), Some(2));
}
