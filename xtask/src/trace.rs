//! `cargo xtask ct-trace`: the trace-equivalence constant-time check, on
//! every architecture qemu-user emulates, with one method.
//!
//! For each CPU configuration (x86_64 under `qemu-x86_64` with and
//! without AES-NI/PCLMULQDQ, aarch64 with the crypto extensions visible
//! and hidden, armv7 NEON) it runs the guest program `ct-trace`
//! (`ct-check/src/bin/ct-trace.rs`) under qemu with the TCG plugin
//! `ct-check/trace/cttrace.c`. The guest runs every workload of every
//! backend the configuration offers, once to warm up and then once per
//! secret set, each inside a marked window; the plugin hashes the executed
//! instruction addresses and the accessed memory addresses of each window
//! and counts integer divisions. A workload passes when all its secret
//! sets give identical hashes, execute no division, and give different
//! outputs (the secrets reached the operation). The toys must be caught:
//! the secret-indexed table (addresses differ), the secret branch
//! (instructions differ) and the secret division, on every configuration,
//! or the check itself is broken and the command fails.
//!
//! The plugin needs QEMU's `qemu-plugin.h`, which no Debian binary package
//! ships: it is taken from Debian's source package of the installed qemu
//! (`apt-get source --download-only`, a deb-src entry added beside the
//! existing deb entries if there is none), extracted alone into
//! `target/xtask/qemu-include/`, and the rest deleted. Nothing of QEMU's is
//! kept in the repository.
//!
//! qemu 7.2 has no AVX-512 and no VPCLMULQDQ: the AVX-512 widths,
//! `vaes-clmul`, `vaes-avx2-clmul`, `vpclmul256/512` and `vpmuludq512` run
//! in the `x86_64-native` configuration instead, where the guest
//! single-steps itself on the host CPU (`ct-check/src/singlestep.rs`):
//! the same workloads, control flow and divisions, no address trace
//! (README, "Constant time: what is verified where").

use crate::prereq::{self, Need};
use crate::util::{self, cargo, in_ci, run};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const USAGE: &str = "\
usage: cargo xtask ct-trace [options]

  --config NAME     only this CPU configuration (repeatable; see --list)
  --only SUBSTR     only workloads whose name contains SUBSTR (repeatable;
                    the toys always run)
  --secrets N       secret sets per workload (default 8)
  --summary         print only the per-backend summary, not every workload's
                    line (the report file under target/xtask/ct-trace has them)
  --list            print the configurations and exit

Runs every workload under qemu-user with the cttrace plugin and fails on
any workload whose instruction or address trace depends on its secrets,
on an executed integer division, or when a toy leak is not caught.";

/// One CPU as qemu-user presents it.
pub struct Config {
    /// Short name (`--config`).
    pub name: &'static str,
    /// Rust target triple of the guest.
    pub triple: &'static str,
    /// qemu-user binary.
    qemu: &'static str,
    /// `-cpu` model.
    cpu: &'static str,
    /// Hide AES/PMULL from `getauxval` with the LD_PRELOAD shim.
    mask_crypto: bool,
    /// What it is for.
    pub about: &'static str,
    /// `crate:backend` that must be available, and that must not be
    /// (the run would not test what it claims otherwise).
    must: &'static [&'static str],
    must_not: &'static [&'static str],
    /// Workloads (name substrings) to run; empty: all.
    only: &'static [&'static str],
}

/// No qemu: the guest single-steps itself on this CPU (`qemu` and `cpu`
/// of such a configuration are this marker).
const NATIVE: &str = "native";

pub const X86_64: &str = "x86_64-unknown-linux-gnu";
pub const AARCH64: &str = "aarch64-unknown-linux-gnu";
pub const ARMV7: &str = "armv7-unknown-linux-gnueabihf";

