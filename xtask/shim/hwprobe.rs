//! Prints the CPU features an ARM Linux guest sees, as `key=value` words.
//! `cargo xtask test` compiles it with plain `rustc` for each ARM target
//! and runs it exactly as the tests will run (same qemu runner, CPU model
//! and LD_PRELOAD shim) to prove each qemu run tests what it claims.

use std::ffi::c_ulong;

const AT_HWCAP: c_ulong = 16;
const AT_HWCAP2: c_ulong = 26;

unsafe extern "C" {
    fn getauxval(kind: c_ulong) -> c_ulong;
}

fn main() {
    // SAFETY: getauxval takes any value and returns 0 for unknown ones.
    let (hwcap, hwcap2) = unsafe { (getauxval(AT_HWCAP), getauxval(AT_HWCAP2)) };
    let bit = |v: c_ulong, b: u32| v >> b & 1 == 1;

    #[cfg(target_arch = "aarch64")]
    println!(
        "arch=aarch64 hwcap={hwcap:#x} hwcap2={hwcap2:#x} neon={} aes={} pmull={} sha2={} \
         std_neon={} std_aes={} std_sha2={}",
        bit(hwcap, 1),
        bit(hwcap, 3),
        bit(hwcap, 4),
        bit(hwcap, 6),
        std::arch::is_aarch64_feature_detected!("neon"),
        std::arch::is_aarch64_feature_detected!("aes"),
        std::arch::is_aarch64_feature_detected!("sha2"),
    );

    #[cfg(target_arch = "arm")]
    println!(
        "arch=arm hwcap={hwcap:#x} hwcap2={hwcap2:#x} neon={} aes={} pmull={} sha2={}",
        bit(hwcap, 12),
        bit(hwcap2, 0),
        bit(hwcap2, 1),
        bit(hwcap2, 3),
    );
}
