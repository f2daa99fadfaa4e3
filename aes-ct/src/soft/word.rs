//! Machine words for the bitsliced code.
//!
//! A [`Word`] holds one bit plane of a batch of blocks. The bitsliced layout
//! (see `bitslice.rs`) only needs bitwise operations and shifts/rotations
//! inside each lane of 32 or 64 bits, so a word can be a plain `u32`/`u64`
//! or a SIMD register of several such lanes (the bsaes backends implement
//! `Word` for their vector types and reuse the same round functions).
//! A pair of `u64` words (8 blocks) was measured slower than one word on
//! x86_64: LLVM does not vectorise it and the extra registers spill.

use core::ops::{BitAnd, BitOr, BitXor, Not};

/// `BitXor`, `BitAnd` and `BitOr` for a one-field SIMD wrapper `$X`, one
/// intrinsic each. With `unsafe`, the intrinsics need target features:
/// the wrapper's contract is that its values exist only in code compiled
/// with them (after the CPU check), which makes the calls sound.
#[allow(unused_macros, reason = "not every architecture has a SIMD word")]
macro_rules! bit_ops {
    (unsafe $X:ident: $xor:path, $and:path, $or:path) => {
        $crate::soft::word::bit_ops!(@op unsafe $X, BitXor, bitxor, $xor);
        $crate::soft::word::bit_ops!(@op unsafe $X, BitAnd, bitand, $and);
        $crate::soft::word::bit_ops!(@op unsafe $X, BitOr, bitor, $or);
    };
    ($X:ident: $xor:path, $and:path, $or:path) => {
        $crate::soft::word::bit_ops!(@op safe $X, BitXor, bitxor, $xor);
        $crate::soft::word::bit_ops!(@op safe $X, BitAnd, bitand, $and);
        $crate::soft::word::bit_ops!(@op safe $X, BitOr, bitor, $or);
    };
    (@op safe $X:ident, $tr:ident, $m:ident, $f:path) => {
        impl core::ops::$tr for $X {
            type Output = $X;
            #[inline(always)]
            fn $m(self, o: $X) -> $X {
                $X($f(self.0, o.0))
            }
        }
    };
    (@op unsafe $X:ident, $tr:ident, $m:ident, $f:path) => {
        impl core::ops::$tr for $X {
            type Output = $X;
            #[inline(always)]
            fn $m(self, o: $X) -> $X {
                // SAFETY: see the macro: `$X` values exist only where the
                // intrinsic's target features are enabled.
                $X(unsafe { $f(self.0, o.0) })
            }
        }
    };
}
#[allow(unused_imports, reason = "not every architecture has a SIMD word")]
pub(crate) use bit_ops;

/// One bit plane of a batch of `BLOCKS` AES blocks.
pub(crate) trait Word:
    Copy
    + Default
    + BitXor<Output = Self>
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + Not<Output = Self>
{
    /// Blocks per lane (2 for 32-bit lanes, 4 for 64-bit lanes).
    const LANE_BLOCKS: usize;
    /// A constant, truncated to the lane width and repeated in every lane.
    fn splat_const(m: u64) -> Self;
    fn shl(self, n: u32) -> Self;
    fn shr(self, n: u32) -> Self;
    fn rotr(self, n: u32) -> Self;
    /// Bit planes of `BLOCKS` blocks; `get(j)` returns block `j`.
    fn load(get: impl Fn(usize) -> [u8; 16]) -> [Self; 8];
    /// Inverse of [`Word::load`]: `put(j, block)` receives block `j`.
    fn store(q: &[Self; 8], put: impl FnMut(usize, [u8; 16]));
}

/// Transpose 8x8 bit matrices between the 8 words and the 8 bits of every
/// byte lane: afterwards bit `8p + w` of word `k` is bit `k` of byte `p` of
/// the old word `w`. An involution.
#[inline(always)]
pub(crate) fn ortho<W: Word>(q: &mut [W; 8]) {
    /// Exchange the bits of `q[i]` at `m << s` with those of `q[j]` at `m`
    /// (SWAPMOVE: one mask constant, six operations).
    #[inline(always)]
    fn swap<W: Word>(q: &mut [W; 8], i: usize, j: usize, m: u64, s: u32) {
        let t = (q[i].shr(s) ^ q[j]) & W::splat_const(m);
        q[j] = q[j] ^ t;
        q[i] = q[i] ^ t.shl(s);
    }
    for (i, j) in [(0, 1), (2, 3), (4, 5), (6, 7)] {
        swap(q, i, j, 0x5555_5555_5555_5555, 1);
    }
    for (i, j) in [(0, 2), (1, 3), (4, 6), (5, 7)] {
        swap(q, i, j, 0x3333_3333_3333_3333, 2);
    }
    for (i, j) in [(0, 4), (1, 5), (2, 6), (3, 7)] {
        swap(q, i, j, 0x0f0f_0f0f_0f0f_0f0f, 4);
    }
}

