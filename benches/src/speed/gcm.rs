//! AES-GCM: every aes-gcm-ct path this CPU can run (forced with
//! `AesGcm::new_with_backend`) and the automatic selection, next to
//! RustCrypto `aes-gcm` (auto-detected in the normal build; `aes` and
//! `polyval` soft in the soft build), `ring` and, for seal, OpenSSL's
//! `openssl speed -aead -evp aes-N-gcm` (also with AES-NI and PCLMULQDQ
//! masked on x86).
//!
//! The software path (aes-ct `hybrid` + ghash-ct without PCLMULQDQ, e.g.
//! `vpmuludq512`, path `ctr-ghash`: what a CPU without AES and carry-less
//! multiply instructions runs) cannot be forced
//! at run time on a CPU with them (`ctr-ghash` uses aes-ct's automatically
//! selected backend and the key's automatically selected GHASH), so it is
//! measured in the soft build, whose `--cfg aes_ct_backend="hybrid"
//! --cfg ghash_ct_backend="NAME"` (set by xtask) make it the automatic
//! choice, and
//! merged like the RustCrypto-soft rows.
//!
//! Every message as `bssl speed` does it: 12-byte nonce, 13 bytes of
//! additional data (a TLS record header), 16-byte tag, in place, the key
//! set up once. Seal runs on the same buffer again and again; open too,
//! with nothing copied between messages (`OpenCycle`: every open is of a
//! valid ciphertext and is checked to verify). Each row is checked against
//! RustCrypto's output first. A build's rows are measured side by side
//! (`side_by_side`: the best of rounds that run every row in turn), so
//! load on a shared machine that comes and goes hits them alike.
//!
//! `aws-lc-rs` rows are in the builds with `--cfg speed_peers` (xtask's).
//!
//! Key setup (`KeyInit::new` and drop, for code that makes a key per
//! message) and the key's size get tables of their own.
//!
//! The SSSE3-width tables (AES-128-GCM) compare what a CPU without AES-NI
//! runs: aes-gcm-ct's software path at the 128-bit width against ring with
//! AES-NI and PCLMULQDQ hidden from its CPU detection (its vpaes AES and
//! constant-time fallback GHASH). That ring is a patched scratch copy, so
//! both are measured, alternately, in a third build (xtask's
//! `speed-ring-noaesni`, see [`ssse3_vs_ring`]) and merged.
//!
//! The AES-NI-width tables (AES-128 and AES-256) compare what a CPU with
//! AES-NI and PCLMULQDQ but no VAES runs (Skylake to Cascade Lake, Zen 1
//! and 2): aes-gcm-ct's AES-NI path (`aesni-avx-clmul` where the CPU has
//! AVX, else `aesni-clmul`) against ring with VAES and
//! VPCLMULQDQ hidden (its AES-NI path), in a fourth build (xtask's
//! `speed-ring-novaes`, see [`aesni_vs_ring`]), checked against ring's
//! own output.

use super::{
    Buf, Col, Ctx, KeyImpl, Measured, OPENSSL_NO_AESNI, OPENSSL_NO_AESNI_NOTE, Probe, Role, Unit, keep,
};
use aes_gcm_ct::aead::{AeadInOut, KeyInit};
use aes_gcm_ct::{AesGcm, Backend};
use cipher::consts::{U12, U16};
use cipher::{BlockCipherEncrypt, BlockSizeUser};

/// Message sizes in bytes (`bssl speed`'s).
pub const SIZES: [usize; 5] = [16, 256, 1350, 8192, 16384];

const NONCE: [u8; 12] = [3; 12];

/// Additional data per message: a TLS record header's 13 bytes, as
/// `bssl speed` and `openssl speed -aead` use.
const AAD: [u8; 13] = [0x17; 13];

#[rustfmt::skip]
const SEAL_COLS: &[Col] = &[
    Col { key: "16ns", header: "16 B ns", lower_is_better: true },
    Col { key: "16", header: "16 B", lower_is_better: false },
    Col { key: "256", header: "256 B", lower_is_better: false },
    Col { key: "1350", header: "1350 B", lower_is_better: false },
    Col { key: "8192", header: "8 KiB", lower_is_better: false },
    Col { key: "16384", header: "16 KiB", lower_is_better: false },
];

