//! GHASH loop for instruction counting under qemu (`cargo xtask armcount
//! ghash`): `armcount_ghash <impl> <bytes> <iters>` hashes a `bytes`-long message
//! `iters` times. `impl` is `rustcrypto` (RustCrypto `ghash`, its own
//! detection), `auto` (ours, detected backend) or a backend name of ours
//! (`pmull`, `pmull8`, `vmull8`, `soft64`, `pclmul`, ...).
use benches::armcount::Args;
use ghash_ct::{
    Backend, GHash,
    universal_hash::{KeyInit, UniversalHash},
};

fn main() {
    let Args { imp, bytes, iters } = Args::parse("armcount_ghash", "<rustcrypto|auto|BACKEND>");
    let which = imp.as_str();
    let h = [0x5au8; 16];
    let data: Vec<u8> = (0..bytes).map(|i| (i * 131 + 7) as u8).collect();
    let mut acc = 0u8;
    match which {
        "rustcrypto" => {
            let key = ghash::GHash::new(&h.into());
            for _ in 0..iters {
                let mut g = key.clone();
                g.update_padded(std::hint::black_box(&data));
                acc ^= g.finalize()[0];
            }
        }
        _ => {
            let key = if which == "auto" {
                GHash::new(&h.into())
            } else {
                let b = *Backend::ALL
                    .iter()
                    .find(|b| b.name() == which)
                    .expect("backend name");
                GHash::new_with_backend(&h.into(), b).expect("backend available")
            };
            let k = key.key();
            for _ in 0..iters {
                let mut st = ghash_ct::GHashState::new();
                k.update_padded(&mut st, std::hint::black_box(&data));
                acc ^= st.finalize()[0];
            }
            eprintln!("backend={}", key.backend());
        }
    }
    println!("{which} len={bytes} iters={iters} acc={acc:02x}");
}
