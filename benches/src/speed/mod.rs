//! The `speed` binary's parts: a calibrated timing loop, the table model
//! and renderer, OpenSSL's `speed` as an outside reference, and one
//! module per crate measured.
//!
//! Adding a crate's measurements: write
//! `benches/src/speed/<name>.rs` with `pub fn run(ctx: &mut Ctx)` (see
//! `aes.rs`: declare a table, add rows measured side by side with
//! [`Ctx::rows_side_by_side`], rows from elsewhere with [`Ctx::row`], and
//! [`Ctx::openssl`]), then add its name to the
//! `suites!` line below. That line is the only other change.

use std::fmt::Write as _;
use std::hint::black_box;
use std::process::Command;
use std::time::Duration;

macro_rules! suites {
    ($($name:ident),* $(,)?) => {
        $(pub mod $name;)*
        /// Every suite, in the order the tables are printed.
        pub const SUITES: &[(&str, fn(&mut Ctx))] = &[$((stringify!($name), $name::run)),*];
    };
}

// One name per measured crate, in print order.
suites!(aes, ghash, gcm, adiantum);

pub mod svg;

/// Rounds of [`Ctx::measure_alternating`]: the best of these rounds that
/// take every implementation in turn.
pub const ROUNDS: usize = 27;

/// How a side-by-side figure is taken, for captions and notes.
pub fn rounds_note() -> String {
    format!("best of {ROUNDS} alternating rounds")
}

/// `OPENSSL_ia32cap` value that hides AES-NI and PCLMULQDQ (CPUID.1:ECX
/// bits 25 and 1) from OpenSSL, and the note for rows measured with it.
pub const OPENSSL_NO_AESNI: &str = "~0x200000200000000";
pub const OPENSSL_NO_AESNI_NOTE: &str = "* OpenSSL with OPENSSL_ia32cap=~0x200000200000000 (AES-NI and PCLMULQDQ hidden): \
     bsaes/vpaes, not constant time for every path.";

/// What a row is, for the ratio lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// One of our implementations: gets a ratio line against every
    /// reference row of its table.
    Ours,
    /// What we compare against (RustCrypto, auto-detected and soft).
    Reference,
    /// Shown for context only (OpenSSL).
    Other,
}

impl Role {
    fn as_str(self) -> &'static str {
        match self {
            Role::Ours => "ours",
            Role::Reference => "reference",
            Role::Other => "other",
        }
    }

    fn parse(s: &str) -> Option<Role> {
        Some(match s {
            "ours" => Role::Ours,
            "reference" => Role::Reference,
            "other" => Role::Other,
            _ => return None,
        })
    }
}

/// A column: `key` names it in rows, `header` is printed;
/// `lower_is_better` for times (ratios are then inverted, so a ratio
/// above 1 always means "ours is faster").
#[derive(Clone, Copy, Debug)]
pub struct Col {
    pub key: &'static str,
    pub header: &'static str,
    pub lower_is_better: bool,
}

#[derive(Clone, Debug)]
struct Row {
    role: Role,
    name: String,
    cells: Vec<(String, f64)>,
}

#[derive(Clone, Debug)]
struct Table {
    title: String,
    caption: String,
    cols: Vec<Col>,
    rows: Vec<Row>,
    /// Explicit ratio lines `(ours, base)` by row name; when empty, every
    /// `Ours` row against every `Reference` row.
    ratios: Vec<(String, String)>,
}

/// Run options, from the command line.
#[derive(Clone, Debug)]
pub struct Options {
    /// Time spent on one measurement, split into [`ROUNDS`] short rounds
    /// of which the fastest is kept ([`Ctx::measure_alternating`]).
    pub time: Duration,
    /// This run is the soft build's (xtask builds it with
    /// `--cfg aes_backend="soft" --cfg polyval_backend="soft"` and
    /// `--cfg aes_ct_backend="hybrid" --cfg ghash_ct_backend="NAME"`, NAME
    /// the GHASH backend this CPU would take without PCLMULQDQ):
    /// measure only the rows that need those cfgs, the RustCrypto-soft
    /// references and aes-gcm-ct's software path (see `gcm.rs`).
    pub soft_build: bool,
    /// This run is the build against ring with AES-NI and PCLMULQDQ hidden
    /// from its CPU detection (xtask patches a scratch copy of ring and
    /// builds with `--cfg aes_ct_backend="hybrid" --cfg
    /// ghash_ct_backend="pmuludq"` and benches' `test-hooks`): measure only
    /// the SSSE3-width table (see `gcm.rs`).
    pub ssse3_build: bool,
    /// This run is the build against RustCrypto `aes` with its AVX-512
    /// check patched to fail (xtask, on x86_64 CPUs with AVX-512 VAES,
    /// with benches' `test-hooks` and `--cfg speed_rustcrypto_vaes256`):
    /// measure only the AVX2-width AES tables (see `aes.rs`).
    pub avx2_build: bool,
    /// This run is the build against ring with VAES and VPCLMULQDQ hidden
    /// from its CPU detection (xtask, on x86_64, with benches'
    /// `test-hooks`): measure only the AES-NI-width AES-GCM tables (see
    /// `gcm.rs`).
    pub aesni_build: bool,
    pub openssl: bool,
    /// Only suites whose name contains one of these.
    pub filter: Vec<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            time: Duration::from_millis(150),
            soft_build: false,
            ssse3_build: false,
            avx2_build: false,
            aesni_build: false,
            openssl: true,
            filter: Vec::new(),
        }
    }
}

