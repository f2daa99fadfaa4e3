//! The vpaes/bsaes hybrid: one policy, shared by every ISA.
//!
//! Two constant-time software techniques have opposite cost profiles:
//!
//! * **vpaes** (M. Hamburg, "Accelerating AES with Vector Permute
//!   Instructions", CHES 2009) works on one block (or two interleaved, "2x")
//!   in byte-sliced form with `pshufb`/`tbl` table lookups in registers. Its
//!   cost per block is the same for 1 block as for 1000.
//! * **bsaes** (E. Käsper, P. Schwabe, CHES 2009) processes a batch of
//!   blocks (8 per 128-bit register set) in bitsliced form. Per block it is
//!   several times cheaper than vpaes, but one block costs a whole batch,
//!   and its key form must be made from the long-term key first.
//!
//! The hybrid keeps the key in the vpaes form (small, cheap to make) and
//! picks per call (the split follows BoringSSL's ARM AES, which pairs
//! vpaes for short inputs with bsaes for long ones):
//!
//! 1. Single blocks ([`BlockCipherEncBackend::encrypt_block`], which is also
//!    how RustCrypto `ctr` 0.10 feeds the leftover blocks of a message) go
//!    through vpaes.
//! 2. Full batches ([`BlockCipherEncBackend::encrypt_par_blocks`]) go
//!    through bsaes. The bsaes key is converted from the vpaes form lazily,
//!    on the first batch of one `encrypt_with_backend` call, kept for the
//!    rest of that call, and wiped when the call ends (the backend value is
//!    dropped). RustCrypto `ctr` runs a whole message body inside one call,
//!    so a long buffer converts once, and calls that only touch single
//!    blocks never convert. The first [`Policy::vpaes_batches`] batches of a
//!    call still go through vpaes-2x when converting would not pay for
//!    itself yet. Where one pass of the batch code is smaller than the
//!    batch (x86 at the SSSE3 and AVX2 widths), generic callers see the
//!    pass as the parallel size ([`PassBackend`]), so `ctr`'s leftover
//!    single blocks are fewer than a pass, not fewer than a batch.
//! 3. Tails ([`BlockCipherEncBackend::encrypt_tail_blocks`], fewer than a
//!    batch; used by `encrypt_blocks` and by our GCM): a remainder of at
//!    least [`Policy::tail_bsaes_converted`] blocks (when the bsaes key
//!    exists already in this call) or [`Policy::tail_bsaes_fresh`] blocks
//!    (when it would have to be made) runs as one zero-padded bsaes batch;
//!    smaller remainders run through vpaes-2x.
//!
//! Every decision depends only on lengths and call patterns, never on key
//! or data. The policy numbers are per architecture (the ratio of vpaes to
//! bsaes cost differs), chosen by benchmark (`benches/benches/aes_x86.rs`);
//! the measurements behind each set are documented next to it below.
//!
//! Backends plug in by implementing [`SingleBlock`] (vpaes side) and
//! [`Bitsliced`] (bsaes side); [`Hybrid`], [`VpaesOnly`] and [`BsaesOnly`]
//! then implement [`Engine`] for the dispatch table.

#![allow(dead_code, reason = "not every architecture uses every item")]

use crate::{Block, backend::Engine, schedule::Schedule};
use cipher::{
    Array, BlockCipherDecBackend, BlockCipherDecClosure, BlockCipherEncBackend,
    BlockCipherEncClosure, BlockSizeUser, ParBlocks, ParBlocksSizeUser,
    array::ArraySize,
    consts::{U2, U8, U16},
    inout::{InOut, InOutBuf},
    typenum::Unsigned,
};
use core::{
    cell::{Cell, UnsafeCell},
    marker::PhantomData,
    mem::MaybeUninit,
};
use zeroize::ZeroizeOnDrop;

/// Two blocks processed together by [`SingleBlock::encrypt2`].
pub(crate) type Pair = Array<Block, U2>;

/// The single-block side (vpaes): the long-term key form.
pub(crate) trait SingleBlock {
    /// Proof that this CPU can run it.
    type Token: Copy;
    /// Encryption and decryption key forms; must wipe themselves on drop.
    type Key<const NR: usize>: Clone + ZeroizeOnDrop;
    /// CPU check (cached).
    fn token() -> Option<Self::Token>;
    /// Build the key form from the standard schedule.
    fn expand<const NR: usize>(t: Self::Token, ks: &Schedule<NR>) -> Self::Key<NR>;
    /// Encrypt one block.
    fn encrypt1<const NR: usize>(k: &Self::Key<NR>, b: InOut<'_, '_, Block>);
    /// Encrypt two blocks, interleaved ("2x") where the backend has a
    /// two-block form; by default one after the other.
    #[inline]
    fn encrypt2<const NR: usize>(k: &Self::Key<NR>, b: InOut<'_, '_, Pair>) {
        for blk in b.into_buf() {
            Self::encrypt1(k, blk);
        }
    }
    /// Decrypt one block.
    fn decrypt1<const NR: usize>(k: &Self::Key<NR>, b: InOut<'_, '_, Block>);
    /// Decrypt two blocks, interleaved ("2x") where the backend has a
    /// two-block form; by default one after the other.
    #[inline]
    fn decrypt2<const NR: usize>(k: &Self::Key<NR>, b: InOut<'_, '_, Pair>) {
        for blk in b.into_buf() {
            Self::decrypt1(k, blk);
        }
    }
}

