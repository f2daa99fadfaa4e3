//! The AES round functions on bit planes.
//!
//! Layout (after [`Word::load`]): word `k` holds bit `k` of every state
//! byte. Inside each lane of `L = 16 * LANE_BLOCKS` bits, row `r` of the
//! state occupies the chunk of `L / 4` bits starting at `r * L / 4`, and in
//! that chunk column `c` of block `j` is bit `c * LANE_BLOCKS + j`.
//! So ShiftRows is a rotation of each row chunk, and MixColumns combines a
//! word with itself rotated by one and two row chunks (BearSSL's `ct64`
//! layout, generalised to 32-bit lanes).
//!
//! The S-box is the Boyar-Peralta circuit (J. Boyar, R. Peralta, "A new
//! combinational logic minimization technique with applications to
//! cryptology", SEA 2010): 32 AND and 83 XOR/XNOR gates, no tables.
//! InvMixColumns uses the factorisation InvMixColumns = MixColumns * (05 00
//! 04 00) from the Rijndael book, section 4.1.3.

use super::word::Word;

/// Forward S-box on all bytes of the batch.
#[inline(always)]
pub(crate) fn sbox<W: Word>(q: &mut [W; 8]) {
    sbox_no_const(q);
    for i in [0, 1, 5, 6] {
        q[i] = !q[i];
    }
}

/// The S-box without its final XOR with 0x63 (bits 0, 1, 5, 6). In
/// encryption that constant is folded into the next round key: MixColumns
/// maps a state of equal bytes to itself and ShiftRows moves nothing.
#[inline(always)]
pub(crate) fn sbox_no_const<W: Word>(q: &mut [W; 8]) {
    let x0 = q[7];
    let x1 = q[6];
    let x2 = q[5];
    let x3 = q[4];
    let x4 = q[3];
    let x5 = q[2];
    let x6 = q[1];
    let x7 = q[0];

    // Top linear transformation.
    let y14 = x3 ^ x5;
    let y13 = x0 ^ x6;
    let y9 = x0 ^ x3;
    let y8 = x0 ^ x5;
    let t0 = x1 ^ x2;
    let y1 = t0 ^ x7;
    let y4 = y1 ^ x3;
    let y12 = y13 ^ y14;
    let y2 = y1 ^ x0;
    let y5 = y1 ^ x6;
    let y3 = y5 ^ y8;
    let t1 = x4 ^ y12;
    let y15 = t1 ^ x5;
    let y20 = t1 ^ x1;
    let y6 = y15 ^ x7;
    let y10 = y15 ^ t0;
    let y11 = y20 ^ y9;
    let y7 = x7 ^ y11;
    let y17 = y10 ^ y11;
    let y19 = y10 ^ y8;
    let y16 = t0 ^ y11;
    let y21 = y13 ^ y16;
    let y18 = x0 ^ y16;

    // Non-linear section (inversion in GF(2^8) through GF(2^4)).
    let t2 = y12 & y15;
    let t3 = y3 & y6;
    let t4 = t3 ^ t2;
    let t5 = y4 & x7;
    let t6 = t5 ^ t2;
    let t7 = y13 & y16;
    let t8 = y5 & y1;
    let t9 = t8 ^ t7;
    let t10 = y2 & y7;
    let t11 = t10 ^ t7;
    let t12 = y9 & y11;
    let t13 = y14 & y17;
    let t14 = t13 ^ t12;
    let t15 = y8 & y10;
    let t16 = t15 ^ t12;
    let t17 = t4 ^ t14;
    let t18 = t6 ^ t16;
    let t19 = t9 ^ t14;
    let t20 = t11 ^ t16;
    let t21 = t17 ^ y20;
    let t22 = t18 ^ y19;
    let t23 = t19 ^ y21;
    let t24 = t20 ^ y18;

    let t25 = t21 ^ t22;
    let t26 = t21 & t23;
    let t27 = t24 ^ t26;
    let t28 = t25 & t27;
    let t29 = t28 ^ t22;
    let t30 = t23 ^ t24;
    let t31 = t22 ^ t26;
    let t32 = t31 & t30;
    let t33 = t32 ^ t24;
    let t34 = t23 ^ t33;
    let t35 = t27 ^ t33;
    let t36 = t24 & t35;
    let t37 = t36 ^ t34;
    let t38 = t27 ^ t36;
    let t39 = t29 & t38;
    let t40 = t25 ^ t39;

    let t41 = t40 ^ t37;
    let t42 = t29 ^ t33;
    let t43 = t29 ^ t40;
    let t44 = t33 ^ t37;
    let t45 = t42 ^ t41;
    let z0 = t44 & y15;
    let z1 = t37 & y6;
    let z2 = t33 & x7;
    let z3 = t43 & y16;
    let z4 = t40 & y1;
    let z5 = t29 & y7;
    let z6 = t42 & y11;
    let z7 = t45 & y17;
    let z8 = t41 & y10;
    let z9 = t44 & y12;
    let z10 = t37 & y3;
    let z11 = t33 & y4;
    let z12 = t43 & y13;
    let z13 = t40 & y5;
    let z14 = t29 & y2;
    let z15 = t42 & y9;
    let z16 = t45 & y14;
    let z17 = t41 & y8;

    // Bottom linear transformation (with the affine constant 0x63).
    let t46 = z15 ^ z16;
    let t47 = z10 ^ z11;
    let t48 = z5 ^ z13;
    let t49 = z9 ^ z10;
    let t50 = z2 ^ z12;
    let t51 = z2 ^ z5;
    let t52 = z7 ^ z8;
    let t53 = z0 ^ z3;
    let t54 = z6 ^ z7;
    let t55 = z16 ^ z17;
    let t56 = z12 ^ t48;
    let t57 = t50 ^ t53;
    let t58 = z4 ^ t46;
    let t59 = z3 ^ t54;
    let t60 = t46 ^ t57;
    let t61 = z14 ^ t57;
    let t62 = t52 ^ t58;
    let t63 = t49 ^ t58;
    let t64 = z4 ^ t59;
    let t65 = t61 ^ t62;
    let t66 = z1 ^ t63;
    let s0 = t59 ^ t63;
    let s6 = t56 ^ t62;
    let s7 = t48 ^ t60;
    let t67 = t64 ^ t65;
    let s3 = t53 ^ t66;
    let s4 = t51 ^ t66;
    let s5 = t47 ^ t65;
    let s1 = t64 ^ s3;
    let s2 = t55 ^ t67;

    q[7] = s0;
    q[6] = s1;
    q[5] = s2;
    q[4] = s3;
    q[3] = s4;
    q[2] = s5;
    q[1] = s6;
    q[0] = s7;
}