/// The seal columns without the nanoseconds one.
const OPEN_COLS: &[Col] = SEAL_COLS.split_at(1).1;

const SEAL_CAPTION: &str =
    "ns per 16-byte seal, then MB/s at N bytes; 13 B AAD, in place; best of alternating rounds";
const OPEN_CAPTION: &str = "MB/s at N bytes; 13 B AAD, in place, two valid ciphertexts in turn; \
     best of alternating rounds";

const OPENSSL_AEAD_NOTE: &str = "\u{2021} openssl speed -aead -evp aes-N-gcm: per message \
     an EVP init with the IV, 13 B AAD, the text and the tag (seal only); EVP's per-call \
     overhead dominates small messages.";

/// Was RustCrypto `aes` built with `--cfg aes_backend="soft"`?
#[allow(unexpected_cfgs)]
const RUSTCRYPTO_SOFT: bool = cfg!(aes_backend = "soft");

/// The software path's row (measured in the soft build).
const SOFTWARE: &str = "aes-gcm-ct software path \u{2020}";

/// One AEAD under test: seal in place and return the tag; open in place
/// and say whether the tag verified.
trait Aead {
    fn seal(&self, buf: &mut [u8]) -> [u8; 16];
    fn open(&self, buf: &mut [u8], tag: &[u8; 16]) -> bool;
}

/// Open in place again and again without copying a ciphertext back: with
/// one key and nonce the keystream is the same each time, so opening the
/// ciphertext `C` of `P` leaves `P`, and `P` is itself the ciphertext of `C`
/// (sealing `C` gives `P` and a second tag). Opening with the two tags in
/// turn therefore alternates the buffer between `C` and `P`, each open a
/// real one that verifies. A copy per message would add the same memcpy to
/// every row and pull every ratio towards 1.
struct OpenCycle {
    /// The tag of `C`, then the tag of `P` as a ciphertext.
    tags: [[u8; 16]; 2],
    /// Which of them the buffer's content needs now.
    next: usize,
}

impl OpenCycle {
    /// For a buffer that holds the ciphertext whose tag is `tags[0]`.
    fn new(tags: [[u8; 16]; 2]) -> Self {
        Self { tags, next: 0 }
    }

    /// Open `buf` with `a`; panics if the tag does not verify (a failed
    /// open may be cheaper, so it must not be timed).
    #[inline]
    fn open(&mut self, a: &(impl Aead + ?Sized), buf: &mut [u8]) {
        assert!(a.open(buf, &self.tags[self.next]), "open failed");
        self.next ^= 1;
    }
}

/// aes-gcm-ct or RustCrypto `aes-gcm` (both through `aead` 0.6).
struct Rust<T>(T);

impl<T: AeadInOut<NonceSize = U12, TagSize = U16>> Aead for Rust<T> {
    #[inline]
    fn seal(&self, buf: &mut [u8]) -> [u8; 16] {
        let tag = self
            .0
            .encrypt_inout_detached(&NONCE.into(), &AAD, buf.into());
        tag.expect("seal").into()
    }

    #[inline]
    fn open(&self, buf: &mut [u8], tag: &[u8; 16]) -> bool {
        let r = self
            .0
            .decrypt_inout_detached(&NONCE.into(), &AAD, buf.into(), tag.into());
        r.is_ok()
    }
}

