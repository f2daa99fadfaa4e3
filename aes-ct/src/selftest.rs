//! Start-up known-answer test run on a backend before it is selected
//! (feature `self-test`): FIPS-197 appendix C.1 and C.3, one block and a
//! run of 9 blocks (so batch and tail paths run too), encrypt and decrypt.
//! A backend that fails is skipped and the next one in table order is tried.

use crate::{Aes128, Aes256, Backend, Block};
use cipher::{BlockCipherDecrypt, BlockCipherEncrypt, consts::U16};

const PT: [u8; 16] = *b"\x00\x11\x22\x33\x44\x55\x66\x77\x88\x99\xaa\xbb\xcc\xdd\xee\xff";
const CT128: [u8; 16] = *b"\x69\xc4\xe0\xd8\x6a\x7b\x04\x30\xd8\xcd\xb7\x80\x70\xb4\xc5\x5a";
const CT256: [u8; 16] = *b"\x8e\xa2\xb7\xca\x51\x67\x45\xbf\xea\xfc\x49\x90\x4b\x49\x60\x89";

fn check<C>(c: &C, ct: [u8; 16]) -> bool
where
    C: BlockCipherEncrypt<BlockSize = U16> + BlockCipherDecrypt,
{
    let mut b = Block::from(PT);
    c.encrypt_block(&mut b);
    let mut ok = b == Block::from(ct);
    c.decrypt_block(&mut b);
    ok &= b == Block::from(PT);
    let mut run = [Block::from(PT); 9];
    c.encrypt_blocks(&mut run);
    ok &= run.iter().all(|x| *x == Block::from(ct));
    c.decrypt_blocks(&mut run);
    ok && run.iter().all(|x| *x == Block::from(PT))
}

pub(crate) fn passes(b: Backend) -> bool {
    let k: [u8; 32] = core::array::from_fn(|i| i as u8);
    let k128: [u8; 16] = core::array::from_fn(|i| i as u8);
    match (
        Aes128::new_with_backend(&k128.into(), b),
        Aes256::new_with_backend(&k.into(), b),
    ) {
        (Ok(a128), Ok(a256)) => check(&a128, CT128) && check(&a256, CT256),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_available_backend_passes() {
        for b in crate::Backend::available() {
            assert!(super::passes(b), "self-test failed on {b:?}");
        }
        assert!(crate::Backend::detected().is_available());
    }
}
