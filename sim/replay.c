/*
 * replay: a trace's requests, in submit-time order.
 *
 * Open loop (the default): each request is queued at its recorded submit
 * time, whatever the device does; power cuts happen at their times.
 * --closed-loop: the recorded order only; --iodepth requests are in flight
 * from time 0, and each completion issues the next request, as a
 * synchronous issuer (or one with a fixed queue depth) would.
 */
#include "engine.h"
#include "replay.h"

#define RPP(p) ((const ReplayParams *)(p)->own)

static const OptSpec replay_options[] = {
    /* a table: `duplicates` pairs its rows with the other OptSpec
     * tables' by shape; they are data, one entry per option */
    { "trace", OPT_FILE, OPT_SCOPE_WORKLOAD, "FILE",
      "replay: platter-trace v1 or blkparse text", 160, OPT_NO_NUMBER },
    { "verify", OPT_FLAG, OPT_SCOPE_WORKLOAD, NULL,
      "replay: fail unless every completion lands at the time the "
      "trace recorded (# done=)", 180, OPT_NO_NUMBER },
    { "closed-loop", OPT_FLAG, OPT_SCOPE_WORKLOAD, NULL,
      "replay: issue each request when one completes, in the recorded "
      "order (--iodepth in flight), not at its recorded time",
      310, OPT_NO_NUMBER },
};

static const char *const replay_uses[] = { "iodepth", NULL };

static bool replay_configure(const Options *o, SimParams *p, GError **errp)
{
    ReplayParams *rp = g_new0(ReplayParams, 1);
    uint64_t v;

    p->own = rp;
    if (!opt_number(o, "iodepth", &v, errp)) {
        return false;
    }
    rp->iodepth = (uint32_t)v;
    rp->verify = opt_flag(o, "verify");
    rp->closed_loop = opt_flag(o, "closed-loop");
    if (!opt_given(o, "trace")) {
        return opt_bad(errp, "--workload replay needs --trace FILE");
    }
    rp->trace_name = g_strdup(opt_text(o, "trace"));
    if (opt_given(o, "iodepth") && !rp->closed_loop) {
        return opt_bad(errp, "--iodepth does nothing with an open-loop "
                       "replay (it is --closed-loop's number of requests in "
                       "flight)");
    }
    if (rp->closed_loop && rp->verify) {
        return opt_bad(errp, "--verify with --closed-loop: a closed-loop "
                       "replay does not keep the recorded times it would "
                       "check");
    }
    return true;
}

/* Load the trace and compare the device it was recorded on with ours. */
static bool replay_prepare(SimParams *p, const HwmProfile *prof,
                           HwmDevice *dev, GError **errp)
{
    ReplayParams *rp = p->own;
    HwmTraceDevice desc = hwm_trace_device(prof, dev);
    g_auto(TraceHeader) hdr = { 0 };

    rp->trace = trace_load(rp->trace_name, &hdr, errp);
    if (!rp->trace) {
        return false;
    }
    if (rp->verify && !trace_check_verifiable(rp->trace, rp->trace_name,
                                              errp)) {
        return false;
    }
    /* replaying a workload on another drive is what replay is for;
     * verifying it there cannot pass */
    g_autofree char *other = trace_device_mismatch(&hdr, rp->trace_name,
                                                   &desc);
    if (other && rp->verify) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID, "--verify: %s",
                    other);
        return false;
    }
    if (other) {
        fprintf(stderr, "platter-sim: warning: %s\n", other);
    }
    return true;
}

static void replay_free_own(void *own)
{
    ReplayParams *rp = own;

    if (rp->trace) {
        g_array_unref(rp->trace);
    }
    g_free(rp->trace_name);
    g_free(rp);
}

/* --verify's verdict; a report of a failed check is not a result */
static bool replay_verdict(const SimParams *p, const SimResult *r,
                           GError **errp)
{
    if (!RPP(p)->verify || r->replay_mismatches == 0) {
        return true;
    }
    return opt_bad(errp, "--verify: %" G_GUINT64_FORMAT " of %"
                   G_GUINT64_FORMAT " completions differ from the trace "
                   "(first at %s:%u)", r->replay_mismatches, r->replay_checked,
                   RPP(p)->trace_name, r->replay_first_mismatch_line);
}

static char *replay_tag_name(const SimParams *p, uint64_t tag, uint32_t line)
{
    if (line == 0) {
        return g_strdup_printf("job %" G_GUINT64_FORMAT, tag);
    }
    return g_strdup_printf("%s:%u", RPP(p)->trace_name, line);
}

