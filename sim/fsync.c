/*
 * fsync-append: N jobs, each appending bs bytes to its own file and calling
 * fsync, seen at the block level.
 *
 * Plain mode: each fsync is the data write and a FLUSH.  With --flush-share
 * a job skips its flush when a flush submitted after its write completed
 * has finished, and otherwise waits for one already in flight (standing in
 * for the log force that the plain mode leaves out).
 *
 * --xfs-log adds what xfs_file_fsync() does between the two: a log force.
 * One iclog write is in flight at a time; fsyncs arriving meanwhile go into
 * the next one (group commit).  An iclog write is a numbered PREFLUSH, the
 * log block (FUA, or followed by a FLUSH on a device without FUA), and
 * records its number as completed when it finishes (xlog_write_iclog,
 * xlog_ioend_work).  Then only the job whose force wrote the iclog skips its
 * own flush (log_flushed), unless --flush-share applies the series' rule
 * (xfs_buftarg_flushed_since: a flush numbered above its snapshot finished).
 *
 * --flush-queues N adds the guest block layer between those flushes and the
 * device: blk-flush keeps one FLUSH in flight per hardware queue, and every
 * flush request that arrives meanwhile (an fsync's blkdev_issue_flush(), an
 * iclog's PREFLUSH or its FUA-emulating POSTFLUSH) waits and is completed by
 * the next single FLUSH.  While the iclog's data write is in flight its
 * queue holds pending flushes back (blk_kick_flush()'s C2), so they go with
 * the POSTFLUSH.  A guest has one hardware queue per vCPU (virtio-blk
 * num-queues=auto); job i submits on queue i mod N, the log on queue 0.
 */
#include "engine.h"

typedef struct {
    bool flush_share;         /* the xfs series' rule */
    bool xfs_log;             /* model xfs's log force */
    uint32_t flush_queues;    /* guest blk-flush queues that merge flushes
                                 (0: no merging) */
} FsyncParams;

#define FP(p) ((const FsyncParams *)(p)->own)

static const OptSpec fsync_options[] = {
    /* a table: `duplicates` pairs its rows with the other OptSpec
     * tables' by shape; they are data, one entry per option */
    { "flush-share", OPT_FLAG, OPT_SCOPE_WORKLOAD, NULL,
      "fsync-append: skip a flush when one submitted after the write "
      "completed has finished (the xfs series' rule)", 120, OPT_NO_NUMBER },
    { "xfs-log", OPT_FLAG, OPT_SCOPE_WORKLOAD, NULL,
      "fsync-append: model xfs's log force (group-committed iclog "
      "writes with a preflush) between the write and the flush",
      130, OPT_NO_NUMBER },
    { "flush-queues", OPT_TEXT, OPT_SCOPE_WORKLOAD, "N",
      "fsync-append: the guest's blk-flush merges flushes on N "
      "hardware queues (job i on queue i mod N, the log on queue 0; "
      "one per vCPU); 0, the default, sends every flush", 140,
      OPT_COUNT(0, 4096), 0 },
};

static const char *const fsync_uses[] = {
    "bs", "span", "offset", "runtime", "jobs", "host-us", NULL };

static bool fsync_configure(const Options *o, SimParams *p, GError **errp)
{
    FsyncParams *fp = g_new0(FsyncParams, 1);
    uint64_t n;

    p->own = fp;
    fp->flush_share = opt_flag(o, "flush-share");
    fp->xfs_log = opt_flag(o, "xfs-log");
    if (!sim_check_span_jobs(p, errp) ||
        !opt_number(o, "flush-queues", &n, errp)) {
        return false;
    }
    fp->flush_queues = (uint32_t)n;
    return true;
}

