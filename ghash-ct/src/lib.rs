//! Constant-time GHASH (and POLYVAL) for RustCrypto stacks.
//!
//! [`GHash`] implements the `universal-hash` 0.6 traits exactly like
//! RustCrypto's `ghash` 0.6 type (`KeyInit` from the 16-byte H,
//! `UniversalHash` with a parallel-block `UhfBackend`, `update_padded`,
//! `finalize`, constant-time `verify`), plus `Clone`, `Reset`,
//! `ZeroizeOnDrop` and a `Debug` that prints no secret, so generic code
//! written against `ghash` accepts it unchanged. [`Polyval`] is the same
//! core with POLYVAL's byte order (RFC 8452).
//!
//! Every backend is constant time: no branch, loop bound or memory index
//! depends on H, the data or the hash state. The backend is chosen once per
//! process ([`Backend::detected`]); a key can ask for one with
//! `new_with_backend` and tell which one it uses with `backend()`.
//!
//! # Key powers computed once, per-message state borrowed (for AEADs)
//!
//! The backends aggregate up to 16 blocks per reduction and therefore keep
//! `H^1..H^n` (with Karatsuba middle terms) in the key. A [`GHashKey`] holds
//! those powers and is built once; a [`GHashState`] is the 16-byte
//! per-message accumulator. An AEAD keeps the `GHashKey` next to its cipher
//! key and, per message, uses a fresh state without copying the powers:
//!
//! ```
//! use ghash_ct::{GHashKey, GHashState};
//! # let h = [7u8; 16];
//! # let (aad, ct, lengths) = (b"header".as_slice(), [1u8; 40], [0u8; 16]);
//! let key = GHashKey::new(&h.into());            // once per AEAD key
//!
//! let mut st = GHashState::new();                 // per message: 16 bytes
//! key.update_padded(&mut st, aad);
//! key.update_padded(&mut st, &ct);
//! key.update_padded(&mut st, &lengths);            // len(A) || len(C) in bits
//! let s = key.finalize(st);                        // S, to XOR with E_K(J0)
//! # assert_eq!(s.len(), 16);
//! ```
//!
//! [`GHashKey::hasher`] gives the same thing behind the `UniversalHash`
//! trait: a [`GHashRef`] borrows the key and owns only the accumulator.
//! All key forms and states are wiped on drop. The `zeroize` feature is
//! upstream's name for that wiping, accepted so that `features =
//! ["zeroize"]` carries over; here the wiping is always on.
#![no_std]
#![warn(missing_docs)]

// The README's examples run as doctests too: it is the page crates.io
// shows, so its code must compile and pass.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

pub use universal_hash;

mod backend;
#[cfg(any(
    target_arch = "x86",
    target_arch = "x86_64",
    all(target_arch = "aarch64", target_feature = "neon"),
    all(target_arch = "arm", target_os = "linux")
))]
mod clmul_key;
mod field;
mod soft;

#[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
mod aarch64;
#[cfg(all(target_arch = "arm", target_os = "linux"))]
mod arm;
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
mod x86;

pub use backend::{Backend, UnsupportedBackend};
use backend::{KeyBox, Keys};

use core::fmt;
use universal_hash::{
    KeyInit, Reset, UhfBackend, UhfClosure, UniversalHash,
    array::Array,
    common::{BlockSizeUser, KeySizeUser, ParBlocksSizeUser},
    consts::{U8, U16},
};
use zeroize::{Zeroize, ZeroizeOnDrop};

/// A 16-byte block (GHASH or POLYVAL).
pub type Block = Array<u8, U16>;
/// A 16-byte key H.
pub type Key = Array<u8, U16>;
/// A 16-byte hash output.
pub type Tag = Array<u8, U16>;

/// `mulX_POLYVAL` (RFC 8452 appendix A) of a POLYVAL-order block: the
/// field element times x, in constant time. For the `polyval` 0.6 facade
/// in `compat/`, whose upstream API has it as `polyval::mulx`.
#[doc(hidden)]
pub fn mulx_polyval(block: &[u8; 16]) -> [u8; 16] {
    field::mulx(u128::from_le_bytes(*block)).to_le_bytes()
}

/// The `UhfBackend` handed to `update_with_backend` closures: absorbs
/// blocks straight into the accumulator with the key's backend.
struct Uhf<'a, const GHASH: bool> {
    keys: &'a Keys,
    acc: &'a mut u128,
}

impl<const GHASH: bool> BlockSizeUser for Uhf<'_, GHASH> {
    type BlockSize = U16;
}

impl<const GHASH: bool> ParBlocksSizeUser for Uhf<'_, GHASH> {
    type ParBlocksSize = U8;
}

impl<const GHASH: bool> UhfBackend for Uhf<'_, GHASH> {
    #[inline]
    fn proc_block(&mut self, block: &Block) {
        self.keys
            .update::<GHASH>(self.acc, core::slice::from_ref(block));
    }

    #[inline]
    fn proc_par_blocks(&mut self, blocks: &Array<Block, U8>) {
        self.keys.update::<GHASH>(self.acc, blocks.as_slice());
    }
}

