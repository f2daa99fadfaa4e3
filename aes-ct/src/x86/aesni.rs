//! AES with AES-NI (`aesenc`/`aesenclast`/`aesdec`/`aesdeclast`).
//!
//! Technique: one `aesenc` per round (Intel, "Intel Advanced Encryption
//! Standard (AES) New Instructions Set", S. Gueron, 2010, section 4), the
//! equivalent inverse cipher for decryption (FIPS-197 section 5.3.5: the
//! InvMixColumns'ed round keys of [`Schedule::dec`] with `aesdec`). Eight
//! independent blocks are interleaved round by round to cover the
//! instruction latency (3-4 cycles, 1-2 per cycle throughput on current
//! cores).
//!
//! Key schedule: AES-128 and AES-256 expand a whole round key per step in
//! a register (Gueron 2010, section 5, with BoringSSL's
//! `aes_hw_set_encrypt_key_alt` form of SubWord: a `pshufb` that rotates
//! and broadcasts the last word, then `aesenclast` with the round
//! constant as its key, since ShiftRows moves nothing in a state of four
//! equal columns; shorter latency than `aeskeygenassist`). Cost per round
//! key: `pshufb`, `aesenclast`, two shifts and three XORs. AES-192 runs the
//! word loop of `schedule.rs` with `aeskeygenassist` as SubWord.
//!
//! Key form: the standard schedule as bytes, encryption and decryption
//! forms; loaded into
//! registers once per `encrypt_with_backend` call, the register copy on the
//! stack is overwritten when the call returns.
//!
//! Constant time: the AES instructions are data-independent; no tables.
//! Cost: 1 instruction per round and block, plus loads/stores.

use crate::hybrid::wipe_blocks;
use crate::{
    backend::Engine,
    schedule::{KeyOps, RCON, Schedule},
};
use cipher::{
    BlockCipherDecClosure, BlockCipherEncClosure, BlockSizeUser, ParBlocks, ParBlocksSizeUser,
    consts::{U8, U16},
    inout::{InOut, InOutBuf},
};
#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

// SSSE3 (`pshufb`, for the CTR counters) is on every CPU with AES-NI.
ct_dispatch::x86_detect!(cpu_aesni, "aes", "sse2", "ssse3");

/// Proof that this CPU has AES-NI.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AesNi(());

#[cfg(feature = "vaes")]
impl AesNi {
    /// The VAES token implies AES-NI (its CPU check includes `aes`).
    pub(super) fn from_vaes(_: super::vaes::Vaes) -> AesNi {
        AesNi(())
    }
}

/// Encryption and (equivalent inverse cipher) decryption round keys.
#[derive(Clone)]
pub(crate) struct Key<const NR: usize> {
    pub(super) enc: [[u8; 16]; 15],
    pub(super) dec: [[u8; 16]; 15],
}

impl<const NR: usize> Drop for Key<NR> {
    fn drop(&mut self) {
        wipe_blocks(&mut self.enc);
        wipe_blocks(&mut self.dec);
    }
}

impl<const NR: usize> Key<NR> {
    pub(super) fn new(t: AesNi, ks: &Schedule<NR>) -> Self {
        Key {
            enc: ks.enc,
            dec: t.dec_keys(ks),
        }
    }
}

impl AesNi {
    /// The standard schedule with SubWord on `aeskeygenassist`: the whole
    /// loop is compiled with AES-NI enabled, so each SubWord is one inlined
    /// instruction rather than a call.
    pub(super) fn schedule<const NR: usize>(self, key: &[u8], enc: &mut [[u8; 16]; 15]) {
        // SAFETY: an `AesNi` exists only after the CPU check for AES-NI.
        unsafe { schedule_aesni::<NR>(self, key, enc) }
    }

    /// The equivalent inverse cipher's round keys, InvMixColumns on
    /// `aesimc` (inlined likewise).
    pub(super) fn dec_keys<const NR: usize>(self, ks: &Schedule<NR>) -> [[u8; 16]; 15] {
        // SAFETY: as in `schedule`.
        unsafe { dec_aesni(self, ks) }
    }
}

