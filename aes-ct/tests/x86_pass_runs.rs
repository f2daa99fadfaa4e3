//! Generic callers of the x86 hybrid (RustCrypto `ctr` and `cbc`, the
//! cipher traits' `encrypt_blocks`) get one bsaes pass as the parallel
//! size: 8 blocks at the SSSE3 width, 16 at AVX2, the 32-block batch at
//! AVX-512. `ctr` runs every block after its last parallel run singly
//! through vpaes, so a parallel size larger than the pass sends up to 31
//! blocks of every message that way (correct output, so the known-answer
//! and differential tests cannot see it; this test does). The forced
//! `bsaes` backend keeps its batch. (Its own test binary: the width hook
//! is process-wide.)

#![cfg(any(target_arch = "x86", target_arch = "x86_64"))]

use aes_ct::{Aes128, Aes256, Backend};
use cipher::{
    BlockCipherDecBackend, BlockCipherDecClosure, BlockCipherDecrypt, BlockCipherEncBackend,
    BlockCipherEncClosure, BlockCipherEncrypt, BlockSizeUser, consts::U16, typenum::Unsigned,
};

/// Records the parallel size of the backend it is called with.
struct ParSize<'a>(&'a mut usize);

impl BlockSizeUser for ParSize<'_> {
    type BlockSize = U16;
}

impl BlockCipherEncClosure for ParSize<'_> {
    fn call<B: BlockCipherEncBackend<BlockSize = U16>>(self, _: &B) {
        *self.0 = B::ParBlocksSize::USIZE;
    }
}

impl BlockCipherDecClosure for ParSize<'_> {
    fn call<B: BlockCipherDecBackend<BlockSize = U16>>(self, _: &B) {
        *self.0 = B::ParBlocksSize::USIZE;
    }
}

/// The parallel sizes (encryption, decryption) a cipher shows generic code.
fn par_sizes<C>(c: &C) -> (usize, usize)
where
    C: BlockCipherEncrypt + BlockCipherDecrypt + BlockSizeUser<BlockSize = U16>,
{
    let (mut e, mut d) = (0, 0);
    c.encrypt_with_backend(ParSize(&mut e));
    c.decrypt_with_backend(ParSize(&mut d));
    (e, d)
}

/// The widest bsaes width (in 128-bit lanes) this CPU runs.
fn cpu_lanes() -> u8 {
    if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw") {
        4
    } else if is_x86_feature_detected!("avx2") {
        2
    } else {
        1
    }
}

#[test]
fn generic_callers_get_one_pass() {
    let by_name = |name: &str| Backend::available().find(|b| b.name() == name);
    let (Some(hybrid), Some(bsaes)) = (by_name("hybrid"), by_name("bsaes")) else {
        // Not built in, or no SSSE3: nothing to check (the other tests
        // list what this build and CPU have).
        return;
    };
    let hw = cpu_lanes();
    let mut checked = 0;
    for asked in [1u8, 2, 4] {
        aes_ct::x86::bsaes_limit_width(asked);
        let pass = 8 * usize::from(asked.min(hw));
        let a128 = Aes128::new_with_backend(&[0x2b; 16].into(), hybrid).unwrap();
        let a256 = Aes256::new_with_backend(&[0x61; 32].into(), hybrid).unwrap();
        assert_eq!(par_sizes(&a128), (pass, pass), "AES-128 at {asked} lanes");
        assert_eq!(par_sizes(&a256), (pass, pass), "AES-256 at {asked} lanes");
        let b = Aes128::new_with_backend(&[0x2b; 16].into(), bsaes).unwrap();
        assert_eq!(par_sizes(&b), (32, 32), "bsaes alone at {asked} lanes");
        checked += 1;
    }
    aes_ct::x86::bsaes_limit_width(4);
    assert_eq!(checked, 3);
}
