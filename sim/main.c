/*
 * platter-sim: drive the hw-model device with a synthetic workload or a
 * trace on a virtual clock, and report like fio.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime: host CPU time, reported apart */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "platter-version.h"
#include "report.h"
#include "timeline.h"
#include "trace.h"
#include "units.h"
#include "workload.h"

/* Every option is text until units_parse() reads it, so all numbers get
 * the same checks and messages, and NULL means "not given". */
typedef struct {
    char *profile, *profile_dir, *workload, *pattern, *policy, *bs, *span,
         *offset, *runtime, *trace, *host_us, *write_cache, *fua,
         *queue_policy, *trace_out, *jobs, *queue_depth, *explain,
         *flush_queues, *seed, *rw, *rwmixread, *iodepth, *numjobs, *size,
         *fsync, *thinktime, *timeline, *timeline_count, *timeline_from;
    char *command;          /* the command line, for --timeline's caption */
    gboolean json, flush_share, xfs_log, dump_profile, verify, closed_loop, version;
} Opts;

#define NS_PER_S 1000000000ull
static const UnitsSpec spec_size = { "bytes", 1, 0, UINT64_MAX, true };
static const UnitsSpec spec_runtime = { "s", NS_PER_S, 1, 100000 * NS_PER_S,
                                        false };
static const UnitsSpec spec_host_us = { "us", 1000, 0, NS_PER_S, false };
static const UnitsSpec spec_jobs = { NULL, 1, 1, 4096, false };
static const UnitsSpec spec_flush_queues = { NULL, 1, 0, 4096, false };
static const UnitsSpec spec_queue_depth = { NULL, 1, 1, 65536, false };
static const UnitsSpec spec_explain = { NULL, 1, 0, UINT32_MAX, false };
static const UnitsSpec spec_seed = { NULL, 1, 0, UINT64_MAX, false };
static const UnitsSpec spec_percent = { NULL, 1, 0, 100, false };
static const UnitsSpec spec_iodepth = { NULL, 1, 1, 65536, false };
static const UnitsSpec spec_fsync = { NULL, 1, 0, UINT32_MAX, false };
static const UnitsSpec spec_thinktime = { "us", 1000, 0, 3600 * NS_PER_S,
                                          false };
/* fio keeps a slot per I/O in flight: numjobs x iodepth of them at most */
#define FIO_MAX_SLOTS (1u << 20)

/* An option's number, or `dflt` when it was not given. */
static bool num_opt(const char *name, const char *v, const UnitsSpec *u,
                    uint64_t dflt, uint64_t *out, GError **errp)
{
    g_autofree char *what = g_strdup_printf("--%s", name);
    if (!v) {
        *out = dflt;
        return true;
    }
    return units_parse(what, v, u, out, errp);
}

/* Set an option error and return false, so checks read as one line. */
G_GNUC_PRINTF(2, 3)
static bool bad(GError **errp, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    g_autofree char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error_literal(errp, HWM_ERROR, HWM_ERROR_INVALID, msg);
    return false;
}

static bool on_off(const char *name, const char *v, HwmTristate *out,
                   GError **errp)
{
    if (!v) {
        *out = HWM_TRISTATE_PROFILE;
    } else if (!strcmp(v, "on")) {
        *out = HWM_ON;
    } else if (!strcmp(v, "off")) {
        *out = HWM_OFF;
    } else {
        return bad(errp, "--%s: expected on or off, got '%s'", name, v);
    }
    return true;
}

/*
 * Options that do something only for some workloads.  One given where it
 * does nothing is an error, not silently ignored: "--xfs-log" with dsync
 * would otherwise read as a result for xfs.  W_DUMP: --dump-profile, which
 * prints the profile file and takes none of them.
 */
