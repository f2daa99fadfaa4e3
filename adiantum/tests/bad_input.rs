//! Bad input gives an error and leaves the buffers alone, never a panic:
//! messages shorter than 16 bytes, HPolyC tweaks longer than the spec's
//! 32-bit bit length, mismatched output buffers, bad sector sizes and
//! buffers that are not whole sectors.

use adiantum_ct::{
    Adiantum, AdiantumXChaCha20, Error, HPolyC, HashVariant, Hbsh, Poly1305Hash, StreamVariant,
};
use cipher::KeyInit;

fn short_messages<S: StreamVariant, H: HashVariant>(c: &Hbsh<S, H>) {
    for n in 0..16 {
        let mut buf = vec![0x5au8; n];
        assert_eq!(
            c.encrypt(b"tweak", &mut buf),
            Err(Error::MessageTooShort(n))
        );
        assert_eq!(
            c.decrypt(b"tweak", &mut buf),
            Err(Error::MessageTooShort(n))
        );
        assert!(buf.iter().all(|&b| b == 0x5a), "buffer touched");
        let mut out = vec![0u8; n];
        assert_eq!(
            c.encrypt_to(&[], &buf, &mut out),
            Err(Error::MessageTooShort(n))
        );
        assert_eq!(
            c.decrypt_to(&[], &buf, &mut out),
            Err(Error::MessageTooShort(n))
        );
        assert!(out.iter().all(|&b| b == 0), "output touched");
    }
}

#[test]
fn messages_shorter_than_16_bytes() {
    short_messages(&Adiantum::new(&[1u8; 32].into()));
    short_messages(&AdiantumXChaCha20::new(&[1u8; 32].into()));
    short_messages(&HPolyC::new(&[1u8; 32].into()));
}

#[test]
fn mismatched_output_buffers() {
    let c = Adiantum::new(&[2u8; 32].into());
    let input = [7u8; 64];
    for out_len in [0usize, 16, 63, 65, 128] {
        let mut out = vec![0u8; out_len];
        let e = Err(Error::LengthMismatch {
            input: 64,
            output: out_len,
        });
        assert_eq!(c.encrypt_to(&[], &input, &mut out), e);
        assert_eq!(c.decrypt_to(&[], &input, &mut out), e);
        assert!(out.iter().all(|&b| b == 0));
    }
}

#[test]
fn oversized_hpolyc_tweak() {
    let max = <Poly1305Hash as HashVariant>::MAX_TWEAK;
    assert_eq!(max, (u32::MAX / 8) as usize);
    // A zeroed allocation is mapped lazily: the check happens before the
    // tweak is read, so no page of it is touched.
    let layout = std::alloc::Layout::from_size_align(max + 1, 1).expect("layout");
    // SAFETY: the layout has a non-zero size.
    let p = unsafe { std::alloc::alloc_zeroed(layout) };
    if p.is_null() {
        eprintln!("skipped: cannot reserve {} bytes here", max + 1);
        return;
    }
    // SAFETY: `p` points to `max + 1` zeroed bytes owned by this function.
    let tweak = unsafe { std::slice::from_raw_parts(p, max + 1) };
    let c = HPolyC::new(&[3u8; 32].into());
    let mut buf = [9u8; 32];
    assert_eq!(
        c.encrypt(tweak, &mut buf),
        Err(Error::TweakTooLong(max + 1))
    );
    assert_eq!(
        c.decrypt(tweak, &mut buf),
        Err(Error::TweakTooLong(max + 1))
    );
    assert_eq!(buf, [9u8; 32]);
    // SAFETY: allocated above with this layout, no references remain.
    unsafe { std::alloc::dealloc(p, layout) };
}

#[test]
fn adiantum_accepts_long_tweaks() {
    // Adiantum's tweak space is every string up to 2^73 bits: no limit.
    let c = Adiantum::new(&[4u8; 32].into());
    let tweak = vec![1u8; 100_000];
    let mut buf = [0u8; 48];
    c.encrypt(&tweak, &mut buf).expect("long tweak");
    c.decrypt(&tweak, &mut buf).expect("long tweak");
    assert_eq!(buf, [0u8; 48]);
}

/// A sector method of `Adiantum`.
type SectorOp = fn(&Adiantum, &mut [u8], usize, u64) -> Result<(), Error>;

