/*
 * dsync: the seed's O_DSYNC benchmark at the block level.  Each job writes
 * bs bytes at a time (sequential in its share of the span, or random in
 * the whole span), and every write becomes the commands its --policy says.
 */
#include "sim-internal.h"

static const char *const policy_names[] = {
    "fua+flush", "fua", "write+flush", "fua-emulated", "write" };

const char *policy_name(DsyncPolicy p)
{
    return policy_names[p];
}

bool policy_parse(const char *s, DsyncPolicy *out)
{
    int i = sim_name_index(policy_names, G_N_ELEMENTS(policy_names), s);
    if (i < 0) {
        return false;
    }
    *out = (DsyncPolicy)i;
    return true;
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

typedef struct {
    uint32_t step;            /* command index within the write */
    bool entering;            /* in the syscall, before submission */
    bool done;
    hwm_ns op_start;
    hwm_ns wake;              /* HWM_NEVER while a command is outstanding */
    uint64_t base, next;      /* sequential: its share of the span */
    uint64_t rng;             /* random offsets */
} DsyncJob;

static bool dsync_init(Sim *s, GError **errp)
{
    const SimParams *p = s->p;
    DsyncJob *jobs = g_new0(DsyncJob, p->jobs);
    uint64_t per_job = p->span_bytes / p->bs_bytes / p->jobs;
    (void)errp;

    for (uint32_t i = 0; i < p->jobs; i++) {
        jobs[i].wake = 0;
        jobs[i].rng = p->seed + i;
        jobs[i].base = p->offset_bytes + i * per_job * p->bs_bytes;
    }
    s->wl = jobs;
    return true;
}

static hwm_ns dsync_next_wake(Sim *s, uint64_t *which)
{
    const DsyncJob *jobs = s->wl;
    hwm_ns best = HWM_NEVER;

    for (uint32_t i = 0; i < s->p->jobs; i++) {
        if (!jobs[i].done && jobs[i].wake < best) {
            best = jobs[i].wake;
            *which = i;
        }
    }
    return best;
}

static uint64_t dsync_offset(const SimParams *p, DsyncJob *j)
{
    if (p->random) {
        uint64_t blocks = p->span_bytes / p->bs_bytes;
        return p->offset_bytes + hwm_splitmix64(&j->rng) % blocks * p->bs_bytes;
    }
    return sim_seq_offset(p, j->base, &j->next);
}

/* A job is due at `t`: start a write or its next command. */
static bool dsync_step(Sim *s, uint64_t ji, hwm_ns t, GError **errp)
{
    const SimParams *p = s->p;
    DsyncJob *j = &((DsyncJob *)s->wl)[ji];

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
                          dsync_offset(p, j), p->bs_bytes, errp);
    }
    return sim_submit(s, t, ji, dsync_steps[p->policy].op[j->step],
                      dsync_steps[p->policy].flags[j->step], 0, 0, errp);
}

static bool dsync_completed(Sim *s, const HwmEvent *e, GError **errp)
{
    const SimParams *p = s->p;
    DsyncJob *j = &((DsyncJob *)s->wl)[e->tag];
    (void)errp;

    j->step++;
    if (j->step < dsync_steps[p->policy].n) {
        j->wake = e->time_ns + p->host_cmd_ns;
        return true;
    }
    /* pwrite() returns */
    hwm_ns end = e->time_ns + p->host_cmd_ns / 2;
    j->step = 0;
    if (end <= p->runtime_ns) {
        sim_record_op(s, j->op_start, end, p->bs_bytes);
    }
    j->wake = end;
    return true;
}

static void dsync_fini(Sim *s, bool ok)
{
    (void)ok;
    s->r->runtime_ns = s->p->runtime_ns;
    g_free(s->wl);
}

const WorkloadOps dsync_workload = {
    .name = "dsync",
    .init = dsync_init,
    .next_wake = dsync_next_wake,
    .step = dsync_step,
    .completed = dsync_completed,
    .fini = dsync_fini,
};