enum {
    W_DSYNC = 1 << WL_DSYNC,
    W_FSYNC = 1 << WL_FSYNC_APPEND,
    W_REPLAY = 1 << WL_REPLAY,
    W_FIO = 1 << WL_FIO,
    W_ALL = W_DSYNC | W_FSYNC | W_REPLAY | W_FIO,
    W_DUMP = 1 << WL_COUNT,
};
static const struct {
    const char *name;
    size_t offset;          /* in Opts: a char * or, when flag, a gboolean */
    bool flag;
    unsigned applies;       /* W_* */
} scoped[] = {
#define STR(o, f, w) { o, offsetof(Opts, f), false, w }
#define FLAG(o, f, w) { o, offsetof(Opts, f), true, w }
    STR("workload", workload, W_ALL),
    STR("pattern", pattern, W_DSYNC),
    STR("policy", policy, W_DSYNC),
    STR("seed", seed, W_DSYNC | W_FIO),
    STR("bs", bs, W_DSYNC | W_FSYNC | W_FIO),
    STR("span", span, W_DSYNC | W_FSYNC),
    STR("offset", offset, W_DSYNC | W_FSYNC | W_FIO),
    STR("jobs", jobs, W_DSYNC | W_FSYNC),
    STR("runtime", runtime, W_DSYNC | W_FSYNC | W_FIO),
    STR("host-us", host_us, W_DSYNC | W_FSYNC),
    STR("rw", rw, W_FIO),
    STR("rwmixread", rwmixread, W_FIO),
    STR("iodepth", iodepth, W_FIO | W_REPLAY),
    STR("numjobs", numjobs, W_FIO),
    STR("size", size, W_FIO),
    STR("fsync", fsync, W_FIO),
    STR("thinktime", thinktime, W_FIO),
    FLAG("closed-loop", closed_loop, W_REPLAY),
    FLAG("flush-share", flush_share, W_FSYNC),
    FLAG("xfs-log", xfs_log, W_FSYNC),
    STR("flush-queues", flush_queues, W_FSYNC),
    STR("trace", trace, W_REPLAY),
    FLAG("verify", verify, W_REPLAY),
    STR("trace-out", trace_out, W_ALL),
    STR("explain", explain, W_ALL),
    STR("timeline", timeline, W_ALL),
    STR("timeline-count", timeline_count, W_ALL),
    STR("timeline-from", timeline_from, W_ALL),
    FLAG("json", json, W_ALL),
    STR("write-cache", write_cache, W_ALL),
    STR("fua", fua, W_ALL),
    STR("queue-depth", queue_depth, W_ALL),
    STR("queue-policy", queue_policy, W_ALL),
#undef STR
#undef FLAG
};

/* Refuse an option given that does nothing for `mode` (a W_* bit). */
static bool check_scope(const Opts *o, unsigned mode, const char *mode_name,
                        GError **errp)
{
    for (size_t i = 0; i < G_N_ELEMENTS(scoped); i++) {
        const char *at = (const char *)o + scoped[i].offset;
        bool given = scoped[i].flag ? *(const gboolean *)at != FALSE
                                    : *(char *const *)at != NULL;
        if (!given || (scoped[i].applies & mode)) {
            continue;
        }
        g_autoptr(GString) to = g_string_new(NULL);
        for (size_t w = 0; w < WL_COUNT; w++) {
            if (scoped[i].applies & (1u << w)) {
                g_string_append_printf(to, "%s%s", to->len ? ", " : "",
                                       workload_name((WorkloadKind)w));
            }
        }
        return bad(errp, "--%s does nothing with %s (it applies to "
                   "--workload %s)", scoped[i].name, mode_name, to->str);
    }
    return true;
}

/* fio's own options, and replay --closed-loop's --iodepth */
static bool fio_params(const Opts *o, SimParams *p, GError **errp)
{
    uint64_t v;

    if (!num_opt("iodepth", o->iodepth, &spec_iodepth, 1, &v, errp)) {
        return false;
    }
    p->iodepth = (uint32_t)v;
    if (p->kind != WL_FIO) {
        return true;
    }
    const char *rw = o->rw ? o->rw : "read";
    if (!fio_rw_parse(rw, &p->rw)) {
        return bad(errp, "--rw: unknown '%s' (read, write, randread, "
                   "randwrite, randrw)", rw);
    }
    p->random = p->rw == RW_RANDREAD || p->rw == RW_RANDWRITE ||
                p->rw == RW_RANDRW;
    if (o->rwmixread && p->rw != RW_RANDRW) {
        return bad(errp, "--rwmixread does nothing with --rw %s (it is "
                   "randrw's share of reads)", rw);
    }
    if (!num_opt("rwmixread", o->rwmixread, &spec_percent, 50, &v, errp)) {
        return false;
    }
    p->rwmixread = (uint32_t)v;
    if (!num_opt("fsync", o->fsync, &spec_fsync, 0, &p->fsync_every, errp) ||
        !num_opt("thinktime", o->thinktime, &spec_thinktime, 0, &v, errp)) {
        return false;
    }
    p->thinktime_ns = (hwm_ns)v;
    if (p->fsync_every > 0 && (p->rw == RW_READ || p->rw == RW_RANDREAD)) {
        return bad(errp, "--fsync does nothing with --rw %s (it counts "
                   "writes)", rw);
    }
    return true;
}

