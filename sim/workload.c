#include <string.h>

#include "sim-internal.h"

static const char *const policy_names[] = {
    "fua+flush", "fua", "write+flush", "fua-emulated", "write" };

const char *policy_name(DsyncPolicy p)
{
    return policy_names[p];
}

bool policy_parse(const char *s, DsyncPolicy *out)
{
    for (size_t i = 0; i < G_N_ELEMENTS(policy_names); i++) {
        if (!strcmp(s, policy_names[i])) {
            *out = (DsyncPolicy)i;
            return true;
        }
    }
    return false;
}

/* The commands one O_DSYNC write becomes, per policy. */
static const struct {
    uint32_t n;
    HwmOp op[3];
    uint32_t flags[3];
} dsync_steps[] = {
    [POL_FUA_FLUSH] = { 2, { HWM_OP_WRITE, HWM_OP_FLUSH }, { HWM_REQ_FUA, 0 } },
    [POL_FUA] = { 1, { HWM_OP_WRITE }, { HWM_REQ_FUA } },
    [POL_WRITE_FLUSH] = { 2, { HWM_OP_WRITE, HWM_OP_FLUSH }, { 0, 0 } },
    [POL_FUA_EMULATED] = { 3, { HWM_OP_WRITE, HWM_OP_FLUSH, HWM_OP_FLUSH },
                           { 0, 0, 0 } },
    [POL_WRITE] = { 1, { HWM_OP_WRITE }, { 0 } },
};



static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A request waiting in the host's queue; `line` > 0: from that trace line */
typedef struct {
    HwmRequest req;
    uint32_t line;
} HostReq;

/* What a synthetic workload's tag stands for, in error messages. */
static char *tag_name(uint64_t tag)
{
    if (tag >= FLUSHQ_TAG) {
        return g_strdup_printf("blk-flush queue %" G_GUINT64_FORMAT "'s FLUSH",
                               (uint64_t)(tag - FLUSHQ_TAG));
    }
    if (tag == LOG_TAG) {
        return g_strdup("the xfs log");
    }
    return g_strdup_printf("job %" G_GUINT64_FORMAT, tag);
}

/* Hand queued requests to the device while it has room, oldest first. */
static bool host_drain(Sim *s, hwm_ns t, GError **errp)
{
    uint32_t depth = hwm_device_queue_depth(s->dev);

    while (!g_queue_is_empty(&s->host_q) && s->outstanding < depth) {
        g_autofree HostReq *h = g_queue_pop_head(&s->host_q);
        if (!hwm_submit(s->dev, t, &h->req, errp)) {
            if (h->line > 0) {
                g_prefix_error(errp, "%s:%u: ", s->p->trace_name, h->line);
            } else {
                g_autofree char *who = tag_name(h->req.tag);
                g_prefix_error(errp, "%s: ", who);
            }
            return false;
        }
        s->outstanding++;
    }
    return true;
}

static bool host_queue(Sim *s, hwm_ns t, const HwmRequest *req, uint32_t line,
                       GError **errp)
{
    HostReq *h = g_new(HostReq, 1);
    h->req = *req;
    h->line = line;
    g_queue_push_tail(&s->host_q, h);
    return host_drain(s, t, errp);
}

bool sim_submit(Sim *s, hwm_ns t, uint64_t tag, HwmOp op, uint32_t flags,
                uint64_t off, uint64_t len, GError **errp)
{
    HwmRequest req = { .tag = tag, .op = op, .flags = flags,
                       .offset = op == HWM_OP_FLUSH ? 0 : off,
                       .length = op == HWM_OP_FLUSH ? 0 : len };
    return host_queue(s, t, &req, 0, errp);
}

uint64_t sim_job_offset(Sim *s, Job *j)
{
    const SimParams *p = s->p;
    uint64_t blocks = p->span_bytes / p->bs_bytes;

    if (p->kind == WL_DSYNC && p->random) {
        return p->offset_bytes + splitmix64(&j->rng) % blocks * p->bs_bytes;
    }
    uint64_t per_job = blocks / p->jobs;
    uint64_t off = j->base + j->next;
    j->next = (j->next + p->bs_bytes) % (per_job * p->bs_bytes);
    return off;
}

