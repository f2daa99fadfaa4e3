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
