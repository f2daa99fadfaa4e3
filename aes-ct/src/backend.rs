//! Backend selection: the one dispatch table of this crate.
//!
//! Every backend is a module with a type implementing [`Engine`]. Its key
//! form can only be built from a capability token (`Engine::Token`), and
//! the only way to get a token is `Engine::token()`, which runs the CPU
//! check (ring's idea). Adding a backend is one module plus one line in
//! the table below; the line's position is its priority.
//!
//! `ct_dispatch::backends!` (shared with the workspace's other crates)
//! builds the key enum, the public `Backend` enum, its detection cache and
//! `UnsupportedBackend` from the table lines; this file adds only the
//! methods that forward to the engine.
//!
//! Selection: the first available backend in table order, detected once and
//! cached. `--cfg aes_ct_backend="NAME"` narrows automatic selection to
//! that backend (falling back to `soft` if this CPU cannot run it); cargo
//! features compile backends out; [`crate::Aes128::new_with_backend`] asks
//! for one at run time and fails with [`UnsupportedBackend`].

use crate::{Block, schedule::Schedule};
use cipher::{
    BlockCipherDecBackend, BlockCipherDecClosure, BlockCipherEncBackend, BlockCipherEncClosure,
    BlockSizeUser,
    consts::U16,
    inout::{InOut, InOutBuf},
};

/// What a backend module provides.
pub(crate) trait Engine {
    /// Zero-sized proof that this CPU can run the backend.
    type Token: Copy;
    /// The backend's key form (wiped on drop).
    type Key<const NR: usize>: Clone;
    /// Run the CPU check (cached by the backend).
    fn token() -> Option<Self::Token>;
    /// The standard schedule of `key` into `enc` (in place: no copy left
    /// behind), computed the way this backend can (default: in software;
    /// backends with AES instructions use them).
    #[inline(always)]
    fn schedule<const NR: usize>(token: Self::Token, key: &[u8], enc: &mut [[u8; 16]; 15]) {
        let _ = token;
        crate::schedule::expand_with::<NR>(crate::schedule::SoftOps, key, enc)
    }
    /// Derive the backend's key form from the standard schedule.
    fn expand<const NR: usize>(token: Self::Token, ks: &Schedule<NR>) -> Self::Key<NR>;
    fn encrypt<const NR: usize>(
        key: &Self::Key<NR>,
        f: impl BlockCipherEncClosure<BlockSize = U16>,
    );
    fn decrypt<const NR: usize>(
        key: &Self::Key<NR>,
        f: impl BlockCipherDecClosure<BlockSize = U16>,
    );
    /// Encrypt one block (a lone `encrypt_block`). Default: through
    /// [`Engine::encrypt`]; a backend with a cheaper lone-block path (the
    /// hybrid's vpaes) overrides it.
    #[inline]
    fn encrypt1<const NR: usize>(key: &Self::Key<NR>, block: InOut<'_, '_, Block>) {
        Self::encrypt(key, OneBlock(block))
    }
    /// Decrypt one block (as [`Engine::encrypt1`]).
    #[inline]
    fn decrypt1<const NR: usize>(key: &Self::Key<NR>, block: InOut<'_, '_, Block>) {
        Self::decrypt(key, OneBlock(block))
    }
    /// CTR with a 32-bit big-endian counter (`crate::ctr`): XOR `blocks`
    /// with the encryptions of `nonce || BE32(ctr + i)`, `i = 0, 1, ...`
    /// (mod 2^32). The default runs inside one [`Engine::encrypt`] call,
    /// counter blocks built in batches of the backend's `ParBlocksSize`
    /// (so a backend that converts its key per call converts once), and
    /// wipes its keystream buffer. A backend overrides it with a fused
    /// loop.
    #[inline]
    fn ctr32<const NR: usize>(
        key: &Self::Key<NR>,
        nonce: &[u8; 12],
        ctr: u32,
        blocks: InOutBuf<'_, '_, Block>,
    ) {
        Self::encrypt(key, crate::ctr::Ctr32Closure::new(nonce, ctr, blocks))
    }
    /// The standard encryption round keys, for a backend whose key form
    /// keeps them (the AES-instruction backends): what aes-gcm-ct's fused
    /// paths load. Default: `None`.
    #[inline]
    fn enc_round_keys<const NR: usize>(key: &Self::Key<NR>) -> Option<[[u8; 16]; 15]> {
        let _ = key;
        None
    }
}

