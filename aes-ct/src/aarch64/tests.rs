//! Every backend of this build that the CPU runs agrees with `soft` (also
//! included by the armv7 module).

use crate::{Aes128, Aes192, Aes256, Backend, Block};
use cipher::{BlockCipherDecrypt, BlockCipherEncrypt, BlockSizeUser, consts::U16};

/// Deterministic pseudo-random bytes (xorshift), no dependency.
pub(crate) fn bytes(seed: u64, out: &mut [u8]) {
    let mut s = seed | 1;
    for b in out.iter_mut() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        *b = (s >> 24) as u8;
    }
}

fn check<C: BlockCipherEncrypt + BlockCipherDecrypt + BlockSizeUser<BlockSize = U16>>(
    b: Backend,
    mk: impl Fn(&[u8], Backend) -> Result<C, crate::UnsupportedBackend>,
    klen: usize,
) {
    let mut key = [0u8; 32];
    for n in [0usize, 1, 2, 5, 7, 8, 9, 13, 15, 16, 17, 23, 24, 31, 33] {
        bytes(n as u64 * 31 + klen as u64, &mut key);
        let ours = mk(&key[..klen], b).expect("backend available");
        let soft = mk(&key[..klen], Backend::Soft).expect("soft");
        let mut data = [0u8; 16 * 33];
        bytes(n as u64 + 1000, &mut data);
        let mut x: [Block; 33] = core::array::from_fn(|i| {
            Block::try_from(&data[16 * i..16 * i + 16]).expect("16 bytes")
        });
        let mut y = x;
        ours.encrypt_blocks(&mut x[..n]);
        soft.encrypt_blocks(&mut y[..n]);
        assert!(x == y, "{b} encrypt, {n} blocks, key {klen}");
        ours.decrypt_blocks(&mut x[..n]);
        assert!(
            x[..n]
                .iter()
                .zip(data.chunks(16))
                .all(|(a, b)| a.as_slice() == b)
        );
        // single blocks too
        for i in 0..n {
            ours.encrypt_block(&mut x[i]);
        }
        assert!(x == y, "{b} encrypt_block, key {klen}");
    }
}

/// Every backend of this build that the CPU runs agrees with `soft`.
pub(crate) fn against_soft(b: Backend) {
    check::<Aes128>(
        b,
        |k, b| Aes128::new_with_backend(k.try_into().expect("len"), b),
        16,
    );
    check::<Aes192>(
        b,
        |k, b| Aes192::new_with_backend(k.try_into().expect("len"), b),
        24,
    );
    check::<Aes256>(
        b,
        |k, b| Aes256::new_with_backend(k.try_into().expect("len"), b),
        32,
    );
}

#[test]
fn available_backends_agree_with_soft() {
    let mut n = 0;
    for b in Backend::available() {
        against_soft(b);
        n += 1;
    }
    // armv8/hybrid/vpaes/bsaes/soft on aarch64, hybrid/vpaes/bsaes/soft on
    // armv7 with NEON (qemu -cpu cortex-a15).
    if Backend::Hybrid.is_available() {
        assert!(n >= 4, "only {n} backends available");
    }
}

/// Detection prefers the hardware backend, then the hybrid (run the test
/// binary under `armcount --no-crypto` to see the hybrid chosen on
/// aarch64; on armv7 with NEON it is the hybrid).
#[test]
#[cfg(not(aes_ct_backend))]
fn detection_order() {
    let want = if Backend::Armv8.is_available() {
        Backend::Armv8
    } else if Backend::Hybrid.is_available() {
        Backend::Hybrid
    } else {
        Backend::Soft
    };
    assert_eq!(Backend::detected(), want);
}
