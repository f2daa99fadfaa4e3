//! Shared code of the benchmarks: the `speed` binary's measuring modules
//! and the `armcount_*` drivers' command line.

pub mod armcount;
pub mod speed;
