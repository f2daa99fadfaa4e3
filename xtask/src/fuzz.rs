//! `cargo xtask fuzz`: short cargo-fuzz (libFuzzer) runs of every target
//! in `fuzz/` (its own workspace).
//!
//! Each target runs for `--seconds N` (default 60) on nightly, with
//! AddressSanitizer (cargo-fuzz's default) and release optimisations. The
//! seeds committed in `fuzz/seeds/<target>/` are read-only inputs; what
//! libFuzzer finds goes to a work corpus under `<target dir>/fuzz-corpus/`,
//! so runs do not grow the repository. Crashes land in
//! `fuzz/artifacts/<target>/` and fail the command.
//!
//! Needs the nightly toolchain and `cargo-fuzz` (installed with
//! `cargo install cargo-fuzz` when missing).

use crate::miri::{nightly, nightly_ok};
use crate::util::{have, root, run, target_dir};
use std::process::Command;

const USAGE: &str = "\
usage: cargo xtask fuzz [options]

  --seconds N    run each target for N seconds (default 60)
  --target NAME  only this target (repeatable); `--list` shows them
  --list         list the targets";

fn ensure_cargo_fuzz() -> Result<(), String> {
    if nightly_ok(&["fuzz", "--version"]) {
        return Ok(());
    }
    println!("xtask: cargo-fuzz is missing, installing it (cargo install cargo-fuzz)");
    if !have("cargo") {
        return Err("cargo (rustup proxy) not found on PATH".into());
    }
    run(Command::new("cargo").args(["install", "--locked", "cargo-fuzz"]))
}

fn targets() -> Result<Vec<String>, String> {
    let out = nightly(&["fuzz", "list"])
        .current_dir(root().join("fuzz"))
        .output()
        .map_err(|e| format!("cargo fuzz list: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo fuzz list failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.trim().to_owned())
        .filter(|l| !l.is_empty())
        .collect())
}

pub fn main(args: &[String]) -> Result<(), String> {
    let mut seconds: u64 = 60;
    let mut only: Vec<String> = Vec::new();
    let mut list = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--seconds" => {
                seconds = it
                    .next()
                    .ok_or("--seconds needs a value")?
                    .parse()
                    .map_err(|e| format!("--seconds: {e}"))?
            }
            "--target" => only.push(it.next().ok_or("--target needs a value")?.clone()),
            "--list" => list = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            other => return Err(format!("unknown option `{other}`\n\n{USAGE}")),
        }
    }
    ensure_cargo_fuzz()?;
    let all = targets()?;
    if list {
        for t in &all {
            println!("{t}");
        }
        return Ok(());
    }
    for o in &only {
        if !all.contains(o) {
            return Err(format!("no fuzz target `{o}` (have: {})", all.join(", ")));
        }
    }
    let chosen: Vec<&String> = all
        .iter()
        .filter(|t| only.is_empty() || only.contains(t))
        .collect();
    let fuzz_dir = root().join("fuzz");
    let build_dir = target_dir().join("fuzz");
    let mut results = Vec::new();
    let mut failed = Vec::new();
    for t in chosen {
        let work = target_dir().join("fuzz-corpus").join(t);
        std::fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
        let seeds = fuzz_dir.join("seeds").join(t);
        println!("\n==> fuzz {t} for {seconds} s");
        let mut c = nightly(&["fuzz", "run", "-O"]);
        c.current_dir(&fuzz_dir)
            .arg("--target-dir")
            .arg(&build_dir)
            .arg(t)
            .arg(&work)
            .arg(&seeds)
            .arg("--")
            .arg(format!("-max_total_time={seconds}"))
            .arg("-timeout=20")
            .arg("-print_final_stats=1");
        match run(&mut c) {
            Ok(()) => results.push(format!("  ok      {t}")),
            Err(e) => {
                results.push(format!("  FAILED  {t} (see fuzz/artifacts/{t}/)"));
                failed.push(format!("{t}: {e}"));
            }
        }
    }
    println!("\n==> fuzz summary ({seconds} s per target)");
    for r in &results {
        println!("{r}");
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(failed.join("\n"))
    }
}
