//! `cargo xtask package`: every publishable crate packaged and built from
//! its package, as `cargo publish` would (a step of `cargo xtask test`).
//!
//! `cargo package` of all of them at once packages the crates in
//! dependency order and builds each package against the packages before it
//! (cargo stands in a local registry for the not yet published ones), so a
//! missing version on a path dependency, a file the build needs but the
//! package leaves out, or a wrong publish order fails here. It runs
//! offline after a `cargo fetch` of the lock file, so it needs the network
//! no more than the builds before it: `cargo publish --dry-run` checks the
//! same and also asks crates.io over HTTP, for nothing the build needs.
//! Cargo reuses what it unpacked and built from a registry crate of the same
//! name and version, so earlier packages of the same version must not stand
//! in for these: their unpacked copies are deleted first, and the packages
//! build in a target folder of their own, deleted before and after.
//! Then each package's file list must hold its README and both licence texts, and
//! nothing from `tests/` or `examples/` (test data stays in the
//! repository; crates.io and docs.rs get only sources and docs), and the
//! README must not link out of the crate folder (crates.io shows it alone).

use crate::util::{cargo, output, root, run};
use std::path::{Path, PathBuf};

/// The published crates, in dependency order.
pub const CRATES: &[(&str, &str)] = &[
    ("ct-dispatch", "ct-dispatch"),
    ("aes-ct", "aes-ct"),
    ("ghash-ct", "ghash-ct"),
    ("aes-gcm-ct", "aes-gcm-ct"),
    ("adiantum-ct", "adiantum"),
];

/// Cargo's home: `$CARGO_HOME`, else `~/.cargo`.
fn cargo_home() -> PathBuf {
    std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .unwrap_or_else(|| PathBuf::from(".cargo"))
}

/// Every unpacked copy of one of [`CRATES`] under `src` (cargo's
/// `registry/src`), whatever the version. Cargo unpacks the packages of the
/// local registry it stands in for the unpublished crates there, under a
/// folder named from the workspace path, and reuses an unpacked folder of
/// the same name and version without unpacking again: on a machine that
/// packaged the same version from the same path before (a CI runner with a
/// kept cargo home), the later crates would be built against the earlier
/// sources. Deleting them is safe for any registry: cargo unpacks again
/// from its archive.
fn unpacked_copies(src: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(registries) = std::fs::read_dir(src) else {
        return found;
    };
    for registry in registries.flatten() {
        let Ok(entries) = std::fs::read_dir(registry.path()) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let ours = CRATES.iter().any(|(c, _)| {
                name.strip_prefix(c)
                    .and_then(|v| v.strip_prefix('-'))
                    .is_some_and(|v| v.starts_with(|d: char| d.is_ascii_digit()))
            });
            if ours {
                found.push(entry.path());
            }
        }
    }
    found.sort();
    found
}

pub fn main(args: &[String]) -> Result<(), String> {
    if let Some(a) = args.first() {
        if a == "-h" || a == "--help" {
            println!(
                "usage: cargo xtask package\n\ncargo package of every published crate (each built against the ones before it), then checks of each package's files ({})",
                CRATES.iter().map(|c| c.0).collect::<Vec<_>>().join(", ")
            );
            return Ok(());
        }
        return Err(format!("unknown argument `{a}` (see --help)"));
    }
    // Uncommitted changes are what a developer wants checked before they
    // commit; CI's clone is clean anyway.
    run(cargo().arg("fetch"))?;
    for stale in unpacked_copies(&cargo_home().join("registry").join("src")) {
        std::fs::remove_dir_all(&stale).map_err(|e| format!("{}: {e}", stale.display()))?;
    }
    // A fresh target folder: cargo tells a registry crate's build apart by
    // name and version only, so a kept build of an earlier package of the
    // same version would stand in for the new one.
    let verify_dir = crate::util::target_dir().join("package-verify");
    let _ = std::fs::remove_dir_all(&verify_dir);
    let mut package = cargo();
    package.env("CARGO_TARGET_DIR", &verify_dir);
    package.args(["package", "--offline", "--allow-dirty"]);
    for (name, _) in CRATES {
        package.args(["-p", name]);
    }
    let packaged = run(&mut package);
    let _ = std::fs::remove_dir_all(&verify_dir);
    packaged?;
    let mut problems = Vec::new();
    for (name, dir) in CRATES {
        let list = output(cargo().args([
            "package",
            "--list",
            "--offline",
            "--allow-dirty",
            "-p",
            name,
        ]))?;
        let files: Vec<&str> = list.lines().map(str::trim).collect();
        for want in ["README.md", "LICENSE-MIT", "LICENSE-APACHE", "src/lib.rs"] {
            if !files.contains(&want) {
                problems.push(format!("{name}: the package has no {want}"));
            }
        }
        for f in &files {
            if f.starts_with("tests/") || f.starts_with("examples/") {
                problems.push(format!("{name}: the package holds {f}"));
            }
        }
        let readme = root().join(dir).join("README.md");
        let text =
            std::fs::read_to_string(&readme).map_err(|e| format!("{}: {e}", readme.display()))?;
        if text.contains("](../") || text.contains("](/") {
            problems.push(format!(
                "{name}: README.md links outside the crate folder, which crates.io cannot show"
            ));
        }
        println!("{name}: {} files packaged", files.len());
    }
    if problems.is_empty() {
        println!(
            "package: {} crates package and build from their packages",
            CRATES.len()
        );
        Ok(())
    } else {
        Err(problems.join("\n  "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_unpacked_copies_of_our_crates_are_found() {
        let src = std::env::temp_dir().join(format!("xtask-unpacked-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&src);
        let made = [
            "-22c3805da5a543b4/aes-ct-0.1.0",
            "-22c3805da5a543b4/ct-dispatch-0.1.0",
            "-14cd1cce6819ff87/aes-gcm-ct-0.2.0-rc.1",
            "index.crates.io-1949cf8c6b5b557f/aes-0.8.4",
            "index.crates.io-1949cf8c6b5b557f/aes-ct-helper-1.0.0",
            "index.crates.io-1949cf8c6b5b557f/ghash-0.5.1",
        ];
        for m in made {
            std::fs::create_dir_all(src.join(m)).unwrap();
        }
        let found: Vec<String> = unpacked_copies(&src)
            .iter()
            .map(|p| p.strip_prefix(&src).unwrap().to_string_lossy().into_owned())
            .collect();
        std::fs::remove_dir_all(&src).unwrap();
        assert_eq!(
            found,
            [
                "-14cd1cce6819ff87/aes-gcm-ct-0.2.0-rc.1",
                "-22c3805da5a543b4/aes-ct-0.1.0",
                "-22c3805da5a543b4/ct-dispatch-0.1.0",
            ]
        );
        assert!(
            unpacked_copies(&src).is_empty(),
            "a missing folder holds none"
        );
    }
}
