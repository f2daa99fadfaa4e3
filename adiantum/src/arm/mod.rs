//! 32-bit ARM NH backends.
pub(crate) mod neon;
