//! Declares the cfg `cargo xtask speed` sets (`--cfg speed_peers`: the
//! peers that cost minutes to build, see `Cargo.toml`), so builds without
//! it do not warn about an unknown cfg.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(speed_peers)");
}