/// The batch side (bsaes), whose key form is made from the
/// [`SingleBlock`] form (hybrid) or from the standard schedule (bsaes
/// alone, and tests).
pub(crate) trait Bitsliced<V: SingleBlock> {
    /// Proof that this CPU can run it.
    type Token: Copy;
    /// Blocks per batch (8 for 128-bit registers).
    type Batch: ArraySize;
    /// Bitsliced round keys (encryption or decryption form); must wipe
    /// themselves on drop.
    type Key<const NR: usize>: Clone + ZeroizeOnDrop;
    /// CPU check (cached).
    fn token() -> Option<Self::Token>;
    /// Convert the single-block key form for encryption (constant time).
    fn enc_key_from_single<const NR: usize>(t: Self::Token, k: &V::Key<NR>) -> Self::Key<NR>;
    /// Convert the single-block key form for decryption (constant time).
    fn dec_key_from_single<const NR: usize>(t: Self::Token, k: &V::Key<NR>) -> Self::Key<NR>;
    /// Convert for encryption into `slot` (default: a move of
    /// [`Bitsliced::enc_key_from_single`]'s result; armv7 writes in place).
    #[inline(always)]
    fn enc_key_from_single_into<const NR: usize>(
        t: Self::Token,
        k: &V::Key<NR>,
        slot: &mut MaybeUninit<Self::Key<NR>>,
    ) {
        slot.write(Self::enc_key_from_single(t, k));
    }
    /// Convert for decryption into `slot` (a move of
    /// [`Bitsliced::dec_key_from_single`]'s result).
    #[inline(always)]
    fn dec_key_from_single_into<const NR: usize>(
        t: Self::Token,
        k: &V::Key<NR>,
        slot: &mut MaybeUninit<Self::Key<NR>>,
    ) {
        slot.write(Self::dec_key_from_single(t, k));
    }
    /// Encryption key from the standard schedule.
    fn enc_key_from_schedule<const NR: usize>(t: Self::Token, ks: &Schedule<NR>) -> Self::Key<NR>;
    /// Decryption key from the standard schedule.
    fn dec_key_from_schedule<const NR: usize>(t: Self::Token, ks: &Schedule<NR>) -> Self::Key<NR>;
    /// Encrypt one batch.
    fn encrypt_batch<const NR: usize>(
        k: &Self::Key<NR>,
        b: InOut<'_, '_, Array<Block, Self::Batch>>,
    );
    /// Decrypt one batch.
    fn decrypt_batch<const NR: usize>(
        k: &Self::Key<NR>,
        b: InOut<'_, '_, Array<Block, Self::Batch>>,
    );
    /// Encrypt 1 to `Batch - 1` blocks, zero-padded to the smallest width
    /// the backend runs natively (default: one padded batch).
    #[inline(always)]
    fn encrypt_short<const NR: usize>(k: &Self::Key<NR>, b: InOutBuf<'_, '_, Block>) {
        padded_batch::<Self::Batch>(b, |x| Self::encrypt_batch(k, x))
    }
    /// The policy numbers for this batch implementation: one of the
    /// constants below (`X86_POLICY`, `ARMV7_POLICY`, `AARCH64_POLICY`,
    /// each on its own architecture), so every threshold lives in this file.
    fn policy(t: Self::Token) -> Policy;
    /// Blocks per pass of the batch code at this token's width (default:
    /// the batch). Where a pass is smaller than the batch (x86 at the
    /// 128- and 256-bit widths), generic callers get [`PassBackend`].
    #[inline(always)]
    fn pass_blocks(_: Self::Token) -> usize {
        Self::Batch::USIZE
    }
    /// CTR over whole batches (`blocks.len()` a multiple of `Batch`):
    /// XOR `blocks` with the encryptions of `nonce || BE32(ctr + i)`
    /// (mod 2^32). Default: counter blocks built per batch,
    /// [`Bitsliced::encrypt_batch`], whole-block XOR, keystream buffer
    /// wiped. armv7 overrides it with an assembly loop.
    #[inline(always)]
    fn ctr32_batches<const NR: usize>(
        k: &Self::Key<NR>,
        nonce: &[u8; 12],
        ctr: u32,
        blocks: InOutBuf<'_, '_, Block>,
    ) {
        let mut ks: Array<Block, Self::Batch> = Default::default();
        let mut c = ctr;
        let (chunks, rest) = blocks.into_chunks::<Self::Batch>();
        debug_assert!(rest.is_empty());
        for chunk in chunks {
            crate::ctr::fill_counters(&mut ks, nonce, c);
            c = c.wrapping_add(Self::Batch::U32);
            Self::encrypt_batch(k, (&mut ks).into());
            let mut chunk = chunk;
            chunk.xor_in2out(&ks);
        }
        crate::ctr::wipe(&mut ks);
    }
    /// Zero the dead-stack area of `scrub_stack` (default: volatile
    /// 16-byte stores; armv7 overrides it with NEON stores, 32 bytes each,
    /// since the scrub runs once per converting call and the default's
    /// cost shows in a 16 KiB message there: aes-ct/PERFORMANCE-arm.md).
    #[inline(always)]
    fn scrub(_: Self::Token, a: &mut MaybeUninit<ScrubArea>) {
        scrub_generic(a)
    }
    /// Decrypt 1 to `Batch - 1` blocks (see [`Bitsliced::encrypt_short`]).
    #[inline(always)]
    fn decrypt_short<const NR: usize>(k: &Self::Key<NR>, b: InOutBuf<'_, '_, Block>) {
        padded_batch::<Self::Batch>(b, |x| Self::decrypt_batch(k, x))
    }
}

/// The tunable numbers of the policy.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Policy {
    /// Leading full batches of a call that still go through vpaes-2x
    /// instead of converting the key (0: convert on the first batch).
    pub(crate) vpaes_batches: usize,
    /// Smallest tail (blocks) run as one padded bsaes batch when the bsaes
    /// key already exists in this call (`>= Batch`: never).
    pub(crate) tail_bsaes_converted: usize,
    /// Smallest tail run as one padded bsaes batch when the key would have
    /// to be converted for it (`>= Batch`: never).
    pub(crate) tail_bsaes_fresh: usize,
    /// Where a pass is smaller than the batch ([`PassBackend`]): leading
    /// passes of a call that still go through vpaes-2x instead of
    /// converting the key.
    pub(crate) vpaes_passes: usize,
}

