//! AES: every aes-ct backend this CPU can run, next to RustCrypto `aes`
//! (auto-detected in the normal build, its fixslice soft backend in the
//! `--cfg aes_backend="soft"` build) and OpenSSL's EVP AES-CTR (also with
//! AES-NI/PCLMULQDQ masked on x86).
//!
//! Single block: one `encrypt_block` call on one block, each call on the
//! previous call's output (latency of a lone block). CTR: RustCrypto's
//! `ctr::Ctr32BE` over the cipher, a fresh IV per message (as a protocol
//! does per record), key expanded once; the `aes_ct::Ctr32BE` rows run
//! aes-ct's own CTR mode (same semantics, fused whole-block loop) the same
//! way.
//!
//! The AVX2-width tables (x86_64 CPUs with AVX-512 and VAES) compare the
//! 256-bit VAES code both crates have for CPUs without AVX-512: aes-ct's
//! `vaes` with its width hook at 2 lanes against RustCrypto `aes` built
//! from a scratch copy whose AVX-512 detection always answers no (its
//! `x86_vaes256` backend), both from the `speed-rustcrypto-vaes256` build
//! (`--avx2-build`, see [`avx2_vs_vaes256`]), merged.
//!
//! The SSSE3-width table (x86) is what a CPU without AES-NI runs: aes-ct's
//! `hybrid` with its bsaes width hook at 128 bits, through `ctr` and
//! through its own `Ctr32BE`, against RustCrypto `aes` soft, all from the
//! `--ssse3-build` (see [`ssse3_vs_soft`]), merged.

use super::{
    Buf, Col, Ctx, KeyImpl, Measured, OPENSSL_NO_AESNI, OPENSSL_NO_AESNI_NOTE, Probe, Role, Unit, keep,
};
use cipher::{Array, BlockCipherEncrypt, InnerIvInit, KeyInit, StreamCipher, consts::U16};

/// CTR message sizes in bytes (as `bssl speed` plus 1350, a typical packet).
pub const SIZES: [usize; 5] = [16, 256, 1350, 8192, 16384];

const COLS: &[Col] = &[
    Col { key: "blk_ns", header: "1blk ns", lower_is_better: true },
    Col { key: "blk_mbps", header: "1blk MB/s", lower_is_better: false },
    Col { key: "16", header: "CTR 16", lower_is_better: false },
    Col { key: "256", header: "256", lower_is_better: false },
    Col { key: "1350", header: "1350", lower_is_better: false },
    Col { key: "8192", header: "8192", lower_is_better: false },
    Col { key: "16384", header: "16384", lower_is_better: false },
];

const CAPTION: &str = "one block: ns and MB/s; CTR (ctr::Ctr32BE, new IV per message): MB/s at N bytes";

/// Was RustCrypto `aes` built with `--cfg aes_backend="soft"`?
#[allow(unexpected_cfgs)]
const RUSTCRYPTO_SOFT: bool = cfg!(aes_backend = "soft");

/// One block (ns and MB/s), then CTR through RustCrypto's `ctr` per size,
/// of `c`; each probe with a buffer of its own.
fn probes<C: BlockCipherEncrypt<BlockSize = U16>>(c: &C) -> Vec<Probe<'_>> {
    let mut block = Array::<u8, U16>::default();
    let one = Probe::new(
        &[("blk_ns", Unit::Ns), ("blk_mbps", Unit::Mbps(16))],
        move || c.encrypt_block(keep(&mut block)),
    );
    let iv = [0x5au8; 16];
    let ctr = SIZES.iter().map(move |&n| {
        let mut buf = Buf::zeroed(n);
        Probe::mbps(n, move || {
            let core = ctr::CtrCore::<&C, ctr::flavors::Ctr32BE>::inner_iv_init(c, &iv.into());
            let mut s = ctr::Ctr32BE::<&C>::from_core(core);
            s.apply_keystream(keep(&mut buf[..]));
        })
    });
    std::iter::once(one).chain(ctr).collect()
}

/// CTR probes of aes-ct's own `Ctr32BE` over a borrowed cipher.
fn own_ctr_probes<C: aes_ct::CtrCipher>(c: &C) -> Vec<Probe<'_>>
where
    for<'a> &'a C: aes_ct::CtrCipher,
{
    let iv = [0x5au8; 16];
    SIZES
        .iter()
        .map(|&n| {
            let mut buf = Buf::zeroed(n);
            Probe::mbps(n, move || {
                let core = aes_ct::CtrCore::<&C>::inner_iv_init(c, &iv.into());
                let mut s = aes_ct::Ctr32BE::<&C>::from_core(core);
                s.apply_keystream(keep(&mut buf[..]));
            })
        })
        .collect()
}

