//! The generic path: any AES implementation, CTR and GHASH alternating in
//! cache-sized chunks.
//!
//! The whole message runs inside ONE `encrypt_with_backend` call, so a
//! cipher that prepares a per-call key form (aes-ct's vpaes/bsaes hybrid
//! converts its key to bitsliced form once per call) does so once per
//! message, and its `encrypt_par_blocks` / `encrypt_tail_blocks` policy
//! decides how each batch and the final remainder are encrypted.
//!
//! Inside the call: the tag mask E_K(J0) is one `encrypt_block`; the
//! message goes in chunks of up to [`CHUNK_BLOCKS`] blocks (2 KiB, a
//! multiple of the backend's batch), each chunk's keystream made with
//! whole batches, XORed in, and the ciphertext hashed right away while it is
//! in L1 (before the XOR when decrypting, after it when encrypting). Only
//! the last chunk can end with a partial batch (`encrypt_tail_blocks`) and a
//! partial block. GHASH uses `ghash_ct`'s key powers (computed at key
//! setup) with a 16-byte per-message state: nothing large is copied.
//!
//! Cost beyond the cipher and GHASH: building counter blocks and one XOR
//! pass over the data, both in L1.

use crate::Block;
use aead::inout::InOutBuf;
use cipher::{
    Array, BlockCipherEncBackend, BlockCipherEncClosure, BlockCipherEncrypt, BlockSizeUser,
    consts::U16, typenum::Unsigned,
};
use ghash_ct::{GHashKey, GHashState};
use zeroize::Zeroize;

/// Blocks per chunk at most (2 KiB of keystream on the stack).
pub(crate) const CHUNK_BLOCKS: usize = 128;

/// Encrypt (`encrypt`) or decrypt `buf` and return the full tag.
pub(crate) fn crypt<Aes>(
    cipher: &Aes,
    ghash: &GHashKey,
    j0: &Block,
    aad: &[u8],
    buf: InOutBuf<'_, '_, u8>,
    encrypt: bool,
) -> Block
where
    Aes: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16>,
{
    let mut tag = Block::default();
    cipher.encrypt_with_backend(Gcm {
        ghash,
        j0,
        aad,
        buf,
        encrypt,
        tag: &mut tag,
    });
    tag
}

struct Gcm<'a, 'i, 'o> {
    ghash: &'a GHashKey,
    j0: &'a Block,
    aad: &'a [u8],
    buf: InOutBuf<'i, 'o, u8>,
    encrypt: bool,
    tag: &'a mut Block,
}

impl BlockSizeUser for Gcm<'_, '_, '_> {
    type BlockSize = U16;
}

impl BlockCipherEncClosure for Gcm<'_, '_, '_> {
    #[inline]
    fn call<B: BlockCipherEncBackend<BlockSize = U16>>(self, backend: &B) {
        let Gcm {
            ghash,
            j0,
            aad,
            mut buf,
            encrypt,
            tag,
        } = self;

        // Tag mask: one single block (the cheap path of every backend).
        let mut mask = *j0;
        backend.encrypt_block_inplace(&mut mask);

        let mut st = GHashState::new();
        ghash.update_padded(&mut st, aad);

        // Chunk size: a multiple of the batch size when a batch fits,
        // otherwise every chunk is a "tail" (fewer than a batch).
        let par = B::ParBlocksSize::USIZE;
        let chunk_blocks = if par <= CHUNK_BLOCKS {
            CHUNK_BLOCKS / par * par
        } else {
            CHUNK_BLOCKS
        };

        let mut ks = [Block::default(); CHUNK_BLOCKS];
        let mut ctr = u32::from_be_bytes([j0[12], j0[13], j0[14], j0[15]]).wrapping_add(1);
        let text_len = buf.len();
        while !buf.is_empty() {
            let n = buf.len().min(chunk_blocks * 16);
            let (mut chunk, rest) = buf.split_at(n);
            let nb = n.div_ceil(16);
            for b in ks[..nb].iter_mut() {
                b[..12].copy_from_slice(&j0[..12]);
                b[12..].copy_from_slice(&ctr.to_be_bytes());
                ctr = ctr.wrapping_add(1);
            }
            let (batches, tail) =
                Array::<Block, B::ParBlocksSize>::slice_as_chunks_mut(&mut ks[..nb]);
            for batch in batches {
                backend.encrypt_par_blocks_inplace(batch);
            }
            if !tail.is_empty() {
                backend.encrypt_tail_blocks_inplace(tail);
            }
            if !encrypt {
                ghash.update_padded(&mut st, chunk.get_in());
            }
            chunk.xor_in2out(&Array::slice_as_flattened(&ks[..nb])[..n]);
            if encrypt {
                ghash.update_padded(&mut st, chunk.get_out());
            }
            buf = rest;
        }
        Array::slice_as_flattened_mut(&mut ks).zeroize();

        let mut lens = Block::default();
        lens[..8].copy_from_slice(&(aad.len() as u64 * 8).to_be_bytes());
        lens[8..].copy_from_slice(&(text_len as u64 * 8).to_be_bytes());
        ghash.update(&mut st, core::slice::from_ref(&lens));
        let mut s = st.finalize();
        for (t, (a, b)) in tag.iter_mut().zip(s.iter().zip(mask.iter())) {
            *t = a ^ b;
        }
        s.0.zeroize();
        mask.0.zeroize();
    }
}
