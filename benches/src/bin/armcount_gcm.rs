//! AES-GCM seal loop for instruction counting under qemu (`cargo xtask
//! armcount gcm`): in place, empty AAD, a fresh nonce per call, the key set
//! up once before the loop (so the difference of two runs is the
//! per-message cost).
//!
//! usage: `armcount_gcm <impl>-<128|256> <bytes> <iters>`
//!   impl: `ct` (aes-gcm-ct, its automatic path), `ring` (ring 0.17) or
//!         `rustcrypto` (RustCrypto `aes-gcm`, its own detection)
use aes_gcm_ct::aead::{AeadInOut, KeyInit};
use benches::armcount;
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

const DRIVER: &str = "armcount_gcm";
const IMPLS: &str = "<ct|ring|rustcrypto>-<128|256>";

fn usage() -> ! {
    armcount::usage(DRIVER, IMPLS)
}

fn main() {
    let args = armcount::Args::parse(DRIVER, IMPLS);
    let (len, iters) = (args.bytes, args.iters as u64);
    let Some((imp, bits)) = args.imp.rsplit_once('-') else {
        usage()
    };
    let bits = match bits {
        "128" => 128,
        "256" => 256,
        _ => usage(),
    };
    let mut buf = vec![0xa5u8; len];
    let acc = match (imp, bits) {
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
        _ => usage(),
    };
    println!("{} len={} iters={} acc={:02x}", args.imp, len, iters, acc);
}
