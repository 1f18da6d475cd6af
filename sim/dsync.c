/*
 * dsync: the seed's O_DSYNC benchmark at the block level.  Each job writes
 * bs bytes at a time (sequential in its share of the span, or random in
 * the whole span), and every write becomes the commands its --policy says.
 */
#include <stdio.h>
#include <string.h>

#include "engine.h"

/*
 * How the guest kernel turns one O_DSYNC direct write into commands; this
 * is what the fops series changes.  See README.md for the kernel paths.
 */
typedef enum {
    POL_FUA_FLUSH,      /* WRITE|FUA, then FLUSH (generic_write_sync) */
    POL_FUA,            /* WRITE|FUA only (fops v2 1/2) */
    POL_WRITE_FLUSH,    /* WRITE, then FLUSH (no FUA, fops v2 2/2) */
    POL_FUA_EMULATED,   /* WRITE, FLUSH (blk-flush FUA emulation), FLUSH */
    POL_WRITE,          /* WRITE only: any policy on a write-through device,
                           whose FLUSH and FUA the block layer strips */
} DsyncPolicy;

static const char *const policy_names[] = {
    "fua+flush", "fua", "write+flush", "fua-emulated", "write" };

typedef struct {
    DsyncPolicy policy;
    bool random;              /* random offsets within the span */
    uint64_t seed;
} DsyncParams;

#define DP(p) ((const DsyncParams *)(p)->own)

static const OptSpec dsync_options[] = {
    /* a table: `duplicates` pairs its rows with the other OptSpec
     * tables' by shape; they are data, one entry per option */
    { "pattern", OPT_TEXT, OPT_SCOPE_WORKLOAD, "P",
      "dsync offsets: seq | rand (default seq)", 50, OPT_NO_NUMBER },
    { "policy", OPT_TEXT, OPT_SCOPE_WORKLOAD, "POLICY",
      "how the kernel turns an O_DSYNC write into commands: fua+flush | "
      "fua | write+flush | fua-emulated | write (default fua+flush; "
      "with the write cache off every policy runs as write)",
      60, OPT_NO_NUMBER },
};

static const char *const dsync_uses[] = {
    "bs", "span", "offset", "runtime", "jobs", "host-us", "seed", NULL };

static bool dsync_configure(const Options *o, SimParams *p, GError **errp)
{
    DsyncParams *dp = g_new0(DsyncParams, 1);
    const char *policy = opt_text(o, "policy");
    const char *pattern = opt_text(o, "pattern");

    p->own = dp;
    policy = policy ? policy : "fua+flush";
    int i = sim_name_index(policy_names, G_N_ELEMENTS(policy_names), policy);
    if (i < 0) {
        return opt_bad(errp, "--policy: unknown '%s' (fua+flush, fua, "
                       "write+flush, fua-emulated, write)", policy);
    }
    dp->policy = (DsyncPolicy)i;
    if (pattern && !strcmp(pattern, "rand")) {
        dp->random = true;
    } else if (pattern && strcmp(pattern, "seq") != 0) {
        return opt_bad(errp, "--pattern: unknown '%s' (seq, rand)", pattern);
    }
    if (opt_given(o, "seed") && !dp->random) {
        return opt_bad(errp, "--seed does nothing without --pattern rand "
                       "(it seeds the random offsets)");
    }
    return opt_number(o, "seed", &dp->seed, errp) &&
           sim_check_span_jobs(p, errp);
}

static bool dsync_prepare(SimParams *p, const HwmProfile *prof,
                          HwmDevice *dev, GError **errp)
{
    DsyncParams *dp = p->own;
    (void)prof;

    if (!sim_check_region(p, dev, "span", errp)) {
        return false;
    }
    if (!hwm_device_write_cache(dev) && dp->policy != POL_WRITE) {
        /* Linux on a device without a volatile write cache: FUA needs a
         * write cache (blk_validate_limits() clears BLK_FEAT_FUA), and
         * submit_bio_noacct() strips PREFLUSH and FUA and completes an
         * empty flush at once: every policy sends plain WRITEs */
        fprintf(stderr, "platter-sim: write cache off: the block layer "
                "strips FLUSH and FUA for a write-through device; --policy "
                "%s runs as write\n", policy_names[dp->policy]);
        dp->policy = POL_WRITE;
    }
    bool uses_fua = dp->policy == POL_FUA || dp->policy == POL_FUA_FLUSH;
    if (uses_fua && !hwm_device_fua(dev)) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID,
                    "--policy %s sends FUA writes, but the device has no "
                    "native FUA (profile or --fua off): the kernel would use "
                    "write+flush or fua-emulated", policy_names[dp->policy]);
        return false;
    }
    return true;
}

static void dsync_describe(const SimParams *p, const char **policy,
                           const char **pattern)
{
    *policy = policy_names[DP(p)->policy];
    *pattern = DP(p)->random ? "rand" : "seq";
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
        jobs[i].rng = DP(p)->seed + i;
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
    if (DP(p)->random) {
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
        return sim_submit(s, t, ji, dsync_steps[DP(p)->policy].op[0],
                          dsync_steps[DP(p)->policy].flags[0],
                          dsync_offset(p, j), p->bs_bytes, errp);
    }
    return sim_submit(s, t, ji, dsync_steps[DP(p)->policy].op[j->step],
                      dsync_steps[DP(p)->policy].flags[j->step], 0, 0, errp);
}

static bool dsync_completed(Sim *s, const HwmEvent *e, GError **errp)
{
    const SimParams *p = s->p;
    DsyncJob *j = &((DsyncJob *)s->wl)[e->tag];
    (void)errp;

    j->step++;
    if (j->step < dsync_steps[DP(p)->policy].n) {
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
    .options = dsync_options,
    .n_options = G_N_ELEMENTS(dsync_options),
    .uses = dsync_uses,
    .configure = dsync_configure,
    .prepare = dsync_prepare,
    .describe = dsync_describe,
    .init = dsync_init,
    .next_wake = dsync_next_wake,
    .step = dsync_step,
    .completed = dsync_completed,
    .fini = dsync_fini,
};
