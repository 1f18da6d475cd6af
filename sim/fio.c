/*
 * fio: jobs like fio's on a raw block device with libaio.
 *
 * --numjobs jobs, each keeping --iodepth I/Os of --bs in flight (closed
 * loop: a slot issues its next I/O when its last one completes, after
 * --thinktime).  --rw read|write: sequential from --offset, wrapping within
 * --size; randread|randwrite|randrw: uniform random blocks in [--offset,
 * --offset + --size), seeded per job (--seed + job), and for randrw a read
 * with probability --rwmixread percent.  Every job covers the same region,
 * as fio's do without offset_increment; with --offset-increment N, job j's
 * region starts j x N further on (fio's offset_increment: several streams
 * at once, a backup's readers).  A job stops issuing when it has
 * issued --size bytes or at --runtime, whichever comes first; the run ends
 * at its last completion.
 *
 * --fsync N: after every N writes a job issues, it stops issuing, waits for
 * its I/Os in flight, sends one FLUSH and resumes when it completes (fio's
 * fsync=N with libaio: the sync is synchronous, queued only when nothing
 * else is).  On a write-through device the block layer completes the flush
 * without sending it (counted as skipped).
 */
#include "engine.h"

/* fio's --rw */
typedef enum { RW_READ, RW_WRITE, RW_RANDREAD, RW_RANDWRITE, RW_RANDRW }
    FioRw;

static const char *const rw_names[] = {
    [RW_READ] = "read", [RW_WRITE] = "write", [RW_RANDREAD] = "randread",
    [RW_RANDWRITE] = "randwrite", [RW_RANDRW] = "randrw" };

/* Its region is the job shape's span (--size) and its jobs --numjobs. */
typedef struct {
    FioRw rw;
    bool random;              /* a random --rw */
    bool size_given;          /* else: to the device end */
    uint32_t rwmixread;       /* randrw: percent of reads */
    uint32_t iodepth;         /* per job, in flight */
    uint64_t fsync_every;     /* a FLUSH after this many writes (0: no) */
    hwm_ns thinktime_ns;      /* after a completion, before the next */
    bool strip_flush;         /* write-through device, flushes not sent */
    uint64_t seed;
    uint64_t increment;       /* --offset-increment: bytes between jobs'
                                 regions */
} FioParams;

#define FP(p) ((const FioParams *)(p)->own)

static const OptSpec fio_options[] = {
    /* a table: `duplicates` pairs its rows with the other OptSpec
     * tables' by shape; they are data, one entry per option */
    { "rw", OPT_TEXT, OPT_SCOPE_WORKLOAD, "RW",
      "fio: read | write | randread | randwrite | randrw (default read)",
      240, OPT_NO_NUMBER },
    { "rwmixread", OPT_TEXT, OPT_SCOPE_WORKLOAD, "N",
      "fio --rw randrw: percent of reads (default 50)", 250,
      OPT_COUNT(0, 100), 50 },
    { "numjobs", OPT_TEXT, OPT_SCOPE_WORKLOAD, "N",
      "fio: jobs, each over the same region unless --offset-increment "
      "(default 1)", 270, OPT_COUNT(1, 4096), 1 },
    { "offset-increment", OPT_TEXT, OPT_SCOPE_WORKLOAD, "SIZE",
      "fio: job j's region starts j x SIZE after --offset (default 0: "
      "the same region)", 275, OPT_BYTES, 0 },
    /* 0: to the device end (fio_prepare) */
    { "size", OPT_TEXT, OPT_SCOPE_WORKLOAD, "SIZE",
      "fio: the region after --offset, and the bytes each job does "
      "(default: to the device end)", 280, OPT_BYTES, 0 },
    { "fsync", OPT_TEXT, OPT_SCOPE_WORKLOAD, "N",
      "fio: a FLUSH after every N writes of a job, once its I/Os are "
      "in (default 0: none)", 290, OPT_COUNT(0, UINT32_MAX), 0 },
    { "thinktime", OPT_TEXT, OPT_SCOPE_WORKLOAD, "USEC",
      "fio: wait after each completion before the next I/O (default 0)",
      300, { "us", 1000, 0, 3600 * NS_PER_S, false }, 0 },
};

