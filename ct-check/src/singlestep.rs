//! Native single-step tracing of one trace window, for the x86 code that
//! qemu-user cannot run (AVX-512 widths, VPCLMULQDQ: `vaes` at 512 bits,
//! `vpclmul256/512`, `vpmuludq512`, `vaes-clmul`, `vaes-avx2-clmul`).
//!
//! Technique: the method of `cttrace.c` with the CPU itself as the
//! emulator, in the guest's own process. [`install`] puts an `int3` on
//! [`ct_trace_begin`] and a `SIGTRAP` handler in place. When a window opens
//! the handler restores the marker's byte, rewinds to it and sets the trap
//! flag; from then on it runs after every instruction, hashing its address
//! in order and decoding it for integer division (`div`/`idiv`, opcode
//! F6/F7 with ModRM.reg 6 or 7 after legacy and REX prefixes; VEX and EVEX
//! encode no integer division), until [`ct_trace_end`], where it clears the
//! flag and puts the `int3` back. One process runs every window, as under
//! qemu, and the guest's run arena keeps buffers at the same addresses, so
//! equal control flow gives equal hashes.
//!
//! What it does not see: memory addresses (single-stepping reports only
//! the instruction pointer), so a secret-indexed load is caught only by
//! the qemu configurations, valgrind and dudect. The code it covers
//! indexes no tables at all (VAES, VPCLMULQDQ, bitsliced AES), which is
//! why control flow and division are the properties left to check there.
//!
//! Cost: one trap and signal delivery per instruction, far slower than
//! qemu per instruction; the driver runs only the workloads qemu cannot.

use crate::trace::{ct_trace_begin, ct_trace_end};

/// What the handler saw of one window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Traced {
    /// Instructions executed from `ct_trace_begin` to `ct_trace_end`.
    pub insns: u64,
    /// FNV-1a hash of their addresses, in order.
    pub pc: u64,
    /// Integer divisions executed.
    pub div: u64,
    /// Address of the first.
    pub divat: Option<u64>,
}

/// `div`/`idiv` at the start of `b` (an x86-64 instruction's bytes).
fn is_division(b: &[u8; 16]) -> bool {
    let mut i = 0;
    while i < 14
        && matches!(
            b[i],
            0x66 | 0x67 | 0xf2 | 0xf3 | 0xf0 | 0x2e | 0x36 | 0x3e | 0x26 | 0x64 | 0x65
        )
    {
        i += 1;
    }
    if (0x40..=0x4f).contains(&b[i]) {
        i += 1;
    }
    matches!(b[i], 0xf6 | 0xf7) && matches!((b[i + 1] >> 3) & 7, 6 | 7)
}

/// The window being traced. Only the `SIGTRAP` handler writes it, and only
/// while a window runs; the guest reads it between windows (one thread).
struct State {
    begin: u64,
    end: u64,
    /// The marker's first byte, replaced by `int3` between windows.
    orig: u8,
    open: bool,
    t: Traced,
    windows: u64,
}

struct Shared(core::cell::UnsafeCell<State>);

// SAFETY: one thread: the guest and the signal handler interrupting it.
unsafe impl Sync for Shared {}

static STATE: Shared = Shared(core::cell::UnsafeCell::new(State {
    begin: 0,
    end: 0,
    orig: 0,
    open: false,
    t: Traced::EMPTY,
    windows: 0,
}));

impl Traced {
    const EMPTY: Self = Self {
        insns: 0,
        pc: 0xcbf2_9ce4_8422_2325,
        div: 0,
        divat: None,
    };
}

/// x86 EFLAGS.TF: trap after the next instruction.
const TF: i64 = 0x100;

/// `div`/`idiv` at `p`, reading only the bytes of the instruction there.
///
/// # Safety
/// `p` is the address of an instruction.
unsafe fn division_at(p: *const u8) -> bool {
    let mut b = [0x90u8; 16];
    let mut i = 0;
    // SAFETY: each byte read is part of the instruction: the prefixes, the
    // opcode, and the ModRM byte only after an opcode that has one.
    unsafe {
        while i < 14 {
            b[i] = p.add(i).read_volatile();
            if !matches!(
                b[i],
                0x66 | 0x67 | 0xf2 | 0xf3 | 0xf0 | 0x2e | 0x36 | 0x3e | 0x26 | 0x64 | 0x65 | 0x40
                    ..=0x4f
            ) {
                break;
            }
            i += 1;
        }
        if matches!(b[i], 0xf6 | 0xf7) {
            b[i + 1] = p.add(i + 1).read_volatile();
        }
    }
    is_division(&b)
}

