/*
 * platter-sim's engine: the virtual clock's event loop, the host's request
 * queue in front of the device, and the accounting every workload shares.
 * The workloads (dsync.c, fsync.c, replay.c, fio.c) are called only through
 * their WorkloadOps tables.  No wall clock anywhere.
 */
#include <string.h>

#include "engine.h"

/* The workloads, in --help's and messages' order: a new one is one more
 * X(its WorkloadOps's name without _workload). */
#define SIM_WORKLOADS(X) X(dsync) X(fsync_append) X(replay) X(fio)

#define DECLARE(w) extern const WorkloadOps w##_workload;
SIM_WORKLOADS(DECLARE)
#undef DECLARE
#define ENTRY(w) &w##_workload,
static const WorkloadOps *const workloads[] = { SIM_WORKLOADS(ENTRY) };
#undef ENTRY

const WorkloadOps *const *sim_workloads(size_t *n)
{
    *n = G_N_ELEMENTS(workloads);
    return workloads;
}

const WorkloadOps *sim_workload(const char *name)
{
    for (size_t i = 0; i < G_N_ELEMENTS(workloads); i++) {
        if (!strcmp(name, workloads[i]->name)) {
            return workloads[i];
        }
    }
    return NULL;
}

/* Options more than one workload takes; a workload names the ones it takes
 * in its `uses`.  help_rank: see options.h. */
static const OptSpec shared_options[] = {
    /* a table: `duplicates` pairs its rows with the other OptSpec
     * tables' by shape; they are data, one entry per option */
    { "bs", OPT_TEXT, OPT_SCOPE_WORKLOAD, "SIZE",
      "block size (default 4K)", 70, OPT_BYTES, 4096 },
    { "span", OPT_TEXT, OPT_SCOPE_WORKLOAD, "SIZE",
      "bytes the offsets cover (default 100G)", 80, OPT_BYTES, 100ull << 30 },
    { "offset", OPT_TEXT, OPT_SCOPE_WORKLOAD, "SIZE",
      "start of the span (default 0)", 90, OPT_BYTES, 0 },
    { "runtime", OPT_TEXT, OPT_SCOPE_WORKLOAD, "SECONDS",
      "virtual seconds to run (default 60)", 100,
      { "s", NS_PER_S, 1, 100000 * NS_PER_S, false }, 60 * NS_PER_S },
    { "jobs", OPT_TEXT, OPT_SCOPE_WORKLOAD, "N",
      "closed-loop jobs (default 1)", 110, OPT_COUNT(1, 4096), 1 },
    { "host-us", OPT_TEXT, OPT_SCOPE_WORKLOAD, "US",
      "guest CPU time per device command, us (default 10)", 150,
      { "us", 1000, 0, NS_PER_S, false }, 10000 },
    { "seed", OPT_TEXT, OPT_SCOPE_WORKLOAD, "N",
      "random offsets' seed (default 1)", 230, OPT_COUNT(0, UINT64_MAX), 1 },
    { "iodepth", OPT_TEXT, OPT_SCOPE_WORKLOAD, "N",
      "fio, replay --closed-loop: I/Os each job keeps in flight "
      "(default 1)", 260, OPT_COUNT(1, 65536), 1 },
};

const OptSpec *sim_shared_options(size_t *n)
{
    *n = G_N_ELEMENTS(shared_options);
    return shared_options;
}

bool sim_workload_takes(const WorkloadOps *w, const OptSpec *spec)
{
    for (size_t i = 0; i < w->n_options; i++) {
        if (&w->options[i] == spec) {
            return true;
        }
    }
    for (const char *const *u = w->uses; u && *u; u++) {
        if (!strcmp(*u, spec->name)) {
            return true;
        }
    }
    return false;
}

bool sim_shape_params(const Options *o, SimParams *p, GError **errp)
{
    uint64_t jobs, runtime, host;

    if (!opt_number(o, "bs", &p->bs_bytes, errp) ||
        !opt_number(o, "span", &p->span_bytes, errp) ||
        !opt_number(o, "offset", &p->offset_bytes, errp) ||
        !opt_number(o, "jobs", &jobs, errp) ||
        !opt_number(o, "runtime", &runtime, errp)) {
        return false;
    }
    p->runtime_ns = (hwm_ns)runtime;
    p->jobs = (uint32_t)jobs;
    if (p->bs_bytes == 0 || p->bs_bytes % HWM_SECTOR_BYTES) {
        return opt_bad(errp, "--bs: %" G_GUINT64_FORMAT " is not a positive "
                       "multiple of %u", p->bs_bytes, HWM_SECTOR_BYTES);
    }
    if (p->offset_bytes % p->bs_bytes) {
        return opt_bad(errp, "--offset: must be a multiple of --bs");
    }
    if (!opt_number(o, "host-us", &host, errp)) {
        return false;
    }
    p->host_cmd_ns = (hwm_ns)host;
    return true;
}

