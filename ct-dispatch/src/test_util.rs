//! The helpers the crates' test suites and ct-check share (feature
//! `test-util`, never taken by a library; not part of the API): one seeded
//! PRNG, so every suite's inputs reproduce from its seed, one hex decoder
//! for the known-answer files, the list of backends a suite runs on, and
//! a dead-stack scan.
//! Test inputs only: never for keys.

extern crate alloc;
extern crate std;

use alloc::vec::Vec;

/// Deterministic test inputs (splitmix64): `Rng(seed)`.
#[derive(Debug, Clone)]
pub struct Rng(pub u64);

impl Rng {
    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform-ish in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        assert!(n > 0, "Rng::below(0)");
        (self.next_u64() % n as u64) as usize
    }

    /// Uniform-ish in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        assert!(lo <= hi, "Rng::range({lo}, {hi})");
        lo + (self.next_u64() % ((hi - lo) as u64 + 1)) as usize
    }

    /// Fill `buf`.
    pub fn fill(&mut self, buf: &mut [u8]) {
        for c in buf.chunks_mut(8) {
            let r = self.next_u64().to_le_bytes();
            c.copy_from_slice(&r[..c.len()]);
        }
    }

    /// `n` random bytes.
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        let mut v = alloc::vec![0u8; n];
        self.fill(&mut v);
        v
    }

    /// `N` random bytes (a test key, block or nonce).
    pub fn array<const N: usize>(&mut self) -> [u8; N] {
        let mut a = [0u8; N];
        self.fill(&mut a);
        a
    }
}

/// Every backend of `available`, which must include `portable` (the one
/// that always runs), printed so a test log shows what was covered.
pub fn backends<B: PartialEq + core::fmt::Debug>(
    available: impl Iterator<Item = B>,
    portable: B,
) -> Vec<B> {
    let v: Vec<B> = available.collect();
    assert!(
        v.contains(&portable),
        "the portable backend {portable:?} must always be available"
    );
    std::eprintln!("testing backends: {v:?}");
    v
}

/// How many of `needles` (32-byte runs) lie in the 64 KiB of dead stack
/// below the caller's frame, that is, what the caller's earlier (deeper)
/// calls left behind: for tests that secrets are not left on the stack.
#[inline(never)]
pub fn dead_stack_hits<N: AsRef<[u8]>>(needles: &[N]) -> usize {
    let region = core::mem::MaybeUninit::<[u8; 65536]>::uninit();
    let p = region.as_ptr() as *const u8;
    // SAFETY: reads within `region`; the bytes are whatever earlier calls
    // left there (that is what the caller looks at).
    let stack: Vec<u8> = (0..65536)
        .map(|i| unsafe { core::ptr::read_volatile(p.add(i)) })
        .collect();
    needles
        .iter()
        .filter(|n| stack.windows(32).any(|w| w == n.as_ref()))
        .count()
}

/// Decode hex test data (surrounding white space ignored); panics naming
/// the string if it is not hex.
pub fn unhex(s: &str) -> Vec<u8> {
    let s = s.trim().as_bytes();
    let nibble = |c: u8| match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        b'A'..=b'F' => c - b'A' + 10,
        _ => panic!(
            "bad hex digit {:?} in {:?}",
            c as char,
            core::str::from_utf8(s)
        ),
    };
    assert!(
        s.len().is_multiple_of(2),
        "odd-length hex {:?}",
        core::str::from_utf8(s)
    );
    s.chunks(2)
        .map(|p| nibble(p[0]) << 4 | nibble(p[1]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unhex_decodes_both_cases_and_trims() {
        assert_eq!(unhex(" 00ff7A\n"), [0x00, 0xff, 0x7a]);
        assert!(unhex("").is_empty());
    }

    #[test]
    #[should_panic(expected = "bad hex digit")]
    fn unhex_rejects_non_hex() {
        unhex("0g");
    }

    /// splitmix64's published first output for seed 0.
    #[test]
    fn rng_is_splitmix64() {
        assert_eq!(Rng(0).next_u64(), 0xe220_a839_7b1d_cdaf);
        let mut r = Rng(3);
        for _ in 0..1000 {
            assert!((5..=9).contains(&r.range(5, 9)));
            assert!(r.below(3) < 3);
        }
    }
}
