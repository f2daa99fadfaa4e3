//! Safe wrappers for the few NEON (ASIMD) intrinsics the aarch64 backends
//! use. NEON is part of the aarch64 baseline (every `aarch64-*` target
//! enables it), so these calls are sound everywhere this module compiles;
//! Rust still asks for `unsafe` because the intrinsics carry
//! `#[target_feature(enable = "neon")]`.

#![allow(dead_code)]

pub(crate) use core::arch::aarch64::{uint8x16_t, uint8x16x4_t};

macro_rules! wrap {
    ($($name:ident ( $($a:ident : $t:ty),* ) -> $r:ty;)*) => {$(
        #[inline(always)]
        pub(crate) fn $name($($a: $t),*) -> $r {
            // SAFETY: NEON is always present on aarch64 (see module docs);
            // the intrinsic has no other precondition.
            unsafe { core::arch::aarch64::$name($($a),*) }
        }
    )*};
}

wrap! {
    vdupq_n_u8(v: u8) -> uint8x16_t;
    veorq_u8(a: uint8x16_t, b: uint8x16_t) -> uint8x16_t;
    vandq_u8(a: uint8x16_t, b: uint8x16_t) -> uint8x16_t;
    vorrq_u8(a: uint8x16_t, b: uint8x16_t) -> uint8x16_t;
    vbicq_u8(a: uint8x16_t, b: uint8x16_t) -> uint8x16_t;
    vmvnq_u8(a: uint8x16_t) -> uint8x16_t;
    vqtbl1q_u8(t: uint8x16_t, i: uint8x16_t) -> uint8x16_t;
    vqtbl4q_u8(t: uint8x16x4_t, i: uint8x16_t) -> uint8x16_t;
    vqtbx4q_u8(a: uint8x16_t, t: uint8x16x4_t, i: uint8x16_t) -> uint8x16_t;
    vtstq_u8(a: uint8x16_t, b: uint8x16_t) -> uint8x16_t;
    vsubq_u8(a: uint8x16_t, b: uint8x16_t) -> uint8x16_t;
    vaddq_u8(a: uint8x16_t, b: uint8x16_t) -> uint8x16_t;
}

/// Load 16 bytes.
#[inline(always)]
pub(crate) fn load(b: &[u8; 16]) -> uint8x16_t {
    // SAFETY: 16 readable bytes; `ld1` has no alignment requirement.
    unsafe { core::arch::aarch64::vld1q_u8(b.as_ptr()) }
}

/// Store 16 bytes.
#[inline(always)]
pub(crate) fn store(b: &mut [u8; 16], v: uint8x16_t) {
    // SAFETY: 16 writable bytes; `st1` has no alignment requirement.
    unsafe { core::arch::aarch64::vst1q_u8(b.as_mut_ptr(), v) }
}

/// `vshrq_n_u8::<N>` (logical shift right of every byte).
#[inline(always)]
pub(crate) fn vshrq_n_u8<const N: i32>(a: uint8x16_t) -> uint8x16_t {
    // SAFETY: NEON is always present on aarch64; `N` is checked at compile
    // time by the intrinsic.
    unsafe { core::arch::aarch64::vshrq_n_u8::<N>(a) }
}

/// `vshlq_n_u8::<N>` (shift left of every byte).
#[inline(always)]
pub(crate) fn vshlq_n_u8<const N: i32>(a: uint8x16_t) -> uint8x16_t {
    // SAFETY: as for `vshrq_n_u8`.
    unsafe { core::arch::aarch64::vshlq_n_u8::<N>(a) }
}

/// `vextq_u8::<N>(a, a)`: byte `i` of the result is byte `i + N mod 16`.
#[inline(always)]
pub(crate) fn vrot<const N: i32>(a: uint8x16_t) -> uint8x16_t {
    // SAFETY: as for `vshrq_n_u8`.
    unsafe { core::arch::aarch64::vextq_u8::<N>(a, a) }
}

/// `rev32` on 16-bit elements: swap the two halves of every 32-bit word.
#[inline(always)]
pub(crate) fn rot16_in_words(a: uint8x16_t) -> uint8x16_t {
    // SAFETY: NEON is always present on aarch64.
    unsafe {
        use core::arch::aarch64::*;
        vreinterpretq_u8_u16(vrev32q_u16(vreinterpretq_u16_u8(a)))
    }
}

/// Overwrite `v` with zeros in a way the compiler keeps.
#[inline(always)]
pub(crate) fn wipe(v: &mut uint8x16_t) {
    ct_dispatch::wipe::wipe(v);
}
