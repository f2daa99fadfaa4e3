//! ghash-ct against RustCrypto `ghash` (and POLYVAL against `polyval`) on
//! every available backend: input = split selector byte, H (16 bytes),
//! message. The message is absorbed in one `update_padded` and, for the
//! key/state API, split at a whole-block boundary chosen by the selector
//! (and the whole blocks after it absorbed once more through
//! `update_public_last`); `verify` accepts the right tag and rejects a
//! flipped one.
#![no_main]

use ghash_ct::{
    Backend, GHash, GHashKey, GHashState, Polyval,
    universal_hash::UniversalHash,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &[u8]| {
    if input.len() < 17 {
        return;
    }
    let sel = usize::from(input[0]);
    let h: [u8; 16] = input[1..17].try_into().expect("16");
    let msg = &input[17..];

    let mut r = ghash::GHash::new(&h.into());
    ghash::universal_hash::UniversalHash::update_padded(&mut r, msg);
    let want = ghash::universal_hash::UniversalHash::finalize(r);
    let mut p = polyval::Polyval::new(&h.into());
    polyval::universal_hash::UniversalHash::update_padded(&mut p, msg);
    let pwant = polyval::universal_hash::UniversalHash::finalize(p);

    let split = ((sel * 16) % (msg.len() + 1)) & !15;
    for b in Backend::available() {
        let mut g = GHash::new_with_backend(&h.into(), b).expect("available");
        g.update_padded(msg);
        let tag = g.clone().finalize();
        assert_eq!(tag.as_slice(), want.as_slice(), "ghash, backend {b}, {} bytes", msg.len());
        assert!(g.clone().verify(&tag).is_ok());
        let mut bad = tag;
        bad[sel % 16] ^= 1 << (sel % 8);
        assert!(g.verify(&bad).is_err(), "verify accepted a wrong tag, backend {b}");

        let key = GHashKey::new_with_backend(&h.into(), b).expect("available");
        let mut st = GHashState::new();
        key.update_padded(&mut st, &msg[..split]);
        key.update_padded(&mut st, &msg[split..]);
        assert_eq!(key.finalize(st).as_slice(), want.as_slice(), "split at {split}, backend {b}");

        // `update_public_last` on the whole blocks after the split point
        // (the last one taken as public) gives the hash of the message up
        // to their end.
        let end = split + (msg.len() - split) / 16 * 16;
        if end > split {
            let blocks: Vec<ghash_ct::Block> = msg[split..end]
                .chunks(16)
                .map(|c| ghash_ct::Block::try_from(c).expect("16"))
                .collect();
            let mut st = GHashState::new();
            key.update_padded(&mut st, &msg[..split]);
            key.update_public_last(&mut st, &blocks);
            let mut r = ghash::GHash::new(&h.into());
            ghash::universal_hash::UniversalHash::update_padded(&mut r, &msg[..end]);
            let want = ghash::universal_hash::UniversalHash::finalize(r);
            assert_eq!(
                key.finalize(st).as_slice(),
                want.as_slice(),
                "update_public_last after {split}, to {end}, backend {b}"
            );
        }

        let mut pv = Polyval::new_with_backend(&h.into(), b).expect("available");
        pv.update_padded(msg);
        assert_eq!(pv.finalize().as_slice(), pwant.as_slice(), "polyval, backend {b}");
    }
});
