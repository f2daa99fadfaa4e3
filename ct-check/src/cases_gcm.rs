//! aes-gcm-ct: every available path (fused AES-NI + PCLMULQDQ, generic),
//! the generic path over every aes-ct backend, seal and open (valid and
//! tampered tag), 96-bit and other nonce lengths.
//!
//! Secret: the key, the plaintext and the AAD (stricter than needed; AAD is
//! usually public). Public: nonce, lengths, ciphertext and tag (the seal
//! output), the plaintext after open (declassified to compare), and the
//! tag-check result: `decrypt_inout_detached` returns it, so it branches
//! on it. That one branch is declassified by the suppression in
//! `ct-check/valgrind.supp`, which matches only a conditional jump whose
//! innermost (inlined) frame is `decrypt_inout_detached` itself, not its
//! callees.

use crate::{Case, Rng, Uncovered, same, valgrind};
use aes_gcm_ct::{
    AeadInOut, AesGcm, Backend, Nonce, Tag,
    aead::{KeyInit, inout::InOutBuf},
};
use cipher::{
    BlockCipherEncrypt, BlockSizeUser,
    array::ArraySize,
    consts::{U12, U16},
};

const LENGTHS: &[usize] = &[0, 1, 16, 17, 64, 127, 128, 129, 300, 1029];

fn seal<A, N>(g: &AesGcm<A, N>, nonce: &[u8], aad: &[u8], buf: &mut [u8]) -> Vec<u8>
where
    A: BlockSizeUser<BlockSize = U16> + BlockCipherEncrypt,
    N: ArraySize,
{
    let n = Nonce::<N>::try_from(nonce).expect("nonce length");
    let tag = g
        .encrypt_inout_detached(&n, aad, InOutBuf::from(buf))
        .expect("lengths");
    tag.to_vec()
}

fn open<A, N>(g: &AesGcm<A, N>, nonce: &[u8], aad: &[u8], buf: &mut [u8], tag: &[u8]) -> bool
where
    A: BlockSizeUser<BlockSize = U16> + BlockCipherEncrypt,
    N: ArraySize,
{
    let n = Nonce::<N>::try_from(nonce).expect("nonce length");
    let t = Tag::<U16>::try_from(tag).expect("tag length");
    let r = g.decrypt_inout_detached(&n, aad, InOutBuf::from(buf), &t);
    r.is_ok()
}

/// Seal and open every length with `mk(key)`; secrets undefined.
fn run<A, N>(what: &str, klen: usize, mk: impl Fn(&[u8]) -> AesGcm<A, N>) -> Result<(), String>
where
    A: BlockSizeUser<BlockSize = U16> + BlockCipherEncrypt,
    N: ArraySize,
{
    for &n in LENGTHS {
        let mut rng = Rng(n as u64 * 131 + klen as u64);
        let key = rng.bytes(klen);
        let nonce = rng.bytes(N::USIZE);
        let aad = rng.bytes(n % 37);
        let pt = rng.bytes(n);

        let reference = mk(&key);
        let mut want_ct = pt.clone();
        let want_tag = seal(&reference, &nonce, &aad, &mut want_ct);
        drop(reference);

        let mut ks = key.clone();
        valgrind::secret(ks.as_mut_slice());
        let g = mk(&ks);
        let mut ad = aad.clone();
        valgrind::secret(ad.as_mut_slice());
        let mut buf = pt.clone();
        valgrind::secret(buf.as_mut_slice());
        let tag = seal(&g, &nonce, &ad, &mut buf);
        same(&format!("{what} seal ct {n}"), buf, &want_ct)?;
        same(&format!("{what} seal tag {n}"), tag, &want_tag)?;

        // Open: public ciphertext, tag and AAD; the key is secret.
        let mut buf = want_ct.clone();
        let ok = open(&g, &nonce, &aad, &mut buf, &want_tag);
        if !valgrind::public_bool(ok) {
            return Err(format!("{what} open {n}: rejected a valid message"));
        }
        if n > 0 {
            same(&format!("{what} open pt {n}"), buf, &pt)?;
        }
        let mut bad_tag = want_tag.clone();
        bad_tag[n % 16] ^= 0x80;
        let mut buf = want_ct.clone();
        let ok = open(&g, &nonce, &aad, &mut buf, &bad_tag);
        if valgrind::public_bool(ok) {
            return Err(format!("{what} open {n}: accepted a tampered tag"));
        }
        let mut buf = valgrind_public(buf);
        if buf != want_ct {
            buf.clear();
            return Err(format!(
                "{what} open {n}: rejected, but the buffer is not the ciphertext"
            ));
        }
    }
    Ok(())
}

fn valgrind_public(mut v: Vec<u8>) -> Vec<u8> {
    valgrind::public(v.as_mut_slice());
    v
}

