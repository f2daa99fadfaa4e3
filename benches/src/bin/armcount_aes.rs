//! AES-128-CTR loop for instruction counting under qemu (`cargo xtask
//! armcount`).
//!
//! usage: `armcount_aes <impl> <bytes> <iters>`
//!   impl: an aes-ct backend name (`aes_ct::Backend::name`, e.g. `hybrid`):
//!         RustCrypto `ctr::Ctr32BE<&aes_ct::Aes128>` on that backend;
//!         `<backend>-ctr` (e.g. `hybrid-ctr`): aes-ct's own
//!         `aes_ct::Ctr32BE<&aes_ct::Aes128>` (the fused CTR loop);
//!         or `rustcrypto` (`ctr::Ctr32BE<&aes::Aes128>`, the `aes` crate's
//!         own backend detection), or `identity` (`ctr::Ctr32BE` over
//!         a cipher that leaves its blocks as they are, 8 per batch as
//!         the NEON hybrid: what `ctr` and `inout` cost per byte on their
//!         own, the floor under every cipher driven through them)
//!
//! Each iteration encrypts one `bytes`-long message with a fresh counter
//! (a new `Ctr32BE` over a borrowed, already expanded key), as a protocol
//! would per record. Key setup happens once, before the loop, so the
//! difference of two runs (10 and 20 iterations) is the per-message
//! cost.

use benches::armcount::Args;
use cipher::{
    BlockCipherEncBackend, BlockCipherEncClosure, BlockCipherEncrypt, BlockSizeUser, InOut,
    InnerIvInit, KeyInit, ParBlocks, ParBlocksSizeUser, StreamCipher,
    consts::{U8, U16},
};
use std::process::ExitCode;

/// A block "cipher" that leaves every block as it is, with the NEON
/// hybrid's batch of 8: `ctr` over it counts `ctr`'s own work.
struct Identity;

impl BlockSizeUser for Identity {
    type BlockSize = U16;
}

impl ParBlocksSizeUser for Identity {
    type ParBlocksSize = U8;
}

impl BlockCipherEncBackend for Identity {
    fn encrypt_block(&self, mut block: InOut<'_, '_, cipher::Block<Self>>) {
        let b = block.clone_in();
        *block.get_out() = b;
        std::hint::black_box(block.get_out());
    }

    fn encrypt_par_blocks(&self, mut blocks: InOut<'_, '_, ParBlocks<Self>>) {
        // A real backend is a call into vector code the compiler cannot
        // merge with ctr's counter writes and XOR; black_box keeps it so.
        let b = blocks.clone_in();
        *blocks.get_out() = b;
        std::hint::black_box(blocks.get_out());
    }
}

impl BlockCipherEncrypt for Identity {
    fn encrypt_with_backend(&self, f: impl BlockCipherEncClosure<BlockSize = U16>) {
        f.call(self)
    }
}

fn run<C: cipher::BlockCipherEncrypt<BlockSize = cipher::consts::U16>>(
    c: &C,
    buf: &mut [u8],
    iters: usize,
) -> u8 {
    let mut acc = 0u8;
    for i in 0..iters {
        let mut iv = [0u8; 16];
        iv[0] = i as u8;
        iv[15] = 0xf0; // counter wraps inside 16 KiB messages too
        let core = ctr::CtrCore::<&C, ctr::flavors::Ctr32BE>::inner_iv_init(c, &iv.into());
        let mut s = ctr::Ctr32BE::<&C>::from_core(core);
        s.apply_keystream(buf);
        acc ^= buf[buf.len() / 2];
    }
    acc
}

/// The same loop through aes-ct's own CTR.
fn run_ours(c: &aes_ct::Aes128, buf: &mut [u8], iters: usize) -> u8 {
    let mut acc = 0u8;
    for i in 0..iters {
        let mut iv = [0u8; 16];
        iv[0] = i as u8;
        iv[15] = 0xf0;
        let core = aes_ct::CtrCore::<&aes_ct::Aes128>::inner_iv_init(c, &iv.into());
        let mut s = aes_ct::Ctr32BE::<&aes_ct::Aes128>::from_core(core);
        s.apply_keystream(buf);
        acc ^= buf[buf.len() / 2];
    }
    acc
}

fn main() -> ExitCode {
    let names: Vec<&str> = aes_ct::Backend::ALL.iter().map(|b| b.name()).collect();
    let impls = format!(
        "<rustcrypto|identity|{}> (each backend also as NAME-ctr)",
        names.join("|")
    );
    let Args { imp, bytes, iters } = Args::parse("armcount_aes", &impls);
    let key = [0x2bu8; 16];
    let mut buf = vec![0u8; bytes.max(1)];
    buf.truncate(bytes);
    let acc = if imp == "identity" {
        run(&Identity, &mut buf, iters)
    } else if imp == "rustcrypto" {
        let c = aes::Aes128::new(&key.into());
        run(&c, &mut buf, iters)
    } else {
        let (name, ours) = match imp.strip_suffix("-ctr") {
            Some(n) => (n, true),
            None => (imp.as_str(), false),
        };
        let Some(&b) = aes_ct::Backend::ALL.iter().find(|b| b.name() == name) else {
            eprintln!("armcount_aes: unknown impl `{imp}`");
            return ExitCode::from(2);
        };
        match aes_ct::Aes128::new_with_backend(&key.into(), b) {
            Ok(c) if ours => run_ours(&c, &mut buf, iters),
            Ok(c) => run(&c, &mut buf, iters),
            Err(e) => {
                eprintln!("armcount_aes: {e}");
                return ExitCode::from(3);
            }
        }
    };
    println!("{imp} len={bytes} iters={iters} acc={acc:02x}");
    ExitCode::SUCCESS
}
