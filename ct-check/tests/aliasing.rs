//! Raw pointers into an `InOut`/`InOutBuf` come only from `into_raw`.
//!
//! For an in-place buffer the input and output are the same memory. A
//! pointer taken from `get_in()` (a shared reborrow) is invalidated, under
//! Rust's aliasing model, by the `get_out()` that follows; reading through
//! it afterwards is undefined behaviour, which no test observes and Miri
//! cannot check here (the kernels are NEON intrinsics and assembly). One
//! `into_raw` gives both pointers with the right provenance. This check
//! reads the library sources and fails on any raw pointer taken from
//! `get_in()` or `get_out()`; references from them are fine (the borrow
//! checker orders them).
//!
//! It found the pattern in the armv7/aarch64 vpaes and bsaes backends
//! (fixed first) and in the x86 `vaes` 512- and 256-bit batch functions.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Where `files` take a raw pointer from `get_in()`/`get_out()`: each
/// file without comments and whitespace (so a call chain split over lines
/// is seen), one entry per occurrence.
fn offending(files: &[PathBuf]) -> Vec<String> {
    let mut found = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(f).unwrap();
        let code: String = text
            .lines()
            .map(|l| l.split("//").next().unwrap_or(""))
            .flat_map(|l| l.chars())
            .filter(|c| !c.is_whitespace())
            .collect();
        for bad in [
            "get_in().as_ptr(",
            "get_out().as_mut_ptr(",
            "get_out().as_ptr(",
        ] {
            for _ in code.matches(bad) {
                found.push(format!("{}: {bad}", f.display()));
            }
        }
    }
    found
}

#[test]
fn raw_pointers_into_inout_come_from_into_raw() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for krate in [
        "aes-ct",
        "ghash-ct",
        "aes-gcm-ct",
        "adiantum",
        "ct-dispatch",
    ] {
        rust_files(&root.join(krate).join("src"), &mut files);
    }
    assert!(files.len() >= 20, "only {} source files found", files.len());
    let found = offending(&files);
    assert!(
        found.is_empty(),
        "raw pointers from get_in()/get_out(); take both from into_raw():\n  {}",
        found.join("\n  ")
    );
}

/// The check finds the pattern as it was written in the backends, and not
/// in a comment (it would pass vacuously otherwise).
#[test]
fn the_check_finds_the_pattern() {
    let dir = std::env::temp_dir().join(format!("ct-check-aliasing-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("probe.rs");
    std::fs::write(
        &f,
        "fn f(mut blocks: InOutBuf<'_, '_, Block>) {\n    let inp = blocks.get_in().as_ptr();\n    \
         // blocks.get_in().as_ptr() in a comment\n    let out = blocks\n        .get_out()\n        .as_mut_ptr();\n}\n",
    )
    .unwrap();
    let found = offending(&[f]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(found.len(), 2, "{found:?}");
}
