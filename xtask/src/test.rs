//! `cargo xtask test`: the one test command.
//!
//! Steps, in order: rustfmt check; clippy (warnings denied) on the host and for the two ARM
//! targets; the host test suite (default features, then all features for the
//! crates with code behind them); the compat facades under upstream's own
//! test suites and dependents'
//! (`compat.rs`); the
//! suite cross-compiled for aarch64 and run under `qemu-aarch64` twice (as
//! the CPU model reports itself, then with the crypto extensions hidden
//! from `getauxval` by `xtask/shim/hwcapmask.c`), and for armv7 under
//! `qemu-arm -cpu cortex-a15` (NEON, no crypto), each followed by that
//! architecture's constant-time trace check (`trace.rs`); the valgrind
//! constant-time check and the x86_64 trace check on the host; the x86
//! crates built for i686 and run natively (32-bit x86); the portable
//! backends' suites on s390x (big-endian) and riscv64 under qemu
//! (`portable.rs`); the bare-metal builds (`nostd.rs`); rustls over our
//! AES-GCM against OpenSSL (`tls.rs`), `cargo doc` with warnings denied
//! and the packages built as `cargo publish` would (`package.rs`), after
//! the host tests; the release-build checks (`ct::release_tests`). Right after
//! the rustfmt check, the generated armv7 assembly's header against its
//! generator, the S-box section it read and its settings (SHA-256s,
//! `regen_asm.rs`; milliseconds, `cargo xtask regen-asm` reruns the
//! generator). Before each qemu run a probe binary
//! (`xtask/shim/hwprobe.rs`) prints the CPU features the guest sees, and
//! the run fails if they are not the ones that run is meant to test.
//!
//! A step whose prerequisites are missing and cannot be installed is
//! skipped with the reason printed, except in CI (`CI` set), where that is
//! a failure.
//!
//! Disk: after each step the size of the target directory and the space
//! left on its disk are printed. In CI, a cross target's build folder
//! (`target/<triple>`) is deleted once no later step needs it, so the
//! run's peak is the host build plus one cross build, not all of them
//! (a CI run once failed with the disk full at the armv7 step).

use crate::prereq::{self, CLIPPY, Need, RUSTFMT};
use crate::util::{self, cargo, fmt_duration, in_ci, run, timed};
use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

const AARCH64: &str = "aarch64-unknown-linux-gnu";
const ARMV7: &str = "armv7-unknown-linux-gnueabihf";
const I686: &str = "i686-unknown-linux-gnu";
/// The CPU model for both aarch64 runs (a Raspberry Pi 4 core; with the
/// shim it looks like the Pi 4's real crypto-less part).
const AARCH64_CPU: &str = "cortex-a72";

const USAGE: &str = "\
usage: cargo xtask test [options]

  --host-only     only fmt, host clippy and host tests
  --no-cross      everything except the qemu test runs
  --target T      only steps for target T (repeatable; `host` = this machine;
                  aarch64-unknown-linux-gnu, armv7-unknown-linux-gnueabihf,
                  i686-unknown-linux-gnu, s390x-unknown-linux-gnu,
                  riscv64gc-unknown-linux-gnu, or a no_std target of --list)
  --keep-going    run every step even after a failure, report all at the end
  --list          print the steps and exit

Without options it runs everything. Missing tools are installed when
possible (rustup; apt-get as root or via sudo -n); otherwise the step is
skipped with the reason, or fails when CI is set.";

#[derive(Default)]
struct Options {
    targets: Vec<String>,
    no_cross: bool,
    keep_going: bool,
    list: bool,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut o = Options::default();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--host-only" => o.targets.push("host".into()),
            "--no-cross" => o.no_cross = true,
            "--keep-going" => o.keep_going = true,
            "--list" => o.list = true,
            "--target" => o
                .targets
                .push(it.next().ok_or("--target needs a value")?.clone()),
            s if s.starts_with("--target=") => o.targets.push(s["--target=".len()..].into()),
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => return Err(format!("unknown option `{other}`\n\n{USAGE}")),
        }
    }
    for t in &o.targets {
        let known = [
            &["host", AARCH64, ARMV7, I686][..],
            &crate::portable::TARGETS,
            &crate::nostd::TARGETS,
        ]
        .concat();
        if !known.contains(&t.as_str()) {
            return Err(format!("unknown target `{t}` ({})", known.join(", ")));
        }
    }
    Ok(o)
}

