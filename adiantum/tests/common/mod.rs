//! Helpers shared by the integration tests.
#![allow(dead_code)]

/// The workspace's seeded test PRNG (`Rng(seed)`), so failures reproduce.
#[allow(unused_imports)] // not every test file uses each
pub use ct_dispatch::test_util::Rng;
