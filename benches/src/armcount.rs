//! The calling convention of the `armcount_*` drivers that `cargo xtask
//! armcount` runs under qemu: `<driver> <impl> <bytes> <iters>`, each
//! iteration one `bytes`-long message with the key set up before the loop.

/// A driver's command line.
#[derive(Debug)]
pub struct Args {
    /// The implementation to count (each driver documents its names).
    pub imp: String,
    /// Message length.
    pub bytes: usize,
    /// Messages to process.
    pub iters: usize,
}

impl Args {
    /// Parses `<impl> <bytes> <iters>` from the command line; anything
    /// else prints `usage: <driver> <impls> <bytes> <iters>` (`impls`
    /// describes the accepted names) and exits with status 2.
    pub fn parse(driver: &str, impls: &str) -> Self {
        let args: Vec<String> = std::env::args().skip(1).collect();
        let num = |i: usize| args.get(i).and_then(|s| s.parse::<usize>().ok());
        match (args.first(), num(1), num(2)) {
            (Some(imp), Some(bytes), Some(iters)) if args.len() == 3 => Args {
                imp: imp.clone(),
                bytes,
                iters,
            },
            _ => usage(driver, impls),
        }
    }
}

/// Prints the driver's usage line and exits with status 2.
pub fn usage(driver: &str, impls: &str) -> ! {
    eprintln!("usage: {driver} {impls} <bytes> <iters>");
    std::process::exit(2)
}