/// x86/x86_64, by bsaes register width (SSSE3, AVX2, AVX-512; the batch
/// is always 32 blocks, tails run in passes of the width). Each threshold
/// is the smallest tail for which a padded bsaes pass is faster than vpaes
/// through `encrypt_blocks`: with the bitsliced key already converted in
/// this call (a pass against that many vpaes blocks), and with the
/// conversion still to pay (conversion, pass and stack scrub against
/// vpaes). A first full batch always goes bitsliced: converting and
/// running it beats 32 vpaes blocks at every width. Generic callers see
/// passes of 8 (SSSE3) or 16 (AVX2) blocks ([`PassBackend`]); a call's
/// leading passes go through vpaes-2x while converting would cost more
/// than bsaes saves over them (so a long call loses at most about one
/// conversion, as in renting before buying): four passes of 8 blocks,
/// none of 16, where bsaes per block is twice as cheap. The measurements
/// behind the numbers, with the commands, are in aes-ct/PERFORMANCE-x86.md.
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub(crate) const X86_POLICY: [Policy; 3] = [
    Policy {
        vpaes_batches: 0,
        tail_bsaes_converted: 7,
        tail_bsaes_fresh: 32,
        vpaes_passes: 4,
    },
    Policy {
        vpaes_batches: 0,
        tail_bsaes_converted: 8,
        tail_bsaes_fresh: 26,
        vpaes_passes: 0,
    },
    Policy {
        vpaes_batches: 0,
        tail_bsaes_converted: 9,
        tail_bsaes_fresh: 20,
        vpaes_passes: 0,
    },
];

/// armv7 (NEON `vtbl` vpaes + NEON bsaes assembly, 8-block batches): the
/// same rule as `X86_POLICY`, one width: a padded batch pays from 6
/// tail blocks once the key is converted in the call; converting for a
/// tail alone never pays (8 = the batch: never). The instruction counts
/// behind both numbers are in aes-ct/PERFORMANCE-arm.md (`cargo xtask
/// armcount aes`).
#[cfg(target_arch = "arm")]
pub(crate) const ARMV7_POLICY: Policy = Policy {
    vpaes_batches: 0,
    tail_bsaes_converted: 6,
    tail_bsaes_fresh: 8,
    vpaes_passes: 0,
};

/// aarch64 without the crypto extensions (4-register `tbl` vpaes + NEON
/// bsaes, 8-block batches): a zero-padded batch never beats vpaes for a
/// tail (8 = the batch: never). Full batches still go to bsaes although
/// vpaes needs fewer instructions per byte: its 4-register `tbl`s are
/// multi-cycle on Cortex-A53/A72, bsaes is single-cycle ALU work. Counts
/// in aes-ct/PERFORMANCE-arm.md.
#[cfg(target_arch = "aarch64")]
pub(crate) const AARCH64_POLICY: Policy = Policy {
    vpaes_batches: 0,
    tail_bsaes_converted: 8,
    tail_bsaes_fresh: 8,
    vpaes_passes: 0,
};

/// The hybrid engine: key in [`SingleBlock`] form, batches through
/// [`Bitsliced`] with a per-call converted key.
#[derive(Debug)]
pub(crate) struct Hybrid<V, B>(PhantomData<(V, B)>);

/// Key of [`Hybrid`]: the single-block form plus the (zero-sized) proof
/// that the batch side may run.
pub(crate) struct HybridKey<V: SingleBlock, B: Bitsliced<V>, const NR: usize> {
    single: V::Key<NR>,
    bt: B::Token,
}

impl<V: SingleBlock, B: Bitsliced<V>, const NR: usize> Clone for HybridKey<V, B, NR> {
    fn clone(&self) -> Self {
        Self {
            single: self.single.clone(),
            bt: self.bt,
        }
    }
}

impl<V: SingleBlock, B: Bitsliced<V>, const NR: usize> HybridKey<V, B, NR> {
    /// The single-block key form (tests compare conversions).
    pub(crate) fn single(&self) -> &V::Key<NR> {
        &self.single
    }
}

/// The [`Engine`] items [`Hybrid`] and [`BsaesOnly`] share: both keep
/// the key in [`HybridKey`] form and need both sides' CPU checks.
macro_rules! hybrid_key_items {
    () => {
        type Token = (V::Token, B::Token);
        type Key<const NR: usize> = HybridKey<V, B, NR>;

        fn token() -> Option<Self::Token> {
            Some((V::token()?, B::token()?))
        }

        fn expand<const NR: usize>(t: Self::Token, ks: &Schedule<NR>) -> Self::Key<NR> {
            HybridKey {
                single: V::expand(t.0, ks),
                bt: t.1,
            }
        }
    };
}

/// `$f` inside [`in_call`] on the backend generic callers get: a
/// [`PassBackend`] where one pass of the batch code is smaller than the
/// batch, else the per-call backend itself. (A macro: `$f` is a generic
/// closure call, one instance per type. The choice is made outside
/// `in_call`, so each of its out-of-line instances holds one instance of
/// `$f`, inlined; with the choice inside, the compiler keeps the three
/// apart as a further call on every message.)
macro_rules! with_pass_backend {
    ($key:ident, |$b:ident| $f:expr) => {{
        let batch = B::Batch::USIZE;
        match B::pass_blocks($key.bt) {
            8 if batch > 8 => in_call($key, |be| {
                let $b = &PassBackend::<V, B, NR, U8>::new(be);
                $f
            }),
            16 if batch > 16 => in_call($key, |be| {
                let $b = &PassBackend::<V, B, NR, U16>::new(be);
                $f
            }),
            _ => in_call($key, |$b| $f),
        }
    }};
}