/// Passed to each suite: collects its tables and rows.
#[derive(Debug)]
pub struct Ctx {
    pub opts: Options,
    tables: Vec<Table>,
    notes: Vec<String>,
    openssl_version: Option<Option<String>>,
}

impl Ctx {
    pub fn new(opts: Options) -> Ctx {
        Ctx {
            opts,
            tables: Vec::new(),
            notes: Vec::new(),
            openssl_version: None,
        }
    }

    /// Declare a table (columns in print order). Declaring it again is a no-op.
    pub fn table(&mut self, title: &str, caption: &str, cols: &[Col]) {
        if !self.tables.iter().any(|t| t.title == title) {
            self.tables.push(Table {
                title: title.into(),
                caption: caption.into(),
                cols: cols.to_vec(),
                rows: Vec::new(),
                ratios: Vec::new(),
            });
        }
    }

    /// Should rows of this role be measured in this run? (The soft build
    /// measures only references; a suite may add rows of its own that need
    /// that build, checking [`Options::soft_build`].)
    pub fn wants(&self, role: Role) -> bool {
        !self.opts.soft_build || role == Role::Reference
    }

    /// Print the ratio line `ours` vs `base` (row names) under `table`.
    /// Once a table has one, only its declared lines are printed instead of
    /// every `Ours` row against every `Reference` row; lines whose rows are
    /// missing in this run are left out.
    pub fn ratio(&mut self, table: &str, ours: &str, base: &str) {
        let t = self
            .tables
            .iter_mut()
            .find(|t| t.title == table)
            .expect("ratio for an undeclared table");
        let pair = (ours.to_owned(), base.to_owned());
        if !t.ratios.contains(&pair) {
            t.ratios.push(pair);
        }
    }

    /// Add a row to a declared table; cells are `(column key, value)`.
    pub fn row(&mut self, table: &str, role: Role, name: &str, cells: Vec<(String, f64)>) {
        let t = self
            .tables
            .iter_mut()
            .find(|t| t.title == table)
            .expect("row for an undeclared table");
        t.rows.push(Row {
            role,
            name: name.into(),
            cells,
        });
    }

    /// The value of column `key` in row `row` of table `table`, if there.
    pub fn cell(&self, table: &str, row: &str, key: &str) -> Option<f64> {
        let t = self.tables.iter().find(|t| t.title == table)?;
        let r = t.rows.iter().find(|r| r.name == row)?;
        r.cells.iter().find(|(k, _)| k == key).map(|&(_, v)| v)
    }

    /// A line printed under the tables.
    pub fn note(&mut self, text: &str) {
        if !self.notes.iter().any(|n| n == text) {
            self.notes.push(text.into());
        }
    }

    /// Seconds per call of each of `fs`: each calibrated to `time /
    /// ROUNDS` per round (so each takes `time` in all), then [`ROUNDS`]
    /// rounds that run every function in turn; the fastest round of each.
    /// Short rounds keep the functions close in time, so load that comes
    /// and goes on a shared machine meets them alike. Load only ever slows
    /// a round, so the fastest is the least disturbed (Chen and Revels,
    /// "Robust benchmarking in noisy environments", 2016), where a median
    /// lets a burst that lasts through half of one function's rounds set
    /// its figure.
    pub fn measure_alternating(&self, fs: &mut [&mut dyn FnMut()]) -> Vec<f64> {
        let per_rep = self.opts.time.as_secs_f64() / ROUNDS as f64;
        let n: Vec<u64> = fs
            .iter_mut()
            .map(|f| calibrate(&mut **f, per_rep))
            .collect();
        let mut rounds = vec![Vec::with_capacity(ROUNDS); fs.len()];
        for _ in 0..ROUNDS {
            for ((f, &n), r) in fs.iter_mut().zip(&n).zip(&mut rounds) {
                r.push(time_n(&mut **f, n) / n as f64);
            }
        }
        rounds
            .into_iter()
            .map(|r| r.into_iter().fold(f64::INFINITY, f64::min))
            .collect()
    }