static bool build_params(const Opts *o, SimParams *p, HwmConfig *cfg,
                         GError **errp)
{
    uint64_t v;

    memset(p, 0, sizeof *p);
    const char *workload = o->workload ? o->workload : "dsync";
    if (!workload_parse(workload, &p->kind)) {
        return bad(errp, "--workload: unknown '%s' (dsync, fsync-append, "
                         "replay, fio)", workload);
    }
    g_autofree char *mode = g_strdup_printf("--workload %s", workload);
    if (!check_scope(o, 1u << p->kind, mode, errp) ||
        !fio_params(o, p, errp)) {
        return false;
    }
    const char *policy = o->policy ? o->policy : "fua+flush";
    if (!policy_parse(policy, &p->policy)) {
        return bad(errp, "--policy: unknown '%s' (fua+flush, fua, "
                         "write+flush, fua-emulated, write)", policy);
    }
    if (o->pattern && !strcmp(o->pattern, "rand")) {
        p->random = true;
    } else if (o->pattern && strcmp(o->pattern, "seq") != 0) {
        return bad(errp, "--pattern: unknown '%s' (seq, rand)", o->pattern);
    }
    if (o->seed && !p->random) {
        return bad(errp, "--seed does nothing without %s (it seeds the "
                   "random offsets)", p->kind == WL_FIO ?
                   "a random --rw (randread, randwrite, randrw)" :
                   "--pattern rand");
    }
    uint64_t jobs, flush_queues, explain;
    if (!num_opt("bs", o->bs, &spec_size, 4096, &p->bs_bytes, errp) ||
        !num_opt(p->kind == WL_FIO ? "size" : "span",
                 p->kind == WL_FIO ? o->size : o->span, &spec_size,
                 p->kind == WL_FIO ? 0 : 100ull << 30, &p->span_bytes,
                 errp) ||
        !num_opt("offset", o->offset, &spec_size, 0, &p->offset_bytes, errp) ||
        !num_opt(p->kind == WL_FIO ? "numjobs" : "jobs",
                 p->kind == WL_FIO ? o->numjobs : o->jobs, &spec_jobs, 1,
                 &jobs, errp) ||
        !num_opt("runtime", o->runtime, &spec_runtime, 60 * NS_PER_S, &v,
                 errp)) {
        return false;
    }
    p->runtime_ns = (hwm_ns)v;
    p->jobs = (uint32_t)jobs;
    if (p->bs_bytes == 0 || p->bs_bytes % HWM_SECTOR_BYTES) {
        return bad(errp, "--bs: %" G_GUINT64_FORMAT " is not a positive "
                         "multiple of %u", p->bs_bytes, HWM_SECTOR_BYTES);
    }
    if (p->offset_bytes % p->bs_bytes) {
        return bad(errp, "--offset: must be a multiple of --bs");
    }
    if (p->kind == WL_FIO && p->span_bytes % p->bs_bytes) {
        return bad(errp, "--size: must be a multiple of --bs");
    }
    if (p->kind != WL_FIO && p->span_bytes / p->bs_bytes < p->jobs) {
        return bad(errp, "--span: too small for %u jobs of --bs %"
                         G_GUINT64_FORMAT, p->jobs, p->bs_bytes);
    }
    if (!num_opt("host-us", o->host_us, &spec_host_us, 10000, &v, errp) ||
        !num_opt("flush-queues", o->flush_queues, &spec_flush_queues, 0,
                 &flush_queues, errp) ||
        !num_opt("seed", o->seed, &spec_seed, 1, &p->seed, errp) ||
        !num_opt("explain", o->explain, &spec_explain, 0, &explain, errp)) {
        return false;
    }
    p->host_cmd_ns = (hwm_ns)v;
    p->flush_share = o->flush_share;
    p->xfs_log = o->xfs_log;
    p->flush_queues = (uint32_t)flush_queues;
    p->explain = (uint32_t)explain;

    memset(cfg, 0, sizeof *cfg);
    if (!on_off("write-cache", o->write_cache, &cfg->write_cache, errp) ||
        !on_off("fua", o->fua, &cfg->fua, errp)) {
        return false;
    }
    /* 0: the profile's */
    if (!num_opt("queue-depth", o->queue_depth, &spec_queue_depth, 0, &v,
                 errp)) {
        return false;
    }
    cfg->queue_depth = (uint32_t)v;
    if (o->queue_policy) {
        if (!strcmp(o->queue_policy, "fifo")) {
            cfg->policy = HWM_POLICY_FIFO;
        } else if (!strcmp(o->queue_policy, "sptf")) {
            cfg->policy = HWM_POLICY_SPTF;
        } else {
            return bad(errp, "--queue-policy: unknown '%s' (fifo, sptf)",
                             o->queue_policy);
        }
    }
    if (p->kind == WL_REPLAY && !o->trace) {
        return bad(errp, "--workload replay needs --trace FILE");
    }
    if (p->kind == WL_REPLAY && o->iodepth && !o->closed_loop) {
        return bad(errp, "--iodepth does nothing with an open-loop replay "
                   "(it is --closed-loop's number of requests in flight)");
    }
    if (o->closed_loop && o->verify) {
        return bad(errp, "--verify with --closed-loop: a closed-loop replay "
                   "does not keep the recorded times it would check");
    }
    p->closed_loop = o->closed_loop;
    if (p->kind == WL_FIO && (uint64_t)p->iodepth * p->jobs > FIO_MAX_SLOTS) {
        return bad(errp, "--numjobs x --iodepth: %u x %u is more than %u "
                   "I/Os in flight", p->jobs, p->iodepth, FIO_MAX_SLOTS);
    }
    return true;
}

