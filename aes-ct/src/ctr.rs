//! CTR mode with a 32-bit big-endian counter, written once for every ISA.
//!
//! Technique: NIST SP 800-38A, section 6.5 (CTR), with the counter
//! convention of RFC 3686 / GCM (`Ctr32BE`): the first 12 bytes of the
//! counter block are a fixed nonce, the last 4 a big-endian counter that
//! wraps mod 2^32. The IV, seek and `remaining_blocks` semantics are those
//! of RustCrypto `ctr` 0.10's `Ctr32BE` flavor (`ctr-0.10.1/src/flavors/
//! ctr32.rs`): the block position starts at 0 for any IV, the counter word
//! of block `p` is `BE32(iv[12..16]) + p` (mod 2^32), and the keystream
//! ends after 2^32 blocks (`remaining_blocks() = u32::MAX - p`).
//!
//! Why: `ctr::Ctr32BE<aes_ct::Aes128>` works (our types are drop-ins for
//! `aes`), but `ctr`'s generic keystream loop builds counter blocks one by
//! one, XORs byte-wise and copies through `memcpy`/`memset`: on armv7 that
//! is ~7.5 instructions per byte on top of an ~18.7/byte AES kernel
//! (`PERFORMANCE-arm.md`). [`Ctr32BE`] overrides the whole-block part of
//! `StreamCipherCore` (`apply_keystream_blocks_inout`, which cipher's
//! `StreamCipherCoreWrapper` calls for all whole blocks of an
//! `apply_keystream`) with the backend's `Engine::ctr32`: by default
//! counter blocks in batches of the backend's parallel width inside one
//! `encrypt_with_backend` call, encrypted, XORed as whole blocks, the
//! keystream buffer wiped; the hybrid runs full batches through
//! `Bitsliced::ctr32_batches` (on armv7 an assembly loop that builds the
//! counters in NEON registers and XORs inside the kernel) and tails by its
//! usual policy. Partial blocks and the keystream of `seek` go through the
//! generic `process_with_backend` path, as in `ctr`.
//!
//! Cost: whatever the backend's `ctr32` costs per block, plus one dispatch
//! per `apply_keystream` call.
//!
//! Constant time: the counter value only ever becomes data (counter
//! blocks); lengths, which are public, set every loop bound.

use crate::{Aes128, Aes128Enc, Aes192, Aes192Enc, Aes256, Aes256Enc, Block};
use cipher::{
    AlgorithmName, BlockCipherEncBackend, BlockCipherEncClosure, BlockCipherEncrypt, BlockSizeUser,
    InnerIvInit, Iv, IvSizeUser, IvState, ParBlocks, ParBlocksSizeUser, SetIvState,
    StreamCipherBackend, StreamCipherClosure, StreamCipherCore, StreamCipherCoreWrapper,
    StreamCipherSeekCore,
    common::InnerUser,
    consts::U16,
    inout::{InOut, InOutBuf},
    typenum::Unsigned,
};
use core::fmt;

