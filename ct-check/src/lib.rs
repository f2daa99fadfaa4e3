//! Constant-time checks for the workspace's crates.
//!
//! * `ct-check` (binary, run under valgrind by `cargo xtask ct`): the
//!   "ctgrind" method. Each [`Case`] runs one operation with its secret
//!   inputs (keys, plaintext, GHASH key and state, Adiantum key, tweak and
//!   message) marked undefined through valgrind client requests
//!   ([`valgrind`]); memcheck then reports every conditional jump, move or
//!   memory address computed from them. Outputs are marked defined again
//!   (declassified) before the harness compares them with a run on defined
//!   inputs.
//! * `ct-timing` (binary, `cargo xtask ct --timing`): dudect-style Welch
//!   t-test on fixed-vs-random input classes ([`dudect`]).
//! * `ct-trace` (binary, run under qemu-user with the `trace/cttrace.c`
//!   plugin by `cargo xtask ct-trace`): trace equivalence on x86_64,
//!   aarch64 and armv7 alike; the workloads are in [`trace`].
//! * [`toys`]: deliberately leaky functions; `tests/toys.rs` proves that
//!   the valgrind check catches them, and `ct-trace` runs them as negative
//!   controls on every architecture.
//!
//! Adding a crate: a module with `pub fn cases(out: &mut Vec<Case>,
//! skipped: &mut Vec<Uncovered>)` and one line in [`all_cases`].

pub mod dudect;
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
pub mod singlestep;
pub mod toys;
pub mod trace;
pub mod valgrind;

/// The cases of every backend in `$backends` this run can check (the
/// others go to `$skipped`, through [`checkable`]): for each backend `$b`,
/// one [`Case::on_backend`] per `what => run` line, `run` an expression
/// that may use `$b`.
macro_rules! per_backend {
    ($out:ident, $skipped:ident, $krate:literal, $backends:expr,
     |$b:ident| { $($what:literal => $run:expr),+ $(,)? }) => {
        for &$b in $backends {
            if !$crate::checkable($krate, $b.name(), $b.is_available(), $skipped) {
                continue;
            }
            $($out.push($crate::Case::on_backend($krate, $b.name(), $what, move || $run));)+
        }
    };
}

mod cases_adiantum;
mod cases_aes;
mod cases_gcm;
mod cases_ghash;

/// One checked operation.
pub struct Case {
    /// `crate/backend/operation`.
    pub name: String,
    /// The crate it belongs to.
    pub krate: &'static str,
    /// The backend it exercises.
    pub backend: String,
    /// Runs the operation with secrets marked undefined; returns `Err` if
    /// the result differs from the same operation on defined inputs.
    pub run: Box<dyn Fn() -> Result<(), String>>,
}

impl Case {
    /// The case `name` of `krate`, on `backend` (a description).
    pub fn new(
        name: impl Into<String>,
        krate: &'static str,
        backend: impl Into<String>,
        run: impl Fn() -> Result<(), String> + 'static,
    ) -> Self {
        Case {
            name: name.into(),
            krate,
            backend: backend.into(),
            run: Box::new(run),
        }
    }

    /// The case `what` on `krate`'s backend `backend`, named
    /// `krate/backend/what`.
    pub fn on_backend(
        krate: &'static str,
        backend: &str,
        what: &str,
        run: impl Fn() -> Result<(), String> + 'static,
    ) -> Self {
        Case::new(format!("{krate}/{backend}/{what}"), krate, backend, run)
    }
}

impl std::fmt::Debug for Case {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Case({})", self.name)
    }
}

/// A backend this run does not check, and why.
#[derive(Debug, Clone)]
pub struct Uncovered {
    /// The crate.
    pub krate: &'static str,
    /// The backend name.
    pub backend: String,
    /// Why.
    pub why: String,
}