static void replay_report_human(FILE *f, const SimParams *p,
                                const SimResult *r)
{
    (void)p;
    fprintf(f, "  replay: %" G_GUINT64_FORMAT " completions checked "
            "against the trace, %" G_GUINT64_FORMAT " differ; %"
            G_GUINT64_FORMAT " power cuts, %" G_GUINT64_FORMAT
            " bytes lost\n", r->replay_checked, r->replay_mismatches,
            r->power_cuts, r->lost_bytes);
}

static void replay_report_json(FILE *f, const SimParams *p,
                               const SimResult *r, JsonPlace at)
{
    if (at == JSON_AFTER_DEVICE) {
        fprintf(f, ", \"replay\": {\"checked\": %" G_GUINT64_FORMAT
                ", \"mismatches\": %" G_GUINT64_FORMAT ", \"power_cuts\": %"
                G_GUINT64_FORMAT ", \"lost_bytes\": %" G_GUINT64_FORMAT "}",
                r->replay_checked, r->replay_mismatches, r->power_cuts,
                r->lost_bytes);
        return;
    }
    fprintf(f, ", \"closed_loop\": %s",
            RPP(p)->closed_loop ? "true" : "false");
    if (RPP(p)->closed_loop) {
        fprintf(f, ", \"iodepth\": %u", RPP(p)->iodepth);
    }
}

typedef struct {
    guint next;               /* the next trace request to issue */
    bool *completed;          /* per trace request */
    hwm_ns *issued;           /* closed loop: when the host issued it */
    uint32_t in_flight;       /* closed loop */
} Replay;

#define RP(s) ((Replay *)(s)->wl)

static bool replay_init(Sim *s, GError **errp)
{
    const GArray *tr = RPP(s->p)->trace;
    Replay *rp = g_new0(Replay, 1);

    s->wl = rp;
    rp->completed = g_new0(bool, tr->len);
    if (RPP(s->p)->closed_loop) {
        rp->issued = g_new0(hwm_ns, tr->len);
        for (guint i = 0; i < tr->len; i++) {
            const TraceReq *r = &g_array_index(tr, TraceReq, i);
            if (r->power_cut) {
                g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID,
                            "%s:%u: --closed-loop: a power cut is a moment "
                            "in the recorded time, which a closed-loop "
                            "replay does not keep", RPP(s->p)->trace_name,
                            r->line);
                return false;
            }
        }
    }
    return true;
}

static hwm_ns replay_next_wake(Sim *s, uint64_t *which)
{
    const GArray *tr = RPP(s->p)->trace;
    Replay *rp = RP(s);

    (void)which;
    if (rp->next >= tr->len) {
        return HWM_NEVER;
    }
    if (RPP(s->p)->closed_loop) {
        return rp->in_flight < RPP(s->p)->iodepth ? s->now : HWM_NEVER;
    }
    return MAX(g_array_index(tr, TraceReq, rp->next).submit_ns, s->now);
}

static bool replay_step(Sim *s, uint64_t which, hwm_ns t, GError **errp)
{
    const GArray *tr = RPP(s->p)->trace;
    Replay *rp = RP(s);

    (void)which;
    if (RPP(s->p)->closed_loop) {
        while (rp->next < tr->len && rp->in_flight < RPP(s->p)->iodepth) {
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
    const TraceReq *r = &g_array_index(RPP(s->p)->trace, TraceReq, e->tag);
    Replay *rp = RP(s);

    (void)errp;
    rp->completed[e->tag] = true;
    if (r->expect_done_ns >= 0 && r->expect_done_ns != e->time_ns &&
        s->r->replay_mismatches++ == 0) {
        s->r->replay_first_mismatch_line = r->line;
    }
    /* latency as the issuer saw it, including time held for a queue slot */
    if (RPP(s->p)->closed_loop) {
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
    const GArray *tr = RPP(s->p)->trace;
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
    .options = replay_options,
    .n_options = G_N_ELEMENTS(replay_options),
    .uses = replay_uses,
    .configure = replay_configure,
    .prepare = replay_prepare,
    .free_own = replay_free_own,
    .verdict = replay_verdict,
    .tag_name = replay_tag_name,
    .report_human = replay_report_human,
    .report_json = replay_report_json,
    .init = replay_init,
    .next_wake = replay_next_wake,
    .step = replay_step,
    .completed = replay_completed,
    .fini = replay_fini,
};