/*
 * Output that appears only when the run succeeds, so an error leaves no
 * partial timeline and no partial trace file: --explain's timeline is
 * spooled to an unnamed temporary file and copied out at the end;
 * --trace-out is written to a temporary file beside its target and renamed
 * over it.
 */
typedef struct {
    FILE *explain;          /* the spool, or NULL */
    FILE *trace;            /* the temporary trace, or NULL */
    char *trace_tmp;        /* its name */
} Pending;

static bool pending_open(Pending *pd, const Opts *o, bool explain,
                         GError **errp)
{
    struct stat st;

    if (explain && !(pd->explain = tmpfile())) {
        return bad(errp, "--explain: cannot create a temporary file: %s",
                   g_strerror(errno));
    }
    if (!o->trace_out) {
        return true;
    }
    /* renaming over a device or FIFO would replace it, not write to it */
    if (stat(o->trace_out, &st) == 0 && !S_ISREG(st.st_mode)) {
        return bad(errp, "--trace-out: %s exists and is not a regular file",
                   o->trace_out);
    }
    pd->trace_tmp = g_strdup_printf("%s.XXXXXX", o->trace_out);
    int fd = g_mkstemp(pd->trace_tmp);
    if (fd < 0) {
        g_clear_pointer(&pd->trace_tmp, g_free);
        return bad(errp, "--trace-out: cannot write %s: %s", o->trace_out,
                   g_strerror(errno));
    }
    if (!(pd->trace = fdopen(fd, "w"))) {
        close(fd);
        return bad(errp, "--trace-out: cannot write %s: %s", o->trace_out,
                   g_strerror(errno));
    }
    return true;
}

static bool pending_commit(Pending *pd, const Opts *o, FILE *explain_to,
                           GError **errp)
{
    if (pd->trace) {
        FILE *f = g_steal_pointer(&pd->trace);
        bool written = !ferror(f);
        if (fclose(f) != 0 || !written) {
            return bad(errp, "--trace-out: writing %s failed: %s",
                       pd->trace_tmp, g_strerror(errno));
        }
        if (rename(pd->trace_tmp, o->trace_out) != 0) {
            return bad(errp, "--trace-out: cannot rename %s to %s: %s",
                       pd->trace_tmp, o->trace_out, g_strerror(errno));
        }
        g_clear_pointer(&pd->trace_tmp, g_free);
    }
    if (pd->explain) {
        char buf[65536];
        size_t n;
        rewind(pd->explain);
        while ((n = fread(buf, 1, sizeof buf, pd->explain)) > 0) {
            fwrite(buf, 1, n, explain_to);
        }
    }
    return true;
}

/* Close whatever is open, remove the temporary trace. */
static void pending_discard(Pending *pd)
{
    if (pd->explain) {
        fclose(pd->explain);
    }
    if (pd->trace) {
        fclose(pd->trace);
    }
    if (pd->trace_tmp) {
        unlink(pd->trace_tmp);
        g_free(pd->trace_tmp);
    }
    *pd = (Pending){ 0 };
}