    /// Add `rows` to `table`, measured side by side: the probes that fill
    /// the same first column in several rows are timed together
    /// ([`Ctx::measure_alternating`]), one column after another.
    pub fn rows_side_by_side(&mut self, table: &str, mut rows: Vec<Measured<'_>>) {
        let mut keys: Vec<String> = Vec::new();
        for p in rows.iter().flat_map(|r| &r.probes) {
            if !keys.contains(&p.cells[0].0) {
                keys.push(p.cells[0].0.clone());
            }
        }
        let mut cells = vec![Vec::new(); rows.len()];
        for key in &keys {
            let mut fills = Vec::new();
            let mut fs: Vec<&mut dyn FnMut()> = Vec::new();
            for (i, r) in rows.iter_mut().enumerate() {
                for Probe { cells, run } in r.probes.iter_mut().filter(|p| p.cells[0].0 == *key) {
                    fills.push((i, &*cells));
                    fs.push(&mut **run);
                }
            }
            let t = self.measure_alternating(&mut fs);
            for ((i, fill), t) in fills.into_iter().zip(t) {
                cells[i].extend(fill.iter().map(|(k, unit)| (k.clone(), unit.value(t))));
            }
        }
        for (r, c) in rows.iter().zip(cells) {
            self.row(table, r.role, &r.name, c);
        }
    }

    /// Key setup and key size tables `"<prefix> key setup"` and
    /// `"<prefix> key size"` for `keys` (AES-128 and AES-256 columns), set
    /// up alternately ([`Ctx::measure_alternating`]); the ratio lines are
    /// the caller's ([`Ctx::ratio`]). Returns the two titles.
    pub fn key_tables(&mut self, prefix: &str, keys: Vec<KeyImpl<'_>>) -> (String, String) {
        let setup = format!("{prefix} key setup");
        let size = format!("{prefix} key size");
        self.table(
            &setup,
            &format!("ns per key setup + drop, {}", rounds_note()),
            KEY_SETUP_COLS,
        );
        self.table(
            &size,
            "bytes: size_of the key type, heap bytes it holds (malloc chunks), their sum",
            KEY_SIZE_COLS,
        );
        let mut keys = keys;
        for (bits, col) in [(128, "128"), (256, "256")] {
            let mut fs: Vec<&mut dyn FnMut()> = keys
                .iter_mut()
                .map(|k| &mut *k.setup[usize::from(bits == 256)] as &mut dyn FnMut())
                .collect();
            let ns = self.measure_alternating(&mut fs);
            for (k, t) in keys.iter_mut().zip(ns) {
                k.cells.push((col.to_owned(), t * 1e9));
            }
        }
        for k in keys {
            self.row(&setup, k.role, &k.name, k.cells);
            let mut c = Vec::new();
            for (i, bits) in ["128", "256"].iter().enumerate() {
                let (stack, heap) = k.size[i];
                c.push((format!("{bits}size"), stack as f64));
                if let Some(h) = heap {
                    c.push((format!("{bits}heap"), h as f64));
                    c.push((format!("{bits}total"), (stack + h) as f64));
                }
            }
            self.row(&size, k.role, &k.name, c);
        }
        (setup, size)
    }

    /// `openssl version`, if OpenSSL measurements are on and it runs.
    pub fn openssl_version(&mut self) -> Option<String> {
        if !self.opts.openssl || self.opts.soft_build {
            return None;
        }
        self.openssl_version
            .get_or_insert_with(|| {
                let out = Command::new("openssl").arg("version").output().ok()?;
                out.status
                    .success()
                    .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
            })
            .clone()
    }

    /// `openssl speed -evp <cipher>` at each size, in MB/s (one second per
    /// size: OpenSSL's shortest). `env` is extra environment, e.g.
    /// `OPENSSL_ia32cap`. `None` if OpenSSL is absent or the run failed.
    pub fn openssl(
        &mut self,
        cipher: &str,
        sizes: &[usize],
        env: &[(&str, &str)],
    ) -> Option<Vec<f64>> {
        self.openssl_with(cipher, sizes, env, &[])
    }

