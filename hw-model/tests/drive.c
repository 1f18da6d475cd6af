#include <string.h>

#include "drive.h"

typedef struct {
    hwm_ns time;
    uint64_t offset, length;
} Ack;

typedef struct {
    HwmDevice *dev;
    GString *why;
    uint8_t vol[DRIVE_WINDOW_SECTORS];   /* 1: acknowledged, not durable */
    GHashTable *outstanding;             /* tag -> submit time + 1 */
    GArray *acked;                       /* Ack, since the last power cut */
    uint64_t completed[4];               /* per op */
    bool ok;
} Drive;

static bool fail(Drive *d, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

static bool fail(Drive *d, const char *fmt, ...)
{
    va_list ap;
    if (d->ok) {
        va_start(ap, fmt);
        g_string_append_vprintf(d->why, fmt, ap);
        va_end(ap);
    }
    d->ok = false;
    return false;
}

static void mark(Drive *d, uint64_t off, uint64_t len, uint8_t v)
{
    for (uint64_t s = off / 512; s < (off + len) / 512; s++) {
        d->vol[s] = v;
    }
}

static bool overlaps(uint64_t a, uint64_t al, uint64_t b, uint64_t bl)
{
    return a < b + bl && b < a + al;
}

static bool same_volatile(Drive *d, GArray *vol, const char *when)
{
    uint8_t got[DRIVE_WINDOW_SECTORS] = { 0 };
    for (guint i = 0; i < vol->len; i++) {
        HwmExtent *x = &g_array_index(vol, HwmExtent, i);
        if (x->offset + x->length > DRIVE_WINDOW_SECTORS * 512ull ||
            x->offset % 512 || x->length % 512 || x->length == 0) {
            return fail(d, "%s: bad extent %" G_GUINT64_FORMAT "+%"
                        G_GUINT64_FORMAT, when, x->offset, x->length);
        }
        for (uint64_t s = x->offset / 512; s < (x->offset + x->length) / 512;
             s++) {
            got[s] = 1;
        }
    }
    for (uint32_t s = 0; s < DRIVE_WINDOW_SECTORS; s++) {
        if (got[s] != d->vol[s]) {
            return fail(d, "%s: sector %u: model says %s, oracle says %s",
                        when, s, got[s] ? "volatile" : "durable",
                        d->vol[s] ? "volatile" : "durable");
        }
    }
    return true;
}

/* Every write acknowledged before `submit` is durable now, unless a write
 * acknowledged after it covers the same sectors. */
static bool flush_covers(Drive *d, GArray *vol, hwm_ns submit)
{
    for (guint a = 0; a < d->acked->len; a++) {
        Ack *w = &g_array_index(d->acked, Ack, a);
        if (w->time > submit) {
            continue;
        }
        for (guint v = 0; v < vol->len; v++) {
            HwmExtent *x = &g_array_index(vol, HwmExtent, v);
            if (!overlaps(x->offset, x->length, w->offset, w->length)) {
                continue;
            }
            bool newer = false;
            for (guint b = a + 1; b < d->acked->len && !newer; b++) {
                Ack *n = &g_array_index(d->acked, Ack, b);
                newer = n->time > submit &&
                        overlaps(n->offset, n->length, w->offset, w->length);
            }
            if (!newer) {
                return fail(d, "FLUSH submitted at %" G_GINT64_FORMAT
                            " completed with a write acknowledged at %"
                            G_GINT64_FORMAT " still volatile", submit,
                            w->time);
            }
        }
    }
    return true;
}

/* PLATTER_DRIVE_LOG=1 prints every step and event to stderr */
static bool logging(void)
{
    static int on = -1;
    if (on < 0) {
        on = g_getenv("PLATTER_DRIVE_LOG") != NULL;
    }
    return on;
}

static bool on_event(Drive *d, const HwmEvent *e, hwm_ns at,
                     GPtrArray *flushes)
{
    if (logging()) {
        g_printerr("  %" G_GINT64_FORMAT " %s tag=%" G_GUINT64_FORMAT
                   " %s %" G_GUINT64_FORMAT "+%" G_GUINT64_FORMAT
                   " durable=%d\n", e->time_ns,
                   e->kind == HWM_EV_DURABLE ? "DURABLE" :
                   e->kind == HWM_EV_HOME ? "HOME" : "COMPLETE", e->tag,
                   e->kind != HWM_EV_COMPLETE ? "" : hwm_op_name(e->op),
                   e->offset / 512, e->length / 512, e->durable);
    }
    if (e->time_ns != at) {
        return fail(d, "event at %" G_GINT64_FORMAT " handed out at %"
                    G_GINT64_FORMAT, e->time_ns, at);
    }
    if (e->kind == HWM_EV_DURABLE) {
        mark(d, e->offset, e->length, 0);
        return true;
    }
    if (e->kind == HWM_EV_HOME) {
        /* data durable already went home: nothing changes for the host
         * (newer volatile data of the range may have come meanwhile) */
        if (e->length == 0 || e->length % 512 || e->offset % 512) {
            return fail(d, "HOME of %" G_GUINT64_FORMAT "+%" G_GUINT64_FORMAT
                        " bytes: not whole sectors", e->offset, e->length);
        }
        return true;
    }
    gpointer v;
    if (!g_hash_table_steal_extended(d->outstanding, GSIZE_TO_POINTER(e->tag),
                                     NULL, &v)) {
        return fail(d, "tag %" G_GUINT64_FORMAT " completed but is not "
                    "outstanding (twice, or after a power cut)", e->tag);
    }
    hwm_ns submit = (hwm_ns)GPOINTER_TO_SIZE(v) - 1;
    if (e->submit_ns != submit || e->time_ns < submit) {
        return fail(d, "tag %" G_GUINT64_FORMAT ": submitted %" G_GINT64_FORMAT
                    ", completion says %" G_GINT64_FORMAT " done %"
                    G_GINT64_FORMAT, e->tag, submit, e->submit_ns, e->time_ns);
    }
    hwm_ns parts = e->t.queue_ns + e->t.overhead_ns + e->t.seek_ns +
                   e->t.rotate_ns + e->t.transfer_ns + e->t.destage_ns;
    if (parts != e->time_ns - e->submit_ns || e->t.queue_ns < 0) {
        return fail(d, "tag %" G_GUINT64_FORMAT ": breakdown sums to %"
                    G_GINT64_FORMAT ", latency is %" G_GINT64_FORMAT, e->tag,
                    parts, e->time_ns - e->submit_ns);
    }
    d->completed[e->op]++;
    switch (e->op) {
    case HWM_OP_WRITE: {
        if ((e->flags & HWM_REQ_FUA) && !e->durable) {
            return fail(d, "FUA write %" G_GUINT64_FORMAT " completed "
                        "volatile", e->tag);
        }
        mark(d, e->offset, e->length, e->durable ? 0 : 1);
        Ack a = { e->time_ns, e->offset, e->length };
        g_array_append_val(d->acked, a);
        break;
    }
    case HWM_OP_DISCARD:
        mark(d, e->offset, e->length, 0);
        break;
    case HWM_OP_FLUSH:
        g_ptr_array_add(flushes, GSIZE_TO_POINTER((gsize)e->submit_ns + 1));
        break;
    case HWM_OP_READ:
        break;
    }
    return true;
}

/* Hand out everything up to `t`, one instant at a time, so each check sees
 * the state at its events' own time. */
static bool run_to(Drive *d, hwm_ns t)
{
    HwmEvent ev[16];
    hwm_ns te;
    while (d->ok && (te = hwm_next_event(d->dev)) <= t) {
        g_autoptr(GPtrArray) flushes = g_ptr_array_new();
        size_t n;
        /* an internal timer may wake the host for nothing: allowed */
        while ((n = hwm_advance(d->dev, te, ev, G_N_ELEMENTS(ev))) > 0) {
            for (size_t k = 0; k < n && d->ok; k++) {
                on_event(d, &ev[k], te, flushes);
            }
        }
        g_autoptr(GArray) vol = hwm_volatile_extents(d->dev);
        same_volatile(d, vol, "after events");
        for (guint f = 0; f < flushes->len && d->ok; f++) {
            flush_covers(d, vol,
                         (hwm_ns)GPOINTER_TO_SIZE(flushes->pdata[f]) - 1);
        }
    }
    return d->ok;
}

bool drive_run(HwmDevice *dev, const DriveStep *steps, size_t n, GString *why)
{
    Drive d = { .dev = dev, .why = why, .ok = true };
    hwm_ns t = 0;
    HwmStats st0, st1;

    hwm_stats(dev, &st0);
    d.outstanding = g_hash_table_new(NULL, NULL);
    d.acked = g_array_new(FALSE, FALSE, sizeof(Ack));
    for (size_t i = 0; i < n && d.ok; i++) {
        const DriveStep *s = &steps[i];
        t += s->gap_ns;
        if (!run_to(&d, t)) {
            break;
        }
        if (s->power_cut) {
            if (logging()) {
                g_printerr("%" G_GINT64_FORMAT " POWER CUT\n", t);
            }
            g_autoptr(GArray) lost = hwm_power_cut(dev, t);
            same_volatile(&d, lost, "power cut");
            memset(d.vol, 0, sizeof d.vol);
            g_hash_table_remove_all(d.outstanding);
            g_array_set_size(d.acked, 0);
            if (hwm_next_event(dev) != HWM_NEVER) {
                fail(&d, "device not idle after a power cut");
            }
            continue;
        }
        uint32_t sec = s->sector % DRIVE_WINDOW_SECTORS;
        uint32_t cnt = s->sectors % (DRIVE_WINDOW_SECTORS - sec) + 1;
        HwmRequest r = { .tag = i, .op = s->op, .flags = s->flags,
                         .offset = s->op == HWM_OP_FLUSH ? 0 : sec * 512ull,
                         .length = s->op == HWM_OP_FLUSH ? 0 : cnt * 512ull };
        GError *err = NULL;
        if (logging()) {
            g_printerr("%" G_GINT64_FORMAT " submit tag=%zu %s flags=%u %u+%u\n",
                       t, i, hwm_op_name(r.op), r.flags, sec,
                       r.op == HWM_OP_FLUSH ? 0 : cnt);
        }
        if (hwm_submit(dev, t, &r, &err)) {
            g_hash_table_insert(d.outstanding, GSIZE_TO_POINTER(i),
                                GSIZE_TO_POINTER((gsize)t + 1));
        } else {
            /* refusals are fine (queue full, bad flags); crashes are not */
            g_clear_error(&err);
        }
    }
    /* drain: everything outstanding must complete */
    if (d.ok) {
        run_to(&d, INT64_MAX - 1);
        if (d.ok && g_hash_table_size(d.outstanding) > 0) {
            fail(&d, "%u commands never completed",
                 g_hash_table_size(d.outstanding));
        }
    }
    if (d.ok) {
        hwm_stats(dev, &st1);
        uint64_t seen[4] = { st1.reads - st0.reads, st1.writes - st0.writes,
                             st1.flushes - st0.flushes,
                             st1.discards - st0.discards };
        for (int op = 0; op < 4; op++) {
            if (seen[op] != d.completed[op]) {
                fail(&d, "%s counter says %" G_GUINT64_FORMAT ", %"
                     G_GUINT64_FORMAT " completed", hwm_op_name((HwmOp)op),
                     seen[op], d.completed[op]);
            }
        }
    }
    g_hash_table_unref(d.outstanding);
    g_array_unref(d.acked);
    return d.ok;
}