/* --verify's verdict; a report of a failed check is not a result */
static bool verified(const Opts *o, const SimResult *r, GError **errp)
{
    if (!o->verify || r->replay_mismatches == 0) {
        return true;
    }
    return bad(errp, "--verify: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
               " completions differ from the trace (first at %s:%u)",
               r->replay_mismatches, r->replay_checked, o->trace,
               r->replay_first_mismatch_line);
}

static uint64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int run(Opts *o, GError **errp)
{
    SimParams p;
    HwmConfig cfg;
    SimResult r;
    g_autoptr(GArray) trace = NULL;
    uint64_t cpu0 = cpu_ns();

    if (!o->profile) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID,
                    "--profile is required (a name from %s, or a file)",
                    o->profile_dir);
        return 2;
    }
    g_autoptr(HwmProfile) prof = hwm_profile_load(o->profile, o->profile_dir,
                                                  errp);
    if (!prof) {
        return 2;
    }
    if (o->dump_profile) {
        if (!check_scope(o, W_DUMP, "--dump-profile", errp)) {
            return 2;
        }
        g_autofree char *dump = hwm_profile_dump(prof);
        fputs(dump, stdout);
        return 0;
    }
    if (!build_params(o, &p, &cfg, errp)) {
        return 2;
    }
    g_autoptr(HwmDevice) dev = hwm_device_new(prof, &cfg, errp);
    if (!dev) {
        return 2;
    }
    uint64_t cap = hwm_device_capacity_bytes(dev);
    if (p.kind == WL_FIO && !o->size && p.offset_bytes < cap) {
        /* fio on a block device: to its end */
        p.span_bytes = (cap - p.offset_bytes) / p.bs_bytes * p.bs_bytes;
    }
    if (p.kind == WL_FIO && p.span_bytes == 0 && p.offset_bytes < cap) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_RANGE, "%s: no whole --bs "
                    "(%" G_GUINT64_FORMAT " bytes) fits there", o->size ?
                    "--size" : "--offset", p.bs_bytes);
        return 2;
    }
    if (p.kind != WL_REPLAY &&
        (p.offset_bytes > cap || p.span_bytes > cap - p.offset_bytes)) {
        /* the two apart: their sum may not fit in 64 bits */
        g_set_error(errp, HWM_ERROR, HWM_ERROR_RANGE,
                    "--offset (%" G_GUINT64_FORMAT " bytes) + --%s (%"
                    G_GUINT64_FORMAT " bytes) is past the device end (%"
                    G_GUINT64_FORMAT " bytes)", p.offset_bytes,
                    p.kind == WL_FIO ? "size" : "span", p.span_bytes, cap);
        return 2;
    }
    if (p.kind == WL_FSYNC_APPEND && p.xfs_log &&
        cap - p.offset_bytes - p.span_bytes < p.bs_bytes) {
        /* fsync.c puts the log's blocks after the span */
        g_set_error(errp, HWM_ERROR, HWM_ERROR_RANGE,
                    "--xfs-log: the log goes after --offset + --span and "
                    "needs at least --bs (%" G_GUINT64_FORMAT " bytes) there, "
                    "but they end %" G_GUINT64_FORMAT " bytes before the "
                    "device end (%" G_GUINT64_FORMAT " bytes): make --span "
                    "smaller", p.bs_bytes,
                    cap - p.offset_bytes - p.span_bytes, cap);
        return 2;
    }
    if (!hwm_device_write_cache(dev) && p.kind == WL_DSYNC &&
        p.policy != POL_WRITE) {
        /* Linux on a device without a volatile write cache: FUA needs a
         * write cache (blk_validate_limits() clears BLK_FEAT_FUA), and
         * submit_bio_noacct() strips PREFLUSH and FUA and completes an
         * empty flush at once: every policy sends plain WRITEs */
        fprintf(stderr, "platter-sim: write cache off: the block layer "
                "strips FLUSH and FUA for a write-through device; --policy "
                "%s runs as write\n", policy_name(p.policy));
        p.policy = POL_WRITE;
    }
    if (!hwm_device_write_cache(dev) && p.kind == WL_FSYNC_APPEND) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID,
                    "--workload fsync-append with the write cache off: Linux "
                    "completes a write-through device's flushes without "
                    "sending them, which this workload does not model yet "
                    "(use dsync or replay)");
        return 2;
    }
    if (!hwm_device_write_cache(dev) && p.kind == WL_FIO &&
        p.fsync_every > 0) {
        fprintf(stderr, "platter-sim: write cache off: the block layer "
                "completes a write-through device's flushes without sending "
                "them; --fsync's flushes are counted as skipped\n");
        p.strip_flush = true;
    }
    bool uses_fua = p.kind == WL_DSYNC &&
                    (p.policy == POL_FUA || p.policy == POL_FUA_FLUSH);
    if (uses_fua && !hwm_device_fua(dev)) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID,
                    "--policy %s sends FUA writes, but the device has no "
                    "native FUA (profile or --fua off): the kernel would use "
                    "write+flush or fua-emulated", policy_name(p.policy));
        return 2;
    }
    HwmTraceDevice desc = hwm_trace_device(prof, dev);
    if (p.kind == WL_REPLAY) {
        g_auto(TraceHeader) hdr = { 0 };
        trace = trace_load(o->trace, &hdr, errp);
        if (!trace) {
            return 2;
        }
        if (o->verify && !trace_check_verifiable(trace, o->trace, errp)) {
            return 2;
        }
        /* replaying a workload on another drive is what replay is for;
         * verifying it there cannot pass */
        g_autofree char *other = trace_device_mismatch(&hdr, o->trace, &desc);
        if (other && o->verify) {
            g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID, "--verify: %s",
                        other);
            return 2;
        }
        if (other) {
            fprintf(stderr, "platter-sim: warning: %s\n", other);
        }
        p.trace = trace;
        p.trace_name = o->trace;
    }
    g_autoptr(Timeline) tl = NULL;
    if ((o->timeline || o->timeline_count || o->timeline_from) &&
        !(tl = timeline_open(o->timeline, o->timeline_count,
                             o->timeline_from, o->command, errp))) {
        return 2;
    }
    p.timeline = tl;
    Pending out = { 0 };
    if (!pending_open(&out, o, p.explain > 0, errp)) {
        pending_discard(&out);
        return 2;
    }
    p.explain_out = out.explain;
    p.trace_out = out.trace;
    if (p.trace_out) {
        trace_write_header(p.trace_out, &desc);
    }
    if (!sim_run(dev, &p, &r, errp) || !verified(o, &r, errp) ||
        (tl && !timeline_render(tl, dev, errp)) ||
        !pending_commit(&out, o, o->json ? stderr : stdout, errp) ||
        (tl && !timeline_commit(tl, errp))) {
        pending_discard(&out);
        return 1;
    }
    pending_discard(&out);
    ReportInfo info = {
        .profile = hwm_profile_name(prof),
        .workload = workload_name(p.kind),
        .policy = p.kind == WL_DSYNC ? policy_name(p.policy) : NULL,
        .pattern = p.kind == WL_DSYNC ? (p.random ? "rand" : "seq") : NULL,
        .write_cache = hwm_device_write_cache(dev),
        .fua = hwm_device_fua(dev),
        .queue_depth = hwm_device_queue_depth(dev),
        .host_cpu_ns = cpu_ns() - cpu0,
    };
    if (o->json) {
        report_json(stdout, &p, &r, &info);
    } else {
        report_human(stdout, &p, &r, &info);
    }
    return 0;
}

