//! x86 / x86_64 backends: PCLMULQDQ and VPCLMULQDQ.
pub(crate) mod pclmul;
pub(crate) mod vpclmul;
