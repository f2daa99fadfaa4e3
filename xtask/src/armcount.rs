//! `cargo xtask armcount [JOB...]`: ARM instructions per message and per
//! byte, under qemu-user, for every crate's workloads next to their peers.
//!
//! A job is one driver program of `benches/src/bin/` (`armcount_<job>`,
//! all called as `<driver> <impl> <bytes> <iters>`, each iteration one
//! message with the key set up before the loop) and the qemu
//! configurations it is counted under:
//!   aes       AES-128-CTR through RustCrypto `ctr` and aes-ct's own
//!             `Ctr32BE` on every ARM backend, next to RustCrypto `aes`
//!             and `ctr` over an identity cipher (`ctr`'s own cost)
//!   ghash     GHASH on every ARM backend, next to RustCrypto `ghash`
//!   gcm       AES-128/256-GCM seal, next to ring and RustCrypto `aes-gcm`
//!   adiantum  Adiantum / HPolyC variants, next to crates.io `adiantum` and
//!             AES-256-XTS over aes-ct
//!
//! Method: each cell runs the driver twice, with 10 and 20 iterations,
//! under `qemu-<arch> -cpu <model>` with our counting plugin
//! (`xtask/shim/insncount.c`) and an empty environment (the environment's
//! size moves the stack and with it the count); the difference over 10 is
//! the cost of one message, so start-up and key setup cancel. "No crypto"
//! configurations hide AES/PMULL from `getauxval` with the shim the tests
//! use (`xtask/shim/hwcapmask.c`). Counts are deterministic. They are not
//! cycles: an AES round instruction, a `tbl` and an `eor` each count one.
//!
//! Options: `--bytes 16,1350` (sizes instead of the job's), `--impls a,b`
//! (restrict), `--target aarch64|armv7`.

use crate::util::{self, cargo, run};
use std::path::{Path, PathBuf};
use std::process::Command;

const AARCH64: &str = "aarch64-unknown-linux-gnu";
const ARMV7: &str = "armv7-unknown-linux-gnueabihf";

/// One qemu configuration of a job.
struct Config {
    label: &'static str,
    triple: &'static str,
    cpu: &'static str,
    no_crypto: bool,
    impls: &'static [&'static str],
}

struct Job {
    name: &'static str,
    sizes: &'static [usize],
    /// The peer each row is compared with at the largest size; an impl
    /// ending in `-128`/`-256` is compared with the peer's same key size.
    reference: &'static str,
    configs: &'static [Config],
}

const AARCH64_AES: Config = Config {
    label: "aarch64 cortex-a72 (AES)",
    triple: AARCH64,
    cpu: "cortex-a72",
    no_crypto: false,
    impls: &[],
};
const AARCH64_NO_CRYPTO: Config = Config {
    label: "aarch64 cortex-a72, AES/PMULL hidden",
    no_crypto: true,
    ..AARCH64_AES
};
const ARMV7_NEON: Config = Config {
    label: "armv7 cortex-a15 (NEON, no crypto)",
    triple: ARMV7,
    cpu: "cortex-a15",
    no_crypto: false,
    impls: &[],
};

/// AES through `ctr` (backend name) and our own CTR (`-ctr`) on the NEON
/// backends.
const AES_NEON: &[&str] = &[
    "hybrid",
    "hybrid-ctr",
    "vpaes",
    "bsaes",
    "bsaes-ctr",
    "soft",
    "rustcrypto",
    "identity",
];
const GCM: &[&str] = &["ct-128", "ring-128", "rustcrypto-128", "ct-256", "ring-256"];
const ADIANTUM: &[&str] = &[
    "adiantum12",
    "adiantum12-soft",
    "adiantum20",
    "adiantum8",
    "hpolyc12",
    "xts",
    "ref12",
];

