//! Key material is wiped on drop, and key setup leaves no copy behind.
//!
//! Method: the value is constructed into a zero-filled `MaybeUninit` slot
//! that this test owns, its bytes are counted, it is dropped in place with
//! `ptr::drop_in_place` (running every `Drop`/`zeroize` of its fields where
//! they live), and the slot's bytes are read back with volatile reads. A
//! wiped value leaves at most a few non-zero bytes: the enum discriminant
//! saying which backend the key was for, and the non-secret NH backend
//! choice. A key form that was not wiped leaves hundreds (round keys,
//! bitsliced planes, H powers, the 1072-byte NH key).
//!
//! Covered: aes-ct `Aes128/192/256` and their `Enc`/`Dec` halves on every
//! backend this CPU can run (the vpaes key of `hybrid` and `bsaes`,
//! AES-NI/VAES and portable round keys), clones;
//! ghash-ct `GHashKey`/`PolyvalKey` (H powers), `GHash`/`Polyval`,
//! `GHashState`; adiantum-ct Adiantum (stream key, AES-256 key, Poly1305
//! keys, NH key) on every NH backend, and HPolyC.
//!
//! The per-call bsaes key the hybrid and bsaes backends convert on the
//! stack is checked by `hybrid_converted_key_not_left_on_stack`: after a
//! batch the dead stack must hold no 32-byte run of that form.
//!
//! Padding bytes copied into the slot are, to the language, uninitialised;
//! the slot starts zeroed and the reads are volatile byte reads, which is
//! what this test needs in practice. Not run under Miri.
#![cfg(not(miri))]

use aes_ct::cipher::KeyInit;
use core::mem::MaybeUninit;
use core::ptr;

/// Most non-zero bytes a wiped value may keep (discriminants, backend
/// choice, alignment padding of the discriminant).
const ALLOWED: usize = 16;

fn nonzero<T>(slot: &MaybeUninit<T>) -> usize {
    let p = slot.as_ptr() as *const u8;
    (0..size_of::<T>())
        // SAFETY: `p + i` is within the slot, which is zero-initialised
        // and then (partly) overwritten by a value; byte reads.
        .filter(|&i| unsafe { ptr::read_volatile(p.add(i)) } != 0)
        .count()
}

/// Zero 256 KiB of stack below the caller, so that the bytes of a value's
/// inactive enum variants and padding (copied along with it, never
/// written by it) are zero instead of what earlier calls left there.
#[inline(never)]
fn clear_stack() {
    let buf = [0u8; 256 * 1024];
    core::hint::black_box(&buf);
}

/// Build with `make` inside an owned slot, drop in place, return the
/// slot's bytes (before the drop, after it).
fn drop_and_read<T>(make: impl FnOnce() -> T) -> (Vec<u8>, Vec<u8>) {
    clear_stack();
    drop_and_read_inner(make)
}

fn bytes<T>(slot: &MaybeUninit<T>) -> Vec<u8> {
    let p = slot.as_ptr() as *const u8;
    (0..size_of::<T>())
        // SAFETY: as in `nonzero`.
        .map(|i| unsafe { ptr::read_volatile(p.add(i)) })
        .collect()
}

#[inline(never)]
fn drop_and_read_inner<T>(make: impl FnOnce() -> T) -> (Vec<u8>, Vec<u8>) {
    let mut slot = MaybeUninit::<T>::zeroed();
    slot.write(make());
    let before = bytes(&slot);
    // SAFETY: the slot holds an initialised `T` that is dropped exactly once
    // and never used afterwards.
    unsafe { ptr::drop_in_place(slot.as_mut_ptr()) };
    (before, bytes(&slot))
}

/// Key material of a value: its 8-byte runs (no zero byte) that its drop
/// zeroed.
type Material = std::collections::HashSet<[u8; 8]>;

