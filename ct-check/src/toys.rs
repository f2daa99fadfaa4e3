//! Deliberately leaky toy functions, and a constant-time one, to prove the
//! valgrind check works: `ct-check toy-table` and `ct-check toy-branch`
//! must make memcheck report, `ct-check toy-clean` must not
//! (`tests/toys.rs`).

use core::hint::black_box;

/// A 256-byte table (an S-box stand-in).
pub static TABLE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = (i as u8).wrapping_mul(167).wrapping_add(13).rotate_left(3);
        i += 1;
    }
    t
};

/// LEAKS: a secret-indexed table lookup (the classic cache-timing leak).
/// Memcheck: "Use of uninitialised value of size 8" (the address).
#[inline(never)]
pub fn leaky_table(secret: &[u8]) -> u8 {
    let t = black_box(&TABLE);
    let mut acc = 0u8;
    for &b in secret {
        acc ^= t[b as usize];
    }
    acc
}

/// LEAKS: a branch on a secret bit. Memcheck: "Conditional jump or move
/// depends on uninitialised value(s)".
#[inline(never)]
pub fn leaky_branch(secret: &[u8]) -> u32 {
    // The two arms are calls, so no compiler can turn the branch into a
    // conditional select or predicated instructions (as it does for
    // small arms on ARMv7): the toy must really branch on the secret.
    let mut n = 0u32;
    for &b in secret {
        if b & 1 == 1 {
            n = odd_step(n);
        } else {
            n = even_step(n);
        }
    }
    n
}

#[inline(never)]
fn odd_step(n: u32) -> u32 {
    black_box(n.wrapping_mul(3).wrapping_add(1))
}

#[inline(never)]
fn even_step(n: u32) -> u32 {
    black_box(n ^ 0x55).rotate_left(3)
}

/// Constant time: the same lookup done by scanning the whole table with a
/// mask, and a masked select instead of the branch.
#[inline(never)]
pub fn clean(secret: &[u8]) -> (u8, u32) {
    let t = black_box(&TABLE);
    let mut acc = 0u8;
    let mut n = 0u32;
    for &b in secret {
        let mut v = 0u8;
        for (i, &x) in t.iter().enumerate() {
            // 0xff when i == b, else 0, without a comparison branch.
            let d = (i as u32) ^ u32::from(b);
            let m = ((d.wrapping_sub(1) >> 8) & 1) as u8;
            v |= x & 0u8.wrapping_sub(m);
        }
        acc ^= v;
        let bit = u32::from(b & 1);
        let mask = 0u32.wrapping_sub(bit);
        n = black_box((n.wrapping_mul(3).wrapping_add(1) & mask) | ((n ^ 0x55) & !mask));
    }
    (acc, n)
}

/// Divides by a secret: integer division takes operand-dependent time on
/// many CPUs (and is a software loop on ARMv7 cores without `udiv`). The
/// trace check must report it.
#[inline(never)]
pub fn leaky_division(secret: &[u8]) -> u32 {
    let mut n = black_box(0xffff_fff1u32);
    for &b in secret {
        n = black_box(n / (u32::from(b) | 1));
        n = n.wrapping_add(0x8765_4321);
    }
    n
}
