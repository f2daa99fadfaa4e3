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

use crate::{Block, Msg};
use aead::inout::InOutBuf;
use cipher::{
    Array, BlockCipherEncBackend, BlockCipherEncClosure, BlockCipherEncrypt, BlockSizeUser,
    consts::U16, typenum::Unsigned,
};
use core::mem::MaybeUninit;
use ct_dispatch::short::read_block;
use ghash_ct::{GHashKey, GHashState};

/// Blocks per chunk at most (2 KiB of keystream on the stack).
pub(crate) const CHUNK_BLOCKS: usize = 128;

/// Texts of at most this many blocks are encrypted in the tag mask's
/// cipher call.
const SHORT_BLOCKS: usize = 4;

/// Encrypt (`encrypt`) or decrypt `buf` and return the full tag.
pub(crate) fn crypt<Aes>(cipher: &Aes, ghash: &GHashKey, msg: Msg<'_, '_, '_>) -> Block
where
    Aes: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16>,
{
    let mut tag = Block::default();
    cipher.encrypt_with_backend(Gcm {
        ghash,
        msg,
        tag: &mut tag,
    });
    tag
}

struct Gcm<'a, 'i, 'o> {
    ghash: &'a GHashKey,
    msg: Msg<'a, 'i, 'o>,
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
            msg:
                Msg {
                    j0,
                    counter_public: _,
                    aad,
                    mut buf,
                    encrypt,
                },
            tag,
        } = self;

        // Tag mask: E_K(J0). A text of at most `SHORT_BLOCKS` blocks gets
        // its keystream from the same cipher call (J0 and the text's
        // counters in one tail call: vpaes-2x pairs on the hybrid), longer
        // ones from the chunk loop below with the mask as a single block.
        let short = buf.len() <= SHORT_BLOCKS * 16;
        let mut first = [Block::default(); 1 + SHORT_BLOCKS];
        let nf = if short { 1 + buf.len().div_ceil(16) } else { 1 };
        let c0 = u32::from_be_bytes([j0[12], j0[13], j0[14], j0[15]]);
        for (i, b) in first[..nf].iter_mut().enumerate() {
            *b = counter_block(j0, c0.wrapping_add(i as u32));
        }
        encrypt_run(backend, &mut first[..nf]);
        let mut mask = first[0];

        // A short message with short (non-empty) AAD is hashed in ONE
        // `update` call at the end (AAD, text, lengths: one reduction; a 16-byte seal with
        // 13 bytes of AAD spent 10% of its time on the second call).
        let fold_aad = short && !aad.is_empty() && aad.len() <= SHORT_BLOCKS * 16;
        let mut st = GHashState::new();
        if !fold_aad {
            ghash.update_padded(&mut st, aad);
        }

        // Chunk size: a multiple of the batch size when a batch fits,
        // otherwise every chunk is a "tail" (fewer than a batch).
        let par = B::ParBlocksSize::USIZE;
        let chunk_blocks = if par <= CHUNK_BLOCKS {
            CHUNK_BLOCKS / par * par
        } else {
            CHUNK_BLOCKS
        };

        // Keystream buffer: left uninitialized (a 16-byte message must not
        // pay for clearing 2 KiB); each chunk writes the blocks it reads.
        let mut ks_buf = MaybeUninit::<[Block; CHUNK_BLOCKS]>::uninit();
        let ks_ptr = ks_buf.as_mut_ptr().cast::<Block>();
        let mut used = 0;
        let mut ctr = c0.wrapping_add(1);
        let text_len = buf.len();
        // The lengths block, hashed with the text's last block (one
        // reduction for both).
        let lens = crate::lens_block(aad.len(), text_len);
        let hash_last = |st: &mut GHashState, text: &[u8]| {
            if fold_aad {
                hash_short(ghash, st, aad, text, &lens);
            } else {
                hash_text(ghash, st, text, Some(&lens));
            }
        };
        if short && text_len > 0 {
            let mut chunk = buf.reborrow();
            if !encrypt {
                hash_last(&mut st, chunk.get_in());
            }
            xor_keystream(chunk.reborrow(), &first[1..nf]);
            if encrypt {
                hash_last(&mut st, chunk.get_out());
            }
        }
        for b in first[..nf].iter_mut() {
            wipe_block(b);
        }
        while !short && !buf.is_empty() {
            let n = buf.len().min(chunk_blocks * 16);
            let (mut chunk, rest) = buf.split_at(n);
            let nb = n.div_ceil(16);
            for i in 0..nb {
                // SAFETY: `i < nb <= CHUNK_BLOCKS`, inside `ks_buf`.
                unsafe { ks_ptr.add(i).write(counter_block(j0, ctr)) };
                ctr = ctr.wrapping_add(1);
            }
            used = used.max(nb);
            // SAFETY: the first `nb` blocks were written just above.
            let ks = unsafe { core::slice::from_raw_parts_mut(ks_ptr, nb) };
            encrypt_run(backend, ks);
            let last = rest.is_empty();
            if !encrypt {
                hash_text(ghash, &mut st, chunk.get_in(), last.then_some(&lens));
            }
            xor_keystream(chunk.reborrow(), ks);
            if encrypt {
                hash_text(ghash, &mut st, chunk.get_out(), last.then_some(&lens));
            }
            buf = rest;
        }
        if text_len == 0 {
            if fold_aad {
                hash_short(ghash, &mut st, aad, &[], &lens);
            } else {
                ghash.update(&mut st, core::slice::from_ref(&lens));
            }
        }
        // SAFETY: the first `used <= CHUNK_BLOCKS` blocks were written.
        for b in unsafe { core::slice::from_raw_parts_mut(ks_ptr, used) } {
            wipe_block(b);
        }

        let mut s = st.finalize();
        // One 16-byte XOR (a byte loop over `finalize`'s byte-swapped
        // words compiles to a shift and a store per byte).
        let t = u128::from_ne_bytes(s.0) ^ u128::from_ne_bytes(mask.0);
        tag.0 = t.to_ne_bytes();
        wipe_block(&mut s);
        wipe_block(&mut mask);
    }
}

