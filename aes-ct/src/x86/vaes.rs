//! Bulk AES with VAES: AES-NI rounds on 2 (AVX2, `ymm`) or 4 (AVX-512,
//! `zmm`) blocks per instruction.
//!
//! Technique: the AES-NI backend's (`aesni.rs`) round structure, widened:
//! `vaesenc` applies one round to every 128-bit lane (Intel SDM, "VAESENC";
//! the round keys are broadcast to all lanes). A parallel batch is 64
//! blocks: 16 `zmm` registers, or 4 x 8 `ymm` registers, interleaved round
//! by round. The AVX-512 path is chosen at run time when the CPU has it,
//! else the AVX2 one. Single blocks and tails use 128-bit AES-NI.
//!
//! Key form: the AES-NI key form (standard schedule bytes, encryption and
//! equivalent-inverse-cipher decryption keys), loaded once per call into
//! `xmm` registers and broadcast to wide registers inside each batch; the
//! `xmm` stack copy is overwritten when the call returns.
//!
//! Constant time: the AES instructions are data-independent; no tables.
//! Cost: 1 instruction per round per 2 or 4 blocks.

use super::aesni::{self, Key};
use crate::{backend::Engine, schedule::Schedule};
use cipher::{
    Block, BlockCipherDecBackend, BlockCipherDecClosure, BlockCipherEncBackend,
    BlockCipherEncClosure, BlockSizeUser, ParBlocks, ParBlocksSizeUser,
    consts::{U16, U64},
    inout::{InOut, InOutBuf},
};
#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;
use core::sync::atomic::{AtomicBool, Ordering};

ct_dispatch::x86_detect!(cpu_vaes256, "aes", "vaes", "avx2");
// AVX-512BW (`vpshufb` on `zmm`, for the CTR counters) is on every CPU
// with VAES and AVX-512F.
ct_dispatch::x86_detect!(cpu_vaes512, "aes", "vaes", "avx512f", "avx512bw");

/// Run the AVX-512 code when the CPU has it (cleared by `limit_width`).
static ALLOW_512: AtomicBool = AtomicBool::new(true);

/// Limit the VAES vector width for keys made afterwards: 2 lanes (AVX2,
/// 256-bit; any value below 4) or 4 (AVX-512, the default where the CPU
/// has it). A test and benchmark hook (feature `test-hooks`), so the AVX2
/// code runs on AVX-512 CPUs too. Memory safe for every value: it only
/// clears a flag that the CPU check is ANDed with.
#[cfg(any(test, feature = "test-hooks"))]
pub fn limit_width(lanes: u8) {
    ALLOW_512.store(lanes >= 4, Ordering::Relaxed);
}

/// Proof that this CPU has VAES with AVX2 (`wide`: and AVX-512F/BW).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Vaes {
    wide: bool,
}

/// AES-NI keys plus which vector width this CPU runs.
#[derive(Clone)]
pub(crate) struct VKey<const NR: usize> {
    key: Key<NR>,
    wide: bool,
    ni: aesni::AesNi,
}

impl Engine for Vaes {
    type Token = Vaes;
    type Key<const NR: usize> = VKey<NR>;

    fn token() -> Option<Vaes> {
        cpu_vaes256::get().then(|| Vaes {
            wide: cpu_vaes512::get() && ALLOW_512.load(Ordering::Relaxed),
        })
    }

    fn enc_round_keys<const NR: usize>(key: &VKey<NR>) -> Option<[[u8; 16]; 15]> {
        Some(key.key.enc)
    }

    fn schedule<const NR: usize>(t: Vaes, key: &[u8]) -> Schedule<NR> {
        Schedule::new_with(aesni::AesNi::from_vaes(t), key)
    }

    fn expand<const NR: usize>(t: Vaes, ks: &Schedule<NR>) -> VKey<NR> {
        let ni = aesni::AesNi::from_vaes(t);
        VKey {
            key: Key::new(ni, ks),
            wide: t.wide,
            ni,
        }
    }

    fn encrypt<const NR: usize>(key: &VKey<NR>, f: impl BlockCipherEncClosure<BlockSize = U16>) {
        // SAFETY: a `VKey` is only built from a `Vaes` token, handed out
        // after the CPU check for AES-NI + VAES + AVX2, and `wide` only when
        // AVX-512F is there too.
        unsafe {
            if key.wide {
                enc512::<NR>(key.ni, &key.key.enc, f)
            } else {
                enc256::<NR>(key.ni, &key.key.enc, f)
            }
        }
    }

    fn decrypt<const NR: usize>(key: &VKey<NR>, f: impl BlockCipherDecClosure<BlockSize = U16>) {
        // SAFETY: as in `encrypt`.
        unsafe {
            if key.wide {
                dec512::<NR>(key.ni, &key.key.dec, f)
            } else {
                dec256::<NR>(key.ni, &key.key.dec, f)
            }
        }
    }