    /// [`Ctx::openssl`] with extra `openssl speed` options (e.g. `-aead`,
    /// `-decrypt`).
    pub fn openssl_with(
        &mut self,
        cipher: &str,
        sizes: &[usize],
        env: &[(&str, &str)],
        args: &[&str],
    ) -> Option<Vec<f64>> {
        self.openssl_version()?;
        let mut out = Vec::new();
        for &size in sizes {
            let o = Command::new("openssl")
                .args(["speed", "-mr", "-seconds", "1", "-bytes", &size.to_string()])
                .args(args)
                .args(["-evp", cipher])
                .envs(env.iter().copied())
                .output()
                .ok()?;
            if !o.status.success() {
                return None;
            }
            // `+F:<n>:<name>:<bytes per second>` (machine-readable mode).
            let text = String::from_utf8_lossy(&o.stdout);
            let bps: f64 = text
                .lines()
                .find(|l| l.starts_with("+F:"))?
                .rsplit(':')
                .next()?
                .trim()
                .parse()
                .ok()?;
            out.push(bps / 1e6);
        }
        Some(out)
    }

    /// Rows as tab-separated lines, for another build's run to merge.
    pub fn to_tsv(&self) -> String {
        let mut s = String::new();
        for t in &self.tables {
            for r in &t.rows {
                let _ = write!(s, "row\t{}\t{}\t{}", t.title, r.role.as_str(), r.name);
                for (k, v) in &r.cells {
                    let _ = write!(s, "\t{k}={v}");
                }
                s.push('\n');
            }
        }
        for n in &self.notes {
            let _ = writeln!(s, "note\t{n}");
        }
        s
    }

    /// Merge rows printed by [`Ctx::to_tsv`] of another run (tables must
    /// be declared here already; rows for unknown tables are dropped).
    pub fn merge_tsv(&mut self, tsv: &str) {
        for line in tsv.lines() {
            let f: Vec<&str> = line.split('\t').collect();
            match f.as_slice() {
                ["row", table, role, name, cells @ ..] => {
                    let Some(role) = Role::parse(role) else {
                        continue;
                    };
                    let cells = cells
                        .iter()
                        .filter_map(|c| {
                            let (k, v) = c.split_once('=')?;
                            Some((k.to_owned(), v.parse().ok()?))
                        })
                        .collect();
                    if let Some(t) = self.tables.iter_mut().find(|t| t.title == *table) {
                        t.rows.push(Row {
                            role,
                            name: (*name).into(),
                            cells,
                        });
                    }
                }
                ["note", text] => self.note(text),
                _ => {}
            }
        }
    }

    /// One chart per table with message-size columns (a column whose key
    /// is a number of bytes and whose values are throughputs, i.e. not
    /// `lower_is_better`), one series per row with at least one such value;
    /// `suffix` is appended to each title (the CPU).
    pub fn charts(&self, suffix: &str) -> Vec<svg::Chart> {
        let mut out = Vec::new();
        for t in &self.tables {
            let cols: Vec<(&str, f64)> = t
                .cols
                .iter()
                .filter(|c| !c.lower_is_better)
                .filter_map(|c| Some((c.key, c.key.parse::<u32>().ok()?.into())))
                .collect();
            if cols.is_empty() {
                continue;
            }
            let series: Vec<svg::Series> = t
                .rows
                .iter()
                .map(|r| svg::Series {
                    name: r.name.clone(),
                    points: cols
                        .iter()
                        .filter_map(|&(k, x)| {
                            let &(_, y) = r.cells.iter().find(|(ck, _)| ck == k)?;
                            Some((x, y))
                        })
                        .collect(),
                })
                .filter(|s| !s.points.is_empty())
                .collect();
            if !series.is_empty() {
                out.push(svg::Chart {
                    title: format!("{}{suffix}", t.title),
                    series,
                });
            }
        }
        out
    }

