/*
 * Cache-line ownership between vCPUs under lockstep SMP time (platter).
 *
 * icount counts every instruction as one; on a real multi-core part a
 * locked read-modify-write of a line another core last wrote must first
 * take the line from that core's cache, tens to over a hundred ns.  A
 * lock, a counter or a queue that several CPUs write pays that at every
 * hand-over, and a kernel change that makes such a line hotter (a shared
 * lock taken exclusively, a per-CPU counter made global) is the common
 * scalability regression.  This file keeps, per 64-byte line of guest
 * physical memory, the vCPU that last wrote it with a locked
 * read-modify-write (a line so written is Modified in that core's cache),
 * and charges a vCPU that takes a line another vCPU holds
 * (charge-transfer, icount-common.c).
 *
 * A line is in one place at a time: a transfer occupies the line for
 * charge-transfer instructions' worth of time, and a vCPU that wants it
 * meanwhile waits until it is free, then for its own transfer.  N cores
 * incrementing one counter so get one increment per transfer between
 * them, as hardware does, not N.
 *
 * Order: with lockstep SMP time each vCPU runs its share of a round on
 * its own instruction clock, one vCPU after the other, so the host order
 * of two vCPUs' accesses says nothing about their order in virtual time.
 * The round's accesses are logged with their time on their vCPU's clock
 * and replayed when the round ends, a point the lockstep schedule fixes:
 * always the earliest next access of any vCPU, its time pushed back by
 * what that vCPU has waited for lines so far in the round.  Ties go to the
 * lower vCPU index.
 *
 * When waits are charged: a line whose last replay had transfers has a
 * predicted wait, the mean wait per access in that replay, and an access
 * to it is charged that at once; the replay then owes each vCPU what it
 * waited beyond what it was charged (or takes what it was charged too much
 * off what it owes next).  Charged only after the round, a vCPU that owed
 * many transfers stalled for rounds while the others ran alone and kept
 * the line, so contention measured small; charged at once, every vCPU
 * contending for a line runs at the rate the line allows, in every round.
 * Everything here follows from instruction counts: runs repeat exactly.
 *
 * Only locked read-modify-writes are watched (the charge-atomic hook
 * already sees them; plain loads and stores would need a hook on every
 * memory access): a line read by others between two atomics, or written
 * by plain stores, is not seen moving.
 *
 * The table is bounded like a last-level cache: set-associative, least
 * recently used line out.  A line evicted has no holder, so its next
 * access is not a transfer (a memory fill, not charged).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "hw/core/cpu.h"
#include "icount-coherence.h"

#define LINE_SHIFT 6                    /* 64-byte cache lines */
#define SETS_LOG2 14
#define SETS (1u << SETS_LOG2)
#define WAYS 16                         /* 16 Ki sets x 16 ways: 16 MiB */
/* a round's log past this many accesses is replayed at once (a quantum
 * far longer than the default's) */
#define LOG_MAX (1u << 20)
#define TOP_LINES 10

typedef struct Access {
    uint64_t line;
    int64_t at;             /* its vCPU's clock, in instructions */
    uint64_t seq;           /* logging order */
    int64_t charged;        /* the predicted wait charged at the access */
    uint64_t vaddr;
    uint64_t pc;
    CPUState *cpu;
} Access;

typedef struct Line {
    uint64_t tag;           /* line number + 1; 0: an empty way */
    uint64_t used;          /* least recently used goes first */
    int owner;              /* cpu_index of the vCPU that holds it */
    int64_t free_at;        /* its last transfer ends (instructions) */
    int64_t hint;           /* predicted wait per access (instructions) */
    uint64_t replayed;      /* the replay that last saw it */
    uint64_t round_accesses, round_transfers;
    int64_t round_waited;   /* in that replay */
    /* the contention profile */
    uint64_t transfers;
    int64_t waited;         /* instructions its transfers cost vCPUs */
    uint64_t cpus;          /* bit (cpu_index % 64) of each vCPU in them */
    uint64_t vaddr;         /* of the latest access that took it */
    uint64_t pc;
} Line;

/* A vCPU's accesses in the round: [next, end) of the log, and its wait. */
typedef struct Stream {
    guint next, end;
    int64_t shift;          /* waited beyond what was charged, so far */
    int64_t waited;         /* instructions, so far in the round */
    uint64_t transfers;
} Stream;