/// The shift, rotation and constant items of [`Word`] for a plain
/// integer (one lane, the whole word).
macro_rules! int_word_ops {
    ($t:ty) => {
        #[inline(always)]
        fn splat_const(m: u64) -> Self {
            m as $t
        }
        #[inline(always)]
        fn shl(self, n: u32) -> Self {
            self << n
        }
        #[inline(always)]
        fn shr(self, n: u32) -> Self {
            self >> n
        }
        #[inline(always)]
        fn rotr(self, n: u32) -> Self {
            self.rotate_right(n)
        }
    };
}

#[inline(always)]
fn col(b: &[u8; 16], c: usize) -> u32 {
    u32::from_le_bytes([b[4 * c], b[4 * c + 1], b[4 * c + 2], b[4 * c + 3]])
}

#[inline(always)]
fn set_col(b: &mut [u8; 16], c: usize, v: u32) {
    b[4 * c..4 * c + 4].copy_from_slice(&v.to_le_bytes());
}

impl Word for u32 {
    const LANE_BLOCKS: usize = 2;
    int_word_ops!(u32);
    /// Word `2c + j` starts as column `c` of block `j`; after `ortho` row `r`
    /// sits in bits `8r..8r+8`, column `c` of block `j` at offset `2c + j`.
    #[inline(always)]
    fn load(get: impl Fn(usize) -> [u8; 16]) -> [Self; 8] {
        let mut q = [0u32; 8];
        for j in 0..2 {
            let b = get(j);
            for c in 0..4 {
                q[2 * c + j] = col(&b, c);
            }
        }
        ortho(&mut q);
        q
    }
    #[inline(always)]
    fn store(q: &[Self; 8], mut put: impl FnMut(usize, [u8; 16])) {
        let mut q = *q;
        ortho(&mut q);
        for j in 0..2 {
            let mut b = [0u8; 16];
            for c in 0..4 {
                set_col(&mut b, c, q[2 * c + j]);
            }
            put(j, b);
        }
    }
}

/// Spread the 4 bytes of `x` to the even bytes of a `u64`.
#[inline(always)]
fn spread(x: u32) -> u64 {
    let mut x = x as u64;
    x = (x | (x << 16)) & 0x0000_ffff_0000_ffff;
    (x | (x << 8)) & 0x00ff_00ff_00ff_00ff
}

/// Inverse of [`spread`] (odd bytes ignored).
#[inline(always)]
fn gather(x: u64) -> u32 {
    let mut x = x & 0x00ff_00ff_00ff_00ff;
    x = (x | (x >> 8)) & 0x0000_ffff_0000_ffff;
    (x | (x >> 16)) as u32
}

impl Word for u64 {
    const LANE_BLOCKS: usize = 4;
    int_word_ops!(u64);
    /// Word `4(c & 1) + j` starts as columns `c` and `c + 2` of block `j`,
    /// byte-interleaved; after `ortho` row `r` sits in bits `16r..16r+16`,
    /// column `c` of block `j` at offset `4c + j`.
    #[inline(always)]
    fn load(get: impl Fn(usize) -> [u8; 16]) -> [Self; 8] {
        let mut q = [0u64; 8];
        for j in 0..4 {
            let b = &get(j);
            q[j] = spread(col(b, 0)) | (spread(col(b, 2)) << 8);
            q[4 + j] = spread(col(b, 1)) | (spread(col(b, 3)) << 8);
        }
        ortho(&mut q);
        q
    }
    #[inline(always)]
    fn store(q: &[Self; 8], mut put: impl FnMut(usize, [u8; 16])) {
        let mut q = *q;
        ortho(&mut q);
        for j in 0..4 {
            let mut b = [0u8; 16];
            set_col(&mut b, 0, gather(q[j]));
            set_col(&mut b, 2, gather(q[j] >> 8));
            set_col(&mut b, 1, gather(q[4 + j]));
            set_col(&mut b, 3, gather(q[4 + j] >> 8));
            put(j, b);
        }
    }
}
