//! Backend selection: the one dispatch table of this crate.
//!
//! Every backend is a module with a type implementing [`Engine`]. Its key
//! form (the H powers in the backend's layout) can only be built from a
//! capability token (`Engine::Token`), and the only way to get a token is
//! `Engine::token()`, which runs the CPU check. Adding a backend is one
//! module plus one line in the table below; the line's position is its
//! priority. `ct_dispatch::backends!` builds the key enum from the table
//! lines; this file adds only the methods that forward to the engine.
//!
//! Selection: the first available backend in table order, detected once and
//! cached. `--cfg ghash_ct_backend="NAME"` narrows automatic selection to
//! that backend (falling back to the portable one if this CPU cannot run
//! it); [`crate::GHash::new_with_backend`] asks for one at run time and
//! fails with [`UnsupportedBackend`].

use crate::Block;
use zeroize::Zeroize;

/// What a backend module provides.
pub(crate) trait Engine {
    /// Zero-sized proof that this CPU can run the backend.
    type Token: Copy;
    /// The backend's form of the key powers (wiped on drop by [`Keys`]).
    type Key: Clone + Zeroize;
    /// Run the CPU check (cached by the backend).
    fn token() -> Option<Self::Token>;
    /// Build the key form from H (POLYVAL form).
    fn new_key(token: Self::Token, h: u128) -> Self::Key;
    /// Absorb whole blocks into the POLYVAL-form accumulator. `GHASH`:
    /// blocks are GHASH blocks (byte-reversed on load).
    fn update<const GHASH: bool>(key: &Self::Key, acc: &mut u128, blocks: &[Block]);
    /// As [`Engine::update`], where the LAST block is public (for GCM the
    /// lengths block): a backend may multiply it by H with a product whose
    /// time follows its bits (`field::clmul_public`), saving a full
    /// constant-time product where those are dear. By default the same as
    /// `update`.
    #[inline(always)]
    fn update_public_last<const GHASH: bool>(key: &Self::Key, acc: &mut u128, blocks: &[Block]) {
        Self::update::<GHASH>(key, acc, blocks)
    }
}

/// A [`Keys`] whose every byte is zeroed once the key form inside has
/// dropped (and wiped) itself: also the bytes of the enum's inactive
/// variants and padding, which a move or clone copies from wherever the
/// value was built (the variants differ in size by a factor of ten, so a
/// small key form carries kilobytes of whatever that stack held).
pub(crate) struct KeyBox(core::mem::ManuallyDrop<Keys>);

impl KeyBox {
    pub(crate) fn new(backend: Backend, h: u128) -> Result<Self, UnsupportedBackend> {
        Ok(KeyBox(core::mem::ManuallyDrop::new(Keys::new(backend, h)?)))
    }
}

impl core::ops::Deref for KeyBox {
    type Target = Keys;
    #[inline(always)]
    fn deref(&self) -> &Keys {
        &self.0
    }
}

impl Clone for KeyBox {
    fn clone(&self) -> Self {
        ct_dispatch::wipe::scrubbed::<_, SETUP_SCRUB>(|| {
            KeyBox(core::mem::ManuallyDrop::new(Keys::clone(&self.0)))
        })
    }
}

/// Bytes of dead stack a key constructor or clone zeroes after building
/// the key (`ct_dispatch::wipe::scrubbed`): the deepest frame with a copy
/// of the key form, with a margin, in optimised builds.
/// `ct-check/tests/zeroize.rs` (`key_setup_and_use_leave_no_key_on_dead_stack`)
/// fails when it is too small.
pub(crate) const SETUP_SCRUB: usize = 16 * 1024;

impl Drop for KeyBox {
    fn drop(&mut self) {
        // SAFETY: dropped once, here (the active key form wipes itself),
        // never used afterwards; then its bytes are plain memory owned by
        // `self` (`ManuallyDrop` has no drop glue), all overwritten.
        unsafe {
            core::mem::ManuallyDrop::drop(&mut self.0);
            ct_dispatch::wipe::wipe_bytes(&mut self.0 as *mut core::mem::ManuallyDrop<Keys>);
        }
    }
}

