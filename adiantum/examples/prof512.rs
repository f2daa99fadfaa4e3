//! Profiling helper: encrypt 512-byte messages in a loop (`perf record`).
use adiantum_ct::{Adiantum, cipher::KeyInit};
use std::hint::black_box;

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(200_000);
    let len: usize = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(512);
    let c = Adiantum::new(&[0x42; 32].into());
    let mut buf = vec![0u8; len];
    for _ in 0..n {
        c.encrypt(black_box(&[7u8; 32]), black_box(&mut buf))
            .unwrap();
    }
    println!("{}", buf[0]);
}
