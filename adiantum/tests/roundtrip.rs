//! Round trips for lengths 16..=65536 (every length up to 272, then a
//! sampled set including the NH chunk and Poly1305 block edges), the
//! wide-block property (one flipped plaintext bit changes every 16-byte
//! block of the ciphertext, and likewise for decryption), and the sector
//! helper against per-sector calls with the dm-crypt `plain64` tweak.

mod common;

use adiantum_ct::{
    Adiantum, AdiantumXChaCha8, AdiantumXChaCha20, Backend, Error, HPolyC, HPolyCXChaCha8,
    HPolyCXChaCha20, HashVariant, Hbsh, StreamVariant, sector_tweak,
};
use cipher::KeyInit;
use common::Rng;

fn lengths() -> Vec<usize> {
    let mut v: Vec<usize> = (16..=272).collect();
    for base in [
        512usize, 1024, 1040, 2048, 4096, 4112, 8192, 16384, 32768, 65536,
    ] {
        for d in [-17isize, -16, -1, 0, 1, 15, 16, 17] {
            let n = base as isize + d;
            if (16..=65536).contains(&n) {
                v.push(n as usize);
            }
        }
    }
    for n in [
        496, 500, 511, 1008, 1023, 1025, 1039, 1041, 3000, 4095, 4097, 4111, 4113, 12345, 65535,
        65536,
    ] {
        v.push(n);
    }
    v.sort_unstable();
    v.dedup();
    v
}

/// A key of type `C` (a variant alias) from the next 32 bytes of `rng`,
/// on the detected backend.
fn fresh<C: KeyInit>(rng: &mut Rng) -> C {
    C::new_from_slice(&rng.array::<32>()).expect("32-byte key")
}

fn roundtrip<S: StreamVariant, H: HashVariant>(c: &Hbsh<S, H>, rng: &mut Rng, lens: &[usize]) {
    for &n in lens {
        let tlen = rng.range(0, 40);
        let tweak = rng.bytes(tlen);
        let pt = rng.bytes(n);
        let mut buf = pt.clone();
        c.encrypt(&tweak, &mut buf).expect("encrypt");
        assert_ne!(buf, pt, "ciphertext equals plaintext at {n}");
        let mut out = vec![0u8; n];
        c.encrypt_to(&tweak, &pt, &mut out).expect("encrypt_to");
        assert_eq!(out, buf, "encrypt_to differs from in place at {n}");
        let mut back = vec![0u8; n];
        c.decrypt_to(&tweak, &buf, &mut back).expect("decrypt_to");
        assert_eq!(back, pt, "decrypt_to at {n}");
        c.decrypt(&tweak, &mut buf).expect("decrypt");
        assert_eq!(buf, pt, "decrypt at {n}");
    }
}

#[test]
fn roundtrip_all_lengths_adiantum_every_backend() {
    let mut rng = Rng(1);
    let lens = lengths();
    assert!(lens.contains(&16) && lens.contains(&17) && lens.contains(&31) && lens.contains(&32));
    assert!(
        lens.contains(&512)
            && lens.contains(&4096)
            && lens.contains(&4112)
            && lens.contains(&65536)
    );
    for b in Backend::available() {
        let c = Adiantum::new_with_backend(&rng.array::<32>().into(), b).expect("available");
        assert_eq!(c.backend(), b);
        roundtrip(&c, &mut rng, &lens);
    }
}

#[test]
fn roundtrip_other_variants() {
    let mut rng = Rng(2);
    let lens: Vec<usize> = lengths()
        .into_iter()
        .filter(|n| *n <= 48 || n % 97 == 0 || *n >= 4095)
        .collect();
    roundtrip(&fresh::<AdiantumXChaCha20>(&mut rng), &mut rng, &lens);
    roundtrip(&fresh::<AdiantumXChaCha8>(&mut rng), &mut rng, &lens);
    roundtrip(&fresh::<HPolyC>(&mut rng), &mut rng, &lengths());
    roundtrip(&fresh::<HPolyCXChaCha20>(&mut rng), &mut rng, &lens);
    roundtrip(&fresh::<HPolyCXChaCha8>(&mut rng), &mut rng, &lens);
}

/// Number of whole 16-byte blocks that differ (plus the final 16 bytes,
/// `C_R`, when the length is not a multiple of 16), and how many there are.
/// A shorter trailing fragment of k bytes is left out: it stays the same
/// with probability 2^-8k even for an ideal cipher.
fn changed_blocks(a: &[u8], b: &[u8]) -> (usize, usize) {
    let mut total = a.len() / 16;
    let mut changed = a
        .chunks_exact(16)
        .zip(b.chunks_exact(16))
        .filter(|(x, y)| x != y)
        .count();
    if !a.len().is_multiple_of(16) {
        total += 1;
        changed += usize::from(a[a.len() - 16..] != b[b.len() - 16..]);
    }
    (changed, total)
}

