//! x86_64 fused AES-GCM loops.
#[cfg(feature = "aes")]
pub(crate) mod aesni_clmul;
#[cfg(feature = "aes")]
mod vaes512_loop;
#[cfg(feature = "aes")]
mod vaes_avx2_loop;
#[cfg(feature = "aes")]
pub(crate) mod vaes_clmul;
// The fused paths' shared message end; declared in each ISA module that
// has fused paths, so it compiles exactly where it has callers.
#[cfg(feature = "aes")]
#[path = "../tail.rs"]
mod tail;
