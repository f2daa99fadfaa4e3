use aes_ct::*;
use cipher::{BlockCipherEncrypt, BlockCipherDecrypt, KeyInit};
#[test]
fn fips197() {
    let pt: [u8;16] = hex::decode("00112233445566778899aabbccddeeff").unwrap().try_into().unwrap();
    let k: Vec<u8> = (0u8..32).collect();
    let c = Aes128::new_from_slice(&k[..16]).unwrap();
    let mut b = Block::from(pt);
    c.encrypt_block(&mut b);
    assert_eq!(hex::encode(b), "69c4e0d86a7b0430d8cdb78070b4c55a");
    c.decrypt_block(&mut b);
    assert_eq!(hex::encode(b), hex::encode(pt));
    let c = Aes256::new_from_slice(&k[..32]).unwrap();
    let mut b = Block::from(pt);
    c.encrypt_block(&mut b);
    assert_eq!(hex::encode(b), "8ea2b7ca516745bfeafc49904b496089");
    let mut bs = [Block::from(pt); 11];
    c.encrypt_blocks(&mut bs);
    for x in &bs { assert_eq!(hex::encode(x), "8ea2b7ca516745bfeafc49904b496089"); }
    c.decrypt_blocks(&mut bs);
    for x in &bs { assert_eq!(hex::encode(x), hex::encode(pt)); }
}