type Action = Box<dyn Fn() -> Result<(), String>>;

struct Step {
    name: String,
    /// `None`: not tied to a target (fmt). `Some("host")` or a triple.
    target: Option<&'static str>,
    /// Runs code under qemu.
    qemu: bool,
    needs: Vec<Need>,
    action: Action,
}

fn step(name: &str, target: Option<&'static str>, needs: Vec<Need>, action: Action) -> Step {
    Step {
        name: name.into(),
        target,
        qemu: false,
        needs,
        action,
    }
}

fn cargo_step(args: &'static [&'static str]) -> Action {
    Box::new(move || run(cargo().args(args)))
}

/// [`cargo_step`] with the arguments written as one line.
fn cargo_line(line: &'static str) -> Action {
    Box::new(move || run(cargo().args(line.split_whitespace())))
}

/// aes-ct's backend features: its `default` feature list in
/// `aes-ct/Cargo.toml` (where they are written).
fn aes_ct_backend_features() -> Result<Vec<String>, String> {
    let path = util::root().join("aes-ct/Cargo.toml");
    let toml = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let line = toml
        .lines()
        .find_map(|l| l.strip_prefix("default = ["))
        .ok_or("aes-ct/Cargo.toml: no `default = [` line")?;
    let list: Vec<String> = line
        .trim_end_matches(']')
        .split(',')
        .map(|f| f.trim().trim_matches('"').to_owned())
        .filter(|f| !f.is_empty())
        .collect();
    if list.len() < 2 {
        return Err(format!("aes-ct/Cargo.toml: default features {list:?}"));
    }
    Ok(list)
}