impl<V: SingleBlock, B: Bitsliced<V>> Engine for Hybrid<V, B> {
    hybrid_key_items!();

    /// A lone block: straight to vpaes (no per-call backend, nothing to
    /// convert or scrub).
    #[inline]
    fn encrypt1<const NR: usize>(key: &Self::Key<NR>, block: InOut<'_, '_, Block>) {
        V::encrypt1(&key.single, block)
    }

    #[inline]
    fn decrypt1<const NR: usize>(key: &Self::Key<NR>, block: InOut<'_, '_, Block>) {
        V::decrypt1(&key.single, block)
    }

    fn encrypt<const NR: usize>(
        key: &Self::Key<NR>,
        f: impl BlockCipherEncClosure<BlockSize = U16>,
    ) {
        with_pass_backend!(key, |b| f.call(b))
    }

    /// The policy with a fused batch loop: the first
    /// [`Policy::vpaes_batches`] batches through vpaes, the remaining full
    /// batches through [`Bitsliced::ctr32_batches`] with the key converted
    /// once, the tail (fewer than a batch) by the tail policy of
    /// `encrypt_tail_blocks`.
    fn ctr32<const NR: usize>(
        key: &Self::Key<NR>,
        nonce: &[u8; 12],
        ctr: u32,
        blocks: InOutBuf<'_, '_, Block>,
    ) {
        let batch = B::Batch::USIZE;
        let n = blocks.len();
        if n < batch && n < B::policy(key.bt).tail_bsaes_fresh {
            // No full batch and a tail below its bsaes threshold: vpaes
            // alone, on the single-block backend, whose keystream buffer
            // (cleared per call) is 8 blocks, not a batch; nothing is
            // converted, so no per-call backend and no scrub (for a
            // one-block message those cost as much as the rest of the call).
            let single = SingleBackend::<V, NR>(&key.single);
            crate::ctr::ctr32_with_backend(&single, nonce, ctr, blocks);
            return;
        }
        in_call(key, |be| {
            // The batch as a constant here, not captured: the closure is
            // compiled out of line, where a captured value would make this
            // a division instruction.
            let batch = B::Batch::USIZE;
            let full = blocks.len() / batch;
            let lead = B::policy(key.bt).vpaes_batches.min(full) * batch;
            let (head, rest) = blocks.split_at(lead);
            if lead > 0 {
                crate::ctr::ctr32_with_backend(be, nonce, ctr, head);
            }
            let ctr = ctr.wrapping_add(lead as u32);
            let (mid, tail) = rest.split_at(full * batch - lead);
            let m = mid.len();
            if m == 0 {
                // No full batch: the tail by the policy for a key not yet
                // converted in this call.
                if !tail.is_empty() {
                    crate::ctr::ctr32_with_backend(be, nonce, ctr, tail);
                }
                return;
            }
            // Full batches: the backend's bsaes key, converted in place
            // (wiped when `be` is dropped).
            let k = be.enc_key();
            B::ctr32_batches(k, nonce, ctr, mid);
            let t = tail.len();
            if t > 0 {
                let c = ctr.wrapping_add(m as u32);
                if t >= B::policy(key.bt).tail_bsaes_converted {
                    let mut ks: Array<Block, B::Batch> = Default::default();
                    crate::ctr::fill_counters(&mut ks[..t], nonce, c);
                    B::encrypt_short(k, (&mut ks[..t]).into());
                    crate::ctr::xor_blocks(tail, &ks[..t]);
                    crate::ctr::wipe(&mut ks[..t]);
                } else {
                    let single = SingleBackend::<V, NR>(&key.single);
                    crate::ctr::ctr32_with_backend(&single, nonce, c, tail);
                }
            }
        })
    }

    fn decrypt<const NR: usize>(
        key: &Self::Key<NR>,
        f: impl BlockCipherDecClosure<BlockSize = U16>,
    ) {
        with_pass_backend!(key, |b| f.call(b))
    }
}

