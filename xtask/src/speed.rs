//! `cargo xtask speed`: the speed tables and charts.
//!
//! The measuring is done by the `speed` binary of the `benches` package
//! (`benches/src/bin/speed.rs`, one module per crate under
//! `benches/src/speed/`). This command builds it up to five times in release
//! mode, each into a folder of its own under the target directory:
//!
//! 1. `speed-peers`, with `RUSTFLAGS='--cfg speed_peers'`: every backend
//!    this CPU can run, RustCrypto auto-detected, ring, aws-lc-rs (behind
//!    that cfg, not a feature, because aws-lc-sys compiles AWS-LC's C
//!    sources, minutes `cargo xtask test --all-features` must not pay) and
//!    OpenSSL.
//! 2. `speed-soft`, with `RUSTFLAGS='--cfg aes_backend="soft" --cfg
//!    polyval_backend="soft" --cfg aes_ct_backend="hybrid" --cfg
//!    ghash_ct_backend="NAME"'`, so RustCrypto's `aes`, `ghash` and
//!    `aes-gcm` use their portable code and aes-gcm-ct selects its software
//!    path (aes-ct `hybrid` + ghash-ct NAME, path `ctr-ghash`) as on a CPU
//!    without AES and carry-less multiply instructions: NAME is the GHASH
//!    backend ghash-ct's automatic selection takes on this CPU with
//!    PCLMULQDQ hidden (the first build's `speed --ghash-without-clmul`).
//! 3. On x86, `speed-ring-noaesni`: a scratch workspace whose `speed` is
//!    the same source built against ring with AES-NI, PCLMULQDQ, VAES and
//!    VPCLMULQDQ hidden from its CPU detection: ring's crates.io source
//!    (the version in `Cargo.lock`) copied there and patched at run time,
//!    never committed, and `[patch.crates-io]` pointing at the copy. Built
//!    with benches' `test-hooks` feature and the cfgs of 2 but ghash-ct
//!    `pmuludq`, so aes-gcm-ct runs the software path at the SSSE3 width
//!    (what a CPU without AES-NI has) next to ring's vpaes + constant-time
//!    GHASH in one process, and aes-ct's hybrid at that width through
//!    `ctr` and its own `Ctr32BE` next to RustCrypto `aes` soft.
//! 4. On x86_64, `speed-ring-novaes`: the same with only VAES and
//!    VPCLMULQDQ hidden from ring, and no cfgs: aes-gcm-ct's AES-NI path
//!    (`aesni-avx-clmul`, or `aesni-clmul` without AVX) next to ring's
//!    AES-NI path (what CPUs without VAES run).
//!
//! It then runs the first build, which asks the others for their rows,
//! prints one table per suite with ratios and writes the tables and the
//! throughput-by-size charts to `<target>/speed/speed.txt` and
//! `speed.svg`. Arguments are passed to the binary (`cargo xtask speed --
//! --help`; `cargo xtask speed -- gcm` runs only the AES-GCM suite).

use crate::util::{cargo, fmt_duration, root, run, target_dir};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The soft build's cfgs before the GHASH backend's.
const SOFT_CFGS: &str = concat!(
    r#"--cfg aes_backend="soft" --cfg polyval_backend="soft" "#,
    r#"--cfg aes_ct_backend="hybrid""#
);

/// The GHASH backend of an SSSE3-only CPU (benches' `gcm::SSSE3_GHASH`
/// checks the build got it).
const SSSE3_GHASH: &str = "pmuludq";

/// Lines of ring's `src/cpu/intel.rs` that read the CPUID feature words,
/// and what the scratch copy reads instead: leaf 1 ECX without PCLMULQDQ
/// (bit 1) and AES-NI (bit 25), leaf 7 ECX without VAES (bit 9) and
/// VPCLMULQDQ (bit 10).
const RING_PATCH: [(&str, &str); 2] = [
    (
        "    let leaf1_ecx = cpuid[1];\n",
        "    let leaf1_ecx = cpuid[1] & !((1 << 1) | (1 << 25));\n",
    ),
    (
        "    let (extended_features_ebx, extended_features_ecx) = (cpuid[2], cpuid[3]);\n",
        "    let (extended_features_ebx, extended_features_ecx) = (cpuid[2], cpuid[3] & !((1 << 9) | (1 << 10)));\n",
    ),
];