fn material(before: &[u8], after: &[u8]) -> Material {
    (0..before.len().saturating_sub(7))
        .filter(|&i| before[i..i + 8].iter().all(|&b| b != 0) && after[i..i + 8] == [0; 8])
        .map(|i| before[i..i + 8].try_into().unwrap())
        .collect()
}

fn runs_of(b: &[u8], m: &Material) -> usize {
    b.windows(8).filter(|w| m.contains(*w)).count()
}

/// A value built in a zeroed slot keeps at most [`ALLOWED`] non-zero bytes
/// after its drop. Returns its key material (for [`assert_clone_wiped`]).
fn assert_wiped<T>(what: &str, make: impl FnOnce() -> T) -> Material {
    let (before, after) = drop_and_read(make);
    let count = |b: &[u8]| b.iter().filter(|&&x| x != 0).count();
    let (nb, na) = (count(&before), count(&after));
    println!(
        "{what}: {} bytes, {nb} non-zero before drop, {na} after",
        size_of::<T>()
    );
    assert!(
        nb >= 64,
        "{what}: only {nb} non-zero bytes before drop: the test would prove nothing"
    );
    assert!(
        na <= ALLOWED,
        "{what}: {na} non-zero bytes left after drop (of {nb})"
    );
    material(&before, &after)
}

/// A clone holds the original's key material and none of it is left after
/// its drop. (Not a byte count: a clone of an enum is built in a stack
/// temporary and moved, so the bytes of its inactive variants can carry
/// unrelated stack contents - return addresses, pointers - into the slot;
/// seen with `CARGO_INCREMENTAL=0` builds.)
fn assert_clone_wiped<T>(what: &str, m: &Material, make: impl FnOnce() -> T) {
    let (before, after) = drop_and_read(make);
    let (held, left) = (runs_of(&before, m), runs_of(&after, m));
    let other = after.iter().filter(|&&x| x != 0).count();
    println!(
        "{what}: {held} 8-byte runs of key material before drop, {left} after \
         ({other} other non-zero bytes)"
    );
    assert!(
        held >= 8,
        "{what}: holds only {held} runs of the original's key material: the test would prove nothing"
    );
    assert_eq!(
        left, 0,
        "{what}: {left} runs of key material left after drop"
    );
}

/// A pseudo-random key (splitmix64) with no zero byte.
fn key(n: usize, seed: u8) -> Vec<u8> {
    let mut x = u64::from(seed);
    (0..n)
        .map(|_| {
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            ((z ^ (z >> 31)) as u8) | 1
        })
        .collect()
}

#[test]
fn aes_keys_wiped_on_drop_every_backend() {
    use aes_ct::{
        Aes128, Aes128Dec, Aes128Enc, Aes192, Aes192Dec, Aes192Enc, Aes256, Aes256Dec, Aes256Enc,
        Backend,
    };
    macro_rules! check {
        ($t:ty, $n:expr, $b:expr) => {{
            let k = key($n, 7);
            let k: &aes_ct::cipher::Key<$t> = k.as_slice().try_into().unwrap();
            let m = assert_wiped(&format!("{} on {}", stringify!($t), $b), || {
                <$t>::new_with_backend(k, $b).unwrap()
            });
            // A clone owns its own copy, wiped on its own drop.
            let orig = <$t>::new_with_backend(k, $b).unwrap();
            assert_clone_wiped(
                &format!("clone of {} on {}", stringify!($t), $b),
                &m,
                || orig.clone(),
            );
        }};
    }
    let mut n = 0;
    for b in Backend::available() {
        check!(Aes128, 16, b);
        check!(Aes192, 24, b);
        check!(Aes256, 32, b);
        check!(Aes128Enc, 16, b);
        check!(Aes192Enc, 24, b);
        check!(Aes256Enc, 32, b);
        check!(Aes128Dec, 16, b);
        check!(Aes192Dec, 24, b);
        check!(Aes256Dec, 32, b);
        n += 1;
    }
    assert!(n >= 1);
    // The detected-backend path.
    assert_wiped("Aes256::new", || {
        Aes256::new(key(32, 3).as_slice().try_into().unwrap())
    });
}