static Line *table;                     /* SETS x WAYS */
static GArray *round_log;               /* of Access */
static uint64_t log_seq, use_stamp, replays;
static uint64_t total_transfers, total_evictions;
/* evicted lines that moved most, for the report */
static Line evicted_hot[TOP_LINES];

/* @line's entry in the table, or NULL */
static Line *line_find(uint64_t line)
{
    Line *set = &table[((line ^ (line >> SETS_LOG2)) & (SETS - 1)) * WAYS];
    int i;

    for (i = 0; i < WAYS && set[i].tag; i++) {
        if (set[i].tag == line + 1) {
            return &set[i];
        }
    }
    return NULL;
}

int64_t icount_coherence_log(CPUState *cpu, uint64_t paddr, uint64_t vaddr,
                             uint64_t pc, int64_t at)
{
    Access a = {
        .line = paddr >> LINE_SHIFT, .at = at, .seq = log_seq++,
        .vaddr = vaddr, .pc = pc, .cpu = cpu,
    };
    Line *l;

    if (!round_log) {
        round_log = g_array_new(false, false, sizeof(Access));
        table = g_new0(Line, (size_t)SETS * WAYS);
    }
    /*
     * the table changes only in a replay, so the same hint whatever the
     * vCPUs' order; only from the last replay (a line that was hot once
     * and then quiet for a round predicts nothing)
     */
    l = line_find(a.line);
    a.charged = l && l->replayed == replays ? l->hint : 0;
    g_array_append_val(round_log, a);
    return a.charged;
}

bool icount_coherence_log_full(void)
{
    return round_log && round_log->len >= LOG_MAX;
}

