/*
 * Host-side workloads that drive a device model on platter-sim's own event
 * loop: the seed's O_DSYNC benchmark at the block level, fsync-append with
 * optional flush sharing, trace replay, and fio-like jobs.  No wall clock
 * anywhere.  Each workload is one file (dsync.c, fsync.c, replay.c, fio.c)
 * holding its options, its parameters, its run and its part of the report,
 * behind one WorkloadOps table; the engine (engine.c, engine.h) runs it.
 * A new workload is its own file and one line in engine.c's SIM_WORKLOADS.
 */
#ifndef PLATTER_WORKLOAD_H
#define PLATTER_WORKLOAD_H

#include <stdio.h>

#include "histogram.h"
#include "hwm.h"
#include "options.h"
#include "timeline.h"
#include "trace.h"

typedef struct WorkloadOps WorkloadOps;

/* What every workload run has; a workload's own parameters are in `own`. */
typedef struct {
    const WorkloadOps *ops;   /* the workload */
    void *own;                /* its parameters (its configure makes them) */
    /* The job shape of the synthetic workloads (dsync, fsync-append, fio):
     * each of `jobs` does `bs_bytes` at a time within the span from
     * `offset_bytes`, for `runtime_ns`, with `host_cmd_ns` of guest CPU per
     * command.  The report shows bs, span, jobs and host_cmd_ns for every
     * workload (replay: their defaults). */
    uint64_t bs_bytes;
    uint64_t span_bytes;      /* fio: --size */
    uint64_t offset_bytes;
    hwm_ns runtime_ns;
    uint32_t jobs;            /* fio: --numjobs */
    hwm_ns host_cmd_ns;
    uint32_t explain;         /* print the first N commands' timelines */
    bool explain_narrow;      /* --explain-format narrow: within 100 columns */
    FILE *explain_out;
    FILE *trace_out;          /* write completions as a trace, or NULL */
    Timeline *timeline;       /* --timeline: sees every event, or NULL */
} SimParams;

/* per-op-type latency histograms, indexed by HwmOp */
#define SIM_OP_TYPES 4

typedef struct {
    Histogram lat;            /* per user-visible operation */
    Histogram lat_op[SIM_OP_TYPES]; /* per device command, by HwmOp, from
                                       the device's submit */
    Histogram host_wait;      /* per device command: in the host queue */
    hwm_ns last_completion_ns;
    hwm_ns drain_ns;          /* device events after the last completion */
    uint64_t ios;
    uint64_t bytes;
    hwm_ns runtime_ns;        /* virtual time the run covered */
    uint64_t commands;        /* device commands completed */
    HwmBreakdown dev_time;    /* summed over device commands */
    uint64_t flushes_issued, flushes_skipped;
    uint64_t replay_checked;      /* completions with a recorded time */
    uint64_t replay_mismatches;   /* ... that came out different */
    uint32_t replay_first_mismatch_line;
    uint64_t power_cuts, lost_bytes;
    HwmStats stats;
} SimResult;

/* Where in the JSON object (report.c) a workload's fields go. */
typedef enum {
    JSON_AFTER_DEVICE,        /* after "device" (version 0's "replay") */
    JSON_AFTER_END,           /* after "end", before "host" */
} JsonPlace;

typedef struct Sim Sim;

struct WorkloadOps {
    const char *name;
    /* Its own options, and the shared ones (engine.c's
     * sim_shared_options) it takes, by name, NULL-terminated. */
    const OptSpec *options;
    size_t n_options;
    const char *const *uses;

    /* Read its options into p->own; the job shape is in p already. */
    bool (*configure)(const Options *o, SimParams *p, GError **errp);
    /* The device is made: check p against it, adjust it, load its input
     * (NULL: nothing to do). */
    bool (*prepare)(SimParams *p, const HwmProfile *prof, HwmDevice *dev,
                    GError **errp);
    /* free p->own (NULL: g_free) */
    void (*free_own)(void *own);

    /* The run (engine.h). */
    /* set up s->wl (the workload's state) */
    bool (*init)(Sim *s, GError **errp);
    /* when the host side is next due, and which of its issuers (a job, a
     * slot: the workload's own numbering); HWM_NEVER: nothing until a
     * completion */
    hwm_ns (*next_wake)(Sim *s, uint64_t *which);
    /* `which` is due at `t` */
    bool (*step)(Sim *s, uint64_t which, hwm_ns t, GError **errp);
    /* a device command it submitted completed (already accounted) */
    bool (*completed)(Sim *s, const HwmEvent *e, GError **errp);
    /* the run is over (`ok`: without error): final counts, set
     * r->runtime_ns, free s->wl */
    void (*fini)(Sim *s, bool ok);
    /* what a command stands for in error messages: its tag, or `line` > 0
     * for a request from that trace line (NULL: "job N") */
    char *(*tag_name)(const SimParams *p, uint64_t tag, uint32_t line);

    /* After the run: false when its figures are not a result (replay's
     * --verify) (NULL: they are). */
    bool (*verdict)(const SimParams *p, const SimResult *r, GError **errp);
    /* The report (report.c), each NULL when it adds nothing: the
     * "policy" and "pattern" it ran with; its lines in the human report;
     * its fields in the JSON object. */
    void (*describe)(const SimParams *p, const char **policy,
                     const char **pattern);
    void (*report_human)(FILE *f, const SimParams *p, const SimResult *r);
    void (*report_json)(FILE *f, const SimParams *p, const SimResult *r,
                        JsonPlace at);
};

/* The workloads, in --help's and messages' order (n of them). */
const WorkloadOps *const *sim_workloads(size_t *n);
/* The one named `name`, or NULL. */
const WorkloadOps *sim_workload(const char *name);
/* The options more than one workload takes (n of them). */
const OptSpec *sim_shared_options(size_t *n);
/* Read the job shape (p's shared fields) from the shared options. */
bool sim_shape_params(const Options *o, SimParams *p, GError **errp);
/* Whether `w` takes the option `spec` (its own, or a shared one it uses). */
bool sim_workload_takes(const WorkloadOps *w, const OptSpec *spec);

bool sim_run(HwmDevice *dev, const SimParams *p, SimResult *r, GError **errp);

#endif