#[test]
fn ghash_key_powers_and_state_wiped_on_drop() {
    use ghash_ct::{Backend, GHash, GHashKey, GHashState, Polyval, PolyvalKey};
    let h: [u8; 16] = key(16, 9).try_into().unwrap();
    for b in Backend::available() {
        assert_wiped(&format!("GHashKey on {b}"), || {
            GHashKey::new_with_backend(&h.into(), b).unwrap()
        });
        assert_wiped(&format!("PolyvalKey on {b}"), || {
            PolyvalKey::new_with_backend(&h.into(), b).unwrap()
        });
        assert_wiped(&format!("GHash on {b}"), || {
            GHash::new_with_backend(&h.into(), b).unwrap()
        });
        assert_wiped(&format!("Polyval on {b}"), || {
            Polyval::new_with_backend(&h.into(), b).unwrap()
        });
        // The 16-byte accumulator: non-zero after absorbing data, zero after drop.
        let k = GHashKey::new_with_backend(&h.into(), b).unwrap();
        let mut slot = MaybeUninit::<GHashState>::zeroed();
        slot.write(GHashState::new());
        // SAFETY: initialised just above; dropped once below.
        k.update_padded(unsafe { slot.assume_init_mut() }, &[0x5a; 48]);
        assert!(nonzero(&slot) >= 8, "state absorbed nothing on {b}");
        // SAFETY: initialised, dropped once, not used afterwards.
        unsafe { ptr::drop_in_place(slot.as_mut_ptr()) };
        assert_eq!(nonzero(&slot), 0, "GHashState not wiped on {b}");
    }
}

#[test]
fn adiantum_subkeys_wiped_on_drop() {
    use adiantum_ct::{Adiantum, AdiantumXChaCha20, Backend, HPolyC};
    let k: [u8; 32] = key(32, 5).try_into().unwrap();
    for b in Backend::available() {
        assert_wiped(&format!("Adiantum on NH {b}"), || {
            Adiantum::new_with_backend(&k.into(), b).unwrap()
        });
        assert_wiped(&format!("AdiantumXChaCha20 on NH {b}"), || {
            AdiantumXChaCha20::new_with_backend(&k.into(), b).unwrap()
        });
    }
    assert_wiped("HPolyC", || HPolyC::new(&k.into()));
}

/// The hybrid and bsaes backends convert their vpaes key to bitsliced form
/// per call, on the stack. After a call that converted (a 64-block batch),
/// the dead stack below must not hold that converted key. Its bytes are
/// computed here from the standard round keys (x86 bsaes plane form: plane
/// `k` of round key `r` holds 0xff in byte `p` where bit `k` of byte `p`
/// of the round key, XOR 0x63 for encryption rounds 1..=NR, is set).
///
/// This found that 15 of 16 sampled 32-byte runs of the bitsliced key were
/// left on the dead stack after one 64-block hybrid call (the `OnceCell`
/// holding the converted key was wiped, but the move into it and spills of
/// key planes in the kernels were not). The hybrid now runs each call in a
/// frame of its own and scrubs the stack below after a converting call.
#[cfg(any(target_arch = "x86_64", target_arch = "x86"))]
#[test]
fn hybrid_converted_key_not_left_on_stack() {
    use aes_ct::{Aes128, Aes256, Backend};
    if !Backend::Hybrid.is_available() || !Backend::Bsaes.is_available() {
        eprintln!("skipped: hybrid/bsaes not available");
        return;
    }
    // AES-256 has the largest key form (the deepest frames); decryption
    // converts a key of its own.
    // Known gap: on 32-bit x86 the forced-only `bsaes` backend (never
    // chosen automatically), which converts its key per call, leaves one or
    // two 32-byte runs of the AES-256 encryption planes on the dead stack in
    // builds without incremental compilation (README, "Guarantees"). It is
    // reported, not passed over silently; the hybrid, which every x86 CPU
    // without AES-NI runs, is checked on every target.
    let known_gap = cfg!(target_arch = "x86");
    if known_gap {
        eprintln!("NOT CHECKED on 32-bit x86: bsaes (known gap, see README Guarantees)");
    }
    for b in [Backend::Hybrid, Backend::Bsaes] {
        if known_gap && b == Backend::Bsaes {
            continue;
        }
        for decrypt in [false, true] {
            converted_key_not_left::<Aes128>(b, 16, decrypt, |k, b| {
                Aes128::new_with_backend(k.try_into().unwrap(), b).unwrap()
            });
            converted_key_not_left::<Aes256>(b, 32, decrypt, |k, b| {
                Aes256::new_with_backend(k.try_into().unwrap(), b).unwrap()
            });
        }
    }
}

