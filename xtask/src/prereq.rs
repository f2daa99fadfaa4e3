//! Prerequisites: find what a step needs, install it when we can
//! (`rustup component/target add`; `apt-get install` on Debian/Ubuntu as
//! root or through password-less `sudo -n`), and otherwise say exactly
//! what is missing so the caller can skip (locally) or fail (in CI).

use crate::util::{have, run, succeeds};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};

/// Something a step needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// A rustup component, checked through `cargo <sub> --version`.
    Component {
        component: &'static str,
        cargo_sub: &'static str,
    },
    /// A rustup target (its standard library).
    Target(&'static str),
    /// A program on `PATH` or a file, and the Debian package providing it.
    Tool {
        path: &'static str,
        package: &'static str,
    },
}

pub const RUSTFMT: Need = Need::Component {
    component: "rustfmt",
    cargo_sub: "fmt",
};
pub const CLIPPY: Need = Need::Component {
    component: "clippy",
    cargo_sub: "clippy",
};

/// What cross-building and running `triple` under qemu-user needs.
pub fn cross_tools(triple: &str) -> Vec<Need> {
    match triple {
        "aarch64-unknown-linux-gnu" => vec![
            Need::Target("aarch64-unknown-linux-gnu"),
            Need::Tool {
                path: "qemu-aarch64",
                package: "qemu-user",
            },
            Need::Tool {
                path: "aarch64-linux-gnu-gcc",
                package: "gcc-aarch64-linux-gnu",
            },
            Need::Tool {
                path: "aarch64-linux-gnu-ar",
                package: "binutils-aarch64-linux-gnu",
            },
            Need::Tool {
                path: "/usr/aarch64-linux-gnu/lib/crt1.o",
                package: "libc6-dev-arm64-cross",
            },
        ],
        "armv7-unknown-linux-gnueabihf" => vec![
            Need::Target("armv7-unknown-linux-gnueabihf"),
            Need::Tool {
                path: "qemu-arm",
                package: "qemu-user",
            },
            Need::Tool {
                path: "arm-linux-gnueabihf-gcc",
                package: "gcc-arm-linux-gnueabihf",
            },
            Need::Tool {
                path: "arm-linux-gnueabihf-ar",
                package: "binutils-arm-linux-gnueabihf",
            },
            Need::Tool {
                path: "/usr/arm-linux-gnueabihf/lib/crt1.o",
                package: "libc6-dev-armhf-cross",
            },
        ],
        // The portable code's other platforms (`portable.rs`): Debian's
        // cross gcc, binutils and libc, run under qemu-user.
        "s390x-unknown-linux-gnu" => gnu_cross("s390x-unknown-linux-gnu", "s390x"),
        "riscv64gc-unknown-linux-gnu" => gnu_cross("riscv64gc-unknown-linux-gnu", "riscv64"),
        "i686-unknown-linux-gnu" => vec![
            Need::Target("i686-unknown-linux-gnu"),
            // gcc -m32 and the 32-bit C library (libc6-dev-i386 comes
            // with it): the linker, and ring's C build in dev-dependencies.
            Need::Tool {
                path: "/usr/lib32/crt1.o",
                package: multilib_package(),
            },
        ],
        _ => vec![Need::Target(leak(triple))],
    }
}

/// rustup target, qemu-user, and Debian's `<arch>-linux-gnu` cross gcc,
/// binutils and `libc6-dev-<arch>-cross` (the linker, the runner's `-L`
/// sysroot, and cc for ring's C code in dev-dependencies). Only for
/// architectures whose Debian name is the GNU one (s390x, riscv64).
fn gnu_cross(triple: &'static str, arch: &str) -> Vec<Need> {
    vec![
        Need::Target(triple),
        Need::Tool {
            path: leak(&format!("qemu-{arch}")),
            package: "qemu-user",
        },
        Need::Tool {
            path: leak(&format!("{arch}-linux-gnu-gcc")),
            package: leak(&format!("gcc-{arch}-linux-gnu")),
        },
        Need::Tool {
            path: leak(&format!("{arch}-linux-gnu-ar")),
            package: leak(&format!("binutils-{arch}-linux-gnu")),
        },
        Need::Tool {
            path: leak(&format!("/usr/{arch}-linux-gnu/lib/crt1.o")),
            package: leak(&format!("libc6-dev-{arch}-cross")),
        },
    ]
}

