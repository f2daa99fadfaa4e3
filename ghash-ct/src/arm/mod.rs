//! 32-bit ARM backends: NEON `vmull.p8` in assembly, and NEON detection.
pub(crate) mod vmull8;

/// Does this CPU have NEON? (`cpufeatures` does not build for 32-bit ARM;
/// the shared check asks `getauxval(AT_HWCAP)` once.)
pub(crate) fn has_neon() -> bool {
    ct_dispatch::arm::has_neon()
}