bool sim_check_span_jobs(const SimParams *p, GError **errp)
{
    if (p->span_bytes / p->bs_bytes < p->jobs) {
        return opt_bad(errp, "--span: too small for %u jobs of --bs %"
                       G_GUINT64_FORMAT, p->jobs, p->bs_bytes);
    }
    return true;
}

bool sim_check_region(const SimParams *p, const HwmDevice *dev,
                      const char *span_opt, GError **errp)
{
    uint64_t cap = hwm_device_capacity_bytes(dev);

    if (p->offset_bytes > cap || p->span_bytes > cap - p->offset_bytes) {
        /* the two apart: their sum may not fit in 64 bits */
        g_set_error(errp, HWM_ERROR, HWM_ERROR_RANGE,
                    "--offset (%" G_GUINT64_FORMAT " bytes) + --%s (%"
                    G_GUINT64_FORMAT " bytes) is past the device end (%"
                    G_GUINT64_FORMAT " bytes)", p->offset_bytes, span_opt,
                    p->span_bytes, cap);
        return false;
    }
    return true;
}

int sim_name_index(const char *const *names, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++) {
        if (names[i] && !strcmp(s, names[i])) {
            return (int)i;
        }
    }
    return -1;
}

uint64_t sim_seq_offset(const SimParams *p, uint64_t base, uint64_t *next)
{
    uint64_t per_job = p->span_bytes / p->bs_bytes / p->jobs;
    uint64_t off = base + *next;
    *next = (*next + p->bs_bytes) % (per_job * p->bs_bytes);
    return off;
}

void sim_record_op(Sim *s, hwm_ns start, hwm_ns end, uint64_t bytes)
{
    s->r->ios++;
    s->r->bytes += bytes;
    hist_add(&s->r->lat, (uint64_t)(end - start));
}

/* A request waiting in the host's queue; `line` > 0: from that trace line */
typedef struct {
    HwmRequest req;           /* req.tag: the workload's */
    uint32_t line;
    hwm_ns queued;            /* when the host queued it */
    uint64_t seq;             /* at the device: its tag there */
} HostReq;

bool sim_host_drain(Sim *s, hwm_ns t, GError **errp)
{
    uint32_t depth = hwm_device_queue_depth(s->dev);

    while (!g_queue_is_empty(&s->host_q) && s->outstanding < depth) {
        g_autofree HostReq *h = g_queue_pop_head(&s->host_q);
        HwmRequest cmd = h->req;
        cmd.tag = h->seq = s->submitted;
        if (s->order) {
            g_assert(hwm_trace_order_submitted(s->order) == h->seq);
        }
        if (!hwm_submit(s->dev, t, &cmd, errp)) {
            const WorkloadOps *w = s->p->ops;
            g_autofree char *who =
                w->tag_name ? w->tag_name(s->p, h->req.tag, h->line) :
                g_strdup_printf("job %" G_GUINT64_FORMAT, h->req.tag);
            g_prefix_error(errp, "%s: ", who);
            return false;
        }
        hist_add(&s->r->host_wait, (uint64_t)(t - h->queued));
        s->outstanding++;
        s->submitted++;
        HostReq *held = g_steal_pointer(&h);
        g_hash_table_insert(s->at_device, &held->seq, held);
    }
    return true;
}

void sim_enqueue(Sim *s, hwm_ns queued, const HwmRequest *req, uint32_t line)
{
    HostReq *h = g_new0(HostReq, 1);
    h->req = *req;
    h->line = line;
    h->queued = queued;
    g_queue_push_tail(&s->host_q, h);
}

bool sim_submit(Sim *s, hwm_ns t, uint64_t tag, HwmOp op, uint32_t flags,
                uint64_t off, uint64_t len, GError **errp)
{
    HwmRequest req = { .tag = tag, .op = op, .flags = flags,
                       .offset = op == HWM_OP_FLUSH ? 0 : off,
                       .length = op == HWM_OP_FLUSH ? 0 : len };
    sim_enqueue(s, t, &req, 0);
    return sim_host_drain(s, t, errp);
}