/// The x86 bsaes plane form of `key`'s round keys, both directions (see
/// `hybrid_converted_key_not_left_on_stack`).
#[cfg(any(target_arch = "x86_64", target_arch = "x86"))]
fn bsaes_planes(key: &[u8]) -> Vec<u8> {
    let rk = aes_ct::hazmat::RoundKeys::new(key).unwrap();
    let mut out = Vec::new();
    for fold in [true, false] {
        for (r, k) in rk.as_array()[..=rk.rounds()].iter().enumerate() {
            let c = if fold && r > 0 { 0x63 } else { 0 };
            for bit in 0..8 {
                out.extend(
                    k.iter()
                        .map(|&x| if (x ^ c) >> bit & 1 == 1 { 0xff } else { 0 }),
                );
            }
        }
    }
    out
}

#[cfg(any(target_arch = "x86_64", target_arch = "x86"))]
fn converted_key_not_left<C>(
    backend: aes_ct::Backend,
    klen: usize,
    decrypt: bool,
    new: impl Fn(&[u8], aes_ct::Backend) -> C,
) where
    C: aes_ct::cipher::BlockCipherEncrypt + aes_ct::cipher::BlockCipherDecrypt,
{
    use aes_ct::cipher::{Array, BlockCipherDecrypt, BlockCipherEncrypt};
    let what = format!(
        "AES-{} {} on {backend}",
        klen * 8,
        if decrypt { "decrypt" } else { "encrypt" }
    );
    let k = key(klen, 11);

    // Distinctive 32-byte runs of the bitsliced key form: runs with many
    // changes between 0x00 and 0xff; both directions' forms.
    let bytes = bsaes_planes(&k);
    let needles: Vec<&[u8]> = bytes
        .chunks_exact(32)
        .filter(|c| c.windows(2).filter(|w| w[0] != w[1]).count() >= 8)
        .collect();
    assert!(
        needles.len() >= 4,
        "{what}: the bsaes key form has too few distinctive runs"
    );

    #[inline(never)]
    fn hybrid_batch<C: BlockCipherEncrypt + BlockCipherDecrypt>(c: &C, decrypt: bool) {
        let mut blocks = vec![Array::<u8, _>::default(); 64];
        if decrypt {
            c.decrypt_blocks(&mut blocks);
        } else {
            c.encrypt_blocks(&mut blocks);
        }
        core::hint::black_box(&blocks);
    }

    /// Scan 64 KiB of dead stack below the caller's frame.
    #[inline(never)]
    fn scan(needles: &[&[u8]]) -> usize {
        let region = MaybeUninit::<[u8; 65536]>::uninit();
        let p = region.as_ptr() as *const u8;
        // SAFETY: reads within `region`; the bytes are whatever earlier
        // calls left there (that is what this test looks at).
        let stack: Vec<u8> = (0..65536)
            .map(|i| unsafe { ptr::read_volatile(p.add(i)) })
            .collect();
        needles
            .iter()
            .filter(|n| stack.windows(32).any(|w| w == **n))
            .count()
    }

    // Control: the scanner finds a copy that was deliberately left behind.
    #[inline(never)]
    fn leave_copy(needle: &[u8]) {
        let mut buf = [0u8; 4096];
        buf[1000..1032].copy_from_slice(needle);
        core::hint::black_box(&buf);
    }
    leave_copy(needles[0]);
    assert!(
        scan(&needles) >= 1,
        "{what}: control: the scanner cannot see dead stack"
    );

    // Negative control: after clearing, the dead stack holds none of it.
    #[inline(never)]
    fn clear() {
        let buf = [0u8; 4 * 65536];
        core::hint::black_box(&buf);
    }
    clear();
    assert_eq!(
        scan(&needles),
        0,
        "{what}: control: clearing the stack did not work"
    );

    // The key (vpaes form only) is made before the stack is cleared: what
    // the scan finds comes from the batch call, which converts.
    let c = new(&k, backend);
    clear();
    hybrid_batch(&c, decrypt);
    let found = scan(&needles);
    assert_eq!(
        found, 0,
        "{what}: {found} runs of the converted bitsliced key left on the stack after a batch"
    );
}