static const char *const fio_uses[] = {
    "bs", "offset", "runtime", "seed", "iodepth", NULL };

/* fio keeps a slot per I/O in flight: numjobs x iodepth of them at most */
#define FIO_MAX_SLOTS (1u << 20)

static bool fio_configure(const Options *o, SimParams *p, GError **errp)
{
    FioParams *fp = g_new0(FioParams, 1);
    uint64_t v;

    p->own = fp;
    if (!opt_number(o, "iodepth", &v, errp)) {
        return false;
    }
    fp->iodepth = (uint32_t)v;
    const char *rw = opt_text(o, "rw") ? opt_text(o, "rw") : "read";
    int i = sim_name_index(rw_names, G_N_ELEMENTS(rw_names), rw);
    if (i < 0) {
        return opt_bad(errp, "--rw: unknown '%s' (read, write, randread, "
                       "randwrite, randrw)", rw);
    }
    fp->rw = (FioRw)i;
    fp->random = fp->rw == RW_RANDREAD || fp->rw == RW_RANDWRITE ||
                 fp->rw == RW_RANDRW;
    if (opt_given(o, "rwmixread") && fp->rw != RW_RANDRW) {
        return opt_bad(errp, "--rwmixread does nothing with --rw %s (it is "
                       "randrw's share of reads)", rw);
    }
    if (!opt_number(o, "rwmixread", &v, errp)) {
        return false;
    }
    fp->rwmixread = (uint32_t)v;
    if (!opt_number(o, "fsync", &fp->fsync_every, errp) ||
        !opt_number(o, "thinktime", &v, errp)) {
        return false;
    }
    fp->thinktime_ns = (hwm_ns)v;
    if (fp->fsync_every > 0 && (fp->rw == RW_READ || fp->rw == RW_RANDREAD)) {
        return opt_bad(errp, "--fsync does nothing with --rw %s (it counts "
                       "writes)", rw);
    }
    if (opt_given(o, "seed") && !fp->random) {
        return opt_bad(errp, "--seed does nothing without a random --rw "
                       "(randread, randwrite, randrw) (it seeds the random "
                       "offsets)");
    }
    fp->size_given = opt_given(o, "size");
    if (!opt_number(o, "size", &p->span_bytes, errp) ||
        !opt_number(o, "numjobs", &v, errp)) {
        return false;
    }
    p->jobs = (uint32_t)v;
    if (p->span_bytes % p->bs_bytes) {
        return opt_bad(errp, "--size: must be a multiple of --bs");
    }
    if (!opt_number(o, "seed", &fp->seed, errp)) {
        return false;
    }
    if (!opt_number(o, "offset-increment", &fp->increment, errp)) {
        return false;
    }
    if (fp->increment % p->bs_bytes) {
        return opt_bad(errp, "--offset-increment: must be a multiple of --bs");
    }
    if (fp->increment && p->jobs == 1) {
        return opt_bad(errp, "--offset-increment does nothing with one job "
                       "(--numjobs)");
    }
    if ((uint64_t)fp->iodepth * p->jobs > FIO_MAX_SLOTS) {
        return opt_bad(errp, "--numjobs x --iodepth: %u x %u is more than %u "
                       "I/Os in flight", p->jobs, fp->iodepth, FIO_MAX_SLOTS);
    }
    return true;
}