fn steps() -> Vec<Step> {
    let mut s = vec![
        step(
            "rustfmt check",
            None,
            vec![RUSTFMT],
            cargo_step(&["fmt", "--all", "--check"]),
        ),
        step(
            "generated armv7 assembly: header hashes match its generator, S-box section and settings",
            None,
            vec![],
            Box::new(crate::regen_asm::check),
        ),
    ];
    // clippy on the host without and with every feature, on the cross
    // targets with every feature.
    for (t, all_features) in [
        ("host", false),
        ("host", true),
        (AARCH64, true),
        (ARMV7, true),
    ] {
        let mut args = vec!["clippy", "--workspace", "--all-targets"];
        if all_features {
            args.push("--all-features");
        }
        let mut needs = vec![CLIPPY];
        if t != "host" {
            args.extend(["--target", t]);
            // Build scripts of C/asm dependencies (ring, in dev-deps) need
            // the cross compiler even for a check.
            needs.extend(prereq::cross_tools(t));
        }
        args.extend(["--", "-D", "warnings"]);
        let features = if all_features { ", all features" } else { "" };
        s.push(step(
            &format!("clippy, {t}{features}"),
            Some(t),
            needs,
            cargo_step(args.leak()),
        ));
    }
    // aes-ct's backend features compile backends out: each alone (on ARM
    // also with the `neon` ISA module the NEON engines need) must build
    // clean, or a user who trims them gets warnings or errors no default
    // build shows.
    for t in ["host", AARCH64, ARMV7] {
        let mut needs = vec![CLIPPY];
        if t != "host" {
            needs.extend(prereq::cross_tools(t));
        }
        s.push(step(
            &format!("clippy, {t}, aes-ct with one backend feature at a time"),
            Some(t),
            needs,
            Box::new(move || {
                let mut sets = Vec::new();
                for f in aes_ct_backend_features()? {
                    if t != "host" && f != "neon" {
                        sets.push(format!("neon,{f}"));
                    }
                    sets.push(f);
                }
                for f in sets {
                    let mut c = cargo();
                    c.args(["clippy", "-p", "aes-ct", "--no-default-features"]);
                    c.args(["--features", &f]);
                    if t != "host" {
                        c.args(["--target", t]);
                    }
                    run(c.args(["--", "-D", "warnings"]))?;
                }
                Ok(())
            }),
        ));
    }
    s.push(step(
        "tests, host",
        Some("host"),
        vec![],
        cargo_step(&["test", "--workspace", "--no-fail-fast"]),
    ));
    s.push(step(
        "tests, host, aes-ct portable only (--no-default-features)",
        Some("host"),
        vec![],
        cargo_line("test -p aes-ct --no-default-features --no-fail-fast"),
    ));
    // Only the crates with features that change code (aes-ct's hooks and
    // self-test, aes-gcm-ct's hazmat tags and buffer types, benches'
    // hooks): the other crates' tests would run again unchanged (ct-check
    // always turns aes-ct's hooks on).
    s.push(step(
        "tests, host, all features (aes-ct, aes-gcm-ct, benches)",
        Some("host"),
        vec![],
        cargo_line("test -p aes-ct -p aes-gcm-ct -p benches --all-features --no-fail-fast"),
    ));
    // The API docs as docs.rs builds them, then the internal docs a
    // contributor reads (`--document-private-items`): a broken intra-doc
    // link or bad markup fails the run (the doctests ran with the host
    // tests).
    s.push(step(
        "docs: cargo doc --workspace --no-deps, public and private items, warnings denied",
        Some("host"),
        vec![],
        Box::new(|| {
            run(cargo()
                .args(["doc", "--workspace", "--no-deps"])
                .env("RUSTDOCFLAGS", "-D warnings"))?;
            run(cargo()
                .args([
                    "doc",
                    "--workspace",
                    "--no-deps",
                    "--document-private-items",
                ])
                .env("RUSTDOCFLAGS", "-D warnings"))
        }),
    ));
    s.push(step(
        "packages of every published crate, each built from its package (xtask package)",
        Some("host"),
        vec![],
        Box::new(|| crate::package::main(&[])),
    ));
    s.push(step(
        "TLS interop: rustls over aes-gcm-ct against openssl s_server / s_client (xtask tls)",
        Some("host"),
        crate::tls::NEEDS.to_vec(),
        Box::new(crate::tls::test),
    ));
    // The facades of compat/ under other people's tests (`compat.rs`).
    s.push(step(
        "compat facades: upstream test suites and dependents' (xtask compat), host",
        Some("host"),
        vec![RUSTFMT, CLIPPY],
        Box::new(|| crate::compat::main(&[])),
    ));

    let mut q = vec![
        step(
            &format!("tests, {AARCH64}, qemu {AARCH64_CPU} (AES/PMULL visible)"),
            Some(AARCH64),
            prereq::cross_tools(AARCH64),
            Box::new(|| cross_tests(AARCH64, Mask::None)),
        ),
        step(
            &format!("tests, {AARCH64}, qemu {AARCH64_CPU}, AES/PMULL hidden by hwcapmask.so"),
            Some(AARCH64),
            prereq::cross_tools(AARCH64),
            Box::new(|| cross_tests(AARCH64, Mask::Crypto)),
        ),
        step(
            &format!("tests, {ARMV7}, qemu cortex-a15 (NEON, no crypto)"),
            Some(ARMV7),
            prereq::cross_tools(ARMV7),
            Box::new(|| cross_tests(ARMV7, Mask::None)),
        ),
    ];
    // Each target's trace check right after its tests, while its build
    // folder exists (CI deletes it after the target's last step).
    q.insert(2, trace_step(AARCH64));
    q.push(trace_step(ARMV7));
    for x in &mut q {
        x.qemu = true;
    }
    s.extend(q);

    // Constant time, checked (a missing tool fails in CI): valgrind's
    // taint tracking on the host, and the trace-equivalence check under
    // qemu-user on every architecture (`xtask/src/trace.rs`).
    s.push(step(
        "constant-time check under valgrind memcheck (xtask ct), host",
        Some("host"),
        vec![Need::Tool {
            path: "valgrind",
            package: "valgrind",
        }],
        Box::new(|| crate::ct::main(&[])),
    ));
    s.push(step(
        "tests, host, release: key left on the dead stack (ct-check zeroize), AES-GCM single-step trace (aes-gcm-ct ct_trace)",
        Some("host"),
        vec![],
        Box::new(crate::ct::release_tests),
    ));
    s.push(trace_step(crate::trace::X86_64));
    // 32-bit x86 runs natively: the same backends where the CPU has them
    // (AES-NI, VAES, SSSE3 hybrid), 32-bit integer code in the portable
    // ones.
    s.push(step(
        &format!("tests, {I686} (native, 32-bit x86)"),
        Some(I686),
        prereq::cross_tools(I686),
        cargo_step(&[
            "test",
            "-p",
            "aes-ct",
            "-p",
            "ghash-ct",
            "-p",
            "aes-gcm-ct",
            "-p",
            "adiantum-ct",
            "--target",
            I686,
            "--no-fail-fast",
        ]),
    ));
    // The wiping checks (keys on drop, no converted hybrid key left on the
    // dead stack: the scrub size is per target) on 32-bit x86 too, in the
    // test and release profiles: with 8 vector registers the optimised
    // code spills key material the unoptimised code keeps elsewhere.
    s.push(step(
        &format!("zeroize checks, {I686}"),
        Some(I686),
        prereq::cross_tools(I686),
        cargo_step(&[
            "test", "-p", "ct-check", "--test", "zeroize", "--target", I686,
        ]),
    ));
    s.push(step(
        &format!("zeroize checks, {I686}, release"),
        Some(I686),
        prereq::cross_tools(I686),
        cargo_step(&[
            "test",
            "--release",
            "-p",
            "ct-check",
            "--test",
            "zeroize",
            "--target",
            I686,
        ]),
    ));

    // The portable backends on a big-endian CPU and on 64-bit RISC-V,
    // under qemu-user (`xtask/src/portable.rs`).
    for t in crate::portable::TARGETS {
        let mut x = step(
            &format!("tests, {t}, qemu ({})", crate::portable::what(t)),
            Some(t),
            prereq::cross_tools(t),
            Box::new(move || crate::portable::tests(t)),
        );
        x.qemu = true;
        s.push(x);
    }

    // no_std builds: one step per bare-metal target.
    for t in crate::nostd::TARGETS {
        s.push(step(
            &format!("no_std build, {t}"),
            Some(t),
            vec![Need::Target(t)],
            Box::new(move || crate::nostd::build(t)),
        ));
    }
    s
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mask {
    None,
    /// Hide the crypto extensions from `getauxval` (LD_PRELOAD shim).
    Crypto,
}

/// Environment for the qemu runner of `triple` (read by qemu-user itself:
/// `QEMU_CPU`, and `QEMU_SET_ENV` for the guest's environment).
fn qemu_env(triple: &str, mask: Mask) -> Result<Vec<(String, String)>, String> {
    let mut env = Vec::new();
    if triple == AARCH64 {
        // The armv7 runner in .cargo/config.toml pins `-cpu cortex-a15`;
        // the aarch64 one leaves the model to us.
        env.push(("QEMU_CPU".into(), AARCH64_CPU.into()));
    }
    if mask == Mask::Crypto {
        let shim = build_shim(triple)?;
        let shim = shim.to_str().ok_or("non-UTF-8 target dir")?.to_owned();
        if shim.contains(',') {
            return Err(format!(
                "the shim path {shim} contains a comma, which QEMU_SET_ENV cannot carry"
            ));
        }
        env.push(("QEMU_SET_ENV".into(), format!("LD_PRELOAD={shim}")));
    }
    Ok(env)
}

fn cross_tests(triple: &'static str, mask: Mask) -> Result<(), String> {
    let env = qemu_env(triple, mask)?;
    probe(triple, mask, &env)?;
    let mut c = cargo();
    c.args(["test", "--workspace", "--no-fail-fast", "--target", triple]);
    c.envs(env.iter().map(|(k, v)| (k, v)));
    run(&mut c)
}

fn cross_gcc(triple: &str) -> &'static str {
    if triple == AARCH64 {
        "aarch64-linux-gnu-gcc"
    } else {
        "arm-linux-gnueabihf-gcc"
    }
}

