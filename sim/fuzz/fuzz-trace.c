/* Fuzz target: the trace parsers (platter-trace v1 and blkparse text).  Any
 * input gives requests or an error with a message; requests are well formed
 * in time order, at times the model accepts (HWM_TIME_MAX). */
#include <stdlib.h>

#include "trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    GError *err = NULL;
    g_auto(TraceHeader) hdr = { 0 };
    GArray *reqs = trace_parse((const char *)data, size, "fuzz", &hdr, &err);

    if (!reqs) {
        if (!err || !err->message[0]) {
            abort();
        }
        g_error_free(err);
        return 0;
    }
    hwm_ns last = 0;
    for (guint i = 0; i < reqs->len; i++) {
        const TraceReq *r = &g_array_index(reqs, TraceReq, i);
        /* times within the model's range: replay cannot overflow them */
        if (r->submit_ns < last || r->submit_ns > HWM_TIME_MAX ||
            r->req.op > HWM_OP_DISCARD ||
            (r->req.op == HWM_OP_FLUSH && r->req.length != 0)) {
            abort();
        }
        last = r->submit_ns;
    }
    g_array_unref(reqs);
    return 0;
}
