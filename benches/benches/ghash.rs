//! ghash-ct backends against RustCrypto `ghash` 0.6 (criterion).
//!
//! `cargo bench -p benches --bench ghash` measures every ghash-ct backend
//! this CPU runs (forced with `new_with_backend`, key powers built once,
//! per-message state) and RustCrypto's `ghash` as built (auto-detected:
//! PCLMULQDQ). For RustCrypto's portable backend build a second time with
//! `RUSTFLAGS='--cfg polyval_backend="soft"'` in its own target dir; the
//! `rustcrypto` rows then measure the soft backend. Message sizes 16 KiB
//! (the figure) and 1 KiB.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ghash_ct::{Backend, GHash, GHashState, universal_hash::UniversalHash};
use std::{hint::black_box, time::Duration};

const H: [u8; 16] = *b"0123456789abcdef";

fn ghash(c: &mut Criterion) {
    for len in [16384usize, 1024] {
        let mut g = c.benchmark_group(format!("ghash/{len}"));
        g.throughput(Throughput::Bytes(len as u64));
        let data: Vec<u8> = (0..len).map(|i| (i * 131 + 7) as u8).collect();
        let rc = ghash::GHash::new(&H.into());
        g.bench_function("rustcrypto", |bn| {
            bn.iter(|| {
                let mut s = rc.clone();
                s.update_padded(black_box(&data));
                s.finalize()
            })
        });
        for b in Backend::available() {
            let key = GHash::new_with_backend(&H.into(), b).unwrap();
            let k = key.key();
            g.bench_function(b.name(), |bn| {
                bn.iter(|| {
                    let mut st = GHashState::new();
                    k.update_padded(&mut st, black_box(&data));
                    st.finalize()
                })
            });
        }
        g.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(Duration::from_secs(2)).warm_up_time(Duration::from_millis(500));
    targets = ghash
}
criterion_main!(benches);
