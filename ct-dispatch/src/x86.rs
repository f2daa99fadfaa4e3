//! Run-time CPU feature detection on x86 and x86_64, once for the whole
//! workspace.
//!
//! A feature is reported when the CPU has it (CPUID) *and* the operating
//! system saves and restores the registers it uses (XCR0, read with XGETBV
//! when CPUID says the OS enabled it, OSXSAVE). Bit positions are those of
//! the Intel SDM, Vol. 2A, CPUID, and Vol. 1, 13.1 (XCR0):
//!
//! * CPUID.01H:EDX bits 25 SSE, 26 SSE2; ECX bits 0 SSE3, 1 PCLMULQDQ,
//!   9 SSSE3, 12 FMA, 19 SSE4.1, 20 SSE4.2, 25 AES, 26 XSAVE, 27 OSXSAVE,
//!   28 AVX, 29 F16C.
//! * CPUID.(EAX=07H,ECX=0):EBX bits 5 AVX2, 16 AVX512F, 17 AVX512DQ,
//!   30 AVX512BW, 31 AVX512VL; ECX bits 9 VAES, 10 VPCLMULQDQ (read only
//!   when CPUID.00H:EAX, the highest basic leaf, is at least 7).
//! * XCR0 bits 1 SSE (xmm), 2 AVX (upper ymm), 5 opmask, 6 ZMM_Hi256,
//!   7 Hi16_ZMM.
//!
//! The rules ([`decide`]):
//!
//! * SSE2, SSSE3, SSE4.1, PCLMULQDQ, AES: the CPUID bit.
//! * AVX, and with it AVX2, VAES and VPCLMULQDQ (the VEX forms, up to
//!   256-bit ymm registers): the CPUID bits, XSAVE and OSXSAVE, and XCR0
//!   with the xmm and ymm state (bits 1 and 2).
//! * AVX-512F/BW/VL/DQ: all of that and XCR0's opmask, ZMM_Hi256 and
//!   Hi16_ZMM state (bits 5, 6, 7) as well. The 512-bit forms of VAES and
//!   VPCLMULQDQ are usable when both [`Features::VAES`] (or
//!   [`Features::VPCLMULQDQ`]) and [`Features::AVX512F`] are reported.
//!
//! A feature is also reported only with every feature that Rust's
//! `target_feature` implies for it (AVX2 implies AVX and SSE4.2, VAES
//! implies AES and AVX2, AVX512F implies FMA and F16C, ...), so a function
//! compiled with `#[target_feature(enable = "<it>")]` runs wherever it is
//! reported, even under a hypervisor that hides bits inconsistently.
//!
//! VAES and VPCLMULQDQ do not depend on AVX-512: AVX2-only CPUs with VAES
//! (AMD Zen 3, Intel Alder Lake) run the 256-bit forms.
//!
//! Features the build enables at compile time (`-C target-feature`,
//! `-C target-cpu`) are always reported. Under Miri and where CPUID cannot
//! be run (SGX enclaves, freestanding and UEFI targets) only those are.
//!
//! Backends check with [`x86_detect!`](crate::x86_detect), which names the
//! features as `#[target_feature(enable = ...)]` does.

use core::sync::atomic::{AtomicU32, Ordering};

/// A set of x86 features (see the [module docs](self) for when each is
/// reported).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Features(u32);

