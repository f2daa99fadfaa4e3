//! `cargo xtask compat` (a step of `cargo xtask test`): other people's tests
//! against the facade crates in `compat/` (`compat/README.md`).
//!
//! Nothing of theirs is kept in this repository: each run takes the
//! published crates from crates.io through cargo itself (a scratch package
//! depending on `=version` of each, then `cargo fetch` and `cargo metadata`
//! to find their unpacked sources in cargo's registry cache), into
//! `<target>/compat/`. Two kinds of suite:
//!
//! * **upstream's own tests** of a crate we replace (`aes` 0.8.4, ...): a
//!   scratch copy of OUR facade's manifest (paths made absolute, the
//!   library pointing at the facade's `src/`) with upstream's `tests/`
//!   folder and upstream's `[dev-dependencies]` sections added, unchanged;
//! * **a dependent's own tests** (`ctr`, `cbc`, a third-party crate): the
//!   published crate copied as it is, with only a `[patch.crates-io]`
//!   section naming the generation's facades added to its manifest. Before
//!   its tests count, `cargo metadata` must show every facade it uses
//!   coming from `compat/` and no registry copy of that crate left in its
//!   graph (a patch cargo ignored would test upstream's code).
//!
//! First rustfmt and clippy (warnings denied) on the facades' workspaces.
//! Each suite must run at least one test; the counts are printed. One
//! target folder (`<target>/compat/target`) and one debug profile with
//! `opt-level = 1` for all of them, so shared dependencies build once.

use crate::util::{cargo, output, run, target_dir};
use std::fs;
use std::path::{Path, PathBuf};

/// Where a suite's tests come from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Upstream's `tests/` run against our facade of the same crate.
    Upstream,
    /// The crate's own tests, unchanged, with our facades patched in.
    Dependent,
}

/// One suite: a published crate, and which facade generation it runs on.
struct Suite {
    name: &'static str,
    version: &'static str,
    kind: Kind,
    /// `compat/<generation>/` holds the facades this suite uses.
    generation: &'static str,
    /// Features to turn on (of our facade for `Upstream`, of the crate for
    /// `Dependent`); empty: the defaults.
    features: &'static str,
}

/// The facades of each generation (folder names = crate names).
const GENERATIONS: &[(&str, &[&str])] = &[
    ("v0.8", &["aes", "ghash", "aes-gcm"]),
    ("v0.9", &["aes", "ghash", "aes-gcm"]),
];

const SUITES: &[Suite] = &[
    Suite {
        name: "aes",
        version: "0.8.4",
        kind: Kind::Upstream,
        generation: "v0.8",
        features: "zeroize",
    },
    Suite {
        name: "ghash",
        version: "0.5.1",
        kind: Kind::Upstream,
        generation: "v0.8",
        features: "std,zeroize",
    },
    Suite {
        name: "aes-gcm",
        version: "0.10.3",
        kind: Kind::Upstream,
        generation: "v0.8",
        features: "std,stream,heapless",
    },
    // RustCrypto's CTR and CBC modes (cipher 0.4) over our `aes` 0.8: their
    // tests use `aes` as a dev-dependency.
    Suite {
        name: "ctr",
        version: "0.9.2",
        kind: Kind::Dependent,
        generation: "v0.8",
        features: "",
    },
    Suite {
        name: "cbc",
        version: "0.1.2",
        kind: Kind::Dependent,
        generation: "v0.8",
        features: "",
    },
    Suite {
        name: "aes",
        version: "0.9.4",
        kind: Kind::Upstream,
        generation: "v0.9",
        features: "zeroize",
    },
    Suite {
        name: "ghash",
        version: "0.6.0",
        kind: Kind::Upstream,
        generation: "v0.9",
        features: "zeroize",
    },
    Suite {
        name: "aes-gcm",
        version: "0.11.1",
        kind: Kind::Upstream,
        generation: "v0.9",
        features: "zeroize",
    },
    // The same modes' cipher 0.5 versions over our `aes` 0.9.
    Suite {
        name: "ctr",
        version: "0.10.1",
        kind: Kind::Dependent,
        generation: "v0.9",
        features: "",
    },
    Suite {
        name: "cbc",
        version: "0.2.1",
        kind: Kind::Dependent,
        generation: "v0.9",
        features: "",
    },
    // A third-party user of `aes-gcm` 0.10 (`Aes256Gcm` for its
    // containers); its tests include fixed ciphertexts.
    Suite {
        name: "cocoon",
        version: "0.4.3",
        kind: Kind::Dependent,
        generation: "v0.8",
        features: "",
    },
];

