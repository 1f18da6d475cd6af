/*
 * platter-pcprof: a deterministic profile of the guest's program counter.
 *
 * Every vCPU counts the instructions it executes; each time its count
 * passes the next multiple of period=N, the address of the instruction
 * that passed it is a sample.  Under icount the guest's instruction
 * stream is the same every run, so the samples are too: two runs give
 * byte-identical profiles.  The plugin only observes (an inline add per
 * translation block and a conditional call every N instructions); it
 * neither reads nor controls any clock, so the guest's virtual time is
 * what it is without it.
 *
 * Instructions are counted by translation block, when a block starts: a
 * block left early (an exception, an I/O access re-executed on its own)
 * counts instructions that did not run, so this count runs slightly ahead
 * of icount's, by the same amount every run.
 *
 * Arguments: period=N (instructions between samples, default 100003, a
 * prime, so that no loop whose length divides it is always caught at the
 * same instruction), out=FILE (where the profile goes at exit; default
 * QEMU's plugin log).  The file (platter-pcprof v1):
 *
 *   # platter-pcprof v1
 *   period N
 *   vcpus C
 *   vcpu I insns INSNS samples S      (one line per vCPU)
 *   pc HEX k|u COUNT                  (one line per address and mode)
 *
 * A sample's mode is the privilege level it ran at, from the code
 * segment's selector: u (user, CPL 3) or k (CPL 0-2: the kernel, and the
 * firmware and the kernel's decompressor at boot).  The pc lines come
 * in order, k before u, each ascending by address.
 *
 * Copyright (C) 2026 the platter authors.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glib.h>
#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

/* Per vCPU: instructions counted since its last sample, and its samples. */
typedef struct {
    uint64_t pending;
    uint64_t samples;
} VcpuCount;

/*
 * The instruction addresses of one translated block, shared by every
 * translation of the same block (interned: a block translated again after
 * a flush costs no memory).
 */
typedef struct {
    size_t n;
    uint64_t vaddr[];
} BlockInsns;

static uint64_t period = 100003;
static char *out_path;
static struct qemu_plugin_scoreboard *counts;
static qemu_plugin_u64 pending;
/* the code segment register (gdb's "cs"): its low bits are the CPL */
static struct qemu_plugin_register *cs_reg;

/*
 * Samples per instruction address (guint64 key -> guint64 count) by mode
 * (0 kernel, 1 user), and the interned blocks; all under lock (samples
 * are rare: one per period).
 */
static GMutex lock;
static GHashTable *pc_samples[2];
static GHashTable *blocks;

static guint block_hash(gconstpointer p)
{
    const BlockInsns *b = p;
    guint h = (guint)b->n;
    size_t i;

    for (i = 0; i < b->n; i++) {
        h = h * 31 + (guint)(b->vaddr[i] ^ (b->vaddr[i] >> 32));
    }
    return h;
}

static gboolean block_equal(gconstpointer a, gconstpointer b)
{
    const BlockInsns *x = a, *y = b;

    return x->n == y->n &&
           memcmp(x->vaddr, y->vaddr, x->n * sizeof(x->vaddr[0])) == 0;
}

static void add_sample(GHashTable *pc_samples, uint64_t pc)
{
    uint64_t *k, *v = g_hash_table_lookup(pc_samples, &pc);

    if (v) {
        (*v)++;
        return;
    }
    k = g_new(uint64_t, 1);
    v = g_new(uint64_t, 1);
    *k = pc;
    *v = 1;
    g_hash_table_insert(pc_samples, k, v);
}

/* 1 when the vCPU runs user code (CPL 3), else 0 */
static int current_mode(void)
{
    g_autoptr(GByteArray) buf = g_byte_array_new();

    if (!cs_reg || qemu_plugin_read_register(cs_reg, buf) < 1) {
        return 0;
    }
    /* (x86 is little-endian: the selector's low byte comes first) */
    return (buf->data[0] & 3) == 3;
}

/*
 * Called at a block's start when the vCPU's count, with the block's
 * instructions added, reached the period: one sample per multiple passed,
 * each the instruction that passed it (the (N - before)-th of the block).
 */
static void vcpu_tb_sample(unsigned int vcpu_index, void *udata)
{
    const BlockInsns *b = udata;
    VcpuCount *c = qemu_plugin_scoreboard_find(counts, vcpu_index);
    int mode = current_mode();

    g_mutex_lock(&lock);
    while (c->pending >= period) {
        c->pending -= period;
        c->samples++;
        add_sample(pc_samples[mode], b->vaddr[b->n - 1 - c->pending]);
    }
    g_mutex_unlock(&lock);
}

static void vcpu_init(qemu_plugin_id_t id, unsigned int vcpu_index)
{
    g_autoptr(GArray) regs = qemu_plugin_get_registers();
    guint i;

    for (i = 0; i < regs->len; i++) {
        qemu_plugin_reg_descriptor *r =
            &g_array_index(regs, qemu_plugin_reg_descriptor, i);

        if (strcmp(r->name, "cs") == 0) {
            cs_reg = r->handle;
        }
    }
}

