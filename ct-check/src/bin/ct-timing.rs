//! `ct-timing` (`cargo xtask ct --timing`): dudect-style statistical
//! timing test of every backend on this host (see
//! `ct_check::dudect`). For each operation the input class is fixed
//! (all-zero secret) or random, chosen at random per measurement; Welch's
//! t over the two timing distributions is reported as max |t| over the
//! cropped tests. It is the one check of the code neither valgrind nor
//! qemu can execute (AVX-512 widths, `vaes-clmul`, `vaes-avx2-clmul`,
//! `vpclmul256`/`vpclmul512`, `vpmuludq512`), so it takes every backend the
//! CPU runs, not only those.
//!
//! |t| < 4.5: no evidence of a leak (dudect's threshold). 4.5 <= |t| <
//! `--threshold` (default 10): "suspect", printed but not failing (a busy,
//! shared machine produces such values). |t| >= threshold: failure.
//!
//! usage: ct-timing [--samples N] [--threshold T] [--only SUBSTR]

use aes_ct::cipher::{BlockCipherEncrypt, KeyInit};
use ct_check::{Rng, dudect};
use std::process::ExitCode;

/// The timed operation on one input.
type Op = Box<dyn FnMut(&[u8])>;

struct Target {
    name: String,
    input_len: usize,
    op: Op,
}

fn targets() -> Vec<Target> {
    let mut v = Vec::new();
    // aes-ct: secret plaintext (fixed key), and secret key (key expansion
    // + one block).
    for b in aes_ct::Backend::available() {
        let key = [0x42u8; 16];
        let c = aes_ct::Aes128::new_with_backend(&key.into(), b).expect("available");
        for blocks in [1usize, 8] {
            let c = c.clone();
            v.push(Target {
                name: format!("aes-ct {b}: plaintext, {blocks} block(s)"),
                input_len: 16 * blocks,
                op: Box::new(move |inp| {
                    let mut bl: Vec<aes_ct::Block> = inp
                        .chunks(16)
                        .map(|x| aes_ct::Block::try_from(x).expect("16"))
                        .collect();
                    c.encrypt_blocks(&mut bl);
                    std::hint::black_box(&bl);
                }),
            });
        }
        v.push(Target {
            name: format!("aes-ct {b}: key (expansion + 1 block)"),
            input_len: 16,
            op: Box::new(move |inp| {
                let c = aes_ct::Aes128::new_with_backend(inp.try_into().expect("16"), b)
                    .expect("available");
                let mut x = aes_ct::Block::default();
                c.encrypt_block(&mut x);
                std::hint::black_box(&x);
            }),
        });
    }
    // ghash-ct: secret data under a fixed H, and secret H.
    for b in ghash_ct::Backend::available() {
        let key = ghash_ct::GHashKey::new_with_backend(&[0x24u8; 16].into(), b).expect("ok");
        v.push(Target {
            name: format!("ghash-ct {b}: data, 4 blocks"),
            input_len: 64,
            op: Box::new(move |inp| {
                let mut st = ghash_ct::GHashState::new();
                key.update_padded(&mut st, inp);
                std::hint::black_box(st.finalize());
            }),
        });
        v.push(Target {
            name: format!("ghash-ct {b}: H (key powers + 1 block)"),
            input_len: 16,
            op: Box::new(move |inp| {
                let k = ghash_ct::GHashKey::new_with_backend(inp.try_into().expect("16"), b)
                    .expect("ok");
                let mut st = ghash_ct::GHashState::new();
                k.update_padded(&mut st, &[1u8; 16]);
                std::hint::black_box(st.finalize());
            }),
        });
    }
    // aes-gcm-ct: every path, secret key and plaintext (seal of 64 bytes
    // with a 96-bit nonce), and a 128-bit nonce, whose counter blocks
    // derive from the secret H.
    for b in aes_gcm_ct::Backend::available() {
        v.push(Target {
            name: format!("aes-gcm-ct {b}: key + plaintext, seal 64 bytes"),
            input_len: 16 + 64,
            op: Box::new(move |inp| {
                use aes_gcm_ct::{AeadInOut, aead::inout::InOutBuf};
                let g =
                    aes_gcm_ct::Aes128Gcm::new_with_backend(inp[..16].try_into().expect("16"), b)
                        .expect("available");
                let mut buf = [0u8; 64];
                buf.copy_from_slice(&inp[16..]);
                let tag = g
                    .encrypt_inout_detached(&Default::default(), &[], InOutBuf::from(&mut buf[..]))
                    .expect("lengths");
                std::hint::black_box((&buf, tag));
            }),
        });
        v.push(Target {
            name: format!("aes-gcm-ct {b}: key, 128-bit nonce, seal 256 bytes"),
            input_len: 16,
            op: Box::new(move |inp| {
                use aes_gcm_ct::{AeadInOut, AesGcm, aead::inout::InOutBuf};
                let g = AesGcm::<aes_ct::Aes128, cipher::consts::U16>::new_with_backend(
                    inp.try_into().expect("16"),
                    b,
                )
                .expect("available");
                let mut buf = [0u8; 256];
                let tag = g
                    .encrypt_inout_detached(&Default::default(), &[], InOutBuf::from(&mut buf[..]))
                    .expect("lengths");
                std::hint::black_box((&buf, tag));
            }),
        });
    }
    // adiantum-ct: every NH backend that is software on this host (all of
    // them: NH is integer arithmetic), secret message of 512 bytes.
    for b in adiantum_ct::Backend::available() {
        let c = adiantum_ct::Adiantum::new_with_backend(&[7u8; 32].into(), b).expect("ok");
        v.push(Target {
            name: format!("adiantum-ct NH {b}: message, 512 bytes"),
            input_len: 512,
            op: Box::new(move |inp| {
                let mut buf = inp.to_vec();
                c.encrypt(&[0u8; 32], &mut buf).expect("length");
                std::hint::black_box(&buf);
            }),
        });
    }
    v.push(Target {
        name: "adiantum-ct: key (subkey derivation)".into(),
        input_len: 32,
        op: Box::new(|inp| {
            let k: [u8; 32] = inp.try_into().expect("32");
            std::hint::black_box(adiantum_ct::Adiantum::new(&k.into()));
        }),
    });
    v
}