#[test]
fn bad_sectors() {
    let c = Adiantum::new(&[5u8; 32].into());
    let mut buf = vec![0x11u8; 4096 * 2 + 512];
    // Sizes each method refuses: below 16 bytes, and for the 512-unit
    // numbering anything that is not a multiple of 512.
    let plain = [0usize, 1, 15];
    let units = [0usize, 1, 15, 16, 1000, 4095];
    for (name, op, bad_sizes) in [
        (
            "encrypt_sectors",
            Adiantum::encrypt_sectors as SectorOp,
            &plain[..],
        ),
        ("decrypt_sectors", Adiantum::decrypt_sectors, &plain),
        ("encrypt_sectors_512", Adiantum::encrypt_sectors_512, &units),
        ("decrypt_sectors_512", Adiantum::decrypt_sectors_512, &units),
    ] {
        assert_eq!(
            op(&c, &mut buf, 4096, 0),
            Err(Error::NotWholeSectors {
                len: 4096 * 2 + 512,
                sector_size: 4096
            }),
            "{name}"
        );
        for &size in bad_sizes {
            assert_eq!(
                op(&c, &mut buf, size, 0),
                Err(Error::BadSectorSize(size)),
                "{name}, sector size {size}"
            );
        }
    }
    assert!(buf.iter().all(|&b| b == 0x11), "buffer touched");
    // An empty buffer is zero whole sectors: nothing to do.
    assert_eq!(c.encrypt_sectors(&mut [], 512, 0), Ok(()));
}

#[test]
fn errors_display() {
    let s = Error::TweakTooLong(5).to_string();
    assert!(s.contains('5'));
    let s = Error::LengthMismatch {
        input: 1,
        output: 2,
    }
    .to_string();
    assert!(s.contains('1') && s.contains('2'));
}

/// An NH backend this CPU or build cannot run: `UnsupportedBackend` naming
/// it, for every backend of the table that is missing here.
#[test]
fn unavailable_nh_backend_is_an_error() {
    use adiantum_ct::{Backend, UnsupportedBackend};
    let mut missing = 0;
    for &b in Backend::ALL {
        match Adiantum::new_with_backend(&[1u8; 32].into(), b) {
            Ok(c) => assert_eq!(c.backend(), b),
            Err(e) => {
                assert_eq!(e, UnsupportedBackend(b));
                assert!(!b.is_available());
                assert!(e.to_string().contains(b.name()));
                missing += 1;
            }
        }
    }
    // Every build lacks the other architectures' NH backends.
    assert!(missing > 0);
}

/// The longest message is 16 + 64 (2^32 - 1) bytes (the XChaCha block
/// counter). A buffer that long cannot be allocated in a test, but the
/// same limit guards the sector size, which an empty buffer can carry.
#[cfg(target_pointer_width = "64")]
#[test]
fn message_length_limit_via_sector_size() {
    let max = 16 + 64 * (u32::MAX as usize);
    let c = Adiantum::new(&[2u8; 32].into());
    assert_eq!(c.encrypt_sectors(&mut [], max, 0), Ok(()));
    assert_eq!(
        c.encrypt_sectors(&mut [], max + 1, 0),
        Err(Error::BadSectorSize(max + 1))
    );
    assert_eq!(
        c.decrypt_sectors(&mut [], max + 1, 0),
        Err(Error::BadSectorSize(max + 1))
    );
    let h = HPolyC::new(&[2u8; 32].into());
    assert_eq!(
        h.encrypt_sectors(&mut [], usize::MAX, 0),
        Err(Error::BadSectorSize(usize::MAX))
    );
}

/// Adiantum is not authenticated: a tampered ciphertext or a wrong tweak
/// decrypts without an error, to unrelated bytes (the wide-block property:
/// every 16-byte block of the plaintext changes).
#[test]
fn tampered_ciphertext_decrypts_to_garbage() {
    let c = Adiantum::new(&[6u8; 32].into());
    let pt = [0x42u8; 512];
    let mut ct = pt;
    c.encrypt(b"tweak", &mut ct).unwrap();
    for pos in [0usize, 100, 495, 496, 511] {
        let mut bad = ct;
        bad[pos] ^= 0x01;
        c.decrypt(b"tweak", &mut bad).unwrap();
        let same = pt
            .chunks(16)
            .zip(bad.chunks(16))
            .filter(|(a, b)| a == b)
            .count();
        assert_eq!(same, 0, "flip at {pos}: {same} plaintext blocks survived");
    }
    let mut wrong_tweak = ct;
    c.decrypt(b"tweaK", &mut wrong_tweak).unwrap();
    assert_ne!(wrong_tweak, pt);
}
