//! Build-script half of a dispatch table: the backend names are read from
//! the crate's own table (`src/backend.rs`, the lines `Variant => path,
//! "name", ...`), so they are written once. [`backend_cfg`] declares them
//! as the values of the crate's `--cfg <crate>_backend="NAME"` (for the
//! `unexpected_cfgs` lint) and refuses a forced name that is not one of
//! them: an unknown name would otherwise narrow nothing, silently.
//!
//! Only for build scripts (the `build` feature; it needs `std`).

extern crate std;

use std::string::{String, ToString};
use std::vec::Vec;

/// The backend names of a dispatch table's source, in table order: the
/// first string literal after `=>` on each line that has one.
pub fn table_names(source: &str) -> Vec<String> {
    source
        .lines()
        .filter_map(|l| {
            let code = l.split("//").next()?;
            let after = code.split_once("=>")?.1;
            let start = after.find('"')? + 1;
            let len = after[start..].find('"')?;
            Some(after[start..start + len].to_string())
        })
        .collect()
}

/// Whether every forced name (`,`-separated, as cargo joins the values of
/// a cfg in `CARGO_CFG_<NAME>`) is one of `names`; `Err` names the first
/// one that is not.
pub fn check_forced(forced: &str, names: &[String]) -> Result<(), String> {
    match forced.split(',').find(|f| !names.iter().any(|n| n == f)) {
        Some(bad) => Err(bad.to_string()),
        None => Ok(()),
    }
}

/// For `build.rs`: declare `cfg(<cfg>, values(...))` from the table in
/// `src/backend.rs` and panic (a compile error that says what to use) if
/// `--cfg <cfg>="NAME"` names no backend of it.
pub fn backend_cfg(cfg: &str) {
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("run from a build script");
    let path = std::path::Path::new(&dir).join("src/backend.rs");
    let source =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let names = table_names(&source);
    assert!(
        !names.is_empty(),
        "no backend names found in {}",
        path.display()
    );
    std::println!("cargo::rerun-if-changed=src/backend.rs");
    let values: Vec<String> = names.iter().map(|n| std::format!("\"{n}\"")).collect();
    std::println!(
        "cargo::rustc-check-cfg=cfg({cfg}, values(none(), {}))",
        values.join(", ")
    );
    let var = std::format!("CARGO_CFG_{}", cfg.to_uppercase());
    if let Ok(forced) = std::env::var(&var)
        && let Err(bad) = check_forced(&forced, &names)
    {
        panic!(
            "--cfg {cfg}=\"{bad}\" names no backend of this crate; the names are: {}",
            names.join(", ")
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_come_from_the_table_lines() {
        let src = r#"
backends! {
    #[cfg(target_arch = "x86_64")]
    Vaes => crate::x86::vaes::Vaes, "vaes", "VAES (x86).";
    // Old => crate::old::Old, "old", "commented out";
    Soft => crate::soft::Soft, "soft",
        "Portable.";
}
fn f() { match x { A => "not a table line" } }
"#;
        // The match arm's string is taken too: tables live in backend.rs,
        // whose other `=>` lines carry no string literal (checked by each
        // crate's test that compares the names with `Backend::ALL`).
        assert_eq!(table_names(src), ["vaes", "soft", "not a table line"]);
    }

    #[test]
    fn forced_names_are_checked() {
        let names: Vec<String> = ["vaes", "soft"].iter().map(|s| s.to_string()).collect();
        assert_eq!(check_forced("soft", &names), Ok(()));
        assert_eq!(check_forced("vaes,soft", &names), Ok(()));
        assert_eq!(check_forced("neon", &names), Err("neon".to_string()));
        assert_eq!(check_forced("soft,neon", &names), Err("neon".to_string()));
    }
}