fn one_size<A, R>(ctx: &mut Ctx, bits: usize, ours: impl Fn(&[u8], aes_ct::Backend) -> Option<A>)
where
    A: aes_ct::CtrCipher,
    for<'a> &'a A: aes_ct::CtrCipher,
    R: BlockCipherEncrypt<BlockSize = U16> + KeyInit,
{
    let title = format!("AES-{bits}");
    ctx.table(&title, CAPTION, COLS);
    let key: Vec<u8> = (0..bits / 8).map(|i| (i * 7 + 1) as u8).collect();

    let ciphers: Vec<(aes_ct::Backend, A)> = if ctx.wants(Role::Ours) {
        aes_ct::Backend::available().filter_map(|b| Some((b, ours(&key, b)?))).collect()
    } else {
        Vec::new()
    };
    let Ok(rc) = R::new_from_slice(&key) else { unreachable!("key length matches") };
    let mut rows = Vec::new();
    for (b, c) in &ciphers {
        rows.push(Measured::new(format!("aes-ct {}", b.name()), Role::Ours, probes(c)));
        let name = format!("aes-ct {}, aes_ct::Ctr32BE", b.name());
        rows.push(Measured::new(name, Role::Ours, own_ctr_probes(c)));
    }
    let name = if RUSTCRYPTO_SOFT { "RustCrypto aes 0.9 soft" } else { "RustCrypto aes 0.9 auto" };
    rows.push(Measured::new(name, Role::Reference, probes(&rc)));
    ctx.rows_side_by_side(&title, rows);

    if let Some(version) = ctx.openssl_version() {
        let v = version.split_whitespace().take(2).collect::<Vec<_>>().join(" ");
        let cipher = format!("aes-{bits}-ctr");
        let mut runs = vec![(format!("{v} EVP"), Vec::new())];
        if cfg!(any(target_arch = "x86", target_arch = "x86_64")) {
            runs.push((format!("{v} EVP, no AES-NI *"), vec![("OPENSSL_ia32cap", OPENSSL_NO_AESNI)]));
        }
        for (name, env) in runs {
            if let Some(mbps) = ctx.openssl(&cipher, &SIZES, &env) {
                let cells = SIZES.iter().zip(mbps).map(|(n, v)| (n.to_string(), v)).collect();
                ctx.row(&title, Role::Other, &name, cells);
            }
        }
        if cfg!(any(target_arch = "x86", target_arch = "x86_64")) {
            ctx.note(OPENSSL_NO_AESNI_NOTE);
        }
    }
}

/// Key setup (`KeyInit::new` and drop) and key size of aes-ct's
/// automatically selected backend and RustCrypto `aes`.
fn key_setup(ctx: &mut Ctx) {
    let (k16, k32) = ([0x5au8; 16], [0x5au8; 32]);
    let ours = "aes-ct Aes128 / Aes256 auto";
    let rc_auto = "RustCrypto aes 0.9 auto";
    let rc_soft = "RustCrypto aes 0.9 soft";
    let mut keys = Vec::new();
    if ctx.wants(Role::Ours) {
        keys.push(KeyImpl::new(
            ours,
            Role::Ours,
            || aes_ct::Aes128::new(keep(&k16.into())),
            || aes_ct::Aes256::new(keep(&k32.into())),
        ));
    }
    keys.push(KeyImpl::new(
        if RUSTCRYPTO_SOFT { rc_soft } else { rc_auto },
        Role::Reference,
        || aes::Aes128::new(keep(&k16.into())),
        || aes::Aes256::new(keep(&k32.into())),
    ));
    let (setup, size) = ctx.key_tables("AES", keys);
    for t in [&setup, &size] {
        ctx.ratio(t, ours, rc_auto);
        ctx.ratio(t, ours, rc_soft);
    }
}

/// The AVX2-width tables' titles and row names.
fn avx2_title(bits: usize) -> String {
    format!("AES-{bits}, AVX2 width vs RustCrypto VAES256")
}
const AVX2_THROUGH_CTR: &str = "aes-ct vaes, AVX2 width \u{b6}";
const AVX2_OWN_CTR: &str = "aes-ct vaes, AVX2 width, aes_ct::Ctr32BE \u{b6}";
const RC_VAES256: &str = "RustCrypto aes 0.9 VAES256 \u{b6}";