static bool fio_prepare(SimParams *p, const HwmProfile *prof, HwmDevice *dev,
                        GError **errp)
{
    FioParams *fp = p->own;
    uint64_t cap = hwm_device_capacity_bytes(dev);
    (void)prof;

    if (!fp->size_given && p->offset_bytes < cap) {
        /* fio on a block device: to its end */
        p->span_bytes = (cap - p->offset_bytes) / p->bs_bytes * p->bs_bytes;
    }
    if (p->span_bytes == 0 && p->offset_bytes < cap) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_RANGE, "%s: no whole --bs "
                    "(%" G_GUINT64_FORMAT " bytes) fits there",
                    fp->size_given ? "--size" : "--offset", p->bs_bytes);
        return false;
    }
    if (!sim_check_region(p, dev, "size", errp)) {
        return false;
    }
    /* the last job's region: (jobs - 1) x increment further on */
    uint64_t shift = fp->increment * (p->jobs - 1);
    if (fp->increment && (shift / fp->increment != p->jobs - 1 ||
                          shift > cap - p->offset_bytes - p->span_bytes)) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_RANGE, "--offset-increment: "
                    "the last job's region (job %u, %u x %" G_GUINT64_FORMAT
                    " bytes after --offset, %" G_GUINT64_FORMAT " bytes long"
                    "%s) ends past the device end (%" G_GUINT64_FORMAT
                    " bytes)", p->jobs - 1, p->jobs - 1, fp->increment,
                    p->span_bytes, fp->size_given ? "" : ": --size not given, "
                    "so to the device end", cap);
        return false;
    }
    if (!hwm_device_write_cache(dev) && fp->fsync_every > 0) {
        fprintf(stderr, "platter-sim: write cache off: the block layer "
                "completes a write-through device's flushes without sending "
                "them; --fsync's flushes are counted as skipped\n");
        fp->strip_flush = true;
    }
    return true;
}

static void fio_report_human(FILE *f, const SimParams *p, const SimResult *r)
{
    const FioParams *fp = FP(p);

    fprintf(f, "  fio: rw=%s", rw_names[fp->rw]);
    if (fp->rw == RW_RANDRW) {
        fprintf(f, " rwmixread=%u", fp->rwmixread);
    }
    fprintf(f, " iodepth=%u size=%" G_GUINT64_FORMAT " offset=%"
            G_GUINT64_FORMAT " fsync=%" G_GUINT64_FORMAT,
            fp->iodepth, p->span_bytes, p->offset_bytes, fp->fsync_every);
    if (fp->increment) {
        fprintf(f, " offset_increment=%" G_GUINT64_FORMAT, fp->increment);
    }
    fprintf(f, " thinktime=%.1fus; flushes issued=%" G_GUINT64_FORMAT
            ", skipped=%" G_GUINT64_FORMAT "\n", fp->thinktime_ns / 1e3,
            r->flushes_issued, r->flushes_skipped);
}

static void fio_report_json(FILE *f, const SimParams *p, const SimResult *r,
                            JsonPlace at)
{
    const FioParams *fp = FP(p);
    (void)r;

    if (at != JSON_AFTER_END) {
        return;
    }
    fprintf(f, ", \"fio\": {\"rw\": \"%s\", \"rwmixread\": ",
            rw_names[fp->rw]);
    if (fp->rw == RW_RANDRW) {
        fprintf(f, "%u", fp->rwmixread);
    } else {
        fprintf(f, "null");
    }
    fprintf(f, ", \"iodepth\": %u, \"numjobs\": %u, \"size\": %"
            G_GUINT64_FORMAT ", \"offset\": %" G_GUINT64_FORMAT
            ", \"offset_increment\": %" G_GUINT64_FORMAT
            ", \"fsync\": %" G_GUINT64_FORMAT ", \"thinktime_ns\": %"
            G_GINT64_FORMAT ", \"seed\": ", fp->iodepth, p->jobs,
            p->span_bytes, p->offset_bytes, fp->increment, fp->fsync_every,
            fp->thinktime_ns);
    if (fp->random) {
        fprintf(f, "%" G_GUINT64_FORMAT "}", fp->seed);
    } else {
        fprintf(f, "null}");
    }
}

typedef struct {
    uint64_t rng;
    uint64_t base;            /* its region's start: --offset, and
                                 --offset-increment x its number */
    uint64_t seq_next;        /* sequential: bytes past base */
    uint64_t issued_bytes;
    uint64_t writes;          /* issued since the last flush */
    uint32_t in_flight;       /* data I/Os at the host queue or device */
    bool want_flush;          /* --fsync: N writes issued, draining */
    bool flushing;            /* its FLUSH is outstanding */
    hwm_ns *wake;             /* per slot; HWM_NEVER: busy, parked, done */
    hwm_ns *start;            /* per slot: when its I/O was issued */
    bool *parked;             /* per slot: waiting for the flush */
} FioJob;

