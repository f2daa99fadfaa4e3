/*
 * insncount: a QEMU TCG plugin (qemu-user) that counts the guest
 * instructions a program executes, for `cargo xtask armcount`.
 *
 * Technique: at translation, each translation block gets one inline
 * "add the block's instruction count to a counter" op, so counting costs
 * one add per executed block and no callback. The count is exact and
 * deterministic for a given binary, arguments, environment and CPU model
 * (qemu-user translates the same code the same way), which makes it a
 * cost measure for ARM code on an x86 machine. It is not a cycle count:
 * an AES round instruction, a table lookup and an `eor` each count one.
 *
 * Output: at exit, one line `insns=N` to the file given as `out=PATH`
 * (stderr without it). The guest must be single-threaded: the counter is
 * not per vCPU.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

static uint64_t insns;
static const char *out_path;

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
                                             &insns, qemu_plugin_tb_n_insns(tb));
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
    (void)id;
    (void)p;
    FILE *f = out_path ? fopen(out_path, "w") : stderr;
    if (!f) {
        perror(out_path);
        return;
    }
    fprintf(f, "insns=%" PRIu64 "\n", insns);
    if (f != stderr)
        fclose(f);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
                                           const qemu_info_t *info, int argc,
                                           char **argv)
{
    (void)info;
    for (int i = 0; i < argc; i++) {
        if (strncmp(argv[i], "out=", 4) == 0) {
            out_path = argv[i] + 4;
        } else {
            fprintf(stderr, "insncount: unknown argument %s\n", argv[i]);
            return -1;
        }
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
    qemu_plugin_register_atexit_cb(id, at_exit, NULL);
    return 0;
}