/// The host gcc's own multilib package (`gcc-12-multilib` on Debian 12),
/// not the `gcc-multilib` metapackage: the ARM cross compilers declare
/// `Conflicts: gcc-multilib`, so installing it removed them (and the cross
/// steps, re-installing them, removed it again; a fresh machine asked for
/// all of them at once gets "held broken packages").
fn multilib_package() -> &'static str {
    let out = Command::new("gcc").arg("-dumpversion").output();
    match out {
        Ok(o) if o.status.success() => {
            let v = String::from_utf8_lossy(&o.stdout);
            let major = v.trim().split('.').next().unwrap_or("");
            if !major.is_empty() && major.bytes().all(|b| b.is_ascii_digit()) {
                return leak(&format!("gcc-{major}-multilib"));
            }
            "gcc-multilib"
        }
        _ => "gcc-multilib",
    }
}

fn leak(s: &str) -> &'static str {
    Box::leak(s.to_owned().into_boxed_str())
}

fn present(need: Need) -> bool {
    match need {
        Need::Component { cargo_sub, .. } => {
            succeeds(crate::util::cargo().args([cargo_sub, "--version"]))
        }
        Need::Target(t) => installed_targets().iter().any(|x| x == t),
        Need::Tool { path, .. } => have(path),
    }
}

fn installed_targets() -> Vec<String> {
    if let Ok(out) = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        && out.status.success()
    {
        return String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| l.trim().to_owned())
            .collect();
    }
    // No rustup: look into the sysroot.
    let sysroot = Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()))
        .args(["--print", "sysroot"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default();
    std::fs::read_dir(format!("{sysroot}/lib/rustlib"))
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// Make sure everything in `needs` is there, installing what is missing.
/// `Err` says what is still missing and why it could not be installed.
pub fn ensure(needs: &[Need]) -> Result<(), String> {
    let missing: Vec<Need> = needs.iter().copied().filter(|&n| !present(n)).collect();
    if missing.is_empty() {
        return Ok(());
    }
    let mut problems = Vec::new();

    for n in &missing {
        let (what, args): (&str, Vec<&str>) = match *n {
            Need::Component { component, .. } => (component, vec!["component", "add", component]),
            Need::Target(t) => (t, vec!["target", "add", t]),
            Need::Tool { .. } => continue,
        };
        println!("xtask: rustup {what} is missing, installing it");
        if !have("rustup") {
            problems.push(format!("{what} (rustup not found)"));
        } else if let Err(e) = run(Command::new("rustup").args(&args)) {
            problems.push(format!("{what} ({e})"));
        }
    }

    let mut packages: Vec<&str> = missing
        .iter()
        .filter_map(|n| match n {
            Need::Tool { package, .. } => Some(*package),
            _ => None,
        })
        .collect();
    packages.dedup();
    if !packages.is_empty() {
        println!(
            "xtask: missing {}, installing Debian packages: {}",
            tools_of(&missing),
            packages.join(" ")
        );
        if let Err(e) = apt_install(&packages) {
            problems.push(format!("packages {} ({e})", packages.join(" ")));
        }
    }

    let still: Vec<Need> = missing.iter().copied().filter(|&n| !present(n)).collect();
    if still.is_empty() {
        return Ok(());
    }
    let names: Vec<String> = still
        .iter()
        .map(|n| match n {
            Need::Component { component, .. } => format!("rustup component {component}"),
            Need::Target(t) => format!("rustup target {t}"),
            Need::Tool { path, package } => format!("{path} (package {package})"),
        })
        .collect();
    let mut msg = format!("missing {}", names.join(", "));
    if !problems.is_empty() {
        msg.push_str(&format!("; install failed: {}", problems.join("; ")));
    }
    Err(msg)
}

fn tools_of(needs: &[Need]) -> String {
    needs
        .iter()
        .filter_map(|n| match n {
            Need::Tool { path, .. } => Some(*path),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join(", ")
}

static APT_UPDATED: AtomicBool = AtomicBool::new(false);

fn apt_install(packages: &[&str]) -> Result<(), String> {
    if !have("apt-get") {
        return Err("not a Debian/Ubuntu system (no apt-get); install them by hand".into());
    }
    let root = Command::new("id")
        .arg("-u")
        .output()
        .map(|o| o.stdout.trim_ascii() == b"0")
        .unwrap_or(false);
    let apt = |args: &[&str]| {
        let mut c = if root {
            Command::new("apt-get")
        } else {
            let mut c = Command::new("sudo");
            c.args(["-n", "apt-get"]);
            c
        };
        c.args(args).env("DEBIAN_FRONTEND", "noninteractive");
        c
    };
    if !root && !succeeds(Command::new("sudo").args(["-n", "true"])) {
        return Err(
            "not root and no password-less sudo; run: sudo apt-get install ".to_owned()
                + &packages.join(" "),
        );
    }
    if !APT_UPDATED.swap(true, Ordering::Relaxed) {
        run(&mut apt(&["update", "-qq"]))?;
    }
    let mut args = vec!["install", "-y", "-qq", "--no-install-recommends"];
    args.extend_from_slice(packages);
    run(&mut apt(&args))
}
