/*
 * Request traces for --workload replay.  Two formats, told apart by their
 * first data line:
 *
 * platter-trace v1 (hwm.h defines it; the QEMU driver and --trace-out write
 * it with hw-model's writer):
 *     # platter-trace v1
 *     # profile=NAME capacity=BYTES fua=0|1 write-cache=0|1 queue-depth=N
 *     <submit_ns> <R|W|F|D> <offset_bytes> <length_bytes> <-|FUA>  [# comment]
 *     # power-cut at=<ns>
 *   The version line, when present, is line 1 and must say v1; the device
 *   line is the line after it, each key optional (older sim traces give
 *   only profile=), none unknown, repeated or malformed.  Lines may come
 *   in completion order (the QEMU driver writes them so); they are
 *   replayed in submit-time order, lines of one instant in file order
 *   (platter-sim --trace-out writes the order the device got them, which
 *   is what makes them replay exactly).  A trailing "# done=<ns>" records
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

/* What a platter-trace header said. */
typedef struct {
    uint32_t version;        /* 0: no version line */
    uint32_t device_line;    /* the device line's number, 0: none */
    HwmTraceDevice dev;      /* its keys in `given` */
    uint32_t given;
    char *text;              /* what dev.profile points into */
} TraceHeader;

void trace_header_clear(TraceHeader *hdr);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(TraceHeader, trace_header_clear)

/* Parse a whole trace; `source` names it in errors.  Returns an array of
 * TraceReq sorted by submit time (file order among equal times), and its
 * header in `*hdr` (may be NULL; clear it with trace_header_clear()). */
GArray *trace_parse(const char *text, gsize len, const char *source,
                    TraceHeader *hdr, GError **errp);
GArray *trace_load(const char *path, TraceHeader *hdr, GError **errp);
/* "SRC:LINE: the trace was recorded on another device: KEY=V (this device:
 * W), ..." when the header's device line disagrees with `dev`, else NULL.
 * Caller frees. */
char *trace_device_mismatch(const TraceHeader *hdr, const char *src,
                            const HwmTraceDevice *dev);
/* For --verify: every request must have a recorded completion (a trace that
 * records none, or only some, would leave requests unchecked). */
bool trace_check_verifiable(const GArray *reqs, const char *source,
                            GError **errp);

/* Write the same format: a header, then the lines hw-model's
 * HwmTraceOrder gives (requests, power cuts). */
void trace_write_header(FILE *f, const HwmTraceDevice *dev);
void trace_write_text(FILE *f, const GString *s);

#endif
