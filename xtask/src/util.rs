//! Small helpers shared by the subcommands: paths, running commands with
//! their command line echoed, timing.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The workspace root (the folder holding `xtask/`).
pub fn root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}

/// Cargo's target directory: `$CARGO_TARGET_DIR`, else `<root>/target`.
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(d) if !d.is_empty() => {
            let d = PathBuf::from(d);
            if d.is_absolute() { d } else { root().join(d) }
        }
        _ => root().join("target"),
    }
}

/// Where xtask puts what it builds itself (shim, probes).
pub fn xtask_dir() -> PathBuf {
    target_dir().join("xtask")
}

/// A `cargo` command (the one that runs us, so the toolchain matches),
/// started in the workspace root.
pub fn cargo() -> Command {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut c = Command::new(cargo);
    c.current_dir(root());
    c
}

/// `extra` after the caller's own `RUSTFLAGS`, so a step's flags add to
/// what the user set (a target CPU, a cfg) instead of replacing it.
pub fn rustflags(extra: &str) -> String {
    match std::env::var("RUSTFLAGS") {
        Ok(user) if !user.trim().is_empty() => format!("{} {extra}", user.trim()),
        _ => extra.to_owned(),
    }
}

/// Is this a CI run? (`CI` set to anything but empty, `0` or `false`.)
pub fn in_ci() -> bool {
    match std::env::var("CI") {
        Ok(v) => !(v.is_empty() || v == "0" || v.eq_ignore_ascii_case("false")),
        Err(_) => false,
    }
}

/// Is `program` on `PATH` (or an existing path)?
pub fn have(program: &str) -> bool {
    if program.contains('/') {
        return Path::new(program).exists();
    }
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join(program).is_file()))
        .unwrap_or(false)
}

/// The command line as a shell would show it, with the extra environment
/// variables this command sets.
pub fn show(cmd: &Command) -> String {
    let mut s = String::new();
    for (k, v) in cmd.get_envs() {
        if let Some(v) = v {
            s.push_str(&format!("{}={} ", k.to_string_lossy(), quote(v)));
        }
    }
    s.push_str(&quote(cmd.get_program()));
    for a in cmd.get_args() {
        s.push(' ');
        s.push_str(&quote(a));
    }
    s
}

fn quote(s: &OsStr) -> String {
    let s = s.to_string_lossy();
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c))
    {
        s.into_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Run `cmd` with inherited stdout, echoing it first; error unless it exits
/// 0. Its stderr is passed through line by line, and the error carries the
/// last lines of it: a CI log is often read only from its summary, which
/// must then say why a step failed, not only which command did.
pub fn run(cmd: &mut Command) -> Result<(), String> {
    use std::io::{BufRead, Write};
    const KEPT: usize = 12;
    println!("$ {}", show(cmd));
    let mut child = cmd
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start `{}`: {e}", show(cmd)))?;
    let mut tail = std::collections::VecDeque::with_capacity(KEPT);
    if let Some(err) = child.stderr.take() {
        let mut out = std::io::stderr().lock();
        for line in std::io::BufReader::new(err).split(b'\n') {
            let Ok(line) = line else { break };
            let _ = out.write_all(&line);
            let _ = out.write_all(b"\n");
            if tail.len() == KEPT {
                tail.pop_front();
            }
            tail.push_back(String::from_utf8_lossy(&line).into_owned());
        }
    }
    let status = child
        .wait()
        .map_err(|e| format!("cannot wait for `{}`: {e}", show(cmd)))?;
    if status.success() {
        return Ok(());
    }
    let mut e = format!("`{}` failed ({status})", show(cmd));
    let tail: Vec<String> = tail
        .iter()
        .map(|l| strip_ansi(l))
        .filter(|l| !l.trim().is_empty())
        .collect();
    if !tail.is_empty() {
        e.push_str("; its last stderr lines:\n      ");
        e.push_str(&tail.join("\n      "));
    }
    Err(e)
}

/// `s` without ANSI colour escapes (`ESC [ ... letter`).
fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Run `cmd` and return its stdout; stderr is passed through. Error unless
/// it exits 0.
pub fn output(cmd: &mut Command) -> Result<String, String> {
    let out = cmd
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot start `{}`: {e}", show(cmd)))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!("`{}` failed ({})", show(cmd), out.status))
    }
}

/// Does `cmd` run and exit 0? (All output discarded.)
pub fn succeeds(cmd: &mut Command) -> bool {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

/// `1m23s` / `4.2s`.
pub fn fmt_duration(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 60.0 {
        format!("{}m{:02}s", (s / 60.0) as u64, (s % 60.0) as u64)
    } else {
        format!("{s:.1}s")
    }
}

/// Time a closure.
pub fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let t = Instant::now();
    let r = f();
    (r, t.elapsed())
}

/// The runner cargo would use for `triple`: `CARGO_TARGET_<TRIPLE>_RUNNER`,
/// else the `runner = "..."` line of `[target.<triple>]` in the
/// workspace's `.cargo/config.toml` (one source of truth for the qemu
/// command line).
pub fn runner(triple: &str) -> Option<Vec<String>> {
    let var = format!(
        "CARGO_TARGET_{}_RUNNER",
        triple.to_uppercase().replace(['-', '.'], "_")
    );
    if let Ok(v) = std::env::var(&var) {
        return Some(v.split_whitespace().map(String::from).collect());
    }
    let config = std::fs::read_to_string(root().join(".cargo/config.toml")).ok()?;
    let header = format!("[target.{triple}]");
    let mut in_section = false;
    for line in config.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_section = line == header;
        } else if in_section && let Some(rest) = line.strip_prefix("runner") {
            let value = rest
                .trim_start()
                .strip_prefix('=')?
                .trim()
                .trim_matches('"');
            return Some(value.split_whitespace().map(String::from).collect());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_run_says_why() {
        let e = run(Command::new("sh").args([
            "-c",
            "echo first >&2; printf '\\033[1m\\033[91merror\\033[0m: the reason\\n' >&2; exit 3",
        ]))
        .unwrap_err();
        assert!(e.contains("exit status: 3"), "{e}");
        assert!(
            e.contains("first") && e.contains("error: the reason"),
            "{e}"
        );
        assert!(!e.contains('\u{1b}'), "{e}");
        assert!(run(Command::new("sh").args(["-c", "echo fine >&2"])).is_ok());
    }
}