/* --explain-format narrow: the same parts within 100 columns (offsets in
 * GiB, times to 0.1 us, notes cut short), for a terminal or a mail */
static void explain_narrow(Sim *s, const HwmEvent *e)
{
    FILE *f = s->p->explain_out;

    if (s->explained == 1) {
        fprintf(f, "%-4s %-5s %9s %9s %7s %6s %7s %7s %6s %7s %9s %s\n",
                "#", "op", "GiB", "submit", "queue", "ovhd", "seek", "rotate",
                "xfer", "wb_wait", "done_us", "note");
    }
    const char *note = e->cache_hit ? "hit" : e->read_ahead ? "ahead" :
                       e->t.destage_ns > 0 ? "wb-wait" :
                       e->op == HWM_OP_FLUSH ? "wb-inside" :
                       e->durable && e->op == HWM_OP_WRITE ? "durable" :
                       e->op == HWM_OP_WRITE ? "cached" : "";
    fprintf(f, "%-4" G_GUINT64_FORMAT " %-5s %9.3f %9.1f %7.1f %6.1f %7.1f "
            "%7.1f %6.1f %7.1f %9.1f %s%s\n",
            s->explained, e->op == HWM_OP_WRITE && (e->flags & HWM_REQ_FUA) ?
            "W+FUA" : hwm_op_name(e->op), e->offset / 1073741824.0,
            e->submit_ns / 1e3, e->t.queue_ns / 1e3, e->t.overhead_ns / 1e3,
            e->t.seek_ns / 1e3, e->t.rotate_ns / 1e3, e->t.transfer_ns / 1e3,
            e->t.destage_ns / 1e3, e->time_ns / 1e3, note,
            e->write_misses ? " +rev" : "");
}

static void explain(Sim *s, const HwmEvent *e)
{
    const SimParams *p = s->p;
    if (s->explained >= p->explain || !p->explain_out) {
        return;
    }
    if (p->explain_narrow) {
        s->explained++;
        explain_narrow(s, e);
        return;
    }
    if (s->explained == 0) {
        /* the parts, queue to write-back wait, add up to done - submit */
        fprintf(p->explain_out, "%-7s %-5s %14s %12s %12s %10s %10s %10s "
                "%10s %10s %10s %12s  %s\n", "#", "op", "offset", "submit_us",
                "start_us", "queue_us", "ovhd_us", "seek_us", "rotate_us",
                "xfer_us", "wb_wait_us", "done_us", "note");
    }
    s->explained++;
    const char *note = e->cache_hit ? "cache hit" :
                       e->read_ahead ? "rode on the read-ahead" :
                       e->t.destage_ns > 0 ? "waited for write-back" :
                       e->durable && e->op == HWM_OP_WRITE ? "durable" :
                       e->op == HWM_OP_WRITE ? "cached" : "";
    fprintf(p->explain_out, "%-7" G_GUINT64_FORMAT " %-5s %14" G_GUINT64_FORMAT
            " %12.3f %12.3f %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f %12.3f  "
            "%s%s%s%s\n",
            s->explained, e->op == HWM_OP_WRITE && (e->flags & HWM_REQ_FUA) ?
            "W+FUA" : hwm_op_name(e->op), e->offset, e->submit_ns / 1e3,
            e->start_ns / 1e3, e->t.queue_ns / 1e3, e->t.overhead_ns / 1e3,
            e->t.seek_ns / 1e3,
            e->t.rotate_ns / 1e3, e->t.transfer_ns / 1e3,
            e->t.destage_ns / 1e3, e->time_ns / 1e3,
            note, e->t.destage_ns ? " " : "",
            e->op == HWM_OP_FLUSH ? "(write-back inside)" : "",
            e->write_misses ? " missed the sector after the seek: one more revolution" : "");
}

static void account(Sim *s, const HwmEvent *e)
{
    HwmBreakdown *b = &s->r->dev_time;
    b->queue_ns += e->t.queue_ns;
    b->overhead_ns += e->t.overhead_ns;
    b->seek_ns += e->t.seek_ns;
    b->rotate_ns += e->t.rotate_ns;
    b->transfer_ns += e->t.transfer_ns;
    b->destage_ns += e->t.destage_ns;
    s->r->commands++;
    if ((unsigned)e->op < G_N_ELEMENTS(s->r->lat_op)) {
        /* from the device's submit: the host queue's wait is apart */
        hist_add(&s->r->lat_op[e->op], (uint64_t)(e->time_ns - e->submit_ns));
    }
    s->r->last_completion_ns = MAX(s->r->last_completion_ns, e->time_ns);
    s->outstanding--;
    explain(s, e);
}

