/*
 * cttrace: a QEMU TCG plugin (qemu-user) for trace-equivalence
 * constant-time checks.
 *
 * Technique: a program is constant time in the sense this project
 * promises (no secret-dependent branch, loop bound or memory index) exactly
 * when the sequence of instructions it executes and the sequence of
 * addresses it touches do not depend on its secrets. So run the same
 * operation with different secrets and identical public inputs, record
 * both sequences between two markers, and compare their hashes: any
 * difference is a secret-dependent branch or address (the trace-based
 * method of Almeida et al., "Verifying constant-time implementations",
 * USENIX Security 2016, sec. 2, here checked dynamically on the executed
 * binary rather than proved). The plugin also reports executed integer
 * divisions, whose latency depends on their operands on all three ISAs:
 * the instructions (found in QEMU's disassembly) and the translation
 * blocks of the compiler's software division routines.
 *
 * Markers: the guest calls the leaf functions `ct_trace_begin` and
 * `ct_trace_end` (unmangled symbols, never inlined) around the operation.
 * A translation block whose first instruction lies in one of them toggles
 * recording; the blocks of the operation in between are hashed.
 *
 * What is hashed, per window:
 *   pc:   the start address and instruction count of every executed
 *         translation block, in order (a TB is straight-line code, so this
 *         determines the executed instruction sequence);
 *   addr: the virtual address, size and direction of every load and
 *         store, in order.
 * Output, one line per window to the file given as `out=PATH`:
 *   window N insns=I tbs=T mem=M pc=HEX addr=HEX div=D [divat=ADDR:SYM]
 *
 * Cost: one callback per executed TB and per memory access, none per
 * instruction; slow (tens of millions of guest instructions a second)
 * but the checked windows are short.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

enum kind { PLAIN, BEGIN, END };

struct tbinfo {
    uint64_t vaddr;
    uint32_t insns;
    uint32_t divs;      /* integer divisions in this TB */
    uint64_t div_vaddr; /* the first one */
    enum kind kind;
};

static FILE *out;
static int recording;
static uint64_t window_no;
static uint64_t h_pc, h_addr, n_insns, n_tbs, n_mem, n_div, first_div;

/* FNV-1a over 64-bit words, then a final mix: order-sensitive. */
static inline uint64_t mix(uint64_t h, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        h ^= (v >> (8 * i)) & 0xff;
        h *= 0x100000001b3ULL;
    }
    return h;
}

static void reset(void)
{
    h_pc = h_addr = 0xcbf29ce484222325ULL;
    n_insns = n_tbs = n_mem = n_div = first_div = 0;
}

static void tb_exec(unsigned int vcpu, void *udata)
{
    struct tbinfo *t = udata;
    (void)vcpu;
    if (t->kind == BEGIN) {
        reset();
        recording = 1;
        return;
    }
    if (t->kind == END) {
        if (recording) {
            fprintf(out,
                    "window %" PRIu64 " insns=%" PRIu64 " tbs=%" PRIu64
                    " mem=%" PRIu64 " pc=%016" PRIx64 " addr=%016" PRIx64
                    " div=%" PRIu64,
                    window_no++, n_insns, n_tbs, n_mem, h_pc, h_addr, n_div);
            if (n_div)
                fprintf(out, " divat=%" PRIx64, first_div);
            fputc('\n', out);
            fflush(out);
        }
        recording = 0;
        return;
    }
    if (!recording)
        return;
    h_pc = mix(mix(h_pc, t->vaddr), t->insns);
    n_insns += t->insns;
    n_tbs++;
    if (t->divs) {
        if (!n_div)
            first_div = t->div_vaddr;
        n_div += t->divs;
    }
}

static void mem_access(unsigned int vcpu, qemu_plugin_meminfo_t info,
                       uint64_t vaddr, void *udata)
{
    (void)vcpu;
    (void)udata;
    if (!recording)
        return;
    uint64_t shape = (uint64_t)qemu_plugin_mem_size_shift(info) |
                     ((uint64_t)qemu_plugin_mem_is_store(info) << 4);
    h_addr = mix(mix(h_addr, vaddr), shape);
    n_mem++;
}

/* Integer division mnemonics of x86 (AT&T and Intel spellings, with
 * operand-size suffixes), AArch64 and AArch32. Floating-point divisions
 * (divss, fdiv, vdiv...) are not matched. */
