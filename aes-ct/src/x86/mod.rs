//! (Hidden; only [`bsaes_limit_width`] and [`vaes_limit_width`] are public,
//! test hooks.)
//!
//! x86 / x86_64 backends: AES-NI, VAES (AVX2 / AVX-512), and for CPUs
//! without AES-NI the SSSE3 vpaes + bsaes hybrid.

#[cfg(feature = "aesni")]
pub(crate) mod aesni;
#[cfg(any(feature = "bsaes", feature = "hybrid"))]
pub(crate) mod bsaes;
#[cfg(feature = "aesni")]
mod ctr;
#[cfg(feature = "vaes")]
pub(crate) mod vaes;
#[cfg(any(feature = "vpaes", feature = "bsaes", feature = "hybrid"))]
pub(crate) mod vpaes;

// CPU checks shared by vpaes and bsaes (cached by cpufeatures).
#[cfg(any(feature = "vpaes", feature = "bsaes", feature = "hybrid"))]
cpufeatures::new!(cpu_ssse3, "ssse3");
#[cfg(any(feature = "vpaes", feature = "bsaes", feature = "hybrid"))]
cpufeatures::new!(cpu_avx2, "avx2");

/// Widest register the vpaes and bsaes code may use, in 128-bit lanes (1,
/// 2 or 4); lowered by [`bsaes_limit_width`] so tests and benchmarks can
/// run the SSSE3 and AVX2 code on a CPU that has AVX-512.
#[cfg(any(feature = "vpaes", feature = "bsaes", feature = "hybrid"))]
static SIMD_LANES: core::sync::atomic::AtomicU8 = core::sync::atomic::AtomicU8::new(4);

#[cfg(any(feature = "vpaes", feature = "bsaes", feature = "hybrid"))]
fn simd_lanes() -> u8 {
    SIMD_LANES.load(core::sync::atomic::Ordering::Relaxed)
}

/// Test and benchmark hook: limit the register width of the bsaes batches
/// (1: SSSE3, 8 blocks; 2: AVX2, 16 blocks; 4: AVX-512, 32 blocks) and of
/// vpaes block pairs (1: two 128-bit chains; 2 or more: one 256-bit
/// register, AVX2) for keys made afterwards.
#[cfg(any(feature = "vpaes", feature = "bsaes", feature = "hybrid"))]
pub fn bsaes_limit_width(lanes: u8) {
    SIMD_LANES.store(lanes, core::sync::atomic::Ordering::Relaxed);
}

/// Test and benchmark hook: limit the VAES vector width (2: AVX2, 4:
/// AVX-512) for keys made afterwards.
#[cfg(feature = "vaes")]
pub use vaes::limit_width as vaes_limit_width;

/// Without VAES compiled in, the hook does nothing.
#[cfg(not(feature = "vaes"))]
pub fn vaes_limit_width(_lanes: u8) {}

/// Without vpaes/bsaes compiled in, the hook does nothing.
#[cfg(not(any(feature = "vpaes", feature = "bsaes", feature = "hybrid")))]
pub fn bsaes_limit_width(_lanes: u8) {}
