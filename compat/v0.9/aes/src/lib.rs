//! RustCrypto `aes` 0.9's public API (cipher 0.5 traits): aes-ct's types.
//!
//! A facade for `[patch.crates-io]` (see `compat/README.md`). aes-ct
//! implements the same trait generation, so [`Aes128`] here IS
//! `aes_ct::Aes128` (re-exported, not wrapped): code that names either gets
//! the same type, and aes-gcm-ct recognises it for its fused paths.
//! Added as upstream: [`hardware_accelerated`].
//!
//! Configuration flags: upstream's `--cfg aes_backend="soft"` asks for the
//! portable code; aes-ct's types choose their backend by aes-ct's own flag,
//! so the first alone is a compile error that names the second
//! (`--cfg aes_ct_backend="soft"`, which also keeps aes-gcm-ct off its
//! AES-instruction paths). `aes_backend_soft="compact"` changes nothing
//! (aes-ct's portable backend has one form). With the `hazmat` feature,
//! upstream's round functions, on aes-ct's portable bitsliced code.
#![no_std]
#![warn(missing_docs)]

#[cfg(feature = "hazmat")]
pub mod hazmat;

#[cfg(all(aes_backend = "soft", not(aes_ct_backend = "soft")))]
compile_error!(
    "`--cfg aes_backend=\"soft\"`: the `aes` facade's types are aes-ct's, which take their \
     backend from `--cfg aes_ct_backend=\"soft\"`; add that flag as well (RUSTFLAGS)"
);

pub use aes_ct::{
    cipher, Aes128, Aes128Dec, Aes128Enc, Aes192, Aes192Dec, Aes192Enc, Aes256, Aes256Dec,
    Aes256Enc, Block,
};

/// Whether the AES keys made with `KeyInit::new` run on the CPU's AES
/// instructions (AES-NI, VAES, ARMv8): the backend aes-ct detected for this
/// process. Every backend, with or without them, is constant time.
pub fn hardware_accelerated() -> bool {
    aes_ct::hazmat::uses_aes_instructions(aes_ct::Backend::detected())
}
