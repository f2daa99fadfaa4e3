//! 32-bit ARM backends: NEON `vmull.p8` in assembly, and NEON detection.
pub(crate) mod vmull8;

/// `getauxval(AT_HWCAP)` bit for NEON on 32-bit ARM Linux.
const HWCAP_NEON: core::ffi::c_ulong = 1 << 12;

/// Does this CPU have NEON? (`cpufeatures` does not build for 32-bit ARM.)
pub(crate) fn has_neon() -> bool {
    use core::sync::atomic::{AtomicU8, Ordering};
    static CACHE: AtomicU8 = AtomicU8::new(u8::MAX);
    match CACHE.load(Ordering::Relaxed) {
        0 => false,
        1 => true,
        _ => {
            // SAFETY: getauxval has no preconditions; it only reads the
            // auxiliary vector the kernel gave this process.
            let hwcap = unsafe { libc::getauxval(libc::AT_HWCAP) };
            let yes = hwcap & HWCAP_NEON != 0;
            CACHE.store(yes as u8, Ordering::Relaxed);
            yes
        }
    }
}
