//! Drop-in: code written against RustCrypto `aes-gcm`'s bounds compiles
//! and runs unchanged over aes-gcm-ct, and every way of making a key over
//! an aes-ct cipher takes the path `new` takes.
use aes_gcm_ct::aead::{AeadInOut, KeyInit};
use aes_gcm_ct::{AesGcm, Nonce};
use cipher::{BlockCipherEncrypt, BlockSizeUser, consts::U12, consts::U16};

/// Generic code with RustCrypto's bounds and no `'static`: the cipher
/// type is a parameter of a function that also has a lifetime, as in a
/// library generic over its AES implementation. (A `'static` bound on
/// `KeyInit` for `AesGcm` fails this with E0310.)
fn seal_with<'a, Aes>(key: &'a [u8], nonce: &'a [u8; 12], aad: &'a [u8], msg: &'a [u8]) -> Vec<u8>
where
    Aes: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16> + KeyInit,
{
    let gcm = AesGcm::<Aes, U12>::new_from_slice(key).expect("key length");
    let mut buf = msg.to_vec();
    let tag = gcm
        .encrypt_inout_detached(&Nonce::from(*nonce), aad, buf.as_mut_slice().into())
        .expect("seal");
    buf.extend_from_slice(&tag);
    buf
}

/// The same over a cipher type that is not `'static` itself (a borrowed
/// cipher, `From` it): the AEAD traits need no `'static` either.
fn seal_borrowed<'c, Aes>(cipher: &'c Aes, nonce: &[u8; 12], msg: &[u8]) -> Vec<u8>
where
    Aes: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16>,
    &'c Aes: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16>,
{
    let gcm = AesGcm::<&'c Aes, U12>::from(cipher);
    let mut buf = msg.to_vec();
    let tag = gcm
        .encrypt_inout_detached(&Nonce::from(*nonce), b"", buf.as_mut_slice().into())
        .expect("seal");
    buf.extend_from_slice(&tag);
    buf
}

#[test]
fn generic_code_without_static_bound() {
    let (nonce, aad, msg) = ([9u8; 12], b"header".as_slice(), [0x5au8; 100]);
    for key in [[1u8; 16].as_slice(), [2u8; 32].as_slice()] {
        let ours = if key.len() == 16 {
            seal_with::<aes_ct::Aes128>(key, &nonce, aad, &msg)
        } else {
            seal_with::<aes_ct::Aes256>(key, &nonce, aad, &msg)
        };
        let theirs = if key.len() == 16 {
            seal_with::<aes::Aes128>(key, &nonce, aad, &msg)
        } else {
            seal_with::<aes::Aes256>(key, &nonce, aad, &msg)
        };
        assert_eq!(
            ours, theirs,
            "aes-ct vs RustCrypto aes under one generic fn"
        );
        let upstream = {
            use aes_gcm::aead::{AeadInOut as _, KeyInit as _};
            let mut buf = msg.to_vec();
            let tag = if key.len() == 16 {
                aes_gcm::Aes128Gcm::new_from_slice(key)
                    .unwrap()
                    .encrypt_inout_detached(&nonce.into(), aad, buf.as_mut_slice().into())
            } else {
                aes_gcm::Aes256Gcm::new_from_slice(key)
                    .unwrap()
                    .encrypt_inout_detached(&nonce.into(), aad, buf.as_mut_slice().into())
            }
            .unwrap();
            buf.extend_from_slice(&tag);
            buf
        };
        assert_eq!(ours, upstream, "against RustCrypto aes-gcm");
    }
    let c = <aes_ct::Aes128 as KeyInit>::new(&[3u8; 16].into());
    let borrowed = seal_borrowed(&c, &nonce, &msg);
    let owned = {
        let g = AesGcm::<aes_ct::Aes128, U12>::new(&[3u8; 16].into());
        let mut buf = msg.to_vec();
        let tag = g
            .encrypt_inout_detached(&nonce.into(), b"", buf.as_mut_slice().into())
            .unwrap();
        buf.extend_from_slice(&tag);
        buf
    };
    assert_eq!(borrowed, owned, "a borrowed cipher seals as an owned one");
}