/// CTR mode with a 32-bit big-endian counter over an aes-ct cipher: a
/// drop-in for `ctr::Ctr32BE<aes::Aes128>` (same IV, seek and
/// keystream-end semantics), with a fused whole-block loop.
///
/// The nonce, counter and cipher key are wiped on drop; the keystream
/// bytes cipher's wrapper buffers after a partial block are wiped only
/// with aes-ct's `zeroize` feature (which turns on cipher's, as `ctr`
/// users do).
///
/// ```
/// use aes_ct::cipher::{KeyIvInit, StreamCipher, StreamCipherSeek};
/// use aes_ct::{Aes128, Ctr32BE};
///
/// // NIST SP 800-38A F.5.1 (CTR-AES128.Encrypt), its first two blocks: the
/// // counter's low 32 bits go from 0xfcfdfeff to 0xfcfdff00.
/// let key = [
///     0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6, 0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c,
/// ];
/// let iv: [u8; 16] = core::array::from_fn(|i| 0xf0 + i as u8);
/// let mut buf = [
///     0x6b, 0xc1, 0xbe, 0xe2, 0x2e, 0x40, 0x9f, 0x96, 0xe9, 0x3d, 0x7e, 0x11, 0x73, 0x93, 0x17, 0x2a,
///     0xae, 0x2d, 0x8a, 0x57, 0x1e, 0x03, 0xac, 0x9c, 0x9e, 0xb7, 0x6f, 0xac, 0x45, 0xaf, 0x8e, 0x51,
/// ];
/// let mut c = Ctr32BE::<Aes128>::new(&key.into(), &iv.into());
/// c.apply_keystream(&mut buf);
/// assert_eq!(buf[..4], [0x87, 0x4d, 0x61, 0x91]);
/// assert_eq!(buf[16..20], [0x98, 0x06, 0xf6, 0x6b]);
///
/// // Seeking back and applying the keystream again restores the plaintext.
/// c.seek(0u32);
/// c.apply_keystream(&mut buf);
/// assert_eq!(buf[..4], [0x6b, 0xc1, 0xbe, 0xe2]);
/// ```
pub type Ctr32BE<C> = StreamCipherCoreWrapper<CtrCore<C>>;

mod sealed {
    use crate::Block;
    use cipher::inout::InOutBuf;

    pub trait Sealed {
        /// `Engine::ctr32` of the key's backend.
        fn ctr32_inout(&self, nonce: &[u8; 12], ctr: u32, blocks: InOutBuf<'_, '_, Block>);
    }
}

/// The aes-ct ciphers [`CtrCore`] runs on (sealed: `Aes128`, `Aes192`,
/// `Aes256`, their encrypt-only halves, and references to them).
pub trait CtrCipher: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16> + sealed::Sealed {}

macro_rules! ctr_cipher {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {
            #[inline]
            fn ctr32_inout(&self, nonce: &[u8; 12], ctr: u32, blocks: InOutBuf<'_, '_, Block>) {
                self.keys.ctr32(nonce, ctr, blocks)
            }
        }
        impl CtrCipher for $t {}
    )*};
}
ctr_cipher!(Aes128, Aes192, Aes256, Aes128Enc, Aes192Enc, Aes256Enc);

/// A borrowed cipher, as `ctr::Ctr32BE<&C>` (one expanded key, many
/// messages).
impl<C: CtrCipher> sealed::Sealed for &C {
    #[inline]
    fn ctr32_inout(&self, nonce: &[u8; 12], ctr: u32, blocks: InOutBuf<'_, '_, Block>) {
        (**self).ctr32_inout(nonce, ctr, blocks)
    }
}
impl<C: CtrCipher> CtrCipher for &C {}

/// The block-level CTR state (cipher, nonce, counter); use it through
/// [`Ctr32BE`]. The nonce and counter are wiped on drop, the cipher wipes
/// itself.
pub struct CtrCore<C: CtrCipher> {
    cipher: C,
    /// The first 12 bytes of the IV.
    nonce: [u8; 12],
    /// The IV's counter word (big-endian bytes 12..16).
    base: u32,
    /// Block position: blocks of keystream used so far (mod 2^32).
    pos: u32,
}

impl<C: CtrCipher> CtrCore<C> {
    /// The counter word of the next block.
    #[inline(always)]
    fn ctr(&self) -> u32 {
        self.base.wrapping_add(self.pos)
    }
}

impl<C: CtrCipher + Clone> Clone for CtrCore<C> {
    fn clone(&self) -> Self {
        Self {
            cipher: self.cipher.clone(),
            nonce: self.nonce,
            base: self.base,
            pos: self.pos,
        }
    }
}

impl<C: CtrCipher> Drop for CtrCore<C> {
    fn drop(&mut self) {
        use zeroize::Zeroize;
        self.nonce.zeroize();
        self.base.zeroize();
        self.pos.zeroize();
    }
}