    fn ctr32<const NR: usize>(
        key: &VKey<NR>,
        nonce: &[u8; 12],
        ctr: u32,
        blocks: InOutBuf<'_, '_, crate::Block>,
    ) {
        let t = Vaes { wide: key.wide };
        // SAFETY: as in `encrypt` (`wide` only with AVX-512F and BW).
        unsafe {
            if blocks.len() <= 4 {
                // A few blocks: not worth broadcasting the keys.
                super::ctr::ctr128::<NR>(key.ni, &key.key.enc, nonce, ctr, blocks)
            } else if key.wide {
                super::ctr::ctr512::<NR>(t, &key.key.enc, nonce, ctr, blocks)
            } else {
                super::ctr::ctr256::<NR>(t, &key.key.enc, nonce, ctr, blocks)
            }
        }
    }
}

/// Round keys for the AVX-512 path, in `xmm` form; each 64-block batch
/// broadcasts them into `zmm` registers itself (no wide copy in memory).
struct Rk512<const NR: usize> {
    n: aesni::Rk<NR>,
}

/// Round keys for the AVX2 path (broadcast per batch likewise).
struct Rk256<const NR: usize> {
    n: aesni::Rk<NR>,
}

#[target_feature(enable = "aes,vaes,avx512f")]
fn enc512<const NR: usize>(
    t: aesni::AesNi,
    k: &[[u8; 16]; 15],
    f: impl BlockCipherEncClosure<BlockSize = U16>,
) {
    let mut rk = Rk512::<NR> {
        n: aesni::Rk::load(t, k),
    };
    f.call(&rk);
    rk.n.wipe();
}

#[target_feature(enable = "aes,vaes,avx512f")]
fn dec512<const NR: usize>(
    t: aesni::AesNi,
    k: &[[u8; 16]; 15],
    f: impl BlockCipherDecClosure<BlockSize = U16>,
) {
    let mut rk = Rk512::<NR> {
        n: aesni::Rk::load(t, k),
    };
    f.call(&rk);
    rk.n.wipe();
}

#[target_feature(enable = "aes,vaes,avx2")]
fn enc256<const NR: usize>(
    t: aesni::AesNi,
    k: &[[u8; 16]; 15],
    f: impl BlockCipherEncClosure<BlockSize = U16>,
) {
    let mut rk = Rk256::<NR> {
        n: aesni::Rk::load(t, k),
    };
    f.call(&rk);
    rk.n.wipe();
}

#[target_feature(enable = "aes,vaes,avx2")]
fn dec256<const NR: usize>(
    t: aesni::AesNi,
    k: &[[u8; 16]; 15],
    f: impl BlockCipherDecClosure<BlockSize = U16>,
) {
    let mut rk = Rk256::<NR> {
        n: aesni::Rk::load(t, k),
    };
    f.call(&rk);
    rk.n.wipe();
}

/// 64 blocks, 4 per `zmm` in 16 registers, interleaved; all loads before
/// all stores.
#[target_feature(enable = "aes,vaes,avx512f")]
#[inline]
fn par512<const NR: usize, const DEC: bool>(
    n: &aesni::Rk<NR>,
    blocks: InOut<'_, '_, ParBlocks<Rk512<NR>>>,
) {
    let rk: [__m512i; 15] = core::array::from_fn(|i| _mm512_broadcast_i32x4(n.get(i)));
    // Both pointers from one `into_raw`: `inp` may equal `out` (in place).
    let (inp, out) = blocks.into_raw();
    let (inp, out) = (inp.cast::<__m512i>(), out.cast::<__m512i>());
    // SAFETY: 64 blocks = 16 x 64 readable bytes; unaligned loads.
    let mut b: [__m512i; 16] = core::array::from_fn(|i| unsafe { _mm512_loadu_si512(inp.add(i)) });
    for x in b.iter_mut() {
        *x = _mm512_xor_si512(*x, rk[0]);
    }
    for r in 1..NR {
        for x in b.iter_mut() {
            *x = if DEC {
                _mm512_aesdec_epi128(*x, rk[r])
            } else {
                _mm512_aesenc_epi128(*x, rk[r])
            };
        }
    }
    for x in b.iter_mut() {
        *x = if DEC {
            _mm512_aesdeclast_epi128(*x, rk[NR])
        } else {
            _mm512_aesenclast_epi128(*x, rk[NR])
        };
    }
    for (i, x) in b.iter().enumerate() {
        // SAFETY: 16 x 64 writable bytes; unaligned stores.
        unsafe { _mm512_storeu_si512(out.add(i), *x) };
    }
}

