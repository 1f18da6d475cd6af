/*
 * hddmodel: trace=FILE, the request trace in platter-trace format
 * (hw-model's writer), one line per command in the order the model took
 * them, and one per power cut.
 *
 * Owns s->trace, s->trace_text and s->trace_order (req->trace_seq is set
 * by the request path when the model takes a command).  Makes no state
 * transitions.
 *
 * Copyright (C) 2026 the platter authors.
 *
 * This work is licensed under the terms of the GNU GPL, version 2 or later.
 * See the COPYING file in the top-level directory.
 */

#include "qemu/osdep.h"
#include "qemu/error-report.h"
#include "qapi/error.h"
#include "block/block-io.h"
#include "block/block_int.h"

#include "hddmodel.h"

/* The platter-trace text (hw-model's writer) goes out line by line. */
static void hdd_trace_flush(BDRVHddState *s)
{
    fputs(s->trace_text->str, s->trace);
    g_string_truncate(s->trace_text, 0);
}

/*
 * A command's line waits for those the model got before it: a replay
 * submits the lines of one instant in file order, and commands of one
 * instant do not commute (overlapping writes).
 */
void hdd_trace_line(BDRVHddState *s, HddReq *req, const HwmEvent *ev)
{
    if (!s->trace) {
        return;
    }
    hwm_trace_order_completed(s->trace_order, req->trace_seq, ev,
                              s->trace_text);
    hdd_trace_flush(s);
}

/*
 * The trace goes to a regular file only: a FIFO without a reader would
 * block QEMU in open(), a device such as /dev/full would fail every write.
 * Opened without blocking, then checked, so a FIFO is never waited on.
 */
bool hdd_open_trace(BDRVHddState *s, const char *path, Error **errp)
{
    HwmTraceDevice d = hwm_trace_device(s->profile, s->dev);
    struct stat st;
    int fd;

    fd = open(path, O_WRONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0666);
    if (fd < 0 && errno == ENXIO) {
        /* a FIFO without a reader: O_NONBLOCK makes open() fail so */
        error_setg(errp, "hddmodel: trace file '%s' is not a regular file "
                   "(a FIFO): refused", path);
        return false;
    }
    if (fd < 0) {
        error_setg_errno(errp, errno, "hddmodel: cannot open trace file '%s'",
                         path);
        return false;
    }
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || ftruncate(fd, 0) < 0) {
        error_setg(errp, "hddmodel: trace file '%s' is not a regular file "
                   "that can be written: refused", path);
        close(fd);
        return false;
    }
    s->trace = fdopen(fd, "w");
    if (!s->trace) {
        error_setg_errno(errp, errno, "hddmodel: cannot open trace file '%s'",
                         path);
        close(fd);
        return false;
    }
    s->trace_text = g_string_new(NULL);
    s->trace_order = hwm_trace_order_new();
    hwm_trace_append_header(s->trace_text, &d);
    hdd_trace_flush(s);
    return true;
}

/* The cut's line: it goes out at once, with what came before it. */
void hdd_trace_power_cut(BDRVHddState *s, uint64_t lost_bytes)
{
    if (!s->trace) {
        return;
    }
    hwm_trace_order_power_cut(s->trace_order, s->now, lost_bytes,
                              s->trace_text);
    hdd_trace_flush(s);
    fflush(s->trace);
}

void hdd_close_trace(BDRVHddState *s)
{
    if (s->trace) {
        /* the trace is a result: one cut short must not pass silently */
        if (ferror(s->trace) | fclose(s->trace)) {
            error_report("hddmodel: %s: writing the trace file failed",
                         bdrv_get_node_name(s->bs));
        }
        s->trace = NULL;
    }
    if (s->trace_text) {
        g_string_free(s->trace_text, true);
        s->trace_text = NULL;
    }
    g_clear_pointer(&s->trace_order, hwm_trace_order_free);
}