impl<C: CtrCipher + zeroize::ZeroizeOnDrop> zeroize::ZeroizeOnDrop for CtrCore<C> {}

impl<C: CtrCipher> BlockSizeUser for CtrCore<C> {
    type BlockSize = U16;
}

impl<C: CtrCipher> InnerUser for CtrCore<C> {
    type Inner = C;
}

impl<C: CtrCipher> IvSizeUser for CtrCore<C> {
    type IvSize = U16;
}

impl<C: CtrCipher> InnerIvInit for CtrCore<C> {
    #[inline]
    fn inner_iv_init(cipher: C, iv: &Iv<Self>) -> Self {
        let mut nonce = [0u8; 12];
        nonce.copy_from_slice(&iv[..12]);
        let mut b = [0u8; 4];
        b.copy_from_slice(&iv[12..]);
        Self {
            cipher,
            nonce,
            base: u32::from_be_bytes(b),
            pos: 0,
        }
    }
}

impl<C: CtrCipher> IvState for CtrCore<C> {
    /// The counter block of the next keystream block (as `ctr`).
    #[inline]
    fn iv_state(&self) -> Iv<Self> {
        counter_block(&self.nonce, self.ctr())
    }
}

impl<C: CtrCipher> SetIvState for CtrCore<C> {
    /// A new IV: block position 0 of its keystream (as `ctr`).
    #[inline]
    fn set_iv(&mut self, iv: &Iv<Self>) {
        self.nonce.copy_from_slice(&iv[..12]);
        let mut b = [0u8; 4];
        b.copy_from_slice(&iv[12..]);
        self.base = u32::from_be_bytes(b);
        self.pos = 0;
    }
}

impl<C: CtrCipher + AlgorithmName> AlgorithmName for CtrCore<C> {
    fn write_alg_name(f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Ctr32BE<")?;
        C::write_alg_name(f)?;
        f.write_str(">")
    }
}

impl<C: CtrCipher + AlgorithmName> fmt::Debug for CtrCore<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Ctr32BE<")?;
        C::write_alg_name(f)?;
        f.write_str("> { ... }")
    }
}

impl<C: CtrCipher> StreamCipherSeekCore for CtrCore<C> {
    type Counter = u32;

    #[inline]
    fn get_block_pos(&self) -> u32 {
        self.pos
    }

    #[inline]
    fn set_block_pos(&mut self, pos: u32) {
        self.pos = pos;
    }
}

impl<C: CtrCipher> StreamCipherCore for CtrCore<C> {
    #[inline]
    fn remaining_blocks(&self) -> Option<usize> {
        (u32::MAX - self.pos).try_into().ok()
    }

    /// The generic path (partial blocks, `write_keystream`, seek):
    /// keystream blocks from the cipher's backend, as `ctr` does it.
    #[inline]
    fn process_with_backend(&mut self, f: impl StreamCipherClosure<BlockSize = U16>) {
        struct Closure<'a, SC> {
            nonce: &'a [u8; 12],
            base: u32,
            pos: &'a mut u32,
            f: SC,
        }
        impl<SC: StreamCipherClosure<BlockSize = U16>> BlockSizeUser for Closure<'_, SC> {
            type BlockSize = U16;
        }
        impl<SC: StreamCipherClosure<BlockSize = U16>> BlockCipherEncClosure for Closure<'_, SC> {
            #[inline(always)]
            fn call<B: BlockCipherEncBackend<BlockSize = U16>>(self, backend: &B) {
                let Self {
                    nonce,
                    base,
                    pos,
                    f,
                } = self;
                f.call(&mut KsBackend {
                    nonce,
                    base,
                    pos,
                    backend,
                });
            }
        }
        let Self {
            cipher,
            nonce,
            base,
            pos,
        } = self;
        cipher.encrypt_with_backend(Closure {
            nonce,
            base: *base,
            pos,
            f,
        });
    }

    /// The whole blocks of every `apply_keystream`: the backend's fused
    /// CTR loop.
    #[inline]
    fn apply_keystream_blocks_inout(&mut self, blocks: InOutBuf<'_, '_, Block>) {
        let n = blocks.len();
        if n == 0 {
            return;
        }
        self.cipher.ctr32_inout(&self.nonce, self.ctr(), blocks);
        // The position wraps mod 2^32 as in `ctr` (the wrapper refuses
        // to run past the end unless the caller used the unchecked API).
        self.pos = self.pos.wrapping_add(n as u32);
    }

    #[inline]
    fn apply_keystream_blocks(&mut self, blocks: &mut [Block]) {
        self.apply_keystream_blocks_inout(blocks.into())
    }

    #[inline]
    fn apply_keystream_block_inout(&mut self, block: InOut<'_, '_, Block>) {
        self.apply_keystream_blocks_inout(block.into_buf_of_one())
    }
}

