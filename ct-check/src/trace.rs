//! Workloads of the trace-equivalence check (`cargo xtask ct-trace`).
//!
//! Technique: run each operation with several random secrets and identical
//! public values (lengths, counts, backend, nonce where it is public)
//! inside a window marked by [`window`]; the QEMU plugin
//! `ct-check/trace/cttrace.c` hashes the executed instruction addresses
//! and the accessed memory addresses of each window, and the driver
//! requires every run of a workload to hash the same. A secret-dependent
//! branch, loop bound or memory index changes one of the hashes. Unlike
//! valgrind's taint tracking this runs the real binary of every
//! architecture qemu-user emulates, assembly included.
//!
//! Each workload draws its secrets from the [`Rng`] it is given, builds
//! every input before the window opens, runs exactly one window, and
//! returns a digest of its output: the driver also requires the digests
//! of different secrets to differ, which proves the secrets reached the
//! operation (a workload that ran on constants would pass vacuously).
//!
//! Cost: one qemu-user process per CPU configuration; every workload runs
//! once to warm caches, lazy detection and the allocator (not compared),
//! then once per secret.

use crate::{Rng, toys};
use core::hint::black_box;

// The markers' bodies differ (one `nop` against two) so that they are never
// merged into one symbol, and each is an asm statement without `nomem`: a
// memory clobber, so nothing the window computes moves across it.

/// Opens a window: the plugin starts hashing at this function's code.
#[unsafe(no_mangle)]
#[inline(never)]
pub extern "C" fn ct_trace_begin() {
    // SAFETY: a `nop`; it only orders memory accesses around the call.
    unsafe { core::arch::asm!("nop", options(nostack, preserves_flags)) };
}

/// Closes a window: the plugin writes the window's hashes.
#[unsafe(no_mangle)]
#[inline(never)]
pub extern "C" fn ct_trace_end() {
    // SAFETY: as in `ct_trace_begin`.
    unsafe { core::arch::asm!("nop", "nop", options(nostack, preserves_flags)) };
}

/// Run `f` inside one marked window.
#[inline(always)]
pub fn window<R>(f: impl FnOnce() -> R) -> R {
    ct_trace_begin();
    let r = f();
    ct_trace_end();
    black_box(r)
}

/// A digest of bytes (FNV-1a): outputs are compared, not kept.
pub fn digest(parts: &[&[u8]]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for p in parts {
        for &b in *p {
            h = (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
        h = (h ^ 0xff).wrapping_mul(0x100_0000_01b3);
    }
    h
}

/// What a workload's digests must show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// Constant time: identical hashes for every secret.
    Same,
    /// A negative control: the hashes must differ (the check can fail).
    Leaks,
}

/// One checked operation.
pub struct Workload {
    /// `crate/backend/operation`.
    pub name: String,
    /// Identical traces, or a toy that must be caught.
    pub expect: Expect,
    /// Draw secrets, run one window, return an output digest.
    pub run: Box<dyn Fn(&mut Rng) -> u64>,
}

impl std::fmt::Debug for Workload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Workload({})", self.name)
    }
}

/// `N` bytes from `rng` (a key, say), opaque to the optimizer (outside
/// the window, so the traced code cannot be specialised on them).
fn secret<const N: usize>(rng: &mut Rng) -> [u8; N] {
    let mut s = [0u8; N];
    rng.fill(&mut s);
    black_box(s)
}

fn push(out: &mut Vec<Workload>, name: String, run: impl Fn(&mut Rng) -> u64 + 'static) {
    out.push(Workload {
        name,
        expect: Expect::Same,
        run: Box::new(run),
    });
}

/// Every workload for this build and CPU.
pub fn workloads() -> Vec<Workload> {
    let mut w = Vec::new();
    toy_workloads(&mut w);
    aes::workloads(&mut w);
    ghash::workloads(&mut w);
    gcm::workloads(&mut w);
    adiantum::workloads(&mut w);
    w
}

