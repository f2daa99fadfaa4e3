//! x86 / x86_64 backends: PCLMULQDQ and VPCLMULQDQ; without them, the SIMD
//! integer multiply `pmuludq`.
pub(crate) mod pclmul;
pub(crate) mod pmuludq;
pub(crate) mod vpclmul;