/* each vCPU's accesses together, in the order it made them */
static gint by_cpu(gconstpointer pa, gconstpointer pb)
{
    const Access *a = pa, *b = pb;

    if (a->cpu->cpu_index != b->cpu->cpu_index) {
        return a->cpu->cpu_index < b->cpu->cpu_index ? -1 : 1;
    }
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static uint64_t cpu_bit(int index)
{
    return 1ull << (index % 64);
}

/* Keep @l, leaving the table, if it moved more than the least in the list. */
static void keep_evicted(const Line *l)
{
    int i, least = 0;

    if (!l->transfers) {
        return;
    }
    for (i = 1; i < TOP_LINES; i++) {
        if (evicted_hot[i].transfers < evicted_hot[least].transfers) {
            least = i;
        }
    }
    if (l->transfers > evicted_hot[least].transfers) {
        evicted_hot[least] = *l;
    }
}

/* The table's entry for @line, made (and its set's LRU line evicted) if new. */
static Line *line_entry(uint64_t line)
{
    uint64_t tag = line + 1;
    Line *set = &table[((line ^ (line >> SETS_LOG2)) & (SETS - 1)) * WAYS];
    Line *victim = &set[0];
    int i;

    for (i = 0; i < WAYS; i++) {
        if (set[i].tag == tag) {
            return &set[i];
        }
        if (!set[i].tag) {
            victim = &set[i];
            break;
        }
        if (set[i].used < victim->used) {
            victim = &set[i];
        }
    }
    if (victim->tag) {
        total_evictions++;
        keep_evicted(victim);
    }
    *victim = (Line) { .tag = tag, .owner = -1 };
    /* a line evicted earlier and back: its profile comes with it */
    for (i = 0; i < TOP_LINES; i++) {
        if (evicted_hot[i].tag == tag) {
            victim->transfers = evicted_hot[i].transfers;
            victim->waited = evicted_hot[i].waited;
            victim->cpus = evicted_hot[i].cpus;
            victim->vaddr = evicted_hot[i].vaddr;
            victim->pc = evicted_hot[i].pc;
            evicted_hot[i] = (Line) { 0 };
        }
    }
    return victim;
}

/* The stream whose next access comes first (ties: the lower vCPU index). */
static Stream *earliest(Stream *st, guint n)
{
    Stream *best = NULL;
    int64_t best_t = 0;
    guint i;

    for (i = 0; i < n; i++) {
        int64_t t;

        if (st[i].next >= st[i].end) {
            continue;
        }
        t = g_array_index(round_log, Access, st[i].next).at + st[i].shift;
        if (!best || t < best_t) {
            best = &st[i];
            best_t = t;
        }
    }
    return best;
}

void icount_coherence_round_end(int64_t charge,
                                void (*owe)(CPUState *cpu, uint64_t transfers,
                                            int64_t insns))
{
    g_autofree Stream *st = NULL;
    Stream *s;
    guint i, n = 0;

    if (!round_log || !round_log->len) {
        return;
    }
    g_array_sort(round_log, by_cpu);
    st = g_new0(Stream, round_log->len);
    for (i = 0; i < round_log->len; i++) {
        if (!i || g_array_index(round_log, Access, i).cpu !=
                  g_array_index(round_log, Access, i - 1).cpu) {
            st[n++].next = i;
        }
        st[n - 1].end = i + 1;
    }
    replays++;
    while ((s = earliest(st, n))) {
        Access *a = &g_array_index(round_log, Access, s->next++);
        int who = a->cpu->cpu_index;
        /* the access as the vCPU made it, had it waited what it did */
        int64_t t = a->at + s->shift, wait = 0;
        Line *l = line_entry(a->line);

        if (l->replayed != replays) {
            l->replayed = replays;
            l->round_accesses = l->round_transfers = 0;
            l->round_waited = 0;
        }
        if (l->owner >= 0 && l->owner != who) {
            /* the line comes once it is free, then takes its transfer */
            int64_t done = MAX(t, l->free_at) + charge;

            wait = done - t;
            s->transfers++;
            l->waited += wait;
            l->round_waited += wait;
            l->round_transfers++;
            l->free_at = done;
            l->transfers++;
            l->cpus |= cpu_bit(l->owner) | cpu_bit(who);
            l->vaddr = a->vaddr;
            l->pc = a->pc;
            total_transfers++;
        }
        /* its next access comes later (or earlier) by what it waited
         * beyond (or short of) the wait charged at this one */
        s->shift += wait - a->charged;
        s->waited += wait;
        l->round_accesses++;
        l->owner = who;
        l->used = ++use_stamp;
    }
    /* the next round's predicted waits, for the lines this one touched */
    for (i = 0; i < round_log->len; i++) {
        Line *l = line_find(g_array_index(round_log, Access, i).line);

        if (l && l->replayed == replays && l->round_accesses) {
            l->hint = l->round_transfers ?
                      l->round_waited / (int64_t)l->round_accesses : 0;
            l->round_accesses = 0;
        }
    }
    for (i = 0; i < n; i++) {
        if (st[i].transfers || st[i].shift) {
            owe(g_array_index(round_log, Access, st[i].end - 1).cpu,
                st[i].transfers, st[i].shift);
        }
    }
    g_array_set_size(round_log, 0);
}

static gint hotter(gconstpointer pa, gconstpointer pb)
{
    const Line *a = pa, *b = pb;

    if (a->transfers != b->transfers) {
        return a->transfers > b->transfers ? -1 : 1;
    }
    return a->tag < b->tag ? -1 : a->tag > b->tag;
}

void icount_coherence_report(FILE *f)
{
    g_autoptr(GArray) top = g_array_new(false, false, sizeof(Line));
    uint64_t held = 0;
    size_t i;

    for (i = 0; table && i < (size_t)SETS * WAYS; i++) {
        if (table[i].tag) {
            held++;
            if (table[i].transfers) {
                g_array_append_val(top, table[i]);
            }
        }
    }
    for (i = 0; i < TOP_LINES; i++) {
        if (evicted_hot[i].transfers) {
            g_array_append_val(top, evicted_hot[i]);
        }
    }
    g_array_sort(top, hotter);
    fprintf(f, "icount-coherence lines=%" PRIu64 " transfers=%" PRIu64
            " evictions=%" PRIu64 "\n", held, total_transfers,
            total_evictions);
    for (i = 0; i < top->len && i < TOP_LINES; i++) {
        Line *l = &g_array_index(top, Line, i);

        fprintf(f, "icount-coherence-line rank=%zu paddr=0x%" PRIx64
                " vaddr=0x%" PRIx64 " pc=0x%" PRIx64 " cpus=0x%" PRIx64
                " transfers=%" PRIu64 " waited_insns=%" PRId64 "\n",
                i + 1, (l->tag - 1) << LINE_SHIFT, l->vaddr, l->pc, l->cpus,
                l->transfers, l->waited);
    }
}
