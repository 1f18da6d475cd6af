/*
 * Host-side workloads that drive a device model on platter-sim's own event
 * loop: the seed's O_DSYNC benchmark at the block level, fsync-append with
 * optional flush sharing, trace replay, and fio-like jobs.  No wall clock
 * anywhere.  Each workload is one file (dsync.c, fsync.c, replay.c, fio.c)
 * with one WorkloadOps table (sim-internal.h).
 */
#ifndef PLATTER_WORKLOAD_H
#define PLATTER_WORKLOAD_H

#include <stdio.h>

#include "histogram.h"
#include "hwm.h"
#include "timeline.h"
#include "trace.h"

typedef enum { WL_DSYNC, WL_FSYNC_APPEND, WL_REPLAY, WL_FIO, WL_COUNT }
    WorkloadKind;

/* fio's --rw */
typedef enum { RW_READ, RW_WRITE, RW_RANDREAD, RW_RANDWRITE, RW_RANDRW }
    FioRw;

/*
 * How the guest kernel turns one O_DSYNC direct write into commands; this
 * is what the fops series changes.  See sim/README.md for the kernel paths.
 */
typedef enum {
    POL_FUA_FLUSH,      /* WRITE|FUA, then FLUSH (generic_write_sync) */
    POL_FUA,            /* WRITE|FUA only (fops v2 1/2) */
    POL_WRITE_FLUSH,    /* WRITE, then FLUSH (no FUA, fops v2 2/2) */
    POL_FUA_EMULATED,   /* WRITE, FLUSH (blk-flush FUA emulation), FLUSH */
    POL_WRITE,          /* WRITE only: any policy on a write-through device,
                           whose FLUSH and FUA the block layer strips */
} DsyncPolicy;

typedef struct {
    WorkloadKind kind;
    DsyncPolicy policy;
    bool random;              /* dsync, fio: random offsets within the span */
    uint64_t bs_bytes;
    uint64_t span_bytes;      /* fio: --size */
    uint64_t offset_bytes;    /* start of the span */
    hwm_ns runtime_ns;
    uint32_t jobs;
    bool flush_share;         /* fsync-append: the xfs series' rule */
    bool xfs_log;             /* fsync-append: model xfs's log force */
    uint32_t flush_queues;    /* fsync-append: guest blk-flush queues
                                 that merge flushes (0: no merging) */
    hwm_ns host_cmd_ns;       /* guest CPU time per device command */
    FioRw rw;                 /* fio */
    uint32_t rwmixread;       /* fio randrw: percent of reads */
    uint32_t iodepth;         /* fio, replay --closed-loop: in flight */
    uint64_t fsync_every;     /* fio: a FLUSH after this many writes (0: no) */
    hwm_ns thinktime_ns;      /* fio: after a completion, before the next */
    bool strip_flush;         /* fio: write-through device, flushes not sent */
    bool closed_loop;         /* replay: issue on completion, in order */
    uint64_t seed;
    const GArray *trace;      /* TraceReq, for WL_REPLAY */
    const char *trace_name;
    uint32_t explain;         /* print the first N commands' timelines */
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

bool sim_run(HwmDevice *dev, const SimParams *p, SimResult *r, GError **errp);

const char *workload_name(WorkloadKind k);
bool workload_parse(const char *s, WorkloadKind *out);
const char *fio_rw_name(FioRw rw);
bool fio_rw_parse(const char *s, FioRw *out);
const char *policy_name(DsyncPolicy p);
bool policy_parse(const char *s, DsyncPolicy *out);

#endif