/// Run `f` with a fresh per-call backend in a frame of its own, below the
/// caller's, so that everything it leaves behind is in reach of
/// [`scrub_stack`], and scrub when the call converted a bsaes key.
#[inline(always)]
fn in_call<V: SingleBlock, B: Bitsliced<V>, const NR: usize>(
    key: &HybridKey<V, B, NR>,
    f: impl FnOnce(&HybridBackend<'_, V, B, NR>),
) {
    #[inline(never)]
    fn call<V: SingleBlock, B: Bitsliced<V>, const NR: usize>(
        key: &HybridKey<V, B, NR>,
        f: impl FnOnce(&HybridBackend<'_, V, B, NR>),
    ) -> bool {
        let be = HybridBackend::<V, B, NR> {
            key,
            conv: Converted::new(),
            lead_runs: Cell::new(0),
        };
        f(&be);
        be.conv.get().is_some()
    }
    if call(key, f) {
        scrub_stack::<V, B>(key.bt);
    }
}

/// A bsaes key for one call, converted in place (no move of the key form,
/// which would leave a copy and cost a `memcpy`) at most once, on first
/// use; wiped (dropped) with the value if it was made.
struct Converted<V: SingleBlock, B: Bitsliced<V>, const NR: usize> {
    slot: UnsafeCell<MaybeUninit<B::Key<NR>>>,
    made: Cell<bool>,
}

impl<V: SingleBlock, B: Bitsliced<V>, const NR: usize> Converted<V, B, NR> {
    #[inline(always)]
    fn new() -> Self {
        Self {
            slot: UnsafeCell::new(MaybeUninit::uninit()),
            made: Cell::new(false),
        }
    }

    /// The key, if made.
    #[inline(always)]
    fn get(&self) -> Option<&B::Key<NR>> {
        if self.made.get() {
            // SAFETY: `made` is set only after the slot was initialised,
            // and the slot is never written again once it is.
            Some(unsafe { (*self.slot.get()).assume_init_ref() })
        } else {
            None
        }
    }

    /// The key, made by `make` (which must initialise the slot) if it was
    /// not made yet.
    #[inline(always)]
    fn get_or_make(&self, make: impl FnOnce(&mut MaybeUninit<B::Key<NR>>)) -> &B::Key<NR> {
        if !self.made.get() {
            self.make(make);
        }
        // SAFETY: made (just above, or earlier); never written again.
        unsafe { (*self.slot.get()).assume_init_ref() }
    }

    /// Out of line: the batch loops only test the flag.
    #[cold]
    #[inline(never)]
    fn make(&self, make: impl FnOnce(&mut MaybeUninit<B::Key<NR>>)) {
        debug_assert!(!self.made.get());
        // SAFETY: not made yet, so no reference to the slot's contents
        // exists (`get` hands them out only once `made` is set); the value
        // is not `Sync` (`Cell`), and `make` is given the slot only, not
        // this value, so this is the one access while it runs.
        make(unsafe { &mut *self.slot.get() });
        self.made.set(true);
    }
}

impl<V: SingleBlock, B: Bitsliced<V>, const NR: usize> Drop for Converted<V, B, NR> {
    fn drop(&mut self) {
        if self.made.get() {
            // SAFETY: `made` is set only after the slot was initialised;
            // dropped once (here).
            unsafe { self.slot.get_mut().assume_init_drop() };
        }
    }
}

/// The cipher-trait backend of one `encrypt_with_backend` /
/// `decrypt_with_backend` / CTR call. One value serves one direction only,
/// so one converted key slot suffices.
struct HybridBackend<'a, V: SingleBlock, B: Bitsliced<V>, const NR: usize> {
    key: &'a HybridKey<V, B, NR>,
    /// The bsaes key for this call, made in place on first use; `B::Key`
    /// wipes itself when this backend is dropped.
    conv: Converted<V, B, NR>,
    /// Parallel runs (batches, or passes under [`PassBackend`], which
    /// wraps this value alone) sent through vpaes-2x so far in this call
    /// because the key was not worth converting yet ([`Self::vpaes_lead`]).
    lead_runs: Cell<usize>,
}

impl<V: SingleBlock, B: Bitsliced<V>, const NR: usize> HybridBackend<'_, V, B, NR> {
    /// Whether the next parallel run goes through vpaes-2x under a policy
    /// that sends the first `lead` runs of a call there (counting it if
    /// so): only while the key is not converted. `lead` is a policy
    /// constant, 0 on most targets, so the test folds away.
    #[inline(always)]
    fn vpaes_lead(&self, lead: usize) -> bool {
        if lead == 0 || self.conv.get().is_some() {
            return false;
        }
        let seen = self.lead_runs.get();
        let take = seen < lead;
        if take {
            self.lead_runs.set(seen + 1);
        }
        take
    }
}

/// The per-call backend as generic callers see it where one pass of the
/// batch code holds fewer blocks than the batch (x86 at the 128- and
/// 256-bit widths: 8 and 16 blocks against 32): `P`, the pass, is the
/// parallel size. RustCrypto `ctr` hands a backend whole parallel runs
/// and every block after the last one singly (it never calls
/// `encrypt_tail_blocks`), so with the 32-block batch as the parallel size
/// a message of up to 31 blocks, and the last up to 31 blocks of any
/// message, would go through vpaes one block at a time; with the pass they
/// go in pairs or passes.
/// The first [`Policy::vpaes_passes`] passes of a call run through
/// vpaes-2x, the rest through bsaes with the key converted once, as in
/// [`HybridBackend`]; tails go to it.
struct PassBackend<'b, 'a, V: SingleBlock, B: Bitsliced<V>, const NR: usize, P> {
    be: &'b HybridBackend<'a, V, B, NR>,
    _pass: PhantomData<P>,
}

impl<'b, 'a, V: SingleBlock, B: Bitsliced<V>, const NR: usize, P: ArraySize>
    PassBackend<'b, 'a, V, B, NR, P>
{
    #[inline(always)]
    fn new(be: &'b HybridBackend<'a, V, B, NR>) -> Self {
        // A pass is a tail of the batch code (`encrypt_short`).
        assert!(P::USIZE < B::Batch::USIZE);
        Self {
            be,
            _pass: PhantomData,
        }
    }
}

impl<V: SingleBlock, B: Bitsliced<V>, const NR: usize, P: ArraySize> BlockSizeUser
    for PassBackend<'_, '_, V, B, NR, P>
{
    type BlockSize = U16;
}

impl<V: SingleBlock, B: Bitsliced<V>, const NR: usize, P: ArraySize> ParBlocksSizeUser
    for PassBackend<'_, '_, V, B, NR, P>
{
    type ParBlocksSize = P;
}

/// Both cipher backends: 16-byte blocks, `B`'s batch as the parallel size.
macro_rules! backend_sizes {
    ($($t:ident),+) => { $(
        impl<V: SingleBlock, B: Bitsliced<V>, const NR: usize> BlockSizeUser for $t<'_, V, B, NR> {
            type BlockSize = U16;
        }
        impl<V: SingleBlock, B: Bitsliced<V>, const NR: usize> ParBlocksSizeUser
            for $t<'_, V, B, NR>
        {
            type ParBlocksSize = B::Batch;
        }
    )+ };
}
backend_sizes!(HybridBackend, BatchBackend);

/// Run `blocks` through the single-block side, two at a time.
#[inline(always)]
fn single_run<const NR: usize>(
    blocks: InOutBuf<'_, '_, Block>,
    mut two: impl FnMut(InOut<'_, '_, Pair>),
    mut one: impl FnMut(InOut<'_, '_, Block>),
) {
    let (pairs, rest) = blocks.into_chunks::<U2>();
    for p in pairs {
        two(p);
    }
    for b in rest {
        one(b);
    }
}

