//! The stream cipher of Adiantum / HPolyC: XChaCha{8,12,20} with the
//! paper's nonce padding (Crowley & Biggers, IACR ToSC 2018(4), section 3:
//! `S_K(N) = XChaCha_K(pad_192(N || 1))`). Key derivation uses the empty
//! nonce (`1 || 0^184`), the bulk uses `C_M || 1 || 0^56`.
//!
//! Built on RustCrypto `chacha20` 0.10 (`xchacha` feature; SSE2/AVX2 on
//! x86, NEON on aarch64, portable elsewhere). That crate's XChaCha uses the
//! IETF layout (32-bit block counter, then the 12-byte nonce
//! `0^32 || N[16..24]`), the paper's uses the original one (64-bit counter,
//! 8-byte nonce `N[16..24]`). The two are the same keystream while the
//! counter stays below 2^32, i.e. for the first 2^38 - 64 bytes, which is why
//! messages are limited to that length (`MAX_BULK`).
//! Cost: one HChaCha plus ceil(n/64) ChaCha blocks per call.

use crate::backend::Nh;
use chacha20::cipher::{
    InOutBuf, KeyIvInit, StreamCipher, StreamCipherError, StreamCipherSeek, consts::U24,
    consts::U32,
};
use zeroize::Zeroize;

/// Longest stream this module produces: (2^32 - 1) blocks of 64 bytes.
pub(crate) const MAX_BULK: u64 = 64 * (u32::MAX as u64);

mod sealed {
    pub trait Sealed {}
}

/// An XChaCha variant usable as the stream cipher of [`crate::Hbsh`].
pub trait StreamVariant: sealed::Sealed {
    /// Name for `Debug`.
    const NAME: &'static str;
    #[doc(hidden)]
    type Rounds: chacha20::Rounds;
    #[doc(hidden)]
    const DOUBLE_ROUNDS: usize;
    #[doc(hidden)]
    type Cipher: KeyIvInit<KeySize = U32, IvSize = U24> + StreamCipher + StreamCipherSeek;
}

macro_rules! variant {
    ($name:ident, $cipher:ty, $rounds:ty, $dr:literal, $doc:literal) => {
        #[doc = $doc]
        #[derive(Clone, Copy, Debug)]
        pub struct $name;
        impl sealed::Sealed for $name {}
        impl StreamVariant for $name {
            const NAME: &'static str = stringify!($name);
            type Rounds = $rounds;
            const DOUBLE_ROUNDS: usize = $dr;
            type Cipher = $cipher;
        }
    };
}

variant!(
    XChaCha8,
    chacha20::XChaCha8,
    chacha20::R8,
    4,
    "XChaCha with 8 rounds (exists only in the authors' test set)."
);
variant!(
    XChaCha12,
    chacha20::XChaCha12,
    chacha20::R12,
    6,
    "XChaCha with 12 rounds (Adiantum's default)."
);
variant!(
    XChaCha20,
    chacha20::XChaCha20,
    chacha20::R20,
    10,
    "XChaCha with 20 rounds."
);

/// Fills `out` with the keystream for the empty nonce (key derivation).
pub(crate) fn derive<S: StreamVariant>(key: &[u8; 32], out: &mut [u8]) {
    let mut nonce = [0u8; 24];
    nonce[0] = 1;
    let mut c = S::Cipher::new(key.into(), &nonce.into());
    out.fill(0);
    // Key derivation asks for at most 1136 bytes: far from the counter limit.
    let _ = c.try_apply_keystream(out);
}

/// XORs the keystream for nonce `C_M || 1` over `buf` (input to output),
/// with the NH backend's own ChaCha if it has one (armv7 NEON), else with
/// the `chacha20` crate.
pub(crate) fn xor<S: StreamVariant>(
    key: &[u8; 32],
    cm: &[u8; 16],
    buf: InOutBuf<'_, '_, u8>,
    nh: Nh,
) -> Result<(), StreamCipherError> {
    let mut nonce = [0u8; 24];
    nonce[..16].copy_from_slice(cm);
    nonce[16] = 1;
    if nh.has_own_chacha() {
        return own_chacha::<S>(key, &nonce, 0, buf, nh);
    }
    let mut c = S::Cipher::new(key.into(), &nonce.into());
    c.try_apply_keystream_inout(buf)
}

/// XChaCha over the backend's ChaCha blocks: HChaCha (from `chacha20`,
/// once per message) gives the subkey, then the original-layout state
/// `constants || subkey || counter 0 || 0 || nonce[16..24]` (equal to the
/// IETF layout below 2^32 blocks).
fn own_chacha<S: StreamVariant>(
    key: &[u8; 32],
    nonce: &[u8; 24],
    counter: u32,
    buf: InOutBuf<'_, '_, u8>,
    nh: Nh,
) -> Result<(), StreamCipherError> {
    if buf.len() as u64 > MAX_BULK - u64::from(counter) * 64 {
        return Err(StreamCipherError);
    }
    let mut n16 = [0u8; 16];
    n16.copy_from_slice(&nonce[..16]);
    let mut subkey = chacha20::hchacha::<S::Rounds>(key.into(), &n16.into());
    let mut state = [0u32; 16];
    state[..4].copy_from_slice(&[0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574]);
    for (w, b) in state[4..12].iter_mut().zip(subkey.chunks_exact(4)) {
        *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    }
    state[12] = counter;
    state[14] = u32::from_le_bytes([nonce[16], nonce[17], nonce[18], nonce[19]]);
    state[15] = u32::from_le_bytes([nonce[20], nonce[21], nonce[22], nonce[23]]);
    let done = nh.chacha_xor(&mut state, S::DOUBLE_ROUNDS, buf);
    state.zeroize();
    subkey.zeroize();
    if done { Ok(()) } else { Err(StreamCipherError) }
}

/// XORs the keystream for a raw 24-byte nonce, from 64-byte block `block`
/// on, over `buf` (for the authors' XChaCha known answers), on the same
/// path as [`xor`].
pub(crate) fn xor_raw<S: StreamVariant>(
    key: &[u8; 32],
    nonce: &[u8; 24],
    block: u32,
    buf: &mut [u8],
    nh: Nh,
) -> Result<(), StreamCipherError> {
    if nh.has_own_chacha() {
        return own_chacha::<S>(key, nonce, block, InOutBuf::from(buf), nh);
    }
    let mut c = S::Cipher::new(key.into(), nonce.into());
    c.try_seek(u64::from(block) * 64)
        .map_err(|_| StreamCipherError)?;
    c.try_apply_keystream(buf)
}
