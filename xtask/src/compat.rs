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
//!   published crate copied as it is.
//!
//! A facade's own unit tests (in its `src/`) run with upstream's tests of
//! it, since the scratch copy's library is the facade's source; they are
//! counted apart.
//!
//! Each generation's suites are the members of one scratch workspace
//! (`<target>/compat/v0.8/`, ...) whose root adds only the
//! `[patch.crates-io]` section naming that generation's facades (the facade
//! copies with upstream's tests stand in for their facade there, so one
//! package of each name is in the graph) and a debug profile with
//! `opt-level = 1`: one resolution, one feature set, so each library builds
//! once per generation, all in `<target>/compat/target`. Before any test,
//! `cargo metadata` must show no registry copy of a facade crate left in
//! the graph (a patch cargo ignored would test upstream's code) and every
//! dependent depending on a facade. The tests then run in one `cargo test`;
//! each result line is counted for the suite whose executable (from
//! cargo's JSON build messages) or doctests it follows. Every suite must
//! run at least one test; the counts are printed.
//!
//! First rustfmt and clippy (warnings denied) on the facades' workspaces.

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
    /// `Dependent`), comma-separated; empty: the defaults.
    features: &'static str,
}

/// The facades of each generation (folder names = crate names).
const GENERATIONS: &[(&str, &[&str])] = &[
    ("v0.8", &["aes", "ghash", "polyval", "aes-gcm"]),
    ("v0.9", &["aes", "ghash", "aes-gcm"]),
];