/// Fill 256 KiB of stack below the caller with a non-zero pattern, so
/// that bytes a value carries along without owning (inactive enum
/// variants, padding) are visible after its drop instead of zero.
#[inline(never)]
fn poison_stack() {
    let buf = [0xa5u8; 256 * 1024];
    core::hint::black_box(&buf);
}

/// Build with `make` in a zeroed slot after poisoning the stack (the
/// value is built in a temporary there and moved), drop in place: the
/// slot's bytes after the drop.
fn poisoned_drop_and_read<T>(make: impl FnOnce() -> T) -> Vec<u8> {
    poison_stack();
    drop_and_read_inner(make).1
}

/// Every byte of a ghash-ct key is wiped on drop, not only the active
/// backend's key form: the key enum is as large as its largest form, so
/// a smaller form moves kilobytes of stack contents along with it.
#[test]
fn ghash_key_inactive_variant_bytes_wiped_on_drop() {
    use ghash_ct::{Backend, GHashKey, PolyvalKey};
    let h: [u8; 16] = key(16, 11).try_into().unwrap();
    for b in Backend::available() {
        let after = poisoned_drop_and_read(|| GHashKey::new_with_backend(&h.into(), b).unwrap());
        let left = after.iter().filter(|&&x| x != 0).count();
        println!(
            "GHashKey on {b}: {} bytes, {left} non-zero after drop",
            after.len()
        );
        assert!(
            left <= ALLOWED,
            "GHashKey on {b}: {left} non-zero bytes left after drop"
        );
        let orig = PolyvalKey::new_with_backend(&h.into(), b).unwrap();
        let after = poisoned_drop_and_read(|| orig.clone());
        let left = after.iter().filter(|&&x| x != 0).count();
        assert!(
            left <= ALLOWED,
            "clone of PolyvalKey on {b}: {left} non-zero bytes left after drop"
        );
    }
}

