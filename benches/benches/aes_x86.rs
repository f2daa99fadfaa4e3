//! aes-ct x86 backends against RustCrypto `aes` (criterion).
//!
//! `cargo bench -p benches --bench aes_x86` measures every aes-ct backend
//! this CPU runs (forced with `new_with_backend`) and RustCrypto's `aes`
//! as built. For RustCrypto's portable backend build a second time with
//! `RUSTFLAGS='--cfg aes_backend="soft"'` in its own target dir; the
//! `rustcrypto` rows then measure the soft backend. Groups:
//! `ctr` (Ctr32BE over 16 B .. 16 KiB), `block` (one block per call),
//! `policy` (hybrid vs vpaes-only vs bsaes-only by block count: the data
//! behind the hybrid thresholds in aes-ct/src/hybrid.rs).

use aes_ct::{
    Backend,
    cipher::{
        BlockCipherEncrypt, BlockSizeUser, InnerIvInit, KeyInit, StreamCipher, StreamCipherSeek,
        consts::U16,
    },
};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::{hint::black_box, time::Duration};

const KEY: [u8; 16] = *b"0123456789abcdef";
const IV: [u8; 16] = [7; 16];

fn ctr32<C: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16>>(c: C) -> ctr::Ctr32BE<C> {
    ctr::Ctr32BE::from_core(ctr::CtrCore::inner_iv_init(c, &IV.into()))
}

fn ours(b: Backend) -> aes_ct::Aes128 {
    aes_ct::Aes128::new_with_backend(&KEY.into(), b).unwrap()
}

fn ctr(c: &mut Criterion) {
    for len in [16usize, 64, 256, 1024, 16384] {
        let mut g = c.benchmark_group(format!("ctr/{len}"));
        g.throughput(Throughput::Bytes(len as u64));
        let mut buf = vec![0u8; len];
        let mut rc = ctr32(aes::Aes128::new(&KEY.into()));
        g.bench_function("rustcrypto", |bn| {
            bn.iter(|| {
                rc.seek(0u64);
                rc.apply_keystream(black_box(&mut buf));
            })
        });
        for b in Backend::available() {
            let mut s = ctr32(ours(b));
            g.bench_function(b.name(), |bn| {
                bn.iter(|| {
                    s.seek(0u64);
                    s.apply_keystream(black_box(&mut buf));
                })
            });
        }
        g.finish();
    }
}

fn block(c: &mut Criterion) {
    let mut g = c.benchmark_group("block");
    g.throughput(Throughput::Bytes(16));
    let mut blk = aes_ct::Block::default();
    let rc = aes::Aes128::new(&KEY.into());
    g.bench_function("rustcrypto", |bn| {
        bn.iter(|| rc.encrypt_block(black_box(&mut blk)))
    });
    for b in Backend::available() {
        let k = ours(b);
        g.bench_function(b.name(), |bn| {
            bn.iter(|| k.encrypt_block(black_box(&mut blk)))
        });
    }
    g.finish();
}

/// Block counts around the hybrid's decisions: raw `encrypt_blocks`
/// (tails through `encrypt_tail_blocks`) and CTR (tails one block at a
/// time through `encrypt_block`).
fn policy(c: &mut Criterion) {
    let names = ["hybrid", "vpaes", "bsaes"];
    let backends: Vec<Backend> = Backend::available()
        .filter(|b| names.contains(&b.name()))
        .collect();
    for n in (1..=24).chain([32, 64]) {
        let mut g = c.benchmark_group(format!("policy/blocks/{n}"));
        g.throughput(Throughput::Bytes(16 * n as u64));
        let mut buf = vec![aes_ct::Block::default(); n];
        for &b in &backends {
            let k = ours(b);
            g.bench_function(BenchmarkId::from_parameter(b.name()), |bn| {
                bn.iter(|| k.encrypt_blocks(black_box(&mut buf)))
            });
        }
        g.finish();
        let mut g = c.benchmark_group(format!("policy/ctr/{n}"));
        g.throughput(Throughput::Bytes(16 * n as u64));
        let mut buf = vec![0u8; 16 * n];
        for &b in &backends {
            let mut s = ctr32(ours(b));
            g.bench_function(BenchmarkId::from_parameter(b.name()), |bn| {
                bn.iter(|| {
                    s.seek(0u64);
                    s.apply_keystream(black_box(&mut buf));
                })
            });
        }
        g.finish();
    }
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .sample_size(20)
}

criterion_group! { name = benches; config = config(); targets = ctr, block, policy }
criterion_main!(benches);
