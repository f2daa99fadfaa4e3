//! Helpers shared by the test files (hex, a seeded PRNG, the KAT file).
#![allow(dead_code)]

use ghash_ct::Backend;

pub fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s.trim()).expect("valid hex in test data")
}

pub fn arr16(s: &str) -> [u8; 16] {
    unhex(s).try_into().expect("16-byte value in test data")
}

/// xorshift64* (deterministic, so failures reproduce).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
    pub fn key(&mut self) -> [u8; 16] {
        self.bytes(16).try_into().unwrap()
    }
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
    let v: Vec<Backend> = Backend::available().collect();
    assert!(
        v.contains(&Backend::PORTABLE),
        "portable backend always available"
    );
    eprintln!("backends: {v:?}");
    v
}