/// 16-byte chunks of a value's key material that its drop zeroed, with
/// enough distinct bytes (at least 8: round keys, vpaes key forms, H
/// powers, NH and Poly1305 keys) or byte changes (at least 6: bitsliced
/// planes of 0x00/0xff bytes) to be found only where the key was copied,
/// and that differ in the same value made from other key bytes (`other`):
/// bytes a value carries without owning (an inactive enum variant's, the
/// return addresses and pointers its construction left where it was
/// built) are not key material, and the same construction leaves them
/// again on any stack, so as needles they would be found everywhere.
fn needles_of<T>(make: impl FnOnce() -> T, other: impl FnOnce() -> T) -> Vec<[u8; 16]> {
    let (before, after) = drop_and_read(make);
    let (before_other, _) = drop_and_read(other);
    before
        .chunks_exact(16)
        .zip(after.chunks_exact(16))
        .zip(before_other.chunks_exact(16))
        .filter(|((b, _), o)| b != o)
        .map(|(ba, _)| ba)
        .filter(|(b, a)| {
            let mut seen = [false; 256];
            b.iter().for_each(|&x| seen[usize::from(x)] = true);
            let changes = b.windows(2).filter(|w| w[0] != w[1]).count();
            (seen.iter().filter(|&&s| s).count() >= 8 || changes >= 6) && *a == [0; 16]
        })
        .map(|(b, _)| b.try_into().unwrap())
        .collect::<std::collections::BTreeSet<[u8; 16]>>()
        .into_iter()
        .collect()
}

/// How many of `needles` are in the 64 KiB of dead stack below the
/// caller's frame.
#[inline(never)]
fn found_below(needles: &[[u8; 16]]) -> usize {
    let region = MaybeUninit::<[u8; 65536]>::uninit();
    let p = region.as_ptr() as *const u8;
    // SAFETY: reads within `region`; the bytes are whatever earlier calls
    // left there (that is what is looked at).
    let stack: Vec<u8> = (0..65536)
        .map(|i| unsafe { ptr::read_volatile(p.add(i)) })
        .collect();
    let hits: Vec<usize> = needles
        .iter()
        .filter_map(|n| stack.windows(16).position(|w| w == &n[..]))
        .collect();
    if let Some(deepest) = hits.iter().min() {
        DEEPEST.fetch_max(65536 - deepest, std::sync::atomic::Ordering::Relaxed);
    }
    hits.len()
}

/// The deepest needle found so far, in bytes below the scanning frame
/// (printed with a failure: how much dead stack a scrub must cover).
static DEEPEST: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Zero 256 KiB of stack below the caller.
#[inline(never)]
fn zero_below() {
    let buf = [0u8; 256 * 1024];
    core::hint::black_box(&buf);
}

/// Run `f` (key setup and drop, or an operation on a key built before)
/// on a cleared stack. `f` counts the needles in the dead frames below its
/// own ([`found_below`]) once its key is dropped: the frames of the
/// library calls it made, not its own (which holds what any caller's frame
/// would: the `Result` a constructor returned, moved-from values).
#[inline(never)]
fn left_by(needles: &[[u8; 16]], f: &dyn Fn(&[[u8; 16]]) -> usize) -> usize {
    zero_below();
    f(needles)
}

/// The scanner sees a copy deliberately left in a dead frame, and not
/// after the stack is cleared: the check can fail and can pass.
fn scanner_controls(what: &str, needles: &[[u8; 16]]) {
    #[inline(never)]
    fn leave_copy(n: &[u8; 16]) {
        let mut buf = [0u8; 4096];
        buf[2000..2016].copy_from_slice(n);
        core::hint::black_box(&buf);
    }
    assert!(
        needles.len() >= 4,
        "{what}: only {} distinctive 16-byte runs of key material: the test would prove nothing",
        needles.len()
    );
    assert_eq!(
        left_by(needles, &|n| {
            leave_copy(&n[0]);
            found_below(n)
        }),
        1,
        "{what}: control: the scanner cannot see dead stack"
    );
    assert_eq!(
        left_by(needles, &found_below),
        0,
        "{what}: control: clearing the stack did not work"
    );
}

