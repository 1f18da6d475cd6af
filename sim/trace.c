#include <string.h>

#include "trace.h"
#include "units.h"

static bool fail(GError **errp, const char *src, uint32_t line,
                 const char *what, const char *text)
{
    g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID, "%s:%u: %s: '%s'", src,
                line, what, text);
    return false;
}

/* What trace numbers may be: times within the model's range (a later one
 * would overflow it, HWM_NEVER would mean "never"), byte counts whatever
 * fits (hwm_submit() checks them against the device), a recorded
 * completion any time the model can give. */
static const UnitsSpec spec_time = { "ns", 1, 0, HWM_TIME_MAX, false };
static const UnitsSpec spec_seconds = { "s", 1000000000ull, 0, HWM_TIME_MAX,
                                        false };
static const UnitsSpec spec_done = { "ns", 1, 0, INT64_MAX, false };
static const UnitsSpec spec_bytes = { "bytes", 1, 0, UINT64_MAX, false };
static const UnitsSpec spec_sectors = { "sectors", 1, 0,
                                        UINT64_MAX / HWM_SECTOR_BYTES, false };

/* A number field of line `line`: errors read "SRC:LINE: FIELD: ...". */
static bool field(const char *src, uint32_t line, const char *name,
                  const char *text, const UnitsSpec *u, uint64_t *out,
                  GError **errp)
{
    g_autofree char *what = g_strdup_printf("%s:%u: %s", src, line, name);
    return units_parse(what, text, u, out, errp);
}

/* The text after `key` in a comment, up to the next blank, when `key`
 * starts a word there; NULL when absent.  Caller frees. */
static char *comment_value(const char *comment, const char *key)
{
    size_t klen = strlen(key);
    for (const char *k = strstr(comment, key); k; k = strstr(k + 1, key)) {
        if (k == comment || k[-1] == ' ' || k[-1] == '\t') {
            return g_strndup(k + klen, strcspn(k + klen, " \t\r"));
        }
    }
    return NULL;
}

static bool parse_native(char **f, guint n, TraceReq *r, const char *src,
                         uint32_t line, GError **errp)
{
    uint64_t t, off, len;

    if (n != 5) {
        return fail(errp, src, line, "expected 5 fields: submit_ns op "
                    "offset length flags", f[0]);
    }
    if (!field(src, line, "submit time", f[0], &spec_time, &t, errp) ||
        !field(src, line, "offset", f[2], &spec_bytes, &off, errp) ||
        !field(src, line, "length", f[3], &spec_bytes, &len, errp)) {
        return false;
    }
    r->submit_ns = (hwm_ns)t;
    r->req.offset = off;
    r->req.length = len;
    if (!strcmp(f[1], "R")) {
        r->req.op = HWM_OP_READ;
    } else if (!strcmp(f[1], "W")) {
        r->req.op = HWM_OP_WRITE;
    } else if (!strcmp(f[1], "F")) {
        r->req.op = HWM_OP_FLUSH;
    } else if (!strcmp(f[1], "D")) {
        r->req.op = HWM_OP_DISCARD;
    } else {
        return fail(errp, src, line, "bad op (R, W, F or D)", f[1]);
    }
    if (!strcmp(f[4], "FUA")) {
        r->req.flags = HWM_REQ_FUA;
    } else if (strcmp(f[4], "-") != 0) {
        return fail(errp, src, line, "bad flags (- or FUA)", f[4]);
    }
    if (r->req.op == HWM_OP_FLUSH && (off || len || r->req.flags)) {
        return fail(errp, src, line, "a flush takes offset 0, length 0 and "
                    "flags -", f[0]);
    }
    return true;
}

/* Returns 1 with up to two requests (preflush + op), 0 for a line to skip,
 * -1 on error. */
