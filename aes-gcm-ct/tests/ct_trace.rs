//! Control flow independent of a secret counter, on the real CPU: every
//! path this machine runs (the VAES paths included, which valgrind and
//! qemu cannot run) seals and opens the same message under 16-byte nonces
//! whose J0 (= GHASH_H(nonce), secret) ends in different bytes, around
//! the carries out of the counter's low byte. A forked child runs each
//! message under `ptrace` single-stepping; the parent records every
//! instruction address. The rule "no branch depends on a secret" means
//! the address sequences are identical, whatever the counter.
//!
//! The message: AAD, two VAES batches (four AES-NI batches) and a
//! remainder of 3 blocks and 5 bytes, so a counter carry can fall in a
//! main-loop batch, between batches, or in the remainder.
#![cfg(all(target_os = "linux", target_arch = "x86_64"))]
mod common;

use aes_gcm_ct::{AesGcm, Backend, aead::AeadInOut, aes::Aes128};
use cipher::consts::U16;
use common::*;

type Gcm16 = AesGcm<Aes128, U16>;

/// J0 last bytes to compare: carries at the first batch (0xf0..0xff),
/// at the second (0xe0), in the remainder (0xdc), and none (0x00).
const LOW: [usize; 6] = [0x00, 0xdc, 0xe0, 0xf0, 0xf1, 0xff];
const LEN: usize = 2 * 256 + 3 * 16 + 5;

/// Run `f` in a forked child under single-stepping: the number of
/// instructions from `f`'s start to its end, and a hash of their
/// addresses in order (the same binary and address space in every child,
/// so equal control flow gives equal hashes).
fn trace(f: &dyn Fn()) -> (u64, u64) {
    use core::ptr::null_mut;
    let nul = null_mut::<libc::c_void>();
    // SAFETY: fork/ptrace/waitpid/kill as documented; the child runs only
    // `f` (no allocation: everything it touches was built before the
    // fork) and leaves with `_exit`, never returning into the harness.
    unsafe {
        let pid = libc::fork();
        assert!(pid >= 0, "fork");
        if pid == 0 {
            libc::ptrace(libc::PTRACE_TRACEME, 0, nul, nul);
            libc::raise(libc::SIGSTOP);
            let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_ok();
            libc::raise(libc::SIGSTOP);
            libc::_exit(if ok { 0 } else { 1 });
        }
        let mut st = 0;
        assert_eq!(libc::waitpid(pid, &mut st, 0), pid);
        assert!(libc::WIFSTOPPED(st) && libc::WSTOPSIG(st) == libc::SIGSTOP);
        let (mut n, mut h) = (0u64, 0xcbf2_9ce4_8422_2325u64);
        loop {
            assert_eq!(libc::ptrace(libc::PTRACE_SINGLESTEP, pid, nul, nul), 0);
            assert_eq!(libc::waitpid(pid, &mut st, 0), pid);
            if !(libc::WIFSTOPPED(st) && libc::WSTOPSIG(st) == libc::SIGTRAP) {
                break;
            }
            let mut regs: libc::user_regs_struct = core::mem::zeroed();
            libc::ptrace(libc::PTRACE_GETREGS, pid, nul, &mut regs as *mut _);
            h = (h ^ regs.rip).wrapping_mul(0x0100_0000_01b3);
            n += 1;
        }
        let stopped = libc::WIFSTOPPED(st) && libc::WSTOPSIG(st) == libc::SIGSTOP;
        libc::kill(pid, libc::SIGKILL);
        libc::waitpid(pid, &mut st, 0);
        assert!(stopped, "the traced child did not reach its end");
        (n, h)
    }
}

/// Optimised builds only: the code users run (whose control flow the
/// optimiser may change), with fewer instructions to step.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "checks optimised code: cargo test --release (a step of cargo xtask test)"
)]
fn control_flow_does_not_follow_the_counter() {
    let mut rng = Rng(0x3c6e_f372_fe94_f82b);
    let key = rng.bytes(16);
    let aad = rng.bytes(20);
    let pt = rng.bytes(LEN);
    let nonces = nonces_by_low_byte(&key);
    let mut failures = Vec::new();
    for b in Backend::available() {
        let g = Gcm16::new_with_backend(key.as_slice().try_into().unwrap(), b).unwrap();
        let mut seals = Vec::new();
        let mut opens = Vec::new();
        let mut fails = Vec::new();
        for &low in &LOW {
            let n = (&nonces[low]).into();
            // Warm up (CPU detection caches) and get the tag.
            let mut ct = pt.clone();
            let tag = g
                .encrypt_inout_detached(n, &aad, ct.as_mut_slice().into())
                .unwrap();
            let mut bad = tag;
            bad[0] ^= 1;
            // The children copy these arrays onto their stack (no heap).
            let p: [u8; LEN] = pt.as_slice().try_into().unwrap();
            let c: [u8; LEN] = ct.as_slice().try_into().unwrap();
            seals.push(trace(&|| {
                let mut buf = p;
                let _ = g.encrypt_inout_detached(n, &aad, buf.as_mut_slice().into());
            }));
            opens.push(trace(&|| {
                let mut buf = c;
                assert!(
                    g.decrypt_inout_detached(n, &aad, buf.as_mut_slice().into(), &tag)
                        .is_ok()
                );
            }));
            fails.push(trace(&|| {
                let mut buf = c;
                assert!(
                    g.decrypt_inout_detached(n, &aad, buf.as_mut_slice().into(), &bad)
                        .is_err()
                );
            }));
        }
        for (what, t) in [("seal", &seals), ("open", &opens), ("failed open", &fails)] {
            if t.iter().any(|x| x != &t[0]) {
                let counts: Vec<_> = LOW
                    .iter()
                    .zip(t)
                    .map(|(l, (n, _))| format!("{l:#04x}: {n}"))
                    .collect();
                failures.push(format!(
                    "{b} {what}: instructions by J0 low byte {}",
                    counts.join(", ")
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "control flow follows the secret counter:\n{}",
        failures.join("\n")
    );
}