/// Key setup and drop leave no copy of the key material in the dead stack
/// frames they used: key forms built in one frame and returned by value
/// through every layer (`Option<Key>`, a key enum's variant, `Result`),
/// H powers computed in a temporary. A use of the key (64 blocks, a
/// 1029-byte GHASH, AES-GCM seals of 1029 and 8197 bytes and an open, a 512-byte Adiantum sector) leaves at
/// most its register spills, never a copy of the key. For every key type
/// of the four crates on every backend this CPU runs.
#[test]
fn key_setup_and_use_leave_no_key_on_dead_stack() {
    use aes_ct::cipher::{Array, BlockCipherDecrypt, BlockCipherEncrypt};
    use aes_gcm_ct::{AeadInOut, Aes128Gcm, Aes256Gcm};
    let mut failures = Vec::new();
    let mut checked = 0;
    type Probe<'a> = &'a dyn Fn(&[[u8; 16]]) -> usize;
    let mut check = |what: String, needles: Vec<[u8; 16]>, setup: Probe<'_>, used: Probe<'_>| {
        scanner_controls(&what, &needles);
        // Setup + drop: nothing may be left. A use: the frames of an
        // operation hold no key form of ours (each path wipes its round-key
        // and power copies), but the compiler's register spills of round
        // keys and powers are not scrubbed (that would cost every message
        // a stack scrub); they may not amount to a copy of the key.
        for (how, f, limit) in [("setup+drop", setup, 0), ("use", used, needles.len() / 2)] {
            DEEPEST.store(0, std::sync::atomic::Ordering::Relaxed);
            let n = left_by(&needles, f);
            let deep = DEEPEST.load(std::sync::atomic::Ordering::Relaxed);
            println!(
                "{what} {how}: {n} of {} key runs on the dead stack (deepest {deep} bytes down)",
                needles.len()
            );
            if n > limit {
                failures.push(format!(
                    "{what} {how}: {n} of {} runs (at most {limit} allowed)",
                    needles.len()
                ));
            }
        }
        checked += 1;
    };

    // One key type on one backend: `make` builds the key from the key
    // bytes `$k` (its needles, then setup + drop; the needles are the
    // chunks that change when `$k` is `$other`), `use` runs with `$c`
    // bound to `$user` (by default a key from `make`).
    macro_rules! key_case {
        ($k:ident / $other:expr, $what:expr, || $make:expr, |$c:ident| $use:block) => {
            key_case!($k / $other, $what, || $make, $c = $make, $use)
        };
        ($k:ident / $other:expr, $what:expr, || $make:expr, $c:ident = $user:expr, $use:block) => {{
            let needles = needles_of(
                || $make,
                || {
                    let $k = $other;
                    $make
                },
            );
            let $c = $user;
            check(
                $what,
                needles,
                &|n| {
                    {
                        let c = $make;
                        core::hint::black_box(&c);
                    }
                    found_below(n)
                },
                &|n| {
                    $use
                    found_below(n)
                },
            );
        }};
    }

    macro_rules! aes {
        ($t:ty, $n:expr) => {
            for b in aes_ct::Backend::available() {
                let (k, k2) = (key($n, 13), key($n, 113));
                let k: &aes_ct::cipher::Key<$t> = k.as_slice().try_into().unwrap();
                let k2: &aes_ct::cipher::Key<$t> = k2.as_slice().try_into().unwrap();
                key_case!(
                    k / k2,
                    format!("{} on {b}", stringify!($t)),
                    || <$t>::new_with_backend(k, b).unwrap(),
                    |c| {
                        let mut blocks = [Array::<u8, _>::default(); 64];
                        c.encrypt_blocks(&mut blocks);
                        c.decrypt_blocks(&mut blocks);
                        core::hint::black_box(&blocks);
                        // Our CTR: one block, 16 blocks (no main loop at
                        // the wider widths: round keys broadcast where
                        // used) and 64 blocks and a partial one.
                        use aes_ct::cipher::{InnerIvInit, StreamCipher};
                        for n in [16, 256, 1029] {
                            let core = aes_ct::CtrCore::inner_iv_init(&c, &[9u8; 16].into());
                            let mut ctr = aes_ct::Ctr32BE::<&$t>::from_core(core);
                            let mut buf = [0x6bu8; 1029];
                            ctr.apply_keystream(&mut buf[..n]);
                            core::hint::black_box(&buf);
                        }
                    }
                );
            }
        };
    }
    aes!(aes_ct::Aes128, 16);
    aes!(aes_ct::Aes256, 32);

    for b in ghash_ct::Backend::available() {
        let h: [u8; 16] = key(16, 17).try_into().unwrap();
        let h2: [u8; 16] = key(16, 117).try_into().unwrap();
        key_case!(
            h / h2,
            format!("GHash on {b}"),
            || ghash_ct::GHash::new_with_backend(&h.into(), b).unwrap(),
            g = ghash_ct::GHashKey::new_with_backend(&h.into(), b).unwrap(),
            {
                let mut s = ghash_ct::GHashState::new();
                g.update_padded(&mut s, &[0x5a; 1029]);
                core::hint::black_box(&s);
            }
        );
    }

    // Every path by `new_with_backend`, and the detected one by the two
    // constructors a drop-in user calls (`KeyInit::new`, `From` a cipher),
    // which build their key forms each their own way.
    macro_rules! gcm {
        ($t:ty, $aes:ty, $n:expr) => {
            let (k, k2) = (key($n, 19), key($n, 119));
            let k: &aes_gcm_ct::Key<$t> = k.as_slice().try_into().unwrap();
            let k2: &aes_gcm_ct::Key<$t> = k2.as_slice().try_into().unwrap();
            // A 1029-byte seal, and an 8197-byte seal and open (the
            // 512-bit path's pairs of batches take messages over 4 KiB).
            let seal = |g: &$t| {
                let mut buf = [0x3cu8; 1029];
                let tag =
                    g.encrypt_inout_detached(&[7u8; 12].into(), b"aad", buf.as_mut_slice().into());
                core::hint::black_box((&buf, &tag));
                let mut buf = [0x3cu8; 8197];
                let nonce = [8u8; 12].into();
                let tag = g.encrypt_inout_detached(&nonce, b"aad", buf.as_mut_slice().into());
                let opened = tag.map(|t| {
                    g.decrypt_inout_detached(&nonce, b"aad", buf.as_mut_slice().into(), &t)
                });
                core::hint::black_box((&buf, &opened));
            };
            for b in aes_gcm_ct::Backend::available() {
                key_case!(
                    k / k2,
                    format!("{} on {b}", stringify!($t)),
                    || <$t>::new_with_backend(k, b).unwrap(),
                    |g| { seal(&g) }
                );
            }
            key_case!(
                k / k2,
                format!("{} by KeyInit::new", stringify!($t)),
                || <$t as aes_gcm_ct::KeyInit>::new(k),
                |g| { seal(&g) }
            );
            key_case!(
                k / k2,
                format!("{} from {}", stringify!($t), stringify!($aes)),
                || <$t>::from(<$aes as aes_ct::cipher::KeyInit>::new(k)),
                |g| { seal(&g) }
            );
        };
    }
    gcm!(Aes128Gcm, aes_ct::Aes128, 16);
    gcm!(Aes256Gcm, aes_ct::Aes256, 32);

    for b in adiantum_ct::Backend::available() {
        let k: [u8; 32] = key(32, 23).try_into().unwrap();
        let k2: [u8; 32] = key(32, 123).try_into().unwrap();
        key_case!(
            k / k2,
            format!("Adiantum on NH {b}"),
            || adiantum_ct::Adiantum::new_with_backend(&k.into(), b).unwrap(),
            |a| {
                let mut sector = [0x11u8; 512];
                a.encrypt(&[0u8; 32], &mut sector).unwrap();
                core::hint::black_box(&sector);
            }
        );
    }
    assert!(checked >= 5);
    assert!(
        failures.is_empty(),
        "key material left on the dead stack:\n  {}",
        failures.join("\n  ")
    );
}
