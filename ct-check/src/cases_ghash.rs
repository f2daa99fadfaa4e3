//! ghash-ct: every available backend, GHASH and POLYVAL: key powers from a
//! secret H, then absorbing secret data of lengths that reach the single
//! block, partial block and aggregated (8- and 16-block) paths, through
//! the key/state API and the `UniversalHash` API.
//!
//! Secret: H, the data and the accumulator. Public: the backend, lengths,
//! the last block given to `update_public_last` (a GCM lengths block) and
//! the final tag (declassified before comparing).

use crate::{Case, Rng, Uncovered, same, valgrind};
use ghash_ct::{
    Backend, GHash, GHashKey, GHashState, Polyval, PolyvalKey, PolyvalState,
    universal_hash::UniversalHash,
};

const LENGTHS: &[usize] = &[1, 15, 16, 17, 112, 128, 129, 255, 256, 257, 600];

fn run(b: Backend, len: usize) -> Result<(), String> {
    let mut rng = Rng(len as u64 + 99);
    let h = rng.bytes(16);
    let data = rng.bytes(len);
    let what = format!("ghash-ct/{}/{len}", b.name());

    // Reference on defined inputs.
    let key = GHashKey::new_with_backend(h.as_slice().try_into().expect("16"), b)
        .map_err(|e| e.to_string())?;
    let mut st = GHashState::new();
    key.update_padded(&mut st, &data);
    let want = key.finalize(st).to_vec();
    let pkey = PolyvalKey::new_with_backend(h.as_slice().try_into().expect("16"), b)
        .map_err(|e| e.to_string())?;
    let mut pst = PolyvalState::new();
    pkey.update_padded(&mut pst, &data);
    let pwant = pkey.finalize(pst).to_vec();

    // Secret H, data.
    let mut hs = h.clone();
    valgrind::secret(hs.as_mut_slice());
    let mut ds = data.clone();
    valgrind::secret(ds.as_mut_slice());

    let key = GHashKey::new_with_backend(hs.as_slice().try_into().expect("16"), b)
        .map_err(|e| e.to_string())?;
    // A secret starting state too: absorb the data in two parts, with the
    // accumulator in between never declassified.
    let mut st = GHashState::new();
    let split = (len / 2) & !15;
    key.update_padded(&mut st, &ds[..split]);
    key.update_padded(&mut st, &ds[split..]);
    same(
        &format!("{what} GHashKey"),
        key.finalize(st).to_vec(),
        &want,
    )?;

    let mut g = GHash::new_with_backend(hs.as_slice().try_into().expect("16"), b)
        .map_err(|e| e.to_string())?;
    g.update_padded(&ds);
    same(&format!("{what} GHash"), g.finalize().to_vec(), &want)?;

    let mut r = key.hasher();
    r.update_padded(&ds);
    same(&format!("{what} GHashRef"), r.finalize().to_vec(), &want)?;

    let pkey = PolyvalKey::new_with_backend(hs.as_slice().try_into().expect("16"), b)
        .map_err(|e| e.to_string())?;
    let mut pst = PolyvalState::new();
    pkey.update_padded(&mut pst, &ds);
    same(
        &format!("{what} PolyvalKey"),
        pkey.finalize(pst).to_vec(),
        &pwant,
    )?;

    // `update_public_last`: the secret whole blocks of the data, then a
    // public (defined) lengths block, on the secret state; the reference
    // is `update` on the defined data.
    let last = |d: &[u8]| {
        let mut blocks: Vec<ghash_ct::Block> = d[..len / 16 * 16]
            .chunks(16)
            .map(|c| ghash_ct::Block::try_from(c).expect("16"))
            .collect();
        let mut lens = [0u8; 16];
        lens[8..].copy_from_slice(&(8 * (len / 16 * 16) as u64).to_be_bytes());
        blocks.push(lens.into());
        blocks
    };
    let head = 16.min(len);
    let plain = GHashKey::new_with_backend(h.as_slice().try_into().expect("16"), b)
        .map_err(|e| e.to_string())?;
    let mut st = GHashState::new();
    plain.update_padded(&mut st, &data[..head]);
    plain.update(&mut st, &last(&data));
    let lwant = plain.finalize(st).to_vec();
    let mut st = GHashState::new();
    key.update_padded(&mut st, &ds[..head]);
    key.update_public_last(&mut st, &last(&ds));
    same(
        &format!("{what} update_public_last"),
        key.finalize(st).to_vec(),
        &lwant,
    )?;

    let mut p = Polyval::new_with_backend(hs.as_slice().try_into().expect("16"), b)
        .map_err(|e| e.to_string())?;
    p.update_padded(&ds);
    same(&format!("{what} Polyval"), p.finalize().to_vec(), &pwant)?;
    Ok(())
}

pub fn cases(out: &mut Vec<Case>, skipped: &mut Vec<Uncovered>) {
    per_backend!(out, skipped, "ghash-ct", Backend::ALL, |b| {
        "ghash+polyval" => LENGTHS.iter().try_for_each(|&len| run(b, len)),
    });
}
