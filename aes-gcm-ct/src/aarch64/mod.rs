//! aarch64 fused AES-GCM loops.
#[cfg(feature = "aes")]
pub(crate) mod armv8_pmull;
// The fused paths' shared message end; declared in each ISA module that
// has fused paths, so it compiles exactly where it has callers.
#[cfg(feature = "aes")]
#[path = "../tail.rs"]
mod tail;
