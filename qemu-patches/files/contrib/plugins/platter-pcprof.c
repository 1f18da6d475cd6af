/*
 * platter-pcprof: a deterministic profile of the guest's program counter.
 *
 * Every vCPU counts the instructions it executes; each time its count
 * passes the next multiple of period=N, the address of the instruction
 * that passed it is a sample.  Under icount the guest's instruction
 * stream is the same every run, so the samples are too: two runs give
 * byte-identical profiles.  The plugin only observes (a call per
 * translation block executed, which counts its instructions); it neither
 * reads nor controls any clock, so the guest's virtual time is what it
 * is without it.
 *
 * (Not QEMU's inline per-vCPU counters: on platter's QEMU 10.0.13 an
 * inline add on a scoreboard, per block or per instruction, corrupts the
 * guest of an SMP machine, which then crashes at boot; a plain callback
 * per block does not.)
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
 *   vcpu I insns INSNS samples S      (one line per vCPU; INSNS up to
 *                                      its last sample: S x N)
 *   pc HEX k|u COUNT                  (one line per address and mode)
 *
 *   stack COUNT PC RET...             (stacks=on: one per kernel stack)
 *
 * A sample's mode is the privilege level it ran at, from the code
 * segment's selector: u (user, CPL 3) or k (CPL 0-2: the kernel, and the
 * firmware and the kernel's decompressor at boot).  The pc lines come
 * in order, k before u, each ascending by address.
 *
 * stacks=on adds the call stack of each sample taken in the kernel's
 * half of the address space, innermost return address first: a shadow
 * stack per kernel stack (16 KiB regions of the stack pointer, so every
 * task and the interrupt stacks have their own), which a call pushes its
 * return address on and a ret pops down to the address it returns to
 * (a ret to an address no call pushed empties it).
 * It costs a callback per call and ret the kernel executes; it still
 * only reads (registers and the stack's memory), never writes or times.
 * The stack lines come in byte order.
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
static VcpuCount *counts;      /* one per possible vCPU */
static int max_vcpus;
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

/* stacks=on: shadow stacks by stack region, and samples by stack */
#define KERNEL_HALF 0xff00000000000000ULL  /* 5-level paging's too */
#define STACK_SHIFT 14          /* THREAD_SIZE on x86-64: 16 KiB */
#define STACK_MAX 256
static bool stacks;
static struct qemu_plugin_register *rsp_reg;
static GHashTable *shadow;          /* sp >> STACK_SHIFT -> GArray */
static GHashTable *stack_samples;   /* "PC RET..." -> guint64 count */

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

static uint64_t read_u64_register(struct qemu_plugin_register *reg)
{
    g_autoptr(GByteArray) buf = g_byte_array_new();
    uint64_t v = 0;

    if (!reg || qemu_plugin_read_register(reg, buf) != sizeof(v)) {
        return 0;
    }
    memcpy(&v, buf->data, sizeof(v));
    return GUINT64_FROM_LE(v);
}

/* The shadow stack of the stack region sp lies in (lock held). */
static GArray *shadow_of(uint64_t sp, bool create)
{
    uint64_t key = sp >> STACK_SHIFT, *k;
    GArray *a = g_hash_table_lookup(shadow, &key);

    if (!a && create) {
        k = g_new(uint64_t, 1);
        *k = key;
        a = g_array_new(FALSE, FALSE, sizeof(uint64_t));
        g_hash_table_insert(shadow, k, a);
    }
    return a;
}

/* Before a call in the kernel: its return address goes on the stack. */
static void vcpu_call(unsigned int vcpu_index, void *udata)
{
    uint64_t ret = (uintptr_t)udata, sp = read_u64_register(rsp_reg);
    GArray *a;

    if (sp < KERNEL_HALF) {
        return;
    }
    g_mutex_lock(&lock);
    a = shadow_of(sp - sizeof(ret), true);
    if (a->len < STACK_MAX) {
        g_array_append_val(a, ret);
    }
    g_mutex_unlock(&lock);
}

/*
 * Before a ret in the kernel: pop down to the address it returns to.  A
 * ret to an address no call pushed (a new task's first return into
 * ret_from_fork on a stack an exited task left) empties the stack: what
 * lies below it is not known.
 */
