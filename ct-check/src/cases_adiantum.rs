//! adiantum-ct: Adiantum (XChaCha12/20/8) on every available NH backend,
//! and HPolyC: key derivation, encryption and decryption of message lengths
//! around the NH chunk (1024 bytes) and pass boundaries, and the sector
//! helpers.
//!
//! Secret: the key, the tweak bytes and the message. Public: lengths, the
//! backend, the resulting ciphertext/plaintext (declassified to compare).

use crate::{Case, Rng, Uncovered, same, valgrind};
use adiantum_ct::{
    Adiantum, AdiantumXChaCha8, AdiantumXChaCha20, Backend, HPolyC, HashVariant, Hbsh,
    StreamVariant,
};
use cipher::KeyInit;

const LENGTHS: &[usize] = &[16, 17, 31, 32, 48, 100, 512, 1040, 1041, 4096];

fn run<S: StreamVariant, H: HashVariant>(
    what: &str,
    mk: impl Fn(&[u8; 32]) -> Hbsh<S, H>,
) -> Result<(), String> {
    for &n in LENGTHS {
        let mut rng = Rng(n as u64 * 31 + 5);
        let mut key = [0u8; 32];
        rng.fill(&mut key);
        let tweak = rng.bytes(n % 33);
        let pt = rng.bytes(n);

        let reference = mk(&key);
        let mut want = pt.clone();
        reference
            .encrypt(&tweak, &mut want)
            .map_err(|e| e.to_string())?;
        drop(reference);

        let mut ks = key;
        valgrind::secret(&mut ks);
        let c = mk(&ks);
        let mut ts = tweak.clone();
        valgrind::secret(ts.as_mut_slice());
        let mut buf = pt.clone();
        valgrind::secret(buf.as_mut_slice());
        c.encrypt(&ts, &mut buf).map_err(|e| e.to_string())?;
        same(&format!("{what} encrypt {n}"), buf, &want)?;

        let mut buf = want.clone();
        valgrind::secret(buf.as_mut_slice());
        c.decrypt(&ts, &mut buf).map_err(|e| e.to_string())?;
        same(&format!("{what} decrypt {n}"), buf, &pt)?;

        let mut src = pt.clone();
        valgrind::secret(src.as_mut_slice());
        let mut dst = vec![0u8; n];
        c.encrypt_to(&ts, &src, &mut dst)
            .map_err(|e| e.to_string())?;
        same(&format!("{what} encrypt_to {n}"), dst, &want)?;
    }
    // Sector helpers: four 512-byte sectors.
    let mut key = [7u8; 32];
    let reference = mk(&key);
    let pt = Rng(4).bytes(2048);
    let mut want = pt.clone();
    reference
        .encrypt_sectors(&mut want, 512, 1000)
        .map_err(|e| e.to_string())?;
    valgrind::secret(&mut key);
    let c = mk(&key);
    let mut buf = pt.clone();
    valgrind::secret(buf.as_mut_slice());
    c.encrypt_sectors(&mut buf, 512, 1000)
        .map_err(|e| e.to_string())?;
    same(&format!("{what} encrypt_sectors"), buf, &want)?;
    Ok(())
}

pub fn cases(out: &mut Vec<Case>, skipped: &mut Vec<Uncovered>) {
    per_backend!(out, skipped, "adiantum-ct", Backend::ALL, |b| {
        "adiantum-xchacha12" => run("adiantum-xchacha12", |k| {
            Adiantum::new_with_backend(k.into(), b).expect("available")
        }),
        "adiantum-xchacha20+8" => run("adiantum-xchacha20", |k| {
            AdiantumXChaCha20::new_with_backend(k.into(), b).expect("available")
        })
        .and_then(|()| {
            run("adiantum-xchacha8", |k| {
                AdiantumXChaCha8::new_with_backend(k.into(), b).expect("available")
            })
        }),
    });
    out.push(Case::new(
        "adiantum-ct/-/hpolyc",
        "adiantum-ct",
        "hpolyc (no NH)",
        || run("hpolyc", |k| HPolyC::new(k.into())),
    ));
}
