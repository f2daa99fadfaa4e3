//! Shared helpers for the aes-ct test suites.
#![allow(dead_code)]

use aes_ct::Backend;

/// Every backend this build can run on this CPU. Never empty: the portable
/// backend always runs. Printed so a test log shows what was covered.
pub fn backends() -> Vec<Backend> {
    let v: Vec<Backend> = Backend::available().collect();
    assert!(
        v.contains(&Backend::Soft),
        "the portable backend must always be available"
    );
    eprintln!("testing backends: {v:?}");
    v
}

pub fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s.trim()).unwrap_or_else(|e| panic!("bad hex {s:?}: {e}"))
}

/// A deterministic RNG seeded from the test name, so failures reproduce.
pub fn rng(seed: &str) -> rand::rngs::StdRng {
    use rand::SeedableRng;
    let mut s = [0u8; 32];
    for (i, b) in seed.bytes().enumerate() {
        s[i % 32] ^= b;
    }
    rand::rngs::StdRng::from_seed(s)
}

/// Deterministic pseudo-random bytes (xorshift64).
pub fn bytes(seed: u64, out: &mut [u8]) {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    for b in out.iter_mut() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        *b = (s >> 29) as u8;
    }
}