bool sim_deliver(Sim *s, hwm_ns t, GError **errp)
{
    const WorkloadOps *w = s->p->ops;
    HwmEvent ev[64];
    size_t n;
    bool ok = true;

    do {
        n = hwm_advance(s->dev, t, ev, G_N_ELEMENTS(ev));
        for (size_t i = 0; i < n; i++) {
            s->last_event = MAX(s->last_event, ev[i].time_ns);
            if (s->p->timeline) {
                timeline_event(s->p->timeline, &ev[i]);
            }
            if (ev[i].kind == HWM_EV_COMPLETE) {
                HostReq *h = g_hash_table_lookup(s->at_device, &ev[i].tag);
                if (s->order) {
                    g_autoptr(GString) line = g_string_new(NULL);
                    hwm_trace_order_completed(s->order, h->seq, &ev[i], line);
                    trace_write_text(s->p->trace_out, line);
                }
                ev[i].tag = h->req.tag;
                g_hash_table_remove(s->at_device, &h->seq);
                account(s, &ev[i]);
                ok = ok && w->completed(s, &ev[i], errp);
            }
        }
    } while (ok && n == G_N_ELEMENTS(ev));
    return ok && sim_host_drain(s, t, errp);
}

void sim_power_cut(Sim *s, hwm_ns at)
{
    uint64_t bytes = 0;
    g_autoptr(GArray) lost = hwm_power_cut(s->dev, at);

    for (guint i = 0; i < lost->len; i++) {
        bytes += g_array_index(lost, HwmExtent, i).length;
    }
    s->r->lost_bytes += bytes;
    s->r->power_cuts++;
    g_hash_table_remove_all(s->at_device);
    if (s->order) {
        g_autoptr(GString) lines = g_string_new(NULL);
        hwm_trace_order_power_cut(s->order, at, bytes, lines);
        trace_write_text(s->p->trace_out, lines);
    }
    /* everything queued or in flight is gone, as in the driver */
    g_queue_clear_full(&s->host_q, g_free);
    s->outstanding = 0;
}

bool sim_run(HwmDevice *dev, const SimParams *p, SimResult *r, GError **errp)
{
    const WorkloadOps *w = p->ops;
    Sim s = { .dev = dev, .p = p, .r = r };

    memset(r, 0, sizeof *r);
    hist_init(&r->lat);
    for (size_t i = 0; i < G_N_ELEMENTS(r->lat_op); i++) {
        hist_init(&r->lat_op[i]);
    }
    hist_init(&r->host_wait);
    g_queue_init(&s.host_q);
    s.at_device = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL,
                                        g_free);
    s.order = p->trace_out ? hwm_trace_order_new() : NULL;
    bool ok = w->init(&s, errp);
    while (ok) {
        uint64_t which = 0;
        hwm_ns t_dev = hwm_next_event(dev);
        hwm_ns t_host = w->next_wake(&s, &which);
        if (t_dev == HWM_NEVER && t_host == HWM_NEVER) {
            break;
        }
        if (t_host <= t_dev) {
            s.now = t_host;
            ok = w->step(&s, which, t_host, errp);
            continue;
        }
        s.now = t_dev;
        ok = sim_deliver(&s, t_dev, errp);
    }
    /* the device went idle with commands it never completed: the run's
     * figures would leave them out */
    guint lost = g_hash_table_size(s.at_device);
    if (ok && lost > 0) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID, "the device went "
                    "idle without completing %u of its commands (a model "
                    "defect)", lost);
        ok = false;
    }
    /* the device's own work after the last completion (write-back of the
     * cache, a read-ahead ending) is the drain, reported apart */
    r->drain_ns = MAX(s.last_event, r->last_completion_ns) -
                  r->last_completion_ns;
    w->fini(&s, ok);
    hwm_stats(dev, &r->stats);
    g_queue_clear_full(&s.host_q, g_free);
    g_hash_table_unref(s.at_device);
    hwm_trace_order_free(s.order);
    return ok;
}
