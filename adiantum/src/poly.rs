//! Poly1305 as Adiantum and HPolyC use it: the polynomial hash
//! `Poly_K(M) = fromint_128(PolyP(clamp(K), M))` of the paper (Crowley &
//! Biggers, IACR ToSC 2018(4), section 6.1): Poly1305 evaluated mod
//! 2^130 - 5, fully reduced, truncated to 128 bits, with **no** "+ s"
//! one-time mask. Callers add two such values mod 2^128 themselves.
//!
//! On 64-bit targets this is our own code (3 limbs of 44/44/42 bits,
//! 64x64->128-bit products: 9 multiplies per 16-byte block, the
//! "poly1305-donna-64" layout). Why not RustCrypto `poly1305` 0.9 there:
//! Adiantum hashes only ~11 blocks per 4096-byte message (tweak header +
//! NH outputs), and on x86_64 the crate picks its AVX2 backend, whose
//! per-message set-up and `finalize` dominate short inputs (its helpers
//! call AVX2 intrinsics from functions without `target_feature`, so they
//! are not inlined): in profiles of 512-byte Adiantum messages the crate's
//! finalize/carry code took most of the time (adiantum/PERFORMANCE.md;
//! `cargo xtask speed -- adiantum` measures it). On 32-bit targets the crate's portable backend (26-bit limbs,
//! 32x32->64 products, the right choice for 32-bit CPUs) is used: a key
//! with `s = 0` makes its tag exactly `Poly_K`.
//!
//! Cost: one 130-bit multiply-reduce per 16 bytes; constant time (no
//! branch or index depends on key or data; the final reduction is a mask).

pub(crate) use imp::{PolyKey, PolyState};

/// `Debug` for key and state types that prints only the type's name, never
/// the key or hash state.
macro_rules! opaque_debug {
    ($($t:ident),*) => {$(
        impl core::fmt::Debug for $t {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(concat!(stringify!($t), " { .. }"))
            }
        }
    )*};
}

#[cfg(target_pointer_width = "64")]
mod imp {
    use zeroize::Zeroize;

    opaque_debug!(PolyKey, PolyState);

    const M44: u64 = (1 << 44) - 1;
    const M42: u64 = (1 << 42) - 1;

    fn le64(b: &[u8]) -> u64 {
        let mut a = [0u8; 8];
        a.copy_from_slice(&b[..8]);
        u64::from_le_bytes(a)
    }

    /// A clamped Poly1305 key `r` in 44/44/42-bit limbs, plus `20 r1`, `20 r2`.
    #[derive(Clone)]
    pub struct PolyKey {
        r: [u64; 3],
        s: [u64; 2],
    }

    impl Drop for PolyKey {
        fn drop(&mut self) {
            self.r.zeroize();
            self.s.zeroize();
        }
    }

    impl PolyKey {
        pub(crate) fn new(r: &[u8]) -> Self {
            let t0 = le64(&r[0..8]);
            let t1 = le64(&r[8..16]);
            // Clamping (r &= 0x0ffffffc0ffffffc0ffffffc0fffffff) folded into the masks.
            let r0 = t0 & 0xffc_0fff_ffff;
            let r1 = ((t0 >> 44) | (t1 << 20)) & 0xfff_ffc0_ffff;
            let r2 = (t1 >> 24) & 0x00f_ffff_fc0f;
            // 2^130 = 5 (mod p); limb products that land at 2^132 carry 4 * 5.
            PolyKey {
                r: [r0, r1, r2],
                s: [r1 * 20, r2 * 20],
            }
        }

        /// A fresh hash state under this key.
        #[inline]
        pub(crate) fn start(&self) -> PolyState {
            PolyState {
                key: self.clone(),
                h: [0; 3],
            }
        }
    }

    /// A running `Poly_K` computation (wiped on drop).
    #[derive(Clone)]
    pub struct PolyState {
        key: PolyKey,
        h: [u64; 3],
    }

    impl Drop for PolyState {
        fn drop(&mut self) {
            self.h.zeroize();
        }
    }

