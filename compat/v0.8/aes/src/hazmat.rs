//! Low-level "hazmat" AES functions: upstream's FIPS-197 round functions.
//!
//! Each one is aes-ct's round transformations (`aes_ct::hazmat::round_steps`,
//! the portable bitsliced code: constant time on every CPU, with or without
//! AES instructions) followed by the XOR with the round key, written once in
//! aes-ct (`aes_ct::upstream_round_fns!`) for both facade generations. They
//! are not AES: misuse builds insecure ciphers. The caller's blocks are
//! copied into a batch and back; the copies are wiped.

use crate::{Block, Block8};

aes_ct::upstream_round_fns!(Block, Block8);
