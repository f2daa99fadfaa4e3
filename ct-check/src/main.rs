//! `ct-check`: the ctgrind harness. Run it under valgrind memcheck (as
//! `cargo xtask ct` does):
//!
//! ```text
//! valgrind --error-exitcode=1 --track-origins=yes ct-check [run] [--only SUBSTR]
//! valgrind --error-exitcode=1 ct-check toy-table|toy-branch|toy-clean
//! ct-check list        # cases and uncovered backends, natively
//! ```
//!
//! Each case reports how many memcheck errors it caused (valgrind's
//! `COUNT_ERRORS` client request before and after), so a report is tied
//! to the backend and operation that caused it. Exit status: 0 when every
//! case ran clean, 1 when a case caused a report or computed a wrong
//! result, 2 on usage errors or when not running under valgrind (a native
//! run checks nothing; `--native` allows it, for debugging).

use ct_check::{all_cases, toys, valgrind};
use std::collections::BTreeMap;
use std::process::ExitCode;

fn toy(which: &str) -> ExitCode {
    let mut secret = *b"a secret of 32 bytes, say a key!";
    valgrind::secret(&mut secret);
    let before = valgrind::error_count();
    let mut r = match which {
        "toy-table" => u32::from(toys::leaky_table(&secret)),
        "toy-branch" => toys::leaky_branch(&secret),
        "toy-clean" => {
            let (a, b) = toys::clean(&secret);
            u32::from(a) ^ b
        }
        _ => unreachable!(),
    };
    valgrind::public(&mut r);
    let errors = valgrind::error_count() - before;
    println!("{which}: result {r:#x}, memcheck errors: {errors}");
    if errors > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut mode = "run".to_string();
    let mut only: Vec<String> = Vec::new();
    let mut native = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--only" => match it.next() {
                Some(s) => only.push(s.clone()),
                None => {
                    eprintln!("--only needs a value");
                    return ExitCode::from(2);
                }
            },
            "--native" => native = true,
            "run" | "list" | "toy-table" | "toy-branch" | "toy-clean" => mode = a.clone(),
            other => {
                eprintln!(
                    "unknown argument `{other}`\nusage: ct-check [run|list|toy-table|toy-branch|toy-clean] [--only SUBSTR] [--native]"
                );
                return ExitCode::from(2);
            }
        }
    }
    let under = valgrind::running();
    if mode.starts_with("toy-") {
        if !under && !native {
            eprintln!("ct-check: not running under valgrind: nothing would be checked");
            return ExitCode::from(2);
        }
        return toy(&mode);
    }

    let (cases, uncovered) = all_cases();
    let cases: Vec<_> = cases
        .into_iter()
        .filter(|c| only.is_empty() || only.iter().any(|o| c.name.contains(o.as_str())))
        .collect();
    if mode == "list" {
        for c in &cases {
            println!("case {}", c.name);
        }
        for u in &uncovered {
            println!("uncovered {} {}: {}", u.krate, u.backend, u.why);
        }
        return ExitCode::SUCCESS;
    }
    if !under && !native {
        eprintln!(
            "ct-check: not running under valgrind: nothing would be checked (use `cargo xtask ct`, or --native to just run the cases)"
        );
        return ExitCode::from(2);
    }

    println!("ct-check: {} cases, under valgrind: {under}", cases.len());
    let mut failed = Vec::new();
    let mut covered: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for c in &cases {
        let before = valgrind::error_count();
        let r = (c.run)();
        let errors = valgrind::error_count() - before;
        let status = match (&r, errors) {
            (Ok(()), 0) => "ok".to_string(),
            (Ok(()), n) => format!("LEAK: {n} memcheck report(s)"),
            (Err(e), n) => format!("WRONG RESULT ({e}); {n} memcheck report(s)"),
        };
        println!("case {:<48} {status}", c.name);
        if r.is_err() || errors > 0 {
            failed.push(c.name.clone());
        }
        let list = covered.entry(c.krate).or_default();
        if !list.contains(&c.backend) {
            list.push(c.backend.clone());
        }
    }
    println!("\ncovered backends (checked under valgrind memcheck):");
    for (k, v) in &covered {
        println!("  {k:<12} {}", v.join(", "));
    }
    println!("uncovered backends:");
    for u in &uncovered {
        println!("  {:<12} {:<12} {}", u.krate, u.backend, u.why);
    }
    if failed.is_empty() {
        println!("\nct-check: {} passed, 0 failed", cases.len());
        ExitCode::SUCCESS
    } else {
        println!(
            "\nct-check: {} passed, {} failed: {}",
            cases.len() - failed.len(),
            failed.len(),
            failed.join(", ")
        );
        ExitCode::FAILURE
    }
}