/// `buf ^= ks` (as many bytes as `buf` has), a whole block at a time.
#[inline(always)]
fn xor_keystream(buf: InOutBuf<'_, '_, u8>, ks: &[Block]) {
    let (blocks, mut tail) = buf.into_chunks::<U16>();
    let n = blocks.len();
    for (mut b, k) in blocks.into_iter().zip(ks) {
        let x = u128::from_ne_bytes((*b.get_in()).into()) ^ u128::from_ne_bytes(k.0);
        *b.get_out() = x.to_ne_bytes().into();
    }
    if !tail.is_empty() {
        let k = &ks[n].0[..tail.len()];
        tail.xor_in2out(k);
    }
}

/// Hash a chunk of text; the last chunk (`lens` given) ends with its last
/// block, zero-padded, and the lengths block in one call (one reduction),
/// the lengths block last and public (`update_public_last`: ghash-ct
/// backends without a carry-less multiply instruction multiply it apart,
/// by its bits, which only the message's lengths decide).
#[inline(always)]
pub(crate) fn hash_text(ghash: &GHashKey, st: &mut GHashState, text: &[u8], lens: Option<&Block>) {
    let Some(lens) = lens else {
        ghash.update_padded(st, text);
        return;
    };
    let head = (text.len() - 1) / 16 * 16;
    ghash.update_padded(st, &text[..head]);
    let mut two = [read_block(&text[head..]).into(), *lens];
    ghash.update_public_last(st, &two);
    wipe_block(&mut two[0]);
}

/// Hash a short message in one call: AAD and text (at most
/// `SHORT_BLOCKS` blocks each), each zero-padded, then the public lengths
/// block (`update_public_last`, as in [`hash_text`]).
#[inline(always)]
fn hash_short(ghash: &GHashKey, st: &mut GHashState, aad: &[u8], text: &[u8], lens: &Block) {
    let mut blocks = [Block::default(); 2 * SHORT_BLOCKS + 1];
    let (na, nt) = (aad.len().div_ceil(16), text.len().div_ceil(16));
    for (b, c) in blocks.iter_mut().zip(aad.chunks(16)) {
        *b = read_block(c).into();
    }
    for (b, c) in blocks[na..].iter_mut().zip(text.chunks(16)) {
        *b = read_block(c).into();
    }
    blocks[na + nt] = *lens;
    ghash.update_public_last(st, &blocks[..na + nt + 1]);
    for b in blocks[na..na + nt].iter_mut() {
        wipe_block(b);
    }
}

/// The counter block `J0[..12] || BE32(c)`.
#[inline(always)]
fn counter_block(j0: &Block, c: u32) -> Block {
    let mut b = *j0;
    b[12..].copy_from_slice(&c.to_be_bytes());
    b
}

/// Encrypt `blocks` in place: whole batches, then the rest (one block as a
/// single block, more as a tail).
#[inline(always)]
fn encrypt_run<B: BlockCipherEncBackend<BlockSize = U16>>(backend: &B, blocks: &mut [Block]) {
    let (batches, rest) = Array::<Block, B::ParBlocksSize>::slice_as_chunks_mut(blocks);
    for batch in batches {
        backend.encrypt_par_blocks_inplace(batch);
    }
    match rest.len() {
        0 => {}
        1 => backend.encrypt_block_inplace(&mut rest[0]),
        _ => backend.encrypt_tail_blocks_inplace(rest),
    }
}

/// Overwrite a block (`ct_dispatch::wipe`: one 16-byte volatile store).
#[inline(always)]
pub(crate) fn wipe_block(b: &mut Block) {
    ct_dispatch::wipe::wipe(&mut b.0);
}
