//! Declares the `--cfg adiantum_ct_backend="..."` names this crate accepts.
fn main() {
    println!(
        "cargo::rustc-check-cfg=cfg(adiantum_ct_backend, values(none(), \"soft\", \"sse2\", \"avx2\", \"neon\", \"neon-asm\"))"
    );
}
