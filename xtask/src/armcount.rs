//! `cargo xtask armcount`: ARM instructions per byte of AES-128-CTR
//! (`ctr::Ctr32BE`) for every aes-ct backend next to RustCrypto `aes`, and
//! through aes-ct's own `Ctr32BE` (impls named `<backend>-ctr`), counted
//! under qemu with the armcount TCG plugin (`$ARMCOUNT`, see below).
//!
//! Self-contained (std only). Builds `benches/src/bin/armcount_aes.rs` for
//! each ARM target in release mode, then for every configuration, backend
//! and message size runs
//! `armcount [--cpu C] [--no-crypto] --clean-env --iters 10,20 --bytes N
//! armcount_aes <impl> N {N}` and reads `per_iter` / `per_byte` (the
//! difference of two runs, so start-up and key setup cancel).
//!
//! Instruction counts are not cycles: an AES round instruction, a `tbl` and
//! an `eor` each count as one.
//!
//! Options:
//!   --target aarch64|armv7|all   (default all)
//!   --bytes 16,1350,16384        message sizes (default)
//!   --impls a,b,...              restrict the implementations
//! Finds armcount through `$ARMCOUNT`, else `<workspace>/../shared/tools/
//! armcount/armcount`.

use std::path::{Path, PathBuf};
use std::process::Command;

const AARCH64: &str = "aarch64-unknown-linux-gnu";
const ARMV7: &str = "armv7-unknown-linux-gnueabihf";

/// One qemu configuration: label, target, CPU model, hide crypto, impls.
struct Config {
    label: &'static str,
    triple: &'static str,
    cpu: &'static str,
    no_crypto: bool,
    impls: &'static [&'static str],
}

const CONFIGS: &[Config] = &[
    Config {
        label: "aarch64 cortex-a72 (AES)",
        triple: AARCH64,
        cpu: "cortex-a72",
        no_crypto: false,
        impls: &["armv8", "armv8-ctr", "rustcrypto"],
    },
    Config {
        label: "aarch64 cortex-a72 --no-crypto",
        triple: AARCH64,
        cpu: "cortex-a72",
        no_crypto: true,
        impls: &[
            "hybrid",
            "hybrid-ctr",
            "vpaes",
            "bsaes",
            "bsaes-ctr",
            "soft",
            "rustcrypto",
        ],
    },
    Config {
        label: "armv7 cortex-a15 (NEON)",
        triple: ARMV7,
        cpu: "cortex-a15",
        no_crypto: false,
        impls: &[
            "hybrid",
            "hybrid-ctr",
            "vpaes",
            "bsaes",
            "bsaes-ctr",
            "soft",
            "rustcrypto",
        ],
    },
];

fn root() -> PathBuf {
    let m = Path::new(env!("CARGO_MANIFEST_DIR"));
    m.parent().unwrap_or(m).to_path_buf()
}

fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(d) if !d.is_empty() => {
            let d = PathBuf::from(d);
            if d.is_absolute() { d } else { root().join(d) }
        }
        _ => root().join("target"),
    }
}

fn armcount_tool() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("ARMCOUNT").filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        return if p.exists() {
            Ok(p)
        } else {
            Err(format!("ARMCOUNT={} does not exist", p.display()))
        };
    }
    let p = root().join("../shared/tools/armcount/armcount");
    if p.exists() {
        Ok(p)
    } else {
        Err(format!(
            "armcount not found: set ARMCOUNT=/path/to/armcount or provide {} \
             (see shared/tools/armcount/README.md; needs qemu-user with plugins)",
            p.display()
        ))
    }
}

fn build(triple: &str) -> Result<PathBuf, String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut c = Command::new(cargo);
    c.current_dir(root()).args([
        "build",
        "--release",
        "--quiet",
        "-p",
        "benches",
        "--bin",
        "armcount_aes",
        "--target",
        triple,
    ]);
    eprintln!("+ cargo build --release -p benches --bin armcount_aes --target {triple}");
    let st = c.status().map_err(|e| format!("cargo: {e}"))?;
    if !st.success() {
        return Err(format!("building armcount_aes for {triple} failed"));
    }
    Ok(target_dir()
        .join(triple)
        .join("release")
        .join("armcount_aes"))
}

