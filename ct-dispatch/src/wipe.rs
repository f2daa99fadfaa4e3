//! The one wipe of secrets in this workspace: zero stores the optimiser
//! may not remove (the value is dead, so plain stores would be dropped),
//! followed by a compiler fence so later code is not moved above them.
//!
//! Where Rust has inline assembly (x86, ARM, RISC-V), the stores are the
//! compiler's own `write_bytes` (vector stores as wide as the target has,
//! or `memset`), followed by an empty `asm!` statement that takes the
//! pointer and may read memory: the stores are not dead, so they stay
//! (BoringSSL's `OPENSSL_cleanse`, a memset then an empty asm statement
//! with a memory clobber). Volatile stores would do as well, but a
//! volatile store of a 16-byte array goes through a stack temporary, a
//! store and a reload per 16 bytes, which showed in key setup and in
//! every message's temporaries. Elsewhere: 16-byte, then 8-byte, then
//! single-byte volatile stores.
//!
//! [`wipe`] and [`wipe_slice`] take values of [`Zeroable`] types (all
//! zero bytes is a valid value, so the wiped value may still be used);
//! [`wipe_bytes`] overwrites the memory of any value that has already
//! been dropped (a key enum's inactive variants and padding).

use core::sync::atomic::{Ordering, compiler_fence};

/// Types for which every byte being zero is a valid value.
///
/// # Safety
/// Implement only for types with no invalid bit patterns at all-zero
/// bytes (no references, `NonZero*`, enums without a zero discriminant).
pub unsafe trait Zeroable: Copy {}

macro_rules! zeroable {
    ($($t:ty),* $(,)?) => { $(
        // SAFETY: an integer or SIMD vector: every bit pattern is valid.
        unsafe impl Zeroable for $t {}
    )* };
}

zeroable!(
    u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize
);

#[cfg(target_arch = "x86_64")]
zeroable!(
    core::arch::x86_64::__m128i,
    core::arch::x86_64::__m256i,
    core::arch::x86_64::__m512i,
);
#[cfg(target_arch = "x86")]
zeroable!(
    core::arch::x86::__m128i,
    core::arch::x86::__m256i,
    core::arch::x86::__m512i,
);
#[cfg(target_arch = "aarch64")]
zeroable!(
    core::arch::aarch64::uint8x16_t,
    core::arch::aarch64::uint32x4_t,
    core::arch::aarch64::uint64x2_t,
);

// SAFETY: an array of zeroable elements, no padding between them.
unsafe impl<T: Zeroable, const N: usize> Zeroable for [T; N] {}
// SAFETY: each field is zeroable; padding bytes may hold anything.
unsafe impl<A: Zeroable, B: Zeroable> Zeroable for (A, B) {}
// SAFETY: each field is zeroable; padding bytes may hold anything.
unsafe impl<A: Zeroable, B: Zeroable, C: Zeroable> Zeroable for (A, B, C) {}

/// Overwrite `x` with zero bytes (kept stores, then a fence).
#[inline(always)]
pub fn wipe<T: Zeroable>(x: &mut T) {
    // SAFETY: `x` is valid for writes of its size, and all-zero bytes are
    // a valid `T` (`Zeroable`).
    unsafe { wipe_bytes(x as *mut T) }
}

/// Overwrite every element of `xs` with zero bytes (kept stores, then a
/// fence).
#[inline(always)]
pub fn wipe_slice<T: Zeroable>(xs: &mut [T]) {
    // SAFETY: the slice's memory is valid for writes of its size, and
    // all-zero bytes are a valid `T` (`Zeroable`).
    unsafe { wipe_raw(xs.as_mut_ptr().cast(), core::mem::size_of_val(xs)) }
}

/// Overwrite the `size_of::<T>()` bytes at `p` with zeros (kept stores, then
/// a fence), whatever `T` is.
///
/// # Safety
/// `p` is valid for writes of `size_of::<T>()` bytes, and the memory is
/// not read as a `T` afterwards unless all-zero bytes are a valid `T`
/// (typically: the value was dropped in place just before).
#[inline(always)]
pub unsafe fn wipe_bytes<T>(p: *mut T) {
    // SAFETY: the caller's contract.
    unsafe { wipe_raw(p.cast(), core::mem::size_of::<T>()) }
}

