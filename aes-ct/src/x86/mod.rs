//! x86 / x86_64 backends: AES-NI, VAES (AVX2 / AVX-512), and for CPUs
//! without AES-NI the SSSE3 vpaes + bsaes hybrid.

#[cfg(feature = "aesni")]
pub(crate) mod aesni;
#[cfg(any(feature = "bsaes", feature = "hybrid"))]
pub(crate) mod bsaes;
#[cfg(feature = "vaes")]
pub(crate) mod vaes;
#[cfg(any(feature = "vpaes", feature = "bsaes", feature = "hybrid"))]
pub(crate) mod vpaes;
