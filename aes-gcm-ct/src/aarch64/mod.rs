//! aarch64 fused AES-GCM loops.
#[cfg(feature = "aes")]
pub(crate) mod armv8_pmull;
