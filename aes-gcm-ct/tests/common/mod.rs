//! Shared test helpers: AES-GCM with key, nonce and tag sizes chosen at run
//! time, over every path (fused paths, and the generic path with every
//! aes-ct x ghash-ct backend pair).
#![allow(dead_code)]

use aes_gcm_ct::{
    AesGcm, Backend,
    aead::{AeadInOut, KeyInit, inout::InOutBuf},
    aes::{Aes128, Aes192, Aes256},
};
use cipher::consts::*;

/// One way to run AES-GCM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    /// `AesGcm::new_with_backend` (a fused path, or Generic with the
    /// detected AES and GHASH backends).
    Gcm(Backend),
    /// The generic path over an aes-ct key of one backend and a GHASH key of
    /// one backend.
    Generic(aes_ct::Backend, ghash_ct::Backend),
}

/// Every path this CPU runs: each fused path, then the generic path with
/// every AES backend x every GHASH backend.
pub fn all_paths() -> Vec<Path> {
    let mut v: Vec<Path> = Backend::available().map(Path::Gcm).collect();
    for a in aes_ct::Backend::available() {
        for g in ghash_ct::Backend::available() {
            v.push(Path::Generic(a, g));
        }
    }
    v
}

/// A smaller set for slow suites: each fused path, each AES backend with
/// the detected GHASH, each GHASH backend with the detected AES.
pub fn some_paths() -> Vec<Path> {
    let mut v: Vec<Path> = Backend::available().map(Path::Gcm).collect();
    let ga = aes_ct::Backend::detected();
    let gg = ghash_ct::Backend::detected();
    for a in aes_ct::Backend::available() {
        v.push(Path::Generic(a, gg));
    }
    for g in ghash_ct::Backend::available() {
        if g != gg {
            v.push(Path::Generic(ga, g));
        }
    }
    v
}

/// Object-safe AES-GCM.
pub trait Gcm {
    /// Seal out of place; `(ciphertext, tag)`.
    fn seal(&self, nonce: &[u8], aad: &[u8], pt: &[u8]) -> Result<(Vec<u8>, Vec<u8>), ()>;
    /// Seal `buf` in place; the tag.
    fn seal_in_place(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8]) -> Result<Vec<u8>, ()>;
    /// Open out of place into `out` (same length as `ct`).
    fn open_into(
        &self,
        nonce: &[u8],
        aad: &[u8],
        ct: &[u8],
        tag: &[u8],
        out: &mut [u8],
    ) -> Result<(), ()>;
    /// Open `buf` in place.
    fn open_in_place(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8], tag: &[u8])
    -> Result<(), ()>;
    /// Which path.
    fn backend(&self) -> Backend;
}

impl<A, N, T> Gcm for AesGcm<A, N, T>
where
    A: cipher::BlockCipherEncrypt + cipher::BlockSizeUser<BlockSize = U16>,
    N: cipher::array::ArraySize,
    T: aes_gcm_ct::TagSize,
{
    fn seal(&self, nonce: &[u8], aad: &[u8], pt: &[u8]) -> Result<(Vec<u8>, Vec<u8>), ()> {
        let mut out = vec![0u8; pt.len()];
        let nonce = nonce.try_into().map_err(|_| ())?;
        let buf = InOutBuf::new(pt, &mut out).map_err(|_| ())?;
        let tag = self
            .encrypt_inout_detached(nonce, aad, buf)
            .map_err(|_| ())?;
        Ok((out, tag.to_vec()))
    }
    fn seal_in_place(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8]) -> Result<Vec<u8>, ()> {
        let nonce = nonce.try_into().map_err(|_| ())?;
        let tag = self
            .encrypt_inout_detached(nonce, aad, buf.into())
            .map_err(|_| ())?;
        Ok(tag.to_vec())
    }
    fn open_into(
        &self,
        nonce: &[u8],
        aad: &[u8],
        ct: &[u8],
        tag: &[u8],
        out: &mut [u8],
    ) -> Result<(), ()> {
        let nonce = nonce.try_into().map_err(|_| ())?;
        let tag = tag.try_into().map_err(|_| ())?;
        let buf = InOutBuf::new(ct, out).map_err(|_| ())?;
        self.decrypt_inout_detached(nonce, aad, buf, tag)
            .map_err(|_| ())
    }
    fn open_in_place(
        &self,
        nonce: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8],
    ) -> Result<(), ()> {
        let nonce = nonce.try_into().map_err(|_| ())?;
        let tag = tag.try_into().map_err(|_| ())?;
        self.decrypt_inout_detached(nonce, aad, buf.into(), tag)
            .map_err(|_| ())
    }
    fn backend(&self) -> Backend {
        AesGcm::backend(self)
    }
}

fn build<A, N, T>(key: &[u8], path: Path) -> Option<Box<dyn Gcm>>
where
    A: cipher::BlockCipherEncrypt
        + cipher::BlockSizeUser<BlockSize = U16>
        + KeyInit
        + NewWithBackend
        + 'static,
    N: cipher::array::ArraySize + 'static,
    T: aes_gcm_ct::TagSize + 'static,
{
    match path {
        Path::Gcm(b) => AesGcm::<A, N, T>::new_with_backend(key.try_into().ok()?, b)
            .ok()
            .map(|g| Box::new(g) as Box<dyn Gcm>),
        Path::Generic(a, g) => {
            let c = A::new_with(key, a)?;
            AesGcm::<A, N, T>::with_ghash_backend(c, g)
                .ok()
                .map(|g| Box::new(g) as Box<dyn Gcm>)
        }
    }
}