/// 16 blocks, 2 per `ymm`, interleaved; all loads before all stores.
#[target_feature(enable = "aes,vaes,avx2")]
#[inline]
fn par256x16<const NR: usize, const DEC: bool>(
    n: &aesni::Rk<NR>,
    blocks: InOutBuf<'_, '_, crate::Block>,
) {
    // The loads and stores below cover exactly 16 blocks.
    assert_eq!(blocks.len(), 16);
    let rk: [__m256i; 15] = core::array::from_fn(|i| _mm256_broadcastsi128_si256(n.get(i)));
    // Both pointers from one `into_raw`: `inp` may equal `out` (in place).
    let (inp, out) = blocks.into_raw();
    let (inp, out) = (inp.cast::<__m256i>(), out.cast::<__m256i>());
    // SAFETY: 16 blocks = 8 x 32 readable bytes; unaligned loads.
    let mut b: [__m256i; 8] = core::array::from_fn(|i| unsafe { _mm256_loadu_si256(inp.add(i)) });
    for x in b.iter_mut() {
        *x = _mm256_xor_si256(*x, rk[0]);
    }
    for r in 1..NR {
        for x in b.iter_mut() {
            *x = if DEC {
                _mm256_aesdec_epi128(*x, rk[r])
            } else {
                _mm256_aesenc_epi128(*x, rk[r])
            };
        }
    }
    for x in b.iter_mut() {
        *x = if DEC {
            _mm256_aesdeclast_epi128(*x, rk[NR])
        } else {
            _mm256_aesenclast_epi128(*x, rk[NR])
        };
    }
    for (i, x) in b.iter().enumerate() {
        // SAFETY: 8 x 32 writable bytes; unaligned stores.
        unsafe { _mm256_storeu_si256(out.add(i), *x) };
    }
}

macro_rules! common {
    ($rk:ident) => {
        impl<const NR: usize> BlockSizeUser for $rk<NR> {
            type BlockSize = U16;
        }
        impl<const NR: usize> ParBlocksSizeUser for $rk<NR> {
            type ParBlocksSize = U64;
        }
    };
}
common!(Rk512);
common!(Rk256);

macro_rules! impl_dir {
    ($tr:ident, $one:ident, $par:ident, $tail:ident, $f:ident, $dec:expr) => {
        impl<const NR: usize> $tr for Rk512<NR> {
            #[inline(always)]
            fn $one(&self, mut block: InOut<'_, '_, Block<Self>>) {
                let mut b = [aesni::load(block.get_in())];
                self.n.$f(&mut b);
                aesni::store(block.get_out(), b[0]);
            }
            #[inline(always)]
            fn $par(&self, blocks: InOut<'_, '_, ParBlocks<Self>>) {
                // SAFETY: an `Rk512` only exists inside `enc512`/`dec512`,
                // which run after the CPU check for AES-NI, VAES, AVX-512F.
                unsafe { par512::<NR, $dec>(&self.n, blocks) };
            }
            #[inline(always)]
            fn $tail(&self, blocks: InOutBuf<'_, '_, Block<Self>>) {
                aesni_tail::<NR>(blocks, $dec, &self.n);
            }
        }

        impl<const NR: usize> $tr for Rk256<NR> {
            #[inline(always)]
            fn $one(&self, mut block: InOut<'_, '_, Block<Self>>) {
                let mut b = [aesni::load(block.get_in())];
                self.n.$f(&mut b);
                aesni::store(block.get_out(), b[0]);
            }
            #[inline(always)]
            fn $par(&self, blocks: InOut<'_, '_, ParBlocks<Self>>) {
                let (chunks, _) = blocks.into_buf().into_chunks::<U16>();
                for c in chunks {
                    // SAFETY: an `Rk256` only exists inside `enc256`/`dec256`,
                    // which run after the CPU check for AES-NI, VAES, AVX2.
                    unsafe { par256x16::<NR, $dec>(&self.n, c.into_buf()) };
                }
            }
            #[inline(always)]
            fn $tail(&self, blocks: InOutBuf<'_, '_, Block<Self>>) {
                aesni_tail::<NR>(blocks, $dec, &self.n);
            }
        }
    };
}
impl_dir!(
    BlockCipherEncBackend,
    encrypt_block,
    encrypt_par_blocks,
    encrypt_tail_blocks,
    enc,
    false
);
impl_dir!(
    BlockCipherDecBackend,
    decrypt_block,
    decrypt_par_blocks,
    decrypt_tail_blocks,
    dec,
    true
);

/// Tails (fewer than 64 blocks): 8-block AES-NI groups, then the AES-NI
/// tail (4/2/1).
#[inline(always)]
fn aesni_tail<const NR: usize>(
    blocks: InOutBuf<'_, '_, crate::Block>,
    dec: bool,
    rk: &aesni::Rk<NR>,
) {
    let mut rest = blocks;
    while rest.len() >= 8 {
        let (head, r) = rest.split_at(8);
        rest = r;
        aesni::run::<8>(head, |b| if dec { rk.dec(b) } else { rk.enc(b) });
    }
    aesni::tail::<NR>(rest, dec, rk);
}
