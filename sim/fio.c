/*
 * fio: jobs like fio's on a raw block device with libaio.
 *
 * --numjobs jobs, each keeping --iodepth I/Os of --bs in flight (closed
 * loop: a slot issues its next I/O when its last one completes, after
 * --thinktime).  --rw read|write: sequential from --offset, wrapping within
 * --size; randread|randwrite|randrw: uniform random blocks in [--offset,
 * --offset + --size), seeded per job (--seed + job), and for randrw a read
 * with probability --rwmixread percent.  Every job covers the same region,
 * as fio's do without offset_increment.  A job stops issuing when it has
 * issued --size bytes or at --runtime, whichever comes first; the run ends
 * at its last completion.
 *
 * --fsync N: after every N writes a job issues, it stops issuing, waits for
 * its I/Os in flight, sends one FLUSH and resumes when it completes (fio's
 * fsync=N with libaio: the sync is synchronous, queued only when nothing
 * else is).  On a write-through device the block layer completes the flush
 * without sending it (counted as skipped).
 */
#include "sim-internal.h"

static const char *const rw_names[] = {
    [RW_READ] = "read", [RW_WRITE] = "write", [RW_RANDREAD] = "randread",
    [RW_RANDWRITE] = "randwrite", [RW_RANDRW] = "randrw" };

const char *fio_rw_name(FioRw rw)
{
    return rw_names[rw];
}

bool fio_rw_parse(const char *s, FioRw *out)
{
    int i = sim_name_index(rw_names, G_N_ELEMENTS(rw_names), s);
    if (i < 0) {
        return false;
    }
    *out = (FioRw)i;
    return true;
}

typedef struct {
    uint64_t rng;
    uint64_t seq_next;        /* sequential: bytes past --offset */
    uint64_t issued_bytes;
    uint64_t writes;          /* issued since the last flush */
    uint32_t in_flight;       /* data I/Os at the host queue or device */
    bool want_flush;          /* --fsync: N writes issued, draining */
    bool flushing;            /* its FLUSH is outstanding */
    hwm_ns *wake;             /* per slot; HWM_NEVER: busy, parked, done */
    hwm_ns *start;            /* per slot: when its I/O was issued */
    bool *parked;             /* per slot: waiting for the flush */
} FioJob;

typedef struct {
    FioJob *jobs;
    uint32_t slots;           /* per job: iodepth, and one for the flush */
} Fio;

#define FIO(s) ((Fio *)(s)->wl)

static bool fio_init(Sim *s, GError **errp)
{
    const SimParams *p = s->p;
    Fio *f = g_new0(Fio, 1);
    (void)errp;

    s->wl = f;
    f->slots = p->iodepth + 1;
    f->jobs = g_new0(FioJob, p->jobs);
    for (uint32_t i = 0; i < p->jobs; i++) {
        FioJob *j = &f->jobs[i];
        j->rng = p->seed + i;
        j->wake = g_new0(hwm_ns, p->iodepth);    /* all due at 0 */
        j->start = g_new0(hwm_ns, p->iodepth);
        j->parked = g_new0(bool, p->iodepth);
    }
    return true;
}

static hwm_ns fio_next_wake(Sim *s, uint64_t *which)
{
    Fio *f = FIO(s);
    hwm_ns best = HWM_NEVER;

    for (uint32_t i = 0; i < s->p->jobs; i++) {
        const FioJob *j = &f->jobs[i];
        for (uint32_t k = 0; k < s->p->iodepth; k++) {
            if (j->wake[k] < best) {
                best = j->wake[k];
                *which = (uint64_t)i * f->slots + k;
            }
        }
    }
    return best;
}

static bool is_read(const SimParams *p, FioJob *j)
{
    switch (p->rw) {
    case RW_READ:
    case RW_RANDREAD:
        return true;
    case RW_RANDRW:
        return hwm_splitmix64(&j->rng) % 100 < p->rwmixread;
    default:
        return false;
    }
}

static uint64_t next_offset(const SimParams *p, FioJob *j)
{
    uint64_t blocks = p->span_bytes / p->bs_bytes;
    uint64_t off;

    if (p->random) {
        return p->offset_bytes + hwm_splitmix64(&j->rng) % blocks * p->bs_bytes;
    }
    off = p->offset_bytes + j->seq_next;
    j->seq_next = (j->seq_next + p->bs_bytes) % (blocks * p->bs_bytes);
    return off;
}

/* The job's FLUSH is over (sent, or completed by the block layer): the
 * parked slots issue again. */
static void flush_done(Sim *s, FioJob *j, hwm_ns t)
{
    j->flushing = false;
    for (uint32_t k = 0; k < s->p->iodepth; k++) {
        if (j->parked[k]) {
            j->parked[k] = false;
            j->wake[k] = t;
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
    if (s->p->strip_flush) {
        s->r->flushes_skipped++;
        flush_done(s, j, t);
        return true;
    }
    s->r->flushes_issued++;
    return sim_submit(s, t, (uint64_t)ji * FIO(s)->slots + s->p->iodepth,
                      HWM_OP_FLUSH, 0, 0, 0, errp);
}

static bool fio_step(Sim *s, uint64_t which, hwm_ns t, GError **errp)
{
    const SimParams *p = s->p;
    Fio *f = FIO(s);
    uint32_t ji = (uint32_t)(which / f->slots), k = (uint32_t)(which % f->slots);
    FioJob *j = &f->jobs[ji];

    j->wake[k] = HWM_NEVER;
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
    if (!read && p->fsync_every > 0 && ++j->writes == p->fsync_every) {
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

    if (k == s->p->iodepth) {
        flush_done(s, j, e->time_ns);
        return true;
    }
    j->in_flight--;
    /* fio's lat: from the job's issue, host-queue wait included */
    sim_record_op(s, j->start[k], e->time_ns, e->length);
    j->wake[k] = e->time_ns + s->p->thinktime_ns;
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
    g_free(f);
}

const WorkloadOps fio_workload = {
    .name = "fio",
    .init = fio_init,
    .next_wake = fio_next_wake,
    .step = fio_step,
    .completed = fio_completed,
    .fini = fio_fini,
};