/// `v -> M^-1 (v ^ 0x63)`, the inverse of the S-box's affine map.
#[inline(always)]
fn inv_affine<W: Word>(q: &mut [W; 8]) {
    let v = [!q[0], !q[1], q[2], q[3], q[4], !q[5], !q[6], q[7]];
    for i in 0..8 {
        q[i] = v[(i + 2) % 8] ^ v[(i + 5) % 8] ^ v[(i + 7) % 8];
    }
}

/// Inverse S-box: `InvS = L o S o L` with `L = inv_affine`, because
/// `S = A o inv` and `L = A^-1`.
#[inline(always)]
pub(crate) fn inv_sbox<W: Word>(q: &mut [W; 8]) {
    inv_affine(q);
    sbox(q);
    inv_affine(q);
}

/// Bits of row `r`, columns `c0..c1` (in every lane).
const fn row_cols(lane_blocks: usize, r: usize, c0: usize, c1: usize) -> u64 {
    let chunk = 4 * lane_blocks;
    let lo = r * chunk + c0 * lane_blocks;
    let hi = r * chunk + c1 * lane_blocks;
    let top = if hi >= 64 { u64::MAX } else { (1u64 << hi) - 1 };
    let bot = (1u64 << lo) - 1;
    let m = top & !bot;
    if lane_blocks == 2 {
        // 32-bit lanes: repeat for the upper half so a u64 constant works
        // for both lane widths.
        m | (m << 32)
    } else {
        m
    }
}

/// Masks for rotating row `r` by `(k r) mod 4` columns: bits of the rows
/// whose shift is `s`, restricted to columns `lo..hi` (of the shifted rows).
const fn rows_mask(lane_blocks: usize, k: usize, s: usize, lo_part: bool) -> u64 {
    let mut m = 0u64;
    let mut r = 0;
    while r < 4 {
        if (k * r) % 4 == s {
            m |= if lo_part {
                row_cols(lane_blocks, r, 0, s)
            } else {
                row_cols(lane_blocks, r, s, 4)
            };
        }
        r += 1;
    }
    m
}