/// The negative controls (`toys`) and the clean toy.
fn toy_workloads(out: &mut Vec<Workload>) {
    let toy = |name: &str, expect, f: fn(&[u8; 32]) -> u64| Workload {
        name: format!("toy/{name}"),
        expect,
        run: Box::new(move |rng: &mut Rng| {
            let s: [u8; 32] = secret(rng);
            window(|| f(&s))
        }),
    };
    out.push(toy("table", Expect::Leaks, |s| {
        u64::from(toys::leaky_table(s))
    }));
    out.push(toy("branch", Expect::Leaks, |s| {
        u64::from(toys::leaky_branch(s))
    }));
    out.push(toy("division", Expect::Leaks, |s| {
        u64::from(toys::leaky_division(s))
    }));
    out.push(toy("clean", Expect::Same, |s| {
        let (a, b) = toys::clean(s);
        u64::from(a) ^ u64::from(b) << 8
    }));
}

mod aes {
    use super::{black_box, digest, push, window};
    use crate::trace::Workload;
    use aes_ct::{
        Aes128, Aes128Dec, Aes128Enc, Aes192, Aes192Dec, Aes192Enc, Aes256, Aes256Dec, Aes256Enc,
        Backend, Block,
        cipher::{BlockCipherDecrypt, BlockCipherEncrypt, InnerIvInit, StreamCipher},
    };

    /// Block counts: single blocks, pairs, and every edge of the hybrid
    /// policy on this CPU (from aes-ct's policy constants), plus the
    /// batch edges of the instruction backends (8-way interleave, 32-block
    /// VAES batches) that the policy list does not name.
    pub(super) fn counts() -> Vec<usize> {
        let mut c: Vec<usize> = vec![1, 2, 3, 4, 7, 8, 9, 16, 17, 31, 32, 33];
        if let Some(e) = aes_ct::hazmat::hybrid_policy_edges() {
            c.extend(e);
        }
        c.sort_unstable();
        c.dedup();
        c
    }

    macro_rules! key_setup {
        ($out:ident, $b:ident, $($t:ty),*) => {$(
            push($out, format!("aes-ct/{}/{} new+block+drop", $b, stringify!($t)), move |rng| {
                let mut key = aes_ct::cipher::Key::<$t>::default();
                rng.fill(&mut key);
                let mut blk = Block::default();
                let key = black_box(key);
                window(|| {
                    let c = <$t>::new_with_backend(&key, $b).expect("available");
                    one_block(&c, &mut blk);
                    drop(c);
                });
                digest(&[&blk])
            });
        )*};
    }

    /// One block through whichever direction the type has.
    trait OneBlock {
        fn one(&self, b: &mut Block);
    }
    macro_rules! enc_one {
        ($($t:ty),*) => {$(impl OneBlock for $t { fn one(&self, b: &mut Block) { self.encrypt_block(b) } })*};
    }
    macro_rules! dec_one {
        ($($t:ty),*) => {$(impl OneBlock for $t { fn one(&self, b: &mut Block) { self.decrypt_block(b) } })*};
    }
    enc_one!(Aes128, Aes192, Aes256, Aes128Enc, Aes192Enc, Aes256Enc);
    dec_one!(Aes128Dec, Aes192Dec, Aes256Dec);
    fn one_block(c: &impl OneBlock, b: &mut Block) {
        c.one(b)
    }

    /// `encrypt_blocks` and `decrypt_blocks` of `$n` secret blocks under a
    /// secret key of type `$t` on backend `$b`.
    macro_rules! blocks {
        ($out:ident, $b:ident, $t:ty, $n:expr) => {
            blocks!(@one $out, $b, $t, $n, "encrypt", encrypt_blocks);
            blocks!(@one $out, $b, $t, $n, "decrypt", decrypt_blocks);
        };
        (@one $out:ident, $b:ident, $t:ty, $n:expr, $op:literal, $f:ident) => {{
            let n: usize = $n;
            push(
                $out,
                format!("aes-ct/{}/{} {} x{n}", $b, stringify!($t), $op),
                move |rng| {
                    let mut key = aes_ct::cipher::Key::<$t>::default();
                    rng.fill(&mut key);
                    let c = <$t>::new_with_backend(&key, $b).expect("available");
                    let mut v = vec![Block::default(); n];
                    for x in &mut v {
                        rng.fill(x);
                    }
                    let mut v = black_box(v);
                    window(|| c.$f(&mut v));
                    digest(&[&v.concat()])
                },
            );
        }};
    }