/// The features: for each, its flag constant (documented), bit and
/// `target_feature` name. Generates the constants, [`Features::NAMED`] and
/// [`Features::COMPILED`] from the one list.
macro_rules! features {
    ($($(#[$m:meta])* $name:ident = $bit:literal, $tf:tt;)+) => {
        impl Features {
            $($(#[$m])* pub const $name: Self = Self(1 << $bit);)+

            /// Every feature with its `target_feature` name, in bit order.
            pub const NAMED: &'static [(&'static str, Features)] = &[$(($tf, Self::$name)),+];

            /// The features this build enables at compile time.
            pub const COMPILED: Self =
                Self(0 $(| if cfg!(target_feature = $tf) { 1 << $bit } else { 0 })+);
        }
    };
}

features! {
    /// SSE2.
    SSE2 = 0, "sse2";
    /// SSSE3.
    SSSE3 = 1, "ssse3";
    /// SSE4.1.
    SSE41 = 2, "sse4.1";
    /// PCLMULQDQ (128-bit carry-less multiply).
    PCLMULQDQ = 3, "pclmulqdq";
    /// AES-NI (128-bit AES rounds).
    AES = 4, "aes";
    /// AVX (CPU and OS ymm state).
    AVX = 5, "avx";
    /// AVX2 (CPU and OS ymm state).
    AVX2 = 6, "avx2";
    /// VAES on ymm (CPU and OS ymm state); on zmm with [`Self::AVX512F`].
    VAES = 7, "vaes";
    /// VPCLMULQDQ on ymm (CPU and OS ymm state); on zmm with
    /// [`Self::AVX512F`].
    VPCLMULQDQ = 8, "vpclmulqdq";
    /// AVX-512 Foundation (CPU and OS zmm and opmask state).
    AVX512F = 9, "avx512f";
    /// AVX-512 Byte and Word (CPU and OS zmm and opmask state).
    AVX512BW = 10, "avx512bw";
    /// AVX-512 Vector Length (CPU and OS zmm and opmask state).
    AVX512VL = 11, "avx512vl";
    /// AVX-512 Doubleword and Quadword (CPU and OS zmm and opmask state).
    AVX512DQ = 12, "avx512dq";
}

impl Features {
    /// No feature.
    pub const EMPTY: Self = Self(0);

    /// The flag of a `target_feature` name in [`Self::NAMED`]; panics (a
    /// compile error in a constant) on any other name.
    #[doc(hidden)]
    pub const fn named(name: &str) -> Self {
        Self::named_in(name.as_bytes(), 0, name.len())
    }

    /// The flags of a comma-separated list of `target_feature` names, as
    /// written in `#[target_feature(enable = "...")]`; panics (a compile
    /// error in a constant) on any name not in [`Self::NAMED`].
    #[doc(hidden)]
    pub const fn named_list(list: &str) -> Self {
        let b = list.as_bytes();
        let (mut set, mut start, mut i) = (Self::EMPTY, 0, 0);
        while i <= b.len() {
            if i == b.len() || b[i] == b',' {
                set = set.union(Self::named_in(b, start, i));
                start = i + 1;
            }
            i += 1;
        }
        set
    }

    /// [`Self::named`] of `b[start..end]`.
    const fn named_in(b: &[u8], start: usize, end: usize) -> Self {
        let mut i = 0;
        while i < Self::NAMED.len() {
            let (n, flag) = Self::NAMED[i];
            if n.len() == end - start {
                let a = n.as_bytes();
                let mut j = 0;
                while j < a.len() && a[j] == b[start + j] {
                    j += 1;
                }
                if j == a.len() {
                    return flag;
                }
            }
            i += 1;
        }
        panic!("not an x86 feature name of x86::Features::NAMED")
    }

    /// Both sets together.
    #[must_use]
    pub const fn union(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }

    /// Is every feature of `other` in `self`?
    pub const fn contains(self, other: Self) -> bool {
        self.0 & other.0 == other.0
    }

    /// The raw bits (an implementation detail; stable within one build).
    pub const fn bits(self) -> u32 {
        self.0
    }
}

impl core::ops::BitOr for Features {
    type Output = Self;
    fn bitor(self, rhs: Self) -> Self {
        self.union(rhs)
    }
}

impl core::fmt::Debug for Features {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let mut set = f.debug_set();
        for &(name, flag) in Self::NAMED {
            if self.contains(flag) {
                set.entry(&name);
            }
        }
        set.finish()
    }
}

/// What [`decide`] reads: the CPUID words and XCR0, live or synthetic.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cpuid {
    /// CPUID.00H:EAX, the highest basic leaf. Leaf 7 is ignored below 7.
    pub max_leaf: u32,
    /// CPUID.01H:ECX.
    pub leaf1_ecx: u32,
    /// CPUID.01H:EDX.
    pub leaf1_edx: u32,
    /// CPUID.(EAX=07H,ECX=0):EBX.
    pub leaf7_ebx: u32,
    /// CPUID.(EAX=07H,ECX=0):ECX.
    pub leaf7_ecx: u32,
    /// XCR0 (XGETBV with ECX = 0). Ignored unless leaf 1 reports XSAVE and
    /// OSXSAVE (without them XGETBV faults, so the live reading is 0).
    pub xcr0: u64,
}