const JOBS: &[Job] = &[
    Job {
        name: "aes",
        sizes: &[16, 1350, 16384],
        reference: "rustcrypto",
        configs: &[
            Config {
                impls: &["armv8", "armv8-ctr", "rustcrypto"],
                ..AARCH64_AES
            },
            Config {
                impls: AES_NEON,
                ..AARCH64_NO_CRYPTO
            },
            Config {
                impls: AES_NEON,
                ..ARMV7_NEON
            },
        ],
    },
    Job {
        name: "ghash",
        sizes: &[16, 16384],
        reference: "rustcrypto",
        configs: &[
            Config {
                impls: &["pmull", "pmull8", "soft64", "soft32", "rustcrypto"],
                ..AARCH64_AES
            },
            Config {
                impls: &["pmull8", "soft64", "soft32", "rustcrypto"],
                ..AARCH64_NO_CRYPTO
            },
            Config {
                impls: &["vmull8", "soft32", "rustcrypto"],
                ..ARMV7_NEON
            },
        ],
    },
    Job {
        name: "gcm",
        sizes: &[16, 1350, 16384],
        reference: "ring",
        configs: &[
            Config {
                impls: GCM,
                ..AARCH64_AES
            },
            Config {
                impls: GCM,
                ..AARCH64_NO_CRYPTO
            },
            Config {
                impls: GCM,
                ..ARMV7_NEON
            },
        ],
    },
    Job {
        name: "adiantum",
        sizes: &[512, 4096],
        reference: "ref12",
        configs: &[
            Config {
                impls: ADIANTUM,
                ..AARCH64_AES
            },
            Config {
                impls: ADIANTUM,
                ..ARMV7_NEON
            },
        ],
    },
];

const USAGE: &str = "\
usage: cargo xtask armcount [JOB...] [--bytes 16,1350] [--impls a,b] [--target aarch64|armv7]

  JOB: aes, ghash, gcm, adiantum (default: all of them)";

fn qemu(triple: &str) -> (&'static str, &'static str) {
    if triple == AARCH64 {
        ("qemu-aarch64", "/usr/aarch64-linux-gnu")
    } else {
        ("qemu-arm", "/usr/arm-linux-gnueabihf")
    }
}

/// Build the job's driver for `triple`; its path.
fn build(job: &str, triple: &str) -> Result<PathBuf, String> {
    let bin = format!("armcount_{job}");
    run(cargo().args([
        "build",
        "--release",
        "--quiet",
        "-p",
        "benches",
        "--bin",
        &bin,
        "--target",
        triple,
    ]))?;
    Ok(util::target_dir().join(triple).join("release").join(bin))
}

/// Everything a cell's run needs besides the impl and sizes.
struct Runner<'a> {
    plugin: &'a Path,
    cfg: &'a Config,
    bin: &'a Path,
    shim: Option<PathBuf>,
    out: PathBuf,
}

impl Runner<'_> {
    /// Instructions executed by one run of the driver.
    fn count(&self, imp: &str, bytes: usize, iters: usize) -> Result<u64, String> {
        let (qemu, sysroot) = qemu(self.cfg.triple);
        let _ = std::fs::remove_file(&self.out);
        let mut c = Command::new(qemu);
        c.env_clear()
            .args(["-L", sysroot, "-cpu", self.cfg.cpu, "-plugin"])
            .arg(format!(
                "{},out={}",
                self.plugin.display(),
                self.out.display()
            ));
        if let Some(shim) = &self.shim {
            c.arg("-E").arg(format!("LD_PRELOAD={}", shim.display()));
        }
        c.arg(self.bin)
            .args([imp, &bytes.to_string(), &iters.to_string()]);
        let out = c.output().map_err(|e| format!("{qemu}: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "{imp} {bytes} B on {}: {}",
                self.cfg.label,
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        let text = std::fs::read_to_string(&self.out)
            .map_err(|e| format!("{}: {e} (the plugin wrote nothing)", self.out.display()))?;
        parse_count(&text)
    }

    /// `(per message, per byte)`: the difference of 20 and 10 iterations.
    fn measure(&self, imp: &str, bytes: usize) -> Result<(f64, f64), String> {
        let (a, b) = (self.count(imp, bytes, 10)?, self.count(imp, bytes, 20)?);
        if b <= a {
            return Err(format!(
                "{imp} {bytes} B on {}: 20 iterations cost no more than 10 ({b} vs {a})",
                self.cfg.label
            ));
        }
        let per = (b - a) as f64 / 10.0;
        Ok((per, per / bytes as f64))
    }
}

/// The plugin's `insns=N` line.
fn parse_count(text: &str) -> Result<u64, String> {
    text.lines()
        .find_map(|l| l.trim().strip_prefix("insns="))
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| format!("no insns= line in the plugin's output: {text:?}"))
}

/// The peer an impl is compared with.
fn reference_of(reference: &str, imp: &str) -> String {
    match imp.rsplit_once('-') {
        Some((_, bits @ ("128" | "192" | "256"))) => format!("{reference}-{bits}"),
        _ => reference.to_string(),
    }
}

fn list<T: std::str::FromStr>(s: &str) -> Result<Vec<T>, String> {
    s.split(',')
        .map(|x| x.trim().parse().map_err(|_| format!("bad list item `{x}`")))
        .collect()
}