/// `Hbsh::encrypt` or `Hbsh::decrypt`.
type Op<S, H> = fn(&Hbsh<S, H>, &[u8], &mut [u8]) -> Result<(), Error>;

fn wide_block<S: StreamVariant, H: HashVariant>(c: &Hbsh<S, H>, rng: &mut Rng) {
    for n in [16usize, 17, 31, 32, 48, 100, 512, 1040, 4096] {
        let tweak = rng.bytes(32);
        let pt = rng.bytes(n);
        let mut ct = pt.clone();
        c.encrypt(&tweak, &mut ct).expect("encrypt");
        // First and last bit, every bit of the last block, and random bits.
        let mut bits: Vec<usize> = vec![0, 8 * n - 1];
        bits.extend((8 * (n - 16))..(8 * n));
        for _ in 0..24 {
            bits.push(rng.range(0, 8 * n - 1));
        }
        for bit in bits {
            // A flipped plaintext bit changes every ciphertext block, and a
            // flipped ciphertext bit garbles all plaintext.
            for (dir, op, from, to) in [
                ("encrypt", Hbsh::<S, H>::encrypt as Op<S, H>, &pt, &ct),
                ("decrypt", Hbsh::<S, H>::decrypt, &ct, &pt),
            ] {
                let mut x = from.clone();
                x[bit / 8] ^= 1 << (bit % 8);
                op(c, &tweak, &mut x).expect(dir);
                let (changed, total) = changed_blocks(to, &x);
                assert_eq!(
                    changed, total,
                    "{dir}: flipping bit {bit} of {n} bytes left a block unchanged"
                );
            }
        }
        // A different tweak changes every block too.
        let mut t2 = tweak.clone();
        t2[0] ^= 1;
        let mut c3 = pt.clone();
        c.encrypt(&t2, &mut c3).expect("encrypt");
        let (changed, total) = changed_blocks(&ct, &c3);
        assert_eq!(changed, total, "tweak change at {n}");
    }
}

#[test]
fn wide_block_property() {
    let mut rng = Rng(3);
    wide_block(&Adiantum::new(&rng.array::<32>().into()), &mut rng);
    wide_block(&HPolyC::new(&rng.array::<32>().into()), &mut rng);
    wide_block(&AdiantumXChaCha20::new(&rng.array::<32>().into()), &mut rng);
}

#[test]
fn sectors_match_per_sector_calls() {
    let mut rng = Rng(4);
    let c = Adiantum::new(&rng.array::<32>().into());
    for (size, count, first) in [
        (512usize, 9usize, 0u64),
        (4096, 4, 1234),
        (16, 5, u64::MAX - 2),
        (4112, 2, 7),
    ] {
        let pt = rng.bytes(size * count);
        let mut buf = pt.clone();
        c.encrypt_sectors(&mut buf, size, first)
            .expect("encrypt_sectors");
        let mut want = pt.clone();
        for (i, s) in want.chunks_exact_mut(size).enumerate() {
            let mut tweak = [0u8; 32];
            tweak[..8].copy_from_slice(&first.wrapping_add(i as u64).to_le_bytes());
            assert_eq!(tweak, sector_tweak(first.wrapping_add(i as u64)));
            c.encrypt(&tweak, s).expect("encrypt");
        }
        assert_eq!(buf, want, "sector size {size}");
        c.decrypt_sectors(&mut buf, size, first)
            .expect("decrypt_sectors");
        assert_eq!(buf, pt);
    }
    // 512-byte-unit numbering (dm-crypt's default for 4096-byte sectors).
    let pt = rng.bytes(3 * 4096);
    let mut buf = pt.clone();
    c.encrypt_sectors_512(&mut buf, 4096, 80)
        .expect("encrypt_sectors_512");
    for (i, s) in buf.chunks_exact(4096).enumerate() {
        let mut one = pt[i * 4096..(i + 1) * 4096].to_vec();
        c.encrypt(&sector_tweak(80 + 8 * i as u64), &mut one)
            .expect("encrypt");
        assert_eq!(one, s);
    }
    c.decrypt_sectors_512(&mut buf, 4096, 80)
        .expect("decrypt_sectors_512");
    assert_eq!(buf, pt);
    // The plain64 tweak layout itself.
    assert_eq!(
        sector_tweak(0x0102_0304_0506_0708)[..],
        [
            8, 7, 6, 5, 4, 3, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0
        ][..]
    );
}

#[test]
fn debug_prints_no_secrets() {
    let key = [0xa5u8; 32];
    let c = Adiantum::new(&key.into());
    let s = format!("{c:?}");
    assert!(s.contains("XChaCha12") && s.contains("NH-Poly1305"), "{s}");
    assert!(!s.to_lowercase().contains("a5a5"), "{s}");
    assert!(!s.contains("165"), "{s}");
    let h = format!("{:?}", HPolyC::new(&key.into()));
    assert!(
        h.contains("Poly1305") && !h.to_lowercase().contains("a5a5"),
        "{h}"
    );
}
