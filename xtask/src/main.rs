//! `cargo xtask`: the project's build, test and measurement commands.
//!
//! One module per subcommand. Plain std, hand-parsed arguments, so it
//! builds in seconds on a clean clone. Adding a subcommand: a module with
//! `pub fn main(args: &[String]) -> Result<(), String>`, one line in
//! [`COMMANDS`], and its usage line there.

mod armcount;
mod compat;
mod ct;
mod fuzz;
mod miri;
mod nostd;
mod package;
mod portable;
mod prereq;
mod regen_asm;
mod speed;
mod test;
mod tls;
mod trace;
mod util;

use std::process::ExitCode;

type Command = fn(&[String]) -> Result<(), String>;

/// name, entry point, one-line usage.
const COMMANDS: &[(&str, Command, &str)] = &[
    (
        "test",
        test::main,
        "fmt, clippy, host tests, qemu tests (aarch64, armv7, s390x, riscv64), i686, constant-time checks (`test --help`)",
    ),
    (
        "compat",
        compat::main,
        "upstream test suites and dependents' against the compat/ facades (`--extended`: also age)",
    ),
    (
        "speed",
        speed::main,
        "speed table: every aes-ct backend vs RustCrypto and OpenSSL (`speed --help`)",
    ),
    (
        "armcount",
        armcount::main,
        "ARM instructions per byte under qemu (`armcount --help`)",
    ),
    (
        "ct",
        ct::main,
        "constant-time checks under valgrind; `--timing`: dudect t-test",
    ),
    (
        "ct-trace",
        trace::main,
        "trace-equivalence constant-time check under qemu, every architecture (`ct-trace --help`)",
    ),
    (
        "tls",
        tls::main,
        "rustls over aes-gcm-ct against openssl s_server / s_client (interop/tls)",
    ),
    (
        "package",
        package::main,
        "every published crate packaged and built from its package, package contents checked",
    ),
    (
        "fuzz",
        fuzz::main,
        "short cargo-fuzz runs of every target (`--seconds N`)",
    ),
    (
        "regen-asm",
        regen_asm::main,
        "rerun gen_bsaes.py, diff against the committed armv7 assembly (`--write`: replace it)",
    ),
    (
        "miri",
        miri::main,
        "Miri over the portable backends' tests (nightly)",
    ),
    (
        "asan",
        miri::asan,
        "host test suite under AddressSanitizer (nightly)",
    ),
];

fn usage() -> String {
    let mut s = String::from("usage: cargo xtask <command> [options]\n\ncommands:\n");
    for (name, _, help) in COMMANDS {
        s.push_str(&format!("  {name:<10} {help}\n"));
    }
    s
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(cmd) = args.first() else {
        eprint!("{}", usage());
        return ExitCode::from(2);
    };
    if cmd == "-h" || cmd == "--help" || cmd == "help" {
        print!("{}", usage());
        return ExitCode::SUCCESS;
    }
    let Some((_, run, _)) = COMMANDS.iter().find(|(name, _, _)| name == cmd) else {
        eprintln!("xtask: unknown command `{cmd}`\n");
        eprint!("{}", usage());
        return ExitCode::from(2);
    };
    match run(&args[1..]) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("\nxtask {cmd}: FAILED: {e}");
            ExitCode::FAILURE
        }
    }
}