/// Declare the AVX2-width tables and their ratio lines (in the build that
/// prints them; the rows come from the `--avx2-build`, which xtask makes
/// only on CPUs with AVX-512 VAES: elsewhere the tables stay empty and are
/// not printed).
fn avx2_tables(ctx: &mut Ctx) {
    for bits in [128, 256] {
        let t = avx2_title(bits);
        ctx.table(&t, CAPTION, COLS);
        ctx.ratio(&t, AVX2_THROUGH_CTR, RC_VAES256);
        ctx.ratio(&t, AVX2_OWN_CTR, RC_VAES256);
    }
}

/// The `--avx2-build` run (x86_64, benches' `test-hooks`, `aes` patched by
/// xtask so its AVX-512 check fails, `--cfg speed_rustcrypto_vaes256`):
/// aes-ct's `vaes` with the width hook at 2 lanes (AVX2), through
/// `ctr::Ctr32BE` and through its own `Ctr32BE`, against RustCrypto `aes`
/// on its VAES256 backend. Fails with what is wrong if the build is not
/// that one.
pub fn avx2_vs_vaes256(ctx: &mut Ctx) -> Result<(), String> {
    if !cfg!(all(feature = "test-hooks", target_arch = "x86_64", speed_rustcrypto_vaes256)) {
        return Err("--avx2-build needs an x86_64 build with benches' test-hooks feature and \
                    --cfg speed_rustcrypto_vaes256 (cargo xtask speed makes it)"
            .into());
    }
    if aes_ct::Backend::detected().name() != "vaes" {
        return Err(format!(
            "--avx2-build: aes-ct selects {}, not vaes, on this CPU",
            aes_ct::Backend::detected().name()
        ));
    }
    #[cfg(all(feature = "test-hooks", target_arch = "x86_64"))]
    aes_ct::x86::vaes_limit_width(2);
    avx2_tables(ctx);
    ctx.note(
        "\u{b6} AVX2 width: aes-ct `vaes` with its width hook at 2 lanes (256-bit vectors, what a \
         CPU with VAES but no AVX-512 runs) and RustCrypto aes built by cargo xtask speed from a \
         scratch copy of its crates.io source whose AVX-512 check always fails (its x86_vaes256 \
         backend), both in that build.",
    );
    let key: Vec<u8> = (0..32).map(|i| (i * 7 + 1) as u8).collect();
    avx2_size::<aes_ct::Aes128, aes::Aes128>(ctx, 128, &key[..16])?;
    avx2_size::<aes_ct::Aes256, aes::Aes256>(ctx, 256, &key)
}

fn avx2_size<A, R>(ctx: &mut Ctx, bits: usize, key: &[u8]) -> Result<(), String>
where
    A: aes_ct::CtrCipher + KeyInit + BlockCipherEncrypt<BlockSize = U16>,
    for<'a> &'a A: aes_ct::CtrCipher,
    R: BlockCipherEncrypt<BlockSize = U16> + KeyInit,
{
    let names = [AVX2_THROUGH_CTR, AVX2_OWN_CTR, RC_VAES256];
    ctr_vs::<A, R>(ctx, &avx2_title(bits), names, key, "--avx2-build")
}

/// Rows `names` (ours through `ctr`, ours through our `Ctr32BE`, the
/// peer through `ctr`) of table `title`: aes-ct's `A` against
/// `R` under `key`, measured side by side once both give the same
/// keystream (else an error naming `build`).
fn ctr_vs<A, R>(
    ctx: &mut Ctx,
    title: &str,
    [through_ctr, own_ctr, peer]: [&str; 3],
    key: &[u8],
    build: &str,
) -> Result<(), String>
where
    A: aes_ct::CtrCipher + KeyInit + BlockCipherEncrypt<BlockSize = U16>,
    for<'a> &'a A: aes_ct::CtrCipher,
    R: BlockCipherEncrypt<BlockSize = U16> + KeyInit,
{
    let Ok(ours) = A::new_from_slice(key) else { unreachable!("key length matches") };
    let Ok(rc) = R::new_from_slice(key) else { unreachable!("key length matches") };
    // Both must give the same keystream before either is timed.
    let mut a = vec![0u8; 1000];
    let mut b = a.clone();
    let iv = [0x5au8; 16];
    ctr::Ctr32BE::<&A>::from_core(ctr::CtrCore::inner_iv_init(&ours, &iv.into())).apply_keystream(&mut a);
    ctr::Ctr32BE::<&R>::from_core(ctr::CtrCore::inner_iv_init(&rc, &iv.into())).apply_keystream(&mut b);
    if a != b {
        return Err(format!("{build}: AES-{} CTR keystreams differ", 8 * key.len()));
    }
    let rows = vec![
        Measured::new(through_ctr, Role::Ours, probes(&ours)),
        Measured::new(own_ctr, Role::Ours, own_ctr_probes(&ours)),
        Measured::new(peer, Role::Reference, probes(&rc)),
    ];
    ctx.rows_side_by_side(title, rows);
    Ok(())
}