static bool fsync_prepare(SimParams *p, const HwmProfile *prof,
                          HwmDevice *dev, GError **errp)
{
    uint64_t cap = hwm_device_capacity_bytes(dev);
    (void)prof;

    if (!sim_check_region(p, dev, "span", errp)) {
        return false;
    }
    if (FP(p)->xfs_log &&
        cap - p->offset_bytes - p->span_bytes < p->bs_bytes) {
        /* the log's blocks go after the span */
        g_set_error(errp, HWM_ERROR, HWM_ERROR_RANGE,
                    "--xfs-log: the log goes after --offset + --span and "
                    "needs at least --bs (%" G_GUINT64_FORMAT " bytes) there, "
                    "but they end %" G_GUINT64_FORMAT " bytes before the "
                    "device end (%" G_GUINT64_FORMAT " bytes): make --span "
                    "smaller", p->bs_bytes,
                    cap - p->offset_bytes - p->span_bytes, cap);
        return false;
    }
    if (!hwm_device_write_cache(dev)) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID,
                    "--workload fsync-append with the write cache off: Linux "
                    "completes a write-through device's flushes without "
                    "sending them, which this workload does not model yet "
                    "(use dsync or replay)");
        return false;
    }
    return true;
}

static void fsync_report_human(FILE *f, const SimParams *p,
                               const SimResult *r)
{
    fprintf(f, "  flushes: issued=%" G_GUINT64_FORMAT ", skipped=%"
            G_GUINT64_FORMAT " (flush sharing %s)\n", r->flushes_issued,
            r->flushes_skipped, FP(p)->flush_share ? "on" : "off");
}

/* where a job is in its operation */
typedef enum {
    FS_START,       /* due to start the next append */
    FS_ENTERING,    /* in the write syscall, before the bio goes out */
    FS_WRITING,     /* data write outstanding */
    FS_SYNC,        /* write done: fsync decides what to do */
    FS_IN_LOG,      /* waiting for the log write that covers it */
    FS_AFTER_LOG,   /* log force returned: its own flush, or not */
    FS_FLUSHING,    /* its own flush outstanding */
    FS_JOINED,      /* waiting for another job's flush to complete */
} FsPhase;

typedef struct {
    FsPhase phase;
    hwm_ns op_start;
    hwm_ns wake;              /* HWM_NEVER while a command is outstanding */
    uint64_t base, next;      /* its file: a share of the span */
    uint64_t flush_snap;      /* flushes submitted when its write completed */
    uint64_t flush_no;        /* the number of its own flush */
    uint64_t joined;          /* waiting for this flush number, or 0 */
    bool log_flushed;         /* its log force wrote the iclog itself */
    bool done;
} Job;

/* The xfs log as fsync sees it: one iclog write at a time; fsyncs that
 * arrive meanwhile go in the next one (group commit). */
typedef enum { LOG_IDLE, LOG_PREFLUSH, LOG_WRITE, LOG_POSTFLUSH } LogPhase;

typedef struct {
    LogPhase phase;
    GArray *batch;            /* job indices the write in flight covers */
    GArray *next;             /* jobs waiting for the next write */
    uint64_t flush_no;        /* the preflush's number */
    uint64_t offset;          /* next log block */
} XfsLog;

#define LOG_TAG (1ull << 40)  /* device tag of log commands */

/* The guest's blk-flush on one hardware queue (--flush-queues): one FLUSH
 * at a time; flush requests arriving meanwhile wait and are all completed by
 * the next FLUSH (block/blk-flush.c, blk_kick_flush()). */
typedef struct {
    bool busy;                /* this queue's FLUSH is at the device */
    GArray *running;          /* tags (job index or LOG_TAG) it completes */
    GArray *pending;          /* tags waiting for the next FLUSH */
} FlushQueue;

#define FLUSHQ_TAG (1ull << 41)  /* device tag of queue q's FLUSH: + q */

typedef struct {
    Job *jobs;
    uint64_t flush_submitted;     /* flush numbering (xfs_buftarg_flush_start) */
    uint64_t flush_completed_max; /* highest completed (bt_flush_completed) */
    XfsLog log;
    FlushQueue *fq;               /* p->flush_queues of them */
} Fs;

#define FS(s) ((Fs *)(s)->wl)

