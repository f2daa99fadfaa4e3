//! ARMv7 NEON `vmull.p8` GHASH/POLYVAL in assembly (placeholder while the
//! assembly lands: not in the table yet).