pub const CONFIGS: &[Config] = &[
    Config {
        name: "x86_64-max",
        triple: X86_64,
        qemu: "qemu-x86_64",
        cpu: "max",
        mask_crypto: false,
        about: "AES-NI, PCLMULQDQ, AVX2, 256-bit VAES: aesni, vaes (256-bit), SSSE3 code at AVX2 width, pclmul, aesni-avx-clmul, aesni-clmul",
        must: &[
            "aes-ct:aesni",
            "aes-ct:hybrid",
            "ghash-ct:pclmul",
            "aes-gcm-ct:aesni-avx-clmul",
            "aes-gcm-ct:aesni-clmul",
        ],
        must_not: &["ghash-ct:vpclmul512", "aes-gcm-ct:vaes-clmul"],
        only: &[],
    },
    Config {
        name: "x86_64-nehalem",
        triple: X86_64,
        qemu: "qemu-x86_64",
        cpu: "Nehalem",
        mask_crypto: false,
        about: "SSSE3, no AES-NI/PCLMULQDQ/AVX: the software key schedule, hybrid/vpaes/bsaes at SSSE3 width, pmuludq GHASH, ctr-ghash",
        must: &["aes-ct:hybrid", "ghash-ct:pmuludq"],
        must_not: &["aes-ct:aesni", "ghash-ct:pclmul", "ghash-ct:vpmuludq256"],
        only: &[],
    },
    Config {
        name: "aarch64-crypto",
        triple: AARCH64,
        qemu: "qemu-aarch64",
        cpu: "cortex-a72",
        mask_crypto: false,
        about: "ARMv8 crypto extensions: armv8, pmull, armv8-pmull (and the NEON backends)",
        must: &["aes-ct:armv8", "ghash-ct:pmull", "aes-gcm-ct:armv8-pmull"],
        must_not: &[],
        only: &[],
    },
    Config {
        name: "aarch64-nocrypto",
        triple: AARCH64,
        qemu: "qemu-aarch64",
        cpu: "cortex-a72",
        mask_crypto: true,
        about: "NEON without crypto (Raspberry Pi 4): the software key schedule, NEON hybrid, pmull8, ctr-ghash",
        must: &["aes-ct:hybrid", "ghash-ct:pmull8"],
        must_not: &["aes-ct:armv8", "ghash-ct:pmull"],
        only: &[],
    },
    Config {
        name: "armv7-a15",
        triple: ARMV7,
        qemu: "qemu-arm",
        cpu: "cortex-a15",
        mask_crypto: false,
        about: "armv7 NEON, no crypto: the assembly hybrid, vmull8, NEON Adiantum",
        must: &["aes-ct:hybrid", "ghash-ct:vmull8"],
        must_not: &[],
        only: &[],
    },
    Config {
        name: "x86_64-native",
        triple: X86_64,
        qemu: NATIVE,
        cpu: NATIVE,
        mask_crypto: false,
        about: "this CPU, single-stepped (control flow and division, no address trace): the code qemu cannot run, i.e. whatever of vaes-clmul, vaes-avx2-clmul, vpclmul256/512, vpmuludq512 and the AVX-512 widths of vaes and bsaes this CPU has",
        must: &[],
        must_not: &[],
        only: &[
            "aes-gcm-ct/vaes-clmul/",
            "aes-gcm-ct/vaes-avx2-clmul/",
            "ghash-ct/vpclmul",
            "ghash-ct/vpmuludq512/",
            "aes-ct/vaes/",
            "aes-ct/bsaes/Aes128 ",
        ],
    },
];

/// What running a configuration needs: qemu-user, gcc for the plugin, xz
/// for the header, the cross toolchain of the guest.
pub fn needs(triple: &str) -> Vec<Need> {
    let mut v = vec![
        Need::Tool {
            path: "qemu-x86_64",
            package: "qemu-user",
        },
        Need::Tool {
            path: "gcc",
            package: "gcc",
        },
        Need::Tool {
            path: "xz",
            package: "xz-utils",
        },
        Need::Tool {
            path: "apt-get",
            package: "apt",
        },
    ];
    if triple != X86_64 {
        v.extend(prereq::cross_tools(triple));
    }
    v
}

#[derive(Default)]
struct Options {
    configs: Vec<String>,
    only: Vec<String>,
    secrets: Option<u32>,
    summary: bool,
}