    /// The tables, `bssl speed`-like, with ratio lines.
    pub fn render(&self) -> String {
        let mut s = String::new();
        for t in &self.tables {
            if t.rows.is_empty() {
                continue;
            }
            let find = |name: &str| t.rows.iter().find(|r| r.name == name);
            let pairs: Vec<(&Row, &Row)> = if t.ratios.is_empty() {
                let refs = t.rows.iter().filter(|r| r.role == Role::Reference);
                t.rows
                    .iter()
                    .filter(|r| r.role == Role::Ours)
                    .flat_map(|o| refs.clone().map(move |b| (o, b)))
                    .collect()
            } else {
                t.ratios
                    .iter()
                    .filter_map(|(a, b)| Some((find(a)?, find(b)?)))
                    .collect()
            };
            let label = |ours: &Row, base: &Row| format!("  {} vs {}", ours.name, base.name);
            let name_w = t
                .rows
                .iter()
                .map(|r| r.name.len())
                .chain(pairs.iter().map(|(a, b)| label(a, b).len()))
                .max()
                .unwrap_or(0)
                .max(t.title.len())
                .max(30)
                + 2;
            let col_w = |c: &Col| c.header.len().max(8) + 2;
            let _ = writeln!(s, "\n{}  ({})", t.title, t.caption);
            let _ = write!(s, "{:<name_w$}", "");
            for c in &t.cols {
                let _ = write!(s, "{:>w$}", c.header, w = col_w(c));
            }
            s.push('\n');
            let cell = |r: &Row, key: &str| r.cells.iter().find(|(k, _)| k == key).map(|&(_, v)| v);
            for r in &t.rows {
                let _ = write!(s, "{:<name_w$}", r.name);
                for c in &t.cols {
                    let v = match cell(r, c.key) {
                        Some(v) if v >= 100.0 => format!("{v:.0}"),
                        Some(v) => format!("{v:.1}"),
                        None => "-".into(),
                    };
                    let _ = write!(s, "{v:>w$}", w = col_w(c));
                }
                s.push('\n');
            }
            for (ours, base) in pairs {
                let _ = write!(s, "{:<name_w$}", label(ours, base));
                for c in &t.cols {
                    let v = match (cell(ours, c.key), cell(base, c.key)) {
                        (Some(a), Some(b)) if a > 0.0 && b > 0.0 => {
                            format!("{:.2}x", if c.lower_is_better { b / a } else { a / b })
                        }
                        _ => "-".into(),
                    };
                    let _ = write!(s, "{v:>w$}", w = col_w(c));
                }
                s.push('\n');
            }
        }
        if !self.notes.is_empty() {
            s.push('\n');
            for n in &self.notes {
                let _ = writeln!(s, "{n}");
            }
        }
        s
    }
}

/// An iteration count of `f` that takes about `per_rep` seconds (after a
/// warm-up: grow it until a run takes at least a tenth of that).
fn calibrate(f: &mut dyn FnMut(), per_rep: f64) -> u64 {
    let mut n = 1u64;
    let mut t = time_n(f, n);
    while t < per_rep / 10.0 && n < 1 << 40 {
        n *= if t < per_rep / 1000.0 { 16 } else { 2 };
        t = time_n(f, n);
    }
    ((n as f64) * per_rep / t.max(1e-9)).max(1.0) as u64
}

/// Seconds for `n` calls of `f`.
fn time_n(f: &mut dyn FnMut(), n: u64) -> f64 {
    let t = Clock::now();
    for _ in 0..n {
        f();
    }
    t.elapsed()
}

#[rustfmt::skip]
const KEY_SETUP_COLS: &[Col] = &[
    Col { key: "128", header: "AES-128 ns", lower_is_better: true },
    Col { key: "256", header: "AES-256 ns", lower_is_better: true },
];

#[rustfmt::skip]
const KEY_SIZE_COLS: &[Col] = &[
    Col { key: "128size", header: "AES-128 size_of", lower_is_better: true },
    Col { key: "128heap", header: "heap", lower_is_better: true },
    Col { key: "128total", header: "total", lower_is_better: true },
    Col { key: "256size", header: "AES-256 size_of", lower_is_better: true },
    Col { key: "256heap", header: "heap", lower_is_better: true },
    Col { key: "256total", header: "total", lower_is_better: true },
];

/// One implementation for [`Ctx::key_tables`]: made with [`KeyImpl::new`].
pub struct KeyImpl<'a> {
    name: String,
    role: Role,
    /// Set up and drop an AES-128 and an AES-256 key.
    setup: [Box<dyn FnMut() + 'a>; 2],
    /// `size_of` and heap bytes held (`None` where [`heap_held`] cannot
    /// count them) per key size.
    size: [(usize, Option<usize>); 2],
    cells: Vec<(String, f64)>,
}

impl std::fmt::Debug for KeyImpl<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeyImpl")
            .field("name", &self.name)
            .field("role", &self.role)
            .field("size", &self.size)
            .finish_non_exhaustive()
    }
}

impl<'a> KeyImpl<'a> {
    /// `new128` and `new256` make a key (from the caller's key bytes).
    pub fn new<K1, K2>(
        name: &str,
        role: Role,
        new128: impl Fn() -> K1 + 'a,
        new256: impl Fn() -> K2 + 'a,
    ) -> KeyImpl<'a> {
        let size = [
            (std::mem::size_of::<K1>(), heap_held(&new128)),
            (std::mem::size_of::<K2>(), heap_held(&new256)),
        ];
        KeyImpl {
            name: name.into(),
            role,
            setup: [
                Box::new(move || drop(keep(new128()))),
                Box::new(move || drop(keep(new256()))),
            ],
            size,
            cells: Vec::new(),
        }
    }
}