/// aes-ct's `new_with_backend`, as a trait.
pub trait NewWithBackend: Sized {
    fn new_with(key: &[u8], b: aes_ct::Backend) -> Option<Self>;
}
macro_rules! nwb {
    ($($t:ty),*) => {$(
        impl NewWithBackend for $t {
            fn new_with(key: &[u8], b: aes_ct::Backend) -> Option<Self> {
                <$t>::new_with_backend(key.try_into().ok()?, b).ok()
            }
        }
    )*};
}
nwb!(Aes128, Aes192, Aes256);

macro_rules! by_tag {
    ($a:ty, $n:ty, $key:expr, $tag:expr, $path:expr) => {
        match $tag {
            16 => build::<$a, $n, U16>($key, $path),
            15 => build::<$a, $n, U15>($key, $path),
            14 => build::<$a, $n, U14>($key, $path),
            13 => build::<$a, $n, U13>($key, $path),
            12 => build::<$a, $n, U12>($key, $path),
            #[cfg(feature = "hazmat")]
            8 => build::<$a, $n, U8>($key, $path),
            #[cfg(feature = "hazmat")]
            4 => build::<$a, $n, U4>($key, $path),
            _ => None,
        }
    };
}

macro_rules! by_nonce {
    ($a:ty, $key:expr, $nonce:expr, $tag:expr, $path:expr) => {
        match ($nonce, $tag) {
            (12, t) => by_tag!($a, U12, $key, t, $path),
            (1, t) => by_tag!($a, U1, $key, t, $path),
            (128, t) => by_tag!($a, U128, $key, t, $path),
            (0, 16) => build::<$a, U0, U16>($key, $path),
            (2, 16) => build::<$a, U2, U16>($key, $path),
            (4, 16) => build::<$a, U4, U16>($key, $path),
            (6, 16) => build::<$a, U6, U16>($key, $path),
            (8, 16) => build::<$a, U8, U16>($key, $path),
            (10, 16) => build::<$a, U10, U16>($key, $path),
            (15, 16) => build::<$a, U15, U16>($key, $path),
            (16, 16) => build::<$a, U16, U16>($key, $path),
            (20, 16) => build::<$a, U20, U16>($key, $path),
            (32, 16) => build::<$a, U32, U16>($key, $path),
            (60, 16) => build::<$a, U60, U16>($key, $path),
            (64, 16) => build::<$a, U64, U16>($key, $path),
            (257, 16) => build::<$a, U257, U16>($key, $path),
            _ => None,
        }
    };
}

/// AES-GCM for this key, nonce length and tag length over `path`; `None`
/// if the sizes are not supported by this helper or the path cannot run.
pub fn gcm(key: &[u8], nonce_len: usize, tag_len: usize, path: Path) -> Option<Box<dyn Gcm>> {
    match key.len() {
        16 => by_nonce!(Aes128, key, nonce_len, tag_len, path),
        24 => by_nonce!(Aes192, key, nonce_len, tag_len, path),
        32 => by_nonce!(Aes256, key, nonce_len, tag_len, path),
        _ => None,
    }
}

/// The workspace's hex decoder and seeded test PRNG (`Rng(seed)`).
#[allow(unused_imports)] // not every test file uses each
pub use ct_dispatch::test_util::{Rng, unhex};

/// GF(2^128) product of GCM (SP 800-38D algorithm 1), bit by bit: test
/// code, independent of the implementations under test.
pub fn gf_mul(x: u128, y: u128) -> u128 {
    let mut z = 0;
    let mut v = y;
    for i in 0..128 {
        if (x >> (127 - i)) & 1 == 1 {
            z ^= v;
        }
        v = if v & 1 == 1 {
            (v >> 1) ^ (0xe1 << 120)
        } else {
            v >> 1
        };
    }
    z
}

/// J0 of a 16-byte nonce under hash key `h`: GHASH(nonce || 0^64 || [128]_64).
pub fn j0_of(h: u128, nonce: &[u8; 16]) -> [u8; 16] {
    let y = gf_mul(u128::from_be_bytes(*nonce), h);
    gf_mul(y ^ 128, h).to_be_bytes()
}

/// For each value 0..=255 of J0's last byte, a 16-byte nonce that gives it.
pub fn nonces_by_low_byte(key: &[u8]) -> Vec<[u8; 16]> {
    use cipher::{BlockCipherEncrypt as _, KeyInit as _};
    let mut h = cipher::Block::<aes::Aes128>::default();
    match key.len() {
        16 => aes::Aes128::new(key.try_into().unwrap()).encrypt_block(&mut h),
        _ => aes::Aes256::new(key.try_into().unwrap()).encrypt_block(&mut h),
    }
    let h = u128::from_be_bytes(h.0);
    let mut found: Vec<Option<[u8; 16]>> = vec![None; 256];
    let mut rng = Rng(0x6a09_e667_f3bc_c908);
    while found.iter().any(Option::is_none) {
        let n: [u8; 16] = rng.array();
        let j0 = j0_of(h, &n);
        found[usize::from(j0[15])].get_or_insert(n);
    }
    found.into_iter().map(Option::unwrap).collect()
}
