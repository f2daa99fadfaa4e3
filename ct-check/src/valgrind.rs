//! Valgrind client requests, written out by hand for x86_64.
//!
//! A client request is valgrind's "magic sequence": four `rol` of `rdi`
//! whose amounts add up to 128 (so natively `rdi` is unchanged) followed by
//! `xchg rbx, rbx` (natively a no-op). Valgrind's JIT recognises the
//! sequence and hands the request block whose address is in `rax`
//! (`[request, arg1, .., arg5]`) to the core or the tool; the result comes
//! back in `rdx`, which holds the default value natively. The request codes
//! are from valgrind's public headers: core requests (`RUNNING_ON_VALGRIND`
//! = 0x1001, `COUNT_ERRORS` = 0x1201) and memcheck's, which start at
//! `('M' << 24) | ('C' << 16)`.
//!
//! We write the asm ourselves instead of using a crate: it is twenty lines,
//! needs no C compiler or valgrind headers at build time and no unsafe
//! beyond one `asm!`. (`crabgrind` would do the same through a C shim built
//! against `valgrind/valgrind.h`.) On other architectures every request is
//! a no-op returning its default, and [`running`] says `false`.

/// memcheck request codes (`VG_USERREQ_TOOL_BASE('M', 'C') + n`).
const MC_BASE: usize = (b'M' as usize) << 24 | (b'C' as usize) << 16;
const MAKE_MEM_UNDEFINED: usize = MC_BASE + 1;
const MAKE_MEM_DEFINED: usize = MC_BASE + 2;
const GET_VBITS: usize = MC_BASE + 8;
/// Core requests.
const RUNNING_ON_VALGRIND: usize = 0x1001;
const COUNT_ERRORS: usize = 0x1201;

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn request(default: usize, req: usize, a1: usize, a2: usize, a3: usize) -> usize {
    let block: [usize; 6] = [req, a1, a2, a3, 0, 0];
    let mut result = default;
    // SAFETY: natively the sequence changes no register (`rdi` is rotated
    // by 128 bits in total, `xchg rbx, rbx` is a no-op) and touches no
    // memory. Under valgrind it reads `block` and may change the shadow
    // (definedness) state of memory; the default memory clobber (no
    // `nomem`) keeps the compiler from caching values across it.
    unsafe {
        core::arch::asm!(
            "rol rdi, 3",
            "rol rdi, 13",
            "rol rdi, 61",
            "rol rdi, 51",
            "xchg rbx, rbx",
            inout("rdx") result,
            in("rax") block.as_ptr(),
            options(nostack),
        );
    }
    result
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn request(default: usize, _req: usize, _a1: usize, _a2: usize, _a3: usize) -> usize {
    default
}

/// Are we running under valgrind?
pub fn running() -> bool {
    request(0, RUNNING_ON_VALGRIND, 0, 0, 0) != 0
}

/// Errors valgrind has reported so far in this process (0 natively).
pub fn error_count() -> usize {
    request(0, COUNT_ERRORS, 0, 0, 0)
}

/// Mark the bytes of `*v` as undefined (secret): memcheck then reports any
/// branch, conditional move or memory address computed from them.
pub fn secret<T: ?Sized>(v: &mut T) {
    let n = core::mem::size_of_val(v);
    request(0, MAKE_MEM_UNDEFINED, v as *mut T as *mut u8 as usize, n, 0);
}

/// Mark the bytes of `*v` as defined again (declassify: a public output).
pub fn public<T: ?Sized>(v: &mut T) {
    let n = core::mem::size_of_val(v);
    request(0, MAKE_MEM_DEFINED, v as *mut T as *mut u8 as usize, n, 0);
}

/// A `bool` computed from secrets, declassified (e.g. a tag check result
/// the API returns).
pub fn public_bool(b: bool) -> bool {
    let mut x = core::hint::black_box(b);
    public(&mut x);
    core::hint::black_box(x)
}

/// Does any bit of `v` derive from a secret (is it undefined to memcheck)?
/// `None` when not under valgrind. The harness uses it to prove that the
/// secrets really flowed into the operation it checks.
pub fn is_secret(v: &[u8]) -> Option<bool> {
    if !running() {
        return None;
    }
    let mut vbits = vec![0u8; v.len()];
    let r = request(
        0,
        GET_VBITS,
        v.as_ptr() as usize,
        vbits.as_mut_ptr() as usize,
        v.len(),
    );
    // 1 = success; the V bits are 1 where undefined.
    (r == 1).then(|| vbits.iter().any(|&b| b != 0))
}