/// `ShiftRows^k`: row `r` moves left by `k * r` columns (new column `c` =
/// old column `c + k r`). `k = 1` is ShiftRows, `k = 3` its inverse. Rows
/// sharing a shift are moved together: 13 operations per word for `k = 1`,
/// 5 for `k = 2`.
#[inline(always)]
pub(crate) fn rotate_rows<W: Word>(q: &mut [W; 8], k: usize) {
    let b = W::LANE_BLOCKS;
    let keep = W::splat_const(rows_mask(b, k, 0, false));
    for x in q.iter_mut() {
        let v = *x;
        let mut out = v & keep;
        for s in 1..4 {
            let hi = rows_mask(b, k, s, false);
            if hi == 0 {
                continue;
            }
            // Columns s..4 move down by s, columns 0..s wrap to the top.
            let lo = W::splat_const(rows_mask(b, k, s, true));
            let hi = W::splat_const(hi);
            out = out | (v & hi).shr((s * b) as u32) | (v & lo).shl(((4 - s) * b) as u32);
        }
        *x = out;
    }
}

#[inline(always)]
pub(crate) fn inv_shift_rows<W: Word>(q: &mut [W; 8]) {
    rotate_rows(q, 3)
}

/// Move row `r + rows`, column `c + cols` to row `r`, column `c` (rows and
/// columns wrap around).
#[inline(always)]
fn rot_rc<W: Word>(x: W, rows: usize, cols: usize) -> W {
    let b = W::LANE_BLOCKS;
    let row = 4 * b;
    if cols == 0 {
        return x.rotr((rows * row) as u32);
    }
    // Columns c < 4 - cols read from the same row chunk offset, the others
    // wrap to the start of the chunk.
    let mut m = 0u64;
    for r in 0..4 {
        m |= row_cols(b, r, 0, 4 - cols);
    }
    // (a & m) | (c & !m) written as c ^ ((a ^ c) & m): one mask to hold.
    let a = x.rotr((rows * row + cols * b) as u32);
    let c = x.rotr(((rows - 1) * row + cols * b) as u32);
    c ^ ((a ^ c) & W::splat_const(m))
}

/// MixColumns on a state held as `ShiftRows^-k` of the real one, giving
/// `ShiftRows^-k(MixColumns(ShiftRows^k(state)))` ("fixslicing": A.
/// Adomnicai, T. Peyrin, "Fixslicing AES-like ciphers", TCHES 2021(1)).
/// Saves the ShiftRows of every round for a few extra masks here.
#[inline(always)]
pub(crate) fn mix_columns_fixed<W: Word>(q: &mut [W; 8], k: usize) {
    let m = k % 4;
    let r: [W; 8] = core::array::from_fn(|i| rot_rc(q[i], 1, m));
    let a: [W; 8] = core::array::from_fn(|i| q[i] ^ r[i]);
    let s: [W; 8] = core::array::from_fn(|i| rot_rc(a[i], 2, (2 * m) % 4));
    mix_out(q, &r, &a, &s);
}

/// `out = 2 (a_r ^ a_{r+1}) ^ a_{r+1} ^ (a_{r+2} ^ a_{r+3})` from
/// `r = a_{r+1}`, `a = a_r ^ a_{r+1}`, `s = a_{r+2} ^ a_{r+3}`.
#[inline(always)]
pub(crate) fn mix_out<W: Word>(q: &mut [W; 8], r: &[W; 8], a: &[W; 8], s: &[W; 8]) {
    q[0] = a[7] ^ r[0] ^ s[0];
    q[1] = a[0] ^ a[7] ^ r[1] ^ s[1];
    q[2] = a[1] ^ r[2] ^ s[2];
    q[3] = a[2] ^ a[7] ^ r[3] ^ s[3];
    q[4] = a[3] ^ a[7] ^ r[4] ^ s[4];
    q[5] = a[4] ^ r[5] ^ s[5];
    q[6] = a[5] ^ r[6] ^ s[6];
    q[7] = a[6] ^ r[7] ^ s[7];
}

