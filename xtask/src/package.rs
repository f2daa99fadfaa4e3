//! `cargo xtask package`: every publishable crate through `cargo publish
//! --dry-run` (a step of `cargo xtask test`).
//!
//! `cargo publish --workspace --dry-run` packages the crates in dependency
//! order and builds each package against the packages before it (cargo
//! stands in a local registry for the not yet published ones), so a
//! missing version on a path dependency, a file the build needs but the
//! package leaves out, or a wrong publish order fails here. Then each
//! package's file list must hold its README and both licence texts, and
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
                "usage: cargo xtask package\n\ncargo publish --workspace --dry-run, then checks of each package's files ({})",
                CRATES.iter().map(|c| c.0).collect::<Vec<_>>().join(", ")
            );
            return Ok(());
        }
        return Err(format!("unknown argument `{a}` (see --help)"));
    }
    // Uncommitted changes are what a developer wants checked before they
    // commit; CI's clone is clean anyway.
    run(cargo().args(["publish", "--workspace", "--dry-run", "--allow-dirty"]))?;
    let mut problems = Vec::new();
    for (name, dir) in CRATES {
        let list = output(cargo().args(["package", "--list", "--allow-dirty", "-p", name]))?;
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
        println!("package: {} crates pass the publish dry run", CRATES.len());
        Ok(())
    } else {
        Err(problems.join("\n  "))
    }
}