static int parse_blkparse(char **f, guint n, TraceReq out[2], const char *src,
                          uint32_t line, GError **errp)
{
    hwm_ns t;
    uint64_t sector = 0, nsect = 0;

    if (n < 7 || !strchr(f[0], ',')) {
        fail(errp, src, line, "not a blkparse event line", f[0]);
        return -1;
    }
    if (strcmp(f[5], "Q") != 0) {
        return 0;               /* only queue events are requests */
    }
    uint64_t secs;
    if (!field(src, line, "time", f[3], &spec_seconds, &secs, errp)) {
        return -1;
    }
    t = (hwm_ns)secs;
    const char *rwbs = f[6];
    bool preflush = rwbs[0] == 'F';
    const char *op = preflush ? rwbs + 1 : rwbs;
    HwmOp hop;
    switch (op[0]) {
    case 'R': hop = HWM_OP_READ; break;
    case 'W': hop = HWM_OP_WRITE; break;
    case 'D': hop = HWM_OP_DISCARD; break;
    case 'N': case '\0': hop = HWM_OP_FLUSH; break;
    default:
        fail(errp, src, line, "bad RWBS field", rwbs);
        return -1;
    }
    bool fua = op[0] != '\0' && op[1] == 'F';
    if (hop != HWM_OP_FLUSH) {
        if (n < 10 || strcmp(f[8], "+") != 0) {
            fail(errp, src, line, "expected '<sector> + <count>'",
                 n > 7 ? f[7] : rwbs);
            return -1;
        }
        if (!field(src, line, "sector", f[7], &spec_sectors, &sector, errp) ||
            !field(src, line, "sector count", f[9], &spec_sectors, &nsect,
                   errp)) {
            return -1;
        }
    } else {
        preflush = false;
    }
    int k = 0;
    if (preflush) {
        out[k++] = (TraceReq){ .submit_ns = t, .line = line,
                               .req = { .op = HWM_OP_FLUSH } };
    }
    out[k++] = (TraceReq){ .submit_ns = t, .line = line,
                           .req = { .op = hop,
                                    .flags = fua && hop == HWM_OP_WRITE ?
                                             HWM_REQ_FUA : 0,
                                    .offset = sector * HWM_SECTOR_BYTES,
                                    .length = nsect * HWM_SECTOR_BYTES } };
    return k;
}

static gint by_submit(gconstpointer a, gconstpointer b)
{
    const TraceReq *x = a, *y = b;
    if (x->submit_ns != y->submit_ns) {
        return x->submit_ns < y->submit_ns ? -1 : 1;
    }
    return x->line < y->line ? -1 : x->line > y->line;
}

GArray *trace_parse(const char *text, gsize len, const char *source,
                    GError **errp)
{
    g_autoptr(GArray) reqs = g_array_new(FALSE, FALSE, sizeof(TraceReq));
    g_autofree char *copy = g_strndup(text, len);
    g_auto(GStrv) lines = g_strsplit(copy, "\n", -1);
    int format = 0;             /* 0 unknown, 1 native, 2 blkparse */

    if (memchr(text, '\0', len)) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID,
                    "%s: contains a NUL byte: not a text trace", source);
        return NULL;
    }
    for (uint32_t i = 0; lines[i]; i++) {
        uint32_t ln = i + 1;
        char *l = lines[i];
        char *hash = format == 2 ? NULL : strchr(l, '#');
        hwm_ns done = -1;
        if (hash) {
            const char *comment = hash + 1;
            uint64_t v;
            *hash = '\0';
            if (l[strspn(l, " \t\r")] == '\0') {
                /* a comment line: a power cut, or nothing to replay */
                comment += strspn(comment, " \t");
                if (!g_str_has_prefix(comment, "power-cut")) {
                    continue;
                }
                g_autofree char *at = comment_value(comment, "at=");
                if (!at) {
                    fail(errp, source, ln, "a power cut needs at=<ns>",
                         comment);
                    return NULL;
                }
                if (!field(source, ln, "power-cut time", at, &spec_time, &v,
                           errp)) {
                    return NULL;
                }
                TraceReq pc = { .submit_ns = (hwm_ns)v, .line = ln,
                                .power_cut = true, .expect_done_ns = -1 };
                g_array_append_val(reqs, pc);
                continue;
            }
            /* a recorded completion is checked by --verify: a garbled one
             * is an error, never silently unchecked */
            g_autofree char *d = comment_value(comment, "done=");
            if (d) {
                if (!field(source, ln, "done time", d, &spec_done, &v, errp)) {
                    return NULL;
                }
                done = (hwm_ns)v;
            }
        }
        g_strstrip(l);
        if (!*l) {
            continue;
        }
        g_auto(GStrv) f = g_strsplit_set(l, " \t", -1);
        guint n = 0;
        for (guint j = 0; f[j]; j++) {
            if (*f[j]) {
                f[n++] = f[j];
            } else {
                g_free(f[j]);
            }
        }
        f[n] = NULL;
        if (format == 0) {
            format = strchr(f[0], ',') ? 2 : 1;
        }
        TraceReq r[2] = { { .expect_done_ns = -1 }, { .expect_done_ns = -1 } };
        int k;
        if (format == 1) {
            r[0].line = ln;
            r[0].expect_done_ns = done;
            k = parse_native(f, n, &r[0], source, ln, errp) ? 1 : -1;
        } else {
            if (strstr(l, "CPU") == l || strstr(l, "Total") == l) {
                break;          /* blkparse's closing summary */
            }
            k = parse_blkparse(f, n, r, source, ln, errp);
        }
        if (k < 0) {
            return NULL;
        }
        for (int j = 0; j < k; j++) {
            g_array_append_val(reqs, r[j]);
        }
    }
    if (reqs->len == 0) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID,
                    "%s: no requests in trace", source);
        return NULL;
    }
    /* completion order in the file: replay in submit order (stable) */
    g_array_sort(reqs, by_submit);
    for (guint i = 0; i < reqs->len; i++) {
        g_array_index(reqs, TraceReq, i).req.tag = i;
    }
    return g_steal_pointer(&reqs);
}