#[inline(always)]
pub(crate) fn mix_columns<W: Word>(q: &mut [W; 8]) {
    mix_columns_fixed(q, 0)
}

/// Multiply every byte by `x` in GF(2^8).
#[inline(always)]
pub(crate) fn xtime<W: Word>(v: [W; 8]) -> [W; 8] {
    [
        v[7],
        v[0] ^ v[7],
        v[1],
        v[2] ^ v[7],
        v[3] ^ v[7],
        v[4],
        v[5],
        v[6],
    ]
}

#[inline(always)]
pub(crate) fn inv_mix_columns<W: Word>(q: &mut [W; 8]) {
    let row = (4 * W::LANE_BLOCKS) as u32;
    // b_r = a_r ^ 4 (a_r ^ a_{r+2}); InvMixColumns(a) = MixColumns(b).
    let u: [W; 8] = core::array::from_fn(|i| q[i] ^ q[i].rotr(2 * row));
    let u4 = xtime(xtime(u));
    for i in 0..8 {
        q[i] = q[i] ^ u4[i];
    }
    mix_columns(q);
}

#[inline(always)]
fn add_round_key<W: Word>(q: &mut [W; 8], k: &[W; 8]) {
    for i in 0..8 {
        q[i] = q[i] ^ k[i];
    }
}

/// Encrypt one batch. `rk(i)` gives round key `i` in bitsliced form and
/// pre-rotated by `ShiftRows^-(i mod 4)` (see [`fixslice_key`]).
#[inline(always)]
pub(crate) fn encrypt<W: Word, const NR: usize>(q: &mut [W; 8], rk: impl Fn(usize) -> [W; 8]) {
    add_round_key(q, &rk(0));
    for i in 1..NR {
        sbox_no_const(q);
        // Constant arguments: each arm is specialised at compile time.
        match i % 4 {
            0 => mix_columns_fixed(q, 0),
            1 => mix_columns_fixed(q, 1),
            2 => mix_columns_fixed(q, 2),
            _ => mix_columns_fixed(q, 3),
        }
        add_round_key(q, &rk(i));
    }
    sbox_no_const(q);
    add_round_key(q, &rk(NR));
    match NR % 4 {
        0 => {}
        1 => rotate_rows(q, 1),
        2 => rotate_rows(q, 2),
        _ => rotate_rows(q, 3),
    }
}

/// Round key `i` in the form [`encrypt`] wants: rotated by
/// `ShiftRows^-(i mod 4)`, and for `i > 0` carrying the S-box constant 0x63.
/// Constant rotation arguments (a match on the public round index), so
/// each arm's masks are compile-time constants.
#[inline(always)]
pub(crate) fn fixslice_key<W: Word>(mut k: [W; 8], i: usize) -> [W; 8] {
    match i % 4 {
        0 => {}
        1 => rotate_rows(&mut k, 3),
        2 => rotate_rows(&mut k, 2),
        _ => rotate_rows(&mut k, 1),
    }
    if i > 0 {
        for b in [0, 1, 5, 6] {
            k[b] = !k[b];
        }
    }
    k
}

/// Inverse of [`fixslice_key`]: the plain bitsliced round key `i`.
#[inline(always)]
pub(crate) fn unfixslice_key<W: Word>(mut k: [W; 8], i: usize) -> [W; 8] {
    if i > 0 {
        for b in [0, 1, 5, 6] {
            k[b] = !k[b];
        }
    }
    match i % 4 {
        0 => {}
        1 => rotate_rows(&mut k, 1),
        2 => rotate_rows(&mut k, 2),
        _ => rotate_rows(&mut k, 3),
    }
    k
}

/// Decrypt one batch with the encryption round keys (straight inverse
/// cipher, FIPS-197 section 5.3).
#[inline(always)]
pub(crate) fn decrypt<W: Word, const NR: usize>(q: &mut [W; 8], rk: impl Fn(usize) -> [W; 8]) {
    add_round_key(q, &rk(NR));
    for i in (1..NR).rev() {
        inv_shift_rows(q);
        inv_sbox(q);
        add_round_key(q, &rk(i));
        inv_mix_columns(q);
    }
    inv_shift_rows(q);
    inv_sbox(q);
    add_round_key(q, &rk(0));
}