/* A dsync job is due at `t`: start a write or its next command. */
static bool dsync_step(Sim *s, uint32_t ji, hwm_ns t, GError **errp)
{
    const SimParams *p = s->p;
    Job *j = &s->jobs[ji];

    j->wake = HWM_NEVER;
    if (j->step == 0 && !j->entering) {
        if (t >= p->runtime_ns) {
            j->done = true;
            return true;
        }
        /* pwrite() called: the bio goes out after the syscall's path */
        j->op_start = t;
        j->entering = true;
        j->wake = t + p->host_cmd_ns / 2;
        return true;
    }
    if (j->step == 0) {
        j->entering = false;
        return sim_submit(s, t, ji, dsync_steps[p->policy].op[0],
                          dsync_steps[p->policy].flags[0],
                          sim_job_offset(s, j), p->bs_bytes, errp);
    }
    return sim_submit(s, t, ji, dsync_steps[p->policy].op[j->step],
                      dsync_steps[p->policy].flags[j->step], 0, 0, errp);
}

void sim_finish_op(Sim *s, Job *j, hwm_ns end)
{
    j->step = 0;
    if (end <= s->p->runtime_ns) {
        s->r->ios++;
        s->r->bytes += s->p->bs_bytes;
        hist_add(&s->r->lat, (uint64_t)(end - j->op_start));
    }
    j->wake = end;
}

