//! aarch64 NH backends.
pub(crate) mod neon;
