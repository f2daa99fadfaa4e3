//! Portable NH backend (every CPU).
//!
//! Technique: the definition, one unit (16 bytes) at a time, four passes
//! per unit; LLVM may auto-vectorise it. Source: Crowley & Biggers, IACR
//! ToSC 2018(4), section 6.3. Cost: 8 64-bit multiplies and ~24 adds per
//! 16 bytes.

use crate::backend::Engine;
use crate::nh::{NhKey, nh_units_portable};

/// The portable NH engine.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Soft;

impl Engine for Soft {
    type Token = ();

    fn token() -> Option<()> {
        Some(())
    }

    #[inline]
    fn units(_: (), key: &NhKey, msg: &[u8]) -> [u64; 4] {
        let mut acc = [0u64; 4];
        nh_units_portable(&key.words, msg, &mut acc);
        acc
    }
}