/* The profile dir of an installed platter-sim: PLATTER_PROFILE_RELDIR from
 * the binary's own directory (any prefix, DESTDIR or a copied tree); the
 * source tree's when that is not there (a binary in the build dir). */
static char *default_profile_dir(void)
{
    g_autofree char *exe = g_file_read_link("/proc/self/exe", NULL);
    if (exe) {
        g_autofree char *bindir = g_path_get_dirname(exe);
        char *dir = g_build_filename(bindir, PLATTER_PROFILE_RELDIR, NULL);
        if (g_file_test(dir, G_FILE_TEST_IS_DIR)) {
            return dir;
        }
        g_free(dir);
    }
    return g_strdup(PLATTER_PROFILE_DIR);
}

static void set_default(char **opt, const char *value)
{
    if (!*opt) {
        *opt = g_strdup(value);
    }
}

int main(int argc, char **argv)
{
    /* string options start NULL: GOption replaces, it does not free, the
     * initial value; defaults are applied after parsing */
    Opts o = { 0 };
    GOptionEntry entries[] = {
        { "profile", 0, 0, G_OPTION_ARG_STRING, &o.profile,
          "drive profile: a NAME in the profile dir or a FILE", "NAME|FILE" },
        { "profile-dir", 0, 0, G_OPTION_ARG_FILENAME, &o.profile_dir,
          "where profile NAMEs are looked up (env PLATTER_PROFILE_DIR)", "DIR" },
        { "version", 0, 0, G_OPTION_ARG_NONE, &o.version,
          "print platter's version (git describe, or the release) and exit", NULL },
        { "dump-profile", 0, 0, G_OPTION_ARG_NONE, &o.dump_profile,
          "print the profile with every default filled in, then exit", NULL },
        { "workload", 0, 0, G_OPTION_ARG_STRING, &o.workload,
          "dsync | fsync-append | replay | fio (default dsync)", "NAME" },
        { "pattern", 0, 0, G_OPTION_ARG_STRING, &o.pattern,
          "dsync offsets: seq | rand (default seq)", "P" },
        { "policy", 0, 0, G_OPTION_ARG_STRING, &o.policy,
          "how the kernel turns an O_DSYNC write into commands: fua+flush | "
          "fua | write+flush | fua-emulated | write (default fua+flush; "
          "with the write cache off every policy runs as write)", "POLICY" },
        { "bs", 0, 0, G_OPTION_ARG_STRING, &o.bs,
          "block size (default 4K)", "SIZE" },
        { "span", 0, 0, G_OPTION_ARG_STRING, &o.span,
          "bytes the offsets cover (default 100G)", "SIZE" },
        { "offset", 0, 0, G_OPTION_ARG_STRING, &o.offset,
          "start of the span (default 0)", "SIZE" },
        { "runtime", 0, 0, G_OPTION_ARG_STRING, &o.runtime,
          "virtual seconds to run (default 60)", "SECONDS" },
        { "jobs", 0, 0, G_OPTION_ARG_STRING, &o.jobs,
          "closed-loop jobs (default 1)", "N" },
        { "flush-share", 0, 0, G_OPTION_ARG_NONE, &o.flush_share,
          "fsync-append: skip a flush when one submitted after the write "
          "completed has finished (the xfs series' rule)", NULL },
        { "xfs-log", 0, 0, G_OPTION_ARG_NONE, &o.xfs_log,
          "fsync-append: model xfs's log force (group-committed iclog "
          "writes with a preflush) between the write and the flush", NULL },
        { "flush-queues", 0, 0, G_OPTION_ARG_STRING, &o.flush_queues,
          "fsync-append: the guest's blk-flush merges flushes on N "
          "hardware queues (job i on queue i mod N, the log on queue 0; "
          "one per vCPU); 0, the default, sends every flush", "N" },
        { "host-us", 0, 0, G_OPTION_ARG_STRING, &o.host_us,
          "guest CPU time per device command, us (default 10)", "US" },
        { "trace", 0, 0, G_OPTION_ARG_FILENAME, &o.trace,
          "replay: platter-trace v1 or blkparse text", "FILE" },
        { "trace-out", 0, 0, G_OPTION_ARG_FILENAME, &o.trace_out,
          "write every device command as a platter-trace v1 line", "FILE" },
        { "verify", 0, 0, G_OPTION_ARG_NONE, &o.verify,
          "replay: fail unless every completion lands at the time the "
          "trace recorded (# done=)", NULL },
        { "write-cache", 0, 0, G_OPTION_ARG_STRING, &o.write_cache,
          "override the profile's volatile write cache", "on|off" },
        { "fua", 0, 0, G_OPTION_ARG_STRING, &o.fua,
          "override the profile's native FUA", "on|off" },
        { "queue-depth", 0, 0, G_OPTION_ARG_STRING, &o.queue_depth,
          "override the profile's queue depth", "N" },
        { "queue-policy", 0, 0, G_OPTION_ARG_STRING, &o.queue_policy,
          "override the profile's command order", "fifo|sptf" },
        { "seed", 0, 0, G_OPTION_ARG_STRING, &o.seed,
          "random offsets' seed (default 1)", "N" },
        { "rw", 0, 0, G_OPTION_ARG_STRING, &o.rw,
          "fio: read | write | randread | randwrite | randrw (default read)",
          "RW" },
        { "rwmixread", 0, 0, G_OPTION_ARG_STRING, &o.rwmixread,
          "fio --rw randrw: percent of reads (default 50)", "N" },
        { "iodepth", 0, 0, G_OPTION_ARG_STRING, &o.iodepth,
          "fio, replay --closed-loop: I/Os each job keeps in flight "
          "(default 1)", "N" },
        { "numjobs", 0, 0, G_OPTION_ARG_STRING, &o.numjobs,
          "fio: jobs, each over the same region (default 1)", "N" },
        { "size", 0, 0, G_OPTION_ARG_STRING, &o.size,
          "fio: the region after --offset, and the bytes each job does "
          "(default: to the device end)", "SIZE" },
        { "fsync", 0, 0, G_OPTION_ARG_STRING, &o.fsync,
          "fio: a FLUSH after every N writes of a job, once its I/Os are "
          "in (default 0: none)", "N" },
        { "thinktime", 0, 0, G_OPTION_ARG_STRING, &o.thinktime,
          "fio: wait after each completion before the next I/O (default 0)",
          "USEC" },
        { "closed-loop", 0, 0, G_OPTION_ARG_NONE, &o.closed_loop,
          "replay: issue each request when one completes, in the recorded "
          "order (--iodepth in flight), not at its recorded time", NULL },
        { "json", 0, 0, G_OPTION_ARG_NONE, &o.json,
          "one versioned JSON object on stdout", NULL },
        { "explain", 0, 0, G_OPTION_ARG_STRING, &o.explain,
          "print the first N device commands as a timeline", "N" },
        { "timeline", 0, 0, G_OPTION_ARG_FILENAME, &o.timeline,
          "draw device commands and the platter's angle as an SVG picture",
          "FILE.svg" },
        { "timeline-count", 0, 0, G_OPTION_ARG_STRING, &o.timeline_count,
          "--timeline: commands drawn (default 50, at most 5000)", "N" },
        { "timeline-from", 0, 0, G_OPTION_ARG_STRING, &o.timeline_from,
          "--timeline: start at the first command submitted at or after "
          "this virtual time (default 0)", "SECONDS" },
        { NULL, 0, 0, 0, NULL, NULL, NULL },
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new(
        "- simulate a modeled drive under a workload");
    g_option_context_add_main_entries(ctx, entries, NULL);
    GError *err = NULL;
    int rc;

    o.command = timeline_command_line(argc, argv);

    /* one way out, so the options are freed on every path */
    if (!g_option_context_parse(ctx, &argc, &argv, &err)) {
        rc = 2;
    } else if (argc > 1) {
        rc = 2;
        g_set_error(&err, HWM_ERROR, HWM_ERROR_INVALID,
                    "unexpected argument '%s'", argv[1]);
    } else if (o.version) {
        printf("platter-sim %s\n", PLATTER_VERSION);
        rc = fflush(stdout) == 0 && !ferror(stdout) ? 0 : 125;
    } else {
        const char *env_dir = g_getenv("PLATTER_PROFILE_DIR");
        g_autofree char *dir = env_dir ? g_strdup(env_dir) : default_profile_dir();
        set_default(&o.profile_dir, dir);
        rc = run(&o, &err);
        /* a report cut short (a full disk, a closed pipe) is not a result */
        if (!err && (fflush(stdout) != 0 || ferror(stdout))) {
            g_set_error(&err, HWM_ERROR, HWM_ERROR_INVALID,
                        "cannot write the output to stdout: %s",
                        g_strerror(errno ? errno : EIO));
        }
    }
    if (err) {
        fprintf(stderr, "platter-sim: %s\n", err->message);
        g_error_free(err);
        rc = rc ? rc : 1;
    }
    g_free(o.profile);
    g_free(o.profile_dir);
    g_free(o.workload);
    g_free(o.pattern);
    g_free(o.policy);
    g_free(o.bs);
    g_free(o.span);
    g_free(o.offset);
    g_free(o.runtime);
    g_free(o.trace);
    g_free(o.host_us);
    g_free(o.write_cache);
    g_free(o.fua);
    g_free(o.queue_policy);
    g_free(o.trace_out);
    g_free(o.jobs);
    g_free(o.queue_depth);
    g_free(o.explain);
    g_free(o.flush_queues);
    g_free(o.seed);
    g_free(o.rw);
    g_free(o.rwmixread);
    g_free(o.iodepth);
    g_free(o.numjobs);
    g_free(o.size);
    g_free(o.fsync);
    g_free(o.thinktime);
    g_free(o.timeline);
    g_free(o.timeline_count);
    g_free(o.timeline_from);
    g_free(o.command);
    return rc;
}
