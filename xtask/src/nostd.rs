//! no_std builds: the library crates must build for bare-metal
//! targets. Part of `cargo xtask test` (one step per target); nothing runs,
//! it proves the crates need no `std` and no OS. Each target is built
//! twice: portable backends only (`--no-default-features`), and with the
//! default features, whose backends are compiled out by target
//! (`target_arch`, and `target_feature = "neon"` on aarch64, so the
//! soft-float aarch64 build takes the portable backends).

/// The bare-metal targets: Cortex-M4F/M7 (Thumb-2, no NEON), RV32IMAC, and
/// soft-float aarch64 (kernels, firmware: no NEON registers allowed).
pub const TARGETS: [&str; 3] = [
    "thumbv7em-none-eabihf",
    "riscv32imac-unknown-none-elf",
    "aarch64-unknown-none-softfloat",
];

/// The crates that promise `no_std` (their `lib.rs` says `#![no_std]`).
pub const CRATES: &[&str] = &["aes-ct", "ghash-ct", "adiantum-ct", "aes-gcm-ct"];

/// aes-gcm-ct's default features but `getrandom`, which (as in RustCrypto
/// aes-gcm) needs an OS random source and does not build bare-metal.
const AES_GCM_BARE_FEATURES: &str = "aes,alloc";

/// `cargo` with warnings denied in the target's code: a lint that only
/// these targets raise (a NEON feature enabled on soft-float aarch64, dead
/// code behind a `target_feature` cfg) must fail the step, as clippy fails
/// the hosted ones. With `--target`, `RUSTFLAGS` does not reach build
/// scripts, and dependencies' lints stay capped.
fn cargo() -> std::process::Command {
    let mut c = crate::util::cargo();
    c.env("RUSTFLAGS", crate::util::rustflags("-D warnings"));
    c
}

/// Build every crate in [`CRATES`] for `target`, default features off,
/// then on.
pub fn build(target: &str) -> Result<(), String> {
    let mut c = cargo();
    c.args(["build", "--no-default-features", "--target", target]);
    for p in CRATES {
        c.args(["-p", p]);
    }
    crate::util::run(&mut c)?;

    let mut c = cargo();
    c.args(["build", "--target", target]);
    for p in CRATES.iter().filter(|&&p| p != "aes-gcm-ct") {
        c.args(["-p", p]);
    }
    crate::util::run(&mut c)?;

    crate::util::run(cargo().args([
        "build",
        "-p",
        "aes-gcm-ct",
        "--no-default-features",
        "--features",
        AES_GCM_BARE_FEATURES,
        "--target",
        target,
    ]))
}