/// The closure behind the default [`Engine::encrypt1`] / [`Engine::decrypt1`].
pub(crate) struct OneBlock<'i, 'o>(InOut<'i, 'o, Block>);

impl BlockSizeUser for OneBlock<'_, '_> {
    type BlockSize = U16;
}

impl BlockCipherEncClosure for OneBlock<'_, '_> {
    #[inline(always)]
    fn call<B: BlockCipherEncBackend<BlockSize = U16>>(self, backend: &B) {
        backend.encrypt_block(self.0)
    }
}

impl BlockCipherDecClosure for OneBlock<'_, '_> {
    #[inline(always)]
    fn call<B: BlockCipherDecBackend<BlockSize = U16>>(self, backend: &B) {
        backend.decrypt_block(self.0)
    }
}

/// A [`Keys`] whose every byte is zeroed once the key form inside has
/// dropped (and wiped) itself: also the bytes of the enum's inactive
/// variants and padding, which a move or clone copies from wherever the
/// value was built (a clone of an AES-NI key was seen carrying stray round
/// key bytes there, left on the stack by the clone; `ct-check`'s zeroize
/// test).
pub(crate) struct KeyBox<const NR: usize>(core::mem::ManuallyDrop<Keys<NR>>);

impl<const NR: usize> KeyBox<NR> {
    pub(crate) fn new(backend: Backend, key: &[u8]) -> Result<Self, UnsupportedBackend> {
        Ok(KeyBox(core::mem::ManuallyDrop::new(Keys::new(
            backend, key,
        )?)))
    }
}

impl<const NR: usize> core::ops::Deref for KeyBox<NR> {
    type Target = Keys<NR>;
    #[inline(always)]
    fn deref(&self) -> &Keys<NR> {
        &self.0
    }
}

impl<const NR: usize> Clone for KeyBox<NR> {
    fn clone(&self) -> Self {
        ct_dispatch::wipe::scrubbed::<_, SETUP_SCRUB>(|| {
            KeyBox(core::mem::ManuallyDrop::new(Keys::clone(&self.0)))
        })
    }
}

/// Bytes of dead stack a key constructor or clone zeroes after building
/// the key (`ct_dispatch::wipe::scrubbed`): the deepest frame with a copy
/// of the key material, with a margin, in optimised builds. Construction
/// holds only small forms (the key schedule's words, the standard round
/// keys, the backend's long-term form of at most a few hundred bytes, each
/// returned by value through a few layers); no bitsliced form is built at
/// setup (those are made per call), so a few KiB cover it.
/// `ct-check/tests/zeroize.rs` (`key_setup_and_use_leave_no_key_on_dead_stack`)
/// fails when it is too small.
pub(crate) const SETUP_SCRUB: usize = 4 * 1024;

impl<const NR: usize> Drop for KeyBox<NR> {
    fn drop(&mut self) {
        // SAFETY: dropped once, here; never used afterwards. Then its
        // bytes are plain memory owned by `self` (a `ManuallyDrop` has no
        // drop glue of its own), overwritten with wide volatile zero
        // stores (`zeroize`'s byte form costs an instruction per byte).
        unsafe {
            core::mem::ManuallyDrop::drop(&mut self.0);
            ct_dispatch::wipe::wipe_bytes(&mut self.0 as *mut core::mem::ManuallyDrop<Keys<NR>>);
        }
    }
}

