/*
 * Request traces for --workload replay.  Two formats, told apart by their
 * first data line:
 *
 * platter trace v1 (what the QEMU driver writes):
 *     # platter-trace v1
 *     <submit_ns> <R|W|F|D> <offset_bytes> <length_bytes> <-|FUA>  [# comment]
 *
 * blkparse default text output; only Q (queued) events are used:
 *     8,0  0  1  0.000012345  4242  Q  WS 1000 + 8 [fio]
 *   RWBS: a leading F is a preflush (a FLUSH before the request), R/W/D the
 *   op, an F after it FUA; FN or a bare F is a flush.
 */
#ifndef PLATTER_TRACE_H
#define PLATTER_TRACE_H

#include "hwm.h"

typedef struct {
    hwm_ns submit_ns;
    HwmRequest req;
    uint32_t line;           /* for error messages */
} TraceReq;

/* Parse a whole trace; `source` names it in errors.  Returns an array of
 * TraceReq in file order, submit times non-decreasing. */
GArray *trace_parse(const char *text, gsize len, const char *source,
                    GError **errp);
GArray *trace_load(const char *path, GError **errp);

#endif