#[target_feature(enable = "aes,sse2,ssse3")]
fn schedule_aesni<const NR: usize>(t: AesNi, key: &[u8], enc: &mut [[u8; 16]; 15]) {
    assert_eq!(key.len(), 4 * Schedule::<NR>::NK, "AES key length");
    match NR {
        10 => {
            let mut k = load_key(&key[..16]);
            store_rk(&mut enc[0], k);
            for (r, rk) in enc[1..=10].iter_mut().enumerate() {
                k = next_half(k, sub_rot_word(k, RCON[r]));
                store_rk(rk, k);
            }
        }
        14 => {
            let (mut k0, mut k1) = (load_key(&key[..16]), load_key(&key[16..32]));
            store_rk(&mut enc[0], k0);
            store_rk(&mut enc[1], k1);
            for (r, rk) in enc[2..=14].chunks_mut(2).enumerate() {
                k0 = next_half(k0, sub_rot_word(k1, RCON[r]));
                store_rk(&mut rk[0], k0);
                if let Some(rk1) = rk.get_mut(1) {
                    k1 = next_half(k1, sub_word_bcast(k0));
                    store_rk(rk1, k1);
                }
            }
        }
        _ => return crate::schedule::expand_with::<NR>(t, key, enc),
    }
    enc[NR + 1..].fill([0; 16]);
}

/// 16 key bytes (unaligned load).
#[inline]
#[target_feature(enable = "sse2")]
fn load_key(b: &[u8]) -> __m128i {
    assert_eq!(b.len(), 16, "one round key");
    // SAFETY: 16 readable bytes (checked above), unaligned load.
    unsafe { _mm_loadu_si128(b.as_ptr().cast()) }
}

/// One round key out (unaligned store).
#[inline]
#[target_feature(enable = "sse2")]
fn store_rk(rk: &mut [u8; 16], k: __m128i) {
    // SAFETY: 16 writable bytes, unaligned store.
    unsafe { _mm_storeu_si128(rk.as_mut_ptr().cast(), k) }
}

/// The next four words after `k`: `w[i] = w[i - NK] ^ w[i - 1]`, with
/// `t` (the transformed last word, in every lane) entering the first:
/// prefix XOR of `k`'s words, then `t`.
#[inline]
#[target_feature(enable = "sse2")]
fn next_half(k: __m128i, t: __m128i) -> __m128i {
    let k = _mm_xor_si128(k, _mm_slli_si128::<4>(k));
    let k = _mm_xor_si128(k, _mm_slli_si128::<8>(k));
    _mm_xor_si128(k, t)
}

/// `SubWord(RotWord(w3)) ^ rcon` of `k`'s last word, in all four lanes.
#[inline]
#[target_feature(enable = "aes,sse2,ssse3")]
fn sub_rot_word(k: __m128i, rcon: u8) -> __m128i {
    // Bytes 13, 14, 15, 12 into each lane: RotWord of word 3, broadcast.
    let t = _mm_shuffle_epi8(k, _mm_set1_epi32(0x0c0f_0e0d));
    _mm_aesenclast_si128(t, _mm_set1_epi32(i32::from(rcon)))
}

/// `SubWord(w3)` of `k`'s last word, in all four lanes (AES-256's odd
/// steps).
#[inline]
#[target_feature(enable = "aes,sse2,ssse3")]
fn sub_word_bcast(k: __m128i) -> __m128i {
    let t = _mm_shuffle_epi8(k, _mm_set1_epi32(0x0f0e_0d0c));
    _mm_aesenclast_si128(t, _mm_setzero_si128())
}

#[target_feature(enable = "aes,sse2")]
fn dec_aesni<const NR: usize>(t: AesNi, ks: &Schedule<NR>) -> [[u8; 16]; 15] {
    ks.dec_with(t)
}

/// The schedule's SubWord and InvMixColumns in one instruction each.
impl KeyOps for AesNi {
    #[inline(always)]
    fn sub_word(self, w: u32) -> u32 {
        // SAFETY: an `AesNi` exists only after the CPU check for AES-NI.
        unsafe { sub_word_aesni(w) }
    }
    #[inline(always)]
    fn inv_mix_columns(self, s: &[u8; 16]) -> [u8; 16] {
        // SAFETY: as in `sub_word`.
        unsafe { inv_mix_aesni(s) }
    }
}