/// Overwrite 16-byte blocks with zeros, 16 bytes per volatile store (the
/// `Zeroize` impl for byte arrays stores byte by byte, which costs more
/// than a bsaes batch for the per-call buffers and converted keys).
#[inline(always)]
pub(crate) fn wipe_blocks(x: &mut [[u8; 16]]) {
    ct_dispatch::wipe::wipe_slice(x);
}

/// Bytes of dead stack [`scrub_stack`] overwrites: the deepest stack a
/// converting call writes (below the caller of an AES-GCM seal/open and of
/// `encrypt_blocks`, optimised builds, on every ISA with a bsaes; the
/// AVX-512 bsaes key form alone is most of it), with a margin. Scrubbing
/// is not free (stores in proportion to the depth, on every converting
/// call), so the depth is the measured one, not a round large number;
/// `ct-check`'s dead-stack tests fail when it is too small. Unoptimised
/// builds use far deeper frames and are not covered.
pub(crate) const STACK_SCRUB: usize = 16 * 1024;

/// Overwrite the dead stack below the caller after a call that converted a
/// bsaes key: the converted key is wiped in its slot, but building it
/// there (by value, where the backend has no in-place conversion) and
/// spilling its planes inside the batch kernels leave copies in the frames
/// the call used, below this one (found by
/// `ct-check/tests/zeroize.rs::hybrid_converted_key_not_left_on_stack`).
/// Runs once per converting call (at least one full batch); its cost
/// ([`STACK_SCRUB`] bytes of stores) is why that size is kept tight.
#[inline(never)]
fn scrub_stack<V: SingleBlock, B: Bitsliced<V>>(t: B::Token) {
    let mut buf = MaybeUninit::<ScrubArea>::uninit();
    B::scrub(t, &mut buf);
    core::hint::black_box(&mut buf);
}

/// The dead-stack area [`scrub_stack`] zeroes, 64-byte aligned (for
/// whole-vector stores of any width).
#[repr(C, align(64))]
pub(crate) struct ScrubArea(pub(crate) [u8; STACK_SCRUB]);

/// Zero `a` with volatile 16-byte stores, eight per loop iteration (the
/// default [`Bitsliced::scrub`]; one store per iteration spent most of
/// the scrub on loop control).
#[inline(always)]
pub(crate) fn scrub_generic(a: &mut MaybeUninit<ScrubArea>) {
    // SAFETY: `u128` is plain data, 16 bytes <= the area's alignment.
    unsafe { scrub_with(a, 0u128) }
}

/// Zero `a` with volatile stores of `zero` (an all-zero value of a type
/// whose size divides 128 and whose alignment is at most 64), eight per
/// loop iteration. Inlined into a `target_feature` function, a vector type
/// gives whole-vector stores.
///
/// # Safety
/// `T` must be plain data with the size and alignment above.
#[inline(always)]
pub(crate) unsafe fn scrub_with<T: Copy>(a: &mut MaybeUninit<ScrubArea>, zero: T) {
    let per = 8 * size_of::<T>();
    let p = a.as_mut_ptr().cast::<T>();
    for i in 0..STACK_SCRUB / per {
        for j in 0..8 {
            // SAFETY: `p.add(8 * i + j)` stays inside `a` (STACK_SCRUB
            // bytes, a multiple of `per`, 64-byte aligned, owned by the
            // caller's frame); `T` is aligned to at most 64 (caller).
            unsafe { core::ptr::write_volatile(p.add(8 * i + j), zero) };
        }
    }
}

/// Run a tail of fewer than a batch as one zero-padded batch.
#[inline(always)]
fn padded_batch<N: ArraySize>(
    mut blocks: InOutBuf<'_, '_, Block>,
    batch: impl FnOnce(InOut<'_, '_, Array<Block, N>>),
) {
    let n = blocks.len();
    let mut tmp: Array<Block, N> = Default::default();
    tmp[..n].copy_from_slice(blocks.get_in());
    batch((&mut tmp).into());
    blocks.get_out().copy_from_slice(&tmp[..n]);
    // SAFETY: `tmp` is owned plain bytes; zeros are a valid value.
    unsafe { ct_dispatch::wipe::wipe_bytes(&mut tmp) };
}