/// `From` an aes-ct cipher takes the path `new` takes for the same key
/// (the fused path where the CPU has AES instructions), and seals alike;
/// `From` a cipher on a backend without AES instructions takes the
/// software path `ctr-ghash`, as `new` does where aes-ct selects such a
/// backend itself.
#[test]
fn from_aes_ct_cipher_takes_the_path_new_takes() {
    use aes_gcm_ct::{Aes128Gcm, Aes256Gcm, Backend};
    fn seal<G: AeadInOut<NonceSize = U12>>(g: &G, msg: &[u8]) -> Vec<u8> {
        let mut buf = msg.to_vec();
        let tag = g
            .encrypt_inout_detached(&[4u8; 12].into(), b"aad", buf.as_mut_slice().into())
            .unwrap();
        buf.extend_from_slice(&tag);
        buf
    }
    let msg = [0x6bu8; 1000];
    let k16 = [5u8; 16].into();
    let k32 = [6u8; 32].into();
    let new128 = Aes128Gcm::new(&k16);
    let from128 = Aes128Gcm::from(<aes_ct::Aes128 as KeyInit>::new(&k16));
    let from128e =
        AesGcm::<aes_ct::Aes128Enc, U12>::from(<aes_ct::Aes128Enc as KeyInit>::new(&k16));
    let new256 = Aes256Gcm::new(&k32);
    let from256 = Aes256Gcm::from(<aes_ct::Aes256 as KeyInit>::new(&k32));
    assert_eq!(from128.backend(), new128.backend());
    assert_eq!(from128e.backend(), new128.backend());
    assert_eq!(from256.backend(), new256.backend());
    println!("new and From: {}", new128.backend());
    let generic = Aes128Gcm::new_with_backend(&k16, Backend::Generic).unwrap();
    let expect = seal(&generic, &msg);
    assert_eq!(seal(&new128, &msg), expect);
    assert_eq!(seal(&from128, &msg), expect);
    assert_eq!(seal(&from128e, &msg), expect);
    assert_eq!(
        seal(&from256, &msg),
        seal(
            &Aes256Gcm::new_with_backend(&k32, Backend::Generic).unwrap(),
            &msg
        )
    );
    // Every aes-ct backend this CPU runs: the fused paths for the
    // AES-instruction ones, ctr-ghash for the others (unless a --cfg
    // narrows aes-gcm-ct's selection).
    // A target without a fused path (32-bit x86) gives an AES-instruction
    // cipher the generic path.
    let fused_here =
        Backend::available().any(|p| !matches!(p, Backend::Generic | Backend::CtrGhash));
    for b in aes_ct::Backend::available() {
        let g = Aes128Gcm::from(aes_ct::Aes128::new_with_backend(&k16, b).unwrap());
        let hw = aes_ct::hazmat::uses_aes_instructions(b);
        println!("aes-ct {b}: {}", g.backend());
        if Backend::forced().is_none() {
            let fused = !matches!(g.backend(), Backend::Generic | Backend::CtrGhash);
            assert_eq!(fused, hw && fused_here, "aes-ct {b} took {}", g.backend());
            assert_eq!(
                g.backend() == Backend::CtrGhash,
                !hw,
                "aes-ct {b} took {}",
                g.backend()
            );
        }
        assert_eq!(seal(&g, &msg), expect, "aes-ct {b}");
    }
}

/// Every key is small enough to keep where RustCrypto's are kept (at most
/// 1 KiB): a key holds one path's key form in an enum, so the largest form
/// in the build sets every key's size.
#[test]
fn key_sizes_at_most_1_kib() {
    let sizes = [
        ("Aes128Gcm", size_of::<aes_gcm_ct::Aes128Gcm>()),
        ("Aes192Gcm", size_of::<aes_gcm_ct::Aes192Gcm>()),
        ("Aes256Gcm", size_of::<aes_gcm_ct::Aes256Gcm>()),
    ];
    for (name, size) in sizes {
        eprintln!("size_of::<{name}>() = {size} bytes");
        assert!(size <= 1024, "{name} is {size} bytes");
    }
}
