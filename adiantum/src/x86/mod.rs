//! x86 / x86_64 NH backends (SSE2, AVX2).
pub(crate) mod avx2;
pub(crate) mod sse2;