pub fn main(args: &[String]) -> Result<(), String> {
    let mut o = Options::default();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--config" => o
                .configs
                .push(it.next().ok_or("--config needs a value")?.clone()),
            "--only" => o
                .only
                .push(it.next().ok_or("--only needs a value")?.clone()),
            "--secrets" => {
                let n: u32 = it
                    .next()
                    .and_then(|s| s.parse().ok())
                    .filter(|n| *n >= 2)
                    .ok_or("--secrets needs a number >= 2")?;
                o.secrets = Some(n);
            }
            "--summary" => o.summary = true,
            "--list" => {
                for c in CONFIGS {
                    if c.qemu == NATIVE {
                        println!("{:<18} natively: {}", c.name, c.about);
                    } else {
                        println!("{:<18} {} -cpu {}: {}", c.name, c.qemu, c.cpu, c.about);
                    }
                }
                return Ok(());
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            other => return Err(format!("unknown option `{other}`\n\n{USAGE}")),
        }
    }
    for c in &o.configs {
        if !CONFIGS.iter().any(|x| x.name == c) {
            return Err(format!("unknown configuration `{c}` (see --list)"));
        }
    }
    let mut failed = Vec::new();
    for c in CONFIGS
        .iter()
        .filter(|c| o.configs.is_empty() || o.configs.iter().any(|x| x == c.name))
    {
        if let Err(why) = prereq::ensure(&needs(c.triple)) {
            let msg = format!("{}: prerequisite missing: {why}", c.name);
            if in_ci() {
                return Err(msg);
            }
            println!("==> SKIPPED {msg}");
            failed.push(msg);
            continue;
        }
        if let Err(e) = check(c, &o.only, o.secrets, !o.summary) {
            println!("==> FAILED {}: {e}", c.name);
            failed.push(format!("{}: {e}", c.name));
        }
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(failed.join("\n  "))
    }
}

/// Run every configuration of `triple`, printing the summary (the
/// `cargo xtask test` steps call this; the per-workload lines go to the
/// report file).
pub fn check_configs_for(triple: &str) -> Result<(), String> {
    for c in CONFIGS.iter().filter(|c| c.triple == triple) {
        check(c, &[], None, false)?;
    }
    Ok(())
}

