//! `ct-trace`: the guest program of the trace-equivalence check. Run it
//! under qemu-user with the `cttrace` plugin (as `cargo xtask ct-trace`
//! does); natively it only runs the workloads.
//!
//! ```text
//! ct-trace [--secrets N] [--only SUBSTR]...   run: one line per window
//! ct-trace list                               workload names
//! ct-trace --singlestep PATH [...]            x86_64 Linux: trace natively
//! ```
//!
//! With `--singlestep` the guest is its own tracer (`ct_check::singlestep`:
//! the CPU's trap flag and a `SIGTRAP` handler) and writes the window lines
//! the plugin would write (without memory addresses) to `PATH`, for the
//! code qemu cannot run.
//!
//! For every workload it runs one warm-up window (secret set 0) and then
//! `N` windows with secret sets 1..=N (default 8), printing first one line
//! `B<TAB>crate<TAB>backends` per crate, then for each window
//! `W<TAB>workload<TAB>expect<TAB>set<TAB>output digest`, in the order the
//! plugin writes its window lines: the driver pairs them by position.

use ct_check::Rng;
use ct_check::trace::{Expect, workloads};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::UnsafeCell;
use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use tracer::Tracer;

/// The allocator of a run: inside a run every allocation comes from a bump
/// arena that restarts at the same address for every run, so a workload's
/// buffers sit at the same addresses for every secret set and the address
/// trace compares the code's accesses, not where malloc happened to put
/// them. Outside runs (workload list, output) the system allocator serves.
struct RunAlloc;

const ARENA: usize = 16 << 20;

#[repr(C, align(4096))]
struct Arena(UnsafeCell<[u8; ARENA]>);

// SAFETY: the arena's bytes are handed out once each per run (bump
// allocation under an atomic cursor); runs are sequential.
unsafe impl Sync for Arena {}

static MEM: Arena = Arena(UnsafeCell::new([0; ARENA]));
static IN_RUN: AtomicBool = AtomicBool::new(false);
static NEXT: AtomicUsize = AtomicUsize::new(0);

fn in_arena(p: *mut u8) -> bool {
    let base = MEM.0.get() as usize;
    (base..base + ARENA).contains(&(p as usize))
}

// SAFETY: `alloc` returns either System's memory or a fresh, aligned,
// in-bounds range of the arena that no other live allocation overlaps
// (the cursor only grows within a run; a new run starts only after the
// previous run's allocations are dropped, see `run`).
unsafe impl GlobalAlloc for RunAlloc {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        if !IN_RUN.load(Ordering::Relaxed) {
            // SAFETY: forwarded with the caller's layout.
            return unsafe { System.alloc(l) };
        }
        let base = MEM.0.get() as usize;
        let start = (base + NEXT.load(Ordering::Relaxed)).next_multiple_of(l.align());
        let end = start + l.size();
        assert!(end <= base + ARENA, "ct-trace: run arena exhausted");
        NEXT.store(end - base, Ordering::Relaxed);
        start as *mut u8
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        if !in_arena(p) {
            // SAFETY: `p` came from System with layout `l`.
            unsafe { System.dealloc(p, l) }
        }
    }
}

#[global_allocator]
static ALLOC: RunAlloc = RunAlloc;

/// One run of a workload on the run arena; its allocations are all
/// dropped when the closure returns (it returns a plain `u64`).
fn run(f: &dyn Fn(&mut Rng) -> u64, rng: &mut Rng) -> u64 {
    NEXT.store(0, Ordering::Relaxed);
    IN_RUN.store(true, Ordering::Relaxed);
    let d = f(rng);
    IN_RUN.store(false, Ordering::Relaxed);
    d
}

