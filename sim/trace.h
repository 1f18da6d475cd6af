/*
 * Request traces for --workload replay.  Two formats, told apart by their
 * first data line:
 *
 * platter trace v1 (what the QEMU driver writes):
 *     # platter-trace v1
 *     <submit_ns> <R|W|F|D> <offset_bytes> <length_bytes> <-|FUA>  [# comment]
 *     # power-cut at=<ns>
 *   Lines may come in completion order (the driver writes them so); they
 *   are replayed in submit-time order.  A trailing "# done=<ns>" records
 *   when the request completed, for --verify.
 * blkparse default text output; only Q (queued) events are used:
 *     8,0  0  1  0.000012345  4242  Q  WS 1000 + 8 [fio]
 *   RWBS: a leading F is a preflush (a FLUSH before the request), R/W/D the
 *   op, an F after it FUA; FN or a bare F is a flush.
 */
#ifndef PLATTER_TRACE_H
#define PLATTER_TRACE_H

#include <stdio.h>

#include "hwm.h"

/* The largest trace file read (about 5 million requests); parsing takes
 * memory a few times the file's size. */
#define TRACE_MAX_BYTES (256u * 1024 * 1024)

typedef struct {
    hwm_ns submit_ns;
    HwmRequest req;
    uint32_t line;           /* for error messages */
    bool power_cut;          /* "# power-cut at=<ns>": cut power, no request */
    hwm_ns expect_done_ns;   /* "# done=<ns>" as recorded, or -1 */
} TraceReq;

/* Parse a whole trace; `source` names it in errors.  Returns an array of
 * TraceReq sorted by submit time (file order among equal times). */
GArray *trace_parse(const char *text, gsize len, const char *source,
                    GError **errp);
GArray *trace_load(const char *path, GError **errp);
/* For --verify: every request must have a recorded completion (a trace that
 * records none, or only some, would leave requests unchecked). */
bool trace_check_verifiable(const GArray *reqs, const char *source,
                            GError **errp);

/* Write the same format: a header, then one line per completed request. */
void trace_write_header(FILE *f, const char *profile);
void trace_write_completion(FILE *f, const HwmEvent *e);
void trace_write_power_cut(FILE *f, hwm_ns at, uint64_t lost_bytes);

#endif