macro_rules! hybrid_dir {
    ($tr:ident, $one:ident, $par:ident, $tail:ident, $s1:ident, $s2:ident, $batch:ident, $short:ident, $conv:ident, $into:ident) => {
        impl<V: SingleBlock, B: Bitsliced<V>, const NR: usize> HybridBackend<'_, V, B, NR> {
            /// The bsaes key of this call's direction, converted on first
            /// use.
            #[inline(always)]
            fn $conv(&self) -> &B::Key<NR> {
                self.conv
                    .get_or_make(|s| B::$into(self.key.bt, &self.key.single, s))
            }
        }

        impl<V: SingleBlock, B: Bitsliced<V>, const NR: usize> $tr for HybridBackend<'_, V, B, NR> {
            #[inline(always)]
            fn $one(&self, block: InOut<'_, '_, Block>) {
                V::$s1(&self.key.single, block)
            }

            #[inline(always)]
            fn $par(&self, blocks: InOut<'_, '_, ParBlocks<Self>>) {
                if self.vpaes_lead(B::policy(self.key.bt).vpaes_batches) {
                    let k = &self.key.single;
                    single_run::<NR>(blocks.into_buf(), |p| V::$s2(k, p), |b| V::$s1(k, b));
                    return;
                }
                B::$batch(self.$conv(), blocks);
            }

            #[inline(always)]
            fn $tail(&self, blocks: InOutBuf<'_, '_, Block>) {
                let n = blocks.len();
                debug_assert!(n < B::Batch::USIZE);
                let min = match self.conv.get() {
                    Some(_) => B::policy(self.key.bt).tail_bsaes_converted,
                    None => B::policy(self.key.bt).tail_bsaes_fresh,
                };
                if n == 0 {
                } else if n >= min {
                    B::$short(self.$conv(), blocks);
                } else {
                    let k = &self.key.single;
                    single_run::<NR>(blocks, |p| V::$s2(k, p), |b| V::$s1(k, b));
                }
            }
        }

        impl<V: SingleBlock, B: Bitsliced<V>, const NR: usize, P: ArraySize> $tr
            for PassBackend<'_, '_, V, B, NR, P>
        {
            #[inline(always)]
            fn $one(&self, block: InOut<'_, '_, Block>) {
                V::$s1(&self.be.key.single, block)
            }

            #[inline(always)]
            fn $par(&self, blocks: InOut<'_, '_, ParBlocks<Self>>) {
                if self.be.vpaes_lead(B::policy(self.be.key.bt).vpaes_passes) {
                    let k = &self.be.key.single;
                    single_run::<NR>(blocks.into_buf(), |p| V::$s2(k, p), |b| V::$s1(k, b));
                } else {
                    B::$short(self.be.$conv(), blocks.into_buf());
                }
            }

            #[inline(always)]
            fn $tail(&self, blocks: InOutBuf<'_, '_, Block>) {
                // Fewer than a pass, so fewer than a batch.
                self.be.$tail(blocks)
            }
        }
    };
}
hybrid_dir!(
    BlockCipherEncBackend,
    encrypt_block,
    encrypt_par_blocks,
    encrypt_tail_blocks,
    encrypt1,
    encrypt2,
    encrypt_batch,
    encrypt_short,
    enc_key,
    enc_key_from_single_into
);
hybrid_dir!(
    BlockCipherDecBackend,
    decrypt_block,
    decrypt_par_blocks,
    decrypt_tail_blocks,
    decrypt1,
    decrypt2,
    decrypt_batch,
    decrypt_short,
    dec_key,
    dec_key_from_single_into
);

/// The single-block side alone (forceable as `vpaes`, for comparison):
/// batches of 8 run as four 2x calls.
#[derive(Debug)]
pub(crate) struct VpaesOnly<V>(PhantomData<V>);

impl<V: SingleBlock> Engine for VpaesOnly<V> {
    type Token = V::Token;
    type Key<const NR: usize> = V::Key<NR>;

    fn token() -> Option<V::Token> {
        V::token()
    }

    fn expand<const NR: usize>(t: V::Token, ks: &Schedule<NR>) -> V::Key<NR> {
        V::expand(t, ks)
    }

    #[inline]
    fn encrypt1<const NR: usize>(key: &V::Key<NR>, block: InOut<'_, '_, Block>) {
        V::encrypt1(key, block)
    }

    #[inline]
    fn decrypt1<const NR: usize>(key: &V::Key<NR>, block: InOut<'_, '_, Block>) {
        V::decrypt1(key, block)
    }

    fn encrypt<const NR: usize>(key: &V::Key<NR>, f: impl BlockCipherEncClosure<BlockSize = U16>) {
        f.call(&SingleBackend::<V, NR>(key))
    }

    fn decrypt<const NR: usize>(key: &V::Key<NR>, f: impl BlockCipherDecClosure<BlockSize = U16>) {
        f.call(&SingleBackend::<V, NR>(key))
    }
}

struct SingleBackend<'a, V: SingleBlock, const NR: usize>(&'a V::Key<NR>);

impl<V: SingleBlock, const NR: usize> BlockSizeUser for SingleBackend<'_, V, NR> {
    type BlockSize = U16;
}

impl<V: SingleBlock, const NR: usize> ParBlocksSizeUser for SingleBackend<'_, V, NR> {
    type ParBlocksSize = U8;
}

macro_rules! single_dir {
    ($tr:ident, $one:ident, $par:ident, $tail:ident, $s1:ident, $s2:ident) => {
        impl<V: SingleBlock, const NR: usize> $tr for SingleBackend<'_, V, NR> {
            #[inline(always)]
            fn $one(&self, block: InOut<'_, '_, Block>) {
                V::$s1(self.0, block)
            }
            #[inline(always)]
            fn $par(&self, blocks: InOut<'_, '_, ParBlocks<Self>>) {
                self.$tail(blocks.into_buf());
            }
            #[inline(always)]
            fn $tail(&self, blocks: InOutBuf<'_, '_, Block>) {
                single_run::<NR>(blocks, |p| V::$s2(self.0, p), |b| V::$s1(self.0, b));
            }
        }
    };
}
single_dir!(
    BlockCipherEncBackend,
    encrypt_block,
    encrypt_par_blocks,
    encrypt_tail_blocks,
    encrypt1,
    encrypt2
);
single_dir!(
    BlockCipherDecBackend,
    decrypt_block,
    decrypt_par_blocks,
    decrypt_tail_blocks,
    decrypt1,
    decrypt2
);

/// The batch side alone (forceable as `bsaes`, for comparison): every
/// block through bsaes, single blocks as padded batches. The key is kept
/// in the [`SingleBlock`] form (the hybrid's, a few hundred bytes, so the
/// forced-only bitsliced backend does not set the size of every key) and
/// converted to the bitsliced form of the call's direction once per
/// `encrypt_with_backend` / `decrypt_with_backend` / CTR call, on the
/// stack, wiped with the dead stack below it when the call ends
/// ([`with_converted`]).
#[derive(Debug)]
pub(crate) struct BsaesOnly<V, B>(PhantomData<(V, B)>);

