//! The trait surface users of RustCrypto `aes` rely on: names, `Debug`
//! without key material, `Clone`, `ZeroizeOnDrop`, backend reporting.

mod common;

use aes_ct::{Aes128, Aes192, Aes256, Aes256Enc, Backend};
use cipher::{AlgorithmName, KeyInit};

fn alg_name<T: AlgorithmName>() -> String {
    struct N<T>(core::marker::PhantomData<T>);
    impl<T: AlgorithmName> core::fmt::Display for N<T> {
        fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            T::write_alg_name(f)
        }
    }
    N::<T>(core::marker::PhantomData).to_string()
}

#[test]
fn algorithm_names_match_rustcrypto() {
    assert_eq!(alg_name::<Aes128>(), alg_name::<aes::Aes128>());
    assert_eq!(alg_name::<Aes192>(), alg_name::<aes::Aes192>());
    assert_eq!(alg_name::<Aes256>(), alg_name::<aes::Aes256>());
    assert_eq!(alg_name::<Aes256Enc>(), alg_name::<aes::Aes256Enc>());
}

#[test]
fn debug_prints_no_key_material() {
    let key = [0xa5u8; 32];
    for b in common::backends() {
        let c = Aes256::new_with_backend(&key.into(), b).unwrap();
        let s = format!("{c:?}");
        assert!(s.starts_with("Aes256"), "{s}");
        assert!(s.contains(b.name()), "{s}");
        assert!(!s.to_lowercase().contains("a5"), "key bytes in Debug: {s}");
        assert!(!s.contains("165"), "key bytes in Debug: {s}");
    }
}

#[test]
fn zeroize_on_drop_and_clone() {
    fn is_zod<T: zeroize::ZeroizeOnDrop + Clone>() {}
    is_zod::<Aes128>();
    is_zod::<Aes192>();
    is_zod::<Aes256>();
    is_zod::<Aes256Enc>();
}

#[test]
fn detected_backend_is_available_and_used() {
    let d = Backend::detected();
    assert!(d.is_available());
    assert_eq!(Aes128::new(&[0u8; 16].into()).backend(), d);
    assert_eq!(Backend::detected(), d, "cached");
    // The first available backend in table order is the detected one, unless
    // `--cfg aes_ct_backend="..."` forces another (then that one, if this CPU
    // can run it, else the portable one).
    match Backend::forced() {
        None => assert_eq!(Backend::available().next(), Some(d)),
        Some(f) if f.is_available() => assert_eq!(d, f),
        Some(_) => assert_eq!(d, Backend::Soft),
    }
    eprintln!("detected: {d}, forced: {:?}", Backend::forced());
}

/// Every key is small: a key holds one backend's key form in an enum, so
/// the largest form of any backend in the build sets the size of all of
/// them (RustCrypto `aes::Aes256` with AES-NI: 480 bytes). Forms larger
/// than the round keys (bitsliced planes) are made per call instead.
#[test]
fn key_sizes_at_most_512_bytes() {
    use aes_ct::{Aes128Dec, Aes128Enc, Aes192Dec, Aes192Enc, Aes256Dec};
    let sizes = [
        ("Aes128", size_of::<Aes128>()),
        ("Aes192", size_of::<Aes192>()),
        ("Aes256", size_of::<Aes256>()),
        ("Aes128Enc", size_of::<Aes128Enc>()),
        ("Aes192Enc", size_of::<Aes192Enc>()),
        ("Aes256Enc", size_of::<Aes256Enc>()),
        ("Aes128Dec", size_of::<Aes128Dec>()),
        ("Aes192Dec", size_of::<Aes192Dec>()),
        ("Aes256Dec", size_of::<Aes256Dec>()),
        ("Ctr32BE<Aes128>", size_of::<aes_ct::Ctr32BE<Aes128>>()),
    ];
    for (name, size) in sizes {
        eprintln!("size_of::<{name}>() = {size} bytes");
    }
    for (name, size) in &sizes[..9] {
        assert!(*size <= 512, "{name} is {size} bytes");
    }
}
