//! The GHASH framing of a fused message, written once for every ISA: the
//! input framing (8-block groups, then single blocks, then the zero-padded
//! partial block: [`ghash_input`], and [`ghash_by_h1`] for a long nonce's
//! J0), and the end of the message: the whole blocks left after a path's
//! batches (one at a time), the zero-padded partial last block, the
//! lengths block and the tag ([`finish_with`]). Byte-level between block
//! steps; each path implements [`Ops`] (load, store, XOR, byte reversal,
//! one GHASH multiply) on its 128-bit vector type and passes its keystream
//! function, so the x86_64 `aesni-clmul` and the aarch64 `armv8-pmull`
//! loops share it. `armv8-pmull` writes its AAD loop out instead of
//! calling [`ghash_input`]: through the closures its main loop is
//! allocated worse (see there). The VAES paths finish in one vector pass
//! of their own (`x86/vaes_clmul.rs`).
//!
//! Constant time: the loop bound and the partial block size are the public
//! lengths; nothing branches on data.

use crate::Block;
use ct_dispatch::wipe::{Zeroable, wipe};

#[inline(always)]
fn xor(a: [u8; 16], b: [u8; 16]) -> [u8; 16] {
    (u128::from_ne_bytes(a) ^ u128::from_ne_bytes(b)).to_ne_bytes()
}

/// The 128-bit block operations of a fused path's ISA, from which the
/// framing written here makes the path's block functions.
///
/// # Safety
/// `Self` is a 16-byte vector of plain bits (every bit pattern valid), so
/// the loads and stores below are moves of its bytes; every method needs
/// the path's CPU features: it is called only inside the path's
/// target-feature functions, which inline it.
pub(crate) unsafe trait Ops: Copy {
    /// 16 bytes as a vector.
    #[inline(always)]
    unsafe fn ld(p: &[u8; 16]) -> Self {
        const { assert!(size_of::<Self>() == 16) };
        // SAFETY: 16 readable bytes; `Self` is 16 bytes of plain bits.
        unsafe { core::ptr::read_unaligned(p.as_ptr().cast()) }
    }
    /// The vector as 16 bytes.
    #[inline(always)]
    unsafe fn st(self) -> [u8; 16] {
        const { assert!(size_of::<Self>() == 16) };
        // SAFETY: `Self` is 16 bytes of plain bits.
        unsafe { core::mem::transmute_copy(&self) }
    }
    unsafe fn xor(self, b: Self) -> Self;
    /// Byte reversal (a GCM block to POLYVAL order and back).
    unsafe fn bswap(self) -> Self;
    /// `self * h`, reduced (one POLYVAL multiply).
    unsafe fn mul_h(self, h: Self) -> Self;
    unsafe fn zero() -> Self;
}

/// A fused loop's vector copies of the round keys (`rk[..=NR]`) and of
/// H^1..H^8 (`hp`), wiped when dropped: the loops name them as locals, so
/// the compiler may keep them in the frame, and no path ends without the
/// wipe.
pub(crate) struct LoopKey<V: Zeroable> {
    pub(crate) rk: [V; 15],
    pub(crate) hp: [V; 8],
}

impl<V: Ops + Zeroable> LoopKey<V> {
    /// All zero; [`fill`](Self::fill) loads it where it stays (a key
    /// returned by value would leave a copy in the callee's frame).
    ///
    /// # Safety
    /// `V`'s CPU features.
    #[inline(always)]
    pub(crate) unsafe fn zero() -> Self {
        // SAFETY: the caller's contract (the features).
        unsafe {
            LoopKey {
                rk: [V::zero(); 15],
                hp: [V::zero(); 8],
            }
        }
    }