/* The slots in a binary min-heap on (wake, slot number), the slot number
 * being job * iodepth + k: the next slot to wake in O(1) and a changed
 * wake in O(log n), where scanning every slot at every step made a run of
 * 4096 jobs x 64 deep take minutes.  Ties go to the lowest slot number,
 * the slot the scan picked. */
typedef struct {
    FioJob *jobs;
    uint32_t slots;           /* per job: iodepth, and one for the flush */
    uint32_t n;               /* jobs * iodepth */
    uint32_t *heap;           /* slot numbers */
    uint32_t *pos;            /* a slot's place in heap */
} Fio;

#define FIO(s) ((Fio *)(s)->wl)

static hwm_ns slot_wake(const Fio *f, uint32_t slot, uint32_t depth)
{
    return f->jobs[slot / depth].wake[slot % depth];
}

static bool slot_before(const Fio *f, uint32_t a, uint32_t b, uint32_t depth)
{
    hwm_ns wa = slot_wake(f, a, depth), wb = slot_wake(f, b, depth);
    return wa < wb || (wa == wb && a < b);
}

static void heap_swap(Fio *f, uint32_t i, uint32_t j)
{
    uint32_t t = f->heap[i];
    f->heap[i] = f->heap[j];
    f->heap[j] = t;
    f->pos[f->heap[i]] = i;
    f->pos[f->heap[j]] = j;
}

/* job ji's slot k wakes at t (HWM_NEVER: busy, parked or done) */
static void set_wake(Sim *s, uint32_t ji, uint32_t k, hwm_ns t)
{
    Fio *f = FIO(s);
    uint32_t depth = FP(s->p)->iodepth, i = f->pos[ji * depth + k];

    f->jobs[ji].wake[k] = t;
    while (i > 0 && slot_before(f, f->heap[i], f->heap[(i - 1) / 2], depth)) {
        heap_swap(f, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < f->n && slot_before(f, f->heap[l], f->heap[m], depth)) {
            m = l;
        }
        if (r < f->n && slot_before(f, f->heap[r], f->heap[m], depth)) {
            m = r;
        }
        if (m == i) {
            break;
        }
        heap_swap(f, i, m);
        i = m;
    }
}

static bool fio_init(Sim *s, GError **errp)
{
    const SimParams *p = s->p;
    Fio *f = g_new0(Fio, 1);
    (void)errp;

    s->wl = f;
    f->slots = FP(p)->iodepth + 1;
    f->jobs = g_new0(FioJob, p->jobs);
    for (uint32_t i = 0; i < p->jobs; i++) {
        FioJob *j = &f->jobs[i];
        j->rng = FP(p)->seed + i;
        j->base = p->offset_bytes + FP(p)->increment * i;
        j->wake = g_new0(hwm_ns, FP(p)->iodepth);    /* all due at 0 */
        j->start = g_new0(hwm_ns, FP(p)->iodepth);
        j->parked = g_new0(bool, FP(p)->iodepth);
    }
    /* every wake is 0: slot order is already a heap */
    f->n = p->jobs * FP(p)->iodepth;
    f->heap = g_new(uint32_t, f->n);
    f->pos = g_new(uint32_t, f->n);
    for (uint32_t i = 0; i < f->n; i++) {
        f->heap[i] = f->pos[i] = i;
    }
    return true;
}

static hwm_ns fio_next_wake(Sim *s, uint64_t *which)
{
    Fio *f = FIO(s);
    uint32_t depth = FP(s->p)->iodepth, top = f->heap[0];
    hwm_ns best = slot_wake(f, top, depth);

    if (best != HWM_NEVER) {
        *which = (uint64_t)(top / depth) * f->slots + top % depth;
    }
    return best;
}

static bool is_read(const SimParams *p, FioJob *j)
{
    switch (FP(p)->rw) {
    case RW_READ:
    case RW_RANDREAD:
        return true;
    case RW_RANDRW:
        return hwm_splitmix64(&j->rng) % 100 < FP(p)->rwmixread;
    default:
        return false;
    }
}

static uint64_t next_offset(const SimParams *p, FioJob *j)
{
    uint64_t blocks = p->span_bytes / p->bs_bytes;
    uint64_t off;

    if (FP(p)->random) {
        return j->base + hwm_splitmix64(&j->rng) % blocks * p->bs_bytes;
    }
    off = j->base + j->seq_next;
    j->seq_next = (j->seq_next + p->bs_bytes) % (blocks * p->bs_bytes);
    return off;
}