#[inline]
fn update_padded<const GHASH: bool>(keys: &Keys, acc: &mut u128, data: &[u8]) {
    let (blocks, tail) = Block::slice_as_chunks(data);
    if !blocks.is_empty() {
        keys.update::<GHASH>(acc, blocks);
    }
    if !tail.is_empty() {
        let mut last = Block::from(ct_dispatch::short::read_block(tail));
        keys.update::<GHASH>(acc, core::slice::from_ref(&last));
        last.0.zeroize();
    }
}

macro_rules! family {
    (
        $ghash:literal, $alg:literal,
        $hash:ident, $key:ident, $state:ident, $href:ident,
        |$h:ident| $conv:expr
    ) => {
        #[doc = concat!("The ", $alg, " key: H and its powers in the form of one backend, computed once.")]
        ///
        /// Build it once per key and absorb messages into cheap per-message
        #[doc = concat!("[`", stringify!($state), "`]s (see the crate documentation). Wiped on drop.")]
        #[derive(Clone)]
        pub struct $key {
            keys: KeyBox,
        }

        impl $key {
            /// Make a key that uses the detected backend.
            // The public constructors are inlined around
            // `ct_dispatch::wipe::scrubbed`: the frames that built the key
            // are zeroed, and no frame of ours keeps a copy.
            #[inline(always)]
            pub fn new($h: &Key) -> Self {
                ct_dispatch::wipe::scrubbed::<_, { backend::SETUP_SCRUB }>(|| Self::build_detected($h))
            }

            /// Make a key that uses `backend`, or fail if this build or CPU
            /// cannot run it.
            #[inline(always)]
            pub fn new_with_backend($h: &Key, backend: Backend) -> Result<Self, UnsupportedBackend> {
                ct_dispatch::wipe::scrubbed::<_, { backend::SETUP_SCRUB }>(|| Self::build($h, backend))
            }

            fn build_detected($h: &Key) -> Self {
                match Self::build($h, Backend::detected()) {
                    Ok(k) => k,
                    // The detected backend passed its CPU check already; the
                    // portable one can always be built.
                    Err(_) => Self::build($h, Backend::PORTABLE)
                        .unwrap_or_else(|_| unreachable!("portable backend is always available")),
                }
            }

            fn build($h: &Key, backend: Backend) -> Result<Self, UnsupportedBackend> {
                let mut hv: u128 = $conv;
                let keys = KeyBox::new(backend, hv);
                hv.zeroize();
                Ok(Self { keys: keys? })
            }

            /// The backend this key uses.
            pub fn backend(&self) -> Backend {
                self.keys.backend()
            }

            /// Absorb whole blocks into `state`.
            #[inline]
            pub fn update(&self, state: &mut $state, blocks: &[Block]) {
                self.keys.update::<$ghash>(&mut state.acc, blocks);
            }

            /// Absorb whole blocks into `state`, of which the LAST is
            /// public (for GCM the lengths block): its product by H may
            /// take time that depends on its bits, never on the key, the
            /// state or the other blocks. Where the backend's constant-time
            /// product is dear (no carry-less multiply instruction) this
            /// saves one, a third of the work of a short GCM message; the
            /// result is always that of [`Self::update`]. Never pass a
            /// secret block last.
            #[inline]
            pub fn update_public_last(&self, state: &mut $state, blocks: &[Block]) {
                self.keys.update_public_last::<$ghash>(&mut state.acc, blocks);
            }

            /// Absorb `data`, zero-padding a partial last block (as
            /// `UniversalHash::update_padded`).
            #[inline]
            pub fn update_padded(&self, state: &mut $state, data: &[u8]) {
                update_padded::<$ghash>(&self.keys, &mut state.acc, data);
            }

            /// The hash of everything absorbed into `state`.
            #[inline]
            pub fn finalize(&self, state: $state) -> Tag {
                state.finalize()
            }

            #[doc = concat!("A `UniversalHash` over this key that borrows the powers (no copy).")]
            pub fn hasher(&self) -> $href<'_> {
                $href { key: self, state: $state::new() }
            }
        }

        impl KeySizeUser for $key {
            type KeySize = U16;
        }

        impl KeyInit for $key {
            #[inline(always)]
            fn new($h: &Key) -> Self {
                Self::new($h)
            }
        }

        impl fmt::Debug for $key {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!(stringify!($key), " {{ backend: {}, .. }}"), self.backend())
            }
        }

        impl ZeroizeOnDrop for $key {}

        #[doc = concat!("A ", $alg, " per-message state: the 16-byte accumulator only. Wiped on drop.")]
        #[derive(Clone, Default)]
        pub struct $state {
            acc: u128,
        }

        impl $state {
            /// An empty state.
            pub const fn new() -> Self {
                Self { acc: 0 }
            }

            /// The hash of everything absorbed.
            #[inline]
            pub fn finalize(self) -> Tag {
                Tag::from(field::store::<$ghash>(self.acc))
            }
        }

        impl Reset for $state {
            fn reset(&mut self) {
                self.acc = 0;
            }
        }

        impl Drop for $state {
            fn drop(&mut self) {
                self.acc.zeroize();
            }
        }

        impl ZeroizeOnDrop for $state {}

        impl fmt::Debug for $state {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(concat!(stringify!($state), " { .. }"))
            }
        }

        #[doc = concat!("**", $alg, "** as a `UniversalHash`, owning its key powers (drop-in for RustCrypto's type).")]
        ///
        /// ```
        /// use ghash_ct::universal_hash::{KeyInit, UniversalHash};
        #[doc = concat!("let mut mac = ghash_ct::", stringify!($hash), "::new(&[0x66; 16].into());")]
        /// mac.update_padded(b"additional data");
        /// mac.update_padded(b"ciphertext");
        /// let tag = mac.clone().finalize();
        /// let mut other = tag;
        /// other[0] ^= 1;
        /// assert!(mac.clone().verify(&other).is_err()); // constant-time comparison
        /// assert!(mac.verify(&tag).is_ok());
        /// ```
        #[derive(Clone)]
        pub struct $hash {
            key: $key,
            state: $state,
        }

        impl $hash {
            /// Make a hasher that uses `backend`, or fail if this build or
            /// CPU cannot run it.
            #[inline(always)]
            pub fn new_with_backend($h: &Key, backend: Backend) -> Result<Self, UnsupportedBackend> {
                ct_dispatch::wipe::scrubbed::<_, { backend::SETUP_SCRUB }>(|| {
                    Ok(Self { key: $key::build($h, backend)?, state: $state::new() })
                })
            }

            /// The backend this hasher uses.
            pub fn backend(&self) -> Backend {
                self.key.backend()
            }

            /// The key powers (to start more messages without recomputing them).
            pub fn key(&self) -> &$key {
                &self.key
            }

            /// A hasher whose accumulator starts at `init_block` (POLYVAL
            /// form: the state block's bytes read little-endian) instead of
            /// zero. For the compat facades of `ghash` 0.5 / `polyval` 0.6,
            /// which convert their `new_with_init_block` argument to it.
            #[doc(hidden)]
            #[inline(always)]
            pub fn new_with_init_block($h: &Key, init_block: u128) -> Self {
                ct_dispatch::wipe::scrubbed::<_, { backend::SETUP_SCRUB }>(|| {
                    Self { key: $key::build_detected($h), state: $state { acc: init_block } }
                })
            }
        }

        impl KeySizeUser for $hash {
            type KeySize = U16;
        }

        impl KeyInit for $hash {
            #[inline(always)]
            fn new($h: &Key) -> Self {
                ct_dispatch::wipe::scrubbed::<_, { backend::SETUP_SCRUB }>(|| {
                    Self { key: $key::build_detected($h), state: $state::new() }
                })
            }
        }

        impl fmt::Debug for $hash {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!(stringify!($hash), " {{ backend: {}, .. }}"), self.backend())
            }
        }

        impl ZeroizeOnDrop for $hash {}

        #[doc = concat!("**", $alg, "** as a `UniversalHash` borrowing a [`", stringify!($key), "`]: per-message state only.")]
        #[derive(Clone)]
        pub struct $href<'k> {
            key: &'k $key,
            state: $state,
        }

        impl $href<'_> {
            /// The backend this hasher uses.
            pub fn backend(&self) -> Backend {
                self.key.backend()
            }
        }

        impl fmt::Debug for $href<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!(stringify!($href), " {{ backend: {}, .. }}"), self.backend())
            }
        }

        impl ZeroizeOnDrop for $href<'_> {}

        family!(@uhf $ghash, $hash);
        family!(@uhf $ghash, $href<'_>);
    };

    (@uhf $ghash:literal, $t:ty) => {
        impl BlockSizeUser for $t {
            type BlockSize = U16;
        }

        impl UniversalHash for $t {
            #[inline]
            fn update_with_backend(&mut self, f: impl UhfClosure<BlockSize = U16>) {
                f.call(&mut Uhf::<$ghash> { keys: &self.key.keys, acc: &mut self.state.acc });
            }

            /// All blocks in one backend call (no per-chunk dispatch).
            #[inline]
            fn update(&mut self, blocks: &[Block]) {
                self.key.keys.update::<$ghash>(&mut self.state.acc, blocks);
            }

            #[inline]
            fn update_padded(&mut self, data: &[u8]) {
                update_padded::<$ghash>(&self.key.keys, &mut self.state.acc, data);
            }

            #[inline]
            fn finalize(self) -> Tag {
                Tag::from(field::store::<$ghash>(self.state.acc))
            }

            /// Without the default's clone (which would copy the key powers).
            #[inline]
            fn finalize_reset(&mut self) -> Tag {
                let tag = Tag::from(field::store::<$ghash>(self.state.acc));
                self.state.reset();
                tag
            }
        }

        impl Reset for $t {
            fn reset(&mut self) {
                self.state.reset();
            }
        }
    };
}

family!(true, "GHASH", GHash, GHashKey, GHashState, GHashRef, |h| {
    field::ghash_key(&h.0)
});
family!(
    false,
    "POLYVAL",
    Polyval,
    PolyvalKey,
    PolyvalState,
    PolyvalRef,
    |h| u128::from_le_bytes(h.0)
);
