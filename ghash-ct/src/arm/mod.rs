//! 32-bit ARM backends: NEON `vmull.p8` in assembly.
pub(crate) mod vmull8;
