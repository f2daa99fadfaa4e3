//! aes-ct against RustCrypto `aes` on every available backend: input =
//! key-size selector byte, key, then blocks (the tail that is not a whole
//! block is dropped). Encrypt and decrypt, in place and block-to-block,
//! whole slice and one block at a time; decrypt(encrypt(x)) == x.
#![no_main]

use aes_ct::Backend;
use cipher::{Array, BlockCipherDecrypt, BlockCipherEncrypt, KeyInit, consts::U16};
use libfuzzer_sys::fuzz_target;

type Block = Array<u8, U16>;

fn blocks(data: &[u8]) -> Vec<Block> {
    data.chunks_exact(16)
        .map(|c| Block::try_from(c).expect("16"))
        .collect()
}

fn check<Ours, Theirs>(key: &[u8], data: &[u8], mk: impl Fn(&[u8], Backend) -> Ours)
where
    Ours: BlockCipherEncrypt + BlockCipherDecrypt + cipher::BlockSizeUser<BlockSize = U16>,
    Theirs: BlockCipherEncrypt + BlockCipherDecrypt + KeyInit + cipher::BlockSizeUser<BlockSize = U16>,
{
    let reference = Theirs::new_from_slice(key).expect("key length");
    let pt = blocks(data);
    let mut want = pt.clone();
    reference.encrypt_blocks(&mut want);
    let mut want_dec = pt.clone();
    reference.decrypt_blocks(&mut want_dec);
    for b in Backend::available() {
        let ours = mk(key, b);
        let mut got = pt.clone();
        ours.encrypt_blocks(&mut got);
        assert_eq!(got, want, "encrypt, backend {b}, {} blocks", pt.len());
        let mut out = vec![Block::default(); pt.len()];
        ours.encrypt_blocks_b2b(&pt, &mut out).expect("same length");
        assert_eq!(out, want, "encrypt b2b, backend {b}");
        ours.decrypt_blocks(&mut got);
        assert_eq!(got, pt, "round trip, backend {b}");
        let mut got = pt.clone();
        ours.decrypt_blocks(&mut got);
        assert_eq!(got, want_dec, "decrypt, backend {b}");
        if let Some(first) = pt.first() {
            let mut one = *first;
            ours.encrypt_block(&mut one);
            assert_eq!(one, want[0], "encrypt_block, backend {b}");
        }
    }
}

fuzz_target!(|input: &[u8]| {
    let Some((&sel, rest)) = input.split_first() else {
        return;
    };
    let klen = [16, 24, 32][usize::from(sel % 3)];
    if rest.len() < klen {
        return;
    }
    let (key, data) = rest.split_at(klen);
    match klen {
        16 => check::<_, aes::Aes128>(key, data, |k, b| {
            aes_ct::Aes128::new_with_backend(k.try_into().expect("16"), b).expect("available")
        }),
        24 => check::<_, aes::Aes192>(key, data, |k, b| {
            aes_ct::Aes192::new_with_backend(k.try_into().expect("24"), b).expect("available")
        }),
        _ => check::<_, aes::Aes256>(key, data, |k, b| {
            aes_ct::Aes256::new_with_backend(k.try_into().expect("32"), b).expect("available")
        }),
    }
});