/// The SSSE3-width table's title and row names.
const SSSE3_TITLE: &str = "AES-128, SSSE3 width vs RustCrypto soft";
const SSSE3_THROUGH_CTR: &str = "aes-ct hybrid, SSSE3 width \u{a7}";
const SSSE3_OWN_CTR: &str = "aes-ct hybrid, SSSE3 width, aes_ct::Ctr32BE \u{a7}";
const SSSE3_RC: &str = "RustCrypto aes 0.9 soft \u{a7}";

/// Declare the SSSE3-width table and its ratio lines (in the build that
/// prints them; the rows come from the `--ssse3-build`, which xtask makes
/// on x86: elsewhere the table stays empty and is not printed).
fn ssse3_tables(ctx: &mut Ctx) {
    ctx.table(SSSE3_TITLE, CAPTION, COLS);
    ctx.ratio(SSSE3_TITLE, SSSE3_THROUGH_CTR, SSSE3_RC);
    ctx.ratio(SSSE3_TITLE, SSSE3_OWN_CTR, SSSE3_RC);
}

/// The `--ssse3-build` run's AES table (x86, benches' `test-hooks`,
/// `--cfg aes_backend="soft" --cfg aes_ct_backend="hybrid"`): aes-ct's
/// `hybrid` with its bsaes width hook at 128 bits (what a CPU with SSSE3
/// and no AES-NI runs), through `ctr::Ctr32BE` (the drop-in path) and
/// through its own `Ctr32BE`, against RustCrypto `aes` soft through
/// `ctr`. Fails with what is wrong if the build is not that one.
pub fn ssse3_vs_soft(ctx: &mut Ctx) -> Result<(), String> {
    if !cfg!(all(feature = "test-hooks", any(target_arch = "x86", target_arch = "x86_64"))) {
        return Err("--ssse3-build needs an x86 build with benches' test-hooks feature".into());
    }
    if !RUSTCRYPTO_SOFT || aes_ct::Backend::detected().name() != "hybrid" {
        return Err(format!(
            "--ssse3-build: aes-ct selects {} and RustCrypto aes is {}; it needs --cfg \
             aes_ct_backend=\"hybrid\" --cfg aes_backend=\"soft\"",
            aes_ct::Backend::detected().name(),
            if RUSTCRYPTO_SOFT { "soft" } else { "auto" }
        ));
    }
    #[cfg(all(feature = "test-hooks", any(target_arch = "x86", target_arch = "x86_64")))]
    aes_ct::x86::bsaes_limit_width(1);
    ssse3_tables(ctx);
    ctx.note(&format!(
        "\u{a7} SSSE3 width, AES table: aes-ct hybrid with its bsaes width hook at 128 bits (the \
         width of a CPU with SSSE3 and no AES-NI), RustCrypto aes built with --cfg \
         aes_backend=\"soft\" (fixslice), both in that build. Figures: {}.",
        super::rounds_note()
    ));
    let key: Vec<u8> = (0..16).map(|i| (i * 7 + 1) as u8).collect();
    let names = [SSSE3_THROUGH_CTR, SSSE3_OWN_CTR, SSSE3_RC];
    ctr_vs::<aes_ct::Aes128, aes::Aes128>(ctx, SSSE3_TITLE, names, &key, "--ssse3-build")
}

/// The suite entry point.
pub fn run(ctx: &mut Ctx) {
    one_size::<aes_ct::Aes128, aes::Aes128>(ctx, 128, |k, b| {
        aes_ct::Aes128::new_with_backend(k.try_into().ok()?, b).ok()
    });
    one_size::<aes_ct::Aes256, aes::Aes256>(ctx, 256, |k, b| {
        aes_ct::Aes256::new_with_backend(k.try_into().ok()?, b).ok()
    });
    key_setup(ctx);
    if !ctx.opts.soft_build {
        avx2_tables(ctx);
        if cfg!(any(target_arch = "x86", target_arch = "x86_64")) {
            ssse3_tables(ctx);
        }
    }
}