/// `aeskeygenassist` puts SubWord of dword 1 in dword 0.
#[target_feature(enable = "aes,sse2")]
fn sub_word_aesni(w: u32) -> u32 {
    let r = _mm_aeskeygenassist_si128::<0>(_mm_set_epi32(0, 0, w as i32, 0));
    _mm_cvtsi128_si32(r) as u32
}

#[target_feature(enable = "aes,sse2")]
fn inv_mix_aesni(s: &[u8; 16]) -> [u8; 16] {
    let mut out = [0u8; 16];
    // SAFETY: 16 readable / writable bytes, unaligned load and store.
    unsafe {
        let v = _mm_aesimc_si128(_mm_loadu_si128(s.as_ptr().cast()));
        _mm_storeu_si128(out.as_mut_ptr().cast(), v);
    }
    out
}

impl Engine for AesNi {
    type Token = AesNi;
    type Key<const NR: usize> = Key<NR>;

    fn token() -> Option<AesNi> {
        cpu_aesni::get().then_some(AesNi(()))
    }

    fn enc_round_keys<const NR: usize>(key: &Key<NR>) -> Option<[[u8; 16]; 15]> {
        Some(key.enc)
    }

    fn schedule<const NR: usize>(t: AesNi, key: &[u8], enc: &mut [[u8; 16]; 15]) {
        t.schedule::<NR>(key, enc)
    }

    fn expand<const NR: usize>(t: AesNi, ks: &Schedule<NR>) -> Key<NR> {
        Key::new(t, ks)
    }

    fn encrypt<const NR: usize>(key: &Key<NR>, f: impl BlockCipherEncClosure<BlockSize = U16>) {
        // SAFETY: a `Key` is only built by `expand`, which takes an `AesNi`
        // token, which `token()` hands out only when the CPU has AES-NI.
        unsafe { with_enc::<NR>(AesNi(()), &key.enc, f) }
    }

    fn decrypt<const NR: usize>(key: &Key<NR>, f: impl BlockCipherDecClosure<BlockSize = U16>) {
        // SAFETY: as in `encrypt`.
        unsafe { with_dec::<NR>(AesNi(()), &key.dec, f) }
    }

    fn ctr32<const NR: usize>(
        key: &Key<NR>,
        nonce: &[u8; 12],
        ctr: u32,
        blocks: InOutBuf<'_, '_, crate::Block>,
    ) {
        // SAFETY: as in `encrypt` (the token's check includes SSSE3).
        unsafe { super::ctr::ctr128::<NR>(AesNi(()), &key.enc, nonce, ctr, blocks) }
    }
}

/// Round keys in registers, handed to the closure. Only made from an
/// [`AesNi`] token, so its methods may run the AES instructions.
pub(super) struct Rk<const NR: usize>([__m128i; 15]);

impl<const NR: usize> Rk<NR> {
    #[inline(always)]
    pub(super) fn load(_: AesNi, k: &[[u8; 16]; 15]) -> Self {
        // SAFETY: every `k[i]` is 16 readable bytes; unaligned load (SSE2).
        Rk(core::array::from_fn(|i| unsafe {
            _mm_loadu_si128(k[i].as_ptr().cast())
        }))
    }

    /// Round key `i`.
    #[cfg(feature = "vaes")]
    #[inline(always)]
    pub(super) fn get(&self, i: usize) -> __m128i {
        self.0[i]
    }

    /// Encrypt `N` blocks, interleaved.
    #[inline(always)]
    pub(super) fn enc<const N: usize>(&self, b: &mut [__m128i; N]) {
        // SAFETY: an `Rk` is only made with an `AesNi` token (CPU check).
        unsafe { crypt_n::<NR, N, false>(&self.0, b) }
    }

    /// Decrypt `N` blocks, interleaved.
    #[inline(always)]
    pub(super) fn dec<const N: usize>(&self, b: &mut [__m128i; N]) {
        // SAFETY: an `Rk` is only made with an `AesNi` token (CPU check).
        unsafe { crypt_n::<NR, N, true>(&self.0, b) }
    }