ct_dispatch::backends! {
    what = "GHASH", cfg = ghash_ct_backend, fallback = PORTABLE, self_test = |_| true;
    /// Key powers in the form of one backend. Stored inline (no_std, no
    /// allocation); the variants differ in size by design.
    #[derive(Clone)]
    #[allow(clippy::large_enum_variant)]
    pub(crate) enum Keys(Engine::Key) with keys!;
    // The dispatch table. Order = preference.
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    Vpclmul512 => crate::x86::vpclmul::Vpclmul512, "vpclmul512",
        "VPCLMULQDQ on 512-bit vectors (AVX-512), 16 blocks per reduction.";
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    Vpclmul256 => crate::x86::vpclmul::Vpclmul256, "vpclmul256",
        "VPCLMULQDQ on 256-bit vectors (AVX2), 8 blocks per reduction.";
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    Pclmul => crate::x86::pclmul::Pclmul, "pclmul",
        "PCLMULQDQ (128-bit), 8 blocks per reduction.";
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    Vpmuludq512 => crate::x86::pmuludq::Vpmuludq512, "vpmuludq512",
        "No PCLMULQDQ: `vpmuludq` with holes on 512-bit vectors (AVX-512).";
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    Vpmuludq256 => crate::x86::pmuludq::Vpmuludq256, "vpmuludq256",
        "No PCLMULQDQ: `vpmuludq` with holes on 256-bit vectors (AVX2).";
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    Pmuludq => crate::x86::pmuludq::Pmuludq, "pmuludq",
        "No PCLMULQDQ: `pmuludq` with holes on 128-bit vectors (SSSE3).";
    #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
    Pmull => crate::aarch64::pmull::Pmull, "pmull",
        "ARMv8 64-bit PMULL, aggregated reduction.";
    #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
    Pmull8 => crate::aarch64::pmull8::Pmull8, "pmull8",
        "AArch64 NEON 8-bit `pmull` (no crypto extension), Camara et al. 2013.";
    #[cfg(all(target_arch = "arm", target_os = "linux"))]
    Vmull8 => crate::arm::vmull8::Vmull8, "vmull8",
        "ARMv7 NEON 8-bit `vmull.p8` in assembly, Camara et al. 2013.";
    #[cfg(target_pointer_width = "64")]
    Soft64 => crate::soft::Soft64, "soft64",
        "Portable constant-time multiply on 64-bit integer multiplies.";
    Soft32 => crate::soft::Soft32, "soft32",
        "Portable constant-time multiply on 32-bit integer multiplies.";
}

impl Keys {
    pub(crate) fn new(backend: Backend, h: u128) -> Result<Self, UnsupportedBackend> {
        keys!(new backend, |t, E| E::new_key(t, h))
    }

    #[inline]
    pub(crate) fn update<const GHASH: bool>(&self, acc: &mut u128, blocks: &[Block]) {
        keys!(self, |k, E| E::update::<GHASH>(k, acc, blocks))
    }

    #[inline]
    pub(crate) fn update_public_last<const GHASH: bool>(&self, acc: &mut u128, blocks: &[Block]) {
        keys!(self, |k, E| E::update_public_last::<GHASH>(k, acc, blocks))
    }
}

impl Drop for Keys {
    fn drop(&mut self) {
        keys!(self, |k, E| k.zeroize())
    }
}

impl Backend {
    /// The portable backend of this target (always available).
    pub const PORTABLE: Backend = {
        #[cfg(target_pointer_width = "64")]
        {
            Backend::Soft64
        }
        #[cfg(not(target_pointer_width = "64"))]
        {
            Backend::Soft32
        }
    };
}