static void explain(Sim *s, const HwmEvent *e)
{
    const SimParams *p = s->p;
    if (s->explained >= p->explain || !p->explain_out) {
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
    s->outstanding--;
    explain(s, e);
    if (s->p->trace_out) {
        trace_write_completion(s->p->trace_out, e);
    }
}

static void dsync_completed(Sim *s, const HwmEvent *e)
{
    const SimParams *p = s->p;
    Job *j = &s->jobs[e->tag];

    j->step++;
    if (j->step < dsync_steps[p->policy].n) {
        j->wake = e->time_ns + p->host_cmd_ns;
        return;
    }
    sim_finish_op(s, j, e->time_ns + p->host_cmd_ns / 2);
}

/* ---- replay ------------------------------------------------------------- */

static void completed(Sim *s, const HwmEvent *e, GError **errp, bool *ok);

/* Run the device to `t` and hand every completion up to it to the host. */
static bool deliver(Sim *s, hwm_ns t, GError **errp)
{
    HwmEvent ev[64];
    size_t n;
    bool ok = true;

    do {
        n = hwm_advance(s->dev, t, ev, G_N_ELEMENTS(ev));
        for (size_t i = 0; i < n; i++) {
            s->last_event = MAX(s->last_event, ev[i].time_ns);
            if (ev[i].kind == HWM_EV_COMPLETE) {
                completed(s, &ev[i], errp, &ok);
            }
        }
    } while (ok && n == G_N_ELEMENTS(ev));
    return ok && host_drain(s, t, errp);
}

static void power_cut(Sim *s, hwm_ns at)
{
    uint64_t bytes = 0;
    g_autoptr(GArray) lost = hwm_power_cut(s->dev, at);

    for (guint i = 0; i < lost->len; i++) {
        bytes += g_array_index(lost, HwmExtent, i).length;
    }
    s->r->lost_bytes += bytes;
    s->r->power_cuts++;
    if (s->p->trace_out) {
        trace_write_power_cut(s->p->trace_out, at, bytes);
    }
    /* everything queued or in flight is gone, as in the driver */
    g_queue_clear_full(&s->host_q, g_free);
    s->outstanding = 0;
}

static bool replay_issue(Sim *s, hwm_ns t, GError **errp)
{
    const GArray *tr = s->p->trace;

    while (s->next_trace < tr->len &&
           g_array_index(tr, TraceReq, s->next_trace).submit_ns <= t) {
        const TraceReq *r = &g_array_index(tr, TraceReq, s->next_trace);
        s->next_trace++;
        if (r->power_cut) {
            /* what the device finished by the cut happened before it (the
             * QEMU driver delivers it first too) */
            if (!deliver(s, r->submit_ns, errp)) {
                return false;
            }
            power_cut(s, r->submit_ns);
            continue;
        }
        HostReq *h = g_new(HostReq, 1);
        h->req = r->req;
        h->line = r->line;
        g_queue_push_tail(&s->host_q, h);
    }
    return host_drain(s, t, errp);
}

static void replay_completed(Sim *s, const HwmEvent *e)
{
    const TraceReq *r = &g_array_index(s->p->trace, TraceReq, e->tag);
    s->completed[e->tag] = true;
    if (r->expect_done_ns >= 0 && r->expect_done_ns != e->time_ns &&
        s->r->replay_mismatches++ == 0) {
        s->r->replay_first_mismatch_line = r->line;
    }
    s->r->ios++;
    s->r->bytes += e->length;
    /* latency as the issuer saw it, including time held for a queue slot */
    hist_add(&s->r->lat, (uint64_t)(e->time_ns - r->submit_ns));
}

/* A recorded completion that never came (the request was dropped by a
 * power cut the recording did not have) differs too. */
static void replay_check_missing(Sim *s)
{
    const GArray *tr = s->p->trace;
    for (guint i = 0; i < tr->len; i++) {
        const TraceReq *r = &g_array_index(tr, TraceReq, i);
        if (r->power_cut || r->expect_done_ns < 0) {
            continue;
        }
        s->r->replay_checked++;
        if (!s->completed[i] && s->r->replay_mismatches++ == 0) {
            s->r->replay_first_mismatch_line = r->line;
        }
    }
}

static void completed(Sim *s, const HwmEvent *e, GError **errp, bool *ok)
{
    const SimParams *p = s->p;

    account(s, e);
    if (p->kind == WL_REPLAY) {
        replay_completed(s, e);
    } else if (p->kind == WL_DSYNC) {
        dsync_completed(s, e);
    } else {
        *ok = *ok && fsync_completed(s, e, errp);
    }
}

/* ---- event loop --------------------------------------------------------- */

static hwm_ns next_job_wake(const Sim *s, uint32_t *which)
{
    hwm_ns best = HWM_NEVER;
    for (uint32_t i = 0; i < s->p->jobs; i++) {
        const Job *j = &s->jobs[i];
        if (!j->done && j->wake < best) {
            best = j->wake;
            *which = i;
        }
    }
    return best;
}

bool sim_run(HwmDevice *dev, const SimParams *p, SimResult *r, GError **errp)
{
    Sim s = { .dev = dev, .p = p, .r = r };
    bool ok = true;
    hwm_ns last = 0;

    memset(r, 0, sizeof *r);
    hist_init(&r->lat);
    g_queue_init(&s.host_q);
    fsync_init(&s);
    if (p->kind == WL_REPLAY) {
        s.completed = g_new0(bool, p->trace->len);
    } else {
        s.jobs = g_new0(Job, p->jobs);
        uint64_t per_job = p->span_bytes / p->bs_bytes / p->jobs;
        for (uint32_t i = 0; i < p->jobs; i++) {
            s.jobs[i].wake = 0;
            s.jobs[i].rng = p->seed + i;
            s.jobs[i].base = p->offset_bytes + i * per_job * p->bs_bytes;
        }
    }

    while (ok) {
        uint32_t ji = 0;
        hwm_ns t_dev = hwm_next_event(dev);
        hwm_ns t_host = HWM_NEVER;
        if (p->kind == WL_REPLAY) {
            if (s.next_trace < p->trace->len) {
                t_host = MAX(g_array_index(p->trace, TraceReq,
                                           s.next_trace).submit_ns, last);
            }
        } else {
            t_host = next_job_wake(&s, &ji);
        }
        if (t_dev == HWM_NEVER && t_host == HWM_NEVER) {
            break;
        }
        if (t_host <= t_dev) {
            last = t_host;
            ok = p->kind == WL_REPLAY ? replay_issue(&s, t_host, errp) :
                 p->kind == WL_DSYNC ? dsync_step(&s, ji, t_host, errp) :
                 fsync_step(&s, ji, t_host, errp);
            continue;
        }
        last = t_dev;
        ok = deliver(&s, t_dev, errp);
    }
    if (ok && p->kind == WL_REPLAY) {
        replay_check_missing(&s);
    }
    /* a replay lasts until the device's last event the host sees: the
     * device's own steps after it (a read-ahead ending, an idle wake-up)
     * are not part of the run */
    r->runtime_ns = p->kind == WL_REPLAY ? s.last_event : p->runtime_ns;
    hwm_stats(dev, &r->stats);
    fsync_destroy(&s);
    g_free(s.jobs);
    g_free(s.completed);
    g_queue_clear_full(&s.host_q, g_free);
    return ok;
}
