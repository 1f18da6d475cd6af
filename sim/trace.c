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

/* key appears more than once in a comment: `# power-cut at=100 at=200`
 * is refused, not read as its first value */
static bool comment_repeats(const char *comment, const char *key)
{
    g_autofree char *first = comment_value(comment, key);
    const char *k = first ? strstr(comment, key) : NULL;
    while (k && k != comment && k[-1] != ' ' && k[-1] != '\t') {
        k = strstr(k + 1, key);
    }
    if (!k) {
        return false;
    }
    for (k = strstr(k + 1, key); k; k = strstr(k + 1, key)) {
        if (k[-1] == ' ' || k[-1] == '\t') {
            return true;
        }
    }
    return false;
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
    if (!hwm_trace_parse_op(f[1], &r->req.op)) {
        return fail(errp, src, line, "bad op (R, W, F or D)", f[1]);
    }
    if (!hwm_trace_parse_flags(f[4], &r->req.flags)) {
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

/* A comment that is a header line: "# platter-trace vN" must be line 1 and
 * name version 1; the line after it, when it starts "profile=", is the
 * device line.  Returns 1 for a header line (taken into `hdr`), 0 for
 * another comment, -1 on error. */
static int parse_header(char *comment, uint32_t ln, const char *src,
                        TraceHeader *hdr, GError **errp)
{
    size_t m = strlen(HWM_TRACE_MAGIC);
    g_autofree char *want = g_strdup_printf("v%d", HWM_TRACE_VERSION);

    if (g_str_has_prefix(comment, HWM_TRACE_MAGIC) &&
        (comment[m] == '\0' || g_ascii_isspace(comment[m]))) {
        g_autofree char *v = g_strstrip(g_strdup(comment + m));
        if (ln != 1) {
            fail(errp, src, ln, "the platter-trace header belongs on line 1",
                 comment);
            return -1;
        }
        if (strcmp(v, want) != 0) {
            g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID,
                        "%s:%u: platter-trace version '%s' is not one this "
                        "platter-sim reads (%s)", src, ln, *v ? v : "(none)",
                        want);
            return -1;
        }
        hdr->version = HWM_TRACE_VERSION;
        return 1;
    }
    if (ln != 2 || hdr->version == 0 || !g_str_has_prefix(comment, "profile=")) {
        return 0;
    }
    GError *local = NULL;
    hdr->text = g_strdup(comment);
    if (!hwm_trace_parse_device(hdr->text, &hdr->dev, &hdr->given, &local)) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID,
                    "%s:%u: trace header: %s", src, ln, local->message);
        g_error_free(local);
        return -1;
    }
    hdr->device_line = ln;
    return 1;
}

void trace_header_clear(TraceHeader *hdr)
{
    g_free(hdr->text);
    *hdr = (TraceHeader){ 0 };
}

char *trace_device_mismatch(const TraceHeader *hdr, const char *src,
                            const HwmTraceDevice *dev)
{
    g_autofree char *diff = hdr->device_line ?
        hwm_trace_device_diff(&hdr->dev, hdr->given, dev) : NULL;

    return diff ? g_strdup_printf("%s:%u: the trace was recorded on another "
                                  "device: %s", src, hdr->device_line, diff)
                : NULL;
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
                    TraceHeader *hdr, GError **errp)
{
    g_auto(TraceHeader) head = { 0 };
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
            char *comment = hash + 1;
            uint64_t v;
            *hash = '\0';
            if (l[strspn(l, " \t\r")] == '\0') {
                /* a comment line: a header line, a power cut, or nothing
                 * to replay */
                comment += strspn(comment, " \t");
                int h = parse_header(comment, ln, source, &head, errp);
                if (h < 0) {
                    return NULL;
                }
                if (h > 0) {
                    continue;
                }
                /* the first word names the line: power-cut exactly, or a
                 * comment (issue 39: `# Power-cut at=5` was taken as a
                 * comment, and the cut was lost) */
                size_t w = strcspn(comment, " \t\r");
                if (w != 9 || strncmp(comment, "power-cut", 9) != 0) {
                    if (g_ascii_strncasecmp(comment, "power-cut", 9) == 0 &&
                        w >= 9) {
                        fail(errp, source, ln, "a power cut is written "
                             "'# power-cut at=<ns>'", comment);
                        return NULL;
                    }
                    continue;
                }
                /* what the writer puts there (tracefmt.c): at= and lost=;
                 * any other word would be silently dropped */
                g_auto(GStrv) words = g_strsplit_set(comment + w, " \t\r", -1);
                for (char **wd = words; *wd; wd++) {
                    if (**wd && !g_str_has_prefix(*wd, "at=") &&
                        !g_str_has_prefix(*wd, "lost=")) {
                        fail(errp, source, ln, "a power cut takes at=<ns> and "
                             "lost=<bytes> only", *wd);
                        return NULL;
                    }
                }
                g_autofree char *at = comment_value(comment, "at=");
                if (comment_repeats(comment, "at=")) {
                    fail(errp, source, ln, "a power cut has one at=", comment);
                    return NULL;
                }
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
            if (comment_repeats(comment, "done=")) {
                fail(errp, source, ln, "a request has one done=", comment);
                return NULL;
            }
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
    if (hdr) {
        *hdr = head;
        head = (TraceHeader){ 0 };
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

GArray *trace_load(const char *path, TraceHeader *hdr, GError **errp)
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
    return trace_parse(text, len, path, hdr, errp);
}

/* The writers format with hw-model's, which the QEMU driver uses too. */
static void put(FILE *f, GString *s)
{
    fwrite(s->str, 1, s->len, f);
    g_string_free(s, TRUE);
}

void trace_write_header(FILE *f, const HwmTraceDevice *dev)
{
    GString *s = g_string_new(NULL);
    hwm_trace_append_header(s, dev);
    put(f, s);
}

void trace_write_text(FILE *f, const GString *s)
{
    fwrite(s->str, 1, s->len, f);
}