    impl PolyState {
        /// One block `m` with `hibit` = 2^128 (full block) or 0 (padded final).
        #[inline(always)]
        fn block(&mut self, m: &[u8], hibit: u64) {
            let [r0, r1, r2] = self.key.r;
            let [s1, s2] = self.key.s;
            let t0 = le64(&m[0..8]);
            let t1 = le64(&m[8..16]);
            let h0 = self.h[0] + (t0 & M44);
            let h1 = self.h[1] + (((t0 >> 44) | (t1 << 20)) & M44);
            let h2 = self.h[2] + (((t1 >> 24) & M42) | hibit);
            let m = |a: u64, b: u64| u128::from(a) * u128::from(b);
            let d0 = m(h0, r0) + m(h1, s2) + m(h2, s1);
            let mut d1 = m(h0, r1) + m(h1, r0) + m(h2, s2);
            let mut d2 = m(h0, r2) + m(h1, r1) + m(h2, r0);
            let c = (d0 >> 44) as u64;
            let h0 = (d0 as u64) & M44;
            d1 += u128::from(c);
            let c = (d1 >> 44) as u64;
            let h1 = (d1 as u64) & M44;
            d2 += u128::from(c);
            let c = (d2 >> 42) as u64;
            let h2 = (d2 as u64) & M42;
            let h0 = h0 + c * 5;
            let c = h0 >> 44;
            self.h = [h0 & M44, h1 + c, h2];
        }

        /// Absorbs whole 16-byte blocks; a trailing partial block is ignored.
        #[inline]
        pub(crate) fn blocks(&mut self, data: &[u8]) {
            for m in data.chunks_exact(16) {
                self.block(m, 1 << 40);
            }
        }

        /// Absorbs `tail` (fewer than 16 bytes, padded with 1 then zeros, as
        /// `PolyP` does for a final partial block) and returns `Poly_K` of
        /// everything absorbed as a little-endian integer.
        pub(crate) fn finish(mut self, tail: &[u8]) -> u128 {
            let tail = &tail[..tail.len().min(15)];
            if !tail.is_empty() {
                let mut b = ct_dispatch::short::read_block(tail);
                b[tail.len()] = 1;
                self.block(&b, 0);
                b.zeroize();
            }
            let [mut h0, mut h1, mut h2] = self.h;
            // Full carry (twice round the 2^130 = 5 wrap).
            for _ in 0..2 {
                let c = h1 >> 44;
                h1 &= M44;
                h2 += c;
                let c = h2 >> 42;
                h2 &= M42;
                h0 += c * 5;
                let c = h0 >> 44;
                h0 &= M44;
                h1 += c;
            }
            // g = h + 5 - 2^130; keep g if it is not negative (h >= p).
            let mut g0 = h0 + 5;
            let c = g0 >> 44;
            g0 &= M44;
            let mut g1 = h1 + c;
            let c = g1 >> 44;
            g1 &= M44;
            let g2 = (h2 + c).wrapping_sub(1 << 42);
            let use_g = (g2 >> 63).wrapping_sub(1); // all ones if g2 >= 0
            h0 = (h0 & !use_g) | (g0 & use_g);
            h1 = (h1 & !use_g) | (g1 & use_g);
            h2 = (h2 & !use_g) | (g2 & use_g & M42);
            let lo = h0 | (h1 << 44);
            let hi = (h1 >> 20) | (h2 << 24);
            self.h = [0; 3];
            u128::from(lo) | (u128::from(hi) << 64)
        }
    }
}

#[cfg(not(target_pointer_width = "64"))]
mod imp {
    use poly1305::{Block, Poly1305, universal_hash::KeyInit, universal_hash::UniversalHash};
    use zeroize::Zeroize;

    opaque_debug!(PolyKey, PolyState);

    /// A Poly1305 hash key `r` (clamped by the crate), ready to clone.
    #[derive(Clone)]
    pub struct PolyKey(Poly1305);

    impl PolyKey {
        pub(crate) fn new(r: &[u8]) -> Self {
            let mut k = [0u8; 32];
            k[..16].copy_from_slice(&r[..16]);
            let p = Poly1305::new(&k.into());
            k.zeroize();
            PolyKey(p)
        }

        /// A fresh hash state under this key.
        #[inline]
        pub(crate) fn start(&self) -> PolyState {
            PolyState(self.0.clone())
        }
    }

    /// A running `Poly_K` computation (wiped on drop by the crate).
    #[derive(Clone)]
    pub struct PolyState(Poly1305);

    impl PolyState {
        /// Absorbs whole 16-byte blocks; a trailing partial block is ignored.
        #[inline]
        pub(crate) fn blocks(&mut self, data: &[u8]) {
            let (blocks, _) = Block::slice_as_chunks(data);
            self.0.update(blocks);
        }

        /// Absorbs `tail` (fewer than 16 bytes, padded with 1 then zeros) and
        /// returns `Poly_K` of everything absorbed as a little-endian integer.
        #[inline]
        pub(crate) fn finish(self, tail: &[u8]) -> u128 {
            let tag = self.0.compute_unpadded(tail);
            u128::from_le_bytes(tag.into())
        }
    }
}