const SUITES: &[Suite] = &[
    Suite {
        name: "aes",
        version: "0.8.4",
        kind: Kind::Upstream,
        generation: "v0.8",
        features: "zeroize,hazmat",
    },
    Suite {
        name: "ghash",
        version: "0.5.1",
        kind: Kind::Upstream,
        generation: "v0.8",
        features: "std,zeroize",
    },
    Suite {
        name: "polyval",
        version: "0.6.2",
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
        features: "zeroize,hazmat",
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
    // RustCrypto's AES-GCM-SIV (cipher 0.4, aead 0.5): a dependent of both
    // `aes` 0.8 and `polyval` 0.6.
    Suite {
        name: "aes-gcm-siv",
        version: "0.11.1",
        kind: Kind::Dependent,
        generation: "v0.8",
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

/// Run only with `cargo xtask compat --extended` (not in `cargo xtask
/// test`): `age`'s suite builds criterion, tokio and pprof among ~250
/// crates, minutes beyond this step's budget.
const EXTENDED: &[Suite] = &[
    // A third-party user of `aes` 0.8 (through `ctr` 0.9 and `cbc` 0.1) and
    // `aes-gcm` 0.10 for encrypted SSH keys (feature `ssh`); its test
    // vectors include such keys.
    Suite {
        name: "age",
        version: "0.11.5",
        kind: Kind::Dependent,
        generation: "v0.8",
        features: "ssh",
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
/// source folder (in cargo's registry cache), in the order given.
fn fetch(suites: &[&Suite]) -> Result<Vec<PathBuf>, String> {
    let dir = scratch().join("fetch");
    fs::create_dir_all(dir.join("src")).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut manifest = String::from(
        "# Written by `cargo xtask compat`: fetches the crates whose tests it runs.\n\
         [package]\nname = \"compat-fetch\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
         publish = false\n\n[workspace]\n\n[dependencies]\n",
    );
    for (i, s) in suites.iter().enumerate() {
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
    suites
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

/// The scratch folder of suite `s` inside its generation's workspace.
fn member_dir(s: &Suite) -> PathBuf {
    scratch()
        .join(s.generation)
        .join(format!("{}-{}", s.name, s.version))
}

/// Where `generation`'s facade `name` is built from in the scratch
/// workspace: the scratch copy that carries upstream's tests when there is
/// one (one package of that name in the graph), else the facade itself.
fn facade_source(generation: &str, name: &str) -> PathBuf {
    SUITES
        .iter()
        .find(|s| s.generation == generation && s.kind == Kind::Upstream && s.name == name)
        .map(member_dir)
        .unwrap_or_else(|| compat_dir().join(generation).join(name))
}

/// Our facade's manifest as the manifest of a scratch package in another
/// folder: relative paths made absolute (a sibling facade's to its scratch
/// copy), the library pointing at the facade's `src/`, the workspace's
/// configuration-flag lints inlined, upstream's dev-dependencies added.
fn facade_manifest(s: &Suite, upstream_manifest: &str) -> Result<String, String> {
    let facade = compat_dir().join(s.generation).join(s.name);
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
        let mut line = line.replace("path = \"", &format!("path = \"{}/", facade.display()));
        for (name, _) in facades(s.generation) {
            let sibling = format!("{}/../{name}\"", facade.display());
            let to = format!("{}\"", facade_source(s.generation, name).display());
            line = line.replace(&sibling, &to);
        }
        out.push_str(&line);
        out.push('\n');
    }
    out.push_str(&format!(
        "\n[lib]\npath = \"{}/src/lib.rs\"\n\n# Upstream's, unchanged:\n",
        facade.display()
    ));
    out.push_str(&dev_dependency_sections(upstream_manifest));
    Ok(out)
}

/// Write suite `s`'s member folder (upstream source in `src`).
fn prepare(s: &Suite, src: &Path) -> Result<(), String> {
    let dir = member_dir(s);
    let upstream = fs::read_to_string(src.join("Cargo.toml"))
        .map_err(|e| format!("{}: {e}", src.display()))?;
    match s.kind {
        Kind::Upstream => {
            copy_tree(&src.join("tests"), &dir.join("tests"))?;
            write(&dir.join("Cargo.toml"), &facade_manifest(s, &upstream)?)?;
        }
        Kind::Dependent => {
            // As published; the workspace root adds the `[patch]`.
            copy_tree(src, &dir)?;
            // A lockfile shipped in the package would pin upstream's graph.
            let _ = fs::remove_file(dir.join("Cargo.lock"));
            // Some doctests write to `target/` beside the manifest, where
            // cargo's default target folder would be.
            fs::create_dir_all(dir.join("target"))
                .map_err(|e| format!("{}: {e}", dir.display()))?;
        }
    }
    Ok(())
}

/// The workspace of `generation`'s suites: its members, one debug profile
/// with `opt-level = 1`, and the `[patch.crates-io]` section naming the
/// facades. One workspace, so one resolution and one feature set: each
/// library builds once for all the generation's suites.
fn workspace(generation: &str, sources: &[(&Suite, &PathBuf)]) -> Result<PathBuf, String> {
    let root = scratch().join(generation);
    if root.exists() {
        fs::remove_dir_all(&root).map_err(|e| format!("{}: {e}", root.display()))?;
    }
    let mut members = Vec::new();
    for (s, src) in sources {
        prepare(s, src)?;
        members.push(format!("\"{}-{}\"", s.name, s.version));
    }
    let mut m = format!(
        "# Written by `cargo xtask compat`.\n[workspace]\nresolver = \"2\"\nmembers = [{}]\n\n\
         [profile.dev]\nopt-level = 1\ndebug = false\nincremental = false\n\n[patch.crates-io]\n",
        members.join(", ")
    );
    for (name, _) in facades(generation) {
        m.push_str(&format!(
            "{name} = {{ path = \"{}\" }}\n",
            facade_source(generation, name).display()
        ));
    }
    write(&root.join("Cargo.toml"), &m)?;
    Ok(root.join("Cargo.toml"))
}

/// The folder of a path package id (`path+file://<dir>#...`).
fn id_dir(id: &str) -> Option<&str> {
    id.strip_prefix("path+file://")?.split('#').next()
}

/// Every facade crate in the generation's resolved graph (dev dependencies
/// included) must come from us, none from a registry; and each dependent
/// suite must depend on at least one of them (else nothing of ours would
/// be tested). Returns, per suite, the facades it uses directly.
fn check_patched(
    generation: &str,
    manifest: &Path,
    suites: &[&Suite],
    features: &[String],
) -> Result<Vec<Vec<&'static str>>, String> {
    let mut m = cargo();
    m.args(["metadata", "--format-version", "1", "--manifest-path"])
        .arg(manifest);
    // The features the tests run with (optional dependencies included).
    if !features.is_empty() {
        m.args(["--features", &features.join(",")]);
    }
    let meta = output(&mut m)?;
    let ours: Vec<(&str, String)> = facades(generation)
        .into_iter()
        .map(|(n, _)| {
            (
                n,
                format!("path+file://{}#", facade_source(generation, n).display()),
            )
        })
        .collect();
    for (name, _) in &ours {
        for (i, _) in meta.match_indices(&format!("#{name}@")) {
            let start = meta[..i].rfind('"').map_or(0, |p| p + 1);
            if !meta[start..].starts_with("path+file://") {
                return Err(format!(
                    "compat/{generation}: the graph still holds `{name}` from {} (a [patch] did not apply)",
                    &meta[start..i]
                ));
            }
        }
    }
    let resolve = meta.find("\"resolve\":").map_or("", |i| &meta[i..]);
    suites
        .iter()
        .map(|s| {
            let dir = member_dir(s);
            let node = format!("{{\"id\":\"path+file://{}#", dir.display());
            let deps = resolve
                .find(&node)
                .and_then(|i| {
                    let rest = &resolve[i..];
                    let d = rest.find("\"dependencies\":[")?;
                    let end = rest[d..].find(']')?;
                    Some(&rest[d..d + end])
                })
                .ok_or(format!("cargo metadata has no resolve node for {}", dir.display()))?;
            let used: Vec<&'static str> = ours
                .iter()
                .filter(|(_, prefix)| deps.contains(prefix.as_str()))
                .map(|(n, _)| *n)
                .collect();
            if s.kind == Kind::Dependent && used.is_empty() {
                return Err(format!(
                    "{}-{}: no facade of compat/{generation} among its dependencies: nothing of ours would be tested",
                    s.name, s.version
                ));
            }
            Ok(used)
        })
        .collect()
}

/// Sum of the `N passed` counts of one cargo test result line; error on a
/// failure count.
fn passed(line: &str) -> Result<usize, String> {
    let field = |what: &str| -> usize {
        line.split(['.', ';'])
            .find_map(|part| part.trim().strip_suffix(what)?.trim().parse().ok())
            .unwrap_or(0)
    };
    if field("failed") > 0 || line.contains("FAILED") {
        return Err(format!("failing tests: {line}"));
    }
    Ok(field("passed"))
}

/// Test executables of the workspace (`cargo test --no-run`'s artifacts),
/// each with the folder of its package.
fn test_executables(
    manifest: &Path,
    target: &Path,
    features: &[String],
) -> Result<Vec<(String, String)>, String> {
    let mut build = cargo();
    build
        .env("CARGO_TARGET_DIR", target)
        .args([
            "test",
            "--workspace",
            "--no-run",
            "--message-format=json-render-diagnostics",
            "--manifest-path",
        ])
        .arg(manifest);
    if !features.is_empty() {
        build.args(["--features", &features.join(",")]);
    }
    println!("$ {}", crate::util::show(&build));
    let json = output(&mut build)?;
    let mut exes = Vec::new();
    for line in json
        .lines()
        .filter(|l| l.contains("\"reason\":\"compiler-artifact\""))
    {
        let field = |key: &str| -> Option<String> {
            let k = format!("\"{key}\":\"");
            let i = line.find(&k)? + k.len();
            Some(line[i..i + line[i..].find('"')?].to_string())
        };
        if let (Some(id), Some(exe)) = (field("package_id"), field("executable")) {
            let dir = id_dir(&id)
                .ok_or(format!("not a path package: {id}"))?
                .to_string();
            exes.push((dir, exe));
        }
    }
    Ok(exes)
}

pub fn main(args: &[String]) -> Result<(), String> {
    let extended = match args {
        [] => false,
        [a] if a == "--extended" => true,
        _ => {
            return Err(format!(
                "usage: cargo xtask compat [--extended] (got `{}`)",
                args.join(" ")
            ));
        }
    };
    let all: Vec<&Suite> = SUITES
        .iter()
        .chain(if extended { EXTENDED } else { &[] })
        .collect();
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
    let sources = fetch(&all)?;
    let mut report = Vec::new();
    for (g, _) in GENERATIONS {
        let suites: Vec<(&Suite, &PathBuf)> = all
            .iter()
            .copied()
            .zip(&sources)
            .filter(|(s, _)| s.generation == *g)
            .collect();
        let manifest = workspace(g, &suites)?;
        let list: Vec<&Suite> = suites.iter().map(|(s, _)| *s).collect();
        let features: Vec<String> = list
            .iter()
            .flat_map(|s| {
                s.features
                    .split(',')
                    .filter(|f| !f.is_empty())
                    .map(move |f| format!("{}/{f}", s.name))
            })
            .collect();
        let used = check_patched(g, &manifest, &list, &features)?;

        // Build everything once (the executables' packages from cargo's
        // JSON messages), then one `cargo test` run of the workspace, both
        // streams to one file so each result line follows the `Running
        // <exe>` or `Doc-tests <crate>` line (stderr) it belongs to.
        let exes = test_executables(&manifest, &target, &features)?;
        let suite_of_dir = |dir: &str| {
            list.iter()
                .position(|s| member_dir(s).display().to_string() == dir)
        };
        let log = scratch().join(format!("{g}-test.log"));
        let file = fs::File::create(&log).map_err(|e| format!("{}: {e}", log.display()))?;
        let file2 = file.try_clone().map_err(|e| e.to_string())?;
        let mut test = cargo();
        // Plain text: the lines below are matched by their words, and CI
        // asks for colour (`CARGO_TERM_COLOR=always`), which wraps
        // `Running` and `Doc-tests` in escape sequences.
        test.env("CARGO_TARGET_DIR", &target)
            .env("CARGO_TERM_COLOR", "never")
            .args(["test", "--workspace", "--no-fail-fast", "--manifest-path"])
            .arg(&manifest);
        if !features.is_empty() {
            test.args(["--features", &features.join(",")]);
        }
        println!("$ {}", crate::util::show(&test));
        let status = test
            .stdout(file)
            .stderr(file2)
            .status()
            .map_err(|e| format!("cannot start cargo: {e}"))?;
        let text = fs::read_to_string(&log).map_err(|e| format!("{}: {e}", log.display()))?;
        print!("{text}");
        let mut counts = vec![0usize; list.len()];
        let mut failures = Vec::new();
        let mut own_counts = vec![0usize; list.len()];
        let mut current = None;
        let mut own = false;
        for line in text.lines() {
            let l = line.trim();
            if let Some(krate) = l.strip_prefix("Doc-tests ") {
                own = false;
                current = list
                    .iter()
                    .position(|s| s.name.replace('-', "_") == krate.trim());
            } else if l.starts_with("Running ") {
                // By file name: cargo prints the path relative to the
                // working directory when the target folder is given
                // relative, its JSON messages give it absolute; the name
                // carries the build's hash.
                let name = |p: &str| std::path::Path::new(p).file_name().map(|n| n.to_owned());
                let exe = l.rsplit_once('(').map(|(_, e)| e.trim_end_matches(')'));
                current = exe
                    .and_then(|e| exes.iter().find(|(_, x)| name(x) == name(e)))
                    .and_then(|(dir, _)| suite_of_dir(dir));
                // An upstream suite's library unit tests are the facade's
                // own (its `src/`), counted apart from upstream's.
                own = current.is_some_and(|i| list[i].kind == Kind::Upstream)
                    && l.starts_with("Running unittests ");
            } else if l.starts_with("test result: ") {
                match (passed(l), current) {
                    (Ok(n), Some(i)) if own => own_counts[i] += n,
                    (Ok(n), Some(i)) => counts[i] += n,
                    (Ok(_), None) => failures.push(format!("a result of no known suite: {l}")),
                    (Err(e), _) => failures.push(e),
                }
            }
        }
        if !status.success() {
            failures.push(format!("compat/{g}: cargo test failed ({status})"));
        }
        if !failures.is_empty() {
            return Err(failures.join("\n  "));
        }
        for (((s, n), own), used) in list.iter().zip(&counts).zip(&own_counts).zip(&used) {
            let what = match s.kind {
                Kind::Upstream => format!(
                    "upstream {}-{} tests on compat/{g}/{}",
                    s.name, s.version, s.name
                ),
                Kind::Dependent => format!(
                    "{}-{}'s own tests with [patch] {}",
                    s.name,
                    s.version,
                    used.join(", ")
                ),
            };
            if *n == 0 {
                return Err(format!("{what}: no test ran"));
            }
            if *own > 0 {
                report.push(format!("{what}: {n} passed (and the facade's own: {own})"));
            } else {
                report.push(format!("{what}: {n} passed"));
            }
        }
    }
    println!("\ncompat suites:");
    for r in &report {
        println!("  {r}");
    }
    // In CI the later (cross) steps need the disk more than a warm cache.
    if crate::util::in_ci() {
        let _ = fs::remove_dir_all(&target);
    }
    Ok(())
}
