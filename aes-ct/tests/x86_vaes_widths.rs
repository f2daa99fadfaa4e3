//! The VAES backend at both of its vector widths, forced with the
//! `vaes_limit_width` hook so the AVX2 (256-bit) code runs on AVX-512 CPUs
//! too: raw `encrypt_blocks`/`decrypt_blocks` and CTR (RustCrypto `ctr`
//! over our cipher, and our own `Ctr32BE` with its fused loop) against
//! RustCrypto `aes` + `ctr`, for every block count up to 140 (every
//! batch, group and partial-vector tail of both widths) plus odd byte
//! counts, in place and at odd addresses. Skipped where the CPU lacks VAES.
//! (Its own test binary: the hook is process-wide.)

#![cfg(any(target_arch = "x86", target_arch = "x86_64"))]

mod common;

use aes_ct::Backend;
use cipher::{
    Array, BlockCipherDecrypt, BlockCipherEncrypt, BlockSizeUser, InnerIvInit, KeyInit, KeyIvInit,
    StreamCipher, consts::U16,
};
use common::bytes;

fn check<Ours, Theirs>(key: &[u8], seed: u64)
where
    Ours: aes_ct::CtrCipher + BlockCipherDecrypt,
    for<'a> &'a Ours: aes_ct::CtrCipher,
    Theirs: BlockCipherEncrypt + BlockCipherDecrypt + BlockSizeUser<BlockSize = U16> + KeyInit,
    Ours: NewVaes,
{
    let ours = Ours::vaes(key);
    let theirs = Theirs::new_from_slice(key).unwrap();
    for nb in 0..=140usize {
        // Raw blocks, out of place at an odd address, then in place.
        let mut pt = vec![0u8; 16 * nb];
        bytes(seed ^ nb as u64, &mut pt);
        let blocks = |v: &[u8]| -> Vec<Array<u8, U16>> {
            v.chunks(16).map(|c| Array::try_from(c).unwrap()).collect()
        };
        let mut want = blocks(&pt);
        theirs.encrypt_blocks(&mut want);
        let mut got = blocks(&pt);
        ours.encrypt_blocks(&mut got);
        assert_eq!(got, want, "encrypt {nb} blocks");
        ours.decrypt_blocks(&mut got);
        assert_eq!(got, blocks(&pt), "decrypt {nb} blocks");

        // CTR: byte lengths around the block count, odd IVs (some wrap).
        let len = 16 * nb + (nb * 7) % 16;
        let mut msg = vec![0u8; len];
        bytes(seed.rotate_left(7) ^ nb as u64, &mut msg);
        let mut iv = [0u8; 16];
        bytes(seed ^ 0x55 ^ nb as u64, &mut iv);
        if nb % 3 == 0 {
            iv[12..].copy_from_slice(&(u32::MAX - (nb as u32 % 37)).to_be_bytes());
        }
        let mut want = msg.clone();
        ctr::Ctr32BE::<Theirs>::new_from_slices(key, &iv)
            .unwrap()
            .apply_keystream(&mut want);
        // RustCrypto `ctr` over our cipher.
        let mut got = msg.clone();
        let core = ctr::CtrCore::<&Ours, ctr::flavors::Ctr32BE>::inner_iv_init(&ours, &iv.into());
        ctr::Ctr32BE::<&Ours>::from_core(core).apply_keystream(&mut got);
        assert_eq!(got, want, "ctr::Ctr32BE, {len} bytes");
        // Our CTR, buffer to buffer at odd addresses, and in place.
        let mut inb = vec![0u8; len + 3];
        inb[3..].copy_from_slice(&msg);
        let mut outb = vec![0u8; len + 1];
        let core = aes_ct::CtrCore::<&Ours>::inner_iv_init(&ours, &iv.into());
        aes_ct::Ctr32BE::<&Ours>::from_core(core).apply_keystream_b2b(&inb[3..], &mut outb[1..]);
        assert_eq!(&outb[1..], &want[..], "aes_ct::Ctr32BE b2b, {len} bytes");
        let core = aes_ct::CtrCore::<&Ours>::inner_iv_init(&ours, &iv.into());
        aes_ct::Ctr32BE::<&Ours>::from_core(core).apply_keystream(&mut inb[3..]);
        assert_eq!(
            &inb[3..],
            &want[..],
            "aes_ct::Ctr32BE in place, {len} bytes"
        );
    }
}

trait NewVaes {
    fn vaes(key: &[u8]) -> Self;
}
macro_rules! new_vaes {
    ($($t:ty),*) => {$(
        impl NewVaes for $t {
            fn vaes(key: &[u8]) -> Self {
                <$t>::new_with_backend(key.try_into().unwrap(), Backend::Vaes).unwrap()
            }
        }
    )*};
}
new_vaes!(aes_ct::Aes128, aes_ct::Aes192, aes_ct::Aes256);

#[test]
fn vaes_both_widths_against_rustcrypto() {
    if !Backend::Vaes.is_available() {
        eprintln!("skipped: no VAES on this CPU");
        return;
    }
    for lanes in [2u8, 4] {
        aes_ct::x86::vaes_limit_width(lanes);
        eprintln!("VAES, {lanes} lanes");
        let key: Vec<u8> = (0..32u8).map(|i| i.wrapping_mul(29) ^ lanes).collect();
        check::<aes_ct::Aes128, aes::Aes128>(&key[..16], 1);
        check::<aes_ct::Aes192, aes::Aes192>(&key[..24], 2);
        check::<aes_ct::Aes256, aes::Aes256>(&key, 3);
    }
    aes_ct::x86::vaes_limit_width(4);
}
