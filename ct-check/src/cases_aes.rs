//! aes-ct: every available backend, AES-128/192/256, key expansion,
//! encryption and decryption of block counts that reach every code path
//! (single blocks, vpaes pairs, bsaes batches of 8, hybrid tails, AES-NI's
//! 8-way interleave, VAES batches).
//!
//! Secret: the key and the blocks. Public: the backend and the block count.

use crate::{Case, Rng, Uncovered, checkable, same, valgrind};
use aes_ct::{
    Aes128, Aes192, Aes256, Backend, Block,
    cipher::{BlockCipherDecrypt, BlockCipherEncrypt, BlockSizeUser, KeyInit, consts::U16},
};

/// Block counts: 1, 2 (vpaes pair), 3, 7/8/9 (SSSE3 bsaes and AES-NI
/// batch edges), 12/14 (hybrid tail thresholds), 16/17 (AVX2 bsaes pass,
/// VAES AVX2 batch), 32/33/45 (32-block batches and tails), 64.
const COUNTS: &[usize] = &[1, 2, 3, 7, 8, 9, 12, 14, 16, 17, 32, 33, 45, 64];

/// bsaes register widths to check (x86 test hook
/// `aes_ct::x86::bsaes_limit_width`): 1 = SSSE3, 2 = AVX2. Width 4
/// (AVX-512) cannot run under valgrind.
#[cfg(target_arch = "x86_64")]
const WIDTHS: &[(u8, &str)] = &[(2, "avx2"), (1, "ssse3")];
#[cfg(not(target_arch = "x86_64"))]
const WIDTHS: &[(u8, &str)] = &[(0, "")];

fn limit_width(_w: u8) {
    #[cfg(target_arch = "x86_64")]
    aes_ct::x86::bsaes_limit_width(if _w == 0 { 4 } else { _w });
}

fn to_blocks(bytes: &[u8]) -> Vec<Block> {
    bytes
        .chunks(16)
        .map(|c| Block::try_from(c).expect("16 bytes"))
        .collect()
}

fn flat(blocks: &[Block]) -> Vec<u8> {
    blocks.iter().flat_map(|b| b.iter().copied()).collect()
}

/// Encrypt then decrypt `n` blocks under `key` with secrets undefined;
/// compare with the same on defined inputs.
fn run<C>(what: &str, key: &[u8], n: usize, mk: impl Fn(&[u8]) -> C) -> Result<(), String>
where
    C: BlockCipherEncrypt + BlockCipherDecrypt + BlockSizeUser<BlockSize = U16>,
{
    let mut rng = Rng(n as u64 * 7919 + key.len() as u64);
    let pt = rng.bytes(16 * n);

    // Reference on defined inputs.
    let reference = mk(key);
    let mut want = to_blocks(&pt);
    reference.encrypt_blocks(&mut want);
    let want_ct = flat(&want);
    drop(reference);

    // Secret key and plaintext.
    let mut k = key.to_vec();
    valgrind::secret(k.as_mut_slice());
    let cipher = mk(&k);
    let mut blocks = to_blocks(&pt);
    valgrind::secret(blocks.as_mut_slice());
    cipher.encrypt_blocks(&mut blocks);
    same(&format!("{what} encrypt"), flat(&blocks), &want_ct)?;

    // Single-block entry point too.
    let mut one = to_blocks(&pt[..16]).remove(0);
    valgrind::secret(&mut one);
    cipher.encrypt_block(&mut one);
    same(
        &format!("{what} encrypt_block"),
        one.to_vec(),
        &want_ct[..16],
    )?;

    // Decrypt a secret ciphertext (as a decrypting party would hold it).
    let mut ct = to_blocks(&want_ct);
    valgrind::secret(ct.as_mut_slice());
    cipher.decrypt_blocks(&mut ct);
    same(&format!("{what} decrypt"), flat(&ct), &pt)?;
    Ok(())
}

pub fn cases(out: &mut Vec<Case>, skipped: &mut Vec<Uncovered>) {
    for &b in Backend::ALL {
        if !checkable("aes-ct", b.name(), b.is_available(), skipped) {
            continue;
        }
        let bitsliced = matches!(b.name(), "bsaes" | "hybrid");
        let widths: &[(u8, &str)] = if bitsliced { WIDTHS } else { &[(0, "")] };
        for &(w, wname) in widths {
            for (bits, klen) in [(128usize, 16usize), (192, 24), (256, 32)] {
                let name = if wname.is_empty() {
                    format!("aes-ct/{}/aes{bits}", b.name())
                } else {
                    format!("aes-ct/{}@{wname}/aes{bits}", b.name())
                };
                let what = name.clone();
                out.push(Case {
                    name,
                    krate: "aes-ct",
                    backend: b.name().into(),
                    run: Box::new(move || {
                        limit_width(w);
                        let key = Rng(klen as u64).bytes(klen);
                        for &n in COUNTS {
                            let w = format!("{what} x{n}");
                            match klen {
                                16 => run(&w, &key, n, |k| {
                                    Aes128::new_with_backend(k.try_into().expect("len"), b)
                                        .expect("available")
                                })?,
                                24 => run(&w, &key, n, |k| {
                                    Aes192::new_with_backend(k.try_into().expect("len"), b)
                                        .expect("available")
                                })?,
                                _ => run(&w, &key, n, |k| {
                                    Aes256::new_with_backend(k.try_into().expect("len"), b)
                                        .expect("available")
                                })?,
                            }
                        }
                        limit_width(0);
                        Ok(())
                    }),
                });
            }
        }
    }
    // The automatic path (`KeyInit::new`, detected backend) once.
    out.push(Case::new(
        "aes-ct/detected/aes128-keyinit",
        "aes-ct",
        "detected",
        || {
            let key = [0x2bu8; 16];
            run("aes-ct/detected", &key, 9, |k| {
                Aes128::new(k.try_into().expect("len"))
            })
        },
    ));
}
