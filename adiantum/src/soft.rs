//! Portable NH backend (every CPU).
//!
//! Technique: the definition, one unit (16 bytes) at a time, four passes
//! per unit; LLVM may auto-vectorise it. Source: Crowley & Biggers, IACR
//! ToSC 2018(4), section 6.3. Cost: 8 64-bit multiplies and ~24 adds per
//! 16 bytes.

use crate::nh::{NhKey, nh_units_portable};

crate::backend::engine! {
    /// The portable NH engine.
    Soft, "runs portable code (every CPU does)", true;

    #[inline]
    fn units(_: Token, key: &NhKey, msg: &[u8]) -> [u64; 4] {
        let mut acc = [0u64; 4];
        nh_units_portable(&key.words, msg, &mut acc);
        acc
    }
}