    /// Overwrite the stack copy of the round keys.
    #[inline(always)]
    pub(super) fn wipe(&mut self) {
        ct_dispatch::wipe::wipe(&mut self.0);
    }
}

/// The closure calls of the AES-NI and VAES key forms: `$rk::load` puts
/// the round keys in registers, the closure runs inside a function
/// compiled with `$features`, `$rk::wipe` overwrites the stack copy.
macro_rules! with_keys {
    ($($name:ident: $rk:ident, $closure:ident, $features:literal;)*) => {$(
        #[target_feature(enable = $features)]
        fn $name<const NR: usize>(
            t: $crate::x86::aesni::AesNi,
            k: &[[u8; 16]; 15],
            f: impl cipher::$closure<BlockSize = cipher::consts::U16>,
        ) {
            let mut rk = $rk::<NR>::load(t, k);
            f.call(&rk);
            rk.wipe();
        }
    )*};
}
#[cfg(feature = "vaes")]
pub(super) use with_keys;

with_keys! {
    with_enc: Rk, BlockCipherEncClosure, "aes,sse2";
    with_dec: Rk, BlockCipherDecClosure, "aes,sse2";
}

impl<const NR: usize> BlockSizeUser for Rk<NR> {
    type BlockSize = U16;
}

impl<const NR: usize> ParBlocksSizeUser for Rk<NR> {
    type ParBlocksSize = U8;
}

#[inline(always)]
pub(super) fn load(b: &crate::Block) -> __m128i {
    // SAFETY: 16 readable bytes, unaligned load.
    unsafe { _mm_loadu_si128(b.as_ptr().cast()) }
}

#[inline(always)]
pub(super) fn store(b: &mut crate::Block, v: __m128i) {
    // SAFETY: 16 writable bytes, unaligned store.
    unsafe { _mm_storeu_si128(b.as_mut_ptr().cast(), v) }
}

/// Encrypt (`DEC`: decrypt with the equivalent-inverse-cipher keys) `N`
/// blocks, round by round interleaved.
#[target_feature(enable = "aes,sse2")]
#[inline]
fn crypt_n<const NR: usize, const N: usize, const DEC: bool>(
    rk: &[__m128i; 15],
    b: &mut [__m128i; N],
) {
    // SAFETY: compiled with the 128-bit width's AES features.
    unsafe { super::lanes::aes_rounds::<__m128i, NR, DEC, N>(rk, b) }
}

/// Run `N` blocks of `buf` through `f` (all loads before all stores, so
/// in-place buffers work).
#[inline(always)]
pub(super) fn run<const N: usize>(
    mut buf: InOutBuf<'_, '_, crate::Block>,
    f: impl Fn(&mut [__m128i; N]),
) {
    debug_assert_eq!(buf.len(), N);
    let mut b: [__m128i; N] = core::array::from_fn(|i| load(&buf.get_in()[i]));
    f(&mut b);
    let out = buf.get_out();
    for i in 0..N {
        store(&mut out[i], b[i]);
    }
}

/// Tails of up to 7 blocks: 4-, 2- and 1-block interleaved groups.
#[inline(always)]
pub(super) fn tail<const NR: usize>(
    blocks: InOutBuf<'_, '_, crate::Block>,
    dec: bool,
    rk: &Rk<NR>,
) {
    let mut rest = blocks;
    for n in [4usize, 2, 1] {
        while rest.len() >= n {
            let (head, r) = rest.split_at(n);
            rest = r;
            match (n, dec) {
                (4, false) => run::<4>(head, |b| rk.enc(b)),
                (4, true) => run::<4>(head, |b| rk.dec(b)),
                (2, false) => run::<2>(head, |b| rk.enc(b)),
                (2, true) => run::<2>(head, |b| rk.dec(b)),
                (_, false) => run::<1>(head, |b| rk.enc(b)),
                (_, true) => run::<1>(head, |b| rk.dec(b)),
            }
        }
    }
}