/// `InOut` of one block as a one-block `InOutBuf`.
trait IntoBufOfOne<'i, 'o> {
    fn into_buf_of_one(self) -> InOutBuf<'i, 'o, Block>;
}

impl<'i, 'o> IntoBufOfOne<'i, 'o> for InOut<'i, 'o, Block> {
    #[inline(always)]
    fn into_buf_of_one(self) -> InOutBuf<'i, 'o, Block> {
        let (i, o) = self.into_raw();
        // SAFETY: `i`/`o` come from one valid `InOut` of one block with
        // these lifetimes, so they form a valid in/out buffer of length 1.
        unsafe { InOutBuf::from_raw(i, o, 1) }
    }
}

/// `nonce || BE32(ctr)`.
#[inline(always)]
pub(crate) fn counter_block(nonce: &[u8; 12], ctr: u32) -> Block {
    let mut b = Block::default();
    b[..12].copy_from_slice(nonce);
    b[12..].copy_from_slice(&ctr.to_be_bytes());
    b
}

/// Fill `ks` with the counter blocks for `ctr, ctr + 1, ...`: a template
/// block, its last word replaced per block.
#[inline(always)]
pub(crate) fn fill_counters(ks: &mut [Block], nonce: &[u8; 12], ctr: u32) {
    let mut t = [0u8; 16];
    t[..12].copy_from_slice(nonce);
    let t = u128::from_ne_bytes(t);
    // The counter word's bytes (big-endian) at bytes 12..16 of the block.
    let (shift, mask) = if cfg!(target_endian = "little") {
        (96, !(u128::from(u32::MAX) << 96))
    } else {
        (0, !u128::from(u32::MAX))
    };
    for (i, b) in ks.iter_mut().enumerate() {
        let c = ctr.wrapping_add(i as u32).to_be();
        let v = (t & mask) | (u128::from(c) << shift);
        *b = v.to_ne_bytes().into();
    }
}

/// XOR `ks` (as long as `blocks`) into `blocks`, a whole block at a time.
#[inline(always)]
pub(crate) fn xor_blocks(blocks: InOutBuf<'_, '_, Block>, ks: &[Block]) {
    debug_assert_eq!(blocks.len(), ks.len());
    for (mut b, k) in blocks.into_iter().zip(ks) {
        let x = u128::from_ne_bytes((*b.get_in()).into()) ^ u128::from_ne_bytes((*k).into());
        *b.get_out() = x.to_ne_bytes().into();
    }
}

/// Overwrite blocks with zeros, 16 bytes per volatile store.
#[inline(always)]
pub(crate) fn wipe(ks: &mut [Block]) {
    // SAFETY: the slice's bytes are valid for writes; a block is plain
    // bytes, so zeros are a valid block.
    unsafe { ct_dispatch::wipe::wipe_raw(ks.as_mut_ptr().cast(), core::mem::size_of_val(ks)) }
}