pub fn cases(out: &mut Vec<Case>, skipped: &mut Vec<Uncovered>) {
    // Every path, through `new_with_backend` (the aes-ct backend is the
    // detected one).
    per_backend!(out, skipped, "aes-gcm-ct", Backend::ALL, |b| {
        "aes128+256-gcm" => run::<aes_ct::Aes128, U12>(&format!("gcm/{b}/128"), 16, |k| {
            AesGcm::new_with_backend(k.try_into().expect("16"), b).expect("available")
        })
        .and_then(|()| {
            run::<aes_ct::Aes256, U12>(&format!("gcm/{b}/256"), 32, |k| {
                AesGcm::new_with_backend(k.try_into().expect("32"), b).expect("available")
            })
        }),
    });
    // The generic path over every aes-ct backend (GHASH: detected).
    for ab in aes_ct::Backend::available() {
        if aes_ct_skip(ab.name()) {
            continue;
        }
        out.push(Case::new(
            format!("aes-gcm-ct/generic+aes-{}/aes128-gcm", ab.name()),
            "aes-gcm-ct",
            format!("generic over aes-ct {}", ab.name()),
            move || {
                run::<aes_ct::Aes128, U12>(&format!("gcm/generic/aes-{ab}"), 16, |k| {
                    let c = aes_ct::Aes128::new_with_backend(k.try_into().expect("16"), ab)
                        .expect("available");
                    AesGcm::with_ghash_backend(c, ghash_ct::Backend::detected()).expect("available")
                })
            },
        ));
    }
    // Portable all the way down, and a 128-bit nonce (J0 through GHASH).
    out.push(Case::new(
        "aes-gcm-ct/generic+soft+soft64/aes128-gcm",
        "aes-gcm-ct",
        "generic (aes-ct soft + ghash-ct portable)",
        || {
            run::<aes_ct::Aes128, U12>("gcm/generic/soft", 16, |k| {
                let c = aes_ct::Aes128::new_with_backend(
                    k.try_into().expect("16"),
                    aes_ct::Backend::Soft,
                )
                .expect("available");
                AesGcm::with_ghash_backend(c, ghash_ct::Backend::PORTABLE).expect("available")
            })
        },
    ));
    out.push(Case::new(
        "aes-gcm-ct/detected/aes256-gcm-nonce16",
        "aes-gcm-ct",
        "detected path with a 128-bit nonce",
        || {
            run::<aes_ct::Aes256, U16>("gcm/nonce16", 32, |k| {
                AesGcm::<aes_ct::Aes256, U16>::new(k.try_into().expect("32"))
            })
        },
    ));
    secret_nonce_case(out);
}

/// A 128-bit nonce, itself secret, on AES-NI + PCLMULQDQ path `b`: J0 =
/// GHASH_H(nonce) and every counter block after it are secret, so a
/// branch or index on the counter (a carry test, say) is reported. The
/// lengths put counter carries inside a batch of 8, between batches and in
/// the blocks after the last batch.
fn run_secret_nonce(b: Backend) -> Result<(), String> {
    for &n in &[0usize, 17, 128, 300, 1029, 2053] {
        let mut rng = Rng(n as u64 * 137 + 16);
        let key = rng.bytes(16);
        let nonce = rng.bytes(16);
        let aad = rng.bytes(n % 29);
        let pt = rng.bytes(n);
        let reference = AesGcm::<aes_ct::Aes128, U16>::new_with_backend(
            key.as_slice().try_into().expect("16"),
            b,
        )
        .expect("available");
        let mut want_ct = pt.clone();
        let want_tag = seal(&reference, &nonce, &aad, &mut want_ct);
        drop(reference);

        let mut ks = key.clone();
        valgrind::secret(ks.as_mut_slice());
        let g = AesGcm::<aes_ct::Aes128, U16>::new_with_backend(
            ks.as_slice().try_into().expect("16"),
            b,
        )
        .expect("available");
        let mut ns = nonce.clone();
        valgrind::secret(ns.as_mut_slice());
        let mut buf = pt.clone();
        valgrind::secret(buf.as_mut_slice());
        let tag = seal(&g, &ns, &aad, &mut buf);
        same(
            &format!("gcm/{b}/secret-nonce16 seal ct {n}"),
            buf,
            &want_ct,
        )?;
        same(
            &format!("gcm/{b}/secret-nonce16 seal tag {n}"),
            tag,
            &want_tag,
        )?;
        let mut buf = want_ct.clone();
        let ok = open(&g, &ns, &aad, &mut buf, &want_tag);
        if !valgrind::public_bool(ok) {
            return Err(format!(
                "{b} secret-nonce16 open {n}: rejected a valid message"
            ));
        }
        if n > 0 {
            same(&format!("gcm/{b}/secret-nonce16 open pt {n}"), buf, &pt)?;
        }
    }
    Ok(())
}

/// The cases of [`run_secret_nonce`], one per AES-NI path (both
/// encodings) that valgrind and this CPU run (`cases` reports the others
/// uncovered).
fn secret_nonce_case(out: &mut Vec<Case>) {
    for b in [Backend::AesniAvxClmul, Backend::AesniClmul] {
        if b.is_available() && crate::valgrind_cannot("aes-gcm-ct", b.name()).is_none() {
            out.push(Case::new(
                format!("aes-gcm-ct/{b}/aes128-gcm-secret-nonce16"),
                "aes-gcm-ct",
                format!("{b} with a secret 128-bit nonce"),
                move || run_secret_nonce(b),
            ));
        }
    }
}

fn aes_ct_skip(name: &str) -> bool {
    crate::valgrind_cannot("aes-ct", name).is_some()
}
