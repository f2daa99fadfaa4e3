//! no_std builds (issue 8): the library crates must build for bare-metal
//! targets, portable backends only (`--no-default-features`; the SIMD
//! backends are compiled out by target anyway). Part of `cargo xtask test`
//! (one step per target); nothing runs, it proves the crates need no `std`
//! and no OS.

/// The bare-metal targets: Cortex-M4F/M7 (Thumb-2, no NEON) and RV32IMAC.
pub const TARGETS: [&str; 2] = ["thumbv7em-none-eabihf", "riscv32imac-unknown-none-elf"];

/// The crates that promise `no_std` (their `lib.rs` says `#![no_std]`).
pub const CRATES: &[&str] = &["aes-ct", "ghash-ct", "adiantum-ct", "aes-gcm-ct"];

/// Build every crate in [`CRATES`] for `target`, default features off.
pub fn build(target: &str) -> Result<(), String> {
    let mut c = crate::util::cargo();
    c.args(["build", "--no-default-features", "--target", target]);
    for p in CRATES {
        c.args(["-p", p]);
    }
    crate::util::run(&mut c)
}
