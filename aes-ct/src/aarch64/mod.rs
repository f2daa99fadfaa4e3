//! aarch64 backends: ARMv8 Cryptography Extensions, and NEON vpaes/bsaes
//! (and their hybrid) for cores without them.

#[cfg(feature = "armv8")]
pub(crate) mod armv8;
#[cfg(aes_ct_simd)]
mod bsaes;
#[cfg(aes_ct_simd)]
mod neon;
#[cfg(aes_ct_simd)]
mod sbox;
#[cfg(aes_ct_simd)]
mod vpaes;

/// vpaes for single blocks and tails, bsaes for batches.
#[cfg(all(aes_ct_simd, feature = "hybrid"))]
pub(crate) type Hybrid = crate::hybrid::Hybrid<vpaes::NeonVpaes, bsaes::NeonBsaes>;
/// The vpaes side alone.
#[cfg(all(aes_ct_simd, feature = "vpaes"))]
pub(crate) type Vpaes = crate::hybrid::VpaesOnly<vpaes::NeonVpaes>;
/// The bsaes side alone (bitsliced key converted per call).
#[cfg(all(aes_ct_simd, feature = "bsaes"))]
pub(crate) type Bsaes = crate::hybrid::BsaesOnly<vpaes::NeonVpaes, bsaes::NeonBsaes>;

#[cfg(test)]
pub(crate) mod tests;