bool trace_check_verifiable(const GArray *reqs, const char *source,
                            GError **errp)
{
    uint32_t requests = 0, recorded = 0, first_missing = 0;

    for (guint i = 0; i < reqs->len; i++) {
        const TraceReq *r = &g_array_index(reqs, TraceReq, i);
        if (r->power_cut) {
            continue;
        }
        requests++;
        if (r->expect_done_ns >= 0) {
            recorded++;
        } else if (first_missing == 0 || r->line < first_missing) {
            first_missing = r->line;
        }
    }
    if (recorded == 0) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID,
                    "--verify: %s records no completion (# done=<ns>): "
                    "nothing to check", source);
        return false;
    }
    if (recorded < requests) {
        /* a recorder writes every completion: lines without one were
         * added or edited, and would go unchecked */
        g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID,
                    "--verify: %u of %u requests in %s have no recorded "
                    "completion (# done=<ns>), first at %s:%u",
                    requests - recorded, requests, source, source,
                    first_missing);
        return false;
    }
    return true;
}

GArray *trace_load(const char *path, GError **errp)
{
    g_autofree char *text = NULL;
    gsize len;
    GError *local = NULL;

    if (!hwm_read_file(path, TRACE_MAX_BYTES, &text, &len, &local)) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID, "trace: %s",
                    local->message);
        g_error_free(local);
        return NULL;
    }
    return trace_parse(text, len, path, errp);
}

void trace_write_header(FILE *f, const char *profile)
{
    fprintf(f, "# platter-trace v1\n# profile=%s\n", profile);
}

void trace_write_completion(FILE *f, const HwmEvent *e)
{
    static const char ops[] = { 'R', 'W', 'F', 'D' };
    fprintf(f, "%" G_GINT64_FORMAT " %c %" G_GUINT64_FORMAT " %"
            G_GUINT64_FORMAT " %s # done=%" G_GINT64_FORMAT "\n", e->submit_ns,
            ops[e->op], e->offset, e->length,
            (e->flags & HWM_REQ_FUA) ? "FUA" : "-", e->time_ns);
}

void trace_write_power_cut(FILE *f, hwm_ns at, uint64_t lost_bytes)
{
    fprintf(f, "# power-cut at=%" G_GINT64_FORMAT " lost=%" G_GUINT64_FORMAT
            "\n", at, lost_bytes);
}