    /// CTR byte lengths: empty, partial blocks, and each block count with
    /// a partial tail.
    fn ctr_lengths() -> Vec<usize> {
        let mut l = vec![1, 15, 16, 17];
        for n in counts() {
            l.push(16 * n);
            l.push(16 * n + 5);
        }
        l.sort_unstable();
        l.dedup();
        l
    }

    pub(super) fn workloads(out: &mut Vec<Workload>) {
        for b in Backend::available() {
            key_setup!(out, b, Aes128, Aes192, Aes256);
            key_setup!(out, b, Aes128Enc, Aes192Enc, Aes256Enc);
            key_setup!(out, b, Aes128Dec, Aes192Dec, Aes256Dec);
            for n in counts() {
                blocks!(out, b, Aes128, n);
                blocks!(out, b, Aes256, n);
            }
            for n in [1, 8, 33] {
                blocks!(out, b, Aes192, n);
            }
            // CTR: the whole IV is secret (a GCM counter block derived
            // from a non-96-bit nonce is), so a branch on the counter
            // value (e.g. on a carry within a batch) is caught.
            for len in ctr_lengths() {
                push(
                    out,
                    format!("aes-ct/{b}/Ctr32BE<Aes128> {len} B"),
                    move |rng| {
                        let mut key = [0u8; 16];
                        let mut iv = [0u8; 16];
                        rng.fill(&mut key);
                        rng.fill(&mut iv);
                        let c = Aes128::new_with_backend(&key.into(), b).expect("available");
                        let mut s = aes_ct::Ctr32BE::<Aes128>::from_core(
                            aes_ct::CtrCore::inner_iv_init(c, &iv.into()),
                        );
                        let mut buf = black_box(rng.bytes(len));
                        window(|| s.apply_keystream(&mut buf));
                        digest(&[&buf])
                    },
                );
            }
        }
    }
}

mod ghash {
    use super::{black_box, digest, push, secret, window};
    use crate::trace::Workload;
    use ghash_ct::{Backend, GHashKey, GHashState, PolyvalKey, PolyvalState};

    /// Message lengths: partial and whole blocks around every
    /// aggregation width (1, 4, 8, 16 blocks) and a long run.
    const LENGTHS: &[usize] = &[1, 15, 16, 17, 64, 112, 128, 129, 255, 256, 257, 600, 4096];

    pub(super) fn workloads(out: &mut Vec<Workload>) {
        for b in Backend::available() {
            push(out, format!("ghash-ct/{b}/key setup+drop"), move |rng| {
                let h: [u8; 16] = secret(rng);
                let mut t = [0u8; 16];
                window(|| {
                    let k = GHashKey::new_with_backend(&h.into(), b).expect("available");
                    let mut st = GHashState::new();
                    k.update_padded(&mut st, &[1u8; 16]);
                    t.copy_from_slice(&k.finalize(st));
                });
                digest(&[&t])
            });
            for &len in LENGTHS {
                push(out, format!("ghash-ct/{b}/ghash {len} B"), move |rng| {
                    let h: [u8; 16] = secret(rng);
                    let k = GHashKey::new_with_backend(&h.into(), b).expect("available");
                    let data = black_box(rng.bytes(len));
                    let mut st = GHashState::new();
                    // Secret starting state, as in the middle of a message.
                    k.update_padded(&mut st, &rng.bytes(16));
                    let t = window(|| {
                        k.update_padded(&mut st, &data);
                        k.finalize(st)
                    });
                    digest(&[&t])
                });
            }
            // `update_public_last`: secret blocks and state, then a public
            // last block (a GCM lengths block, the same in every secret
            // set), after short rests and after whole runs.
            for n in [1, 2, 3, 4, 8, 9, 12, 17] {
                push(
                    out,
                    format!("ghash-ct/{b}/public last, {n} blocks"),
                    move |rng| {
                        let h: [u8; 16] = secret(rng);
                        let k = GHashKey::new_with_backend(&h.into(), b).expect("available");
                        let mut blocks: Vec<ghash_ct::Block> =
                            (0..n).map(|_| secret::<16>(rng).into()).collect();
                        let mut lens = [0u8; 16];
                        lens[7] = 0x68;
                        lens[8..].copy_from_slice(&(128 * n as u64 - 128).to_be_bytes());
                        blocks[n - 1] = lens.into();
                        let blocks = black_box(blocks);
                        let mut st = GHashState::new();
                        k.update_padded(&mut st, &rng.bytes(16));
                        let t = window(|| {
                            k.update_public_last(&mut st, &blocks);
                            k.finalize(st)
                        });
                        digest(&[&t])
                    },
                );
            }
            push(out, format!("ghash-ct/{b}/polyval 257 B"), move |rng| {
                let h: [u8; 16] = secret(rng);
                let k = PolyvalKey::new_with_backend(&h.into(), b).expect("available");
                let data = black_box(rng.bytes(257));
                let t = window(|| {
                    let mut st = PolyvalState::new();
                    k.update_padded(&mut st, &data);
                    k.finalize(st)
                });
                digest(&[&t])
            });
        }
    }
}