static bool fsync_init(Sim *s, GError **errp)
{
    const SimParams *p = s->p;
    Fs *fs = g_new0(Fs, 1);
    uint64_t per_job = p->span_bytes / p->bs_bytes / p->jobs;
    (void)errp;

    s->wl = fs;
    fs->jobs = g_new0(Job, p->jobs);
    for (uint32_t i = 0; i < p->jobs; i++) {
        fs->jobs[i].wake = 0;
        fs->jobs[i].base = p->offset_bytes + i * per_job * p->bs_bytes;
    }
    fs->log.batch = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    fs->log.next = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    fs->log.offset = p->offset_bytes + p->span_bytes;
    fs->fq = g_new0(FlushQueue, FP(p)->flush_queues);
    for (uint32_t q = 0; q < FP(p)->flush_queues; q++) {
        fs->fq[q].running = g_array_new(FALSE, FALSE, sizeof(uint64_t));
        fs->fq[q].pending = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    }
    return true;
}

static void fsync_fini(Sim *s, bool ok)
{
    Fs *fs = FS(s);
    (void)ok;

    s->r->runtime_ns = s->p->runtime_ns;
    g_array_unref(fs->log.batch);
    g_array_unref(fs->log.next);
    for (uint32_t q = 0; q < FP(s->p)->flush_queues; q++) {
        g_array_unref(fs->fq[q].running);
        g_array_unref(fs->fq[q].pending);
    }
    g_free(fs->fq);
    g_free(fs->jobs);
    g_free(fs);
}

static hwm_ns fsync_next_wake(Sim *s, uint64_t *which)
{
    const Job *jobs = FS(s)->jobs;
    hwm_ns best = HWM_NEVER;

    for (uint32_t i = 0; i < s->p->jobs; i++) {
        if (!jobs[i].done && jobs[i].wake < best) {
            best = jobs[i].wake;
            *which = i;
        }
    }
    return best;
}

/* fsync() returns at `end` */
static void finish_op(Sim *s, Job *j, hwm_ns end)
{
    if (end <= s->p->runtime_ns) {
        sim_record_op(s, j->op_start, end, s->p->bs_bytes);
    }
    j->wake = end;
}

/* Issue queue q's next FLUSH for everything pending, if blk-flush would. */
static bool flushq_kick(Sim *s, uint32_t q, hwm_ns t, GError **errp)
{
    FlushQueue *fq = &FS(s)->fq[q];

    if (fq->busy || fq->pending->len == 0) {
        return true;
    }
    if (q == 0 && FS(s)->log.phase == LOG_WRITE) {
        return true;    /* C2: flush data in flight on this queue */
    }
    GArray *tmp = fq->running;
    fq->running = fq->pending;
    fq->pending = tmp;
    fq->busy = true;
    return sim_submit(s, t, FLUSHQ_TAG + q, HWM_OP_FLUSH, 0, 0, 0, errp);
}

/* A flush request from a job or the log: to the device, or to blk-flush. */
static bool flush_request(Sim *s, hwm_ns t, uint64_t tag, GError **errp)
{
    uint32_t n = FP(s->p)->flush_queues;

    if (n == 0) {
        return sim_submit(s, t, tag, HWM_OP_FLUSH, 0, 0, 0, errp);
    }
    uint32_t q = tag == LOG_TAG ? 0 : (uint32_t)(tag % n);
    g_array_append_val(FS(s)->fq[q].pending, tag);
    return flushq_kick(s, q, t, errp);
}

static uint64_t number_flush(Sim *s)
{
    s->r->flushes_issued++;
    return ++FS(s)->flush_submitted;
}

static void flush_completed(Sim *s, uint64_t no, hwm_ns t)
{
    FS(s)->flush_completed_max = MAX(FS(s)->flush_completed_max, no);
    for (uint32_t i = 0; i < s->p->jobs; i++) {
        Job *w = &FS(s)->jobs[i];
        if (w->phase == FS_JOINED && w->joined <= FS(s)->flush_completed_max) {
            w->joined = 0;
            finish_op(s, w, t + s->p->host_cmd_ns / 2);
            w->phase = FS_START;
        }
    }
}