fn check(c: &Config, only: &[String], secrets: Option<u32>, verbose: bool) -> Result<(), String> {
    if c.qemu == NATIVE {
        println!("\n==> ct-trace {}: natively ({})", c.name, c.about);
    } else {
        println!(
            "\n==> ct-trace {}: {} -cpu {} ({})",
            c.name, c.qemu, c.cpu, c.about
        );
    }
    let guest = build_guest(c.triple)?;
    let dir = util::xtask_dir().join("ct-trace");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    if c.qemu == NATIVE {
        return check_native(c, only, secrets, verbose, &guest, &dir);
    }
    let plugin = build_plugin("ct-check/trace/cttrace.c", "cttrace.so")?;
    let windows = dir.join(format!("{}.windows", c.name));
    // As in `check_native`: only this run's windows.
    let _ = std::fs::remove_file(&windows);
    let plugin_arg = format!("{},out={}", plugin.display(), windows.display());
    if plugin_arg.matches(',').count() != 1 {
        return Err(format!(
            "a comma in {plugin_arg} would split qemu's -plugin argument"
        ));
    }

    let mut cmd = Command::new(c.qemu);
    if c.triple != X86_64 {
        // The sysroot (`-L`) from the cargo runner line: one source.
        let r = util::runner(c.triple)
            .ok_or(format!("no runner for {} in .cargo/config.toml", c.triple))?;
        let mut it = r.iter().skip(1);
        while let Some(a) = it.next() {
            if a == "-L" {
                cmd.arg("-L")
                    .arg(it.next().ok_or("runner: -L without a path")?);
            }
        }
    }
    cmd.args(["-cpu", c.cpu]);
    if c.mask_crypto {
        let shim = crate::test::build_shim(c.triple)?;
        cmd.arg("-E").arg(format!("LD_PRELOAD={}", shim.display()));
    }
    cmd.arg("-plugin").arg(&plugin_arg).arg(&guest);
    if let Some(n) = secrets {
        cmd.args(["--secrets", &n.to_string()]);
    }
    for s in only
        .iter()
        .map(String::as_str)
        .chain(c.only.iter().copied())
    {
        cmd.args(["--only", s]);
    }
    println!("$ {}", util::show(&cmd));
    let started = std::time::Instant::now();
    let out = cmd
        .output()
        .map_err(|e| format!("cannot start {}: {e}", c.qemu))?;
    if !out.status.success() {
        return Err(format!(
            "the guest failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    judge(c, &out.stdout, &windows, &dir, started, verbose)
}

/// The `x86_64-native` configuration: the guest traces itself.
fn check_native(
    c: &Config,
    only: &[String],
    secrets: Option<u32>,
    verbose: bool,
    guest: &Path,
    dir: &Path,
) -> Result<(), String> {
    let windows = dir.join(format!("{}.windows", c.name));
    // A run that was killed leaves its windows behind; they are not this
    // run's.
    let _ = std::fs::remove_file(&windows);
    let mut cmd = Command::new(guest);
    cmd.arg("--singlestep").arg(&windows);
    if let Some(n) = secrets {
        cmd.args(["--secrets", &n.to_string()]);
    }
    // A user's --only narrows the configuration's list.
    let picked: Vec<&str> = if only.is_empty() {
        c.only.to_vec()
    } else {
        only.iter().map(String::as_str).collect()
    };
    for s in picked {
        cmd.args(["--only", s]);
    }
    println!("$ {}", util::show(&cmd));
    let started = std::time::Instant::now();
    let out = cmd
        .output()
        .map_err(|e| format!("cannot start {}: {e}", guest.display()))?;
    if !out.status.success() {
        return Err(format!(
            "the guest failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    judge(c, &out.stdout, &windows, dir, started, verbose)
}

/// Judge a run from the guest's output and the window lines.
fn judge(
    c: &Config,
    stdout: &[u8],
    windows: &Path,
    dir: &Path,
    started: std::time::Instant,
    verbose: bool,
) -> Result<(), String> {
    let guest_out = String::from_utf8_lossy(stdout).into_owned();
    let plugin_out =
        std::fs::read_to_string(windows).map_err(|e| format!("{}: {e}", windows.display()))?;
    let report = verdict(c, &guest_out, &plugin_out)?;
    let path = dir.join(format!("{}.report", c.name));
    let _ = std::fs::write(&path, report.full.join("\n") + "\n");
    if verbose {
        for l in &report.full {
            println!("{l}");
        }
    }
    for l in &report.summary {
        println!("{l}");
    }
    println!(
        "ct-trace {}: {} workloads x {} secret sets in {:.0?}; per-workload report {}",
        c.name,
        report.workloads,
        report.secrets,
        started.elapsed(),
        path.display()
    );
    if report.failures.is_empty() {
        println!(
            "ct-trace {}: {} passed, 0 failed (toys caught: {})",
            c.name,
            report.workloads,
            report.toys.join(", ")
        );
        Ok(())
    } else {
        for f in &report.failures {
            println!("  FAIL {f}");
        }
        Err(format!(
            "{} of {} workloads failed: {}",
            report.failures.len(),
            report.workloads,
            report
                .failures
                .iter()
                .take(5)
                .cloned()
                .collect::<Vec<_>>()
                .join("; ")
        ))
    }
}

/// One window as the plugin saw it.
#[derive(Clone, PartialEq, Eq, Debug)]
struct Window {
    insns: u64,
    mem: u64,
    pc: String,
    addr: String,
    div: u64,
    divat: Option<String>,
}

fn parse_window(line: &str) -> Option<Window> {
    let mut w = Window {
        insns: 0,
        mem: 0,
        pc: String::new(),
        addr: String::new(),
        div: 0,
        divat: None,
    };
    let mut it = line.split_whitespace();
    if it.next()? != "window" {
        return None;
    }
    it.next()?;
    for kv in it {
        let (k, v) = kv.split_once('=')?;
        match k {
            "insns" => w.insns = v.parse().ok()?,
            "mem" => w.mem = v.parse().ok()?,
            "pc" => w.pc = v.into(),
            "addr" => w.addr = v.into(),
            "div" => w.div = v.parse().ok()?,
            "divat" => w.divat = Some(v.into()),
            _ => {}
        }
    }
    Some(w)
}

/// One run of a workload: secret set, output digest, the plugin's window.
type Run<'a> = (u32, &'a str, &'a Window);

struct Report {
    full: Vec<String>,
    summary: Vec<String>,
    failures: Vec<String>,
    toys: Vec<String>,
    workloads: usize,
    secrets: usize,
}

/// Pair the guest's lines with the plugin's windows and judge each
/// workload.
fn verdict(c: &Config, guest: &str, plugin: &str) -> Result<Report, String> {
    // Backends offered: the configuration must test what it claims.
    let mut offered: Vec<String> = Vec::new();
    for l in guest.lines().filter(|l| l.starts_with("B\t")) {
        let f: Vec<&str> = l.split('\t').collect();
        if f.len() == 3 {
            offered.extend(
                f[2].split(',')
                    .filter(|s| !s.is_empty())
                    .map(|b| format!("{}:{b}", f[1])),
            );
        }
    }
    for m in c.must {
        if !offered.iter().any(|o| o == m) {
            return Err(format!(
                "{m} is not available in this configuration (offered: {})",
                offered.join(" ")
            ));
        }
    }
    for m in c.must_not {
        if offered.iter().any(|o| o == m) {
            return Err(format!(
                "{m} is available, but this configuration is meant to lack it"
            ));
        }
    }

    let runs: Vec<Vec<&str>> = guest
        .lines()
        .filter(|l| l.starts_with("W\t"))
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .collect();
    let wins: Vec<Window> = plugin.lines().filter_map(parse_window).collect();
    let exit = plugin.lines().find(|l| l.starts_with("exit "));
    if exit.map(|e| e.contains("open=0")) != Some(true) {
        return Err(format!(
            "the plugin's output is incomplete (exit line: {exit:?})"
        ));
    }
    if runs.len() != wins.len() || runs.iter().any(|r| r.len() != 5) {
        return Err(format!(
            "{} guest runs but {} plugin windows: each run must open exactly one window",
            runs.len(),
            wins.len()
        ));
    }

    // workload -> (expect, runs)
    let mut by: BTreeMap<&str, (&str, Vec<Run<'_>>)> = BTreeMap::new();
    let mut order: Vec<&str> = Vec::new();
    for (r, w) in runs.iter().zip(&wins) {
        let set: u32 = r[3].parse().map_err(|_| format!("bad set in {r:?}"))?;
        let e = by.entry(r[1]).or_insert_with(|| {
            order.push(r[1]);
            (r[2], Vec::new())
        });
        e.1.push((set, r[4], w));
    }

    let mut full = Vec::new();
    let mut failures = Vec::new();
    let mut toys = Vec::new();
    let mut groups: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut secrets = 0;
    for name in &order {
        let (expect, sets) = &by[name];
        // Set 0 warms up (lazy detection, allocator, caches): not compared.
        let measured: Vec<_> = sets.iter().filter(|s| s.0 != 0).collect();
        secrets = secrets.max(measured.len());
        let first = measured.first().map(|s| s.2);
        let same_trace = measured.iter().all(|s| Some(s.2) == first);
        let same_pc = measured
            .iter()
            .all(|s| Some(&s.2.pc) == first.map(|f| &f.pc));
        let divs = measured.iter().map(|s| s.2.div).max().unwrap_or(0);
        let digests: std::collections::BTreeSet<&str> = measured.iter().map(|s| s.1).collect();
        let n = measured.len();
        let line;
        if *expect == "leaks" && c.qemu == NATIVE && *name == "toy/table" {
            // Single-stepping sees no memory addresses.
            line = format!(
                "{:<9} {n} secrets  {name}: no address trace natively",
                "n/a"
            );
            toys.push("table (n/a: no address trace)".into());
        } else if *expect == "leaks" {
            let caught = !same_trace || divs > 0;
            let how = if !same_pc {
                "instruction trace differs"
            } else if !same_trace {
                "address trace differs"
            } else if divs > 0 {
                "integer division executed"
            } else {
                "NOT CAUGHT"
            };
            line = format!(
                "{:<9} {n} secrets  {name}: {how}",
                if caught { "caught" } else { "MISSED" }
            );
            if caught {
                toys.push(format!("{} ({how})", name.trim_start_matches("toy/")));
            } else {
                failures.push(format!(
                    "{name}: the toy leak was not caught: the check is broken"
                ));
            }
        } else {
            let ok = same_trace && divs == 0 && digests.len() > 1 && n >= 2;
            let detail = if !same_pc {
                let insns: Vec<String> = measured.iter().map(|s| s.2.insns.to_string()).collect();
                format!(
                    "instruction trace differs (instructions per set: {})",
                    insns.join(" ")
                )
            } else if !same_trace {
                let mem: Vec<String> = measured.iter().map(|s| s.2.mem.to_string()).collect();
                format!(
                    "address trace differs (accesses per set: {})",
                    mem.join(" ")
                )
            } else if divs > 0 {
                format!(
                    "{divs} integer division(s) executed (first at {})",
                    first.and_then(|f| f.divat.clone()).unwrap_or_default()
                )
            } else if digests.len() <= 1 {
                "every secret set gave the same output: the secrets did not reach the operation"
                    .into()
            } else {
                format!(
                    "identical ({} instructions, {} accesses)",
                    first.map_or(0, |f| f.insns),
                    first.map_or(0, |f| f.mem)
                )
            };
            line = format!(
                "{:<9} {n} secrets  {name}: {detail}",
                if ok { "same" } else { "DIFFERENT" }
            );
            if !ok {
                failures.push(format!("{name}: {detail}"));
            }
            // Summary group: crate/backend.
            let g: String = name.splitn(3, '/').take(2).collect::<Vec<_>>().join("/");
            let e = groups.entry(g).or_default();
            e.0 += 1;
            if ok {
                e.1 += 1;
            }
        }
        full.push(format!("{} {line}", c.name));
    }
    let mut summary = vec![format!("  toys: {}", toys.join(", "))];
    for (g, (n, ok)) in &groups {
        summary.push(format!(
            "  {g:<58} {ok}/{n} workloads identical over {secrets} secret sets"
        ));
    }
    for toy in ["toy/table", "toy/branch", "toy/division", "toy/clean"] {
        if !by.contains_key(toy) {
            failures.push(format!("{toy} did not run"));
        }
    }
    Ok(Report {
        full,
        summary,
        failures,
        toys,
        workloads: order.len(),
        secrets,
    })
}

/// Build the guest for `triple` (release: the code users run). The host
/// build shares `target/ct` with the valgrind harness (`xtask ct`), whose
/// dependencies are the same; cross builds go to the usual target folder,
/// which `cargo xtask test` deletes after the target's last step.
fn build_guest(triple: &str) -> Result<PathBuf, String> {
    // The host guest shares target/ct with the valgrind harness; a cross
    // guest lands in cargo's per-target folder. `--target` goes after the
    // subcommand (cargo refuses it in front).
    let (mut c, dir, target) = match triple {
        X86_64 => (
            crate::ct::cargo_in_build_dir(),
            crate::ct::build_dir(),
            None,
        ),
        _ => (cargo(), util::target_dir().join(triple), Some(triple)),
    };
    c.args(["build", "--release", "-p", "ct-check", "--bin", "ct-trace"]);
    c.args(target.map(|t| ["--target", t]).into_iter().flatten());
    run(&mut c)?;
    Ok(dir.join("release").join("ct-trace"))
}

/// Build a TCG plugin from its C source (a path from the workspace root)
/// into `target/xtask/<so>`, if the source or the header is newer than it.
pub(crate) fn build_plugin(source: &str, so: &str) -> Result<PathBuf, String> {
    let inc = header()?;
    let src = util::root().join(source);
    let so = util::xtask_dir().join(so);
    let newer = |a: &Path, b: &Path| {
        let m = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
        match (m(a), m(b)) {
            (Some(x), Some(y)) => x > y,
            _ => true,
        }
    };
    if !so.exists() || newer(&src, &so) || newer(&inc.join("qemu-plugin.h"), &so) {
        run(Command::new("gcc")
            .args([
                "-O2", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", "-I",
            ])
            .arg(&inc)
            .arg("-o")
            .arg(&so)
            .arg(&src))?;
    }
    Ok(so)
}

/// The installed qemu-user's source version, as Debian names it.
fn qemu_source_version() -> Result<String, String> {
    let v =
        util::output(Command::new("dpkg-query").args(["-W", "-f=${source:Version}", "qemu-user"]))?;
    let v = v.trim().to_string();
    if v.is_empty() {
        return Err("dpkg-query reports no version for qemu-user".into());
    }
    Ok(v)
}

/// `qemu-plugin.h` of the installed qemu, in `target/xtask/qemu-include/`.
fn header() -> Result<PathBuf, String> {
    let version = qemu_source_version()?;
    let inc = util::xtask_dir()
        .join("qemu-include")
        .join(version.replace([':', '~', '+'], "_"));
    if inc.join("qemu-plugin.h").exists() {
        return Ok(inc);
    }
    let tmp = util::xtask_dir().join("qemu-src");
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).map_err(|e| format!("{}: {e}", tmp.display()))?;
    let fetch = || {
        util::succeeds(
            Command::new("apt-get")
                .args(["source", "--download-only", "-qq"])
                .arg(format!("qemu={version}"))
                .current_dir(&tmp),
        )
    };
    if !fetch() {
        add_deb_src()?;
        if !fetch() {
            return Err(format!(
                "apt-get source --download-only qemu={version} failed even with deb-src entries"
            ));
        }
    }
    let orig = std::fs::read_dir(&tmp)
        .map_err(|e| e.to_string())?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().contains(".orig.tar"))
        .ok_or("the qemu source package has no .orig tarball")?;
    run(Command::new("tar")
        .arg("-xf")
        .arg(&orig)
        .args(["--wildcards", "*/include/qemu/qemu-plugin.h"])
        .current_dir(&tmp))?;
    let found = std::fs::read_dir(&tmp)
        .map_err(|e| e.to_string())?
        .filter_map(Result::ok)
        .map(|e| e.path().join("include/qemu/qemu-plugin.h"))
        .find(|p| p.exists())
        .ok_or("qemu-plugin.h not found in the source tarball")?;
    std::fs::create_dir_all(&inc).map_err(|e| format!("{}: {e}", inc.display()))?;
    std::fs::copy(&found, inc.join("qemu-plugin.h")).map_err(|e| e.to_string())?;
    let _ = std::fs::remove_dir_all(&tmp);
    println!(
        "ct-trace: qemu-plugin.h of qemu {version} in {}",
        inc.display()
    );
    Ok(inc)
}

/// Add deb-src entries mirroring the system's deb entries (needs root).
fn add_deb_src() -> Result<(), String> {
    let list = Path::new("/etc/apt/sources.list.d/ct-trace-deb-src.sources");
    let mut stanzas = Vec::new();
    let dir = Path::new("/etc/apt/sources.list.d");
    for e in std::fs::read_dir(dir).map_err(|e| e.to_string())?.flatten() {
        let p = e.path();
        if p.extension().and_then(|x| x.to_str()) != Some("sources") || p == list {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        for st in text.split("\n\n") {
            let types = st.lines().find(|l| l.starts_with("Types:"));
            if types.is_some_and(|t| t.split_whitespace().any(|w| w == "deb"))
                && !st.lines().any(|l| l.trim() == "Enabled: no")
            {
                let body: Vec<&str> = st
                    .lines()
                    .filter(|l| !l.starts_with("Types:") && !l.starts_with('#'))
                    .collect();
                stanzas.push(format!("Types: deb-src\n{}\n", body.join("\n")));
            }
        }
    }
    if let Ok(text) = std::fs::read_to_string("/etc/apt/sources.list") {
        for l in text.lines().filter(|l| l.starts_with("deb ")) {
            stanzas.push(format!(
                "# from sources.list\n{}\n",
                l.replacen("deb ", "deb-src ", 1)
            ));
        }
    }
    if stanzas.is_empty() {
        return Err("no Debian deb entries to mirror as deb-src".into());
    }
    // One-line entries cannot go into a deb822 file: keep them apart.
    let (one_line, deb822): (Vec<_>, Vec<_>) =
        stanzas.into_iter().partition(|s| s.starts_with("# from"));
    std::fs::write(list, deb822.join("\n"))
        .map_err(|e| format!("cannot write {} (root needed): {e}", list.display()))?;
    if !one_line.is_empty() {
        let l = Path::new("/etc/apt/sources.list.d/ct-trace-deb-src.list");
        std::fs::write(l, one_line.join("")).map_err(|e| e.to_string())?;
    }
    run(Command::new("apt-get").args(["update", "-qq"]))
}