/// Single-bit masks: `bits!(vis T: NAME = bit, ...)` is one
/// `vis const NAME: T = 1 << bit;` per entry.
macro_rules! bits {
    ($vis:vis $t:ty: $($(#[$m:meta])* $name:ident = $bit:literal),+ $(,)?) => {
        $($(#[$m])* $vis const $name: $t = 1 << $bit;)+
    };
}

/// CPUID.01H:ECX and EDX bits.
mod leaf1 {
    bits!(pub(super) u32: ECX_SSE3 = 0, ECX_PCLMULQDQ = 1, ECX_SSSE3 = 9, ECX_FMA = 12,
        ECX_SSE41 = 19, ECX_SSE42 = 20, ECX_AES = 25, ECX_XSAVE = 26, ECX_OSXSAVE = 27,
        ECX_AVX = 28, ECX_F16C = 29, EDX_SSE = 25, EDX_SSE2 = 26);
}

/// CPUID.(EAX=07H,ECX=0):EBX and ECX bits.
mod leaf7 {
    bits!(pub(super) u32: EBX_AVX2 = 5, EBX_AVX512F = 16, EBX_AVX512DQ = 17, EBX_AVX512BW = 30,
        EBX_AVX512VL = 31, ECX_VAES = 9, ECX_VPCLMULQDQ = 10);
}

/// XCR0 state-component bits.
mod xcr0 {
    bits!(pub(super) u64:
        /// SSE (xmm registers, MXCSR).
        SSE = 1,
        /// AVX (upper halves of ymm0-15).
        AVX = 2,
        /// opmask k0-7.
        OPMASK = 5,
        /// Upper halves of zmm0-15.
        ZMM_HI256 = 6,
        /// zmm16-31.
        HI16_ZMM = 7,
    );
}

/// The feature set a CPU with these CPUID words and XCR0 can run (the rules
/// in the [module docs](self)). Pure: no CPUID is executed.
pub const fn decide(c: &Cpuid) -> Features {
    let (ecx, edx) = (c.leaf1_ecx, c.leaf1_edx);
    let (ebx7, ecx7) = if c.max_leaf >= 7 {
        (c.leaf7_ebx, c.leaf7_ecx)
    } else {
        (0, 0)
    };
    const fn has(word: u32, mask: u32) -> bool {
        word & mask == mask
    }

    let xgetbv = leaf1::ECX_XSAVE | leaf1::ECX_OSXSAVE;
    let xcr0 = if has(ecx, xgetbv) { c.xcr0 } else { 0 };
    let ymm_state = xcr0 & (xcr0::SSE | xcr0::AVX) == xcr0::SSE | xcr0::AVX;
    let zmm = xcr0::OPMASK | xcr0::ZMM_HI256 | xcr0::HI16_ZMM;
    let zmm_state = ymm_state && xcr0 & zmm == zmm;

    // Each feature with what `target_feature` implies for it (so code
    // compiled with `enable = "<it>"` runs): SSE4.1 needs SSSE3 needs SSE3;
    // AVX needs SSE4.2; VAES needs AES and AVX2; VPCLMULQDQ needs PCLMULQDQ
    // and AVX; AVX512F needs AVX2, FMA and F16C.
    let sse2 = has(edx, leaf1::EDX_SSE | leaf1::EDX_SSE2);
    let ssse3 = sse2 && has(ecx, leaf1::ECX_SSE3 | leaf1::ECX_SSSE3);
    let sse41 = ssse3 && has(ecx, leaf1::ECX_SSE41);
    let pclmulqdq = sse2 && has(ecx, leaf1::ECX_PCLMULQDQ);
    let aes = sse2 && has(ecx, leaf1::ECX_AES);
    let avx = ymm_state && sse41 && has(ecx, leaf1::ECX_SSE42 | leaf1::ECX_AVX);
    let avx2 = avx && has(ebx7, leaf7::EBX_AVX2);
    let vaes = avx2 && aes && has(ecx7, leaf7::ECX_VAES);
    let vpclmulqdq = avx && pclmulqdq && has(ecx7, leaf7::ECX_VPCLMULQDQ);
    let avx512f = zmm_state
        && avx2
        && has(ecx, leaf1::ECX_FMA | leaf1::ECX_F16C)
        && has(ebx7, leaf7::EBX_AVX512F);
    let avx512bw = avx512f && has(ebx7, leaf7::EBX_AVX512BW);
    let avx512vl = avx512f && has(ebx7, leaf7::EBX_AVX512VL);
    let avx512dq = avx512f && has(ebx7, leaf7::EBX_AVX512DQ);

    let mut f = Features::EMPTY;
    let all = [
        (sse2, Features::SSE2),
        (ssse3, Features::SSSE3),
        (sse41, Features::SSE41),
        (pclmulqdq, Features::PCLMULQDQ),
        (aes, Features::AES),
        (avx, Features::AVX),
        (avx2, Features::AVX2),
        (vaes, Features::VAES),
        (vpclmulqdq, Features::VPCLMULQDQ),
        (avx512f, Features::AVX512F),
        (avx512bw, Features::AVX512BW),
        (avx512vl, Features::AVX512VL),
        (avx512dq, Features::AVX512DQ),
    ];
    let mut i = 0;
    while i < all.len() {
        if all[i].0 {
            f = f.union(all[i].1);
        }
        i += 1;
    }
    f
}

/// Read this CPU's CPUID words and XCR0 (not under Miri, nor where CPUID
/// cannot run).
#[cfg(not(any(miri, target_env = "sgx", target_os = "none", target_os = "uefi")))]
pub use live::read_cpuid;

#[cfg(not(any(miri, target_env = "sgx", target_os = "none", target_os = "uefi")))]
mod live {
    use super::{Cpuid, leaf1};
    #[cfg(target_arch = "x86")]
    use core::arch::x86 as arch;
    #[cfg(target_arch = "x86_64")]
    use core::arch::x86_64 as arch;

    /// Read this CPU's CPUID words and XCR0.
    pub fn read_cpuid() -> Cpuid {
        // `__cpuid_count` is a safe fn in newer `core` and an unsafe one in
        // older releases this workspace supports.
        #[allow(unused_unsafe)]
        fn cpuid(leaf: u32) -> arch::CpuidResult {
            // SAFETY: CPUID exists on every CPU the x86_64 and i686 targets run
            // on; it only reads identification registers. Sub-leaf 0.
            unsafe { arch::__cpuid_count(leaf, 0) }
        }

        /// XCR0, the state components the OS saves and restores.
        #[target_feature(enable = "xsave")]
        fn read_xcr0() -> u64 {
            // SAFETY: XGETBV with ECX = 0 reads XCR0 and has no other effect;
            // `xsave` is enabled for this fn, whose caller checked it.
            unsafe { arch::_xgetbv(arch::_XCR_XFEATURE_ENABLED_MASK) }
        }

        let max_leaf = cpuid(0).eax;
        let l1 = cpuid(1);
        let (leaf7_ebx, leaf7_ecx) = if max_leaf >= 7 {
            let l7 = cpuid(7);
            (l7.ebx, l7.ecx)
        } else {
            (0, 0)
        };
        let xgetbv = leaf1::ECX_XSAVE | leaf1::ECX_OSXSAVE;
        let xcr0 = if l1.ecx & xgetbv == xgetbv {
            // SAFETY: CPUID reports XSAVE (the CPU has XGETBV) and OSXSAVE (the
            // OS set CR4.OSXSAVE, so XGETBV does not fault).
            unsafe { read_xcr0() }
        } else {
            0
        };
        Cpuid {
            max_leaf,
            leaf1_ecx: l1.ecx,
            leaf1_edx: l1.edx,
            leaf7_ebx,
            leaf7_ecx,
            xcr0,
        }
    }
}

/// This CPU's features, detected on the first call and cached.
#[inline]
pub fn features() -> Features {
    /// Set in [`CACHE`] once it holds the detected bits.
    const READY: u32 = 1 << 31;
    static CACHE: AtomicU32 = AtomicU32::new(0);

    #[cold]
    fn detect() -> Features {
        #[cfg(not(any(miri, target_env = "sgx", target_os = "none", target_os = "uefi")))]
        let f = decide(&read_cpuid()).union(Features::COMPILED);
        #[cfg(any(miri, target_env = "sgx", target_os = "none", target_os = "uefi"))]
        let f = Features::COMPILED;
        CACHE.store(f.0 | READY, Ordering::Relaxed);
        f
    }

    // One word, written once with the same value by any racing thread:
    // Relaxed is enough.
    let v = CACHE.load(Ordering::Relaxed);
    if v & READY != 0 {
        Features(v & !READY)
    } else {
        detect()
    }
}

/// Does this CPU have every feature of `want` (cached detection)?
#[inline]
pub fn has(want: Features) -> bool {
    features().contains(want)
}

/// A CPU check: `x86_detect!(cpu_vaes256, "aes", "vaes", "avx2");` (or the
/// list as one string, `"aes,vaes,avx2"`, as a `target_feature` attribute
/// writes it) makes a module `cpu_vaes256` whose `get() -> bool` says
/// whether this CPU has all the named features (names as in
/// `#[target_feature(enable = ...)]`; see
/// [`x86::Features::NAMED`](crate::x86::Features::NAMED)). Detection is
/// [`x86::features`](crate::x86::features), cached.
#[macro_export]
macro_rules! x86_detect {
    ($mod_name:ident, $($tf:tt),+ $(,)?) => {
        mod $mod_name {
            /// Does this CPU have every feature of this check?
            #[inline]
            pub fn get() -> bool {
                const WANT: $crate::x86::Features =
                    $crate::x86::Features::EMPTY $(.union($crate::__x86_feature!($tf)))+;
                $crate::x86::has(WANT)
            }
        }
    };
}

/// A `target_feature` name to its [`x86::Features`](crate::x86::Features)
/// flag (for [`x86_detect!`](crate::x86_detect)), looked up in
/// [`Features::NAMED`] at compile time; other names do not compile.
#[doc(hidden)]
#[macro_export]
macro_rules! __x86_feature {
    ($tf:literal) => {
        const { $crate::x86::Features::named_list($tf) }
    };
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::{Cpuid, Features as F, decide};

    // Bit positions written out again from the Intel SDM, independent of
    // the constants above.
    bits!(u32:
        L1C_SSE3 = 0, L1C_PCLMULQDQ = 1, L1C_SSSE3 = 9, L1C_FMA = 12, L1C_CX16 = 13,
        L1C_SSE41 = 19, L1C_SSE42 = 20, L1C_POPCNT = 23, L1C_AES = 25, L1C_XSAVE = 26,
        L1C_OSXSAVE = 27, L1C_AVX = 28, L1C_F16C = 29,
        L1D_SSE = 25, L1D_SSE2 = 26,
        L7B_BMI1 = 3, L7B_AVX2 = 5, L7B_BMI2 = 8, L7B_AVX512F = 16, L7B_AVX512DQ = 17,
        L7B_AVX512CD = 28, L7B_AVX512BW = 30, L7B_AVX512VL = 31,
        L7C_GFNI = 8, L7C_VAES = 9, L7C_VPCLMULQDQ = 10,
    );
    bits!(u64:
        XCR0_X87 = 0, XCR0_SSE = 1, XCR0_AVX = 2, XCR0_OPMASK = 5, XCR0_ZMM_HI256 = 6,
        XCR0_HI16_ZMM = 7, XCR0_PKRU = 9,
    );

    const XCR0_YMM: u64 = XCR0_X87 | XCR0_SSE | XCR0_AVX;
    const XCR0_ZMM: u64 = XCR0_YMM | XCR0_OPMASK | XCR0_ZMM_HI256 | XCR0_HI16_ZMM;

    const SSE_ALL: u32 = L1C_SSE3 | L1C_SSSE3 | L1C_CX16 | L1C_SSE41 | L1C_SSE42 | L1C_POPCNT;
    const EDX: u32 = L1D_SSE | L1D_SSE2;
    const AVX_LEAF1: u32 =
        SSE_ALL | L1C_PCLMULQDQ | L1C_AES | L1C_XSAVE | L1C_OSXSAVE | L1C_AVX | L1C_FMA | L1C_F16C;
    const AVX512_LEAF7B: u32 = L7B_BMI1
        | L7B_AVX2
        | L7B_BMI2
        | L7B_AVX512F
        | L7B_AVX512DQ
        | L7B_AVX512CD
        | L7B_AVX512BW
        | L7B_AVX512VL;

    const BASE: F = F::SSE2.union(F::SSSE3).union(F::SSE41);
    const AESNI: F = BASE.union(F::PCLMULQDQ).union(F::AES);
    const AVX2: F = AESNI.union(F::AVX).union(F::AVX2);
    const VAES256: F = AVX2.union(F::VAES).union(F::VPCLMULQDQ);
    const AVX512: F = F::AVX512F
        .union(F::AVX512BW)
        .union(F::AVX512VL)
        .union(F::AVX512DQ);

    /// Ice Lake / Zen 4: VAES and VPCLMULQDQ on zmm.
    const ICE_LAKE: Cpuid = Cpuid {
        max_leaf: 0x1b,
        leaf1_ecx: AVX_LEAF1,
        leaf1_edx: EDX,
        leaf7_ebx: AVX512_LEAF7B,
        leaf7_ecx: L7C_GFNI | L7C_VAES | L7C_VPCLMULQDQ,
        xcr0: XCR0_ZMM | XCR0_PKRU,
    };

    /// A check's feature list as one `target_feature` string means the
    /// same set as the names one by one: every name counted, the last
    /// one too, and nothing else.
    #[test]
    fn feature_string_is_the_named_set() {
        let list = F::named_list("aes,pclmulqdq,sse2,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq");
        let mut one_by_one = F::EMPTY;
        for n in [
            "aes",
            "pclmulqdq",
            "sse2",
            "ssse3",
            "sse4.1",
            "avx",
            "avx2",
            "vaes",
            "vpclmulqdq",
        ] {
            assert!(list.contains(F::named(n)), "{n} missing");
            one_by_one = one_by_one.union(F::named(n));
        }
        assert_eq!(list, one_by_one);
        assert!(!list.contains(F::named("avx512f")));
        assert_eq!(F::named_list("vpclmulqdq"), F::named("vpclmulqdq"));
        for (name, flag) in F::NAMED {
            assert_eq!(F::named_list(name), *flag, "{name}");
        }
    }

    #[test]
    fn avx512_vaes() {
        let f = decide(&ICE_LAKE);
        assert_eq!(f, VAES256.union(AVX512));
        // The checks the 512-bit backends make.
        assert!(f.contains(F::AES | F::VAES | F::AVX512F | F::AVX512BW));
        assert!(f.contains(F::VPCLMULQDQ | F::AVX512F | F::AVX512BW));
    }

    #[test]
    fn avx2_vaes_without_avx512() {
        // Zen 3 / Alder Lake: AVX2, VAES, VPCLMULQDQ, no AVX-512; the OS
        // enables ymm state only.
        let zen3 = Cpuid {
            max_leaf: 0x10,
            leaf7_ebx: L7B_BMI1 | L7B_AVX2 | L7B_BMI2,
            leaf7_ecx: L7C_VAES | L7C_VPCLMULQDQ,
            xcr0: XCR0_YMM | XCR0_PKRU,
            ..ICE_LAKE
        };
        let f = decide(&zen3);
        assert_eq!(f, VAES256);
        assert!(f.contains(F::AES | F::VAES | F::AVX2));
        assert!(f.contains(F::AVX2 | F::VPCLMULQDQ | F::PCLMULQDQ | F::SSSE3));
        assert!(!f.contains(F::AVX512F));
        // An OS that enables zmm state changes nothing without AVX512F.
        assert_eq!(
            decide(&Cpuid {
                xcr0: XCR0_ZMM,
                ..zen3
            }),
            VAES256
        );
    }

    #[test]
    fn aesni_pclmul_only() {
        // Haswell: AVX2, AES-NI, PCLMULQDQ, no VAES.
        let haswell = Cpuid {
            max_leaf: 0xd,
            leaf7_ebx: L7B_BMI1 | L7B_AVX2 | L7B_BMI2,
            leaf7_ecx: 0,
            xcr0: XCR0_YMM,
            ..ICE_LAKE
        };
        assert_eq!(decide(&haswell), AVX2);
        // Sandy Bridge: AVX, no AVX2.
        let sandy = Cpuid {
            leaf1_ecx: AVX_LEAF1 & !(L1C_FMA | L1C_F16C),
            leaf7_ebx: 0,
            ..haswell
        };
        assert_eq!(decide(&sandy), AESNI.union(F::AVX));
        // Westmere: AES-NI and PCLMULQDQ, no XSAVE, highest leaf 0xb.
        let westmere = Cpuid {
            max_leaf: 0xb,
            leaf1_ecx: SSE_ALL | L1C_PCLMULQDQ | L1C_AES,
            leaf1_edx: EDX,
            ..Cpuid::default()
        };
        assert_eq!(decide(&westmere), AESNI);
    }

    #[test]
    fn ssse3_only() {
        // Core 2 (Merom): SSSE3, no SSE4.1, AES or XSAVE.
        let core2 = Cpuid {
            max_leaf: 0xa,
            leaf1_ecx: L1C_SSE3 | L1C_SSSE3 | L1C_CX16,
            leaf1_edx: EDX,
            ..Cpuid::default()
        };
        assert_eq!(decide(&core2), F::SSE2 | F::SSSE3);
        // Words in leaf 7 are not read when the highest leaf is below 7 (a
        // CPU then answers leaf 7 with another leaf's data).
        let garbage = Cpuid {
            max_leaf: 6,
            leaf7_ebx: u32::MAX,
            leaf7_ecx: u32::MAX,
            ..ICE_LAKE
        };
        assert_eq!(decide(&garbage), AESNI.union(F::AVX));
    }

    #[test]
    fn avx_disabled_by_os() {
        // The CPU has everything, the OS saves only x87 and xmm state.
        let f = decide(&Cpuid {
            xcr0: XCR0_X87 | XCR0_SSE,
            ..ICE_LAKE
        });
        assert_eq!(f, AESNI);
        // OSXSAVE clear (the OS never set CR4.OSXSAVE): XCR0 is not looked
        // at, whatever the description says.
        let f = decide(&Cpuid {
            leaf1_ecx: AVX_LEAF1 & !L1C_OSXSAVE,
            ..ICE_LAKE
        });
        assert_eq!(f, AESNI);
        // ymm state without xmm state is not enough.
        let f = decide(&Cpuid {
            xcr0: XCR0_ZMM & !XCR0_SSE,
            ..ICE_LAKE
        });
        assert_eq!(f, AESNI);
        // A hypervisor hiding AVX hides AVX2, VAES and AVX-512 with it.
        let f = decide(&Cpuid {
            leaf1_ecx: AVX_LEAF1 & !L1C_AVX,
            ..ICE_LAKE
        });
        assert_eq!(f, AESNI);
    }

    #[test]
    fn avx512_hardware_os_without_zmm() {
        // Ice Lake hardware, the OS enables ymm state only: the 256-bit VAES
        // and VPCLMULQDQ paths, no AVX-512.
        let f = decide(&Cpuid {
            xcr0: XCR0_YMM,
            ..ICE_LAKE
        });
        assert_eq!(f, VAES256);
        // Each one of the three zmm components missing is enough.
        for missing in [XCR0_OPMASK, XCR0_ZMM_HI256, XCR0_HI16_ZMM] {
            let f = decide(&Cpuid {
                xcr0: XCR0_ZMM & !missing,
                ..ICE_LAKE
            });
            assert_eq!(f, VAES256, "XCR0 without {missing:#x}");
        }
    }

    #[test]
    fn avx512_subsets() {
        // Skylake-SP: AVX-512 F/BW/VL/DQ, no VAES.
        let skx = Cpuid {
            leaf7_ecx: 0,
            ..ICE_LAKE
        };
        assert_eq!(decide(&skx), AVX2.union(AVX512));
        // Knights Landing: AVX512F without BW/VL/DQ.
        let knl = Cpuid {
            leaf7_ebx: L7B_AVX2 | L7B_AVX512F | L7B_AVX512CD,
            leaf7_ecx: 0,
            ..ICE_LAKE
        };
        assert_eq!(decide(&knl), AVX2.union(F::AVX512F));
    }

    #[test]
    fn implied_features_required() {
        // Inconsistent CPUID words (as a hypervisor may present): a feature
        // goes when one that `target_feature` implies for it is missing.
        let drop = |ecx: u32, ebx7: u32, ecx7: u32| {
            decide(&Cpuid {
                leaf1_ecx: AVX_LEAF1 & !ecx,
                leaf7_ebx: AVX512_LEAF7B & !ebx7,
                leaf7_ecx: (L7C_VAES | L7C_VPCLMULQDQ) & !ecx7,
                ..ICE_LAKE
            })
        };
        // No SSE4.2: no AVX and nothing above it.
        assert_eq!(drop(L1C_SSE42, 0, 0), AESNI);
        // No SSE3: SSE2 alone plus the 128-bit AES/CLMUL instructions.
        assert_eq!(drop(L1C_SSE3, 0, 0), F::SSE2 | F::PCLMULQDQ | F::AES);
        // No AES: no VAES (VPCLMULQDQ stays).
        let f = drop(L1C_AES, 0, 0);
        assert!(!f.contains(F::AES) && !f.contains(F::VAES));
        assert!(f.contains(F::VPCLMULQDQ | F::AVX512F));
        // No PCLMULQDQ: no VPCLMULQDQ.
        let f = drop(L1C_PCLMULQDQ, 0, 0);
        assert!(!f.contains(F::PCLMULQDQ) && !f.contains(F::VPCLMULQDQ));
        assert!(f.contains(F::VAES | F::AVX512F));
        // No AVX2: no VAES and no AVX-512 (VPCLMULQDQ needs only AVX).
        assert_eq!(drop(0, L7B_AVX2, 0), AESNI | F::AVX | F::VPCLMULQDQ);
        // No FMA or no F16C: no AVX-512.
        assert_eq!(drop(L1C_FMA, 0, 0), VAES256);
        assert_eq!(drop(L1C_F16C, 0, 0), VAES256);
        // No AVX512F: no BW/VL/DQ either.
        assert_eq!(drop(0, L7B_AVX512F, 0), VAES256);
        // XSAVE clear with OSXSAVE set (impossible on real hardware): XCR0
        // is not trusted.
        assert_eq!(drop(L1C_XSAVE, 0, 0), AESNI);
        // SSE2 without SSE.
        let f = decide(&Cpuid {
            leaf1_edx: L1D_SSE2,
            ..ICE_LAKE
        });
        assert_eq!(f, F::EMPTY);
    }

    /// The CPU checks the backends make (their `x86_detect!` lines).
    macro_rules! checks {
        ($($name:literal: $($tf:tt),+;)*) => {
            &[$(($name, F::EMPTY $(.union(crate::__x86_feature!($tf)))+)),*]
        };
    }
    const CHECKS: &[(&str, F)] = checks! {
        "aes-ct aesni": "aes", "sse2", "ssse3";
        "aes-ct vaes 256": "aes", "vaes", "avx2";
        "aes-ct vaes 512": "aes", "vaes", "avx512f", "avx512bw";
        "aes-ct vpaes/bsaes": "ssse3";
        "aes-ct vpaes/bsaes 256": "avx2";
        "aes-ct bsaes 512": "avx512f", "avx512bw";
        "ghash-ct pclmul": "pclmulqdq", "ssse3";
        "ghash-ct vpclmul512": "avx512f", "avx512bw", "vpclmulqdq", "pclmulqdq", "ssse3";
        "ghash-ct vpclmul256": "avx2", "vpclmulqdq", "pclmulqdq", "ssse3";
        "ghash-ct pmuludq 256": "avx2", "ssse3";
        "ghash-ct pmuludq 512": "avx512f", "avx512bw", "avx2", "ssse3";
        "aes-gcm-ct aesni-clmul": "aes", "pclmulqdq", "sse2", "ssse3", "sse4.1";
        "aes-gcm-ct aesni-avx-clmul": "aes", "pclmulqdq", "sse2", "ssse3", "sse4.1", "avx";
        "aes-gcm-ct vaes-clmul": "aes", "pclmulqdq", "sse2", "ssse3", "sse4.1", "avx", "avx2",
            "avx512f", "avx512bw", "vaes", "vpclmulqdq";
        "aes-gcm-ct vaes-avx2-clmul": "aes", "pclmulqdq", "sse2", "ssse3", "sse4.1", "avx",
            "avx2", "vaes", "vpclmulqdq";
        "adiantum-ct avx2": "avx2";
        "adiantum-ct sse2": "sse2";
    };

    /// The checks a CPU passes.
    fn passing(c: &Cpuid) -> std::vec::Vec<&'static str> {
        let f = decide(c);
        CHECKS
            .iter()
            .filter(|(_, want)| f.contains(*want))
            .map(|&(name, _)| name)
            .collect()
    }

    #[test]
    fn backend_checks_per_class() {
        let wide = [
            "aes-ct vaes 512",
            "aes-ct bsaes 512",
            "ghash-ct vpclmul512",
            "ghash-ct pmuludq 512",
            "aes-gcm-ct vaes-clmul",
        ];
        let vaes256 = [
            "aes-ct vaes 256",
            "ghash-ct vpclmul256",
            "aes-gcm-ct vaes-avx2-clmul",
        ];
        let avx2 = [
            "aes-ct vpaes/bsaes 256",
            "ghash-ct pmuludq 256",
            "adiantum-ct avx2",
        ];
        let aesni = ["aes-ct aesni", "ghash-ct pclmul", "aes-gcm-ct aesni-clmul"];
        let aesni_avx = ["aes-gcm-ct aesni-avx-clmul"];
        let sse = ["aes-ct vpaes/bsaes", "adiantum-ct sse2"];
        let except = |skip: &[&[&str]]| -> std::vec::Vec<&'static str> {
            CHECKS
                .iter()
                .map(|&(n, _)| n)
                .filter(|n| !skip.iter().any(|s| s.contains(n)))
                .collect()
        };

        // Ice Lake / Zen 4: every check.
        assert_eq!(passing(&ICE_LAKE), except(&[]));
        // Zen 3 / Alder Lake: every 256-bit VAES/VPCLMULQDQ path, no 512.
        let zen3 = Cpuid {
            leaf7_ebx: L7B_BMI1 | L7B_AVX2 | L7B_BMI2,
            xcr0: XCR0_YMM,
            ..ICE_LAKE
        };
        assert_eq!(passing(&zen3), except(&[&wide]));
        // AVX-512 hardware, OS without zmm state: the same as Zen 3.
        let no_zmm = Cpuid {
            xcr0: XCR0_YMM,
            ..ICE_LAKE
        };
        assert_eq!(passing(&no_zmm), except(&[&wide]));
        // Haswell: AES-NI, PCLMULQDQ, AVX2.
        let haswell = Cpuid {
            leaf7_ecx: 0,
            ..zen3
        };
        assert_eq!(passing(&haswell), except(&[&wide, &vaes256]));
        // Sandy Bridge (AVX, no AVX2): AES-NI and PCLMULQDQ, the AES-GCM
        // loops in AVX encoding.
        let sandy = Cpuid {
            leaf7_ebx: 0,
            ..haswell
        };
        assert_eq!(passing(&sandy), except(&[&wide, &vaes256, &avx2]));
        // AVX disabled by the OS (no ymm state; Westmere and AES-NI Atoms
        // have no AVX at all): AES-NI and PCLMULQDQ only, in SSE encoding.
        let no_ymm = Cpuid {
            xcr0: XCR0_X87 | XCR0_SSE,
            ..ICE_LAKE
        };
        assert_eq!(
            passing(&no_ymm),
            except(&[&wide, &vaes256, &avx2, &aesni_avx])
        );
        // Core 2: SSSE3 only.
        let core2 = Cpuid {
            max_leaf: 0xa,
            leaf1_ecx: L1C_SSE3 | L1C_SSSE3,
            leaf1_edx: EDX,
            ..Cpuid::default()
        };
        assert_eq!(passing(&core2), sse);
        assert_eq!(except(&[&wide, &vaes256, &avx2, &aesni_avx, &aesni]), sse);
    }

    #[test]
    fn names_match_flags() {
        let mut all = F::EMPTY;
        for (i, &(_, flag)) in F::NAMED.iter().enumerate() {
            assert_eq!(flag.bits(), 1 << i);
            all = all | flag;
        }
        assert_eq!(all, VAES256.union(AVX512));
        assert_eq!(
            std::format!("{:?}", decide(&ICE_LAKE)),
            "{\"sse2\", \"ssse3\", \"sse4.1\", \"pclmulqdq\", \"aes\", \"avx\", \"avx2\", \
             \"vaes\", \"vpclmulqdq\", \"avx512f\", \"avx512bw\", \"avx512vl\", \"avx512dq\"}"
        );
    }

    #[test]
    #[cfg(not(miri))]
    fn live_matches_std() {
        let live = super::features();
        assert_eq!(super::features(), live, "cached value differs");
        std::println!(
            "live x86 features: {live:?} (CPUID {:x?})",
            super::read_cpuid()
        );
        macro_rules! agree {
            ($($name:tt => $flag:ident),* $(,)?) => {
                $(
                    assert_eq!(
                        live.contains(F::$flag),
                        std::arch::is_x86_feature_detected!($name),
                        "{} disagrees with std", $name
                    );
                    assert!(super::has(crate::__x86_feature!($name)) == live.contains(F::$flag));
                )*
            };
        }
        agree! {
            "sse2" => SSE2, "ssse3" => SSSE3, "sse4.1" => SSE41,
            "pclmulqdq" => PCLMULQDQ, "aes" => AES, "avx" => AVX, "avx2" => AVX2,
            "vaes" => VAES, "vpclmulqdq" => VPCLMULQDQ, "avx512f" => AVX512F,
            "avx512bw" => AVX512BW, "avx512vl" => AVX512VL, "avx512dq" => AVX512DQ,
        }
        crate::x86_detect!(cpu_vaes256, "aes", "vaes", "avx2");
        assert_eq!(
            cpu_vaes256::get(),
            live.contains(F::AES | F::VAES | F::AVX2)
        );
    }
}