fn main() -> ExitCode {
    let mut samples: usize = 200_000;
    let mut threshold: f64 = 10.0;
    let mut only: Vec<String> = Vec::new();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut val = || it.next().cloned().unwrap_or_default();
        match a.as_str() {
            "--samples" => samples = val().parse().unwrap_or(samples),
            "--threshold" => threshold = val().parse().unwrap_or(threshold),
            "--only" => only.push(val()),
            "-h" | "--help" => {
                println!(
                    "usage: ct-timing [--samples N (200000)] [--threshold T (10)] [--only SUBSTR]"
                );
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("unknown argument `{other}`");
                return ExitCode::from(2);
            }
        }
    }
    let per_batch = 10_000.min(samples.max(1));
    let batches = samples.div_ceil(per_batch);
    println!(
        "dudect-style test: fixed vs random secret input, {} measurements per target, Welch's t, max |t| over cropped tests",
        batches * per_batch
    );
    println!("{:<46} {:>10} {:>9}  verdict", "target", "cycles", "max|t|");
    let mut failed = Vec::new();
    for mut t in targets() {
        if !only.is_empty() && !only.iter().any(|o| t.name.contains(o.as_str())) {
            continue;
        }
        let len = t.input_len;
        let out = dudect::test(
            len,
            batches,
            per_batch,
            |class, rng: &mut Rng, input| {
                if class == 0 {
                    input.fill(0);
                } else {
                    rng.fill(input);
                }
            },
            |input| (t.op)(input),
        );
        let verdict = if out.max_t < 4.5 {
            "ok"
        } else if out.max_t < threshold {
            "suspect (noise?)"
        } else {
            failed.push(t.name.clone());
            "LEAK?"
        };
        println!(
            "{:<46} {:>10.0} {:>9.2}  {verdict}",
            t.name, out.mean_cycles, out.max_t
        );
    }
    if failed.is_empty() {
        println!("\nct-timing: no |t| above {threshold}");
        ExitCode::SUCCESS
    } else {
        println!("\nct-timing: |t| >= {threshold} for: {}", failed.join("; "));
        ExitCode::FAILURE
    }
}
