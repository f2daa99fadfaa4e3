//! x86_64 fused AES-GCM loops.
#[cfg(feature = "aes")]
pub(crate) mod aesni_clmul;
#[cfg(feature = "aes")]
pub(crate) mod vaes_clmul;