mod gcm {
    use super::{black_box, digest, push, window};
    use crate::trace::Workload;
    use aes_gcm_ct::{AeadInOut, AesGcm, Backend, Nonce, Tag, aead::inout::InOutBuf};
    use cipher::{
        BlockCipherEncrypt, BlockSizeUser, KeySizeUser,
        array::ArraySize,
        consts::{U12, U16},
    };

    /// Text lengths: empty, partial blocks, and around the 4-, 8- and
    /// 16-block batches of the fused paths.
    const LENGTHS: &[usize] = &[0, 1, 16, 17, 64, 127, 128, 129, 256, 300, 512, 1029];

    /// Longer texts, for the paths with a loop only they reach: the
    /// 512-bit path's pairs of batches (over 4 KiB; 4609 bytes are nine
    /// pairs and a byte). Not for every path: each workload runs 8 times
    /// under qemu's trace.
    fn long(b: Backend) -> &'static [usize] {
        #[cfg(target_arch = "x86_64")]
        if b == Backend::VaesClmul {
            return &[4609];
        }
        let _ = b;
        &[]
    }

    fn add<A, N>(
        out: &mut Vec<Workload>,
        what: &str,
        long: &[usize],
        mk: impl Fn(&[u8]) -> AesGcm<A, N> + Clone + 'static,
    ) where
        A: BlockSizeUser<BlockSize = U16> + BlockCipherEncrypt + KeySizeUser + 'static,
        N: ArraySize + 'static,
    {
        let klen = A::KeySize::USIZE;
        {
            let mk = mk.clone();
            push(out, format!("{what}/key setup+drop"), move |rng| {
                let key = black_box(rng.bytes(klen));
                let mut t = [0u8; 16];
                window(|| {
                    let g = mk(&key);
                    let n = Nonce::<N>::default();
                    let tag = g
                        .encrypt_inout_detached(&n, &[], InOutBuf::from(&mut [][..]))
                        .expect("lengths");
                    t.copy_from_slice(&tag);
                });
                digest(&[&t])
            });
        }
        for &len in LENGTHS.iter().chain(long) {
            let mk1 = mk.clone();
            // Seal: key, AAD and plaintext secret; nonce public (the
            // counter it gives is secret for non-96-bit nonces).
            push(out, format!("{what}/seal {len} B"), move |rng| {
                let g = mk1(&rng.bytes(klen));
                let aad = black_box(rng.bytes(13));
                let mut buf = black_box(rng.bytes(len));
                let n = Nonce::<N>::default();
                let tag = window(|| {
                    g.encrypt_inout_detached(&n, &aad, InOutBuf::from(&mut buf[..]))
                        .expect("lengths")
                });
                digest(&[&buf, &tag])
            });
            for bad in [false, true] {
                let mk2 = mk.clone();
                let op = if bad { "open, failed tag" } else { "open" };
                push(out, format!("{what}/{op} {len} B"), move |rng| {
                    let g = mk2(&rng.bytes(klen));
                    let aad = rng.bytes(13);
                    let mut buf = rng.bytes(len);
                    let n = Nonce::<N>::default();
                    let mut tag: Tag<U16> = g
                        .encrypt_inout_detached(&n, &aad, InOutBuf::from(&mut buf[..]))
                        .expect("lengths");
                    if bad {
                        tag[len % 16] ^= 1;
                    }
                    let mut buf = black_box(buf);
                    let ok = window(|| {
                        g.decrypt_inout_detached(&n, &aad, InOutBuf::from(&mut buf[..]), &tag)
                            .is_ok()
                    });
                    assert_eq!(ok, !bad, "{op}: tag check result");
                    digest(&[&buf, &tag])
                });
            }
        }
    }

    use cipher::typenum::Unsigned;

    pub(super) fn workloads(out: &mut Vec<Workload>) {
        for b in Backend::available() {
            let p = format!("aes-gcm-ct/{b}");
            let l = long(b);
            add::<aes_ct::Aes128, U12>(out, &format!("{p}/aes128 nonce12"), l, move |k| {
                AesGcm::new_with_backend(k.try_into().expect("16"), b).expect("available")
            });
            add::<aes_ct::Aes256, U12>(out, &format!("{p}/aes256 nonce12"), l, move |k| {
                AesGcm::new_with_backend(k.try_into().expect("32"), b).expect("available")
            });
            add::<aes_ct::Aes128, U16>(out, &format!("{p}/aes128 nonce16"), l, move |k| {
                AesGcm::new_with_backend(k.try_into().expect("16"), b).expect("available")
            });
        }
        // The generic / ctr-ghash composition over every aes-ct backend.
        for ab in aes_ct::Backend::available() {
            for gb in [ghash_ct::Backend::detected(), ghash_ct::Backend::PORTABLE] {
                let what = format!("aes-gcm-ct/with_ghash_backend(aes-{ab}, ghash-{gb})/aes128");
                add::<aes_ct::Aes128, U12>(out, &format!("{what} nonce12"), &[], move |k| {
                    let c = aes_ct::Aes128::new_with_backend(k.try_into().expect("16"), ab)
                        .expect("available");
                    AesGcm::with_ghash_backend(c, gb).expect("available")
                });
                add::<aes_ct::Aes128, U16>(out, &format!("{what} nonce16"), &[], move |k| {
                    let c = aes_ct::Aes128::new_with_backend(k.try_into().expect("16"), ab)
                        .expect("available");
                    AesGcm::with_ghash_backend(c, gb).expect("available")
                });
                if gb == ghash_ct::Backend::PORTABLE {
                    break;
                }
            }
        }
    }
}

