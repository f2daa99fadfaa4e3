//! `speed`: a `bssl speed`-like table for this workspace's crates next to
//! RustCrypto and OpenSSL. Run it through `cargo xtask speed`, which also
//! builds the RustCrypto-soft comparison binary. The measuring code lives
//! in `benches/src/speed/` (one module per crate; see its `mod.rs` for how
//! to add one).

use benches::speed::{Ctx, Options, SUITES, aes, cpu_name, gcm, svg};
use std::fmt::Write as _;
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

/// The measuring of a scratch build (`--ssse3-build`, `--avx2-build`,
/// `--aesni-build`).
type ScratchRun = fn(&mut Ctx) -> Result<(), String>;

/// Also printed by `cargo xtask speed --help`, which must not build first.
const USAGE: &str = include_str!("../speed/usage.txt");

fn main() -> ExitCode {
    let mut opts = Options::default();
    let mut soft_bin = None;
    let mut ssse3_bin = None;
    let mut avx2_bin = None;
    let mut aesni_bin = None;
    let mut write_dir = None;
    let mut tsv = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--time-ms" => match args.next().and_then(|v| v.parse().ok()) {
                Some(ms) => opts.time = Duration::from_millis(ms),
                None => return usage("--time-ms needs a number"),
            },
            "--no-openssl" => opts.openssl = false,
            "--soft-build" => opts.soft_build = true,
            "--ssse3-build" => opts.ssse3_build = true,
            "--avx2-build" => opts.avx2_build = true,
            "--aesni-build" => opts.aesni_build = true,
            "--tsv" => tsv = true,
            "--ghash-without-clmul" => {
                // For xtask's soft build: the GHASH backend this CPU would
                // get with its 64-bit carry-less multiply (PCLMULQDQ,
                // PMULL) hidden, the first of ghash-ct's table after those.
                let b = ghash_ct::Backend::available()
                    .find(|b| !b.name().contains("clmul") && b.name() != "pmull")
                    .unwrap_or(ghash_ct::Backend::PORTABLE);
                println!("{}", b.name());
                return ExitCode::SUCCESS;
            }
            "--rustcrypto-soft" => match args.next() {
                Some(p) => soft_bin = Some(p),
                None => return usage("--rustcrypto-soft needs a path"),
            },
            "--ssse3-ring" => match args.next() {
                Some(p) => ssse3_bin = Some(p),
                None => return usage("--ssse3-ring needs a path"),
            },
            "--avx2-vaes256" => match args.next() {
                Some(p) => avx2_bin = Some(p),
                None => return usage("--avx2-vaes256 needs a path"),
            },
            "--aesni-ring" => match args.next() {
                Some(p) => aesni_bin = Some(p),
                None => return usage("--aesni-ring needs a path"),
            },
            "--write" => match args.next() {
                Some(p) => write_dir = Some(std::path::PathBuf::from(p)),
                None => return usage("--write needs a directory"),
            },
            "-h" | "--help" => {
                print!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            s if s.starts_with('-') => return usage(&format!("unknown option {s}")),
            s => opts.filter.push(s.to_owned()),
        }
    }

    let start = Instant::now();
    let suites: Vec<_> = SUITES
        .iter()
        .filter(|(name, _)| opts.filter.is_empty() || opts.filter.iter().any(|f| name.contains(f)))
        .collect();
    if suites.is_empty() {
        return usage("no suite matches");
    }
    let with_gcm = suites.iter().any(|(name, _)| *name == "gcm");
    let with_aes = suites.iter().any(|(name, _)| *name == "aes");
    let header = header();
    if !tsv {
        print!("{header}");
    }
    let mut ctx = Ctx::new(opts.clone());
    let scratch = opts.ssse3_build || opts.avx2_build || opts.aesni_build;
    if scratch {
        // A scratch build measures only its own tables, of a suite asked for.
        let runs: [Option<ScratchRun>; 2] = if opts.ssse3_build {
            [
                with_aes.then_some(aes::ssse3_vs_soft),
                with_gcm.then_some(gcm::ssse3_vs_ring),
            ]
        } else if opts.aesni_build {
            [with_gcm.then_some(gcm::aesni_vs_ring), None]
        } else {
            [with_aes.then_some(aes::avx2_vs_vaes256), None]
        };
        for run in runs.into_iter().flatten() {
            if let Err(e) = run(&mut ctx) {
                eprintln!("speed: {e}");
                return ExitCode::FAILURE;
            }
        }
    } else {
        for (_, run) in &suites {
            run(&mut ctx);
        }
    }

    if soft_bin.is_none() && !opts.soft_build && !scratch {
        ctx.note(
            "No RustCrypto soft rows and no aes-gcm-ct software path: they come from a second \
             build (cargo xtask speed does it).",
        );
    }
    let mut merges = Vec::new();
    if let Some(bin) = soft_bin {
        merges.push((bin, "--soft-build"));
    }
    if let Some(bin) = ssse3_bin.filter(|_| with_gcm || with_aes) {
        merges.push((bin, "--ssse3-build"));
    }
    if let Some(bin) = avx2_bin.filter(|_| with_aes) {
        merges.push((bin, "--avx2-build"));
    }
    if let Some(bin) = aesni_bin.filter(|_| with_gcm) {
        merges.push((bin, "--aesni-build"));
    }
    for (bin, flag) in merges {
        let mut c = Command::new(&bin);
        c.args([
            flag,
            "--tsv",
            "--time-ms",
            &opts.time.as_millis().to_string(),
        ]);
        c.args(&opts.filter);
        match c.output() {
            Ok(o) if o.status.success() => ctx.merge_tsv(&String::from_utf8_lossy(&o.stdout)),
            Ok(o) => {
                eprintln!(
                    "speed: {bin} failed ({}): {}",
                    o.status,
                    String::from_utf8_lossy(&o.stderr)
                );
                return ExitCode::FAILURE;
            }
            Err(e) => {
                eprintln!("speed: cannot run {bin}: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    for check in [gcm::check_ssse3_ring, gcm::check_aesni_ring] {
        if let Err(e) = check(&ctx) {
            eprintln!("speed: {e}");
            return ExitCode::FAILURE;
        }
    }

    if tsv {
        print!("{}", ctx.to_tsv());
        return ExitCode::SUCCESS;
    }
    let mut text = ctx.render();
    let _ = writeln!(
        text,
        "\nMB/s = 10^6 bytes per second of this thread's CPU time (OpenSSL speed also divides by user CPU time); \
         ratios > 1 mean ours is faster. Took {:.1}s.",
        start.elapsed().as_secs_f64()
    );
    print!("{text}");
    if let Some(dir) = write_dir {
        let charts = ctx.charts(&format!(" ({} on {})", std::env::consts::ARCH, cpu_name()));
        let written = svg::document(&charts).and_then(|svg| {
            std::fs::create_dir_all(&dir)
                .and_then(|()| std::fs::write(dir.join("speed.txt"), format!("{header}{text}")))
                .and_then(|()| std::fs::write(dir.join("speed.svg"), svg))
                .map_err(|e| format!("cannot write to {}: {e}", dir.display()))
        });
        match written {
            Ok(()) => println!(
                "Wrote {} and {}.",
                dir.join("speed.txt").display(),
                dir.join("speed.svg").display()
            ),
            Err(e) => {
                eprintln!("speed: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}

fn usage(msg: &str) -> ExitCode {
    eprintln!("speed: {msg}\n\n{USAGE}");
    ExitCode::from(2)
}

/// The CPU, its features and aes-ct's backends, as the tables' header.
fn header() -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{} on {}", std::env::consts::ARCH, cpu_name());
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    {
        let f = [
            ("ssse3", std::arch::is_x86_feature_detected!("ssse3")),
            ("aes", std::arch::is_x86_feature_detected!("aes")),
            (
                "pclmulqdq",
                std::arch::is_x86_feature_detected!("pclmulqdq"),
            ),
            ("avx2", std::arch::is_x86_feature_detected!("avx2")),
            ("avx512f", std::arch::is_x86_feature_detected!("avx512f")),
            ("vaes", std::arch::is_x86_feature_detected!("vaes")),
            (
                "vpclmulqdq",
                std::arch::is_x86_feature_detected!("vpclmulqdq"),
            ),
        ];
        let on: Vec<&str> = f.iter().filter(|x| x.1).map(|x| x.0).collect();
        let _ = writeln!(s, "CPU features: {}", on.join(" "));
    }
    let avail: Vec<&str> = aes_ct::Backend::available().map(|b| b.name()).collect();
    let _ = writeln!(
        s,
        "aes-ct backends available: {} (auto-selected: {})",
        avail.join(", "),
        aes_ct::Backend::detected().name()
    );
    s
}