/// Heap bytes a value made by `make` holds while it lives, C libraries'
/// allocations included (aws-lc-rs keeps its key in AWS-LC's `malloc`ed
/// context): glibc's in-use bytes (`mallinfo`, chunk sizes with their
/// header) after making [`HEAP_SAMPLES`] values, kept alive, minus before,
/// per value; so many that the few chunks glibc's per-thread cache hands
/// out without counting them change the figure by under 1%. `None` where
/// the C library is not glibc.
pub fn heap_held<T>(make: impl Fn() -> T) -> Option<usize> {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        #[repr(C)]
        struct Mallinfo {
            arena: core::ffi::c_int,
            ordblks: core::ffi::c_int,
            smblks: core::ffi::c_int,
            hblks: core::ffi::c_int,
            hblkhd: core::ffi::c_int,
            usmblks: core::ffi::c_int,
            fsmblks: core::ffi::c_int,
            uordblks: core::ffi::c_int,
            fordblks: core::ffi::c_int,
            keepcost: core::ffi::c_int,
        }
        unsafe extern "C" {
            fn mallinfo() -> Mallinfo;
        }
        // In use: small chunks plus mmapped ones.
        let in_use = || {
            // SAFETY: `mallinfo` takes no arguments and returns the struct
            // by value (glibc's layout: ten C ints).
            let m = unsafe { mallinfo() };
            i64::from(m.uordblks) + i64::from(m.hblkhd)
        };
        let mut keep_alive = Vec::with_capacity(HEAP_SAMPLES);
        let before = in_use();
        for _ in 0..HEAP_SAMPLES {
            keep_alive.push(keep(make()));
        }
        let after = in_use();
        drop(keep_alive);
        Some(((after - before).max(0) / HEAP_SAMPLES as i64) as usize)
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        let _ = make;
        None
    }
}

/// Values made per [`heap_held`] measurement.
pub const HEAP_SAMPLES: usize = 1000;

/// The CPU's model name (`/proc/cpuinfo`), or `unknown CPU`.
pub fn cpu_name() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| cpu_name_from(&s))
        .unwrap_or_else(|| "unknown CPU".into())
}

/// The model name of a `/proc/cpuinfo` text, with the x86 family and
/// model numbers where it gives them: a virtual machine often reports only
/// "AMD EPYC", which names neither the core generation nor its vector
/// units.
fn cpu_name_from(cpuinfo: &str) -> Option<String> {
    let field = |key: &str| {
        cpuinfo
            .lines()
            .filter_map(|l| l.split_once(':'))
            .find(|(k, _)| k.trim() == key)
            .map(|(_, v)| v.trim())
    };
    let name = field("model name").or_else(|| field("Model"))?;
    Some(match (field("cpu family"), field("model")) {
        (Some(f), Some(m)) => format!("{name} (family {f}, model {m})"),
        _ => name.to_owned(),
    })
}

/// This thread's CPU time on Linux (`CLOCK_THREAD_CPUTIME_ID`), so time
/// the scheduler gives to other processes on a busy machine is not
/// counted; wall time elsewhere. On an idle machine both agree.
struct Clock(f64);

#[cfg(target_os = "linux")]
impl Clock {
    fn read() -> f64 {
        #[repr(C)]
        struct Timespec {
            sec: core::ffi::c_long,
            nsec: core::ffi::c_long,
        }
        unsafe extern "C" {
            fn clock_gettime(clock: core::ffi::c_int, ts: *mut Timespec) -> core::ffi::c_int;
        }
        const CLOCK_THREAD_CPUTIME_ID: core::ffi::c_int = 3;
        let mut ts = Timespec { sec: 0, nsec: 0 };
        // SAFETY: `ts` is a valid, writable timespec (glibc's default layout:
        // two C longs) and the clock id is a constant the kernel knows.
        let r = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) };
        assert_eq!(r, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
        ts.sec as f64 + ts.nsec as f64 * 1e-9
    }
}

#[cfg(not(target_os = "linux"))]
impl Clock {
    fn read() -> f64 {
        static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
        START
            .get_or_init(std::time::Instant::now)
            .elapsed()
            .as_secs_f64()
    }
}

impl Clock {
    fn now() -> Clock {
        Clock(Self::read())
    }

    fn elapsed(&self) -> f64 {
        Self::read() - self.0
    }
}

/// What a probe's seconds per call become in a cell.
#[derive(Clone, Copy, Debug)]
pub enum Unit {
    /// Nanoseconds per call.
    Ns,
    /// MB/s, for this many bytes per call.
    Mbps(usize),
}

