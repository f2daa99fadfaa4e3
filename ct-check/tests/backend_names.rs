//! Each crate's backend names are written once, in its table: the build
//! script declares the `--cfg <crate>_backend` values from the same lines
//! (`ct_dispatch::build::table_names`), so every name `Backend::ALL` has
//! on a target must be among them (the build script sees the table's
//! cfg-gated lines too), and none may appear twice.

fn table(krate: &str) -> Vec<String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(krate)
        .join("src/backend.rs");
    ct_dispatch::build::table_names(&std::fs::read_to_string(&path).unwrap())
}

/// `compiled` (the names `Backend::ALL` has on this target) must be among
/// the table's names (all of them, less the lines this target leaves out).
fn check(krate: &str, compiled: Vec<String>) {
    let all = table(krate);
    assert!(!compiled.is_empty(), "{krate}: no backend compiled in");
    for c in &compiled {
        assert!(
            all.contains(c),
            "{krate}: backend {c} is not in the table's names {all:?}"
        );
    }
    let mut seen = std::collections::BTreeSet::new();
    for a in &all {
        assert!(seen.insert(a), "{krate}: name {a} twice in the table");
    }
}

#[test]
fn the_cfg_names_are_the_tables() {
    check(
        "aes-ct",
        aes_ct::Backend::ALL.iter().map(|b| b.to_string()).collect(),
    );
    check(
        "ghash-ct",
        ghash_ct::Backend::ALL
            .iter()
            .map(|b| b.to_string())
            .collect(),
    );
    check(
        "aes-gcm-ct",
        aes_gcm_ct::Backend::ALL
            .iter()
            .map(|b| b.to_string())
            .collect(),
    );
    check(
        "adiantum",
        adiantum_ct::Backend::ALL
            .iter()
            .map(|b| b.to_string())
            .collect(),
    );
}