/// Overwrite `len` bytes at `p` with zeros (stores the optimiser keeps,
/// see the module's comment), then a compiler fence.
///
/// # Safety
/// `p` is valid for writes of `len` bytes, and the caller accepts that
/// whatever lived there now holds zero bytes.
#[inline(always)]
pub unsafe fn wipe_raw(p: *mut u8, len: usize) {
    // SAFETY: the caller's contract.
    unsafe { stores::zero(p, len) };
    compiler_fence(Ordering::SeqCst);
}

/// `#[cfg(pred)]` on the first item, `#[cfg(not(pred))]` on the second:
/// an if/else over targets with the predicate written once.
macro_rules! cfg_either {
    (($($pred:tt)*) $yes:item $no:item) => {
        #[cfg($($pred)*)]
        $yes
        #[cfg(not($($pred)*))]
        $no
    };
}

// The targets with inline assembly: plain stores kept by an empty asm
// statement; the others: volatile stores.
cfg_either! {
(any(
    target_arch = "x86",
    target_arch = "x86_64",
    target_arch = "arm",
    target_arch = "aarch64",
    target_arch = "riscv32",
    target_arch = "riscv64"
))
/// Plain stores kept by an empty asm statement that may read them.
mod stores {
    /// # Safety
    /// `p` is valid for writes of `len` bytes.
    #[inline(always)]
    pub(super) unsafe fn zero(p: *mut u8, len: usize) {
        // SAFETY: the caller's contract; the asm statement is empty (it
        // only names `p`, in a comment), so it reads and writes nothing,
        // but the compiler must assume it reads the bytes at `p`.
        unsafe {
            core::ptr::write_bytes(p, 0, len);
            core::arch::asm!("/* {0} */", in(reg) p, options(nostack, preserves_flags, readonly));
        }
    }
}

/// Volatile stores: 16 bytes wide, then 8, then single bytes (the loop
/// bounds are the public length); `[u8; N]` has alignment 1.
mod stores {
    /// # Safety
    /// `p` is valid for writes of `len` bytes.
    #[inline(always)]
    pub(super) unsafe fn zero(p: *mut u8, len: usize) {
        let mut i = 0;
        // SAFETY: every store is inside the `len` bytes at `p` (i + 16 <=
        // len, i + 8 <= len, i < len); the arrays have alignment 1.
        unsafe {
            while len - i >= 16 {
                core::ptr::write_volatile(p.add(i).cast::<[u8; 16]>(), [0; 16]);
                i += 16;
            }
            if len - i >= 8 {
                core::ptr::write_volatile(p.add(i).cast::<[u8; 8]>(), [0; 8]);
                i += 8;
            }
            while i < len {
                core::ptr::write_volatile(p.add(i), 0u8);
                i += 1;
            }
        }
    }
}
}

/// Run `f` in a frame of its own, then zero `N` bytes of the dead stack
/// below the caller: the frames `f` used.
///
/// For key setup. A key form is built in one frame and returned by value
/// through every layer above it (`Option`, a key enum's variant, the
/// `Result` of a constructor), and each layer's temporary keeps a full copy
/// in a frame that is dead once the constructor returns; no drop runs on
/// those. Moves are the language's, so the copies are removed where they
/// end: the public constructor runs its body through this, with `N` the
/// depth its body reaches (each crate's constant, checked by `ct-check`'s
/// dead-stack test, which fails when it is too small). What is returned is
/// the caller's value: it lives in the caller's frame and is wiped by its
/// own drop.
///
/// Cost: `N` bytes of stores, in the cache the setup just used.
///
/// The value is built into a slot of the caller's frame and read out of
/// it into the return place, and the slot is then wiped: the constructor's
/// own frame keeps no copy either.
#[inline(always)]
pub fn scrubbed<R, const N: usize>(f: impl FnOnce() -> R) -> R {
    scrubbed_with::<R, N>(|slot| slot.write(f()), |_| {})
}

