//! The x86 register-width test hooks (`bsaes_limit_width`,
//! `vaes_limit_width`, feature `test-hooks`) are safe to call with any
//! value: only the widths 1, 2 and 4 lanes exist, and an invalid request
//! must never produce another (a 3-lane bsaes key once padded 25..31
//! blocks to 48 inside a 32-block stack buffer). For every value asked
//! for, valid or not, every x86 backend encrypts, decrypts and runs the
//! fused `Ctr32BE` at every block count 0..=64 (every batch, pass and
//! padded-tail size) exactly as the portable backend does.
//! (Its own test binary: the hooks are process-wide.)

#![cfg(any(target_arch = "x86", target_arch = "x86_64"))]

mod common;

use aes_ct::{Aes128, Aes256, Backend, Block};
use cipher::{BlockCipherDecrypt, BlockCipherEncrypt, InnerIvInit, StreamCipher};
use common::bytes;

/// Widths asked of the hooks: the valid ones and values in between,
/// below and above them.
const ASKED: &[u8] = &[3, 0, 5, 255, 1, 2, 4, 6, 7, 8, 16, 128];

fn ctr<C: aes_ct::CtrCipher>(c: C, iv: &[u8; 16], data: &mut [u8]) {
    let core = <aes_ct::CtrCore<C> as InnerIvInit>::inner_iv_init(c, iv.into());
    cipher::StreamCipherCoreWrapper::from_core(core).apply_keystream(data);
}

/// `make(backend)` on `b` against `make(Soft)`: ECB both directions and
/// CTR (counter near the 2^32 wrap so some runs wrap), every count 0..=64.
fn same_as_soft<C>(b: Backend, what: &str, make: impl Fn(Backend) -> C)
where
    C: BlockCipherEncrypt + BlockCipherDecrypt + aes_ct::CtrCipher,
{
    let (ours, soft) = (make(b), make(Backend::Soft));
    for n in 0..=64usize {
        let mut pt = vec![Block::default(); n];
        for (i, blk) in pt.iter_mut().enumerate() {
            bytes((n * 131 + i) as u64, blk);
        }
        let (mut x, mut y) = (pt.clone(), pt.clone());
        ours.encrypt_blocks(&mut x);
        soft.encrypt_blocks(&mut y);
        assert_eq!(x, y, "{what} {b} encrypt n={n}");
        ours.decrypt_blocks(&mut x);
        assert_eq!(x, pt, "{what} {b} decrypt n={n}");

        let mut iv = [0u8; 16];
        bytes(n as u64, &mut iv);
        iv[12..].copy_from_slice(&(u32::MAX - 20).to_be_bytes());
        let mut s = vec![0u8; 16 * n + n % 7];
        bytes(7 * n as u64, &mut s);
        let mut t = s.clone();
        ctr(make(b), &iv, &mut s);
        ctr(make(Backend::Soft), &iv, &mut t);
        assert_eq!(s, t, "{what} {b} ctr n={n}");
    }
}

fn all_backends(what: &str) {
    for b in Backend::available().filter(|&b| b != Backend::Soft) {
        same_as_soft(b, what, |b| {
            Aes128::new_with_backend(&[0x2b; 16].into(), b).unwrap()
        });
        same_as_soft(b, what, |b| {
            Aes256::new_with_backend(&[0x61; 32].into(), b).unwrap()
        });
    }
}

#[test]
fn any_width_asked_is_memory_safe_and_correct() {
    for &w in ASKED {
        aes_ct::x86::bsaes_limit_width(w);
        all_backends(&format!("bsaes width {w}"));
    }
    aes_ct::x86::bsaes_limit_width(4);
    for &w in ASKED {
        aes_ct::x86::vaes_limit_width(w);
        all_backends(&format!("vaes width {w}"));
    }
    aes_ct::x86::vaes_limit_width(4);
}