/// ring's and aws-lc-rs's `LessSafeKey` (one API, but aws-lc-rs's
/// `open_in_place_separate_tag` takes the tag as a slice and no source
/// range): the wrapper type, its [`Aead`] impl and its key constructor.
/// `$open` receives the key, nonce, AAD, tag and buffer.
macro_rules! less_safe_key {
    ($(#[$m:meta])* $name:ident, $key:ident, $krate:ident,
     |$k:ident, $n:ident, $aad:ident, $tag:ident, $buf:ident| $open:expr) => {
        $(#[$m])*
        struct $name($krate::aead::LessSafeKey);

        $(#[$m])*
        impl Aead for $name {
            #[inline]
            fn seal(&self, buf: &mut [u8]) -> [u8; 16] {
                use $krate::aead::{Aad, Nonce};
                let n = Nonce::assume_unique_for_key(NONCE);
                let tag = self
                    .0
                    .seal_in_place_separate_tag(n, Aad::from(AAD), buf)
                    .expect("seal");
                tag.as_ref().try_into().expect("16-byte tag")
            }

            #[inline]
            fn open(&self, $buf: &mut [u8], $tag: &[u8; 16]) -> bool {
                use $krate::aead::{Aad, Nonce};
                let ($k, $n, $aad) = (&self.0, Nonce::assume_unique_for_key(NONCE), Aad::from(AAD));
                $open.is_ok()
            }
        }

        $(#[$m])*
        fn $key(bits: usize, key: &[u8]) -> $krate::aead::LessSafeKey {
            let alg = if bits == 128 {
                &$krate::aead::AES_128_GCM
            } else {
                &$krate::aead::AES_256_GCM
            };
            let Ok(k) = $krate::aead::UnboundKey::new(alg, key) else {
                unreachable!("key length matches")
            };
            $krate::aead::LessSafeKey::new(k)
        }
    };
}

less_safe_key!(Ring, ring_key, ring, |k, n, aad, tag, buf| k
    .open_in_place_separate_tag(
        n,
        aad,
        ring::aead::Tag::from(*tag),
        buf,
        0..
    ));

less_safe_key!(
    #[cfg(speed_peers)]
    AwsLc,
    aws_lc_key,
    aws_lc_rs,
    |k, n, aad, tag, buf| k.open_in_place_separate_tag(n, aad, tag, buf)
);

const RING: &str = "ring 0.17";
const AWS_LC: &str = "aws-lc-rs 1";

/// Table titles of a key size.
fn titles(bits: usize) -> (String, String) {
    (
        format!("AES-{bits}-GCM seal"),
        format!("AES-{bits}-GCM open"),
    )
}

/// The plaintext of `n` bytes.
fn message(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 29 + 5) as u8).collect()
}

/// A reference's answer at one size: the ciphertext of [`message`] and the
/// [`OpenCycle`] tags (of that ciphertext, and of the message as the
/// ciphertext of that ciphertext).
struct Expect {
    ct: Vec<u8>,
    tags: [[u8; 16]; 2],
}

impl Expect {
    /// `reference`'s answer at `n` bytes.
    fn new(reference: &(impl Aead + ?Sized), n: usize) -> Self {
        let mut ct = message(n);
        let tag = reference.seal(&mut ct);
        let mut back = ct.clone();
        let tag2 = reference.seal(&mut back);
        Self {
            ct,
            tags: [tag, tag2],
        }
    }

    /// `a` gives this ciphertext and tag, opens it, and opens the message
    /// with the second tag back into the ciphertext.
    fn check(&self, a: &(impl Aead + ?Sized), name: &str) -> Result<(), String> {
        let n = self.ct.len();
        let mut b = message(n);
        let sealed = a.seal(&mut b) == self.tags[0] && b == self.ct;
        let opened = sealed && a.open(&mut b, &self.tags[0]) && b == message(n);
        let back = opened && a.open(&mut b, &self.tags[1]) && b == self.ct;
        back.then_some(())
            .ok_or_else(|| format!("{name}: wrong result at {n} bytes"))
    }
}

fn one_size<A, R>(ctx: &mut Ctx, bits: usize)
where
    A: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16> + KeyInit + Clone + 'static,
    R: AeadInOut<NonceSize = U12, TagSize = U16> + KeyInit,
{
    let (seal_t, open_t) = titles(bits);
    ctx.table(&seal_t, SEAL_CAPTION, SEAL_COLS);
    ctx.table(&open_t, OPEN_CAPTION, OPEN_COLS);
    let key: Vec<u8> = (0..bits / 8).map(|i| (i * 7 + 1) as u8).collect();
    let Ok(rc) = R::new_from_slice(&key) else {
        unreachable!("key length matches")
    };
    let rc = Rust(rc);
    let new =
        |b: Backend| AesGcm::<A, U12>::new_with_backend(key.as_slice().try_into().ok()?, b).ok();
    let Ok(auto) = AesGcm::<A, U12>::new_from_slice(&key) else {
        unreachable!("key length matches")
    };
    let auto_name = format!("aes-gcm-ct auto ({})", auto.backend().name());
    let rc_auto = "RustCrypto aes-gcm 0.11 auto";
    let rc_soft = "RustCrypto aes-gcm 0.11 soft";
    let ring_name = RING;

    // Every row this build measures, measured side by side; forced paths
    // other than the automatic choice are also named for ratios to ring.
    let mut impls: Vec<(Box<dyn Aead>, String, Role)> = Vec::new();
    let mut others = Vec::new();
    if ctx.wants(Role::Ours) {
        for b in Backend::available() {
            let Some(g) = new(b) else { continue };
            let name = format!("aes-gcm-ct {}", b.name());
            if b != auto.backend() {
                others.push(name.clone());
            }
            impls.push((Box::new(Rust(g)), name, Role::Ours));
        }
        impls.push((Box::new(Rust(auto)), auto_name.clone(), Role::Ours));
    }
    if ctx.opts.soft_build {
        // Automatic selection under this build's cfgs: the software path
        // if aes-ct chose a backend without AES instructions.
        let Ok(g) = AesGcm::<A, U12>::new_from_slice(&key) else {
            unreachable!("key length matches")
        };
        let aes = aes_ct::Backend::detected();
        if g.backend() == Backend::CtrGhash && !aes_ct::hazmat::uses_aes_instructions(aes) {
            ctx.note(&format!(
                "\u{2020} the soft build's automatic selection: path {}, aes-ct {}, ghash-ct {}.",
                g.backend().name(),
                aes.name(),
                g.ghash_backend().name()
            ));
            impls.push((Box::new(Rust(g)), SOFTWARE.to_owned(), Role::Ours));
        }
    }
    let Ok(rc_row) = R::new_from_slice(&key) else {
        unreachable!("key length matches")
    };
    let rc_name = if RUSTCRYPTO_SOFT { rc_soft } else { rc_auto };
    impls.push((Box::new(Rust(rc_row)), rc_name.to_owned(), Role::Reference));
    if ctx.wants(Role::Other) {
        impls.push((Box::new(Ring(ring_key(bits, &key))), RING.to_owned(), Role::Other));
        #[cfg(speed_peers)]
        impls.push((Box::new(AwsLc(aws_lc_key(bits, &key))), AWS_LC.to_owned(), Role::Other));
    }
    let rows: Vec<(&dyn Aead, &str, Role)> = impls
        .iter()
        .map(|(a, name, role)| (&**a, name.as_str(), *role))
        .collect();
    if let Err(e) = side_by_side(ctx, (&seal_t, &open_t), &rows, &rc) {
        panic!("{e}");
    }

    let mut openssl = None;
    let mut openssl_masked = None;
    if ctx.wants(Role::Other)
        && let Some(version) = ctx.openssl_version()
    {
        let v = version
            .split_whitespace()
            .take(2)
            .collect::<Vec<_>>()
            .join(" ");
        let cipher = format!("aes-{bits}-gcm");
        let cells = |mbps: Vec<f64>| {
            let mut c: Vec<(String, f64)> = SIZES
                .iter()
                .zip(&mbps)
                .map(|(n, &v)| (n.to_string(), v))
                .collect();
            c.push(("16ns".to_owned(), 16.0 / mbps[0] * 1e3));
            c
        };
        // Seal only (each OpenSSL row costs 5 s; `-decrypt` would give
        // open rows): the targets against OpenSSL are seal figures.
        let name = format!("{v} -aead \u{2021}");
        if let Some(mbps) = ctx.openssl_with(&cipher, &SIZES, &[], &["-aead"]) {
            ctx.row(&seal_t, Role::Other, &name, cells(mbps));
            ctx.note(OPENSSL_AEAD_NOTE);
        }
        openssl = Some(name);
        if cfg!(any(target_arch = "x86", target_arch = "x86_64")) {
            let name = format!("{v} -aead, no AES-NI *");
            let env = [("OPENSSL_ia32cap", OPENSSL_NO_AESNI)];
            if let Some(mbps) = ctx.openssl_with(&cipher, &SIZES, &env, &["-aead"]) {
                ctx.row(&seal_t, Role::Other, &name, cells(mbps));
                ctx.note(OPENSSL_NO_AESNI_NOTE);
            }
            openssl_masked = Some(name);
        }
    }

    // The ratio lines (declared in the normal build, which prints them).
    for t in [&seal_t, &open_t] {
        ctx.ratio(t, &auto_name, ring_name);
        ctx.ratio(t, &auto_name, AWS_LC);
        ctx.ratio(t, &auto_name, rc_auto);
        if let Some(o) = &openssl {
            ctx.ratio(t, &auto_name, o);
        }
        ctx.ratio(t, SOFTWARE, rc_soft);
        if let Some(o) = &openssl_masked {
            ctx.ratio(t, SOFTWARE, o);
        }
        for o in &others {
            ctx.ratio(t, o, ring_name);
        }
    }
}

/// Key setup (`KeyInit::new` and drop: round keys, H and its powers, the
/// wipe on drop) and key size, for code that makes a key per message.
fn key_setup(ctx: &mut Ctx) {
    let (k16, k32) = ([0x5au8; 16], [0x5au8; 32]);
    let ours = "aes-gcm-ct Aes128Gcm / Aes256Gcm auto";
    let rc_auto = "RustCrypto aes-gcm 0.11 auto";
    let rc_soft = "RustCrypto aes-gcm 0.11 soft";
    let mut keys = Vec::new();
    let name = |n| if ctx.opts.soft_build { SOFTWARE } else { n };
    if ctx.wants(Role::Ours) || ctx.opts.soft_build {
        keys.push(KeyImpl::new(
            name(ours),
            Role::Ours,
            || aes_gcm_ct::Aes128Gcm::new(keep(&k16.into())),
            || aes_gcm_ct::Aes256Gcm::new(keep(&k32.into())),
        ));
    }
    keys.push(KeyImpl::new(
        if RUSTCRYPTO_SOFT { rc_soft } else { rc_auto },
        Role::Reference,
        || aes_gcm::Aes128Gcm::new(keep(&k16.into())),
        || aes_gcm::Aes256Gcm::new(keep(&k32.into())),
    ));
    if ctx.wants(Role::Other) {
        keys.push(KeyImpl::new(
            RING,
            Role::Other,
            || ring_key(128, keep(&k16)),
            || ring_key(256, keep(&k32)),
        ));
        #[cfg(speed_peers)]
        keys.push(KeyImpl::new(
            AWS_LC,
            Role::Other,
            || aws_lc_key(128, keep(&k16)),
            || aws_lc_key(256, keep(&k32)),
        ));
    }
    let (setup, size) = ctx.key_tables("AES-GCM", keys);
    for t in [&setup, &size] {
        ctx.ratio(t, ours, RING);
        ctx.ratio(t, ours, AWS_LC);
        ctx.ratio(t, ours, rc_auto);
        ctx.ratio(t, SOFTWARE, rc_soft);
    }
}

/// The SSSE3-width tables' titles.
const SSSE3_SEAL: &str = "AES-128-GCM seal, SSSE3 width vs ring without AES-NI";
const SSSE3_OPEN: &str = "AES-128-GCM open, SSSE3 width vs ring without AES-NI";
/// Their rows.
const SSSE3_OURS: &str = "aes-gcm-ct software path, SSSE3 width \u{a7}";
const SSSE3_RING: &str = "ring 0.17, AES-NI + PCLMULQDQ hidden \u{a7}";
const SSSE3_RC: &str = "RustCrypto aes-gcm 0.11 soft";
/// The GHASH backend of an SSSE3-only CPU (and xtask's `--cfg
/// ghash_ct_backend` for this build).
pub const SSSE3_GHASH: &str = "pmuludq";

/// Declare the SSSE3-width tables and their ratio lines (in the build that
/// prints them; the rows come from the `speed-ring-noaesni` build).
fn ssse3_tables(ctx: &mut Ctx) {
    ctx.table(SSSE3_SEAL, SEAL_CAPTION, SEAL_COLS);
    ctx.table(SSSE3_OPEN, OPEN_CAPTION, OPEN_COLS);
    for t in [SSSE3_SEAL, SSSE3_OPEN] {
        ctx.ratio(t, SSSE3_OURS, SSSE3_RING);
        ctx.ratio(t, SSSE3_OURS, SSSE3_RC);
    }
}

/// The `--ssse3-build` run: aes-gcm-ct's automatic selection, which this
/// build's cfgs make the software path (aes-ct `hybrid`, ghash-ct
/// `pmuludq`), with aes-ct's width hook at 128 bits, against this build's
/// ring (AES-NI and PCLMULQDQ hidden) and RustCrypto soft, each size
/// measured alternately ([`Ctx::measure_alternating`]). Fails with what is
/// wrong if the build is not that one.
pub fn ssse3_vs_ring(ctx: &mut Ctx) -> Result<(), String> {
    if !cfg!(all(
        feature = "test-hooks",
        any(target_arch = "x86", target_arch = "x86_64")
    )) {
        return Err("--ssse3-build needs an x86 build with benches' test-hooks feature".into());
    }
    #[cfg(all(
        feature = "test-hooks",
        any(target_arch = "x86", target_arch = "x86_64")
    ))]
    aes_ct::x86::bsaes_limit_width(1);
    ssse3_measure(ctx)
}

