//! Shared helpers for the aes-ct test suites.
#![allow(dead_code)]

use aes_ct::Backend;

/// Every backend this build can run on this CPU. Never empty: the portable
/// backend always runs. Printed so a test log shows what was covered.
pub fn backends() -> Vec<Backend> {
    ct_dispatch::test_util::backends(Backend::available(), Backend::Soft)
}

/// The workspace's hex decoder.
#[allow(unused_imports)] // not every test file uses each
pub use ct_dispatch::test_util::unhex;

/// A deterministic RNG seeded from the test name, so failures reproduce.
pub fn rng(seed: &str) -> rand::rngs::StdRng {
    use rand::SeedableRng;
    let mut s = [0u8; 32];
    for (i, b) in seed.bytes().enumerate() {
        s[i % 32] ^= b;
    }
    rand::rngs::StdRng::from_seed(s)
}

/// Deterministic pseudo-random bytes: the workspace's seeded test PRNG.
pub fn bytes(seed: u64, out: &mut [u8]) {
    ct_dispatch::test_util::Rng(seed).fill(out)
}