impl Unit {
    fn value(self, seconds: f64) -> f64 {
        match self {
            Unit::Ns => seconds * 1e9,
            Unit::Mbps(bytes) => bytes as f64 / seconds / 1e6,
        }
    }
}

/// One timed closure of a row and the cells (column key, unit) its time
/// fills; probes of different rows with the same first column are timed
/// side by side ([`Ctx::rows_side_by_side`]).
pub struct Probe<'a> {
    cells: Vec<(String, Unit)>,
    run: Box<dyn FnMut() + 'a>,
}

impl std::fmt::Debug for Probe<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Probe")
            .field("cells", &self.cells)
            .finish_non_exhaustive()
    }
}

impl<'a> Probe<'a> {
    /// `run` fills `cells` (at least one).
    pub fn new(cells: &[(&str, Unit)], run: impl FnMut() + 'a) -> Self {
        assert!(!cells.is_empty(), "a probe fills a cell");
        Self {
            cells: cells.iter().map(|&(k, u)| (k.to_owned(), u)).collect(),
            run: Box::new(run),
        }
    }

    /// `run` handles `bytes` per call: MB/s in column `bytes`.
    pub fn mbps(bytes: usize, run: impl FnMut() + 'a) -> Self {
        Self::new(&[(&bytes.to_string(), Unit::Mbps(bytes))], run)
    }
}

/// A row to measure: its name, role and probes.
#[derive(Debug)]
pub struct Measured<'a> {
    pub name: String,
    pub role: Role,
    pub probes: Vec<Probe<'a>>,
}

impl<'a> Measured<'a> {
    pub fn new(name: impl Into<String>, role: Role, probes: Vec<Probe<'a>>) -> Self {
        Self {
            name: name.into(),
            role,
            probes,
        }
    }
}

/// Alignment of every measured buffer (a cache line).
pub const BUF_ALIGN: usize = 64;

/// A measurement buffer starting on a [`BUF_ALIGN`] boundary, so every row
/// of every table runs on the same alignment: wide vector loops run at
/// different speeds on differently aligned buffers (figures in
/// aes-gcm-ct/PERFORMANCE.md), and a plain `Vec` lands wherever the
/// allocator's history puts it.
#[derive(Debug)]
pub struct Buf {
    v: Vec<u8>,
    off: usize,
    len: usize,
}

impl Buf {
    /// `n` zero bytes.
    pub fn zeroed(n: usize) -> Self {
        Self::from(&vec![0u8; n][..])
    }
}

impl From<&[u8]> for Buf {
    fn from(data: &[u8]) -> Self {
        let mut v = vec![0u8; data.len() + BUF_ALIGN];
        let off = v.as_ptr().align_offset(BUF_ALIGN);
        v[off..off + data.len()].copy_from_slice(data);
        Self {
            v,
            off,
            len: data.len(),
        }
    }
}

impl Clone for Buf {
    fn clone(&self) -> Self {
        Self::from(&self[..])
    }
}

impl std::ops::Deref for Buf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.v[self.off..self.off + self.len]
    }
}

impl std::ops::DerefMut for Buf {
    fn deref_mut(&mut self) -> &mut [u8] {
        &mut self.v[self.off..self.off + self.len]
    }
}

