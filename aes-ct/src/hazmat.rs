//! Narrow accessors for sibling crates of this workspace (`aes-gcm-ct`'s
//! fused AES + GHASH loops). Not part of the stable API; no `unsafe` here.
//!
//! * [`RoundKeys`]: the standard FIPS-197 encryption round keys of a key,
//!   computed with this crate's constant-time key schedule
//!   (`schedule.rs`; through the detected backend's AES instructions
//!   where it has them), wiped on drop.
//! * [`uses_aes_instructions`]: whether a backend runs on the CPU's AES
//!   instructions (AES-NI / VAES / ARMv8), so a caller can tell that
//!   fusing its own AES-instruction loop keeps the user's backend choice.
//! * [`round_steps`]: the FIPS-197 round transformations on their own
//!   (for the `hazmat` modules of the `compat/` facades of RustCrypto
//!   `aes`), computed by the portable bitsliced code, so constant time on
//!   every CPU.
//! * [`round_then_add_key`] and [`upstream_round_fns!`](crate::upstream_round_fns):
//!   those transformations followed by AddRoundKey, as upstream `aes`'s
//!   `hazmat` functions, written once for both facade generations.

use crate::Backend;
use crate::soft::{bitslice, word::Word};
use core::fmt;
use zeroize::Zeroize;

/// Standard encryption round keys (`rounds() + 1` of them, FIPS-197 byte
/// order). Wiped on drop.
#[derive(Clone)]
pub struct RoundKeys {
    nr: usize,
    rk: [[u8; 16]; 15],
}

impl RoundKeys {
    /// Expand a 16-, 24- or 32-byte AES key; `None` for any other length.
    pub fn new(key: &[u8]) -> Option<Self> {
        let mut rk = Self {
            nr: 0,
            rk: [[0; 16]; 15],
        };
        rk.nr = Self::expand_into(key, &mut rk.rk)?;
        Some(rk)
    }

    /// Expand a 16-, 24- or 32-byte AES key into `rk` (as [`Self::new`],
    /// for a caller that builds its own key form in place, so no copy of
    /// the round keys is left behind; wiping `rk` is the caller's):
    /// the number of rounds, or `None` (and `rk` untouched) for any other
    /// length.
    pub fn expand_into(key: &[u8], rk: &mut [[u8; 16]; 15]) -> Option<usize> {
        let nr = Self::rounds_for(key.len())?;
        match nr {
            10 => crate::backend::schedule_into::<10>(key, rk),
            12 => crate::backend::schedule_into::<12>(key, rk),
            _ => crate::backend::schedule_into::<14>(key, rk),
        }
        Some(nr)
    }

    /// The number of rounds of an AES key of `key_len` bytes (10, 12 or 14
    /// for 16, 24 or 32), `None` for any other length: the one key-length
    /// rule, for callers that decide on a key form before expanding.
    pub const fn rounds_for(key_len: usize) -> Option<usize> {
        match key_len {
            16 | 24 | 32 => Some(6 + key_len / 4),
            _ => None,
        }
    }

    /// Round keys a key form holds already (`nr` rounds).
    pub(crate) fn from_enc(nr: usize, rk: [[u8; 16]; 15]) -> Self {
        Self { nr, rk }
    }

    /// Number of rounds: 10, 12 or 14.
    pub fn rounds(&self) -> usize {
        self.nr
    }

    /// All 15 slots; the first `rounds() + 1` are the round keys, the rest
    /// are zero.
    pub fn as_array(&self) -> &[[u8; 16]; 15] {
        &self.rk
    }
}

impl Drop for RoundKeys {
    fn drop(&mut self) {
        crate::hybrid::wipe_blocks(&mut self.rk);
    }
}

impl zeroize::ZeroizeOnDrop for RoundKeys {}

impl fmt::Debug for RoundKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RoundKeys {{ rounds: {}, .. }}", self.nr)
    }
}

/// Does `backend` use the CPU's AES instructions (AES-NI, VAES, ARMv8)?
pub fn uses_aes_instructions(backend: Backend) -> bool {
    matches!(backend.name(), "aesni" | "vaes" | "armv8")
}

/// Block counts at which the `hybrid` backend's plan for a call changes on
/// this CPU (its policy's tail thresholds, batch size and multiples), each
/// with its neighbours; `None` where the hybrid cannot run here. For tests
/// and the constant-time checker, which must reach every plan.
pub fn hybrid_policy_edges() -> Option<[usize; crate::hybrid::POLICY_EDGES]> {
    #[cfg(all(aes_ct_simd, feature = "hybrid"))]
    return crate::simd::Hybrid::policy_edges();
    #[allow(unreachable_code)]
    None
}

/// Which round transformations [`round_steps`] applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoundStep {
    /// SubBytes, ShiftRows, MixColumns: a cipher round without its
    /// AddRoundKey (what x86 `AESENC` does before the key XOR).
    Cipher,
    /// InvShiftRows, InvSubBytes, InvMixColumns: a round of the equivalent
    /// inverse cipher without its AddRoundKey (`AESDEC` before the XOR).
    EquivInvCipher,
    /// MixColumns alone.
    MixColumns,
    /// InvMixColumns alone.
    InvMixColumns,
}

