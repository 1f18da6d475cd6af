/*
 * replay: a trace's requests, in submit-time order.
 *
 * Open loop (the default): each request is queued at its recorded submit
 * time, whatever the device does; power cuts happen at their times.
 * --closed-loop: the recorded order only; --iodepth requests are in flight
 * from time 0, and each completion issues the next request, as a
 * synchronous issuer (or one with a fixed queue depth) would.
 */
#include "sim-internal.h"

typedef struct {
    guint next;               /* the next trace request to issue */
    bool *completed;          /* per trace request */
    hwm_ns *issued;           /* closed loop: when the host issued it */
    uint32_t in_flight;       /* closed loop */
} Replay;

#define RP(s) ((Replay *)(s)->wl)

static bool replay_init(Sim *s, GError **errp)
{
    const GArray *tr = s->p->trace;
    Replay *rp = g_new0(Replay, 1);

    s->wl = rp;
    rp->completed = g_new0(bool, tr->len);
    if (s->p->closed_loop) {
        rp->issued = g_new0(hwm_ns, tr->len);
        for (guint i = 0; i < tr->len; i++) {
            const TraceReq *r = &g_array_index(tr, TraceReq, i);
            if (r->power_cut) {
                g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID,
                            "%s:%u: --closed-loop: a power cut is a moment "
                            "in the recorded time, which a closed-loop "
                            "replay does not keep", s->p->trace_name,
                            r->line);
                return false;
            }
        }
    }
    return true;
}

static hwm_ns replay_next_wake(Sim *s, uint64_t *which)
{
    const GArray *tr = s->p->trace;
    Replay *rp = RP(s);

    (void)which;
    if (rp->next >= tr->len) {
        return HWM_NEVER;
    }
    if (s->p->closed_loop) {
        return rp->in_flight < s->p->iodepth ? s->now : HWM_NEVER;
    }
    return MAX(g_array_index(tr, TraceReq, rp->next).submit_ns, s->now);
}

static bool replay_step(Sim *s, uint64_t which, hwm_ns t, GError **errp)
{
    const GArray *tr = s->p->trace;
    Replay *rp = RP(s);

    (void)which;
    if (s->p->closed_loop) {
        while (rp->next < tr->len && rp->in_flight < s->p->iodepth) {
            const TraceReq *r = &g_array_index(tr, TraceReq, rp->next);
            rp->issued[rp->next++] = t;
            rp->in_flight++;
            if (r->req.op == HWM_OP_FLUSH) {
                s->r->flushes_issued++;
            }
            sim_enqueue(s, t, &r->req, r->line);
        }
        return sim_host_drain(s, t, errp);
    }
    while (rp->next < tr->len &&
           g_array_index(tr, TraceReq, rp->next).submit_ns <= t) {
        const TraceReq *r = &g_array_index(tr, TraceReq, rp->next);
        rp->next++;
        if (r->power_cut) {
            /* what the device finished by the cut happened before it (the
             * QEMU driver delivers it first too) */
            if (!sim_deliver(s, r->submit_ns, errp)) {
                return false;
            }
            sim_power_cut(s, r->submit_ns);
            continue;
        }
        if (r->req.op == HWM_OP_FLUSH) {
            s->r->flushes_issued++;
        }
        sim_enqueue(s, r->submit_ns, &r->req, r->line);
    }
    return sim_host_drain(s, t, errp);
}

static bool replay_completed(Sim *s, const HwmEvent *e, GError **errp)
{
    const TraceReq *r = &g_array_index(s->p->trace, TraceReq, e->tag);
    Replay *rp = RP(s);

    (void)errp;
    rp->completed[e->tag] = true;
    if (r->expect_done_ns >= 0 && r->expect_done_ns != e->time_ns &&
        s->r->replay_mismatches++ == 0) {
        s->r->replay_first_mismatch_line = r->line;
    }
    /* latency as the issuer saw it, including time held for a queue slot */
    if (s->p->closed_loop) {
        rp->in_flight--;
        sim_record_op(s, rp->issued[e->tag], e->time_ns, e->length);
    } else {
        sim_record_op(s, r->submit_ns, e->time_ns, e->length);
    }
    return true;
}

/* A recorded completion that never came (the request was dropped by a
 * power cut the recording did not have) differs too. */
static void replay_fini(Sim *s, bool ok)
{
    const GArray *tr = s->p->trace;
    Replay *rp = RP(s);

    for (guint i = 0; ok && i < tr->len; i++) {
        const TraceReq *r = &g_array_index(tr, TraceReq, i);
        if (r->power_cut || r->expect_done_ns < 0) {
            continue;
        }
        s->r->replay_checked++;
        if (!rp->completed[i] && s->r->replay_mismatches++ == 0) {
            s->r->replay_first_mismatch_line = r->line;
        }
    }
    /* a replay lasts until the device's last event the host sees: the
     * device's own steps after it (a read-ahead ending, an idle wake-up)
     * are not part of the run */
    s->r->runtime_ns = s->last_event;
    g_free(rp->completed);
    g_free(rp->issued);
    g_free(rp);
}

const WorkloadOps replay_workload = {
    .name = "replay",
    .init = replay_init,
    .next_wake = replay_next_wake,
    .step = replay_step,
    .completed = replay_completed,
    .fini = replay_fini,
};
