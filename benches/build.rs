//! Declares the cfgs `cargo xtask speed` sets, so builds without them do
//! not warn about an unknown cfg: `--cfg speed_peers` (the peers that cost
//! minutes to build, see `Cargo.toml`) and `--cfg
//! speed_rustcrypto_vaes256` (the build against RustCrypto `aes` with its
//! AVX-512 check patched to fail, see `src/speed/aes.rs`).

fn main() {
    println!("cargo::rustc-check-cfg=cfg(speed_peers)");
    println!("cargo::rustc-check-cfg=cfg(speed_rustcrypto_vaes256)");
}