fn compat_dir() -> PathBuf {
    crate::util::root().join("compat")
}

fn scratch() -> PathBuf {
    target_dir().join("compat")
}

/// The facade crates of `generation`, as `(name, folder)`.
fn facades(generation: &str) -> Vec<(&'static str, PathBuf)> {
    GENERATIONS
        .iter()
        .filter(|(g, _)| *g == generation)
        .flat_map(|(g, names)| {
            names
                .iter()
                .map(move |n| (*n, compat_dir().join(g).join(n)))
        })
        .collect()
}

/// Fetch every suite's crate from crates.io; return each one's unpacked
/// source folder (in cargo's registry cache), in `SUITES` order.
fn fetch() -> Result<Vec<PathBuf>, String> {
    let dir = scratch().join("fetch");
    fs::create_dir_all(dir.join("src")).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut manifest = String::from(
        "# Written by `cargo xtask compat`: fetches the crates whose tests it runs.\n\
         [package]\nname = \"compat-fetch\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
         publish = false\n\n[workspace]\n\n[dependencies]\n",
    );
    for (i, s) in SUITES.iter().enumerate() {
        manifest.push_str(&format!(
            "s{i} = {{ package = \"{}\", version = \"={}\", default-features = false }}\n",
            s.name, s.version
        ));
    }
    write(&dir.join("Cargo.toml"), &manifest)?;
    write(&dir.join("src/lib.rs"), "")?;
    let m = dir.join("Cargo.toml");
    run(cargo().arg("fetch").arg("--manifest-path").arg(&m))?;
    let meta = output(
        cargo()
            .args(["metadata", "--format-version", "1", "--manifest-path"])
            .arg(&m),
    )?;
    SUITES
        .iter()
        .map(|s| {
            let tail = format!("/{}-{}/Cargo.toml\"", s.name, s.version);
            let end = meta.find(&tail).ok_or(format!(
                "cargo metadata does not list {}-{}",
                s.name, s.version
            ))?;
            let start = meta[..end].rfind('"').map_or(0, |p| p + 1);
            Ok(PathBuf::from(
                &meta[start..end + tail.len() - "/Cargo.toml\"".len()],
            ))
        })
        .collect()
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

fn copy_tree(from: &Path, to: &Path) -> Result<(), String> {
    fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    for entry in fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))? {
        let entry = entry.map_err(|e| e.to_string())?;
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        if src.is_dir() {
            copy_tree(&src, &dst)?;
        } else {
            fs::copy(&src, &dst).map_err(|e| format!("{}: {e}", src.display()))?;
        }
    }
    Ok(())
}