static void vcpu_ret(unsigned int vcpu_index, void *udata)
{
    g_autoptr(GByteArray) buf = g_byte_array_new();
    uint64_t sp = read_u64_register(rsp_reg), target;
    GArray *a;
    guint i;

    if (sp < KERNEL_HALF ||
        !qemu_plugin_read_memory_vaddr(sp, buf, sizeof(target))) {
        return;
    }
    memcpy(&target, buf->data, sizeof(target));
    target = GUINT64_FROM_LE(target);
    g_mutex_lock(&lock);
    a = shadow_of(sp, false);
    for (i = a ? a->len : 0; i > 0; i--) {
        if (g_array_index(a, uint64_t, i - 1) == target) {
            break;
        }
    }
    if (a) {
        g_array_set_size(a, i > 0 ? i - 1 : 0);
    }
    g_mutex_unlock(&lock);
}

/* A kernel sample's stack: "PC RET..." innermost first (lock held). */
static void add_stack_sample(uint64_t pc, uint64_t sp)
{
    GArray *a = shadow_of(sp, false);
    GString *key = g_string_new(NULL);
    uint64_t *v;
    guint i;

    g_string_printf(key, "%016" PRIx64, pc);
    for (i = a ? a->len : 0; i > 0; i--) {
        g_string_append_printf(key, " %016" PRIx64,
                               g_array_index(a, uint64_t, i - 1));
    }
    v = g_hash_table_lookup(stack_samples, key->str);
    if (v) {
        (*v)++;
        g_string_free(key, TRUE);
        return;
    }
    v = g_new(uint64_t, 1);
    *v = 1;
    g_hash_table_insert(stack_samples, g_string_free(key, FALSE), v);
}

/*
 * Called at each block's start: the block's instructions are counted, and
 * when the count reaches the period, one sample per multiple passed, each
 * the instruction that passed it (the (N - before)-th of the block).
 */
static void vcpu_tb_sample(unsigned int vcpu_index, void *udata)
{
    const BlockInsns *b = udata;
    VcpuCount *c = &counts[vcpu_index];
    int mode;
    uint64_t sp, pc;

    c->pending += b->n;
    if (c->pending < period) {
        return;
    }
    mode = current_mode();
    sp = stacks ? read_u64_register(rsp_reg) : 0;
    g_mutex_lock(&lock);
    while (c->pending >= period) {
        c->pending -= period;
        c->samples++;
        pc = b->vaddr[b->n - 1 - c->pending];
        add_sample(pc_samples[mode], pc);
        if (stacks && mode == 0 && pc >= KERNEL_HALF) {
            add_stack_sample(pc, sp);
        }
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
        } else if (strcmp(r->name, "rsp") == 0) {
            rsp_reg = r->handle;
        }
    }
}

/*
 * A call or a ret of 64-bit code: its opcode after the prefixes (legacy
 * and REX): e8 or ff /2 (call), c3 or c2 (ret).  0: neither.
 */
enum { NOT_A_BRANCH, A_CALL, A_RET };
static bool is_prefix(uint8_t b)
{
    switch (b) {
    case 0x26: case 0x2e: case 0x36: case 0x3e:     /* segment */
    case 0x64: case 0x65: case 0x66: case 0x67:     /* fs gs size */
    case 0xf2: case 0xf3:                           /* rep */
        return true;
    default:
        return (b & 0xf0) == 0x40;                  /* REX */
    }
}

static int call_or_ret(struct qemu_plugin_insn *insn)
{
    uint8_t d[16];
    size_t n = qemu_plugin_insn_data(insn, d, sizeof(d)), i = 0;

    while (i < n && is_prefix(d[i])) {
        i++;
    }
    if (i >= n) {
        return NOT_A_BRANCH;
    }
    if (d[i] == 0xe8 || (d[i] == 0xff && i + 1 < n &&
                         ((d[i + 1] >> 3) & 7) == 2)) {
        return A_CALL;
    }
    return d[i] == 0xc3 || d[i] == 0xc2 ? A_RET : NOT_A_BRANCH;
}

