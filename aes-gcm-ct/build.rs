//! Declares the `aes_gcm_ct_backend` cfg so `--cfg aes_gcm_ct_backend="..."`
//! passes the workspace's `unexpected_cfgs` lint.
fn main() {
    println!(
        "cargo::rustc-check-cfg=cfg(aes_gcm_ct_backend, values(none(), \"vaes-clmul\", \"vaes-avx2-clmul\", \"aesni-clmul\", \"armv8-pmull\", \"ctr-ghash\", \"generic\"))"
    );
}
