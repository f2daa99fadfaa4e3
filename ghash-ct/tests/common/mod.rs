//! Helpers shared by the test files (hex, a seeded PRNG, the KAT file).
#![allow(dead_code)]

use ghash_ct::Backend;

/// The workspace's hex decoder and seeded test PRNG (`Rng(seed)`).
#[allow(unused_imports)] // not every test file uses each
pub use ct_dispatch::test_util::{Rng, unhex};

pub fn arr16(s: &str) -> [u8; 16] {
    unhex(s).try_into().expect("16-byte value in test data")
}

/// One GHASH known answer: S = GHASH(H, A, C) with the GCM length block.
pub struct Kat {
    pub src: String,
    pub h: [u8; 16],
    pub a: Vec<u8>,
    pub c: Vec<u8>,
    pub s: [u8; 16],
}

pub fn kats() -> Vec<Kat> {
    let txt = include_str!("../data/ghash_kat.txt");
    let mut out = Vec::new();
    let mut src = String::new();
    let (mut h, mut a, mut c) = ([0u8; 16], Vec::new(), Vec::new());
    for line in txt.lines() {
        if let Some(s) = line.strip_prefix("# ") {
            src = s.to_string();
        } else if let Some(v) = line.strip_prefix("H =") {
            h = arr16(v);
        } else if let Some(v) = line.strip_prefix("A =") {
            a = unhex(v);
        } else if let Some(v) = line.strip_prefix("C =") {
            c = unhex(v);
        } else if let Some(v) = line.strip_prefix("S =") {
            out.push(Kat {
                src: src.clone(),
                h,
                a: a.clone(),
                c: c.clone(),
                s: arr16(v),
            });
        }
    }
    assert!(out.len() >= 25, "KAT file parsed");
    out
}

/// The GCM length block: [len(A)]64 || [len(C)]64 in bits, big-endian.
pub fn len_block(a: usize, c: usize) -> [u8; 16] {
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&(8 * a as u64).to_be_bytes());
    b[8..].copy_from_slice(&(8 * c as u64).to_be_bytes());
    b
}

pub fn backends() -> Vec<Backend> {
    ct_dispatch::test_util::backends(Backend::available(), Backend::PORTABLE)
}
