//! The software path for aes-ct ciphers without AES instructions (vpaes /
//! bsaes hybrid on SSSE3 and NEON, the portable backend): aes-ct's own CTR
//! mode, then ghash-ct over the ciphertext, in chunks of up to 16 KiB.
//!
//! Technique: `aes_ct::Ctr32BE`'s whole-block loop (`CtrCore::
//! apply_keystream_blocks_inout`) is each backend's fused CTR: the hybrid
//! converts its key to bitsliced form once per call, builds counters and
//! XORs the keystream inside its batch loop (on armv7 one assembly loop with
//! the counters in NEON registers), and runs short tails through vpaes. The
//! generic path cannot reach that loop: it drives the cipher through the
//! block-cipher traits, building counter blocks and XORing them itself
//! (a pass over the data that the fused loop does not need). A chunk of
//! 16 KiB stays in L1 between the CTR pass and the GHASH pass, and is long
//! enough that one key conversion per chunk is a small share of it.
//!
//! The tag mask E_K(J0) is the keystream of J0 (CTR over one zero block:
//! a single vpaes block on the hybrid); the partial last block goes through
//! a zero-padded stack block, wiped after use; the last text block and the
//! lengths block are hashed in one call (one reduction). Texts of up to 64
//! bytes take the generic path instead (one cipher call for mask and text
//! beats two CTR calls there).
//!
//! Cost: aes-ct's CTR plus ghash-ct, plus a few hundred instructions per
//! message.

use crate::backend::{AesCtCipher, AesCtFn};
use crate::generic::{hash_text, wipe_block};
use crate::{Block, Msg};
use aead::inout::InOutBuf;
use aes_ct::{CtrCipher, CtrCore};
use cipher::{BlockCipherEncrypt, BlockSizeUser, InnerIvInit, StreamCipherCore, consts::U16};
use ct_dispatch::short::{read_block, write_block};
use ghash_ct::{GHashKey, GHashState};

/// Bytes per chunk (CTR pass, then GHASH pass).
const CHUNK: usize = 16 * 1024;

/// Texts of at most this many bytes take the generic path (one cipher
/// call for the tag mask and the text; two CTR calls cost more there).
const SHORT: usize = 64;

/// The path's row in the dispatch table.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CtrGhash;

/// Runs on every CPU (so it can be forced and tested anywhere).
/// Automatic selection takes it only for aes-ct ciphers whose backend has
/// no AES instructions (`backend::choose`).
impl crate::backend::PathCheck for CtrGhash {
    fn ok() -> bool {
        true
    }
}

/// The message through `cipher`, an aes-ct cipher (a key of this path is
/// only made for one; any other would take the generic path).
pub(crate) fn crypt_any<Aes: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16>>(
    cipher: &Aes,
    ghash: &GHashKey,
    msg: Msg<'_, '_, '_>,
) -> Block {
    struct Run<'a, 'i, 'o> {
        ghash: &'a GHashKey,
        msg: Msg<'a, 'i, 'o>,
    }
    impl AesCtFn for Run<'_, '_, '_> {
        type Out = Block;
        fn call<C: AesCtCipher>(self, c: &C) -> Block {
            crypt(c, self.ghash, self.msg)
        }
    }
    crate::backend::on_aes_ct(cipher, Run { ghash, msg })
        .unwrap_or_else(|r| crate::generic::crypt(cipher, r.ghash, r.msg))
}

/// CTR from `ctr` over `buf` (whole blocks through the fused loop, a
/// partial last block through a padded stack block).
fn ctr<C: CtrCipher>(c: &C, nonce: &[u8; 12], ctr: u32, buf: InOutBuf<'_, '_, u8>) {
    let mut iv = Block::default();
    iv[..12].copy_from_slice(nonce);
    iv[12..].copy_from_slice(&ctr.to_be_bytes());
    let mut core = CtrCore::<&C>::inner_iv_init(c, &iv);
    let (blocks, mut tail) = buf.into_chunks::<U16>();
    core.apply_keystream_blocks_inout(blocks);
    if !tail.is_empty() {
        let mut last = Block::from(read_block(tail.get_in()));
        core.apply_keystream_block_inout((&mut last).into());
        write_block(tail.get_out(), &last.0);
        wipe_block(&mut last);
    }
    // The counter block is secret when J0 comes from a long nonce.
    wipe_block(&mut iv);
}

/// The whole message: tag mask, AAD, chunks, lengths; the full tag.
fn crypt<C: CtrCipher>(c: &C, ghash: &GHashKey, msg: Msg<'_, '_, '_>) -> Block {
    if msg.buf.len() <= SHORT {
        return crate::generic::crypt(c, ghash, msg);
    }
    let Msg {
        j0,
        counter_public: _,
        aad,
        mut buf,
        encrypt,
    } = msg;
    let mut nonce = [0u8; 12];
    nonce.copy_from_slice(&j0[..12]);
    let c0 = u32::from_be_bytes([j0[12], j0[13], j0[14], j0[15]]);

    // E_K(J0): the keystream block of J0.
    let mut mask = Block::default();
    ctr(c, &nonce, c0, (&mut mask[..]).into());

    let mut st = GHashState::new();
    ghash.update_padded(&mut st, aad);
    let text_len = buf.len();
    let lens = crate::lens_block(aad.len(), text_len);

    let mut next = c0.wrapping_add(1);
    while !buf.is_empty() {
        let n = buf.len().min(CHUNK);
        let (mut chunk, rest) = buf.split_at(n);
        let last = rest.is_empty();
        if !encrypt {
            hash_text(ghash, &mut st, chunk.get_in(), last.then_some(&lens));
        }
        ctr(c, &nonce, next, chunk.reborrow());
        if encrypt {
            hash_text(ghash, &mut st, chunk.get_out(), last.then_some(&lens));
        }
        next = next.wrapping_add((n / 16) as u32);
        buf = rest;
    }
    if text_len == 0 {
        ghash.update(&mut st, core::slice::from_ref(&lens));
    }
    let mut s = st.finalize();
    let tag = u128::from_ne_bytes(s.0) ^ u128::from_ne_bytes(mask.0);
    wipe_block(&mut s);
    wipe_block(&mut mask);
    // J0's first 12 bytes: secret when the nonce is not 96 bits.
    ct_dispatch::wipe::wipe(&mut nonce);
    tag.to_ne_bytes().into()
}
