//! Low-level "hazmat" AES functions: upstream's FIPS-197 round functions.
//!
//! Each one is aes-ct's round transformations (`aes_ct::hazmat::round_steps`,
//! the portable bitsliced code: constant time on every CPU, with or without
//! AES instructions) followed by the XOR with the round key. They are not
//! AES: misuse builds insecure ciphers. The caller's blocks are copied into
//! a batch and back; the copies are wiped.

pub use crate::Block;
use aes_ct::hazmat::{round_steps, RoundStep};
use ct_dispatch::wipe::wipe;

/// Eight 128-bit AES blocks
pub type Block8 = aes_ct::cipher::array::Array<Block, aes_ct::cipher::consts::U8>;

/// `step` on `blocks`, then each XORed with its round key (if any).
fn apply(step: RoundStep, blocks: &mut [Block], round_keys: Option<&[Block]>) {
    let mut batch = [[0u8; 16]; 8];
    let n = blocks.len().min(batch.len());
    for (b, x) in batch.iter_mut().zip(blocks.iter()) {
        *b = x.0;
    }
    round_steps(step, &mut batch[..n]);
    for (i, (x, b)) in blocks.iter_mut().zip(batch.iter()).enumerate() {
        x.0 = *b;
        if let Some(k) = round_keys.and_then(|k| k.get(i)) {
            for (v, kv) in x.iter_mut().zip(k.iter()) {
                *v ^= kv;
            }
        }
    }
    wipe(&mut batch);
}

/// AES cipher (encrypt) round function: SubBytes, ShiftRows, MixColumns,
/// AddRoundKey.
///
/// Use this function with great care! It is not AES.
pub fn cipher_round(block: &mut Block, round_key: &Block) {
    apply(
        RoundStep::Cipher,
        core::slice::from_mut(block),
        Some(core::slice::from_ref(round_key)),
    )
}

/// AES cipher (encrypt) round function on 8 blocks, each with its round key.
///
/// Use this function with great care! It is not AES.
pub fn cipher_round_par(blocks: &mut Block8, round_keys: &Block8) {
    apply(
        RoundStep::Cipher,
        blocks.as_mut_slice(),
        Some(round_keys.as_slice()),
    )
}

/// AES equivalent inverse cipher (decrypt) round function: InvShiftRows,
/// InvSubBytes, InvMixColumns, AddRoundKey.
///
/// Use this function with great care! It is not AES.
pub fn equiv_inv_cipher_round(block: &mut Block, round_key: &Block) {
    apply(
        RoundStep::EquivInvCipher,
        core::slice::from_mut(block),
        Some(core::slice::from_ref(round_key)),
    )
}

/// AES equivalent inverse cipher round function on 8 blocks, each with its
/// round key.
///
/// Use this function with great care! It is not AES.
pub fn equiv_inv_cipher_round_par(blocks: &mut Block8, round_keys: &Block8) {
    apply(
        RoundStep::EquivInvCipher,
        blocks.as_mut_slice(),
        Some(round_keys.as_slice()),
    )
}

/// AES mix columns function.
///
/// Use this function with great care! It is not AES.
pub fn mix_columns(block: &mut Block) {
    apply(RoundStep::MixColumns, core::slice::from_mut(block), None)
}

/// AES inverse mix columns function.
///
/// Use this function with great care! It is not AES.
pub fn inv_mix_columns(block: &mut Block) {
    apply(RoundStep::InvMixColumns, core::slice::from_mut(block), None)
}
