//! Declares the `ghash_ct_backend` cfg so `--cfg ghash_ct_backend="..."`
//! passes the workspace's `unexpected_cfgs` lint.
fn main() {
    println!(
        "cargo::rustc-check-cfg=cfg(ghash_ct_backend, values(none(), \"vpclmul512\", \"vpclmul256\", \"pclmul\", \"vpmuludq512\", \"vpmuludq256\", \"pmuludq\", \"pmull\", \"pmull8\", \"vmull8\", \"soft64\", \"soft32\"))"
    );
}
