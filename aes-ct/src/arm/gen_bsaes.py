#!/usr/bin/env python3
"""Generate aes-ct/src/arm/bsaes_asm.rs: armv7 NEON bsaes in `global_asm!`.

Not part of the build. After changing the circuit or this generator:
`cargo xtask regen-asm --write` (or, from the repository root,
python3 aes-ct/src/arm/gen_bsaes.py). The output's header records the
SHA-256 of this file, of the S-box section it read and of its settings;
`cargo xtask test` fails when they no longer match, and
`cargo xtask regen-asm` reruns this with the recorded settings and diffs.

The S-box gates are read from `sbox_no_const` in aes-ct/src/soft/bitslice.rs
(the shared Boyar-Peralta circuit), so the assembly computes exactly the
portable circuit. Everything else (layout, ShiftRows, MixColumns, the
transposition) follows aes-ct/src/aarch64/bsaes.rs: plane k, byte 4r + c,
bit j = bit k of byte (r, c) of block j.

Register allocation is done here: a straight-line list of operations on
values is assigned to q0-q15 by a linear scan that, when no register is
free, spills the value whose next use is farthest (Belady). Spill slots are
16-byte aligned stack slots addressed through r4-r11 (one pointer per slot,
so a spill or reload is one instruction). Where it can, a spill takes a
register neighbour along (one `vstmia` of two q registers into adjacent
slots) and a reload brings the adjacent slot's value back too (`vldmia`)
when that is needed soon and two consecutive registers are free; a second
allocation pass places the values the first pass spilled next to each
other (Alloc.pick_dst, evict_pair, reload_pair; settings in PAIRINGS, all
tried per schedule). Constants (byte permutations, masks) are
rematerialised instead of spilled; the unrolled encryption reads its
tables with a post-incremented pointer (one instruction per table). The
bit transposition uses bit inserts (`vbit`/`vbif`/`vsri`/`vsli`, see
swapmove), the only two-address operations here. Round keys are loaded two
planes per `vldmia` into a pair of consecutive registers (KEY_GROUP; 4 per
load saved less: finding 4 free consecutive registers costs spills).

CTR (`aes_ct_bsaes_ctr32_armv7`) runs the same unrolled kernel from round
2 on. The 8 blocks of a batch differ only in their counter word (AES
column 3) and SubBytes is bytewise, so round 1's S-box output is constant
outside column 3: it is computed once per call (SN), and the column-3 part
for 4 batches at a time by one bit transposition and one S-box on
registers that hold batch b in byte b of each word (ctr_pack_counters,
the "ctr pack" segment, ctr_pack_merge). Per batch there remain a load of
round 1's S-box output, round 1's MixColumns and ARK (ctr_round1), and
rounds 2 on.

Environment (for experiments): BSAES_KEY_GROUP (1, 2, 4), BSAES_SEARCH
(schedules tried per segment), BSAES_PAIRINGS (allocator settings tried
per schedule), BSAES_REMAT (1, 2: recompute an evicted XOR/AND from its
live operands instead of spilling it; off, it lost 1-2 instructions per
round), BSAES_CLEAN (eviction bias towards values that need no store; no
effect), BSAES_NOISE (random noise on the scheduler's priority, by trial;
no gain), BSAES_REV (0, 1, 2: column shifts by 2 by tables, by
`vrev32.16`, or both tried), BSAES_OUT (output path).
"""
import hashlib, platform, re, sys, os

ROOT = os.path.dirname(os.path.abspath(__file__))
BITSLICE = os.path.join(ROOT, "..", "soft", "bitslice.rs")
# This generator as it was when it started (its hash goes into the header).
SELF = open(os.path.abspath(__file__), "rb").read()
# The part of bitslice.rs this generator reads: from the start marker to
# the first end marker after it (the header records both and the hash of
# what lies between, so edits elsewhere in the file do not matter).
SBOX_FROM, SBOX_TO = "pub(crate) fn sbox_no_const", "\n}\n"

# Every setting the output depends on (name -> value as text), in the
# order they are read; the header records them all.
SETTINGS = {}

def setting(name, default):
    """The value of environment setting `name` (text), recorded."""
    SETTINGS[name] = os.environ.get(name, default)
    return SETTINGS[name]

def sbox_gates():
    global SBOX_SECTION
    src = open(BITSLICE, encoding="utf-8", newline="").read()
    body = src[src.index(SBOX_FROM):]
    body = body[:body.index(SBOX_TO)]
    SBOX_SECTION = body
    ins, gates, outs = {}, [], {}
    for l in body.splitlines():
        l = l.strip()
        m = re.match(r"let (x\d) = q\[(\d)\];", l)
        if m: ins[m.group(1)] = int(m.group(2)); continue
        m = re.match(r"let (\w+) = (\w+) ([&^]) (\w+);", l)
        if m: gates.append((m.group(1), m.group(2), m.group(3), m.group(4))); continue
        m = re.match(r"q\[(\d)\] = (\w+);", l)
        if m: outs[int(m.group(1))] = m.group(2); continue
    assert len(gates) == 115 and len(ins) == 8 and len(outs) == 8, (len(gates), len(ins), len(outs))
    return ins, gates, outs

INS, GATES, OUTS = sbox_gates()

