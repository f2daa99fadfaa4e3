//! Start-up known-answer test run on a backend before it is selected
//! (feature `self-test`). FIPS-197 appendix C.1 and C.3.

use crate::{Aes128, Aes256, Backend, Block};
use cipher::{BlockCipherDecrypt, BlockCipherEncrypt};

const PT: [u8; 16] = *b"\x00\x11\x22\x33\x44\x55\x66\x77\x88\x99\xaa\xbb\xcc\xdd\xee\xff";

fn check<C: BlockCipherEncrypt + BlockCipherDecrypt>(c: &C, ct: [u8; 16]) -> bool {
    let mut b = Block::from(PT);
    c.encrypt_block(&mut b);
    let enc_ok = b == Block::from(ct);
    c.decrypt_block(&mut b);
    enc_ok && b == Block::from(PT)
}

pub(crate) fn passes(b: Backend) -> bool {
    let k: [u8; 32] = core::array::from_fn(|i| i as u8);
    let (Ok(a128), Ok(a256)) = (
        Aes128::new_with_backend(k[..16].try_into().unwrap_or_default(), b),
        Aes256::new_with_backend(&k.into(), b),
    ) else {
        return false;
    };
    check(
        &a128,
        *b"\x69\xc4\xe0\xd8\x6a\x7b\x04\x30\xd8\xcd\xb7\x80\x70\xb4\xc5\x5a",
    ) && check(
        &a256,
        *b"\x8e\xa2\xb7\xca\x51\x67\x45\xbf\xea\xfc\x49\x90\x4b\x49\x60\x89",
    )
}