/// Backends valgrind 3.19 cannot execute, by crate and name, with the
/// reason. They are excluded by name even if the CPU (as valgrind's
/// synthetic CPUID presents it) claims support.
pub const VALGRIND_CANNOT: &[(&str, &str, &str)] = &[
    (
        "aes-ct",
        "bsaes/hybrid at AVX-512 width (32-block planes)",
        "AVX-512 (EVEX) is not implemented by valgrind 3.19 (SIGILL); its CPUID hides avx512, so bsaes runs at AVX2 and SSSE3 width (both checked)",
    ),
    (
        "aes-ct",
        "vaes",
        "VAES: valgrind 3.19's VEX implements neither AVX-512 (EVEX, SIGILL) nor 256-bit VEX VAESENC; its CPUID hides vaes/avx512",
    ),
    (
        "aes-gcm-ct",
        "vaes-clmul",
        "VAES + VPCLMULQDQ on zmm (AVX-512, EVEX) is not implemented by valgrind 3.19 (SIGILL); its CPUID hides vaes/avx512",
    ),
    (
        "aes-gcm-ct",
        "vaes-avx2-clmul",
        "256-bit VEX VAESENC/VPCLMULQDQ are not implemented by valgrind 3.19's VEX (SIGILL); its CPUID hides vaes/vpclmulqdq",
    ),
    (
        "ghash-ct",
        "vpclmul512",
        "VPCLMULQDQ on zmm needs AVX-512 (EVEX), which valgrind 3.19 does not implement (SIGILL)",
    ),
    (
        "ghash-ct",
        "vpmuludq512",
        "AVX-512 (EVEX) is not implemented by valgrind 3.19 (SIGILL); its CPUID hides avx512. The same generic code at 256- and 128-bit width (vpmuludq256, pmuludq) is checked",
    ),
    (
        "ghash-ct",
        "vpclmul256",
        "256-bit VEX VPCLMULQDQ is not implemented by valgrind 3.19's VEX; its CPUID hides vpclmulqdq",
    ),
];

/// Why `backend` of `krate` cannot be checked under valgrind, if it can't.
pub fn valgrind_cannot(krate: &str, backend: &str) -> Option<&'static str> {
    VALGRIND_CANNOT
        .iter()
        .find(|(k, b, _)| *k == krate && *b == backend)
        .map(|(_, _, why)| *why)
}

/// Record `backend` of `krate` as uncovered for `why`, or return `true` if
/// it can be checked in this process.
pub fn checkable(
    krate: &'static str,
    backend: &str,
    available: bool,
    skipped: &mut Vec<Uncovered>,
) -> bool {
    let why = if let Some(why) = valgrind_cannot(krate, backend) {
        why.to_string()
    } else if !available {
        format!(
            "not in this build for this target, or this CPU{} lacks it",
            if valgrind::running() {
                " (as valgrind's synthetic CPUID presents it)"
            } else {
                ""
            }
        )
    } else {
        return true;
    };
    skipped.push(Uncovered {
        krate,
        backend: backend.to_string(),
        why,
    });
    false
}

/// Every case of every crate, and the backends left out.
pub fn all_cases() -> (Vec<Case>, Vec<Uncovered>) {
    let mut cases = Vec::new();
    let mut skipped: Vec<Uncovered> = VALGRIND_CANNOT
        .iter()
        .filter(|(_, b, _)| b.contains(' '))
        .map(|&(krate, b, why)| Uncovered {
            krate,
            backend: b.into(),
            why: why.into(),
        })
        .collect();
    cases_aes::cases(&mut cases, &mut skipped);
    cases_ghash::cases(&mut cases, &mut skipped);
    cases_adiantum::cases(&mut cases, &mut skipped);
    cases_gcm::cases(&mut cases, &mut skipped);
    (cases, skipped)
}

/// Deterministic byte generator for test inputs: the workspace's seeded
/// test PRNG (splitmix64).
pub use ct_dispatch::test_util::Rng;

/// Compare a result computed from secrets (declassified here) with the
/// reference computed from defined inputs.
///
/// Under valgrind, `got` must still be secret (undefined) before it is
/// declassified here: that proves the secrets reached the operation (a case
/// that accidentally ran on defined copies would check nothing).
pub fn same(what: &str, mut got: Vec<u8>, want: &[u8]) -> Result<(), String> {
    if !got.is_empty() && valgrind::is_secret(&got) == Some(false) {
        return Err(format!(
            "{what}: the output is not derived from the secrets (harness bug)"
        ));
    }
    valgrind::public(got.as_mut_slice());
    if got == want {
        Ok(())
    } else {
        Err(format!("{what}: result differs from the defined-input run"))
    }
}