fn seed(name: &str, set: u64) -> u64 {
    let h = ct_check::trace::digest(&[name.as_bytes()]);
    h ^ set.wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

fn main() -> ExitCode {
    let mut secrets = 8u64;
    let mut only: Vec<String> = Vec::new();
    let mut list = false;
    let mut singlestep: Option<String> = None;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--secrets" => match it.next().and_then(|s| s.parse().ok()) {
                Some(n) if n >= 2 => secrets = n,
                _ => {
                    eprintln!("--secrets needs a number >= 2");
                    return ExitCode::from(2);
                }
            },
            "--only" => match it.next() {
                Some(s) => only.push(s.clone()),
                None => {
                    eprintln!("--only needs a value");
                    return ExitCode::from(2);
                }
            },
            "--singlestep" => match it.next() {
                Some(p) => singlestep = Some(p.clone()),
                None => {
                    eprintln!("--singlestep needs a path");
                    return ExitCode::from(2);
                }
            },
            "list" => list = true,
            other => {
                eprintln!(
                    "unknown argument `{other}`\nusage: ct-trace [list] [--secrets N] [--only SUBSTR]... [--singlestep PATH]"
                );
                return ExitCode::from(2);
            }
        }
    }
    let all = workloads();
    let selected: Vec<_> = all
        .iter()
        .filter(|w| {
            w.name.starts_with("toy/")
                || only.is_empty()
                || only.iter().any(|o| w.name.contains(o.as_str()))
        })
        .collect();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if list {
        for w in &selected {
            let _ = writeln!(out, "{}", w.name);
        }
        return ExitCode::SUCCESS;
    }
    fn names<B: std::fmt::Display>(backends: impl Iterator<Item = B>) -> Vec<String> {
        backends.map(|b| b.to_string()).collect()
    }
    // What this CPU (as qemu presents it) runs: the driver checks that a
    // configuration tests the backends it claims to.
    let offered: [(&str, Vec<String>); 4] = [
        ("aes-ct", names(aes_ct::Backend::available())),
        ("ghash-ct", names(ghash_ct::Backend::available())),
        ("aes-gcm-ct", names(aes_gcm_ct::Backend::available())),
        ("adiantum-ct", names(adiantum_ct::Backend::available())),
    ];
    for (krate, names) in &offered {
        let _ = writeln!(out, "B\t{krate}\t{}", names.join(","));
    }
    let mut windows = |after: &mut dyn FnMut(u64) -> Result<(), String>| -> Result<(), String> {
        for w in &selected {
            let expect = match w.expect {
                Expect::Same => "same",
                Expect::Leaks => "leaks",
            };
            for set in 0..=secrets {
                let d = run(&*w.run, &mut Rng(seed(&w.name, set)));
                after(d)?;
                let _ = writeln!(out, "W\t{}\t{expect}\t{set}\t{d:016x}", w.name);
            }
        }
        let _ = out.flush();
        Ok(())
    };
    match singlestep.map(|p| Tracer::new(&p)).transpose() {
        Ok(None) => windows(&mut |_| Ok(())),
        Ok(Some(mut t)) => windows(&mut |_| t.window()).and_then(|()| t.finish()),
        Err(e) => Err(e),
    }
    .map_or_else(
        |e| {
            eprintln!("ct-trace: {e}");
            ExitCode::FAILURE
        },
        |()| ExitCode::SUCCESS,
    )
}

/// `--singlestep`: the plugin's window lines from the native traces (no
/// address trace: `addr` is a constant, `mem` zero).
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
mod tracer {
    use std::io::Write;

    pub struct Tracer {
        file: std::io::BufWriter<std::fs::File>,
        path: String,
        windows: u64,
    }

    impl Tracer {
        pub fn new(path: &str) -> Result<Self, String> {
            ct_check::singlestep::install()?;
            let file = std::fs::File::create(path).map_err(|e| format!("{path}: {e}"))?;
            Ok(Self {
                file: std::io::BufWriter::new(file),
                path: path.into(),
                windows: 0,
            })
        }

        pub fn window(&mut self) -> Result<(), String> {
            let (n, t) = ct_check::singlestep::last();
            self.windows += 1;
            if n != self.windows {
                return Err(format!(
                    "{n} windows traced after {} runs: each run must open exactly one",
                    self.windows
                ));
            }
            let div = t.divat.map(|a| format!(" divat={a:x}")).unwrap_or_default();
            writeln!(
                self.file,
                "window {n} insns={} tbs=0 mem=0 pc={:016x} addr=native div={}{div}",
                t.insns, t.pc, t.div
            )
            .map_err(|e| format!("{}: {e}", self.path))
        }

        pub fn finish(mut self) -> Result<(), String> {
            writeln!(self.file, "exit open=0").map_err(|e| format!("{}: {e}", self.path))?;
            self.file.flush().map_err(|e| format!("{}: {e}", self.path))
        }
    }
}

/// No native tracer elsewhere (the driver runs it on x86_64 Linux only).
#[cfg(not(all(target_os = "linux", target_arch = "x86_64")))]
mod tracer {
    pub enum Tracer {}

    impl Tracer {
        pub fn new(_: &str) -> Result<Self, String> {
            Err("--singlestep traces x86_64 Linux only".into())
        }

        pub fn window(&mut self) -> Result<(), String> {
            match *self {}
        }

        pub fn finish(self) -> Result<(), String> {
            match self {}
        }
    }
}