/// The sections of a (cargo-normalised) manifest whose header names
/// dev-dependencies, verbatim.
fn dev_dependency_sections(manifest: &str) -> String {
    let mut out = String::new();
    let mut keep = false;
    for line in manifest.lines() {
        if line.starts_with('[') {
            keep = line.contains("dev-dependencies");
        }
        if keep {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// `[patch.crates-io]` lines for `generation`'s facades (less `except`).
fn patch_section(generation: &str, except: &str) -> String {
    let mut s = String::from("\n[patch.crates-io]\n");
    for (name, dir) in facades(generation) {
        if name != except {
            s.push_str(&format!("{name} = {{ path = \"{}\" }}\n", dir.display()));
        }
    }
    s
}

/// Our facade's manifest as the manifest of a scratch package in another
/// folder: relative paths made absolute, the library and workspace lints
/// pointing at the facade, upstream's dev-dependencies added.
fn facade_manifest(facade: &Path, upstream_manifest: &str) -> Result<String, String> {
    let ours = fs::read_to_string(facade.join("Cargo.toml"))
        .map_err(|e| format!("{}: {e}", facade.display()))?;
    let workspace = fs::read_to_string(facade.join("../Cargo.toml"))
        .map_err(|e| format!("{}/../Cargo.toml: {e}", facade.display()))?;
    let mut out = String::from("# Written by `cargo xtask compat`.\n");
    for line in ours.lines() {
        // Of the workspace's lints, the configuration flags the facades
        // read (so they are not reported as unknown).
        if line == "[lints]" {
            out.push_str("[lints.rust]\n");
            for l in workspace
                .lines()
                .filter(|l| l.starts_with("unexpected_cfgs"))
            {
                out.push_str(l);
                out.push('\n');
            }
            continue;
        }
        if line == "workspace = true" {
            continue;
        }
        out.push_str(&line.replace("path = \"", &format!("path = \"{}/", facade.display())));
        out.push('\n');
    }
    out.push_str(&format!(
        "\n[lib]\npath = \"{}/src/lib.rs\"\n\n[workspace]\n\n[profile.dev]\nopt-level = 1\n\n\
         # Upstream's, unchanged:\n",
        facade.display()
    ));
    out.push_str(&dev_dependency_sections(upstream_manifest));
    Ok(out)
}

/// Prepare suite `s` (upstream source in `src`); return its manifest.
fn prepare(s: &Suite, src: &Path) -> Result<PathBuf, String> {
    let dir = scratch().join(format!("{}-{}", s.name, s.version));
    if dir.exists() {
        fs::remove_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let upstream = fs::read_to_string(src.join("Cargo.toml"))
        .map_err(|e| format!("{}: {e}", src.display()))?;
    match s.kind {
        Kind::Upstream => {
            let facade = compat_dir().join(s.generation).join(s.name);
            copy_tree(&src.join("tests"), &dir.join("tests"))?;
            write(
                &dir.join("Cargo.toml"),
                &facade_manifest(&facade, &upstream)?,
            )?;
        }
        Kind::Dependent => {
            copy_tree(src, &dir)?;
            // A lockfile shipped in the package would pin upstream's graph.
            let _ = fs::remove_file(dir.join("Cargo.lock"));
            let mut m = upstream;
            m.push_str(
                "\n# Added by `cargo xtask compat`:\n[workspace]\n\n[profile.dev]\nopt-level = 1\n",
            );
            m.push_str(&patch_section(s.generation, ""));
            write(&dir.join("Cargo.toml"), &m)?;
            // Some doctests write to `target/` beside the manifest, where
            // cargo's default target folder would be.
            fs::create_dir_all(dir.join("target"))
                .map_err(|e| format!("{}: {e}", dir.display()))?;
        }
    }
    Ok(dir.join("Cargo.toml"))
}

/// For a dependent: every facade crate in its resolved graph (dev
/// dependencies included) must come from `compat/`, none from a registry.
fn check_patched(s: &Suite, manifest: &Path) -> Result<Vec<&'static str>, String> {
    let meta = output(
        cargo()
            .args(["metadata", "--format-version", "1", "--manifest-path"])
            .arg(manifest),
    )?;
    let mut used = Vec::new();
    for (name, dir) in facades(s.generation) {
        // A path package's id: `path+file://<dir>#<version>`, or
        // `...#<name>@<version>` when the folder is named otherwise.
        let ours = format!("\"path+file://{}#", dir.display());
        let registry = meta
            .match_indices(&format!("#{name}@"))
            .filter(|(i, _)| {
                let start = meta[..*i].rfind('"').map_or(0, |p| p + 1);
                meta[start..].starts_with("registry+") || meta[start..].starts_with("sparse+")
            })
            .count();
        if registry > 0 {
            return Err(format!(
                "{}-{}: the graph still holds `{name}` from crates.io (the patch did not apply)",
                s.name, s.version
            ));
        }
        if meta.contains(&ours) {
            used.push(name);
        }
    }
    if used.is_empty() {
        return Err(format!(
            "{}-{}: no facade of compat/{} in its graph: nothing of ours would be tested",
            s.name, s.version, s.generation
        ));
    }
    Ok(used)
}

/// Sum of the `N passed` counts of cargo test's result lines; error on any
/// failure count.
fn passed(out: &str) -> Result<usize, String> {
    let mut total = 0;
    for line in out.lines().filter(|l| l.starts_with("test result: ")) {
        let n = |what: &str| -> usize {
            line.split(';')
                .find_map(|part| {
                    let part = part.trim().trim_start_matches("test result: ok.");
                    let part = part
                        .trim()
                        .trim_start_matches("test result: FAILED.")
                        .trim();
                    part.strip_suffix(what).and_then(|v| v.trim().parse().ok())
                })
                .unwrap_or(0)
        };
        if n("failed") > 0 {
            return Err(format!("failing tests: {line}"));
        }
        total += n("passed");
    }
    Ok(total)
}

pub fn main(args: &[String]) -> Result<(), String> {
    if let Some(a) = args.first() {
        return Err(format!(
            "`cargo xtask compat` takes no arguments (got `{a}`)"
        ));
    }
    let target = scratch().join("target");
    // The facades' own workspaces (outside the main one, so the main fmt
    // and clippy steps do not see them).
    for (g, names) in GENERATIONS {
        let m = compat_dir().join(g).join("Cargo.toml");
        // Members only: `--all` would take their path dependencies too.
        let mut fmt = cargo();
        fmt.args(["fmt", "--check", "--manifest-path"]).arg(&m);
        for n in *names {
            fmt.args(["-p", n]);
        }
        run(&mut fmt)?;
        run(cargo()
            .env("CARGO_TARGET_DIR", &target)
            .args(["clippy", "--workspace", "--all-targets", "--manifest-path"])
            .arg(&m)
            .args(["--", "-D", "warnings"]))?;
    }
    let sources = fetch()?;
    let mut report = Vec::new();
    for (s, src) in SUITES.iter().zip(&sources) {
        let manifest = prepare(s, src)?;
        let mut test = cargo();
        test.env("CARGO_TARGET_DIR", &target)
            .args(["test", "--no-fail-fast", "--manifest-path"])
            .arg(&manifest);
        if !s.features.is_empty() {
            test.args(["--features", s.features]);
        }
        let what = match s.kind {
            Kind::Upstream => format!(
                "upstream {}-{} tests on compat/{}/{}",
                s.name, s.version, s.generation, s.name
            ),
            Kind::Dependent => {
                // Resolve first (the test command writes the lockfile the
                // check reads the same way).
                let used = check_patched(s, &manifest)?;
                format!(
                    "{}-{}'s own tests with [patch] {}",
                    s.name,
                    s.version,
                    used.join(", ")
                )
            }
        };
        println!("\n== {what}");
        println!("$ {}", crate::util::show(&test));
        // Captured (for the counts) and then shown, also on failure.
        let res = test
            .stderr(std::process::Stdio::inherit())
            .output()
            .map_err(|e| format!("{what}: cannot start cargo: {e}"))?;
        let out = String::from_utf8_lossy(&res.stdout);
        print!("{out}");
        if !res.status.success() {
            return Err(format!("{what}: cargo test failed ({})", res.status));
        }
        let n = passed(&out).map_err(|e| format!("{what}: {e}"))?;
        if n == 0 {
            return Err(format!("{what}: no test ran"));
        }
        report.push(format!("{what}: {n} passed"));
    }
    println!("\ncompat suites:");
    for r in &report {
        println!("  {r}");
    }
    Ok(())
}