impl<V: SingleBlock, B: Bitsliced<V>> Engine for BsaesOnly<V, B> {
    hybrid_key_items!();

    fn encrypt<const NR: usize>(
        key: &Self::Key<NR>,
        f: impl BlockCipherEncClosure<BlockSize = U16>,
    ) {
        with_converted(key, false, |k| {
            f.call(&BatchBackend::<V, B, NR>(k, PhantomData))
        })
    }

    fn decrypt<const NR: usize>(
        key: &Self::Key<NR>,
        f: impl BlockCipherDecClosure<BlockSize = U16>,
    ) {
        with_converted(key, true, |k| {
            f.call(&BatchBackend::<V, B, NR>(k, PhantomData))
        })
    }

    /// Full batches through [`Bitsliced::ctr32_batches`], the tail as one
    /// padded batch, with one conversion.
    fn ctr32<const NR: usize>(
        key: &Self::Key<NR>,
        nonce: &[u8; 12],
        ctr: u32,
        blocks: InOutBuf<'_, '_, Block>,
    ) {
        with_converted(key, false, |k| {
            let full = blocks.len() / B::Batch::USIZE * B::Batch::USIZE;
            let (mid, tail) = blocks.split_at(full);
            if full > 0 {
                B::ctr32_batches(k, nonce, ctr, mid);
            }
            if !tail.is_empty() {
                let be = BatchBackend::<V, B, NR>(k, PhantomData);
                crate::ctr::ctr32_with_backend(&be, nonce, ctr.wrapping_add(full as u32), tail);
            }
        })
    }
}

/// Run `f` with the bitsliced key of one direction (`dec`: decryption; a
/// choice of the caller's code path, not of data), converted from the
/// single-block form in place in a frame of its own, then wiped (dropped),
/// and the dead stack that frame and `f` used scrubbed ([`scrub_stack`]),
/// as after a converting hybrid call.
#[inline(always)]
fn with_converted<V: SingleBlock, B: Bitsliced<V>, const NR: usize>(
    key: &HybridKey<V, B, NR>,
    dec: bool,
    f: impl FnOnce(&B::Key<NR>),
) {
    #[inline(never)]
    fn call<V: SingleBlock, B: Bitsliced<V>, const NR: usize>(
        key: &HybridKey<V, B, NR>,
        dec: bool,
        f: impl FnOnce(&B::Key<NR>),
    ) {
        let conv = Converted::<V, B, NR>::new();
        f(conv.get_or_make(|s| {
            if dec {
                B::dec_key_from_single_into(key.bt, &key.single, s)
            } else {
                B::enc_key_from_single_into(key.bt, &key.single, s)
            }
        }));
    }
    call(key, dec, f);
    scrub_stack::<V, B>(key.bt);
}

struct BatchBackend<'a, V: SingleBlock, B: Bitsliced<V>, const NR: usize>(
    &'a B::Key<NR>,
    PhantomData<V>,
);

macro_rules! batch_dir {
    ($tr:ident, $one:ident, $par:ident, $tail:ident, $batch:ident, $short:ident) => {
        impl<V: SingleBlock, B: Bitsliced<V>, const NR: usize> $tr for BatchBackend<'_, V, B, NR> {
            #[inline(always)]
            fn $one(&self, block: InOut<'_, '_, Block>) {
                let (i, o) = block.into_raw();
                // SAFETY: `i`/`o` come from one valid `InOut` of one block,
                // so they form a valid in/out buffer of length 1.
                let buf = unsafe { InOutBuf::from_raw(i, o, 1) };
                B::$short(self.0, buf);
            }
            #[inline(always)]
            fn $par(&self, blocks: InOut<'_, '_, ParBlocks<Self>>) {
                B::$batch(self.0, blocks)
            }
            #[inline(always)]
            fn $tail(&self, blocks: InOutBuf<'_, '_, Block>) {
                if !blocks.is_empty() {
                    B::$short(self.0, blocks);
                }
            }
        }
    };
}
batch_dir!(
    BlockCipherEncBackend,
    encrypt_block,
    encrypt_par_blocks,
    encrypt_tail_blocks,
    encrypt_batch,
    encrypt_short
);
batch_dir!(
    BlockCipherDecBackend,
    decrypt_block,
    decrypt_par_blocks,
    decrypt_tail_blocks,
    decrypt_batch,
    decrypt_short
);

/// Number of entries [`Hybrid::policy_edges`] returns.
pub(crate) const POLICY_EDGES: usize = 24;

impl<V: SingleBlock, B: Bitsliced<V>> Hybrid<V, B> {
    /// Block counts at which a call's plan changes on this CPU, each with
    /// its neighbours: the two tail thresholds of [`Bitsliced::policy`],
    /// the batch size, a batch plus each threshold, two batches, the
    /// vpaes-batch limit, the pass and the vpaes-pass limit. `None` where
    /// the hybrid cannot run. Tests and the constant-time checker take
    /// their block counts from here so that they follow the policy when
    /// it is re-tuned.
    pub(crate) fn policy_edges() -> Option<[usize; POLICY_EDGES]> {
        let (_, bt) = <Self as Engine>::token()?;
        let p = B::policy(bt);
        let b = B::Batch::USIZE;
        let pass = B::pass_blocks(bt);
        let at = [
            p.tail_bsaes_converted.min(b),
            p.tail_bsaes_fresh.min(b),
            b,
            b + p.tail_bsaes_converted.min(b),
            2 * b,
            (p.vpaes_batches + 1) * b,
            pass,
            (p.vpaes_passes + 1) * pass,
        ];
        let mut out = [0; POLICY_EDGES];
        for (i, x) in at.iter().enumerate() {
            out[3 * i] = x.saturating_sub(1).max(1);
            out[3 * i + 1] = *x;
            out[3 * i + 2] = x + 1;
        }
        Some(out)
    }
}
