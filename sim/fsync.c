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
#include "sim-internal.h"

void fsync_init(Sim *s)
{
    s->log.batch = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    s->log.next = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    s->log.offset = s->p->offset_bytes + s->p->span_bytes;
    s->fq = g_new0(FlushQueue, s->p->flush_queues);
    for (uint32_t q = 0; q < s->p->flush_queues; q++) {
        s->fq[q].running = g_array_new(FALSE, FALSE, sizeof(uint64_t));
        s->fq[q].pending = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    }
}

void fsync_destroy(Sim *s)
{
    g_array_unref(s->log.batch);
    g_array_unref(s->log.next);
    for (uint32_t q = 0; q < s->p->flush_queues; q++) {
        g_array_unref(s->fq[q].running);
        g_array_unref(s->fq[q].pending);
    }
    g_free(s->fq);
}

/* Issue queue q's next FLUSH for everything pending, if blk-flush would. */
static bool flushq_kick(Sim *s, uint32_t q, hwm_ns t, GError **errp)
{
    FlushQueue *fq = &s->fq[q];

    if (fq->busy || fq->pending->len == 0) {
        return true;
    }
    if (q == 0 && s->log.phase == LOG_WRITE) {
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
    uint32_t n = s->p->flush_queues;

    if (n == 0) {
        return sim_submit(s, t, tag, HWM_OP_FLUSH, 0, 0, 0, errp);
    }
    uint32_t q = tag == LOG_TAG ? 0 : (uint32_t)(tag % n);
    g_array_append_val(s->fq[q].pending, tag);
    return flushq_kick(s, q, t, errp);
}

static uint64_t number_flush(Sim *s)
{
    s->r->flushes_issued++;
    return ++s->flush_submitted;
}

static void flush_completed(Sim *s, uint64_t no, hwm_ns t)
{
    s->flush_completed_max = MAX(s->flush_completed_max, no);
    for (uint32_t i = 0; i < s->p->jobs; i++) {
        Job *w = &s->jobs[i];
        if (w->phase == FS_JOINED && w->joined <= s->flush_completed_max) {
            w->joined = 0;
            sim_finish_op(s, w, t + s->p->host_cmd_ns / 2);
            w->phase = FS_START;
        }
    }
}

/* fsync's own flush, or the series' reason to skip it. */
static bool own_flush(Sim *s, uint32_t ji, hwm_ns t, GError **errp)
{
    Job *j = &s->jobs[ji];
    const SimParams *p = s->p;

    if (p->flush_share && s->flush_completed_max > j->flush_snap) {
        s->r->flushes_skipped++;
        j->phase = FS_START;
        sim_finish_op(s, j, t + p->host_cmd_ns / 2);
        return true;
    }
    if (p->flush_share && !p->xfs_log && s->flush_submitted > j->flush_snap) {
        s->r->flushes_skipped++;
        j->phase = FS_JOINED;
        j->joined = s->flush_submitted;
        return true;
    }
    j->phase = FS_FLUSHING;
    j->flush_no = number_flush(s);
    return flush_request(s, t, ji, errp);
}

static bool log_start(Sim *s, hwm_ns t, GError **errp)
{
    s->log.phase = LOG_PREFLUSH;
    s->log.flush_no = number_flush(s);
    return flush_request(s, t, LOG_TAG, errp);
}

static bool log_join(Sim *s, uint32_t ji, hwm_ns t, GError **errp)
{
    s->jobs[ji].phase = FS_IN_LOG;
    if (s->log.phase != LOG_IDLE) {
        g_array_append_val(s->log.next, ji);
        return true;
    }
    g_array_append_val(s->log.batch, ji);
    s->jobs[ji].log_flushed = true;
    return log_start(s, t, errp);
}

/* A command of the log write completed. */
static bool log_completed(Sim *s, const HwmEvent *e, GError **errp)
{
    const SimParams *p = s->p;
    hwm_ns t = e->time_ns;
    bool fua = hwm_device_fua(s->dev);

    switch (s->log.phase) {
    case LOG_PREFLUSH:
        s->log.phase = LOG_WRITE;
        s->log.offset = s->log.offset + p->bs_bytes >
                        hwm_device_capacity_bytes(s->dev) ?
                        p->offset_bytes + p->span_bytes : s->log.offset;
        if (!sim_submit(s, t, LOG_TAG, HWM_OP_WRITE, fua ? HWM_REQ_FUA : 0,
                        s->log.offset, p->bs_bytes, errp)) {
            return false;
        }
        s->log.offset += p->bs_bytes;
        return true;
    case LOG_WRITE:
        if (!fua) {
            s->log.phase = LOG_POSTFLUSH;   /* blk-flush's FUA emulation */
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
    if (s->p->flush_queues > 0 && !flushq_kick(s, 0, t, errp)) {
        return false;
    }
    /* the iclog is on stable storage: its waiters return from the force */
    s->log.phase = LOG_IDLE;
    flush_completed(s, s->log.flush_no, t);
    for (guint i = 0; i < s->log.batch->len; i++) {
        Job *j = &s->jobs[g_array_index(s->log.batch, uint32_t, i)];
        j->phase = FS_AFTER_LOG;
        j->wake = t + p->host_cmd_ns;
    }
    g_array_set_size(s->log.batch, 0);
    if (s->log.next->len > 0) {
        GArray *tmp = s->log.batch;
        s->log.batch = s->log.next;
        s->log.next = tmp;
        s->jobs[g_array_index(s->log.batch, uint32_t, 0)].log_flushed = true;
        return log_start(s, t, errp);
    }
    return true;
}

bool fsync_step(Sim *s, uint32_t ji, hwm_ns t, GError **errp)
{
    const SimParams *p = s->p;
    Job *j = &s->jobs[ji];

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
        return sim_submit(s, t, ji, HWM_OP_WRITE, 0, sim_job_offset(s, j),
                          p->bs_bytes, errp);
    case FS_SYNC:
        return p->xfs_log ? log_join(s, ji, t, errp) : own_flush(s, ji, t, errp);
    case FS_AFTER_LOG:
        if (j->log_flushed) {
            j->phase = FS_START;
            sim_finish_op(s, j, t + p->host_cmd_ns / 2);
            return true;
        }
        return own_flush(s, ji, t, errp);
    default:
        g_assert_not_reached();
    }
    return true;
}

bool fsync_completed(Sim *s, const HwmEvent *e, GError **errp)
{
    if (e->tag >= FLUSHQ_TAG) {
        /* a merged FLUSH: complete every request it covered, in order */
        uint32_t q = (uint32_t)(e->tag - FLUSHQ_TAG);
        FlushQueue *fq = &s->fq[q];
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
    Job *j = &s->jobs[e->tag];
    if (j->phase == FS_WRITING) {
        /* file_write_and_wait_range() returned: xfs_buftarg_flush_seq() */
        j->flush_snap = s->flush_submitted;
        j->phase = FS_SYNC;
        j->wake = e->time_ns + s->p->host_cmd_ns;
        return true;
    }
    g_assert(j->phase == FS_FLUSHING);
    j->phase = FS_START;
    flush_completed(s, j->flush_no, e->time_ns);
    sim_finish_op(s, j, e->time_ns + s->p->host_cmd_ns / 2);
    return true;
}