/// Compile the `getauxval` shim for `triple` into the target dir.
pub(crate) fn build_shim(triple: &str) -> Result<PathBuf, String> {
    let dir = util::xtask_dir();
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let out = dir.join(format!("hwcapmask-{triple}.so"));
    let src = util::root().join("xtask/shim/hwcapmask.c");
    run(Command::new(cross_gcc(triple))
        .args(["-O2", "-Wall", "-Werror", "-shared", "-fPIC", "-o"])
        .arg(&out)
        .arg(&src)
        .arg("-ldl"))?;
    Ok(out)
}

/// Build the feature probe for `triple`, run it the way the tests will run,
/// and check it sees what this run is meant to test.
fn probe(triple: &str, mask: Mask, env: &[(String, String)]) -> Result<(), String> {
    let dir = util::xtask_dir();
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let bin = dir.join(format!("hwprobe-{triple}"));
    run(
        Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()))
            .args(["--edition", "2024", "-O", "--target", triple])
            .arg(format!("-Clinker={}", cross_gcc(triple)))
            .arg("-o")
            .arg(&bin)
            .arg(util::root().join("xtask/shim/hwprobe.rs")),
    )?;

    let runner =
        util::runner(triple).ok_or(format!("no runner for {triple} in .cargo/config.toml"))?;
    let mut c = Command::new(&runner[0]);
    c.args(&runner[1..])
        .arg(&bin)
        .envs(env.iter().map(|(k, v)| (k, v)));
    let out = util::output(&mut c)?;
    println!("probe: {}", out.trim());

    let want: &[(&str, &str)] = match (triple, mask) {
        (AARCH64, Mask::None) => &[
            ("neon", "true"),
            ("aes", "true"),
            ("pmull", "true"),
            ("std_aes", "true"),
        ],
        (AARCH64, Mask::Crypto) => &[
            ("neon", "true"),
            ("aes", "false"),
            ("pmull", "false"),
            ("sha2", "false"),
            ("std_neon", "true"),
            ("std_aes", "false"),
            ("std_sha2", "false"),
        ],
        _ => &[("neon", "true"), ("aes", "false"), ("pmull", "false")],
    };
    for (k, v) in want {
        let got = out
            .split_whitespace()
            .find_map(|kv| kv.strip_prefix(k).and_then(|r| r.strip_prefix('=')));
        if got != Some(v) {
            return Err(format!(
                "the guest should see {k}={v} in this run but the probe says {}; the run would not test what it claims",
                got.unwrap_or("nothing")
            ));
        }
    }
    Ok(())
}

