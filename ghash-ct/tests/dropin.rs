//! Our types used through the `universal-hash` traits generically, the way
//! code written against RustCrypto `ghash` uses them.

mod common;
use common::*;

use ghash_ct::{
    Block, GHash, Polyval,
    universal_hash::{
        KeyInit, Reset, UhfBackend, UhfClosure, UniversalHash, array::Array, common::BlockSizeUser,
        consts::U16, typenum::Unsigned,
    },
};

/// A MAC written only against the traits.
/// (`ghash` 0.6 has no `Reset`; ours does, see `generic_reset`.)
fn generic_mac<U: UniversalHash<BlockSize = U16> + KeyInit + Clone>(
    key: &[u8],
    data: &[u8],
) -> [u8; 16] {
    let mut u = U::new_from_slice(key).unwrap();
    u.update_padded(data);
    let t1 = u.clone().finalize();
    assert!(u.clone().verify(&t1).is_ok());
    t1.into()
}

/// `finalize_reset` (needs `Reset`) gives the same as a fresh hasher.
fn generic_reset<U: UniversalHash<BlockSize = U16> + KeyInit + Clone + Reset>(
    key: &[u8],
    data: &[u8],
) -> [u8; 16] {
    let mut u = U::new_from_slice(key).unwrap();
    u.update_padded(b"something else first");
    u.reset();
    u.update_padded(data);
    let t1 = u.finalize_reset();
    u.update_padded(data);
    assert_eq!(t1, u.finalize());
    t1.into()
}

/// Feeds blocks through `update_with_backend`: par-blocks while possible,
/// then single blocks, as generic consumers of `UhfBackend` do.
struct Feed<'a>(&'a [Block]);

impl BlockSizeUser for Feed<'_> {
    type BlockSize = U16;
}

impl UhfClosure for Feed<'_> {
    fn call<B: UhfBackend<BlockSize = U16>>(self, backend: &mut B) {
        let pb = B::ParBlocksSize::USIZE;
        assert!(pb > 1);
        let mut rest = self.0;
        // A few single blocks first, to start off alignment.
        for b in rest.iter().take(3) {
            backend.proc_block(b);
        }
        rest = &rest[rest.len().min(3)..];
        while rest.len() >= pb {
            let par = Array::try_from(&rest[..pb]).unwrap();
            backend.proc_par_blocks(&par);
            rest = &rest[pb..];
        }
        for b in rest {
            backend.proc_block(b);
        }
    }
}

#[test]
fn generic_code_agrees_with_ghash_crate() {
    type Mac = fn(&[u8], &[u8]) -> [u8; 16];
    // Ours against the peer crate; `ghash` 0.6 has no `Reset`, so ours
    // after a reset is held to its plain MAC.
    let checks: [(&str, Mac, Mac); 4] = [
        ("GHASH", generic_mac::<GHash>, generic_mac::<ghash::GHash>),
        (
            "POLYVAL",
            generic_mac::<Polyval>,
            generic_mac::<polyval::Polyval>,
        ),
        (
            "GHASH reset",
            generic_reset::<GHash>,
            generic_mac::<ghash::GHash>,
        ),
        (
            "POLYVAL reset",
            generic_reset::<Polyval>,
            generic_reset::<polyval::Polyval>,
        ),
    ];
    let mut rng = Rng(42);
    for len in [0usize, 1, 15, 16, 17, 100, 256, 1000, 4096] {
        let key = rng.array::<16>();
        let data = rng.bytes(len);
        for (name, ours, peer) in checks {
            assert_eq!(ours(&key, &data), peer(&key, &data), "{name}, {len}");
        }
    }
}

#[test]
fn update_with_backend_every_backend() {
    let mut rng = Rng(5);
    for b in backends() {
        for nblocks in [0usize, 1, 3, 8, 11, 19, 64, 100] {
            let key = rng.array::<16>();
            let data = rng.bytes(16 * nblocks);
            let (blocks, _) = Block::slice_as_chunks(&data);
            let mut ours = GHash::new_with_backend(&key.into(), b).unwrap();
            ours.update_with_backend(Feed(blocks));
            let mut theirs = ghash::GHash::new(&key.into());
            theirs.update_padded(&data);
            assert_eq!(ours.finalize(), theirs.finalize(), "{b} {nblocks}");

            let k = ghash_ct::GHashKey::new_with_backend(&key.into(), b).unwrap();
            let mut r = k.hasher();
            r.update_with_backend(Feed(blocks));
            let mut theirs = ghash::GHash::new(&key.into());
            theirs.update_padded(&data);
            assert_eq!(r.finalize(), theirs.finalize(), "{b} {nblocks} (GHashRef)");
        }
    }
}

#[test]
fn debug_prints_no_secret() {
    let key = [0xabu8; 16];
    let mut g = GHash::new(&key.into());
    g.update_padded(b"some data");
    for s in [
        format!("{g:?}"),
        format!("{:?}", g.key()),
        format!("{:?}", ghash_ct::GHashState::new()),
        format!("{:?}", g.key().hasher()),
    ] {
        assert!(!s.contains("ab") && !s.contains("171"), "{s}");
        assert!(s.contains(".."), "{s}");
    }
}

#[test]
fn traits_are_implemented() {
    fn assert_traits<
        T: UniversalHash + KeyInit + Clone + Reset + zeroize::ZeroizeOnDrop + core::fmt::Debug,
    >() {
    }
    assert_traits::<GHash>();
    assert_traits::<Polyval>();
}

#[cfg(not(feature = "zeroize"))]
compile_error!("ghash-ct's tests build with its `zeroize` feature (its dev-dependency on itself)");

/// Upstream's `zeroize` feature (these tests build with it, see the
/// dev-dependency on this crate): every type that holds H, its powers or a
/// hash state is `ZeroizeOnDrop`, as upstream's `GHash` / `Polyval` wipe
/// themselves on drop under that feature.
#[test]
fn zeroize_feature_every_secret_type_is_zeroize_on_drop() {
    fn wiped<T: zeroize::ZeroizeOnDrop>() {}
    wiped::<GHash>();
    wiped::<Polyval>();
    wiped::<ghash_ct::GHashKey>();
    wiped::<ghash_ct::PolyvalKey>();
    wiped::<ghash_ct::GHashState>();
    wiped::<ghash_ct::PolyvalState>();
    wiped::<ghash_ct::GHashRef<'static>>();
    wiped::<ghash_ct::PolyvalRef<'static>>();
}