mod adiantum {
    use super::{black_box, digest, push, secret, window};
    use crate::trace::Workload;
    use adiantum_ct::{Adiantum, Backend, HPolyC};
    use cipher::KeyInit;

    const LENGTHS: &[usize] = &[16, 512, 4096];

    pub(super) fn workloads(out: &mut Vec<Workload>) {
        for b in Backend::available() {
            for &len in LENGTHS {
                for dec in [false, true] {
                    let op = if dec { "decrypt" } else { "encrypt" };
                    push(
                        out,
                        format!("adiantum-ct/{b}/adiantum-xchacha12 {op} {len} B"),
                        move |rng| {
                            let key: [u8; 32] = secret(rng);
                            let c = Adiantum::new_with_backend(&key.into(), b).expect("available");
                            let tweak = black_box(rng.bytes(32));
                            let mut buf = black_box(rng.bytes(len));
                            window(|| {
                                if dec {
                                    c.decrypt(&tweak, &mut buf)
                                } else {
                                    c.encrypt(&tweak, &mut buf)
                                }
                            })
                            .expect("length");
                            digest(&[&buf])
                        },
                    );
                }
            }
            push(
                out,
                format!("adiantum-ct/{b}/adiantum key setup+drop"),
                move |rng| {
                    let key: [u8; 32] = secret(rng);
                    let mut buf = [0u8; 32];
                    window(|| {
                        let c = Adiantum::new_with_backend(&key.into(), b).expect("available");
                        c.encrypt(&[], &mut buf).expect("length");
                    });
                    digest(&[&buf])
                },
            );
        }
        for &len in LENGTHS {
            push(
                out,
                format!("adiantum-ct/-/hpolyc-xchacha12 encrypt {len} B"),
                move |rng| {
                    let key: [u8; 32] = secret(rng);
                    let c = HPolyC::new(&key.into());
                    let tweak = black_box(rng.bytes(32));
                    let mut buf = black_box(rng.bytes(len));
                    window(|| c.encrypt(&tweak, &mut buf)).expect("length");
                    digest(&[&buf])
                },
            );
        }
    }
}
