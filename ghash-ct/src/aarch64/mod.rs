//! AArch64 backends: 64-bit PMULL and NEON 8-bit `pmull`.
pub(crate) mod pmull;
pub(crate) mod pmull8;
