//! (Hidden; only `bsaes_limit_width` and `vaes_limit_width` are public:
//! test hooks, feature `test-hooks`.)
//!
//! x86 / x86_64 backends: AES-NI, VAES (AVX2 / AVX-512), and for CPUs
//! without AES-NI the SSSE3 vpaes + bsaes hybrid.

#[cfg(feature = "aesni")]
pub(crate) mod aesni;
#[cfg(any(feature = "bsaes", feature = "hybrid"))]
pub(crate) mod bsaes;
#[cfg(feature = "aesni")]
mod ctr;
#[cfg(any(
    feature = "aesni",
    feature = "vpaes",
    feature = "bsaes",
    feature = "hybrid"
))]
mod lanes;
#[cfg(feature = "vaes")]
pub(crate) mod vaes;
#[cfg(aes_ct_simd)]
pub(crate) mod vpaes;

/// vpaes alone (SSSE3).
#[cfg(feature = "vpaes")]
pub(crate) type Vpaes = crate::hybrid::VpaesOnly<vpaes::Vpaes>;
/// bsaes alone (SSSE3; bitsliced key converted per call).
#[cfg(feature = "bsaes")]
pub(crate) type Bsaes = crate::hybrid::BsaesOnly<vpaes::Vpaes, bsaes::Bsaes>;
/// vpaes for single blocks and tails, bsaes for batches (SSSE3).
#[cfg(feature = "hybrid")]
pub(crate) type Hybrid = crate::hybrid::Hybrid<vpaes::Vpaes, bsaes::Bsaes>;

// CPU checks shared by vpaes and bsaes (cached by `ct_dispatch::x86`).
#[cfg(aes_ct_simd)]
ct_dispatch::x86_detect!(cpu_ssse3, "ssse3");
#[cfg(aes_ct_simd)]
ct_dispatch::x86_detect!(cpu_avx2, "avx2");

/// A register width of the vpaes and bsaes code, in 128-bit lanes. Only
/// these three exist: the batch and padding code is written for 8, 16 and
/// 32 blocks per pass, and any other width would pad past its buffers.
#[cfg(aes_ct_simd)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub(crate) enum Lanes {
    /// SSSE3, 128-bit.
    X1 = 1,
    /// AVX2, 256-bit.
    X2 = 2,
    /// AVX-512F/BW, 512-bit.
    X4 = 4,
}

#[cfg(aes_ct_simd)]
impl Lanes {
    /// The widest width that is at most `n` lanes (at least one lane).
    const fn round_down(n: u8) -> Lanes {
        match n {
            0 | 1 => Lanes::X1,
            2 | 3 => Lanes::X2,
            _ => Lanes::X4,
        }
    }
}

/// Widest register the vpaes and bsaes code may use, as a [`Lanes`]
/// value; lowered by the `bsaes_limit_width` test hook so tests and
/// benchmarks can run the SSSE3 and AVX2 code on a CPU that has AVX-512.
#[cfg(aes_ct_simd)]
static SIMD_LANES: core::sync::atomic::AtomicU8 =
    core::sync::atomic::AtomicU8::new(Lanes::X4 as u8);

/// The allowed width (read through [`Lanes::round_down`], so only a valid
/// width can come out whatever the store held).
#[cfg(aes_ct_simd)]
fn simd_lanes() -> Lanes {
    Lanes::round_down(SIMD_LANES.load(core::sync::atomic::Ordering::Relaxed))
}

/// Test and benchmark hook (feature `test-hooks`): limit the register
/// width of the bsaes batches (1: SSSE3, 8 blocks; 2: AVX2, 16 blocks; 4:
/// AVX-512, 32 blocks) and of vpaes block pairs (1: two 128-bit chains; 2
/// or more: one 256-bit register, AVX2) for keys made afterwards. Other
/// values round down to one of these (0 counts as 1); the CPU's own width
/// is never exceeded.
#[cfg(all(
    any(test, feature = "test-hooks"),
    any(feature = "vpaes", feature = "bsaes", feature = "hybrid")
))]
pub fn bsaes_limit_width(lanes: u8) {
    SIMD_LANES.store(
        Lanes::round_down(lanes) as u8,
        core::sync::atomic::Ordering::Relaxed,
    );
}

/// Test and benchmark hook (feature `test-hooks`): limit the VAES vector
/// width (2: AVX2, 4: AVX-512; below 4 means 2) for keys made afterwards.
#[cfg(all(any(test, feature = "test-hooks"), feature = "vaes"))]
pub use vaes::limit_width as vaes_limit_width;

/// Without VAES compiled in, the hook does nothing.
#[cfg(all(any(test, feature = "test-hooks"), not(feature = "vaes")))]
pub fn vaes_limit_width(_lanes: u8) {}

/// Without vpaes/bsaes compiled in, the hook does nothing.
#[cfg(all(
    any(test, feature = "test-hooks"),
    not(any(feature = "vpaes", feature = "bsaes", feature = "hybrid"))
))]
pub fn bsaes_limit_width(_lanes: u8) {}