static void vcpu_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    size_t n = qemu_plugin_tb_n_insns(tb), i;
    BlockInsns *b, *known;

    if (n == 0) {
        return;
    }
    b = g_malloc(sizeof(*b) + n * sizeof(b->vaddr[0]));
    b->n = n;
    for (i = 0; i < n; i++) {
        b->vaddr[i] = qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, i));
    }
    g_mutex_lock(&lock);
    known = g_hash_table_lookup(blocks, b);
    if (known) {
        g_free(b);
        b = known;
    } else {
        g_hash_table_add(blocks, b);
    }
    g_mutex_unlock(&lock);

    /* (in this order: the count first, then the test of it) */
    qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(
        tb, QEMU_PLUGIN_INLINE_ADD_U64, pending, n);
    qemu_plugin_register_vcpu_tb_exec_cond_cb(
        tb, vcpu_tb_sample, QEMU_PLUGIN_CB_R_REGS, QEMU_PLUGIN_COND_GE,
        pending, period, b);
}

static gint compare_pc(gconstpointer a, gconstpointer b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

/* One mode's pc lines, ascending (a hash table's order is no order). */
static void append_samples(GString *s, GHashTable *samples, char mode)
{
    g_autoptr(GArray) pcs = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    GHashTableIter it;
    gpointer key;
    guint j;

    g_hash_table_iter_init(&it, samples);
    while (g_hash_table_iter_next(&it, &key, NULL)) {
        g_array_append_val(pcs, *(uint64_t *)key);
    }
    g_array_sort(pcs, compare_pc);
    for (j = 0; j < pcs->len; j++) {
        uint64_t pc = g_array_index(pcs, uint64_t, j);
        uint64_t *count = g_hash_table_lookup(samples, &pc);

        g_string_append_printf(s, "pc %016" PRIx64 " %c %" PRIu64 "\n",
                               pc, mode, *count);
    }
}

static void plugin_exit(qemu_plugin_id_t id, void *udata)
{
    GString *s = g_string_new("# platter-pcprof v1\n");
    int vcpus = qemu_plugin_num_vcpus(), i;
    FILE *f;

    g_string_append_printf(s, "period %" PRIu64 "\nvcpus %d\n", period, vcpus);
    for (i = 0; i < vcpus; i++) {
        VcpuCount *c = qemu_plugin_scoreboard_find(counts, i);

        g_string_append_printf(s, "vcpu %d insns %" PRIu64 " samples %"
                               PRIu64 "\n", i,
                               c->samples * period + c->pending, c->samples);
    }
    append_samples(s, pc_samples[0], 'k');
    append_samples(s, pc_samples[1], 'u');
    if (out_path) {
        f = fopen(out_path, "w");
        if (!f || fputs(s->str, f) == EOF || fclose(f) != 0) {
            fprintf(stderr, "platter-pcprof: cannot write %s\n", out_path);
        }
    } else {
        qemu_plugin_outs(s->str);
    }
    g_string_free(s, TRUE);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
                                           const qemu_info_t *info,
                                           int argc, char **argv)
{
    int i;

    for (i = 0; i < argc; i++) {
        char *eq = strchr(argv[i], '=');
        char *end;

        if (eq && strncmp(argv[i], "period", eq - argv[i]) == 0 &&
            eq - argv[i] == 6) {
            period = g_ascii_strtoull(eq + 1, &end, 10);
            if (*end || end == eq + 1 || period == 0 ||
                period > UINT64_MAX / 2) {
                fprintf(stderr, "platter-pcprof: period '%s': expected "
                        "a whole number of instructions, at least 1\n",
                        eq + 1);
                return -1;
            }
        } else if (eq && strncmp(argv[i], "out", eq - argv[i]) == 0 &&
                   eq - argv[i] == 3 && eq[1]) {
            out_path = g_strdup(eq + 1);
        } else {
            fprintf(stderr, "platter-pcprof: unknown argument '%s' "
                    "(have period=N, out=FILE)\n", argv[i]);
            return -1;
        }
    }
    counts = qemu_plugin_scoreboard_new(sizeof(VcpuCount));
    pending = qemu_plugin_scoreboard_u64_in_struct(counts, VcpuCount,
                                                   pending);
    for (i = 0; i < 2; i++) {
        pc_samples[i] = g_hash_table_new_full(g_int64_hash, g_int64_equal,
                                              g_free, g_free);
    }
    blocks = g_hash_table_new(block_hash, block_equal);
    qemu_plugin_register_vcpu_init_cb(id, vcpu_init);
    qemu_plugin_register_vcpu_tb_trans_cb(id, vcpu_tb_trans);
    qemu_plugin_register_atexit_cb(id, plugin_exit, NULL);
    return 0;
}
