//! The two ε-ΔU hash functions of HBSH (Crowley & Biggers, IACR ToSC
//! 2018(4), section 6): Adiantum's `Poly1305(le128(|L|) || T) +
//! Poly1305(NH(pad(L)))` and HPolyC's `Poly1305(pad(le32(|T|) || T) || L)`,
//! both built from the shared [`crate::poly`] and [`crate::nh`] modules.
//! Cost per message byte: Adiantum one NH unit per 16 bytes plus one
//! Poly1305 block per 512 bytes; HPolyC one Poly1305 block per 16 bytes.

use crate::backend::{Nh, NhChoice};
use crate::nh::{self, NhKey};
use crate::poly::{PolyKey, PolyState};
use zeroize::Zeroize;

mod sealed {
    pub trait Sealed {}
}

/// The hash half of an HBSH construction: Adiantum's NH + Poly1305
/// ([`NhPoly1305`]) or HPolyC's Poly1305 ([`Poly1305Hash`]).
pub trait HashVariant: sealed::Sealed {
    /// Name for `Debug`.
    const NAME: &'static str;
    /// Bytes of derived key material after the 32-byte AES key.
    #[doc(hidden)]
    const KEY_BYTES: usize;
    /// Longest tweak the specification allows, in bytes.
    const MAX_TWEAK: usize;
    #[doc(hidden)]
    type Key: Clone;
    #[doc(hidden)]
    fn key(bytes: &[u8], nh: NhChoice) -> Self::Key;
    /// The tweak-dependent part of the hash, shared by the two hashes of
    /// one message (same tweak, same length).
    #[doc(hidden)]
    type Prefix;
    #[doc(hidden)]
    fn prefix(key: &Self::Key, tweak: &[u8], msg_len: usize) -> Self::Prefix;
    #[doc(hidden)]
    fn hash(key: &Self::Key, prefix: &Self::Prefix, msg: &[u8]) -> u128;
}

/// Adiantum's hash: NH then Poly1305 over the message, Poly1305 over the
/// message length and tweak, added mod 2^128.
#[derive(Clone, Copy, Debug)]
pub struct NhPoly1305;

/// Adiantum's hash key: `K_T`, `K_L`, the NH key, and the NH backend.
#[derive(Clone)]
pub struct AdiantumHashKey {
    kt: PolyKey,
    kl: PolyKey,
    nh_key: NhKey,
    pub(crate) nh: Nh,
}

impl core::fmt::Debug for AdiantumHashKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "AdiantumHashKey {{ nh: {}, .. }}", self.nh.backend())
    }
}

impl sealed::Sealed for NhPoly1305 {}

impl HashVariant for NhPoly1305 {
    const NAME: &'static str = "NH-Poly1305";
    const KEY_BYTES: usize = 16 + 16 + nh::KEY_BYTES;
    /// Tweaks of up to 2^73 bits are allowed: any slice.
    const MAX_TWEAK: usize = usize::MAX;
    type Key = AdiantumHashKey;

    fn key(bytes: &[u8], nh: NhChoice) -> AdiantumHashKey {
        let mut nk = [0u8; nh::KEY_BYTES];
        nk.copy_from_slice(&bytes[32..32 + nh::KEY_BYTES]);
        let k = AdiantumHashKey {
            kt: PolyKey::new(&bytes[..16]),
            kl: PolyKey::new(&bytes[16..32]),
            nh_key: NhKey::from_bytes(&nk),
            nh: nh.0,
        };
        nk.zeroize();
        k
    }

    type Prefix = u128;

    fn prefix(key: &AdiantumHashKey, tweak: &[u8], msg_len: usize) -> u128 {
        // H_T = Poly_{K_T}(fromint_128(|L| in bits) || T)
        let mut st = key.kt.start();
        let bits = (msg_len as u128) * 8;
        st.blocks(&bits.to_le_bytes());
        let whole = tweak.len() - tweak.len() % 16;
        st.blocks(&tweak[..whole]);
        st.finish(&tweak[whole..])
    }

    fn hash(key: &AdiantumHashKey, ht: &u128, msg: &[u8]) -> u128 {
        // H_T + Poly_{K_L}(NH_{K_N}(pad_128(L)))
        ht.wrapping_add(nh_poly1305(&key.kl, key.nh, &key.nh_key, msg))
    }
}

/// `Poly_{K_L}(NH_{K_N}(pad_128(L)))`, Linux's `nhpoly1305`: each chunk's
/// 32-byte NH output goes straight into Poly1305 (two blocks).
pub(crate) fn nh_poly1305(kl: &PolyKey, nh: Nh, nh_key: &NhKey, msg: &[u8]) -> u128 {
    let mut st = kl.start();
    for chunk in msg.chunks(nh::CHUNK) {
        let mut out = nh::nh_chunk(nh, nh_key, chunk);
        st.blocks(&out);
        out.zeroize();
    }
    st.finish(&[])
}

/// HPolyC's hash: Poly1305 over the padded tweak (with its bit length) and
/// the message.
#[derive(Clone, Copy, Debug)]
pub struct Poly1305Hash;

impl sealed::Sealed for Poly1305Hash {}

impl HashVariant for Poly1305Hash {
    const NAME: &'static str = "Poly1305";
    const KEY_BYTES: usize = 16;
    /// The tweak's bit length must fit in 32 bits.
    const MAX_TWEAK: usize = ((u32::MAX as u64) / 8) as usize;
    type Key = PolyKey;

    fn key(bytes: &[u8], _: NhChoice) -> PolyKey {
        PolyKey::new(&bytes[..16])
    }

    type Prefix = PolyState;

    fn prefix(key: &PolyKey, tweak: &[u8], _: usize) -> PolyState {
        // Poly_K(pad_128(int_32(|T| in bits) || T) || L): the tweak part.
        let mut st = key.start();
        let mut block = [0u8; 16];
        // Callers reject longer tweaks; the mask keeps this total.
        let bits = ((tweak.len() as u64).wrapping_mul(8) & 0xffff_ffff) as u32;
        block[..4].copy_from_slice(&bits.to_le_bytes());
        let first = tweak.len().min(12);
        let mut head = ct_dispatch::short::read_block(&tweak[..first]);
        block[4..].copy_from_slice(&head[..12]);
        head.zeroize();
        st.blocks(&block);
        let rest = &tweak[first..];
        let whole = rest.len() - rest.len() % 16;
        st.blocks(&rest[..whole]);
        if whole < rest.len() {
            block = ct_dispatch::short::read_block(&rest[whole..]);
            st.blocks(&block);
        }
        block.zeroize();
        st
    }

    fn hash(_: &PolyKey, prefix: &PolyState, msg: &[u8]) -> u128 {
        let mut st = prefix.clone();
        let whole = msg.len() - msg.len() % 16;
        st.blocks(&msg[..whole]);
        st.finish(&msg[whole..])
    }
}