/// Apply `step` to every block of `blocks`, in place. The blocks go
/// through the portable bitsliced code four at a time (no table, no branch
/// or index on the data); its bit planes are wiped afterwards.
pub fn round_steps(step: RoundStep, blocks: &mut [[u8; 16]]) {
    type W = u64;
    for chunk in blocks.chunks_mut(W::LANE_BLOCKS) {
        let mut q = W::load(|j| chunk.get(j).copied().unwrap_or_default());
        match step {
            RoundStep::Cipher => {
                bitslice::sbox(&mut q);
                bitslice::rotate_rows(&mut q, 1);
                bitslice::mix_columns(&mut q);
            }
            RoundStep::EquivInvCipher => {
                bitslice::inv_shift_rows(&mut q);
                bitslice::inv_sbox(&mut q);
                bitslice::inv_mix_columns(&mut q);
            }
            RoundStep::MixColumns => bitslice::mix_columns(&mut q),
            RoundStep::InvMixColumns => bitslice::inv_mix_columns(&mut q),
        }
        W::store(&q, |j, b| {
            if let Some(out) = chunk.get_mut(j) {
                *out = b;
            }
        });
        q.zeroize();
    }
}

/// [`round_steps`] on `blocks`, then each block XORed with its round key
/// (AddRoundKey) when `round_keys` is given, for any 16-byte block type
/// (the facades' `GenericArray` and `Array`). The blocks are copied into a
/// batch of 8 and back; the batch is wiped.
pub fn round_then_add_key<B: AsRef<[u8; 16]> + AsMut<[u8; 16]>>(
    step: RoundStep,
    blocks: &mut [B],
    round_keys: Option<&[B]>,
) {
    let mut batch = [[0u8; 16]; 8];
    for (c, chunk) in blocks.chunks_mut(batch.len()).enumerate() {
        let n = chunk.len();
        for (b, x) in batch.iter_mut().zip(chunk.iter()) {
            *b = *x.as_ref();
        }
        round_steps(step, &mut batch[..n]);
        for (i, (x, b)) in chunk.iter_mut().zip(batch.iter()).enumerate() {
            let x = x.as_mut();
            *x = *b;
            if let Some(k) = round_keys.and_then(|k| k.get(c * batch.len() + i)) {
                for (v, kv) in x.iter_mut().zip(k.as_ref()) {
                    *v ^= kv;
                }
            }
        }
    }
    ct_dispatch::wipe::wipe(&mut batch);
}

/// `upstream_round_fns!(Block, Block8)`: upstream `aes`'s `hazmat` round
/// functions (`cipher_round`, `cipher_round_par`, `equiv_inv_cipher_round`,
/// `equiv_inv_cipher_round_par`, `mix_columns`, `inv_mix_columns`) with
/// upstream's signatures over the given block types, each one
/// [`round_then_add_key`] call. For the `compat/` facades of `aes`.
#[doc(hidden)]
#[macro_export]
macro_rules! upstream_round_fns {
    ($block:ty, $block8:ty) => {
        $crate::upstream_round_fns!(@keyed $block, $block8, Cipher, cipher_round, cipher_round_par,
            "AES cipher (encrypt) round function: SubBytes, ShiftRows, MixColumns, AddRoundKey.",
            "AES cipher (encrypt) round function on 8 blocks, each with its round key.");
        $crate::upstream_round_fns!(@keyed $block, $block8, EquivInvCipher,
            equiv_inv_cipher_round, equiv_inv_cipher_round_par,
            "AES equivalent inverse cipher (decrypt) round function: InvShiftRows, InvSubBytes, \
             InvMixColumns, AddRoundKey.",
            "AES equivalent inverse cipher round function on 8 blocks, each with its round key.");
        $crate::upstream_round_fns!(@unkeyed $block, MixColumns, mix_columns,
            "AES mix columns function.");
        $crate::upstream_round_fns!(@unkeyed $block, InvMixColumns, inv_mix_columns,
            "AES inverse mix columns function.");
    };
    (@keyed $block:ty, $block8:ty, $step:ident, $one:ident, $par:ident,
     $doc:literal, $doc_par:literal) => {
        #[doc = $doc]
        ///
        /// Use this function with great care! It is not AES.
        pub fn $one(block: &mut $block, round_key: &$block) {
            $crate::hazmat::round_then_add_key(
                $crate::hazmat::RoundStep::$step,
                core::slice::from_mut(block),
                Some(core::slice::from_ref(round_key)),
            )
        }

        #[doc = $doc_par]
        ///
        /// Use this function with great care! It is not AES.
        pub fn $par(blocks: &mut $block8, round_keys: &$block8) {
            $crate::hazmat::round_then_add_key(
                $crate::hazmat::RoundStep::$step,
                &mut blocks[..],
                Some(&round_keys[..]),
            )
        }
    };
    (@unkeyed $block:ty, $step:ident, $name:ident, $doc:literal) => {
        #[doc = $doc]
        ///
        /// Use this function with great care! It is not AES.
        pub fn $name(block: &mut $block) {
            $crate::hazmat::round_then_add_key(
                $crate::hazmat::RoundStep::$step,
                core::slice::from_mut(block),
                None,
            )
        }
    };
}
