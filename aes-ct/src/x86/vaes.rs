//! Bulk AES with VAES: AES-NI rounds on 2 (AVX2, `ymm`) or 4 (AVX-512,
//! `zmm`) blocks per instruction.
//!
//! Technique: the AES-NI backend's (`aesni.rs`) round structure, widened:
//! `vaesenc` applies one round to every 128-bit lane (Intel SDM, "VAESENC";
//! the round keys are broadcast to all lanes). A parallel batch (the
//! cipher traits' `ParBlocksSize`) is what one call of the width's routine
//! encrypts, interleaved round by round: 64 blocks in 16 `zmm` registers,
//! or 16 in 8 `ymm` registers. The AVX2 batch is not 4 x 16: a generic
//! mode over the cipher (`ctr`) copies and zeroes a batch-sized buffer per
//! batch, and at 1 KiB those became `memcpy`/`memset` calls (each behind a
//! `vzeroupper`) that cost more than the AES (`aes-ct/PERFORMANCE-x86.md`).
//! The AVX-512 path is chosen at run time when the CPU has it, else the
//! AVX2 one. Single blocks and tails use 128-bit AES-NI.
//!
//! Key form: the AES-NI key form (standard schedule bytes, encryption and
//! equivalent-inverse-cipher decryption keys), loaded once per call into
//! `xmm` registers and broadcast to wide registers inside each batch; the
//! `xmm` stack copy is overwritten when the call returns.
//!
//! Constant time: the AES instructions are data-independent; no tables.
//! Cost: 1 instruction per round per 2 or 4 blocks.

use super::aesni::{self, Key};
use super::lanes::{Lanes, aes_rounds};
use crate::{backend::Engine, schedule::Schedule};
use cipher::{
    BlockCipherDecClosure, BlockCipherEncClosure, BlockSizeUser, ParBlocks, ParBlocksSizeUser,
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

    fn schedule<const NR: usize>(t: Vaes, key: &[u8], enc: &mut [[u8; 16]; 15]) {
        aesni::AesNi::from_vaes(t).schedule::<NR>(key, enc)
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

/// The wide round-key types: the keys in `xmm` form (`n`); each batch
/// broadcasts them into wide registers itself (no wide copy in memory).
/// `$par` runs `$chunk` blocks; it is the width's target-feature function.
macro_rules! wide_rk {
    ($($(#[$m:meta])* $rk:ident, $chunk:ty, $par:ident;)*) => {$(
        $(#[$m])*
        struct $rk<const NR: usize> {
            n: aesni::Rk<NR>,
        }

        impl<const NR: usize> $rk<NR> {
            #[inline(always)]
            fn load(t: aesni::AesNi, k: &[[u8; 16]; 15]) -> Self {
                $rk { n: aesni::Rk::load(t, k) }
            }
            #[inline(always)]
            fn wipe(&mut self) {
                self.n.wipe();
            }
            #[inline(always)]
            fn ni(&self) -> &aesni::Rk<NR> {
                &self.n
            }
            #[inline(always)]
            fn par<const DEC: bool>(&self, blocks: InOut<'_, '_, ParBlocks<Self>>) {
                let (chunks, _) = blocks.into_buf().into_chunks::<$chunk>();
                for c in chunks {
                    // SAFETY: a wide key only exists inside the closure
                    // calls below, compiled with and run after the CPU
                    // check for AES-NI, VAES and the width's features.
                    unsafe { $par::<NR, DEC>(&self.n, c.into_buf()) };
                }
            }
            #[inline(always)]
            fn tail_blocks<const DEC: bool>(&self, blocks: InOutBuf<'_, '_, crate::Block>) {
                aesni_tail::<NR>(blocks, DEC, &self.n);
            }
        }

        impl<const NR: usize> BlockSizeUser for $rk<NR> {
            type BlockSize = U16;
        }
        impl<const NR: usize> ParBlocksSizeUser for $rk<NR> {
            type ParBlocksSize = $chunk;
        }
    )*};
}
wide_rk! {
    /// Round keys for the AVX-512 path: 64-block batches.
    Rk512, U64, par512;
    /// Round keys for the AVX2 path: 16-block batches.
    Rk256, U16, par256x16;
}
aesni::block_backends!(Rk512, Rk256);

aesni::with_keys! {
    enc512: Rk512, BlockCipherEncClosure, "aes,vaes,avx512f";
    dec512: Rk512, BlockCipherDecClosure, "aes,vaes,avx512f";
    enc256: Rk256, BlockCipherEncClosure, "aes,vaes,avx2";
    dec256: Rk256, BlockCipherDecClosure, "aes,vaes,avx2";
}

/// `G` vectors of `V::W` blocks, interleaved round by round; all loads
/// before all stores.
///
/// # Safety
/// [`Lanes`]' contract (the caller is the width's target-feature
/// function).
#[inline(always)]
unsafe fn batch<V: Lanes, const NR: usize, const DEC: bool, const G: usize>(
    n: &aesni::Rk<NR>,
    blocks: InOutBuf<'_, '_, crate::Block>,
) {
    // The loads and stores below cover exactly `G` vectors.
    assert_eq!(blocks.len(), G * V::W);
    // SAFETY: the caller's contract; `G * W * 16` readable and writable
    // bytes from the one `into_raw` (`inp` may equal `out`: in place).
    // (Plain loops, not `array::from_fn`: a closure would be a function
    // of its own, compiled without the target features.)
    unsafe {
        let mut rk = [V::bcast(n.get(0)); 15];
        for (i, k) in rk.iter_mut().enumerate() {
            *k = V::bcast(n.get(i));
        }
        let (inp, out) = blocks.into_raw();
        let (inp, out) = (inp.cast::<u8>(), out.cast::<u8>());
        let mut b = [rk[0]; G];
        for (i, x) in b.iter_mut().enumerate() {
            *x = V::loadu(inp.add(i * V::W * 16));
        }
        aes_rounds::<V, NR, DEC, G>(&rk, &mut b);
        for (i, x) in b.iter().enumerate() {
            V::storeu(out.add(i * V::W * 16), *x);
        }
    }
}

/// 64 blocks, 4 per `zmm` in 16 registers.
#[target_feature(enable = "aes,vaes,avx512f")]
#[inline]
fn par512<const NR: usize, const DEC: bool>(
    n: &aesni::Rk<NR>,
    blocks: InOutBuf<'_, '_, crate::Block>,
) {
    // SAFETY: compiled with the 512-bit width's features.
    unsafe { batch::<__m512i, NR, DEC, 16>(n, blocks) }
}

/// 16 blocks, 2 per `ymm` in 8 registers.
#[target_feature(enable = "aes,vaes,avx2")]
#[inline]
fn par256x16<const NR: usize, const DEC: bool>(
    n: &aesni::Rk<NR>,
    blocks: InOutBuf<'_, '_, crate::Block>,
) {
    // SAFETY: compiled with the 256-bit width's features.
    unsafe { batch::<__m256i, NR, DEC, 8>(n, blocks) }
}

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