/// `(per_iter, per_byte)` of one measurement.
fn measure(
    tool: &Path,
    cfg: &Config,
    bin: &Path,
    imp: &str,
    bytes: usize,
) -> Result<(f64, f64), String> {
    let mut c = Command::new(tool);
    c.args(["--cpu", cfg.cpu]);
    if cfg.no_crypto {
        c.arg("--no-crypto");
    }
    c.args([
        "--clean-env",
        "--iters",
        "10,20",
        "--bytes",
        &bytes.to_string(),
    ]);
    c.arg(bin).args([imp, &bytes.to_string(), "{N}"]);
    let out = c.output().map_err(|e| format!("{}: {e}", tool.display()))?;
    // The `--iters` summary goes to stdout, errors to stderr.
    let err = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if !out.status.success() {
        return Err(format!("{imp} {bytes} B on {}: {}", cfg.label, err.trim()));
    }
    let field = |name: &str| -> Option<f64> {
        let line = err.lines().rev().find(|l| l.contains("per_iter="))?;
        let v = line.split_whitespace().find_map(|w| w.strip_prefix(name))?;
        v.parse().ok()
    };
    match (field("per_iter="), field("per_byte=")) {
        (Some(i), Some(b)) => Ok((i, b)),
        _ => Err(format!("could not read armcount's output: {}", err.trim())),
    }
}

fn list<T: std::str::FromStr>(s: &str) -> Result<Vec<T>, String> {
    s.split(',')
        .map(|x| x.trim().parse().map_err(|_| format!("bad list item `{x}`")))
        .collect()
}

pub fn main(args: &[String]) -> Result<(), String> {
    let mut target = "all".to_string();
    let mut sizes: Vec<usize> = vec![16, 1350, 16384];
    let mut only: Option<Vec<String>> = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut val = || it.next().cloned().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--target" => target = val()?,
            "--bytes" => sizes = list(&val()?)?,
            "--impls" => only = Some(list(&val()?)?),
            "-h" | "--help" => {
                println!(
                    "usage: cargo xtask armcount [--target aarch64|armv7|all] [--bytes 16,1350,16384] [--impls a,b]"
                );
                return Ok(());
            }
            _ => return Err(format!("unknown option `{a}` (try --help)")),
        }
    }
    let tool = armcount_tool()?;
    let want = |t: &str| {
        target == "all"
            || (target == "aarch64" && t == AARCH64)
            || (target == "armv7" && t == ARMV7)
    };
    let mut bins = Vec::new();
    for t in [AARCH64, ARMV7] {
        if want(t) {
            bins.push((t, build(t)?));
        }
    }
    if bins.is_empty() {
        return Err(format!("unknown --target `{target}`"));
    }
    let mut head = String::from("| configuration | impl |");
    let mut rule = String::from("|---|---|");
    for &n in &sizes {
        head.push_str(&if n <= 64 {
            format!(" {n} B: per message |")
        } else {
            format!(" {n} B: /byte |")
        });
        rule.push_str("---|");
    }
    head.push_str(" largest vs RustCrypto |");
    rule.push_str("---|");
    println!("{head}\n{rule}");
    for cfg in CONFIGS {
        let Some((_, bin)) = bins.iter().find(|(t, _)| *t == cfg.triple) else {
            continue;
        };
        let mut rows = Vec::new();
        for &imp in cfg.impls {
            if only.as_ref().is_some_and(|o| !o.iter().any(|x| x == imp)) {
                continue;
            }
            let mut cells = Vec::new();
            for &n in &sizes {
                let (it, pb) = measure(&tool, cfg, bin, imp, n)?;
                cells.push((n, it, pb));
            }
            rows.push((imp, cells));
        }
        let rc = rows
            .iter()
            .find(|(i, _)| *i == "rustcrypto")
            .and_then(|(_, c)| c.last().map(|x| x.2));
        for (imp, cells) in &rows {
            let mut line = format!("| {} | {} |", cfg.label, imp);
            for &(n, it, pb) in cells {
                line.push_str(&if n <= 64 {
                    format!(" {it:.0} |")
                } else {
                    format!(" {pb:.2} |")
                });
            }
            match (rc, cells.last()) {
                (Some(r), Some(&(_, _, pb))) if r > 0.0 => {
                    line.push_str(&format!(" {:.3}x |", pb / r))
                }
                _ => line.push_str(" |"),
            }
            println!("{line}");
        }
    }
    println!(
        "\ncommand per cell: {} --cpu <C> [--no-crypto] --clean-env --iters 10,20 --bytes N armcount_aes <impl> N {{N}}",
        tool.display()
    );
    println!("instruction counts under qemu, not cycles");
    Ok(())
}