fn ssse3_measure(ctx: &mut Ctx) -> Result<(), String> {
    if !RUSTCRYPTO_SOFT {
        return Err("--ssse3-build needs --cfg aes_backend=\"soft\"".into());
    }
    ssse3_tables(ctx);
    let key: Vec<u8> = (0..16).map(|i| (i * 7 + 1) as u8).collect();
    let Ok(g) = aes_gcm_ct::Aes128Gcm::new_from_slice(&key) else {
        unreachable!("key length matches")
    };
    let aes = aes_ct::Backend::detected();
    if g.backend() != Backend::CtrGhash
        || aes.name() != "hybrid"
        || g.ghash_backend().name() != SSSE3_GHASH
    {
        return Err(format!(
            "--ssse3-build: automatic selection is path {}, aes-ct {}, ghash-ct {}; it needs \
             --cfg aes_ct_backend=\"hybrid\" --cfg ghash_ct_backend=\"{SSSE3_GHASH}\"",
            g.backend().name(),
            aes.name(),
            g.ghash_backend().name()
        ));
    }
    ctx.note(&format!(
        "\u{a7} SSSE3 width: aes-gcm-ct path {}, aes-ct {} with its width hook at 128 bits \
         (SSSE3), ghash-ct {}; ring built by cargo xtask speed from a scratch copy of its \
         crates.io source whose CPU detection clears AES-NI, PCLMULQDQ, VAES and VPCLMULQDQ: \
         its vpaes AES and constant-time fallback GHASH. Figures: {}.",
        g.backend().name(),
        aes.name(),
        g.ghash_backend().name(),
        super::rounds_note()
    ));
    let ours = Rust(g);
    let ring = Ring(ring_key(128, &key));
    let Ok(rc) = aes_gcm::Aes128Gcm::new_from_slice(&key) else {
        unreachable!("key length matches")
    };
    let rc = Rust(rc);
    side_by_side(
        ctx,
        (SSSE3_SEAL, SSSE3_OPEN),
        &[
            (&ours, SSSE3_OURS, Role::Ours),
            (&ring, SSSE3_RING, Role::Other),
            (&rc, SSSE3_RC, Role::Reference),
        ],
        &rc,
    )
}

