//! aarch64 backends: ARMv8 Cryptography Extensions, and NEON vpaes/bsaes
//! (and their hybrid) for cores without them.

#[cfg(feature = "armv8")]
pub(crate) mod armv8;
#[cfg(feature = "neon")]
mod bsaes;
#[cfg(feature = "neon")]
mod neon;
#[cfg(feature = "neon")]
mod sbox;
#[cfg(feature = "neon")]
mod vpaes;

/// vpaes for single blocks and tails, bsaes for batches.
#[cfg(feature = "neon")]
pub(crate) type Hybrid = crate::hybrid::Hybrid<vpaes::NeonVpaes, bsaes::NeonBsaes>;
/// The vpaes side alone.
#[cfg(feature = "neon")]
pub(crate) type Vpaes = crate::hybrid::VpaesOnly<vpaes::NeonVpaes>;
/// The bsaes side alone (bitsliced key converted per call).
#[cfg(feature = "neon")]
pub(crate) type Bsaes = crate::hybrid::BsaesOnly<vpaes::NeonVpaes, bsaes::NeonBsaes>;

#[cfg(test)]
pub(crate) mod tests;
