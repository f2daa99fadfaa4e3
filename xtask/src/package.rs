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
//! Then each package's file list must hold its README and both licence texts, and
//! nothing from `tests/` or `examples/` (test data stays in the
//! repository; crates.io and docs.rs get only sources and docs), and the
//! README must not link out of the crate folder (crates.io shows it alone).

use crate::util::{cargo, output, root, run};

/// The published crates, in dependency order.
pub const CRATES: &[(&str, &str)] = &[
    ("ct-dispatch", "ct-dispatch"),
    ("aes-ct", "aes-ct"),
    ("ghash-ct", "ghash-ct"),
    ("aes-gcm-ct", "aes-gcm-ct"),
    ("adiantum-ct", "adiantum"),
];

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
    let mut package = cargo();
    package.args(["package", "--offline", "--allow-dirty"]);
    for (name, _) in CRATES {
        package.args(["-p", name]);
    }
    run(&mut package)?;
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