extern "C" fn on_trap(_: libc::c_int, _: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    // SAFETY: the kernel passes the interrupted context; STATE is touched
    // only here and between windows (see `State`). No allocation, no
    // locks: async-signal-safe.
    unsafe {
        let uc = &mut *(ctx as *mut libc::ucontext_t);
        let g = &mut uc.uc_mcontext.gregs;
        let s = &mut *STATE.0.get();
        let rip = g[libc::REG_RIP as usize] as u64;
        if !s.open {
            if rip != s.begin + 1 {
                // Not our breakpoint: stop loudly rather than trace
                // something else.
                libc::abort();
            }
            // The window opens: put the marker back and step from it.
            (s.begin as *mut u8).write_volatile(s.orig);
            g[libc::REG_RIP as usize] = s.begin as i64;
            g[libc::REG_EFL as usize] |= TF;
            s.open = true;
            s.t = Traced::EMPTY;
            return;
        }
        let t = &mut s.t;
        t.pc = (t.pc ^ rip).wrapping_mul(0x0100_0000_01b3);
        t.insns += 1;
        if rip == s.end {
            g[libc::REG_EFL as usize] &= !TF;
            (s.begin as *mut u8).write_volatile(0xcc);
            s.open = false;
            s.windows += 1;
            return;
        }
        if division_at(rip as *const u8) {
            t.div += 1;
            t.divat.get_or_insert(rip);
        }
    }
}

/// Trace every window this process opens from now on: a `SIGTRAP` handler
/// and an `int3` on [`ct_trace_begin`] (its code page made writable).
pub fn install() -> Result<(), String> {
    let begin = ct_trace_begin as *const () as u64;
    let end = ct_trace_end as *const () as u64;
    // SAFETY: sigaction with a handler of the SA_SIGINFO signature;
    // mprotect of the page(s) holding the marker's first byte, which is
    // this binary's code; the byte write happens after that.
    unsafe {
        let page = libc::sysconf(libc::_SC_PAGESIZE) as u64;
        let first = begin & !(page - 1);
        if libc::mprotect(
            first as *mut libc::c_void,
            page as usize,
            libc::PROT_READ | libc::PROT_WRITE | libc::PROT_EXEC,
        ) != 0
        {
            return Err(format!("mprotect: {}", std::io::Error::last_os_error()));
        }
        let s = &mut *STATE.0.get();
        s.begin = begin;
        s.end = end;
        s.orig = (begin as *const u8).read_volatile();
        let mut sa: libc::sigaction = core::mem::zeroed();
        sa.sa_sigaction = on_trap as *const () as usize;
        sa.sa_flags = libc::SA_SIGINFO;
        if libc::sigaction(libc::SIGTRAP, &sa, core::ptr::null_mut()) != 0 {
            return Err(format!("sigaction: {}", std::io::Error::last_os_error()));
        }
        (begin as *mut u8).write_volatile(0xcc);
    }
    Ok(())
}

/// The windows completed so far and the last one's trace.
pub fn last() -> (u64, Traced) {
    // SAFETY: between windows the handler does not run (see `State`).
    let s = unsafe { &*STATE.0.get() };
    (s.windows, s.t)
}

#[cfg(test)]
mod tests {
    use super::is_division;

    fn bytes(b: &[u8]) -> [u8; 16] {
        let mut a = [0x90; 16];
        a[..b.len()].copy_from_slice(b);
        a
    }

    #[test]
    fn decodes_divisions() {
        for d in [
            &[0xf7, 0xf1][..],            // div ecx
            &[0x48, 0xf7, 0xf9],          // idiv rcx
            &[0x49, 0xf7, 0x30],          // div qword [r8]
            &[0xf6, 0xf3],                // div bl
            &[0x66, 0xf7, 0xf1],          // div cx
            &[0x41, 0xf7, 0x7c, 0x24, 8], // idiv dword [r12+8]
        ] {
            assert!(is_division(&bytes(d)), "{d:02x?}");
        }
        for n in [
            &[0xf7, 0xe1][..],         // mul ecx
            &[0x48, 0xf7, 0xd8],       // neg rax
            &[0xf7, 0xc1, 1, 0, 0, 0], // test ecx, 1
            &[0x0f, 0xaf, 0xc1],       // imul eax, ecx
            &[0xc5, 0xf9, 0xef, 0xc0], // vpxor
        ] {
            assert!(!is_division(&bytes(n)), "{n:02x?}");
        }
    }
}