    /// The first `NR + 1` round keys of `rk` and the first 8 powers of
    /// `h`, each loaded by `ld` (the path's own load: a generic one would
    /// be a call of its own in unoptimised builds, leaving a key copy in
    /// its frame).
    #[inline(always)]
    pub(crate) fn fill<const NR: usize>(
        &mut self,
        rk: &[[u8; 16]],
        h: &[[u8; 16]],
        ld: impl Fn(&[u8; 16]) -> V,
    ) {
        for (r, b) in self.rk[..=NR].iter_mut().zip(&rk[..=NR]) {
            *r = ld(b);
        }
        for (p, b) in self.hp.iter_mut().zip(h) {
            *p = ld(b);
        }
    }
}

impl<V: Zeroable> Drop for LoopKey<V> {
    fn drop(&mut self) {
        wipe(&mut self.rk);
        wipe(&mut self.hp);
    }
}

/// Where a fused loop stopped: the input and output pointers, the bytes
/// done (`off`), the text length, the AAD length and the direction
/// (`true`: encrypt), in that order.
///
/// Contract of the functions taking it: the input is readable and the
/// output writable for the text length (they may be equal), and `off` is
/// at most that length.
pub(crate) struct Rest(
    pub(crate) *const u8,
    pub(crate) *mut u8,
    pub(crate) usize,
    pub(crate) usize,
    pub(crate) usize,
    pub(crate) bool,
);

/// The end of a message (whole blocks left, the partial block, lengths and
/// tag; [`finish`]) from the GHASH state `acc` and E_K(J0) `mask` in the
/// path's vectors, `keystream(c)` = E_K(the counter block with counter
/// word `c`) and `h1` = H (POLYVAL form). Returns the full tag.
///
/// # Safety
/// [`Rest`]'s contract, and `V`'s CPU features.
#[inline(always)]
pub(crate) unsafe fn finish_with<V: Ops>(
    rest: Rest,
    acc: V,
    mask: V,
    ctr: u32,
    h1: V,
    keystream: impl Fn(u32) -> V,
) -> Block {
    // SAFETY: the caller's contract (the features; `rest`'s buffers).
    unsafe {
        finish(
            rest,
            acc.st(),
            mask.st(),
            ctr,
            |c, x| V::ld(&x).xor(keystream(c)).st(),
            |a, x| V::ld(&a).xor(V::ld(&x).bswap()).mul_h(h1).st(),
            |a| V::ld(&a).bswap().st(),
        )
    }
}

/// GHASH (GCM bytes) of `data` zero-padded, then `lens`, one block at a
/// time by H^1 (`h1`, POLYVAL form): J0 of a nonce that is not 96 bits.
///
/// # Safety
/// `V`'s CPU features.
#[inline(always)]
pub(crate) unsafe fn ghash_by_h1<V: Ops>(h1: &[u8; 16], data: &[u8], lens: &Block) -> Block {
    // SAFETY: the caller's contract (the features).
    unsafe {
        let h = V::ld(h1);
        let one = |acc: V, b: &[u8; 16]| acc.xor(V::ld(b).bswap()).mul_h(h);
        let acc = ghash_blocks(V::zero(), data, one);
        one(acc, &lens.0).bswap().st().into()
    }
}

/// The GHASH state after `data`: `group(acc, g)` on each 128-byte group,
/// then `one(acc, b)` on each block left and on the zero-padded partial
/// block (that copy is wiped: the data may be secret, as a long nonce is).
/// The lengths are public: the loop bounds depend on nothing else.
#[inline(always)]
pub(crate) fn ghash_input<V: Copy>(
    mut acc: V,
    data: &[u8],
    mut group: impl FnMut(V, &[u8; 128]) -> V,
    mut one: impl FnMut(V, &[u8; 16]) -> V,
) -> V {
    let (groups, rest) = data.as_chunks::<128>();
    for g in groups {
        acc = group(acc, g);
    }
    let (blocks, partial) = rest.as_chunks::<16>();
    for b in blocks {
        acc = one(acc, b);
    }
    if !partial.is_empty() {
        let mut last = ct_dispatch::short::read_block(partial);
        acc = one(acc, &last);
        ct_dispatch::wipe::wipe(&mut last);
    }
    acc
}

