/* --workload replay's parameters, public for the fuzz target
 * (sim/fuzz/fuzz-replay.c), which builds a replay without a command line. */
#ifndef PLATTER_REPLAY_H
#define PLATTER_REPLAY_H

#include "workload.h"

typedef struct {
    GArray *trace;            /* TraceReq; owned */
    char *trace_name;         /* in messages; owned */
    bool verify;              /* fail unless every completion is on time */
    bool closed_loop;         /* issue on completion, in order */
    uint32_t iodepth;         /* closed loop: in flight */
} ReplayParams;

extern const WorkloadOps replay_workload;

#endif