/// Seal and open tables `titles` for `impls` (each with its row name and
/// role), measured side by side ([`Ctx::rows_side_by_side`]; every probe
/// with a buffer of its own), each checked first against `reference`'s
/// ciphertext and tags ([`Expect`]).
fn side_by_side<'a>(
    ctx: &mut Ctx,
    (seal_t, open_t): (&str, &str),
    impls: &[(&'a dyn Aead, &str, Role)],
    reference: &dyn Aead,
) -> Result<(), String> {
    let expect: Vec<Expect> = SIZES.iter().map(|&n| Expect::new(reference, n)).collect();
    for e in &expect {
        for &(a, name, _) in impls {
            e.check(a, name)?;
        }
    }
    let rows = |probe: &dyn Fn(&'a dyn Aead, &Expect) -> Probe<'a>| -> Vec<Measured<'a>> {
        impls
            .iter()
            .map(|&(a, name, role)| {
                Measured::new(name, role, expect.iter().map(|e| probe(a, e)).collect())
            })
            .collect()
    };
    let seal = rows(&|a, e| {
        let n = e.ct.len();
        let mut buf = Buf::from(&message(n)[..]);
        let run = move || {
            keep(a.seal(keep(&mut buf[..])));
        };
        if n == 16 {
            Probe::new(&[("16ns", Unit::Ns), ("16", Unit::Mbps(n))], run)
        } else {
            Probe::mbps(n, run)
        }
    });
    ctx.rows_side_by_side(seal_t, seal);
    let open = rows(&|a, e| {
        let mut buf = Buf::from(&e.ct[..]);
        let mut cycle = OpenCycle::new(e.tags);
        Probe::mbps(e.ct.len(), move || cycle.open(a, keep(&mut buf[..])))
    });
    ctx.rows_side_by_side(open_t, open);
    Ok(())
}

/// The AES-NI-width tables' titles for a key size: what CPUs with AES-NI
/// and PCLMULQDQ but no VAES run (Skylake to Cascade Lake, Zen 1 and 2).
fn aesni_titles(bits: usize) -> (String, String) {
    (
        format!("AES-{bits}-GCM seal, AES-NI width vs ring without VAES"),
        format!("AES-{bits}-GCM open, AES-NI width vs ring without VAES"),
    )
}
/// ring's row.
const AESNI_RING: &str = "ring 0.17, VAES + VPCLMULQDQ hidden \u{a4}";

/// The AES-NI path automatic selection takes on a CPU like this one
/// without VAES (the first of the two in aes-gcm-ct's preference order
/// that this CPU runs), if it runs one.
fn aesni_path() -> Option<Backend> {
    Backend::available().find(|b| matches!(b, Backend::AesniAvxClmul | Backend::AesniClmul))
}

/// Our row: that path's.
fn aesni_ours(b: Backend) -> String {
    format!("aes-gcm-ct {} \u{a4}", b.name())
}

/// Declare the AES-NI-width tables and their ratio lines (in the build that
/// prints them; the rows come from the `speed-ring-novaes` build).
fn aesni_tables(ctx: &mut Ctx) {
    let Some(b) = aesni_path() else { return };
    for bits in [128, 256] {
        let (seal, open) = aesni_titles(bits);
        ctx.table(&seal, SEAL_CAPTION, SEAL_COLS);
        ctx.table(&open, OPEN_CAPTION, OPEN_COLS);
        for t in [&seal, &open] {
            ctx.ratio(t, &aesni_ours(b), AESNI_RING);
        }
    }
}

/// The `--aesni-build` run: aes-gcm-ct's AES-NI path (forced:
/// `aesni-avx-clmul` where the CPU has AVX, else `aesni-clmul`) against
/// this build's ring, whose CPU detection has VAES and VPCLMULQDQ hidden
/// (its AES-NI + AVX path), AES-128 and AES-256, each size measured
/// alternately. A CPU without AES-NI and PCLMULQDQ gets a note and no
/// rows.
pub fn aesni_vs_ring(ctx: &mut Ctx) -> Result<(), String> {
    let Some(b) = aesni_path() else {
        ctx.note("\u{a4} AES-NI width: not measured, this CPU has no AES-NI and PCLMULQDQ.");
        return Ok(());
    };
    aesni_tables(ctx);
    ctx.note(&format!(
        "\u{a4} AES-NI width: aes-gcm-ct path {} (forced); ring built by cargo xtask speed \
         from a scratch copy of its crates.io source whose CPU detection clears VAES and \
         VPCLMULQDQ: its AES-NI path, as on CPUs without VAES. Figures: {}.",
        b.name(),
        super::rounds_note()
    ));
    aesni_size::<aes_ct::Aes128>(ctx, b, 128)?;
    aesni_size::<aes_ct::Aes256>(ctx, b, 256)
}

fn aesni_size<A>(ctx: &mut Ctx, b: Backend, bits: usize) -> Result<(), String>
where
    A: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16> + KeyInit + Clone + 'static,
{
    let key: Vec<u8> = (0..bits / 8).map(|i| (i * 7 + 1) as u8).collect();
    let g = key
        .as_slice()
        .try_into()
        .ok()
        .and_then(|k| AesGcm::<A, U12>::new_with_backend(k, b).ok())
        .ok_or_else(|| format!("--aesni-build: no {b} key"))?;
    let ours = Rust(g);
    let ring = Ring(ring_key(bits, &key));
    let (seal, open) = aesni_titles(bits);
    let name = aesni_ours(b);
    side_by_side(
        ctx,
        (&seal, &open),
        &[(&ours, &name, Role::Ours), (&ring, AESNI_RING, Role::Other)],
        &ring,
    )
}

/// After the merge, on a CPU with VAES: the patched ring must be clearly
/// slower than this build's (its VAES path) at 16 KiB, else the detection
/// patch did not take.
pub fn check_aesni_ring(ctx: &Ctx) -> Result<(), String> {
    #[cfg(target_arch = "x86_64")]
    let vaes = std::arch::is_x86_feature_detected!("vaes")
        && std::arch::is_x86_feature_detected!("vpclmulqdq")
        && std::arch::is_x86_feature_detected!("avx2");
    #[cfg(not(target_arch = "x86_64"))]
    let vaes = false;
    if !vaes {
        return Ok(());
    }
    patched_ring_slower(ctx, &aesni_titles(128).0, AESNI_RING, 0.8, "VAES")
}

/// After the merge: the patched ring must be far slower than this build's
/// (its AES-NI path) at 16 KiB, else the detection patch did not take.
pub fn check_ssse3_ring(ctx: &Ctx) -> Result<(), String> {
    patched_ring_slower(ctx, SSSE3_SEAL, SSSE3_RING, 0.5, "AES-NI")
}

/// The patched ring's 16 KiB seal (row `row` of table `table`) is at most
/// `factor` times this build's ring's, if both were measured.
fn patched_ring_slower(
    ctx: &Ctx,
    table: &str,
    row: &str,
    factor: f64,
    hidden_what: &str,
) -> Result<(), String> {
    let (seal, _) = titles(128);
    let (Some(hidden), Some(normal)) = (
        ctx.cell(table, row, "16384"),
        ctx.cell(&seal, RING, "16384"),
    ) else {
        return Ok(());
    };
    if hidden > normal * factor {
        return Err(format!(
            "ring with {hidden_what} hidden seals 16 KiB at {hidden:.0} MB/s, ring with it at \
             {normal:.0}: the CPU detection patch did not take effect"
        ));
    }
    Ok(())
}

/// The suite entry point.
pub fn run(ctx: &mut Ctx) {
    one_size::<aes_ct::Aes128, aes_gcm::Aes128Gcm>(ctx, 128);
    one_size::<aes_ct::Aes256, aes_gcm::Aes256Gcm>(ctx, 256);
    key_setup(ctx);
    if !ctx.opts.soft_build {
        ssse3_tables(ctx);
        aesni_tables(ctx);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The two tags alternate the buffer between the ciphertext and the
    /// message, for ours and for ring, so every timed open is a real one.
    #[test]
    fn open_cycle_alternates() {
        let key = [7u8; 16];
        let ours = Rust(aes_gcm_ct::Aes128Gcm::new(&key.into()));
        let ring = Ring(ring_key(128, &key));
        for n in [1, 16, 17, 1350] {
            let e = Expect::new(&ours, n);
            assert_ne!(e.tags[0], e.tags[1]);
            for a in [&ours as &dyn Aead, &ring] {
                assert_eq!(e.check(a, "row"), Ok(()));
                let mut buf = e.ct.clone();
                let mut cycle = OpenCycle::new(e.tags);
                for i in 0..4 {
                    cycle.open(a, &mut buf);
                    let want = if i % 2 == 0 { message(n) } else { e.ct.clone() };
                    assert_eq!(buf, want, "{n} bytes, open {i}");
                }
            }
        }
    }

    /// An open that does not verify stops the measurement.
    #[test]
    #[should_panic(expected = "open failed")]
    fn open_cycle_refuses_a_failed_open() {
        let ours = Rust(aes_gcm_ct::Aes128Gcm::new(&[7u8; 16].into()));
        let e = Expect::new(&ours, 64);
        let mut buf = e.ct.clone();
        OpenCycle::new([e.tags[1], e.tags[0]]).open(&ours, &mut buf);
    }

    /// A row that seals wrongly is reported, not measured.
    #[test]
    fn check_reports_a_wrong_row() {
        let ours = Rust(aes_gcm_ct::Aes128Gcm::new(&[7u8; 16].into()));
        let other = Rust(aes_gcm_ct::Aes128Gcm::new(&[8u8; 16].into()));
        let e = Expect::new(&ours, 64);
        assert_eq!(
            e.check(&other, "other"),
            Err("other: wrong result at 64 bytes".to_owned())
        );
    }
}