/// Keep the optimiser from deleting or hoisting the measured work.
#[inline(always)]
pub fn keep<T>(x: T) -> T {
    black_box(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_name_adds_x86_family_and_model() {
        let x86 = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 2\nmodel name\t: AMD EPYC\n";
        assert_eq!(
            cpu_name_from(x86).as_deref(),
            Some("AMD EPYC (family 26, model 2)")
        );
        // aarch64 kernels give "CPU part" numbers, not a family; a Raspberry
        // Pi gives a "Model" line.
        let arm =
            "processor\t: 0\nCPU implementer\t: 0x41\nModel\t\t: Raspberry Pi 4 Model B Rev 1.4\n";
        assert_eq!(
            cpu_name_from(arm).as_deref(),
            Some("Raspberry Pi 4 Model B Rev 1.4")
        );
        assert_eq!(cpu_name_from("processor\t: 0\n"), None);
    }

    #[test]
    fn buffers_are_aligned_and_hold_their_data() {
        for n in [0, 1, 16, 1350, 16384] {
            let data: Vec<u8> = (0..n).map(|i| (i * 7 + 3) as u8).collect();
            let b = Buf::from(&data[..]);
            assert_eq!(b.as_ptr() as usize % BUF_ALIGN, 0, "{n} bytes");
            assert_eq!(&b[..], &data[..]);
            let c = b.clone();
            assert_eq!(c.as_ptr() as usize % BUF_ALIGN, 0);
            assert_eq!(&c[..], &data[..]);
            assert!(Buf::zeroed(n).iter().all(|&x| x == 0));
        }
    }

    const COLS: &[Col] = &[Col {
        key: "16",
        header: "16 B",
        lower_is_better: false,
    }];

    fn cells(v: f64) -> Vec<(String, f64)> {
        vec![("16".to_owned(), v)]
    }

    /// A context with table "T" holding these rows (one "16" cell each).
    fn table_of(rows: &[(Role, &str, f64)]) -> Ctx {
        let mut ctx = Ctx::new(Options::default());
        ctx.table("T", "caption", COLS);
        for &(role, name, v) in rows {
            ctx.row("T", role, name, cells(v));
        }
        ctx
    }

    #[test]
    fn rounds_note_names_the_round_count() {
        assert_eq!(rounds_note(), "best of 27 alternating rounds");
    }

    /// Side-by-side rows get every cell their probes fill, each from its
    /// own probe, and no other; every probe ran, alternately with the rest
    /// of its column.
    #[test]
    fn rows_side_by_side_fill_each_rows_cells() {
        use std::cell::Cell;
        let mut ctx = Ctx::new(Options {
            time: Duration::from_millis(9),
            ..Options::default()
        });
        ctx.table("T", "caption", COLS);
        let calls = [Cell::new(0u64), Cell::new(0), Cell::new(0)];
        let work = |i: usize, spins: u32| {
            let c = &calls[i];
            move || {
                c.set(c.get() + 1);
                for k in 0..spins {
                    keep(k);
                }
            }
        };
        let rows = vec![
            Measured::new(
                "a",
                Role::Ours,
                vec![
                    Probe::new(&[("ns", Unit::Ns), ("16", Unit::Mbps(16))], work(0, 10)),
                    Probe::mbps(1024, work(1, 1000)),
                ],
            ),
            Measured::new("b", Role::Reference, vec![Probe::mbps(1024, work(2, 1000))]),
        ];
        ctx.rows_side_by_side("T", rows);
        assert!(calls.iter().all(|c| c.get() > ROUNDS as u64));
        let ns = ctx.cell("T", "a", "ns").expect("a's ns");
        let mbps16 = ctx.cell("T", "a", "16").expect("a's 16");
        assert!(ns > 0.0 && (16.0 / ns * 1e3 - mbps16).abs() < 1e-6 * mbps16);
        assert!(ctx.cell("T", "a", "1024").is_some_and(|v| v > 0.0));
        assert!(ctx.cell("T", "b", "1024").is_some_and(|v| v > 0.0));
        assert_eq!(ctx.cell("T", "b", "ns"), None);
        assert_eq!(ctx.cell("T", "b", "16"), None);
    }

    #[test]
    fn declared_ratios_replace_the_default_lines_and_see_merged_rows() {
        let mut ctx = table_of(&[
            (Role::Ours, "ours a", 300.0),
            (Role::Ours, "ours b", 50.0),
            (Role::Reference, "ref", 100.0),
            (Role::Other, "other", 200.0),
        ]);
        ctx.ratio("T", "ours a", "other");
        ctx.ratio("T", "soft row", "soft ref");
        ctx.ratio("T", "ours b", "missing");

        // Rows of the soft build arrive through the TSV merge.
        let mut soft = Ctx::new(Options {
            soft_build: true,
            ..Options::default()
        });
        soft.table("T", "caption", COLS);
        soft.row("T", Role::Ours, "soft row", cells(90.0));
        soft.row("T", Role::Reference, "soft ref", cells(30.0));
        soft.note("a note");
        ctx.merge_tsv(&soft.to_tsv());

        let out = ctx.render();
        assert!(out.contains("ours a vs other"), "{out}");
        assert!(out.contains("1.50x"), "{out}");
        assert!(out.contains("soft row vs soft ref"), "{out}");
        assert!(out.contains("3.00x"), "{out}");
        assert!(out.contains("a note"), "{out}");
        // Only the declared lines, and none with a missing row.
        assert!(!out.contains("vs ref "), "{out}");
        assert!(!out.contains("missing"), "{out}");
    }

    #[test]
    fn default_ratios_are_every_ours_row_against_every_reference() {
        let ctx = table_of(&[
            (Role::Ours, "ours", 300.0),
            (Role::Reference, "ref", 100.0),
            (Role::Other, "other", 200.0),
        ]);
        let out = ctx.render();
        assert!(out.contains("ours vs ref"), "{out}");
        assert!(out.contains("3.00x"), "{out}");
        assert!(!out.contains("vs other"), "{out}");
    }
}