/* fsync's own flush, or the series' reason to skip it. */
static bool own_flush(Sim *s, uint32_t ji, hwm_ns t, GError **errp)
{
    Job *j = &FS(s)->jobs[ji];
    const SimParams *p = s->p;

    if (FP(p)->flush_share && FS(s)->flush_completed_max > j->flush_snap) {
        s->r->flushes_skipped++;
        j->phase = FS_START;
        finish_op(s, j, t + p->host_cmd_ns / 2);
        return true;
    }
    if (FP(p)->flush_share && !FP(p)->xfs_log &&
        FS(s)->flush_submitted > j->flush_snap) {
        s->r->flushes_skipped++;
        j->phase = FS_JOINED;
        j->joined = FS(s)->flush_submitted;
        return true;
    }
    j->phase = FS_FLUSHING;
    j->flush_no = number_flush(s);
    return flush_request(s, t, ji, errp);
}

static bool log_start(Sim *s, hwm_ns t, GError **errp)
{
    FS(s)->log.phase = LOG_PREFLUSH;
    FS(s)->log.flush_no = number_flush(s);
    return flush_request(s, t, LOG_TAG, errp);
}

static bool log_join(Sim *s, uint32_t ji, hwm_ns t, GError **errp)
{
    FS(s)->jobs[ji].phase = FS_IN_LOG;
    if (FS(s)->log.phase != LOG_IDLE) {
        g_array_append_val(FS(s)->log.next, ji);
        return true;
    }
    g_array_append_val(FS(s)->log.batch, ji);
    FS(s)->jobs[ji].log_flushed = true;
    return log_start(s, t, errp);
}

/* A command of the log write completed. */
static bool log_completed(Sim *s, const HwmEvent *e, GError **errp)
{
    const SimParams *p = s->p;
    hwm_ns t = e->time_ns;
    bool fua = hwm_device_fua(s->dev);

    switch (FS(s)->log.phase) {
    case LOG_PREFLUSH:
        FS(s)->log.phase = LOG_WRITE;
        FS(s)->log.offset = FS(s)->log.offset + p->bs_bytes >
                        hwm_device_capacity_bytes(s->dev) ?
                        p->offset_bytes + p->span_bytes : FS(s)->log.offset;
        if (!sim_submit(s, t, LOG_TAG, HWM_OP_WRITE, fua ? HWM_REQ_FUA : 0,
                        FS(s)->log.offset, p->bs_bytes, errp)) {
            return false;
        }
        FS(s)->log.offset += p->bs_bytes;
        return true;
    case LOG_WRITE:
        if (!fua) {
            FS(s)->log.phase = LOG_POSTFLUSH;   /* blk-flush's FUA emulation */
            s->r->flushes_issued++;
            return flush_request(s, t, LOG_TAG, errp);
        }
        break;
    case LOG_POSTFLUSH:
        break;
    case LOG_IDLE:
        g_assert_not_reached();
    }
    /* native FUA: the data step is over, so queue 0 may flush again */
    if (FP(s->p)->flush_queues > 0 && !flushq_kick(s, 0, t, errp)) {
        return false;
    }
    /* the iclog is on stable storage: its waiters return from the force */
    FS(s)->log.phase = LOG_IDLE;
    flush_completed(s, FS(s)->log.flush_no, t);
    for (guint i = 0; i < FS(s)->log.batch->len; i++) {
        Job *j = &FS(s)->jobs[g_array_index(FS(s)->log.batch, uint32_t, i)];
        j->phase = FS_AFTER_LOG;
        j->wake = t + p->host_cmd_ns;
    }
    g_array_set_size(FS(s)->log.batch, 0);
    if (FS(s)->log.next->len > 0) {
        GArray *tmp = FS(s)->log.batch;
        FS(s)->log.batch = FS(s)->log.next;
        FS(s)->log.next = tmp;
        FS(s)->jobs[g_array_index(FS(s)->log.batch, uint32_t, 0)].log_flushed = true;
        return log_start(s, t, errp);
    }
    return true;
}

