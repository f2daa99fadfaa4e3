//! Shared code of the benchmarks: the `speed` binary's measuring modules.

pub mod speed;
