//! adiantum-ct against the crates.io `adiantum` crate and round trip, on
//! every available NH backend: input = variant/tweak-length byte, key (32
//! bytes), tweak, message. Messages shorter than 16 bytes must be refused
//! (an error, buffer untouched), never a panic; HPolyC round trips too.
#![no_main]

use adiantum_ct::{
    Adiantum, AdiantumXChaCha8, AdiantumXChaCha20, Backend, Error, HPolyC, HashVariant, Hbsh,
    NhPoly1305, StreamVariant,
};
use cipher::KeyInit;
use libfuzzer_sys::fuzz_target;

type Ref<S> = adiantum::Cipher<S, aes::Aes256>;

fn check<S: StreamVariant, R>(key: &[u8; 32], tweak: &[u8], msg: &[u8])
where
    R: chacha20::cipher::KeyIvInit<KeySize = cipher::consts::U32, IvSize = cipher::consts::U24>
        + chacha20::cipher::StreamCipher,
{
    // The reference handles 16..=4112 bytes and tweaks up to 32 bytes.
    let compare = msg.len() >= 16 && msg.len() <= 4112 && tweak.len() <= 32;
    let mut want = msg.to_vec();
    if compare {
        Ref::<R>::new(&(*key).into()).encrypt(&mut want, tweak);
    }
    for b in Backend::available() {
        let ours = Hbsh::<S, NhPoly1305>::new_with_backend(&(*key).into(), b).expect("available");
        let mut buf = msg.to_vec();
        match ours.encrypt(tweak, &mut buf) {
            Ok(()) => {
                assert!(msg.len() >= 16);
                if compare {
                    assert_eq!(buf, want, "backend {b}, {} bytes", msg.len());
                }
                let mut out = vec![0u8; msg.len()];
                ours.decrypt_to(tweak, &buf, &mut out).expect("decrypt");
                assert_eq!(out, msg, "round trip, backend {b}");
            }
            Err(e) => {
                assert_eq!(e, Error::MessageTooShort(msg.len()));
                assert_eq!(buf, msg, "buffer touched on error");
            }
        }
    }
}

fn roundtrip<S: StreamVariant, H: HashVariant>(c: &Hbsh<S, H>, tweak: &[u8], msg: &[u8]) {
    let mut buf = msg.to_vec();
    if c.encrypt(tweak, &mut buf).is_ok() {
        c.decrypt(tweak, &mut buf).expect("decrypt");
        assert_eq!(buf, msg);
    } else {
        assert!(msg.len() < 16);
    }
}

fuzz_target!(|input: &[u8]| {
    if input.len() < 33 {
        return;
    }
    let sel = input[0];
    let key: [u8; 32] = input[1..33].try_into().expect("32");
    let rest = &input[33..];
    let tlen = usize::from(sel >> 2).min(rest.len());
    let (tweak, msg) = rest.split_at(tlen);
    match sel & 3 {
        0 => check::<adiantum_ct::XChaCha12, chacha20::XChaCha12>(&key, tweak, msg),
        1 => check::<adiantum_ct::XChaCha20, chacha20::XChaCha20>(&key, tweak, msg),
        2 => check::<adiantum_ct::XChaCha8, chacha20::XChaCha8>(&key, tweak, msg),
        _ => {
            roundtrip(&HPolyC::new(&key.into()), tweak, msg);
            roundtrip(&Adiantum::new(&key.into()), tweak, msg);
            let _ = (AdiantumXChaCha20::new(&key.into()), AdiantumXChaCha8::new(&key.into()));
        }
    }
});