pub fn main(args: &[String]) -> Result<(), String> {
    let mut jobs: Vec<&Job> = Vec::new();
    let mut sizes: Option<Vec<usize>> = None;
    let mut only: Option<Vec<String>> = None;
    let mut target: Option<String> = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut val = || it.next().cloned().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--bytes" => sizes = Some(list(&val()?)?),
            "--impls" => only = Some(list(&val()?)?),
            "--target" => target = Some(val()?),
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            name => match JOBS.iter().find(|j| j.name == name) {
                Some(j) => jobs.push(j),
                None => return Err(format!("unknown job or option `{name}`\n{USAGE}")),
            },
        }
    }
    if jobs.is_empty() {
        jobs = JOBS.iter().collect();
    }
    let triple_ok = |t: &str| match target.as_deref() {
        None => true,
        Some("aarch64") => t == AARCH64,
        Some("armv7") => t == ARMV7,
        Some(other) => other == t,
    };
    if let Some(t) = &target
        && !JOBS
            .iter()
            .flat_map(|j| j.configs)
            .any(|c| triple_ok(c.triple))
    {
        return Err(format!("unknown --target `{t}`\n{USAGE}"));
    }
    let plugin = crate::trace::build_plugin("xtask/shim/insncount.c", "insncount.so")?;
    let out = util::xtask_dir().join("armcount.out");
    for job in jobs {
        let sizes = sizes.as_deref().unwrap_or(job.sizes);
        println!("\n## {}\n", job.name);
        let mut head = String::from("| configuration | impl |");
        let mut rule = String::from("|---|---|");
        for &n in sizes {
            head.push_str(&if n <= 64 {
                format!(" {n} B: per message |")
            } else {
                format!(" {n} B: per byte |")
            });
            rule.push_str("---:|");
        }
        head.push_str(&format!(" largest vs {} |", job.reference));
        rule.push_str("---:|");
        println!("{head}\n{rule}");
        for cfg in job.configs.iter().filter(|c| triple_ok(c.triple)) {
            let bin = build(job.name, cfg.triple)?;
            let shim = if cfg.no_crypto {
                Some(crate::test::build_shim(cfg.triple)?)
            } else {
                None
            };
            let r = Runner {
                plugin: &plugin,
                cfg,
                bin: &bin,
                shim,
                out: out.clone(),
            };
            let mut rows = Vec::new();
            for &imp in cfg.impls {
                if only.as_ref().is_some_and(|o| !o.iter().any(|x| x == imp)) {
                    continue;
                }
                let mut cells = Vec::new();
                for &n in sizes {
                    cells.push(r.measure(imp, n)?);
                }
                rows.push((imp, cells));
            }
            for (imp, cells) in &rows {
                let mut line = format!("| {} | {imp} |", cfg.label);
                for (&n, &(per, pb)) in sizes.iter().zip(cells) {
                    line.push_str(&if n <= 64 {
                        format!(" {per:.0} |")
                    } else {
                        format!(" {pb:.2} |")
                    });
                }
                let peer = reference_of(job.reference, imp);
                let ratio = rows
                    .iter()
                    .find(|(i, _)| **i == peer)
                    .and_then(|(_, c)| Some((cells.last()?.0, c.last()?.0)));
                match ratio {
                    Some((ours, theirs)) if theirs > 0.0 => {
                        line.push_str(&format!(" {:.3}x |", ours / theirs))
                    }
                    _ => line.push_str(" |"),
                }
                println!("{line}");
            }
        }
    }
    println!(
        "\nper cell: (count at 20 iterations - count at 10) / 10, qemu-user with \
         xtask/shim/insncount.c, empty environment; instructions, not cycles"
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_plugin_line() {
        assert_eq!(parse_count("insns=12345\n"), Ok(12345));
        assert!(parse_count("").is_err());
        assert!(parse_count("insns=x\n").is_err());
    }

    #[test]
    fn compares_with_the_same_key_size() {
        assert_eq!(reference_of("ring", "ct-256"), "ring-256");
        assert_eq!(reference_of("rustcrypto", "hybrid-ctr"), "rustcrypto");
        assert_eq!(reference_of("ref12", "adiantum12-soft"), "ref12");
    }

    #[test]
    fn every_job_names_its_reference_in_each_configuration() {
        for j in JOBS {
            for c in j.configs {
                assert!(
                    c.impls.iter().any(|i| i.starts_with(j.reference)),
                    "{}: {} has no {} row",
                    j.name,
                    c.label,
                    j.reference
                );
            }
        }
    }
}