def perm_rows(k):
    # new (r, c) = old (r, c + k r), row-major byte 4r + c
    return [4 * (i // 4) + ((i % 4) + k * (i // 4)) % 4 for i in range(16)]

TRANSPOSE = [(i % 4) * 4 + i // 4 for i in range(16)]
SR = perm_rows(1)
ISR = perm_rows(3)

class Prog:
    """Straight-line operations on named values."""
    def __init__(self):
        self.ops = []
        self.n = 0
        self.partner = {}
    def new(self, p="v"):
        self.n += 1
        return "%s%d" % (p, self.n)
    def op(self, kind, dst, srcs, **kw):
        self.ops.append((kind, dst, srcs, kw))
        return dst
    def xor(self, a, b): return self.op("veor", self.new(), [a, b])
    def and_(self, a, b): return self.op("vand", self.new(), [a, b])
    def ext(self, a, n): return self.op("vext", self.new(), [a], imm=n)
    def rev(self, a): return self.op("vrev", self.new(), [a])
    def tbl(self, a, t): return self.op("vtbl", self.new(), [a, t])
    def const(self, name): return self.op("const", self.new("c"), [], name=name)
    def shr(self, a, n): return self.op("vshr", self.new(), [a], imm=n)
    def shl(self, a, n): return self.op("vshl", self.new(), [a], imm=n)
    def tied(self, kind, a, b, m=None, imm=None):
        """Two-address NEON op (`vbit`, `vbif`, `vsri`, `vsli`): the result
        overwrites the register of `a` (copied first if `a` lives on)."""
        return self.op(kind, self.new(), [a, b] + ([m] if m else []), imm=imm)
    def key(self): return self.op("key", self.new("k"), [])
    def keyg(self, n):
        """n consecutive round-key planes, loaded by one `vldmia` into n
        consecutive q registers."""
        vals = [self.new("k") for _ in range(n)]
        self.op("keyg", vals[0], [], vals=vals)
        return vals

def sbox(p, q):
    env = {x: q[i] for x, i in INS.items()}
    for d, a, o, b in GATES:
        env[d] = p.xor(env[a], env[b]) if o == "^" else p.and_(env[a], env[b])
    # The nine GF(16) products: each pair of top-layer values is ANDed at
    # the start of the middle part and again with one inversion output at
    # the end; the allocator spills and reloads such pairs together.
    ands = [(a, b) for d, a, o, b in GATES if o == "&"]
    for a, b in ands:
        if a in ("x7",) or a.startswith("y"):
            if b in ("x7",) or b.startswith("y"):
                p.partner[env[a]], p.partner[env[b]] = env[b], env[a]
    return [env[OUTS[i]] for i in range(8)]

def inv_affine_lin(p, q):
    # M^-1 part of inv_affine (the constant is folded into round keys)
    return [p.xor(p.xor(q[(i + 2) % 8], q[(i + 5) % 8]), q[(i + 7) % 8]) for i in range(8)]

def permute(p, q, table):
    t = p.const(table)
    return [p.tbl(x, t) for x in q]

def mix_columns_by(p, q, rot1, rot2):
    """MixColumns with the row rotations by 1 and 2 given (`rot1`, `rot2`
    emit them): the XOR network shared by the plain and fixsliced forms."""
    out = [None] * 8
    a, t = [None] * 8, [None] * 8
    for i in [7, 0, 1, 2, 3, 4, 5, 6]:
        r = rot1(q[i])
        a[i] = p.xor(q[i], r)
        t[i] = p.xor(rot2(a[i]), r)
    out[0] = p.xor(a[7], t[0])
    out[1] = p.xor(p.xor(a[0], a[7]), t[1])
    out[2] = p.xor(a[1], t[2])
    out[3] = p.xor(p.xor(a[2], a[7]), t[3])
    out[4] = p.xor(p.xor(a[3], a[7]), t[4])
    out[5] = p.xor(a[4], t[5])
    out[6] = p.xor(a[5], t[6])
    out[7] = p.xor(a[6], t[7])
    return out

def mix_columns(p, q):
    return mix_columns_by(p, q, lambda x: p.ext(x, 4), lambda x: p.ext(x, 8))

def skew_rows(rows, j):
    # (r, c) <- (r + rows, c + rows j): fixsliced MixColumns reads
    return [4 * ((i // 4 + rows) % 4) + ((i % 4) + rows * j) % 4 for i in range(16)]

def rev_now():
    return REV == 1 or (REV == 2 and TRIAL[0] % 2 == 0)

def mix_columns_fs(p, q, j):
    """MixColumns on the held state after j (mod 4) skipped ShiftRows
    (fixslicing, see aarch64/bsaes.rs): rows below at (r+1, c+j) and
    (r+2, c+2j); `vext` when that is a whole-row rotation, else `vtbl`."""
    # a column shift by 2 is `vrev32.16` (swap the halves of each row)
    if j == 0:
        rot1 = lambda x: p.ext(x, 4)
    elif j == 2 and rev_now():
        rot1 = lambda x: p.ext(p.rev(x), 4)
    else:
        c1 = p.const("P1_%d" % j)
        rot1 = lambda x: p.tbl(x, c1)
    if j % 2 == 0:
        rot2 = lambda x: p.ext(x, 8)
    elif rev_now():
        rot2 = lambda x: p.ext(p.rev(x), 8)
    else:
        c2 = p.const("P2_%d" % j)
        rot2 = lambda x: p.tbl(x, c2)
    return mix_columns_by(p, q, rot1, rot2)

def xtime(p, v):
    return [v[7], p.xor(v[0], v[7]), v[1], p.xor(v[2], v[7]), p.xor(v[3], v[7]), v[4], v[5], v[6]]

def inv_mix_columns(p, q):
    u = [p.xor(x, p.ext(x, 8)) for x in q]
    u4 = xtime(p, xtime(p, u))
    return mix_columns(p, [p.xor(q[i], u4[i]) for i in range(8)])

# Round-key planes per load (1: `vld1` per plane; n > 1: one `vldmia` of
# n q registers, which the allocator places in n consecutive registers).
KEY_GROUP = int(setting("BSAES_KEY_GROUP", "2"))

def ark(p, q, g=None):
    g = KEY_GROUP if g is None else g
    if g == 1:
        return [p.xor(q[i], p.key()) for i in range(8)]
    ks = []
    for _ in range(8 // g):
        ks += p.keyg(g)
    return [p.xor(q[i], ks[i]) for i in range(8)]

def swapmove(p, q, i, d, m):
    """Exchange bits m << d of q[i] with bits m of q[i + d] (m << d = ~m).
    Bit inserts instead of the XOR form: d = 1, 2: `vshr`, `vshl`, `vbit`,
    `vbif` (4); d = 4: `vsri` and `vsli` need no mask (3 with the copy
    that keeps one input)."""
    a, b = q[i], q[i + d]
    if d == 4:
        q[i + d] = p.tied("vsri", b, a, imm=4)     # (b & 0xf0) | a >> 4
        q[i] = p.tied("vsli", a, b, imm=4)         # (a & 0x0f) | b << 4
    else:
        t1, t2 = p.shr(a, d), p.shl(b, d)
        q[i + d] = p.tied("vbit", b, t1, m)        # b where ~m, a >> d where m
        q[i] = p.tied("vbif", a, t2, m)            # a where m, b << d where ~m

def bit_transpose(p, q):
    q = list(q)
    for d, mask in [(1, "m55"), (2, "m33"), (4, "m0f")]:
        m = p.const(mask) if d != 4 else None
        for i in range(8):
            if i & d == 0:
                swapmove(p, q, i, d, m)
    return q

REMAT = int(setting("BSAES_REMAT", "0"))
CLEAN_BONUS = int(setting("BSAES_CLEAN", "0"))
# Paired spills and reloads (one `vstmia`/`vldmia` for two registers):
# each schedule is allocated with each of these settings ((pair_min,
# pair_window, partner), hint passes), see Alloc.evict_pair/reload_pair.
PAIRINGS = eval(setting("BSAES_PAIRINGS",
    "[((None, None, False), 0), ((20, 30, False), 1), ((40, 5, False), 1), ((20, 30, True), 1),"
    " ((20, 30, 'learn'), 40)]"))
TIED = ("vbit", "vbif", "vsri", "vsli")

class Alloc:
    """Linear scan over one segment; returns the assembly lines."""
    NQ = 16
    SLOTS = ["r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r1", "r2", "ip"]
    NSLOTS = 24  # slots 11.. are addressed as r4 + 16 * slot (two vstr/vldr)

    def __init__(self, prog, inputs, outputs, in_regs=None, place=True, hint=(),
                 postinc=False, const_off=None, pairing=(None, None, False), mates=None):
        self.postinc, self.seq = postinc, []
        self.const_off = CONST_OFF if const_off is None else const_off
        self.hint = set(hint)  # values spilled by a first pass
        self.stored = set()
        self.prog, self.inputs, self.outputs = prog, inputs, outputs
        self.in_regs = in_regs if in_regs is not None else list(range(8))
        # place: True (outputs to q0-q7), a list of target registers, or
        # False (outputs stay where they are)
        self.do_place = bool(place)
        self.targets = place if isinstance(place, list) else list(range(8))
        self.lines = []
        self.reg = {}      # value -> q index
        self.owner = {}    # q index -> value
        self.slot = {}     # value -> slot index (spilled copy)
        self.consts = {}   # value -> const name
        self.spills = self.reloads = self.remats = 0
        self.defn = {}     # value -> (op, operands) of recomputable values
        self.remat = {}    # values to recompute at their next use
        self.remat_on = REMAT
        self.clean_bonus = CLEAN_BONUS
        self.pairs = 0
        self.pair_min, self.pair_window, partner = pairing
        # mates: values to spill and reload together (the circuit's GF(16)
        # operand pairs, or pairs learned from a first pass)
        self.mates = mates if mates is not None else (prog.partner if partner else {})
        self.spill_t, self.reload_t = {}, {}
        self.max_slots = 0

    def uses(self):
        nu = {}
        for i, (k, d, s, kw) in enumerate(self.prog.ops):
            for v in s:
                nu.setdefault(v, []).append(i)
        for j, v in enumerate(self.outputs):
            nu.setdefault(v, []).append(len(self.prog.ops) + j)
        return nu

    def next_use(self, v, i):
        for u in self.nu.get(v, []):
            if u >= i:
                return u
        return None

    def free_reg(self, i, avoid=()):
        for r in range(self.NQ):
            if r not in self.owner and r not in avoid:
                return r
        # evict the farthest next use (a value that needs no store counts
        # CLEAN_BONUS operations farther)
        best, far = None, -1
        for r, v in self.owner.items():
            if r in avoid:
                continue
            n = self.next_use(v, i)
            n = 10**9 if n is None else n
            if self.clean(v, i):
                n += self.clean_bonus
            if n > far:
                best, far = r, n
        if self.pair_min is not None and self.dirty(self.owner[best], i):
            if self.evict_pair(best, i, avoid):
                return best
        self.evict(best, i)
        return best

    def pick_dst(self, d, i, avoid):
        """Register for a new value: a value the first pass spilled goes
        next to another such value still waiting in a register, so that
        both leave with one `vstmia`."""
        w = self.mates.get(d)
        if w is not None and w in self.reg:
            for r in (self.reg[w] - 1, self.reg[w] + 1):
                if 0 <= r < self.NQ and r not in self.owner and r not in avoid:
                    return r
        if d in self.hint:
            for r in range(self.NQ):
                if r in self.owner or r in avoid:
                    continue
                for p in (r - 1, r + 1):
                    w = self.owner.get(p)
                    if w is not None and w in self.hint and self.dirty(w, i):
                        return r
        return self.free_reg(i, avoid)

    def dirty(self, v, i):
        """Evicting v needs a store."""
        return (self.next_use(v, i) is not None and v not in self.consts
                and v not in self.slot and not self.can_remat(v, i))

    def evict_pair(self, r, i, avoid):
        """Spill q r together with a neighbour q r +- 1 whose value is
        needed no sooner than pair_min operations from now: one `vstmia`
        into two adjacent slots instead of two stores. Both are freed."""
        best = None
        for p in (r - 1, r + 1):
            if p < 0 or p >= self.NQ or p in avoid or p not in self.owner:
                continue
            w = self.owner[p]
            if not self.dirty(w, i):
                continue
            n = self.next_use(w, i)
            mate = self.mates.get(w) == self.owner[r]
            if n < i + self.pair_min and w not in self.hint and not mate:
                continue
            if mate:
                n = 10**9
            if best is None or n > best[0]:
                best = (n, p)
        if best is None:
            return False
        lo = min(r, best[1])
        s = self.new_slot_pair(i)
        if s is None:
            return False
        for j in range(2):
            v = self.owner.pop(lo + j)
            del self.reg[v]
            self.slot[v] = s + j
            self.stored.add(v)
            self.spill_t.setdefault(v, i)
        self.emit("vstmia %s, {{d%d-d%d}}" % (self.SLOTS[s], 2 * lo, 2 * lo + 3))
        self.spills += 2
        self.pairs += 1
        return True

    def new_slot_pair(self, i):
        for v in list(self.slot):
            if self.next_use(v, i) is None:
                del self.slot[v]
        used = set(self.slot.values())
        for s in range(len(self.SLOTS) - 1):
            if s not in used and s + 1 not in used:
                self.max_slots = max(self.max_slots, s + 2)
                return s
        return None

    def reload_pair(self, v, i, avoid):
        """Reload v and the value in the adjacent slot with one `vldmia`
        if that value is needed within pair_window operations and two
        consecutive registers are free."""
        s = self.slot[v]
        for s2 in (s - 1, s + 1):
            w = [x for x, t in self.slot.items() if t == s2]
            if not w or s2 < 0:
                continue
            w = w[0]
            lo = min(s, s2)
            if w in self.reg or w in self.remat or lo >= len(self.SLOTS):
                continue
            n = self.next_use(w, i)
            mate = self.mates.get(w) == v
            if n is None or (n > i + self.pair_window and not mate):
                continue
            for t in range(self.NQ - 1):
                if (t not in self.owner and t + 1 not in self.owner
                        and t not in avoid and t + 1 not in avoid):
                    self.emit("vldmia %s, {{d%d-d%d}}" % (self.SLOTS[lo], 2 * t, 2 * t + 3))
                    vals = (v, w) if s < s2 else (w, v)
                    for j in range(2):
                        self.reg[vals[j]], self.owner[t + j] = t + j, vals[j]
                    self.reloads += 2
                    for x in vals:
                        self.reload_t.setdefault(x, i)
                    self.pairs += 1
                    return self.reg[v]
        return None

    def clean(self, v, i):
        return v in self.consts or v in self.slot or self.can_remat(v, i)

    def last_use(self, v):
        u = self.nu.get(v)
        return u[-1] if u else None

    def can_remat(self, v, i):
        """v = a op b with a and b both still live at v's next use: it can be
        recomputed there (one instruction) instead of stored and reloaded."""
        if not self.remat_on or v not in self.defn:
            return False
        n = self.next_use(v, i)
        if n is None:
            return False
        for a in self.defn[v][1]:
            lu = self.last_use(a)
            if lu is None or lu < n or (a not in self.reg and a not in self.consts and a not in self.slot and a not in self.remat):
                return False
            if REMAT == 1 and a not in self.reg and a not in self.consts:
                return False  # would cost a reload or a recursive recompute
        return True

    def evict(self, r, i):
        """Free q r, spilling its value if it is live, not a constant and
        not in a slot already (or recomputable from live operands)."""
        v = self.owner.pop(r)
        del self.reg[v]
        if self.next_use(v, i) is not None and v not in self.consts and v not in self.slot:
            if self.can_remat(v, i):
                self.remat[v] = True
                return
            s = self.new_slot(i)
            self.slot[v] = s
            self.stored.add(v)
            self.spill_t.setdefault(v, i)
            self.emit_slot("vst1.64", r, s)
            self.spills += 1

    def load_group(self, vals, i):
        """Place `vals` in consecutive registers (the window that evicts
        the fewest live values, then the ones needed latest) and load them
        with one `vldmia`."""
        n = len(vals)
        best = None
        for b in range(self.NQ - n + 1):
            occ = [self.owner[r] for r in range(b, b + n) if r in self.owner]
            live = [v for v in occ if self.next_use(v, i) is not None]
            stores = sum(1 for v in live if v not in self.consts and v not in self.slot)
            near = min([self.next_use(v, i) for v in live], default=10**9)
            k = (len(live) + stores, -near, b)
            if best is None or k < best[0]:
                best = (k, b)
        b = best[1]
        for r in range(b, b + n):
            if r in self.owner:
                self.evict(r, i)
        self.emit("vldmia r0!, {{d%d-d%d}}" % (2 * b, 2 * b + 2 * n - 1))
        for j, v in enumerate(vals):
            self.reg[v], self.owner[b + j] = b + j, v

    def first_free_slot(self):
        """The lowest slot no value holds (counted in max_slots), or None."""
        used = set(self.slot.values())
        for s in range(self.NSLOTS):
            if s not in used:
                self.max_slots = max(self.max_slots, s + 1)
                return s
        return None

    def new_slot(self, i):
        s = self.first_free_slot()
        if s is not None:
            return s
        # free slots of dead values
        for v in list(self.slot):
            if self.next_use(v, i) is None or v in self.reg:
                del self.slot[v]
        s = self.first_free_slot()
        if s is not None:
            return s
        raise RuntimeError("out of spill slots")

    def emit_slot(self, op, r, s):
        if s < len(self.SLOTS):
            self.emit("%s {{d%d-d%d}}, [%s :128]" % (op, 2 * r, 2 * r + 1, self.SLOTS[s]))
        else:
            o = "vstr" if op == "vst1.64" else "vldr"
            self.emit("%s d%d, [r4, #%d]" % (o, 2 * r, 16 * s))
            self.emit("%s d%d, [r4, #%d]" % (o, 2 * r + 1, 16 * s + 8))

    def emit(self, s):
        self.lines.append("    " + s)

    def load_const(self, v, r):
        name = self.consts[v]
        if name.startswith("m"):
            self.emit("vmov.i8 q%d, #0x%s" % (r, name[1:]))
        elif self.postinc:
            # the unrolled encryption's main path: its tables are laid
            # out in load order, so every load is one post-incrementing
            # `vld1` (see routine_enc_fs)
            self.emit("vld1.8 {{d%d-d%d}}, [lr :128]!" % (2 * r, 2 * r + 1))
            self.seq.append(name)
        else:
            off = self.const_off[name]
            if off == 0:
                self.emit("vld1.8 {{d%d-d%d}}, [lr :128]" % (2 * r, 2 * r + 1))
            else:
                self.emit("vldr d%d, [lr, #%d]" % (2 * r, off))
                self.emit("vldr d%d, [lr, #%d]" % (2 * r + 1, off + 8))

    def ensure(self, v, i, avoid=()):
        if v in self.reg:
            return self.reg[v]
        if v in self.remat:
            k, srcs = self.defn[v]
            rs = list(avoid)
            for a in srcs:
                rs.append(self.ensure(a, i, avoid=tuple(rs)))
            r = self.free_reg(i, tuple(rs))
            self.emit("%s q%d, q%d, q%d" % (k, r, rs[-2], rs[-1]))
            self.remats += 1
            del self.remat[v]
            self.reg[v], self.owner[r] = r, v
            return r
        if v in self.slot and self.pair_window is not None:
            r = self.reload_pair(v, i, avoid)
            if r is not None:
                return r
        r = self.free_reg(i, avoid)
        if v in self.consts:
            self.load_const(v, r)
        else:
            s = self.slot[v]
            self.emit_slot("vld1.64", r, s)
            self.reloads += 1
            self.reload_t.setdefault(v, i)
        self.reg[v], self.owner[r] = r, v
        return r

    def release_dead(self, i):
        for v in list(self.reg):
            if self.next_use(v, i) is None:
                r = self.reg.pop(v)
                del self.owner[r]
        for v in list(self.slot):
            if self.next_use(v, i) is None:
                del self.slot[v]
        for v in list(self.remat):
            if self.next_use(v, i) is None:
                del self.remat[v]

    def run(self):
        self.nu = self.uses()
        for j, v in enumerate(self.inputs):
            r = self.in_regs[j]
            self.reg[v], self.owner[r] = r, v
        for i, (k, d, s, kw) in enumerate(self.prog.ops):
            if k == "const":
                self.consts[d] = kw["name"]
                continue
            if k == "keyg":
                self.load_group(kw["vals"], i)
                continue
            if k == "key":
                r = self.free_reg(i)
                self.emit("vld1.8 {{d%d-d%d}}, [r0 :128]!" % (2 * r, 2 * r + 1))
                self.reg[d], self.owner[r] = r, d
                continue
            rs = []
            for v in s:
                rs.append(self.ensure(v, i, avoid=tuple(rs)))
            if k in TIED:
                if self.next_use(s[0], i + 1) is None:
                    r = rs[0]
                    del self.owner[r], self.reg[s[0]]
                else:
                    r = self.free_reg(i, avoid=tuple(rs))
                    self.emit("vmov q%d, q%d" % (r, rs[0]))
                self.release_dead(i + 1)
            elif k == "vtbl":
                # destination must differ from the table source
                r = self.free_reg(i, avoid=tuple(rs))
            else:
                self.release_dead(i + 1)
                r = self.pick_dst(d, i, tuple(x for x in rs if x in self.owner))
            a = rs[0]
            if k in ("veor", "vand"):
                self.emit("%s q%d, q%d, q%d" % (k, r, a, rs[1]))
            elif k == "vrev":
                self.emit("vrev32.16 q%d, q%d" % (r, a))
            elif k == "vext":
                self.emit("vext.8 q%d, q%d, q%d, #%d" % (r, a, a, kw["imm"]))
            elif k == "vshr":
                self.emit("vshr.u8 q%d, q%d, #%d" % (r, a, kw["imm"]))
            elif k == "vshl":
                self.emit("vshl.i8 q%d, q%d, #%d" % (r, a, kw["imm"]))
            elif k in ("vbit", "vbif"):
                self.emit("%s q%d, q%d, q%d" % (k, r, rs[1], rs[2]))
            elif k in ("vsri", "vsli"):
                self.emit("%s.8 q%d, q%d, #%d" % (k, r, rs[1], kw["imm"]))
            elif k == "vtbl":
                t = rs[1]
                self.emit("vtbl.8 d%d, {{d%d-d%d}}, d%d" % (2 * r, 2 * a, 2 * a + 1, 2 * t))
                self.emit("vtbl.8 d%d, {{d%d-d%d}}, d%d" % (2 * r + 1, 2 * a, 2 * a + 1, 2 * t + 1))
            else:
                raise ValueError(k)
            self.reg[d], self.owner[r] = r, d
            if k in ("veor", "vand"):
                self.defn[d] = (k, s)
            self.release_dead(i + 1)
        # bring outputs to q0..q7
        n = len(self.prog.ops)
        if self.do_place:
            tg = self.targets
            for j, v in enumerate(self.outputs):
                self.ensure(v, n + j, avoid=tuple(tg[:j]))
            self.place()
        else:
            got = []
            for j, v in enumerate(self.outputs):
                got.append(self.ensure(v, n + j, avoid=tuple(got)))
        self.out_regs = [self.reg[v] for v in self.outputs]
        return self.lines

    def place(self):
        """Parallel move: output j into q targets[j] (vswp resolves
        cycles)."""
        for jj, v in enumerate(self.outputs):
            j = self.targets[jj]
            r = self.reg[v]
            if r == j:
                continue
            if j in self.owner:
                w = self.owner[j]
                self.emit("vswp q%d, q%d" % (j, r))
                self.reg[w], self.owner[r] = r, w
            else:
                self.emit("vmov q%d, q%d" % (j, r))
                del self.owner[r]
            self.reg[v], self.owner[j] = j, v

# Per routine: its ShiftRows permutation at offset 0, TRANSPOSE at 16.
CONST_OFF = {"SR": 0, "ISR": 0, "TRANSPOSE": 16,
             "P1_1": 32, "P1_2": 48, "P1_3": 64, "P2_1": 80, "P2_3": 96, "FIX2T": 112,
             "TRANSPOSE_R": 128}
FS_TABLE = (perm_rows(1) + TRANSPOSE + skew_rows(1, 1) + skew_rows(1, 2) + skew_rows(1, 3)
            + skew_rows(2, 1) + skew_rows(2, 3) + [perm_rows(2)[t] for t in TRANSPOSE])
# Unrolled encryption: the tails (last round + store) address their one
# table at offset 0 of their own area; the main path reads a sequence.
FS_TAIL_OFF = {"FIX2T": 0, "TRANSPOSE": 0}
# CTR: counter blocks are built with their 32-bit words byte-reversed
# (`vrev32.8`, so `vadd.i32` increments the big-endian counter); reading
# byte TRANSPOSE[i] ^ 3 undoes that inside the transposition's `vtbl`.
TRANSPOSE_R = [t ^ 3 for t in TRANSPOSE]
CTR_TABLE = FS_TABLE + TRANSPOSE_R
TABLES = {n: CTR_TABLE[o:o + 16] for n, o in CONST_OFF.items()
          if n not in ("SR", "ISR")}
TABLES["PACK"] = [4 * (i % 4) + 3 - i // 4 for i in range(16)]  # see ctr_batch_head
TABLES["CTR_0_8_16_24"] = [0, 0, 0, 0, 8, 0, 0, 0, 16, 0, 0, 0, 24, 0, 0, 0]
TABLES["SPREAD3"] = [4 * (i // 4) + 3 for i in range(16)]

def schedule(p, outs, rng=None, noise=0):
    """Greedy list scheduling that keeps few values live: among the ready
    operations prefer the one whose operands die there (pressure change
    1 - deaths), then the original order. Round-key loads keep their
    relative order (the key pointer is post-incremented)."""
    ops = p.ops
    def made(o):
        return o[3]["vals"] if o[0] == "keyg" else [o[1]]
    prod = {}
    for i, o in enumerate(ops):
        for v in made(o):
            prod[v] = i
    users = {}
    for i, (k, d, s, kw) in enumerate(ops):
        for v in s:
            users.setdefault(v, set()).add(i)
    for v in outs:
        users.setdefault(v, set()).add(len(ops))
    done_vals = set(v for v in users if v not in prod)  # segment inputs
    remaining = set(range(len(ops)))
    pending_uses = {v: set(u) for v, u in users.items()}
    keys = [i for i, o in enumerate(ops) if o[0] in ("key", "keyg")]
    order = []
    while remaining:
        best, bkey = None, None
        for i in remaining:
            k, d, s, kw = ops[i]
            if any(v not in done_vals for v in s):
                continue
            if k in ("key", "keyg") and keys and keys[0] != i:
                continue
            if k in ("const", "key", "keyg"):
                # only when a consumer is otherwise ready
                mine = set(made(ops[i]))
                cons = [u for v in mine for u in users.get(v, ()) if u < len(ops)]
                ok = any(all(w in done_vals or w in mine for w in ops[u][2]) for u in cons)
                pr = (0 if ok else 2, rng.random() if rng else 0, i)
            elif k in TIED and pending_uses[s[0]] != {i}:
                # overwriting an input that is still needed costs a copy
                pr = (3, rng.random() if rng else 0, i)
            else:
                deaths = sum(1 for v in set(s) if pending_uses[v] == {i})
                pr = (1 - deaths + (noise * rng.random() if rng else 0),
                      rng.random() if rng else 0, i)
            if bkey is None or pr < bkey:
                best, bkey = i, pr
        k, d, s, kw = ops[best]
        remaining.discard(best)
        order.append(ops[best])
        if k in ("key", "keyg"):
            keys.pop(0)
        done_vals.update(made(ops[best]))
        for v in s:
            pending_uses[v].discard(best)
    p.ops = order

# 1: the rotations that shift columns by 2 use `vrev32.16` + `vext`
# instead of a `vtbl` pair and its table; 0: tables; 2: alternate by
# trial (the search keeps the better)
REV = int(setting("BSAES_REV", "2"))
TRIAL = [0]
# noise on the scheduler's priority (in deaths), by trial: 0 keeps the
# order by deaths and only breaks ties at random
NOISE = eval(setting("BSAES_NOISE", "[0]"))
SEARCH = int(setting("BSAES_SEARCH", "400"))  # randomised schedules tried per segment (deterministic seed)

CACHE = {}

def segment(build, in_regs=None, place=True, key=None, **kw):
    """Allocate one segment; among SEARCH randomised greedy schedules
    (fixed seed, so the output is reproducible) keep the shortest code.
    Segments with the same `key` (and inputs) are searched once."""
    ck = None if key is None else (key, tuple(in_regs) if in_regs else None, repr(place),
                                   repr(sorted(kw.items())))
    if ck in CACHE:
        return CACHE[ck]
    r = segment_search(build, in_regs, place, kw)
    if ck is not None:
        CACHE[ck] = r
    return r

def learn_mates(a, limit):
    """Pair the values a first allocation spilled whose stores and first
    reloads were close (sum of distances <= limit), closest first."""
    vs = [v for v in a.spill_t if v in a.reload_t]
    cand = sorted((abs(a.spill_t[v] - a.spill_t[w]) + abs(a.reload_t[v] - a.reload_t[w]), v, w)
                  for j, v in enumerate(vs) for w in vs[j + 1:])
    mates = {}
    for d, v, w in cand:
        if d <= limit and v not in mates and w not in mates:
            mates[v], mates[w] = w, v
    return mates

def segment_search(build, in_regs, place, kw={}):
    import random
    best = None
    def keep(lines, a):
        """Remember this allocation if it is the shortest so far."""
        nonlocal best
        if best is None or len(lines) < best[0]:
            best = (len(lines), lines, a)
    for trial in range(SEARCH + 1):
        TRIAL[0] = trial
        p = Prog()
        ins = [p.new("in") for _ in range(8)]
        outs = build(p, ins)
        schedule(p, outs, random.Random(trial) if trial else None,
                 NOISE[trial % len(NOISE)])
        for pairing, passes in PAIRINGS:
            learn = pairing[2] == "learn"
            if learn:
                pairing = (pairing[0], pairing[1], False)
            a = Alloc(p, ins, outs, in_regs, place, pairing=pairing, **kw)
            lines = a.run()
            if learn:
                a = Alloc(p, ins, outs, in_regs, place, pairing=pairing,
                          mates=learn_mates(a, passes), **kw)
                keep(a.run(), a)
                continue
            for _ in range(passes):
                a = Alloc(p, ins, outs, in_regs, place, hint=a.stored, pairing=pairing, **kw)
                lines = a.run()
                keep(lines, a)
            keep(lines, a)
        if not any(k == "vand" or k in TIED for k, _, _, _ in p.ops):
            break  # XOR-only segments: no search needed
    return best[1], best[2]

def enc_round(p, q):
    q = sbox(p, q)
    q = permute(p, q, "SR")
    q = mix_columns(p, q)
    return ark(p, q)

def enc_last(p, q):
    q = sbox(p, q)
    q = permute(p, q, "SR")
    return ark(p, q)

def dec_last(p, q):
    # InvShiftRows, InvSubBytes (0x63 folded in the keys), AddRoundKey
    q = permute(p, q, "ISR")
    q = inv_affine_lin(p, sbox(p, inv_affine_lin(p, q)))
    return ark(p, q)

def dec_round(p, q):
    # the last round's steps, then InvMixColumns
    return inv_mix_columns(p, dec_last(p, q))

def to_planes(p, q, table="TRANSPOSE"):
    q = permute(p, q, table)
    q = bit_transpose(p, q)
    return ark(p, q)

def from_planes(p, q, table="TRANSPOSE"):
    q = bit_transpose(p, q)
    return permute(p, q, table)

FRAME = 16 * Alloc.NSLOTS  # spill slots; then saved sp and out pointer

def slot_pointers():
    """r5-r11, r1, r2, ip := spill slots 1-10 (r4 is slot 0), so that a
    spill or reload is one instruction."""
    return ["    add %s, r4, #%d" % (r, 16 * (i + 1)) for i, r in enumerate(Alloc.SLOTS[1:])]

def enter_frame(size):
    """After the pushes: a 16-byte aligned frame of `size` bytes at r4,
    the caller's sp saved at r4 + FRAME."""
    return ["    mov r11, sp",
            "    sub sp, sp, #%d" % size,
            "    bic sp, sp, #15",
            "    mov r4, sp",
            "    str r11, [r4, #%d]" % FRAME]

def prologue(name, consts):
    """Entry of enc8/dec8 (keys, in, out, rounds): save registers, frame,
    out pointer to the frame, lr at the tables, the 8 blocks in q0-q7,
    slot pointers."""
    return ([name + ":",
             "    push {{r4-r11, lr}}",
             "    vpush {{d8-d15}}"]
            + enter_frame(FRAME + 32)
            + ["    str r2, [r4, #%d]" % (FRAME + 4),
               "    adr lr, " + consts,
               "    vld1.8 {{d0-d3}}, [r1]!", "    vld1.8 {{d4-d7}}, [r1]!",
               "    vld1.8 {{d8-d11}}, [r1]!", "    vld1.8 {{d12-d15}}, [r1]"]
            + slot_pointers())

def wipe_frame(size):
    """Zero the first `size` bytes of the frame (32 per store, q8-q9
    zeroed first): it held state and key-dependent values, so it is
    wiped before return."""
    return ["    vmov.i8 q8, #0",
            "    vmov.i8 q9, #0",
            "    mov r1, r4",
            "    mov r3, #%d" % (size // 32),
            "2:",
            "    vst1.64 {{d16-d19}}, [r1 :128]!",
            "    subs r3, r3, #1",
            "    bne 2b"]

def store_and_wipe():
    """Exit of enc8/dec8: q0-q7 to the saved out pointer, the spill area
    wiped, sp back to the caller's."""
    return (["    ldr r2, [r4, #%d]" % (FRAME + 4),
             "    vst1.8 {{d0-d3}}, [r2]!", "    vst1.8 {{d4-d7}}, [r2]!",
             "    vst1.8 {{d8-d11}}, [r2]!", "    vst1.8 {{d12-d15}}, [r2]"]
            + wipe_frame(FRAME)
            + ["    ldr r11, [r4, #%d]" % FRAME,
               "    mov sp, r11"])

def epilogue():
    """Return (sp already restored): clear the caller-saved NEON registers
    that held state (q4-q7 get the caller's values back from vpop), then
    restore registers."""
    return ["    vmov.i8 q10, #0", "    vmov.i8 q11, #0",
            "    vmov.i8 q12, #0", "    vmov.i8 q13, #0", "    vmov.i8 q14, #0",
            "    vmov.i8 q15, #0", "    vmov.i8 q0, #0", "    vmov.i8 q1, #0",
            "    vmov.i8 q2, #0", "    vmov.i8 q3, #0",
            "    vpop {{d8-d15}}",
            "    pop {{r4-r11, pc}}"]

def routine(name, first, middle, last, table):
    stats = []
    out = []
    def seg(build, label):
        lines, a = segment(build)
        stats.append((label, len(lines), a.spills, a.reloads, a.pairs, a.max_slots))
        out.extend(lines)
    consts = ".L%s_consts" % name
    out += ["    .p2align 4",
            consts + ":",
            "    .byte " + ", ".join(str(x) for x in table + TRANSPOSE)]
    out += prologue(name, consts)
    seg(first, "load+ARK0")
    out += ["    subs r3, r3, #1", "1:"]
    seg(middle, "round")
    out += ["    subs r3, r3, #1", "    bne 1b"]
    seg(last, "last round")
    seg(from_planes, "store")
    out += store_and_wipe() + epilogue()
    return out, stats

def enc_fs_round(j):
    def build(p, q):
        return ark(p, mix_columns_fs(p, sbox(p, q), j))
    return build

def enc_fs_last(nr):
    def build(p, q):
        q = ark(p, sbox(p, q))
        # the byte permutations commute with the bit transposition: the
        # fixslicing fix-up (ShiftRows^2 after 10 or 14 rounds) rides in
        # the transposition's `vtbl`
        return from_planes(p, q, "FIX2T" if nr % 4 else "TRANSPOSE")
    return build

# + old sp, out, in, keys (from round key 1 on), rounds, end of input,
# next keystream planes; +32 counters; +64 K3; +192 SN; +320 the round-1
# S-box output of 4 batches (see routine_enc_fs, ctr_pack_*)
FRAME_CTR = FRAME + 832

def ctr_round1():
    """CTR's round 1 after the precomputed S-box: MixColumns and ARK on
    q0-q7. enc8's round 1 leaves its output in the same registers, so
    the two share rounds 2 on."""
    return segment(lambda p, q: ark(p, mix_columns_fs(p, q, 1)), list(range(8)), False,
                   key="ctr round 1", postinc=True)
S1_END = 832         # frame offset (from F) of the end of the 4 batches' planes

def ctr_pack_counters(F):
    """CTR, every 4 batches: the 32 counters c + 8b + j (batch b, block j)
    as 8 registers X_j (q1-q8), byte 4r + b = big-endian byte r of
    counter c + 8b + j (numbers in 32-bit lanes, then one `vtbl` each);
    c + 32 back to the frame. lr points to the PACK table."""
    L = ["    add r0, r4, #%d" % (F + 32),
         "    vld1.64 {{d16-d17}}, [r0 :128]",       # c, c + 8, c + 16, c + 24
         "    vmov.i32 q2, #32",
         "    vadd.i32 q2, q8, q2",
         "    vst1.64 {{d4-d5}}, [r0 :128]",
         "    vmov.i32 q1, #1"]
    L += ["    vadd.i32 q%d, q%d, q1" % (9 + j, 8 + j) for j in range(7)]
    L += ["    vld1.8 {{d0-d1}}, [lr :128]!"]       # PACK
    for j in range(8):
        src, dst = 8 + j, (1 + j if j < 7 else 8)
        L += ["    vtbl.8 d%d, {{d%d-d%d}}, d0" % (2 * dst, 2 * src, 2 * src + 1),
              "    vtbl.8 d%d, {{d%d-d%d}}, d1" % (2 * dst + 1, 2 * src, 2 * src + 1)]
    return L

def ctr_pack_merge(F):
    """CTR, every 4 batches, after the bit transposition of X_j, XOR with
    K3 and the S-box (planes P_k in q k, byte 4r + b for batch b): the
    round-1 S-box output of batch b is SN (the S-box of the zero-counter
    planes, column 3 cleared) with byte b of each word of P_k inserted
    as byte 3 (`vsli`; P shifts right by 8 per batch); written to the
    frame, 128 bytes per batch; r0 = the first."""
    L = ["    add r0, r4, #%d" % (F + 192),
         "    add r3, r4, #%d" % (F + 256),
         "    add lr, r4, #%d" % (F + S1_END - 512)]
    for b in range(4):
        for h, base in ((0, "r0"), (1, "r3")):
            L.append("    vldmia %s, {{d16-d23}}" % base)      # SN 4h .. 4h + 3
            # byte 0 of each word of P_k into byte 3 (zero in SN)
            L += ["    vsli.32 q%d, q%d, #24" % (8 + k, 4 * h + k) for k in range(4)]
            L.append("    vstmia lr!, {{d16-d23}}")
        if b < 3:
            L += ["    vshr.u32 q%d, q%d, #8" % (k, k) for k in range(8)]
    L.append("    add r0, r4, #%d" % (F + S1_END - 512))
    return L

def routine_enc_fs(name, ctr=False):
    """Encryption, fixsliced and unrolled: no ShiftRows, no register moves
    between rounds; exits after 9, 11 or 13 middle rounds (rounds 10, 12,
    14, a public parameter). With `ctr`, the CTR loop around it (see the
    register plan of `aes_ct_bsaes_ctr32_armv7` in the template)."""
    stats = []
    out = []
    consts = ".L%s_consts" % name
    labels = {}
    if ctr:
        F = FRAME
        out += [name + ":",
                "    push {{r4-r11, lr}}",
                "    vpush {{d8-d15}}",
                "    ldr r5, [sp, #100]",       # blocks (a positive multiple of 8)
                "    ldr r6, [sp, #104]"]       # counter block pointer
        out += enter_frame(FRAME_CTR)
        out += ["    str r0, [r4, #%d]" % (F + 4),
                "    str r1, [r4, #%d]" % (F + 8),
                "    str r3, [r4, #%d]" % (F + 16),
                "    add r5, r1, r5, lsl #4",    # end of the input
                "    str r5, [r4, #%d]" % (F + 20),
                "    adr lr, " + consts,
                # where the pack's and the main path's tables start (adr
                # could not reach them from the loop)
                "    add r3, lr, #@PACKOFF@",
                "    str r3, [r4, #%d]" % (F + 28),
                "    add r3, lr, #@MAINOFF@",
                "    str r3, [r4, #%d]" % (F + 48),
                # counter block with its words byte-reversed (`vrev32.8`):
                # word 3 is the counter as a number
                "    vld1.8 {{d0-d1}}, [r6]",
                "    mov r0, r2"]
        out += slot_pointers()
        out += ["    vrev32.8 q0, q0",
                "    vdup.32 q8, d1[1]",
                "    vld1.8 {{d18-d19}}, [lr :128]!",   # CTR_0_8_16_24
                "    vadd.i32 q8, q8, q9",
                "    add r3, r4, #%d" % (F + 32),
                "    vst1.64 {{d16-d17}}, [r3 :128]",   # c, c + 8, c + 16, c + 24
                "    add r3, r4, #%d" % (F + S1_END),
                "    str r3, [r4, #%d]" % (F + 24),     # no keystream planes yet
                # 8 copies of the block with counter 0
                "    mov r3, #0",
                "    vmov.32 d1[1], r3"]
        out += ["    vmov q%d, q0" % i for i in range(1, 8)]
        lines, a = segment(lambda p, q: to_planes(p, q, "TRANSPOSE_R"), None, False,
                           key="load+ARK0ctr", postinc=True)
        pro = len(lines)
        out += lines
        T = a.out_regs
        seq = ["CTR_0_8_16_24"] + a.seq + ["SPREAD3"]
        # K3: the key bits of column 3 (byte 4r + 3 of plane k) in all 4
        # bytes of word r
        out += ["    str r0, [r4, #%d]" % (F + 12),   # round key 1 on
                "    vld1.8 {{d24-d25}}, [lr :128]!",
                "    add r3, r4, #%d" % (F + 64)]
        for h in range(2):
            for k in range(4):
                t = T[4 * h + k]
                out += ["    vtbl.8 d%d, {{d%d-d%d}}, d24" % (16 + 2 * k, 2 * t, 2 * t + 1),
                        "    vtbl.8 d%d, {{d%d-d%d}}, d25" % (17 + 2 * k, 2 * t, 2 * t + 1)]
            out.append("    vstmia r3!, {{d16-d23}}")
        # SN: S-box of those planes, column 3 cleared
        lines, a = segment(lambda p, q: sbox(p, q), T, True, key="ctr sbox N", postinc=True)
        pro += len(lines) + 21
        out += lines
        seq += a.seq
        out += ["    vmov.i32 q8, #0xff000000"]
        out += ["    vbic q%d, q%d, q8" % (k, k) for k in range(8)]
        out += ["    add r3, r4, #%d" % (F + 192), "    vstmia r3, {{d0-d15}}"]
        stats.append(("ctr prologue", pro + 18, 0, 0, 0, 0))
        # per batch: the round-1 S-box output from the frame, computed
        # for 4 batches at a time (ctr_pack)
        out += ["5:",
                "    ldr r0, [r4, #%d]" % (F + 24),
                "    add r3, r4, #%d" % (F + S1_END),
                "    cmp r0, r3",
                "    bne 6f",
                "    ldr lr, [r4, #%d]" % (F + 28)]
        labels[len(seq)] = ".L%s_pack" % name
        seq += ["PACK"]
        head = ctr_pack_counters(F)
        lines, a = segment(lambda p, q: sbox(p, ark(p, bit_transpose(p, q))),
                           list(range(1, 9)), True, key="ctr pack", postinc=True)
        seq += a.seq
        merge = ctr_pack_merge(F)
        stats.append(("ctr pack", len(head) + len(lines) + len(merge) + 6, a.spills, a.reloads,
                      a.pairs, a.max_slots))
        out += head + ["    add r0, r4, #%d" % (F + 64)] + lines + merge
        out += ["6:",
                "    vldmia r0!, {{d0-d15}}",
                "    str r0, [r4, #%d]" % (F + 24),
                "    ldr lr, [r4, #%d]" % (F + 48),
                "    ldr r0, [r4, #%d]" % (F + 12),
                "    ldr r3, [r4, #%d]" % (F + 16)]
        stats.append(("ctr batch head", 11, 0, 0, 0, 0))
        labels[len(seq)] = ".L%s_main" % name
        lines, a = ctr_round1()
        stats.append(("ctr round 1", len(lines), a.spills, a.reloads, a.pairs, a.max_slots))
        out += lines
        seq += a.seq
        regs = a.out_regs
        first_round = 2
    else:
        out += prologue(name, consts)
        # The CTR prologue's transposition differs from this one only in
        # its table (same length of code), so both get the same schedule
        # and registers, and the rounds the same input registers.
        lines, a = segment(to_planes, None, False, key="load+ARK0", postinc=True)
        stats.append(("load+ARK0", len(lines), a.spills, a.reloads, a.pairs, a.max_slots))
        out += lines
        seq = list(a.seq)
        regs = a.out_regs
        first_round = 1
    exits = []
    for i in range(first_round, 14):
        place = ctr_round1()[1].out_regs if i == 1 else False
        lines, a = segment(enc_fs_round(i % 4), regs, place, key="round %d" % (i % 4),
                           postinc=True)
        stats.append(("round %d" % i, len(lines), a.spills, a.reloads, a.pairs, a.max_slots))
        out += lines
        seq += a.seq
        regs = a.out_regs
        if i in (9, 11):
            out += ["    cmp r3, #%d" % (i + 1), "    beq 3%df" % (i + 1)]
            exits.append((i + 1, regs, len(seq)))
    exits.append((14, regs, len(seq)))
    # the tails' tables follow the sequence; they address them relative
    # to where lr stands at their exit
    tail_tables = ["FIX2T", "TRANSPOSE"]
    tails = []
    for nr, rg, pos in sorted(exits, key=lambda e: -e[0]):
        off = {n: 16 * (len(seq) + j - pos) for j, n in enumerate(tail_tables)}
        lines, a = segment(enc_fs_last(nr), rg, True, key="last %d" % nr, const_off=off)
        stats.append(("last+store %d" % nr, len(lines), a.spills, a.reloads, a.pairs, a.max_slots))
        tails += ["3%d:" % nr] + lines + ["    b 4f"]
    out += tails[:-1]  # the last tail falls through to 4
    if ctr:
        F = FRAME
        out += ["4:",
                # keystream (q0-q7) XOR input, stored; next batch
                "    ldr r0, [r4, #%d]" % (F + 8),
                "    ldr r3, [r4, #%d]" % (F + 4),
                "    vld1.8 {{d16-d19}}, [r0]!", "    vld1.8 {{d20-d23}}, [r0]!",
                "    vld1.8 {{d24-d27}}, [r0]!", "    vld1.8 {{d28-d31}}, [r0]!"]
        out += ["    veor q%d, q%d, q%d" % (i, i, i + 8) for i in range(8)]
        out += ["    vst1.8 {{d0-d3}}, [r3]!", "    vst1.8 {{d4-d7}}, [r3]!",
                "    vst1.8 {{d8-d11}}, [r3]!", "    vst1.8 {{d12-d15}}, [r3]!",
                "    str r0, [r4, #%d]" % (F + 8),
                "    str r3, [r4, #%d]" % (F + 4),
                "    ldr r3, [r4, #%d]" % (F + 20),
                # loop while the input pointer is below the end (unsigned
                # `lo`), not until it equals it: a count that is not whole
                # batches then stops after the batch that crosses the end
                # instead of running on through memory
                "    cmp r0, r3",
                "    blo 5b",
                "    ldr r11, [r4, #%d]" % F]
        # the whole CTR frame: spills, counters, K3, SN and S-box planes
        out += wipe_frame(FRAME_CTR) + ["    mov sp, r11"]
    else:
        out += ["4:"] + store_and_wipe()
    out += epilogue()
    for j, lab in labels.items():
        tag = "@PACKOFF@" if lab.endswith("_pack") else "@MAINOFF@"
        out = [l.replace(tag, str(16 * j)) for l in out]
    table = []
    for j, n in enumerate(seq + tail_tables):
        if j in labels:
            table.append(labels[j] + ":")
        table.append("    .byte " + ", ".join(str(x) for x in TABLES[n]))
    return ["    .p2align 4", consts + ":"] + table + out, stats

def main():
    enc, es = routine_enc_fs("aes_ct_bsaes_enc8_armv7")
    ctr, cs = routine_enc_fs("aes_ct_bsaes_ctr32_armv7", ctr=True)
    head = [x for x in cs if x[0].startswith("ctr")]
    cs = [x for x in cs if not x[0].startswith("ctr")]
    assert [x[1:] for x in cs] == [x[1:] for x in es if x[0] not in ("load+ARK0", "round 1")], \
        "CTR kernel differs from enc8"
    dec, ds = routine("aes_ct_bsaes_dec8_armv7", to_planes, dec_round, dec_last, ISR)
    def plan(stats):
        return "\n".join("//!   %-10s %4d instructions, %3d spills, %3d reloads, %2d pairs, %2d slots" % s
                         for s in stats)
    # The preamble (ARM state, unified syntax, armv7-a with NEON) is the
    # folder's `armv7_asm!` macro (arm/mod.rs), shared with the hand-written
    # routines.
    asm = []
    for nm, body in [("aes_ct_bsaes_enc8_armv7", enc), ("aes_ct_bsaes_ctr32_armv7", ctr),
                     ("aes_ct_bsaes_dec8_armv7", dec)]:
        asm += ['    ".globl %s",' % nm, '    ".hidden %s",' % nm, '    ".type %s, %%function",' % nm]
        asm += ['    "%s",' % l.replace("    ", "", 1) if not l.startswith("    ") else '    "%s",' % l for l in body]
        asm += ['    ".size %s, .-%s",' % (nm, nm)]
    text = TEMPLATE.replace("{ctr_plan}", plan(head)).replace("{enc_plan}", plan(es)).replace("{dec_plan}", plan(ds)).replace("{asm}", "\n".join(asm))
    top, body = text.split("{provenance}\n")
    text = top + provenance(body) + body
    out = os.environ.get("BSAES_OUT", os.path.join(ROOT, "bsaes_asm.rs"))
    open(out, "w", encoding="utf-8", newline="\n").write(text)
    for st in es + ds:
        print(st, file=sys.stderr)

def sha256(data):
    return hashlib.sha256(data if isinstance(data, bytes) else data.encode()).hexdigest()

def quoted(marker):
    return '"%s"' % marker.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")

def provenance(body):
    """The header lines that tie the output to what made it (read back by
    `cargo xtask test`, see xtask/src/regen_asm.rs): the SHA-256 of this
    generator, of the S-box section it read, of its settings (each
    `NAME=VALUE` and a newline, in order) and of the output after the
    last header line."""
    repo = os.path.normpath(os.path.join(ROOT, "..", "..", ".."))
    rel = lambda f: os.path.relpath(os.path.normpath(f), repo).replace(os.sep, "/")
    settings = "".join("%s=%s\n" % kv for kv in SETTINGS.items())
    assert all("\n" not in v for v in SETTINGS.values()), "a setting spans lines"
    lines = [
        "Made from (SHA-256; `cargo xtask test` fails when one no longer matches;",
        "schedule t = 1..=BSAES_SEARCH of each segment breaks ties by Python's random.Random(t)):",
        "  sha256 %s %s" % (sha256(SELF), rel(__file__)),
        "  sha256 %s %s from %s to %s" % (sha256(SBOX_SECTION), rel(BITSLICE),
                                         quoted(SBOX_FROM), quoted(SBOX_TO)),
    ]
    lines += ["  setting %s=%s" % kv for kv in SETTINGS.items()]
    lines += [
        "  sha256 %s settings" % sha256(settings),
        "  python %s (not checked)" % platform.python_version(),
        "  sha256 %s output" % sha256(body),
    ]
    return "".join("//! %s\n" % l for l in lines)

TEMPLATE = '''//! GENERATED by `gen_bsaes.py` (same folder): armv7 NEON bsaes kernels.
//! Do not edit by hand: change the generator, then run
//! `cargo xtask regen-asm --write` and commit both.
{provenance}
//!
//! `aes_ct_bsaes_enc8_armv7(keys, in, out, rounds)` and
//! `aes_ct_bsaes_dec8_armv7(keys, in, out, rounds)` encrypt / decrypt 8
//! blocks (128 bytes at `in`, written to `out`; may be equal) with the
//! round keys in plane form (`rounds + 1` round keys of 8 planes of 16
//! bytes, 16-byte aligned; round keys 1..=rounds carry the S-box constant
//! 0x63, see `bsaes.rs`). Encryption is fixsliced (no ShiftRows; round key
//! i is stored in the skewed form of round i mod 4, see
//! `aarch64/bsaes.rs`) and fully unrolled (exits after round 10, 12 or
//! 14). Decryption is a loop over rounds and walks the keys backwards: its
//! caller passes them in reverse round order.
//!
//! Register plan (AAPCS; q4-q7 = d8-d15 and r4-r11 saved/restored):
//!   r0  round-key pointer (post-incremented, 128 bytes per round)
//!   r1  input pointer       r2  output pointer
//!   r3  rounds (public: 10, 12 or 14): encryption compares it at the
//!       exits, decryption counts it down
//!   r4  16-byte aligned frame: 24 spill slots of 16 bytes, then the old
//!       sp and the output pointer
//!   r5-r11, r1, r2, ip  pointers to spill slots 1-10 (one-instruction
//!       spills; slots 11-23 take two `vstr`/`vldr`; `vstmia`/`vldmia`
//!       through slot s's pointer moves two registers to/from slots s
//!       and s + 1)
//!   lr  this routine's byte-permutation tables, just before it:
//!       decryption: InvShiftRows, then the transposition, at offsets;
//!       encryption: the tables of its unrolled main path in the order
//!       they are loaded (each `vld1 [lr :128]!`, so lr walks along; CTR
//!       rewinds it per batch), then the two tables of the last-round
//!       tails (addressed relative to where lr stands at their exit)
//!   q0-q7   the 8 bit planes after loading and before storing (plane k
//!           in qk), and at every round boundary of the decryption loop
//!   q0-q15  otherwise assigned by the generator's linear scan (the
//!           unrolled encryption passes each round's register assignment
//!           on to the next round, so no moves between rounds)
//!
//! `aes_ct_bsaes_ctr32_armv7(out, in, keys, rounds, blocks, ctr)`: CTR
//! with a 32-bit big-endian counter over `blocks` (a positive multiple of
//! 8) blocks: `out[i] = in[i] ^ E(ctr with its last word + i, mod 2^32)`
//! (`in` may equal `out`; neither needs alignment; the 16-byte counter
//! block at `ctr` is only read). The encryption kernel above, between a
//! loop head that builds the 8 counter blocks in NEON registers and a
//! loop tail that XORs the keystream with the input inside the registers
//! (technique of BoringSSL's `bsaes_ctr32_encrypt_blocks`, written anew).
//! Register plan beyond the kernel's:
//!   entry   r0 out, r1 in, r2 keys, r3 rounds, [sp] blocks, [sp, 4] ctr
//!   frame   r4 + 384: old sp, out, in (both advanced per batch), round
//!           key 1's address, rounds, end of input, next keystream
//!           planes, the pack's tables; r4 + 416: the next pack's
//!           counters c, c + 8, c + 16, c + 24 as 32-bit numbers
//!           (`vadd.i32` wraps mod 2^32 and never touches the nonce);
//!           r4 + 432: the main path's tables; r4 + 448: K3; r4 + 576:
//!           SN; r4 + 704: 4 batches of round-1 S-box output (the planes
//!           of the zero-counter block come from the load segment on 8
//!           copies of it, words byte-reversed by `vrev32.8`, which the
//!           transposition's table `TRANSPOSE[i] ^ 3` undoes)
//!   pack    every 4th batch (`ctr_pack_*` in the generator): the blocks
//!           differ only in the counter word (column 3) and SubBytes is
//!           bytewise, so round 1's S-box output is SN (the S-box of the
//!           zero-counter planes, column 3 cleared; computed once) plus,
//!           in column 3, the S-box of the counter planes XOR K3 (the key
//!           bits of column 3). One bit transposition and one S-box do
//!           that for 4 batches at once (batch b in byte b of each word),
//!           and the 4 batches' planes go to the frame
//!   head    per batch: round 1's S-box output from the frame, then round
//!           1's MixColumns and ARK; r0 round key 1, r3 rounds reloaded
//!   tail    r0 in, r3 out (post-incremented by 128); q8-q15 input,
//!           q0-q7 keystream XOR input, stored; next batch while `in` is
//!           below the end of input (unsigned `lo`, so even a count that
//!           is not whole batches ends); the frame (spills, counters,
//!           planes) zeroed after the last batch
//!
//! Per segment (instructions; values spilled and reloaded; how many of
//! those moves went two at a time by `vstmia`/`vldmia`; spill slots used):
//! encryption (and CTR, same kernel from round 2 on):
{enc_plan}
//! CTR only:
{ctr_plan}
//! decryption:
{dec_plan}
//! The spill slots and the NEON scratch registers are zeroed before return.

armv7_asm!(
{asm}
);
'''

if __name__ == "__main__":
    main()
