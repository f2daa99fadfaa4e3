//! Declares `--cfg aes_ct_backend="NAME"` with the names of this crate's backend
//! table (`src/backend.rs`, read by `ct_dispatch::build`), and makes a
//! name that is not in it a compile error.
//!
//! Also sets `aes_ct_simd` where this target has a vector ISA module with
//! the vpaes, bsaes and hybrid engines (x86 with SSSE3 detected at run
//! time; aarch64 and armv7 with the `neon` feature, aarch64 also with NEON
//! in the target) and one of those engines' features is on. This is the one
//! place that condition is written: the table lines, the engine modules
//! and the hooks test `cfg(aes_ct_simd)`.
fn main() {
    ct_dispatch::build::backend_cfg("aes_ct_backend");

    println!("cargo::rustc-check-cfg=cfg(aes_ct_simd)");
    let env = |k: &str| std::env::var(k).unwrap_or_default();
    let feature =
        |f: &str| std::env::var_os(format!("CARGO_FEATURE_{}", f.to_uppercase())).is_some();
    let target_neon = env("CARGO_CFG_TARGET_FEATURE")
        .split(',')
        .any(|f| f == "neon");
    let isa = match env("CARGO_CFG_TARGET_ARCH").as_str() {
        "x86" | "x86_64" => true,
        "aarch64" => target_neon && feature("neon"),
        "arm" => feature("neon"),
        _ => false,
    };
    if isa && ["vpaes", "bsaes", "hybrid"].into_iter().any(feature) {
        println!("cargo::rustc-cfg=aes_ct_simd");
    }
}