/// [`ghash_input`] one block at a time (no powers of H at hand).
#[inline(always)]
fn ghash_blocks<V: Copy>(acc: V, data: &[u8], one: impl Fn(V, &[u8; 16]) -> V) -> V {
    let group = |a: V, g: &[u8; 128]| g.as_chunks::<16>().0.iter().fold(a, &one);
    ghash_input(acc, data, group, &one)
}

/// Finish a message whose first `rest.off` bytes a fused loop has done.
///
/// [`finish_with`] passes the path's block functions (closures over its
/// registers, so the GHASH state stays in the path's own representation
/// and every XOR in the loop runs in vector registers):
/// * `acc`: the GHASH state so far (AAD and the first `off` bytes of
///   ciphertext), in the path's representation;
/// * `crypt(c, x)`: `x` XOR E_K(the counter block with counter word `c`);
/// * `absorb(acc, x)`: the GHASH state after block `x` (GCM bytes);
/// * `digest(acc)`: the GHASH value as GCM bytes;
/// * `mask`: E_K(J0); `ctr`: the counter word of the next block.
///
/// Returns the full 16-byte tag.
///
/// # Safety
/// [`Rest`]'s contract.
#[inline(always)]
unsafe fn finish(
    rest: Rest,
    acc: [u8; 16],
    mask: [u8; 16],
    mut ctr: u32,
    crypt: impl Fn(u32, [u8; 16]) -> [u8; 16],
    absorb: impl Fn([u8; 16], [u8; 16]) -> [u8; 16],
    digest: impl Fn([u8; 16]) -> [u8; 16],
) -> Block {
    let Rest(inp, out, mut off, len, aad_len, encrypt) = rest;
    let (mut acc, mut mask) = (acc, mask);
    // The input and output blocks: plaintext on one side, and secret
    // when the counter is (a long nonce); wiped once at the end.
    let (mut i, mut o) = ([0u8; 16], [0u8; 16]);
    // Whole blocks, one at a time.
    while len - off >= 16 {
        // SAFETY: off + 16 <= len: 16 readable bytes at inp + off, 16
        // writable at out + off; `i` is a separate local.
        unsafe {
            core::ptr::copy_nonoverlapping(inp.add(off), i.as_mut_ptr(), 16);
            o = crypt(ctr, i);
            core::ptr::copy_nonoverlapping(o.as_ptr(), out.add(off), 16);
        }
        acc = absorb(acc, if encrypt { o } else { i });
        ctr = ctr.wrapping_add(1);
        off += 16;
    }
    // The partial last block, zero-padded for GHASH.
    if off < len {
        let n = len - off;
        // SAFETY: `n` < 16 readable bytes at inp + off (the slice ends
        // before `o` is written out below).
        i = ct_dispatch::short::read_block(unsafe { core::slice::from_raw_parts(inp.add(off), n) });
        o = crypt(ctr, i);
        for (k, b) in o.iter_mut().enumerate() {
            *b &= 0u8.wrapping_sub((k < n) as u8);
        }
        // SAFETY: `n` writable bytes at out + off; no other reference to
        // them is alive.
        ct_dispatch::short::write_block(
            unsafe { core::slice::from_raw_parts_mut(out.add(off), n) },
            &o,
        );
        acc = absorb(acc, if encrypt { o } else { i });
    }
    // The lengths block and the tag.
    acc = absorb(acc, crate::lens_block(aad_len, len).0);
    let mut hash = digest(acc);
    let tag = Block::from(xor(hash, mask));
    // Stack copies we made: message blocks, the GHASH state and value,
    // E_K(J0).
    for b in [&mut i, &mut o, &mut acc, &mut hash, &mut mask] {
        ct_dispatch::wipe::wipe(b);
    }
    tag
}
