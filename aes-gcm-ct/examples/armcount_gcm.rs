//! AES-GCM seal loop for instruction counting under qemu-user
//! (`../shared/tools/armcount`), same shape as its example: in place, empty
//! AAD, a fresh nonce per call.
//!
//! usage: armcount_gcm <ct|ring|rustcrypto> <128|256> <msg_len> <iterations>
use aes_gcm_ct::aead::{AeadInOut, KeyInit};
use std::hint::black_box;

fn nonce_bytes(i: u64) -> [u8; 12] {
    let mut n = [0u8; 12];
    n[4..].copy_from_slice(&i.to_be_bytes());
    n
}

fn run<G: AeadInOut<NonceSize = cipher::consts::U12>>(g: &G, buf: &mut [u8], iters: u64) -> u8 {
    let mut acc = 0u8;
    for i in 0..iters {
        let tag = g
            .encrypt_inout_detached(&nonce_bytes(i).into(), b"", black_box(&mut *buf).into())
            .unwrap();
        acc ^= black_box(&tag[..])[0];
    }
    acc
}

fn run_ring(bits: u32, buf: &mut [u8], iters: u64) -> u8 {
    use ring::aead::{AES_128_GCM, AES_256_GCM, Aad, LessSafeKey, Nonce, UnboundKey};
    let alg = if bits == 128 {
        &AES_128_GCM
    } else {
        &AES_256_GCM
    };
    let key = LessSafeKey::new(UnboundKey::new(alg, &[0x42u8; 32][..alg.key_len()]).unwrap());
    let mut acc = 0u8;
    for i in 0..iters {
        let nonce = Nonce::assume_unique_for_key(nonce_bytes(i));
        let tag = key
            .seal_in_place_separate_tag(nonce, Aad::empty(), black_box(&mut *buf))
            .unwrap();
        acc ^= black_box(tag.as_ref())[0];
    }
    acc
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 5 {
        eprintln!(
            "usage: {} <ct|ring|rustcrypto> <128|256> <msg_len> <iterations>",
            args[0]
        );
        std::process::exit(2);
    }
    let bits: u32 = args[2].parse().expect("bits");
    let len: usize = args[3].parse().expect("msg_len");
    let iters: u64 = args[4].parse().expect("iterations");
    let mut buf = vec![0xa5u8; len];
    let acc = match (args[1].as_str(), bits) {
        ("ct", 128) => {
            let g = aes_gcm_ct::Aes128Gcm::new(&[0x42u8; 16].into());
            eprintln!("aes-gcm-ct path: {:?}", g);
            run(&g, &mut buf, iters)
        }
        ("ct", _) => run(
            &aes_gcm_ct::Aes256Gcm::new(&[0x42u8; 32].into()),
            &mut buf,
            iters,
        ),
        ("rustcrypto", 128) => run(
            &aes_gcm::Aes128Gcm::new(&[0x42u8; 16].into()),
            &mut buf,
            iters,
        ),
        ("rustcrypto", _) => run(
            &aes_gcm::Aes256Gcm::new(&[0x42u8; 32].into()),
            &mut buf,
            iters,
        ),
        ("ring", b) => run_ring(b, &mut buf, iters),
        (other, _) => {
            eprintln!("unknown implementation {other}");
            std::process::exit(2);
        }
    };
    println!("{} len={} iters={} acc={:02x}", args[1], len, iters, acc);
}
