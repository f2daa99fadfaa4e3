//! dudect-style statistical timing test (Reparaz, Balasch, Verbauwhede,
//! "Dude, is my code constant time?", DATE 2017): time an operation on two
//! input classes (fixed vs random), interleaved in random order, and
//! compare the two timing distributions with Welch's t-test. Like dudect,
//! the test is repeated on measurements cropped at several percentiles
//! (removing the long upper tail caused by interrupts), and the largest
//! |t| is reported. |t| > 4.5 is dudect's threshold for "probably not
//! constant time"; on a shared, noisy machine a value a little above it can
//! be noise, so the caller decides what fails.

use crate::Rng;

/// Online mean and variance (Welford).
#[derive(Debug, Clone, Copy, Default)]
pub struct Stats {
    n: f64,
    mean: f64,
    m2: f64,
}

impl Stats {
    /// Add one sample.
    pub fn push(&mut self, x: f64) {
        self.n += 1.0;
        let d = x - self.mean;
        self.mean += d / self.n;
        self.m2 += d * (x - self.mean);
    }

    /// Sample variance.
    pub fn var(&self) -> f64 {
        if self.n < 2.0 {
            0.0
        } else {
            self.m2 / (self.n - 1.0)
        }
    }
}

/// Welch's t statistic of two samples.
pub fn welch_t(a: &Stats, b: &Stats) -> f64 {
    let se = (a.var() / a.n + b.var() / b.n).sqrt();
    if se == 0.0 || !se.is_finite() {
        0.0
    } else {
        (a.mean - b.mean) / se
    }
}

/// A cycle (or nanosecond) counter.
#[inline(always)]
pub fn now() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: RDTSC is available on every x86_64 CPU and has no
        // memory effects.
        unsafe { core::arch::x86_64::_rdtsc() }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        use std::time::Instant;
        static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
        START.get_or_init(Instant::now).elapsed().as_nanos() as u64
    }
}

/// Result of one test.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The largest |t| over the cropped and uncropped tests.
    pub max_t: f64,
    /// Samples per class (uncropped).
    pub samples: usize,
    /// Mean cycles per operation (fixed class, uncropped).
    pub mean_cycles: f64,
}

/// Percentiles at which the measurements are cropped (dudect's
/// `1 - 0.5^(10 (i+1) / n)` spread, a few of them), and 1.0 = uncropped.
const CROPS: &[f64] = &[1.0, 0.99, 0.95, 0.9, 0.8, 0.7, 0.5];

/// Run the test: `prepare(class, rng, input)` fills the input buffer for
/// class 0 (fixed) or 1 (random), `op(input)` is timed. `batches` batches
/// of `per_batch` measurements each.
pub fn test(
    input_len: usize,
    batches: usize,
    per_batch: usize,
    mut prepare: impl FnMut(usize, &mut Rng, &mut [u8]),
    mut op: impl FnMut(&[u8]),
) -> Outcome {
    let mut rng = Rng(0x1234_5678 ^ now());
    let mut all: [Vec<u64>; 2] = [Vec::new(), Vec::new()];
    let mut inputs = vec![vec![0u8; input_len]; per_batch];
    let mut classes = vec![0usize; per_batch];
    let mut times = vec![0u64; per_batch];
    // Warm up.
    for _ in 0..per_batch.min(1000) {
        op(&inputs[0]);
    }
    for _ in 0..batches {
        for (i, input) in inputs.iter_mut().enumerate() {
            classes[i] = (rng.next_u64() & 1) as usize;
            prepare(classes[i], &mut rng, input);
        }
        for i in 0..per_batch {
            let t0 = now();
            op(&inputs[i]);
            let t1 = now();
            times[i] = t1.wrapping_sub(t0);
        }
        for i in 0..per_batch {
            all[classes[i]].push(times[i]);
        }
    }
    let mut max_t: f64 = 0.0;
    let mut sorted: Vec<u64> = all[0].iter().chain(all[1].iter()).copied().collect();
    sorted.sort_unstable();
    for &p in CROPS {
        let idx = ((sorted.len() as f64 - 1.0) * p) as usize;
        let cut = sorted[idx.min(sorted.len() - 1)];
        let mut s = [Stats::default(); 2];
        for c in 0..2 {
            for &x in &all[c] {
                if x <= cut {
                    s[c].push(x as f64);
                }
            }
        }
        let t = welch_t(&s[0], &s[1]).abs();
        if t > max_t {
            max_t = t;
        }
    }
    let mut fixed = Stats::default();
    for &x in &all[0] {
        fixed.push(x as f64);
    }
    Outcome {
        max_t,
        samples: all[0].len().min(all[1].len()),
        mean_cycles: fixed.mean,
    }
}