/// The default `Engine::ctr32` on any cipher-trait backend: counter
/// blocks in batches of `ParBlocksSize`, encrypted, XORed; the keystream
/// buffer is wiped before returning.
#[inline(always)]
pub(crate) fn ctr32_with_backend<B: BlockCipherEncBackend<BlockSize = U16>>(
    be: &B,
    nonce: &[u8; 12],
    ctr: u32,
    blocks: InOutBuf<'_, '_, Block>,
) {
    let n = B::ParBlocksSize::USIZE;
    let mut ks = ParBlocks::<B>::default();
    let mut c = ctr;
    // Blocks of `ks` that held keystream (public: from the length).
    let used = blocks.len().min(n);
    let (chunks, tail) = blocks.into_chunks::<B::ParBlocksSize>();
    for chunk in chunks {
        fill_counters(&mut ks, nonce, c);
        c = c.wrapping_add(n as u32);
        be.encrypt_par_blocks((&mut ks).into());
        let mut chunk = chunk;
        chunk.xor_in2out(&ks);
    }
    let t = tail.len();
    if t > 0 {
        fill_counters(&mut ks[..t], nonce, c);
        be.encrypt_tail_blocks((&mut ks[..t]).into());
        xor_blocks(tail, &ks[..t]);
    }
    wipe(&mut ks[..used]);
}

/// The closure behind the default `Engine::ctr32`.
pub(crate) struct Ctr32Closure<'a, 'i, 'o> {
    nonce: &'a [u8; 12],
    ctr: u32,
    blocks: InOutBuf<'i, 'o, Block>,
}

impl<'a, 'i, 'o> Ctr32Closure<'a, 'i, 'o> {
    #[inline(always)]
    pub(crate) fn new(nonce: &'a [u8; 12], ctr: u32, blocks: InOutBuf<'i, 'o, Block>) -> Self {
        Self { nonce, ctr, blocks }
    }
}

impl BlockSizeUser for Ctr32Closure<'_, '_, '_> {
    type BlockSize = U16;
}

impl BlockCipherEncClosure for Ctr32Closure<'_, '_, '_> {
    #[inline(always)]
    fn call<B: BlockCipherEncBackend<BlockSize = U16>>(self, backend: &B) {
        ctr32_with_backend(backend, self.nonce, self.ctr, self.blocks)
    }
}

/// Keystream generator over a cipher backend (the generic path).
struct KsBackend<'a, B> {
    nonce: &'a [u8; 12],
    base: u32,
    pos: &'a mut u32,
    backend: &'a B,
}

impl<B: BlockCipherEncBackend<BlockSize = U16>> BlockSizeUser for KsBackend<'_, B> {
    type BlockSize = U16;
}

impl<B: BlockCipherEncBackend<BlockSize = U16>> ParBlocksSizeUser for KsBackend<'_, B> {
    type ParBlocksSize = B::ParBlocksSize;
}

impl<B: BlockCipherEncBackend<BlockSize = U16>> StreamCipherBackend for KsBackend<'_, B> {
    #[inline(always)]
    fn gen_ks_block(&mut self, block: &mut Block) {
        *block = counter_block(self.nonce, self.base.wrapping_add(*self.pos));
        *self.pos = self.pos.wrapping_add(1);
        self.backend.encrypt_block(block.into());
    }

    #[inline(always)]
    fn gen_par_ks_blocks(&mut self, blocks: &mut ParBlocks<Self>) {
        fill_counters(blocks, self.nonce, self.base.wrapping_add(*self.pos));
        *self.pos = self.pos.wrapping_add(B::ParBlocksSize::U32);
        self.backend.encrypt_par_blocks(blocks.into());
    }

    #[inline(always)]
    fn gen_tail_blocks(&mut self, blocks: &mut [Block]) {
        fill_counters(blocks, self.nonce, self.base.wrapping_add(*self.pos));
        *self.pos = self.pos.wrapping_add(blocks.len() as u32);
        self.backend.encrypt_tail_blocks(blocks.into());
    }
}