static int is_int_div(const char *disas)
{
    static const char *const names[] = {
        "div", "divb", "divw", "divl", "divq",
        "idiv", "idivb", "idivw", "idivl", "idivq",
        "udiv", "sdiv", NULL,
    };
    char word[16];
    const char *p = disas;
    for (;;) {
        size_t n = 0;
        while (*p == ' ' || *p == '\t')
            p++;
        while (p[n] && p[n] != ' ' && p[n] != '\t' && n < sizeof word - 1)
            n++;
        if (n == 0)
            return 0;
        memcpy(word, p, n);
        word[n] = 0;
        p += n;
        /* Skip x86 prefixes the disassembler prints as words. */
        if (!strcmp(word, "lock") || !strncmp(word, "rex", 3) ||
            !strcmp(word, "data16") || !strcmp(word, "addr32") ||
            !strcmp(word, "rep") || !strcmp(word, "repz") ||
            !strcmp(word, "repnz"))
            continue;
        break;
    }
    /* ARM condition suffixes (udivne) are rare; accept a two-letter
     * suffix after udiv/sdiv. */
    for (int i = 0; names[i]; i++) {
        size_t l = strlen(names[i]);
        if (!strcmp(word, names[i]))
            return 1;
        if ((names[i][0] == 'u' || names[i][0] == 's') && l == 4 &&
            !strncmp(word, names[i], 4) && strlen(word) == 6)
            return 1;
    }
    return 0;
}

/* Software division routines (ARMv7 cores without `udiv`, 64-bit division
 * on 32-bit targets): a call to one is a division too. */
static int is_soft_div(const char *sym)
{
    static const char *const names[] = {
        "__aeabi_uidiv", "__aeabi_idiv", "__aeabi_uidivmod", "__aeabi_idivmod",
        "__aeabi_uldivmod", "__aeabi_ldivmod", "__udivsi3", "__divsi3",
        "__umodsi3", "__modsi3", "__udivdi3", "__divdi3", "__umoddi3",
        "__moddi3", "__udivmoddi4", "__divmoddi4", "__udivmodsi4",
        "__divmodsi4", NULL,
    };
    for (int i = 0; names[i]; i++)
        if (!strcmp(sym, names[i]))
            return 1;
    return 0;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    size_t n = qemu_plugin_tb_n_insns(tb);
    struct tbinfo *t = calloc(1, sizeof *t);
    if (!t)
        abort();
    t->vaddr = qemu_plugin_tb_vaddr(tb);
    t->insns = (uint32_t)n;
    t->kind = PLAIN;
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        if (i == 0) {
            const char *sym = qemu_plugin_insn_symbol(insn);
            if (sym && !strcmp(sym, "ct_trace_begin"))
                t->kind = BEGIN;
            else if (sym && !strcmp(sym, "ct_trace_end"))
                t->kind = END;
            else if (sym && is_soft_div(sym)) {
                t->divs++;
                t->div_vaddr = qemu_plugin_insn_vaddr(insn);
            }
        }
        char *d = qemu_plugin_insn_disas(insn);
        if (d) {
            if (is_int_div(d)) {
                if (!t->divs)
                    t->div_vaddr = qemu_plugin_insn_vaddr(insn);
                t->divs++;
            }
            free(d);
        }
        qemu_plugin_register_vcpu_mem_cb(insn, mem_access,
                                         QEMU_PLUGIN_CB_NO_REGS,
                                         QEMU_PLUGIN_MEM_RW, NULL);
    }
    /* TB info is never freed: a TB may be re-executed until exit. */
    qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS, t);
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
    (void)id;
    (void)p;
    fprintf(out, "exit windows=%" PRIu64 " open=%d\n", window_no, recording);
    fclose(out);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
                                           const qemu_info_t *info,
                                           int argc, char **argv)
{
    const char *path = NULL;
    (void)info;
    for (int i = 0; i < argc; i++) {
        if (!strncmp(argv[i], "out=", 4))
            path = argv[i] + 4;
        else {
            fprintf(stderr, "cttrace: unknown argument %s (want out=PATH)\n", argv[i]);
            return -1;
        }
    }
    if (!path) {
        fprintf(stderr, "cttrace: out=PATH is required\n");
        return -1;
    }
    out = fopen(path, "w");
    if (!out) {
        perror(path);
        return -1;
    }
    reset();
    qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
    qemu_plugin_register_atexit_cb(id, at_exit, NULL);
    return 0;
}