static bool fsync_step(Sim *s, uint64_t which, hwm_ns t, GError **errp)
{
    uint32_t ji = (uint32_t)which;
    const SimParams *p = s->p;
    Job *j = &FS(s)->jobs[ji];

    j->wake = HWM_NEVER;
    switch (j->phase) {
    case FS_START:
        if (t >= p->runtime_ns) {
            j->done = true;
            return true;
        }
        j->op_start = t;
        j->log_flushed = false;
        j->phase = FS_ENTERING;
        j->wake = t + p->host_cmd_ns / 2;
        return true;
    case FS_ENTERING:
        j->phase = FS_WRITING;
        return sim_submit(s, t, ji, HWM_OP_WRITE, 0,
                          sim_seq_offset(p, j->base, &j->next), p->bs_bytes,
                          errp);
    case FS_SYNC:
        return FP(p)->xfs_log ? log_join(s, ji, t, errp)
                              : own_flush(s, ji, t, errp);
    case FS_AFTER_LOG:
        if (j->log_flushed) {
            j->phase = FS_START;
            finish_op(s, j, t + p->host_cmd_ns / 2);
            return true;
        }
        return own_flush(s, ji, t, errp);
    default:
        g_assert_not_reached();
    }
    return true;
}

static bool fsync_completed(Sim *s, const HwmEvent *e, GError **errp)
{
    if (e->tag >= FLUSHQ_TAG) {
        /* a merged FLUSH: complete every request it covered, in order */
        uint32_t q = (uint32_t)(e->tag - FLUSHQ_TAG);
        FlushQueue *fq = &FS(s)->fq[q];
        /* detach the list: completing a request may queue a new flush */
        g_autoptr(GArray) done = fq->running;
        HwmEvent each = *e;
        bool ok = true;

        fq->running = g_array_new(FALSE, FALSE, sizeof(uint64_t));
        fq->busy = false;
        for (guint i = 0; ok && i < done->len; i++) {
            each.tag = g_array_index(done, uint64_t, i);
            ok = fsync_completed(s, &each, errp);
        }
        return ok && flushq_kick(s, q, e->time_ns, errp);
    }
    if (e->tag == LOG_TAG) {
        return log_completed(s, e, errp);
    }
    Job *j = &FS(s)->jobs[e->tag];
    if (j->phase == FS_WRITING) {
        /* file_write_and_wait_range() returned: xfs_buftarg_flush_seq() */
        j->flush_snap = FS(s)->flush_submitted;
        j->phase = FS_SYNC;
        j->wake = e->time_ns + s->p->host_cmd_ns;
        return true;
    }
    g_assert(j->phase == FS_FLUSHING);
    j->phase = FS_START;
    flush_completed(s, j->flush_no, e->time_ns);
    finish_op(s, j, e->time_ns + s->p->host_cmd_ns / 2);
    return true;
}

static char *fsync_tag_name(const SimParams *p, uint64_t tag, uint32_t line)
{
    (void)p;
    (void)line;
    if (tag >= FLUSHQ_TAG) {
        return g_strdup_printf("blk-flush queue %" G_GUINT64_FORMAT "'s FLUSH",
                               (uint64_t)(tag - FLUSHQ_TAG));
    }
    if (tag == LOG_TAG) {
        return g_strdup("the xfs log");
    }
    return g_strdup_printf("job %" G_GUINT64_FORMAT, tag);
}

const WorkloadOps fsync_append_workload = {
    .name = "fsync-append",
    .options = fsync_options,
    .n_options = G_N_ELEMENTS(fsync_options),
    .uses = fsync_uses,
    .configure = fsync_configure,
    .prepare = fsync_prepare,
    .report_human = fsync_report_human,
    .init = fsync_init,
    .next_wake = fsync_next_wake,
    .step = fsync_step,
    .completed = fsync_completed,
    .fini = fsync_fini,
    .tag_name = fsync_tag_name,
};