/* stacks=on: the kernel's calls and rets feed the shadow stacks. */
static void instrument_calls(struct qemu_plugin_tb *tb, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        uint64_t vaddr = qemu_plugin_insn_vaddr(insn);

        if (vaddr < KERNEL_HALF) {
            continue;
        }
        switch (call_or_ret(insn)) {
        case A_CALL:
            qemu_plugin_register_vcpu_insn_exec_cb(
                insn, vcpu_call, QEMU_PLUGIN_CB_R_REGS,
                (void *)(uintptr_t)(vaddr + qemu_plugin_insn_size(insn)));
            break;
        case A_RET:
            qemu_plugin_register_vcpu_insn_exec_cb(
                insn, vcpu_ret, QEMU_PLUGIN_CB_R_REGS, NULL);
            break;
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

    qemu_plugin_register_vcpu_tb_exec_cb(tb, vcpu_tb_sample,
                                         QEMU_PLUGIN_CB_R_REGS, b);
    if (stacks) {
        instrument_calls(tb, n);
    }
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

static gint compare_str(gconstpointer a, gconstpointer b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The stack lines, in byte order. */
static void append_stacks(GString *s)
{
    g_autoptr(GPtrArray) keys = g_ptr_array_new();
    GHashTableIter it;
    gpointer key, val;
    guint j;

    g_hash_table_iter_init(&it, stack_samples);
    while (g_hash_table_iter_next(&it, &key, &val)) {
        g_ptr_array_add(keys, key);
    }
    g_ptr_array_sort(keys, compare_str);
    for (j = 0; j < keys->len; j++) {
        char *k = g_ptr_array_index(keys, j);
        uint64_t *count = g_hash_table_lookup(stack_samples, k);

        g_string_append_printf(s, "stack %" PRIu64 " %s\n", *count, k);
    }
}

static void plugin_exit(qemu_plugin_id_t id, void *udata)
{
    GString *s = g_string_new("# platter-pcprof v1\n");
    int vcpus = qemu_plugin_num_vcpus(), i;
    FILE *f;

    g_string_append_printf(s, "period %" PRIu64 "\nvcpus %d\n", period, vcpus);
    for (i = 0; i < vcpus && i < max_vcpus; i++) {
        VcpuCount *c = &counts[i];

        /*
         * (up to its last sample: the count after it depends on where
         * the vCPU was when QEMU exited, which host timing decides)
         */
        g_string_append_printf(s, "vcpu %d insns %" PRIu64 " samples %"
                               PRIu64 "\n", i, c->samples * period,
                               c->samples);
    }
    append_samples(s, pc_samples[0], 'k');
    append_samples(s, pc_samples[1], 'u');
    append_stacks(s);
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
        } else if (eq && strncmp(argv[i], "stacks", eq - argv[i]) == 0 &&
                   eq - argv[i] == 6) {
            if (!qemu_plugin_bool_parse("stacks", eq + 1, &stacks)) {
                fprintf(stderr, "platter-pcprof: stacks '%s': expected "
                        "on or off\n", eq + 1);
                return -1;
            }
        } else {
            fprintf(stderr, "platter-pcprof: unknown argument '%s' "
                    "(have period=N, out=FILE, stacks=on|off)\n", argv[i]);
            return -1;
        }
    }
    if (!info->system_emulation) {
        fprintf(stderr, "platter-pcprof: for system emulation only\n");
        return -1;
    }
    max_vcpus = info->system.max_vcpus;
    counts = g_new0(VcpuCount, max_vcpus);
    for (i = 0; i < 2; i++) {
        pc_samples[i] = g_hash_table_new_full(g_int64_hash, g_int64_equal,
                                              g_free, g_free);
    }
    blocks = g_hash_table_new(block_hash, block_equal);
    shadow = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
                                   (GDestroyNotify)g_array_unref);
    stack_samples = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                          g_free);
    qemu_plugin_register_vcpu_init_cb(id, vcpu_init);
    qemu_plugin_register_vcpu_tb_trans_cb(id, vcpu_tb_trans);
    qemu_plugin_register_atexit_cb(id, plugin_exit, NULL);
    return 0;
}