/// The trace-equivalence check of every CPU configuration of `triple`
/// (`xtask/src/trace.rs`).
fn trace_step(triple: &'static str) -> Step {
    let names: Vec<&str> = crate::trace::CONFIGS
        .iter()
        .filter(|c| c.triple == triple)
        .map(|c| c.name)
        .collect();
    let mut x = step(
        &format!(
            "constant-time trace check (qemu, or native single-step), {}",
            names.join(" + ")
        ),
        Some(if triple == crate::trace::X86_64 {
            "host"
        } else {
            triple
        }),
        crate::trace::needs(triple),
        Box::new(move || crate::trace::check_configs_for(triple)),
    );
    x.qemu = true;
    x
}

/// Delete `target/<triple>`: no later step builds for that triple.
fn release_target(triple: &str) {
    let dir = util::target_dir().join(triple);
    if dir.exists() {
        match std::fs::remove_dir_all(&dir) {
            Ok(()) => println!("==> removed {} (no later step needs it)", dir.display()),
            Err(e) => println!("==> could not remove {}: {e}", dir.display()),
        }
    }
}

/// One line: how big the target directory is and how much the disk
/// holding it has left (`du`, `df`; silent where they are missing).
fn disk_report() {
    let dir = util::target_dir();
    let du = util::output(Command::new("du").args(["-sm"]).arg(&dir)).ok();
    let df = util::output(Command::new("df").args(["-Pm"]).arg(&dir)).ok();
    let used = du
        .as_deref()
        .and_then(|o| o.split_whitespace().next().map(str::to_owned));
    let free = df.as_deref().and_then(|o| {
        o.lines()
            .nth(1)
            .and_then(|l| l.split_whitespace().nth(3).map(str::to_owned))
    });
    if let (Some(used), Some(free)) = (used, free) {
        println!("==> disk: target {used} MiB, {free} MiB free");
    }
}

