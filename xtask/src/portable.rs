//! The portable backends on CPUs none of the SIMD backends target: the
//! test suites of the four library crates (AES `soft`, GHASH
//! `soft64`/`soft32`, AES-GCM `generic`, Adiantum `soft`) cross-compiled for
//! a big-endian machine (s390x) and for 64-bit RISC-V and run under
//! qemu-user. Part of `cargo xtask test` (one step per target). The
//! runners, linkers and C compilers (ring, in dev-dependencies, builds C)
//! are in `.cargo/config.toml`; the packages in `prereq::cross_tools`.

/// Big-endian: every byte-order assumption in the portable code shows here.
pub const S390X: &str = "s390x-unknown-linux-gnu";
/// 64-bit RISC-V (RV64GC): little-endian, but no SIMD backend and a
/// different integer-multiply and alignment story from x86 and ARM.
pub const RISCV64: &str = "riscv64gc-unknown-linux-gnu";

pub const TARGETS: [&str; 2] = [S390X, RISCV64];

/// What a step for `triple` tests, for its name.
pub fn what(triple: &str) -> &'static str {
    if triple == S390X {
        "big-endian, portable backends"
    } else {
        "portable backends"
    }
}

/// `cargo test` of the library crates for `triple`, run through the
/// target's qemu runner.
pub fn tests(triple: &str) -> Result<(), String> {
    let mut c = crate::util::cargo();
    c.arg("test");
    for p in crate::nostd::CRATES {
        c.args(["-p", p]);
    }
    c.args(["--target", triple, "--no-fail-fast"]);
    crate::util::run(&mut c)
}