/* The job's FLUSH is over (sent, or completed by the block layer): the
 * parked slots issue again. */
static void flush_done(Sim *s, uint32_t ji, hwm_ns t)
{
    FioJob *j = &FIO(s)->jobs[ji];

    j->flushing = false;
    for (uint32_t k = 0; k < FP(s->p)->iodepth; k++) {
        if (j->parked[k]) {
            j->parked[k] = false;
            set_wake(s, ji, k, t);
        }
    }
}

/* --fsync: the job's I/Os are all in: send its FLUSH */
static bool maybe_flush(Sim *s, uint32_t ji, hwm_ns t, GError **errp)
{
    FioJob *j = &FIO(s)->jobs[ji];

    if (!j->want_flush || j->in_flight > 0) {
        return true;
    }
    j->want_flush = false;
    j->flushing = true;
    if (FP(s->p)->strip_flush) {
        s->r->flushes_skipped++;
        flush_done(s, ji, t);
        return true;
    }
    s->r->flushes_issued++;
    return sim_submit(s, t, (uint64_t)ji * FIO(s)->slots + FP(s->p)->iodepth,
                      HWM_OP_FLUSH, 0, 0, 0, errp);
}

static bool fio_step(Sim *s, uint64_t which, hwm_ns t, GError **errp)
{
    const SimParams *p = s->p;
    Fio *f = FIO(s);
    uint32_t ji = (uint32_t)(which / f->slots), k = (uint32_t)(which % f->slots);
    FioJob *j = &f->jobs[ji];

    set_wake(s, ji, k, HWM_NEVER);
    if (t >= p->runtime_ns || j->issued_bytes >= p->span_bytes) {
        return true;            /* this slot is done */
    }
    if (j->want_flush || j->flushing) {
        j->parked[k] = true;
        return true;
    }
    bool read = is_read(p, j);
    uint64_t off = next_offset(p, j);
    j->start[k] = t;
    j->in_flight++;
    j->issued_bytes += p->bs_bytes;
    if (!read && FP(p)->fsync_every > 0 && ++j->writes == FP(p)->fsync_every) {
        j->writes = 0;
        j->want_flush = true;
    }
    return sim_submit(s, t, which, read ? HWM_OP_READ : HWM_OP_WRITE, 0, off,
                      p->bs_bytes, errp);
}

static bool fio_completed(Sim *s, const HwmEvent *e, GError **errp)
{
    Fio *f = FIO(s);
    uint32_t ji = (uint32_t)(e->tag / f->slots), k = (uint32_t)(e->tag % f->slots);
    FioJob *j = &f->jobs[ji];

    if (k == FP(s->p)->iodepth) {
        flush_done(s, ji, e->time_ns);
        return true;
    }
    j->in_flight--;
    /* fio's lat: from the job's issue, host-queue wait included */
    sim_record_op(s, j->start[k], e->time_ns, e->length);
    set_wake(s, ji, k, e->time_ns + FP(s->p)->thinktime_ns);
    return maybe_flush(s, ji, e->time_ns, errp);
}

static void fio_fini(Sim *s, bool ok)
{
    Fio *f = FIO(s);
    (void)ok;

    /* the run ends at its last completion; the drain is reported apart */
    s->r->runtime_ns = s->r->last_completion_ns;
    for (uint32_t i = 0; i < s->p->jobs; i++) {
        g_free(f->jobs[i].wake);
        g_free(f->jobs[i].start);
        g_free(f->jobs[i].parked);
    }
    g_free(f->jobs);
    g_free(f->heap);
    g_free(f->pos);
    g_free(f);
}

const WorkloadOps fio_workload = {
    .name = "fio",
    .options = fio_options,
    .n_options = G_N_ELEMENTS(fio_options),
    .uses = fio_uses,
    .configure = fio_configure,
    .prepare = fio_prepare,
    .report_human = fio_report_human,
    .report_json = fio_report_json,
    .init = fio_init,
    .next_wake = fio_next_wake,
    .step = fio_step,
    .completed = fio_completed,
    .fini = fio_fini,
};