/// [`scrubbed`] for a value built where it lies: `init` writes it into
/// the slot it is given (`slot.write(..)`, one expression) and returns
/// it, then `fill` writes the key into it in place. A value written there
/// as one expression is built in place, where one returned by value
/// through `Option`, an enum variant and `Result` is copied at each layer
/// (a key form moved out of a constructor is copied by every layer it
/// passes through; built in place it is copied once, into the return
/// place).
#[inline(always)]
pub fn scrubbed_with<R, const N: usize>(
    init: impl FnOnce(&mut core::mem::MaybeUninit<R>) -> &mut R,
    fill: impl FnOnce(&mut R),
) -> R {
    scrubbed_by::<R, N, N>(init, fill, |_| false)
}

/// [`scrubbed_with`] for a constructor whose depth depends on what it
/// built: `S` bytes when `shallow(&value)`, else `N`. A key type with paths
/// of different depths (a fused key form built in one frame, or a cipher
/// and a GHASH key through several layers) then pays the deep scrub only
/// on the deep paths. `shallow` may look at which path was built (public:
/// it follows from the CPU), never at key material.
#[inline(always)]
pub fn scrubbed_by<R, const S: usize, const N: usize>(
    init: impl FnOnce(&mut core::mem::MaybeUninit<R>) -> &mut R,
    fill: impl FnOnce(&mut R),
    shallow: impl FnOnce(&R) -> bool,
) -> R {
    const { assert!(S <= N, "the shallow depth is the smaller one") };
    let mut slot = core::mem::MaybeUninit::<R>::uninit();
    build_into(&mut slot, init, fill);
    // SAFETY: `build_into` initialised the slot.
    if shallow(unsafe { slot.assume_init_ref() }) {
        scrub_stack::<S>();
    } else {
        scrub_stack::<N>();
    }
    // SAFETY: `build_into` initialised the slot; it is read once, and its
    // bytes are then overwritten and never read as an `R` again.
    unsafe {
        let r = slot.assume_init_read();
        wipe_bytes(slot.as_mut_ptr());
        r
    }
}

#[inline(never)]
fn build_into<R>(
    slot: &mut core::mem::MaybeUninit<R>,
    init: impl FnOnce(&mut core::mem::MaybeUninit<R>) -> &mut R,
    fill: impl FnOnce(&mut R),
) {
    fill(init(slot));
}

/// Zero `N` bytes of the stack below the caller's frame (a local array of
/// this function's own frame, which starts where the caller's ends).
///
/// Through [`wipe_raw`]: the platform's `memset` (vector stores; `rep
/// stosb` has a start-up cost that dominates at a few KiB), kept by the
/// asm statement after it.
#[inline(never)]
pub fn scrub_stack<const N: usize>() {
    let mut area = core::mem::MaybeUninit::<[u8; N]>::uninit();
    let p: *mut u8 = area.as_mut_ptr().cast();
    // SAFETY: the array is this frame's own, `N` bytes, writable.
    unsafe { wipe_raw(p, N) };
    compiler_fence(Ordering::SeqCst);
    core::hint::black_box(&mut area);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wipes_every_byte_of_every_length() {
        for len in 0..80 {
            for start in 0..16 {
                let mut buf = [0xa5u8; 112];
                // SAFETY: start + len <= 96 < 112.
                unsafe { wipe_raw(buf.as_mut_ptr().add(start), len) };
                for (i, &b) in buf.iter().enumerate() {
                    let inside = i >= start && i < start + len;
                    assert_eq!(
                        b,
                        if inside { 0 } else { 0xa5 },
                        "len {len} start {start} byte {i}"
                    );
                }
            }
        }
    }

    #[test]
    fn typed_forms() {
        let mut a = [[0x11u8; 16]; 3];
        wipe(&mut a);
        assert_eq!(a, [[0; 16]; 3]);
        let mut s = [0x22u64; 5];
        wipe_slice(&mut s[1..4]);
        assert_eq!(s, [0x22, 0, 0, 0, 0x22]);
        let mut t = (1u32, 2u64, 3u8);
        wipe(&mut t);
        assert_eq!(t, (0, 0, 0));
    }
}