fn host_of(target: Option<&str>) -> &str {
    target.unwrap_or("-")
}

pub fn main(args: &[String]) -> Result<(), String> {
    let o = parse(args)?;
    let ci = in_ci();
    let selected: Vec<Step> = steps()
        .into_iter()
        .filter(|s| match s.target {
            None => true,
            Some(t) => o.targets.is_empty() || o.targets.iter().any(|x| x == t),
        })
        .filter(|s| !(o.no_cross && s.qemu))
        .collect();

    if o.list {
        for (i, s) in selected.iter().enumerate() {
            println!("{:2}. {} [{}]", i + 1, s.name, host_of(s.target));
        }
        return Ok(());
    }

    let n = selected.len();
    let start = Instant::now();
    let mut results: Vec<(String, String, std::time::Duration)> = Vec::new();
    let mut failed = Vec::new();
    let mut skipped = Vec::new();
    for (i, s) in selected.iter().enumerate() {
        println!("\n==> [{}/{n}] {}", i + 1, s.name);
        let (r, d) = timed(|| match prereq::ensure(&s.needs) {
            Err(why) if ci => Err(format!("prerequisite missing in CI: {why}")),
            Err(why) => Ok(Some(why)),
            Ok(()) => (s.action)().map(|()| None),
        });
        let status = match r {
            Ok(None) => "ok".to_owned(),
            Ok(Some(why)) => {
                println!("==> SKIPPED [{}]: {why}", s.name);
                skipped.push(format!("{}: {why}", s.name));
                "SKIPPED".to_owned()
            }
            Err(e) => {
                println!("==> FAILED [{}]: {e}", s.name);
                failed.push(format!("{}: {e}", s.name));
                "FAILED".to_owned()
            }
        };
        println!("==> [{}/{n}] {status} in {}", i + 1, fmt_duration(d));
        let needed_later = |t| selected[i + 1..].iter().any(|x| x.target == Some(t));
        if let Some(t) = s.target.filter(|t| ci && *t != "host" && !needed_later(t)) {
            release_target(t);
        }
        disk_report();
        results.push((s.name.clone(), status, d));
        if !failed.is_empty() && !o.keep_going {
            break;
        }
    }

    println!("\n==> summary (total {})", fmt_duration(start.elapsed()));
    for (name, status, d) in &results {
        println!("  {status:<8} {:>7}  {name}", fmt_duration(*d));
    }
    for (name, _, _) in selected.iter().map(|s| (&s.name, 0, 0)).skip(results.len()) {
        println!("  {:<8} {:>7}  {name}", "not run", "");
    }
    if !skipped.is_empty() {
        println!("\nskipped (not tested!):");
        for s in &skipped {
            println!("  - {s}");
        }
    }
    if failed.is_empty() {
        println!(
            "\ncargo xtask test: {}",
            if skipped.is_empty() {
                "all steps passed"
            } else {
                "passed, with skipped steps"
            }
        );
        Ok(())
    } else {
        Err(format!(
            "{} step(s) failed:\n  - {}",
            failed.len(),
            failed.join("\n  - ")
        ))
    }
}
