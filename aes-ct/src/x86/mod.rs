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

/// Test and benchmark hook: limit the bsaes register width (1: SSSE3,
/// 2: AVX2, 4: AVX-512) for keys made afterwards.
#[cfg(any(feature = "bsaes", feature = "hybrid"))]
pub use bsaes::limit_width as bsaes_limit_width;

/// Test and benchmark hook: limit the VAES vector width (2: AVX2, 4:
/// AVX-512) for keys made afterwards.
#[cfg(feature = "vaes")]
pub use vaes::limit_width as vaes_limit_width;

/// Without VAES compiled in, the hook does nothing.
#[cfg(not(feature = "vaes"))]
pub fn vaes_limit_width(_lanes: u8) {}

/// Without bsaes compiled in, the hook does nothing.
#[cfg(not(any(feature = "bsaes", feature = "hybrid")))]
pub fn bsaes_limit_width(_lanes: u8) {}