ct_dispatch::backends! {
    what = "AES", cfg = aes_ct_backend, fallback = Soft,
    self_test = crate::backend::self_test_passes;
    /// A key in the form of one backend.
    #[derive(Clone)]
    #[allow(clippy::large_enum_variant, reason = "long-lived keys; no_std has no Box")]
    pub(crate) enum Keys<const NR: usize>(Engine::Key<NR>) with keys!;
    // The dispatch table. Order = preference.
    #[cfg(all(any(target_arch = "x86", target_arch = "x86_64"), feature = "vaes"))]
    Vaes => crate::x86::vaes::Vaes, "vaes", "VAES on AVX-512 (32 blocks per batch) or AVX2 (2 x 16), AES-NI for single blocks (x86).";
    #[cfg(all(any(target_arch = "x86", target_arch = "x86_64"), feature = "aesni"))]
    Aesni => crate::x86::aesni::AesNi, "aesni", "AES-NI, 8 blocks interleaved (x86).";
    #[cfg(all(target_arch = "aarch64", target_feature = "neon", feature = "armv8"))]
    Armv8 => crate::aarch64::armv8::ArmV8, "armv8", "ARMv8 Cryptography Extensions (aarch64), 8 blocks interleaved.";
    #[cfg(all(aes_ct_simd, feature = "hybrid"))]
    Hybrid => crate::simd::Hybrid, "hybrid", "vpaes for single blocks and tails, bsaes for batches with a per-call converted key (SSSE3 / NEON).";
    #[cfg(all(aes_ct_simd, feature = "vpaes"))]
    Vpaes => crate::simd::Vpaes, "vpaes", "vpaes alone: vector-permute AES, 1 or 2 blocks interleaved (SSSE3 / NEON).";
    #[cfg(all(aes_ct_simd, feature = "bsaes"))]
    Bsaes => crate::simd::Bsaes, "bsaes", "bsaes alone: bitsliced AES, 8 blocks per batch, key converted per call (SSSE3 / NEON).";
    Soft => crate::soft::Soft, "soft", "Portable constant-time bitsliced AES (every CPU).";
}

impl<const NR: usize> Keys<NR> {
    pub(crate) fn new(backend: Backend, key: &[u8]) -> Result<Self, UnsupportedBackend> {
        keys!(new backend, |t, E| {
            let mut ks = Schedule::<NR>::zeroed();
            E::schedule::<NR>(t, key, &mut ks.enc);
            E::expand(t, &ks)
        })
    }

    #[inline]
    pub(crate) fn encrypt(&self, f: impl BlockCipherEncClosure<BlockSize = U16>) {
        keys!(self, |k, E| E::encrypt(k, f))
    }

    #[inline]
    pub(crate) fn decrypt(&self, f: impl BlockCipherDecClosure<BlockSize = U16>) {
        keys!(self, |k, E| E::decrypt(k, f))
    }

    #[inline]
    pub(crate) fn encrypt1(&self, block: InOut<'_, '_, Block>) {
        keys!(self, |k, E| E::encrypt1(k, block))
    }

    #[inline]
    pub(crate) fn decrypt1(&self, block: InOut<'_, '_, Block>) {
        keys!(self, |k, E| E::decrypt1(k, block))
    }

    #[inline]
    pub(crate) fn ctr32(&self, nonce: &[u8; 12], ctr: u32, blocks: InOutBuf<'_, '_, Block>) {
        keys!(self, |k, E| E::ctr32(k, nonce, ctr, blocks))
    }

    pub(crate) fn enc_round_keys(&self) -> Option<crate::hazmat::RoundKeys> {
        keys!(self, |k, E| E::enc_round_keys(k))
            .map(|rk| crate::hazmat::RoundKeys::from_enc(NR, rk))
    }
}

/// The standard schedule of `key` into `enc`, computed by the detected
/// backend: with its AES instructions where it has them
/// (`Engine::schedule`), else in software. For
/// [`crate::hazmat::RoundKeys`], which has no backend of its own.
pub(crate) fn schedule_into<const NR: usize>(key: &[u8], enc: &mut [[u8; 16]; 15]) {
    if keys!(with Backend::detected(), |t, E| E::schedule::<NR>(t, key, &mut *enc)).is_err() {
        crate::schedule::expand_with::<NR>(crate::schedule::SoftOps, key, enc);
    }
}

/// Start-up self-test (feature `self-test`): FIPS-197 C.1 (AES-128) and C.3
/// (AES-256), encrypt and decrypt, on the candidate backend.
#[cfg(feature = "self-test")]
pub(crate) fn self_test_passes(b: Backend) -> bool {
    crate::selftest::passes(b)
}

#[cfg(not(feature = "self-test"))]
pub(crate) fn self_test_passes(_: Backend) -> bool {
    true
}