pub fn main(args: &[String]) -> Result<(), String> {
    let start = Instant::now();
    let args: Vec<&String> = args.iter().filter(|a| *a != "--").collect();
    if args.iter().any(|a| *a == "-h" || *a == "--help") {
        // The binary's own usage, without the minutes of release builds.
        print!("{}", include_str!("../../benches/src/speed/usage.txt"));
        return Ok(());
    }
    let target = target_dir();
    let peers_dir = target.join("speed-peers");
    let soft_dir = target.join("speed-soft");
    let bin = |dir: &Path| {
        dir.join("release")
            .join(format!("speed{}", std::env::consts::EXE_SUFFIX))
    };
    let flags = crate::util::rustflags;

    run(cargo()
        .args(["build", "--release", "-p", "benches", "--bin", "speed"])
        .env("CARGO_TARGET_DIR", &peers_dir)
        .env("RUSTFLAGS", flags("--cfg speed_peers")))?;

    // The GHASH this CPU would select without its carry-less multiply,
    // asked of the first build (ghash-ct's own table order).
    let out = Command::new(bin(&peers_dir))
        .arg("--ghash-without-clmul")
        .output()
        .map_err(|e| format!("speed --ghash-without-clmul: {e}"))?;
    let ghash = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    if !out.status.success() || ghash.is_empty() {
        return Err("speed --ghash-without-clmul printed no backend".into());
    }
    run(cargo()
        .args(["build", "--release", "-p", "benches", "--bin", "speed"])
        .env("CARGO_TARGET_DIR", &soft_dir)
        .env(
            "RUSTFLAGS",
            flags(&format!(r#"{SOFT_CFGS} --cfg ghash_ct_backend="{ghash}""#)),
        ))?;

    let mut cmd = Command::new(bin(&peers_dir));
    cmd.arg("--rustcrypto-soft").arg(bin(&soft_dir));
    // The scratch builds against a patched peer: (wanted here, folder and
    // package name, patch, RUSTFLAGS, the option that hands the binary to
    // the first build).
    let ssse3_flags = format!(r#"{SOFT_CFGS} --cfg ghash_ct_backend="{SSSE3_GHASH}""#);
    let scratch_builds = [
        (
            cfg!(any(target_arch = "x86", target_arch = "x86_64"))
                && (runs(&args, "gcm") || runs(&args, "aes")),
            "speed-ring-noaesni",
            &RING_NOAESNI,
            ssse3_flags.as_str(),
            "--ssse3-ring",
        ),
        (
            cfg!(target_arch = "x86_64") && runs(&args, "gcm"),
            "speed-ring-novaes",
            &RING_NOVAES,
            "",
            "--aesni-ring",
        ),
        (
            cfg!(target_arch = "x86_64") && runs(&args, "aes") && avx512_vaes(),
            "speed-rustcrypto-vaes256",
            &AES_VAES256,
            "--cfg speed_rustcrypto_vaes256",
            "--avx2-vaes256",
        ),
    ];
    for (wanted, name, patch, rustflags, option) in scratch_builds {
        if !wanted {
            continue;
        }
        let scratch = target.join(name);
        let manifest = patched_workspace(&scratch, name, patch)?;
        run(cargo()
            .args(["build", "--release", "--bin", "speed", "--manifest-path"])
            .arg(&manifest)
            .env("CARGO_TARGET_DIR", scratch.join("target"))
            .env("RUSTFLAGS", flags(rustflags)))?;
        cmd.arg(option).arg(bin(&scratch.join("target")));
    }
    cmd.arg("--write").arg(target.join("speed")).args(args);
    run(&mut cmd)?;
    println!(
        "cargo xtask speed took {} (builds included).",
        fmt_duration(start.elapsed())
    );
    Ok(())
}

/// Will the binary run `suite` (gcm: the SSSE3-width rows; aes: the
/// AVX2-width rows) with these arguments? Suite names are the arguments
/// that are neither options nor `--time-ms`'s value; none means every
/// suite.
fn runs(args: &[&String], suite: &str) -> bool {
    let mut suites = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if *a == "--time-ms" {
            it.next();
        } else if !a.starts_with('-') {
            suites.push(a.as_str());
        }
    }
    suites.is_empty() || suites.iter().any(|s| suite.contains(s))
}

/// Does this CPU have AVX-512 VAES (so the AVX2 width is reachable only
/// by hiding it, in both crates)?
fn avx512_vaes() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("vaes")
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// A peer's crates.io source, patched in a scratch copy: which crate,
/// which file, the exact lines replaced (each must occur once, or the
/// peer's code changed and the patch must be updated), and what the patch
/// hides.
struct Patch {
    krate: &'static str,
    file: &'static str,
    lines: &'static [(&'static str, &'static str)],
    hides: &'static str,
}

/// ring without AES-NI, PCLMULQDQ, VAES and VPCLMULQDQ (its vpaes and
/// constant-time GHASH).
const RING_NOAESNI: Patch = Patch {
    krate: "ring",
    file: "src/cpu/intel.rs",
    lines: &RING_PATCH,
    hides: "AES-NI, PCLMULQDQ, VAES and VPCLMULQDQ",
};

/// ring without VAES and VPCLMULQDQ (its AES-NI path): the second line of
/// [`RING_PATCH`] alone.
const RING_NOVAES: Patch = Patch {
    krate: "ring",
    file: "src/cpu/intel.rs",
    lines: RING_PATCH.split_at(1).1,
    hides: "VAES and VPCLMULQDQ",
};

/// RustCrypto `aes` whose AVX-512 VAES check always fails, so it runs its
/// 256-bit `x86_vaes256` backend on an AVX-512 CPU: the token module the
/// `cpufeatures::new!` line would make, answering no.
const AES_VAES256: Patch = Patch {
    krate: "aes",
    file: "src/lib.rs",
    lines: &[(
        "        cpufeatures::new!(features_vaes512, \"avx512f\", \"vaes\");\n",
        "        mod features_vaes512 { #[derive(Clone, Copy)] pub struct InitToken; \
         impl InitToken { pub fn init() -> Self { InitToken } pub fn get(&self) -> bool { false } } }\n",
    )],
    hides: "AVX-512",
};

/// Make (once) the scratch workspace `dir/<name>` that builds `speed`
/// against a patched copy of a peer's crates.io source (the version in
/// `Cargo.lock`) with benches' `test-hooks`; returns its manifest.
fn patched_workspace(dir: &Path, name: &str, patch: &Patch) -> Result<PathBuf, String> {
    let Patch {
        krate,
        file,
        lines,
        hides,
    } = patch;
    let version = locked_version(krate)?;
    let copy = dir.join(format!("{krate}-{version}"));
    let stamp = copy.join(".speed-patched");
    if !stamp.exists() {
        let src = registry_source(&format!("{krate}-{version}"))?;
        if copy.exists() {
            std::fs::remove_dir_all(&copy)
                .map_err(|e| format!("cannot remove {}: {e}", copy.display()))?;
        }
        copy_dir(&src, &copy)?;
        let path = copy.join(file);
        let mut text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        for (from, to) in lines.iter() {
            if text.matches(from).count() != 1 {
                return Err(format!(
                    "{krate} {version}'s {file} does not have exactly one line {:?}: \
                     its CPU detection changed, update the patch in xtask/src/speed.rs",
                    from.trim()
                ));
            }
            text = text.replacen(from, to, 1);
        }
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        std::fs::write(&stamp, format!("{hides} hidden\n"))
            .map_err(|e| format!("cannot write {}: {e}", stamp.display()))?;
    }
    let root = root();
    let toml_path = |p: &Path| p.display().to_string().replace('\\', "/");
    let manifest = format!(
        r#"# Written by cargo xtask speed: `speed` against {krate} with {hides}
# hidden from its CPU detection (a patched scratch copy).
[package]
name = "{name}"
version = "0.0.0"
edition = "2024"
publish = false

[[bin]]
name = "speed"
path = "{bin}"

# The crates the binary names itself, besides benches.
[dependencies]
benches = {{ path = "{benches}", features = ["test-hooks"] }}
aes-ct = {{ path = "{aes_ct}" }}
ghash-ct = {{ path = "{ghash_ct}" }}

[patch.crates-io]
{krate} = {{ path = "{krate}-{version}" }}

[profile.release]
opt-level = 3
codegen-units = 1
lto = "thin"
debug = false

[workspace]
"#,
        bin = toml_path(&root.join("benches/src/bin/speed.rs")),
        benches = toml_path(&root.join("benches")),
        aes_ct = toml_path(&root.join("aes-ct")),
        ghash_ct = toml_path(&root.join("ghash-ct")),
    );
    let path = dir.join("Cargo.toml");
    if std::fs::read_to_string(&path).ok().as_deref() != Some(manifest.as_str()) {
        std::fs::write(&path, manifest)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    // Start from the workspace's versions of everything else.
    let lock = dir.join("Cargo.lock");
    if !lock.exists() {
        std::fs::copy(root.join("Cargo.lock"), &lock)
            .map_err(|e| format!("cannot copy Cargo.lock: {e}"))?;
    }
    Ok(path)
}

/// The version of `name` in the workspace's `Cargo.lock` (the only one).
fn locked_version(name: &str) -> Result<String, String> {
    let lock = std::fs::read_to_string(root().join("Cargo.lock"))
        .map_err(|e| format!("cannot read Cargo.lock: {e}"))?;
    let entry = format!("name = \"{name}\"\nversion = \"");
    let mut versions = lock.match_indices(&entry).filter_map(|(i, _)| {
        let rest = &lock[i + entry.len()..];
        Some(rest[..rest.find('"')?].to_owned())
    });
    match (versions.next(), versions.next()) {
        (Some(v), None) => Ok(v),
        (None, _) => Err(format!("{name} is not in Cargo.lock")),
        (Some(_), Some(_)) => Err(format!("Cargo.lock has {name} more than once")),
    }
}

/// `$CARGO_HOME/registry/src/<index>/<dir>` (the unpacked crates.io
/// source the first build used).
fn registry_source(dir: &str) -> Result<PathBuf, String> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .ok_or("neither CARGO_HOME nor HOME is set")?;
    let src = home.join("registry").join("src");
    let entries =
        std::fs::read_dir(&src).map_err(|e| format!("cannot list {}: {e}", src.display()))?;
    entries
        .filter_map(Result::ok)
        .map(|e| e.path().join(dir))
        .find(|p| p.join("Cargo.toml").is_file())
        .ok_or_else(|| format!("no {dir} under {} (cargo fetch fetches it)", src.display()))
}

fn copy_dir(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::create_dir_all(to).map_err(|e| format!("cannot create {}: {e}", to.display()))?;
    let entries =
        std::fs::read_dir(from).map_err(|e| format!("cannot list {}: {e}", from.display()))?;
    for e in entries {
        let e = e.map_err(|e| format!("cannot list {}: {e}", from.display()))?;
        let (src, dst) = (e.path(), to.join(e.file_name()));
        let kind = e
            .file_type()
            .map_err(|e| format!("{}: {e}", src.display()))?;
        if kind.is_dir() {
            copy_dir(&src, &dst)?;
        } else {
            std::fs::copy(&src, &dst).map_err(|e| format!("cannot copy {}: {e}", src.display()))?;
        }
    }
    Ok(())
}