impl<const NR: usize> Rk<NR> {
    /// The AES-NI keys (itself).
    #[inline(always)]
    fn ni(&self) -> &Self {
        self
    }

    /// One block (`DEC`: decrypt).
    #[inline(always)]
    pub(super) fn one<const DEC: bool>(&self, mut block: InOut<'_, '_, crate::Block>) {
        let mut b = [load(block.get_in())];
        if DEC {
            self.dec(&mut b)
        } else {
            self.enc(&mut b)
        }
        store(block.get_out(), b[0]);
    }

    #[inline(always)]
    fn par<const DEC: bool>(&self, blocks: InOut<'_, '_, ParBlocks<Self>>) {
        run::<8>(blocks.into_buf(), |b| {
            if DEC { self.dec(b) } else { self.enc(b) }
        });
    }

    #[inline(always)]
    fn tail_blocks<const DEC: bool>(&self, blocks: InOutBuf<'_, '_, crate::Block>) {
        tail::<NR>(blocks, DEC, self);
    }
}

/// The cipher backend traits of the AES-NI and VAES round-key types, one
/// impl per direction, through the type's `one`, `par` and `tail_blocks`
/// (`DEC` picks the direction) and its `ni()` AES-NI keys for single
/// blocks.
macro_rules! block_backends {
    ($($rk:ident),*) => {$(
        $crate::x86::aesni::block_backends!(@dir $rk, BlockCipherEncBackend,
            encrypt_block, encrypt_par_blocks, encrypt_tail_blocks, false);
        $crate::x86::aesni::block_backends!(@dir $rk, BlockCipherDecBackend,
            decrypt_block, decrypt_par_blocks, decrypt_tail_blocks, true);
    )*};
    (@dir $rk:ident, $tr:ident, $one:ident, $par:ident, $tail:ident, $dec:literal) => {
        impl<const NR: usize> cipher::$tr for $rk<NR> {
            #[inline(always)]
            fn $one(&self, block: cipher::inout::InOut<'_, '_, cipher::Block<Self>>) {
                self.ni().one::<$dec>(block);
            }
            #[inline(always)]
            fn $par(&self, blocks: cipher::inout::InOut<'_, '_, cipher::ParBlocks<Self>>) {
                self.par::<$dec>(blocks);
            }
            #[inline(always)]
            fn $tail(&self, blocks: cipher::inout::InOutBuf<'_, '_, cipher::Block<Self>>) {
                self.tail_blocks::<$dec>(blocks);
            }
        }
    };
}
pub(super) use block_backends;

block_backends!(Rk);

#[cfg(test)]
mod key_ops_tests {
    extern crate std;
    /// The schedule steps on the AES-NI instructions equal the software ones
    /// (on a CPU without them there is nothing to compare, and it says so).
    #[test]
    fn key_ops_match_software() {
        match <super::AesNi as crate::backend::Engine>::token() {
            Some(t) => crate::schedule::assert_ops_match_software(t),
            None => std::eprintln!("no AES-NI on this CPU: nothing to compare"),
        }
    }

    /// The register-wide schedules (AES-128, AES-256) and the word loop
    /// (AES-192) equal the software schedule, on keys of every byte value
    /// in every position.
    #[test]
    fn schedule_matches_software() {
        use crate::schedule::Schedule;
        let Some(t) = <super::AesNi as crate::backend::Engine>::token() else {
            std::eprintln!("no AES-NI on this CPU: nothing to compare");
            return;
        };
        fn check<const NR: usize>(t: super::AesNi) {
            let nk = 4 * Schedule::<NR>::NK;
            for i in 0..=255usize {
                let key: std::vec::Vec<u8> = (0..nk)
                    .map(|j| {
                        if j == i % nk {
                            i as u8
                        } else {
                            (i * 7 + j * 13) as u8
                        }
                    })
                    .collect();
                let mut enc = [[0xa5u8; 16]; 15];
                t.schedule::<NR>(&key, &mut enc);
                assert_eq!(
                    enc,
                    Schedule::<NR>::new(&key).enc,
                    "NR = {NR}, key {key:02x?}"
                );
            }
        }
        check::<10>(t);
        check::<12>(t);
        check::<14>(t);
    }
}
