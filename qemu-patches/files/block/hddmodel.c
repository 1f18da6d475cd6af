/*
 * hddmodel: a block driver that times every request with platter's
 * hw-model (a model of a hard disk or SSD with a volatile write cache) on
 * QEMU_CLOCK_VIRTUAL, and keeps the data of cached writes in memory until
 * the model says they reached the media.
 *
 *   -blockdev driver=hddmodel,node-name=d0,profile=st20000nm007d,
 *             file.driver=file,file.filename=disk.raw
 *
 * Determinism: the guest must see the same completion times on every run,
 * whatever the host does.  So
 *   - the model is given only virtual-clock times;
 *   - a completion is delivered from a main-loop QEMU_CLOCK_VIRTUAL timer
 *     armed at the model's event time.  Under icount the vCPU cannot run
 *     past an armed virtual timer, and the timer callback holds the BQL, so
 *     the guest is frozen while the callback runs;
 *   - all data movement to and from the backing image happens with the
 *     BQL held, synchronously (the nested poll does not release it), so
 *     host I/O speed is invisible to the guest.  Durable data reaches the
 *     image in batches (HDD_UNWRITTEN_MAX_*), from that callback;
 *   - a request the driver answers without the model completes from a
 *     QEMU_CLOCK_VIRTUAL timer too (hdd_co_answer()).
 * When the virtual clock is not running (VM stopped, drained section) the
 * model is run forward on its own so nothing waits for a clock that never
 * comes.
 *
 * The driver's files, one concern each (hddmodel.h has what they share):
 *   hddmodel.c        this file: the request path.  Requests in, the host
 *                     queue, the model's events out, the clock, the state
 *                     machine (hdd_set_state() checks every transition)
 *                     and the BlockDriver table.  Its transitions: IDLE ->
 *                     DELIVERING -> IDLE (the timer), IDLE -> FAST_FORWARD
 *                     -> IDLE (a stalled clock), and the end of either,
 *                     or of a write-out, into a pending cut.
 *   hddmodel-image.c  durable data on its way to the image: the batch,
 *                     write-outs, reads' overlay, untimed I/O
 *   hddmodel-power.c  power cuts, cycles and the scheduled power loss
 *   hddmodel-open.c   options, open, close
 *   hddmodel-trace.c  the trace=FILE request trace
 *   hddmodel-crash.c  crash-journal=FILE: what a power loss may have left
 *   hddmodel-map.c    the data of cached writes by byte range
 *   hddmodel-qmp.c    query-hddmodel and hddmodel-power-cut
 *
 * Copyright (C) 2026 the platter authors.
 *
 * This work is licensed under the terms of the GNU GPL, version 2 or later.
 * See the COPYING file in the top-level directory.
 */

#include "qemu/osdep.h"
#include "qemu/error-report.h"
#include "qemu/main-loop.h"
#include "qemu/module.h"
#include "qemu/queue.h"
#include "qemu/timer.h"
#include "qapi/error.h"
#include "block/block-io.h"
#include "block/block_int.h"
#include "system/runstate.h"
#include "trace.h"

#include "hddmodel.h"

/* Events fetched from the model per hwm_advance() call. */
#define HDD_EVENT_BATCH 64

static BlockDriver bdrv_hddmodel;

BDRVHddState *hdd_state(BlockDriverState *bs)
{
    return bs->drv == &bdrv_hddmodel ? bs->opaque : NULL;
}

/* ---- time ---------------------------------------------------------------- */

/*
 * The model's clock: the virtual clock, but never backwards.  It runs ahead
 * of the virtual clock only after a fast-forward (stopped VM, drain).
 * Callers in the vCPU thread are inside an MMIO access, where reading the
 * icount clock is allowed.  It stops for good at a shutdown request
 * (hdd_guest_gone()).
 */
hwm_ns hdd_now(BDRVHddState *s)
{
    hwm_ns v;

    if (hdd_guest_gone()) {
        return s->now;
    }
    v = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    if (v > s->now) {
        s->now = v;
    }
    return s->now;
}

/*
 * Shutdown has been asked for (the guest's isa-debug-exit or ACPI
 * poweroff, a reboot under -no-reboot, the host): the guest sees nothing
 * more, but its vCPUs, and so the virtual clock, run on until the main loop
 * acts on the request, a stretch host timing chooses.  A drive that kept
 * its clock would destage, or take a scheduled cut, a different amount
 * every run, and close would report and write that.  So the drive's clock
 * stops where the request found it: no background destage and no
 * scheduled cut after it, and a request still in flight completes on the
 * model's own time, as with a stopped VM.  The close then writes out what
 * is still cached, as at every clean shutdown.
 */
bool hdd_guest_gone(void)
{
    return qemu_shutdown_ever_requested();
}

/*
 * The virtual clock does not advance while the VM is stopped, and a drain
 * waits with aio_poll(), which never runs main-loop timers: in both cases
 * requests are completed by running the model forward on its own.
 */
static bool hdd_clock_stalled(BDRVHddState *s)
{
    return !runstate_is_running() || hdd_guest_gone() ||
           qatomic_read(&s->bs->quiesce_counter) > 0;
}

/* The request is over: let its coroutine return ret. */
static void hdd_finish(BDRVHddState *s, HddReq *req, int ret)
{
    assert(!req->done);
    req->ret = ret;
    req->done = true;
    if (req->submitted) {
        g_hash_table_remove(s->by_tag, &req->hr.tag);
    }
    QTAILQ_REMOVE(&s->reqs, req, next);
    hdd_acct_depth(&s->acct, &s->acct.front, s->now, -1);
    if (req->co != qemu_coroutine_self()) {
        aio_co_wake(req->co);
    }
}

/*
 * A request the driver answers itself, without the model (the drive is
 * off, it lost power at this request, there is nothing to transfer, or the
 * model refused the command), completes at the instant it came,
 * from a QEMU_CLOCK_VIRTUAL timer like the model's completions.  Returned
 * at once, it would reach the guest from the block layer's completion BH
 * (blk_aio_prwv()), which the main loop runs while the vCPU goes on: at a
 * point of the guest's execution that host timing chooses.  A clock that
 * does not run (VM stopped, drain) cannot time it, and no guest runs
 * meanwhile: then at once.
 */
static int coroutine_fn hdd_co_answer(BDRVHddState *s, HddReq *req, int ret)
{
    if (hdd_clock_stalled(s)) {
        return ret;
    }
    req->ret = ret;
    QTAILQ_INSERT_TAIL(&s->answers, req, next);
    timer_mod_ns(&s->answer_timer, hdd_now(s));
    while (!req->done) {
        qemu_coroutine_yield();
    }
    return req->ret;
}

/*
 * Complete the answered requests.  One that the block layer issues from a
 * woken coroutine and that is answered too completes in the same pass.
 */
void hdd_answer_all(BDRVHddState *s)
{
    HddReq *req;

    while ((req = QTAILQ_FIRST(&s->answers))) {
        QTAILQ_REMOVE(&s->answers, req, next);
        req->done = true;
        aio_co_wake(req->co);
    }
}

void hdd_answer_timer_cb(void *opaque)
{
    hdd_answer_all(opaque);
}

/*
 * Hand the request to the model; 0, or how it fails if the model refuses
 * it (reported here; the caller answers it).
 */
static int hdd_submit(BDRVHddState *s, HddReq *req)
{
    g_autoptr(GError) err = NULL;

    req->hr.tag = ++s->next_tag;
    if (!hwm_submit(s->dev, s->now, &req->hr, &err)) {
        error_report("hddmodel: %s: %s", bdrv_get_node_name(s->bs),
                     err->message);
        return err->code == HWM_ERROR_RANGE ? -EINVAL : -EIO;
    }
    req->submitted = true;
    if (req->hr.op == HWM_OP_FLUSH) {
        hdd_crash_flush_submitted(s, req);
    }
    if (s->trace) {
        req->trace_seq = hwm_trace_order_submitted(s->trace_order);
    }
    s->in_model++;
    hdd_acct_depth(&s->acct, &s->acct.model, s->now, 1);
    hdd_acct_wait(&s->acct.submitted, &s->acct.submit_wait_ns,
                  &s->acct.submit_wait_max_ns, req->arrive_ns, s->now);
    g_hash_table_insert(s->by_tag, &req->hr.tag, req);
    trace_hddmodel_submit(s, req->hr.tag, hwm_op_name(req->hr.op),
                          req->hr.offset, req->hr.length, req->hr.flags,
                          s->now);
    return 0;
}

/*
 * Hand waiting requests to the model while it has room, oldest first.
 * From the main loop at a virtual instant (a delivery, a write-out), so a
 * refused one can finish here.
 */
void hdd_submit_waiting(BDRVHddState *s)
{
    HddReq *req, *tmp;
    int ret;

    QTAILQ_FOREACH_SAFE(req, &s->reqs, next, tmp) {
        if (s->in_model >= s->queue_depth) {
            break;
        }
        if (!req->submitted) {
            ret = hdd_submit(s, req);
            if (ret < 0) {
                hdd_finish(s, req, ret);
            }
        }
    }
}

/* ---- state --------------------------------------------------------------- */

static const char *const hdd_state_names[] = {
    [HDD_IDLE] = "idle",
    [HDD_DELIVERING] = "delivering",
    [HDD_FAST_FORWARD] = "fast-forward",
    [HDD_WRITE_OUT] = "write-out",
    [HDD_CUT] = "cut",
    [HDD_OFF] = "off",
    [HDD_DOWN] = "down",
};

/* The states each state may go to (the diagram at HddState). */
static const unsigned hdd_next_states[] = {
    [HDD_IDLE] = 1u << HDD_DELIVERING | 1u << HDD_FAST_FORWARD |
                 1u << HDD_WRITE_OUT | 1u << HDD_CUT | 1u << HDD_OFF,
    [HDD_DELIVERING] = 1u << HDD_IDLE | 1u << HDD_CUT,
    [HDD_FAST_FORWARD] = 1u << HDD_IDLE | 1u << HDD_CUT,
    [HDD_WRITE_OUT] = 1u << HDD_IDLE | 1u << HDD_CUT,
    [HDD_CUT] = 1u << HDD_IDLE | 1u << HDD_OFF | 1u << HDD_DOWN,
    [HDD_OFF] = 0,
    [HDD_DOWN] = 1u << HDD_IDLE | 1u << HDD_CUT | 1u << HDD_OFF,
};

void hdd_set_state(BDRVHddState *s, HddState to)
{
    trace_hddmodel_state(s, hdd_state_names[s->state], hdd_state_names[to]);
    assert(hdd_next_states[s->state] & (1u << to));
    s->state = to;
}

/* The states in which events are handed out. */
static bool hdd_delivering(BDRVHddState *s)
{
    return s->state == HDD_DELIVERING || s->state == HDD_FAST_FORWARD ||
           s->state == HDD_CUT;
}

/* Arm the timer for the model's next event (or run the model forward). */
void hdd_schedule(BDRVHddState *s)
{
    hwm_ns t;

    if (!s->dev || s->state != HDD_IDLE) {
        /*
         * Drained while still opening (child attach): nothing to run.
         * Delivering: its end schedules.  Power lost: nothing is left.
         */
        return;
    }
    if (!QTAILQ_EMPTY(&s->reqs) && hdd_clock_stalled(s)) {
        qemu_bh_schedule(s->ff_bh);
        return;
    }
    if (hdd_guest_gone()) {
        /* no background destage after a shutdown request */
        timer_del(&s->timer);
        return;
    }
    t = hwm_next_event(s->dev);
    if (t == HWM_NEVER) {
        timer_del(&s->timer);
    } else {
        timer_mod_ns(&s->timer, t);
    }
}

/* ---- events ------------------------------------------------------------- */

static void GRAPH_RDLOCK
hdd_handle_complete(BDRVHddState *s, const HwmEvent *ev)
{
    HddReq *req = g_hash_table_lookup(s->by_tag, &ev->tag);
    int ret = 0;

    assert(s->in_model > 0);
    s->in_model--;
    hdd_acct_depth(&s->acct, &s->acct.model, s->now, -1);
    hdd_acct_wait(&s->acct.completed, &s->acct.complete_delay_ns,
                  &s->acct.complete_delay_max_ns, ev->time_ns, s->now);
    trace_hddmodel_complete(s, ev->tag, hwm_op_name(ev->op), ev->offset,
                            ev->length, ev->submit_ns, ev->time_ns,
                            ev->durable, ev->cache_hit);
    if (!req) {
        /* cannot happen: every tag the model knows is in the table */
        error_report("hddmodel: %s: completion for unknown tag %" PRIu64,
                     bdrv_get_node_name(s->bs), ev->tag);
        return;
    }
    hdd_trace_line(s, req, ev);
    switch (ev->op) {
    case HWM_OP_READ:
        ret = hdd_read_data(s, req);
        break;
    case HWM_OP_WRITE:
        hdd_crash_acked(s, req, ev->durable);
        ret = hdd_write_data(s, req, ev->durable);
        break;
    case HWM_OP_FLUSH:
        hdd_crash_flushed(s, req);
        break;
    case HWM_OP_DISCARD:
        break;
    }
    hdd_finish(s, req, ret < 0 ? ret : 0);
}

/*
 * Hand out the model's events up to `now`: completions finish their
 * requests, write-backs go to the image.  Never in a coroutine: the image
 * I/O must not yield, so that the guest cannot run while it happens.
 * Finishing a request runs its coroutine, which may issue another request
 * at once (the block layer's next flush): hdd_co_request() queues it, or
 * fails it after a power loss.
 */
void GRAPH_RDLOCK hdd_deliver(BDRVHddState *s, hwm_ns now)
{
    HwmEvent ev[HDD_EVENT_BATCH];
    size_t n, i;

    assert(!qemu_in_coroutine());
    assert(hdd_delivering(s));
    s->now = MAX(s->now, now);
    do {
        n = hwm_advance(s->dev, s->now, ev, HDD_EVENT_BATCH);
        for (i = 0; i < n; i++) {
            if (ev[i].kind == HWM_EV_COMPLETE) {
                hdd_handle_complete(s, &ev[i]);
            } else if (ev[i].kind == HWM_EV_DURABLE) {
                hdd_crash_destaged(s, ev[i].offset, ev[i].length);
                hdd_destage(s, ev[i].offset, ev[i].length);
            }   /* (HWM_EV_HOME: not asked for, and no data to move) */
        }
    } while (n == HDD_EVENT_BATCH);
    if (s->state != HDD_CUT) {
        /* (a failure is reported where it happens, and fails no request) */
        hdd_write_out_if_due(s);
        hdd_submit_waiting(s);
    }
}

/*
 * Fail every outstanding request.  Finishing one enters its coroutine, and
 * the block layer may then issue a request it held back behind it (the
 * next of several flushes, which it serializes) before we return.  That
 * request was sent before the failure too and fails the same way: at once
 * after a power loss (hdd_co_request()), else from the host queue below.
 * It must not reach a model whose queue is gone, which would later
 * complete a command the driver no longer knows; and a flush issued before
 * a power cut must never succeed after it.
 */
void hdd_fail_all(BDRVHddState *s)
{
    HddReq *req;

    assert(s->state == HDD_FAST_FORWARD || s->state == HDD_CUT ||
           s->state == HDD_OFF);
    while ((req = QTAILQ_FIRST(&s->reqs))) {
        hdd_finish(s, req, -EIO);
        s->cut_dropped++;
    }
    hdd_acct_depth(&s->acct, &s->acct.model, s->now, -(int)s->in_model);
    s->in_model = 0;
}

/*
 * A delivery or write-out is over: back to idle, or on to the cut if power
 * failed.
 */
void GRAPH_RDLOCK hdd_delivered(BDRVHddState *s)
{
    if (s->state == HDD_CUT) {
        hdd_cut_for_good(s);
        return;
    }
    hdd_set_state(s, HDD_IDLE);
    hdd_schedule(s);
}

void hdd_timer_cb(void *opaque)
{
    BDRVHddState *s = opaque;
    GRAPH_RDLOCK_GUARD_MAINLOOP();

    if (s->state != HDD_IDLE) {
        /* CUT: the cut BH runs next; OFF: nothing reaches the model again */
        return;
    }
    if (hdd_guest_gone()) {
        /* armed before the shutdown request: a fast-forward, or nothing */
        hdd_schedule(s);
        return;
    }
    hdd_set_state(s, HDD_DELIVERING);
    hdd_deliver(s, hdd_now(s));
    hdd_delivered(s);
}

/*
 * The clock does not run: complete outstanding requests by moving the
 * model's own time to its next events, as a drive would while the host
 * waits.  Background destaging after the last completion is left for when
 * the clock runs again.
 */
void hdd_fast_forward_bh(void *opaque)
{
    BDRVHddState *s = opaque;
    GRAPH_RDLOCK_GUARD_MAINLOOP();

    if (hdd_clock_stalled(s)) {
        /* answers waiting for a clock that does not come */
        hdd_answer_all(s);
    }
    if (s->state != HDD_IDLE) {
        /*
         * Run by the nested poll of our own image I/O: the delivery under
         * way schedules us again if anything is left when it ends.  After a
         * power loss nothing is left.
         */
        return;
    }
    if (!hdd_clock_stalled(s)) {
        /* the clock runs again: the timer delivers on it */
        hdd_schedule(s);
        return;
    }
    hdd_set_state(s, HDD_FAST_FORWARD);
    while (!QTAILQ_EMPTY(&s->reqs) && s->state == HDD_FAST_FORWARD) {
        hwm_ns t = hwm_next_event(s->dev);

        if (t == HWM_NEVER) {
            error_report("hddmodel: %s: model idle with %u commands queued",
                         bdrv_get_node_name(s->bs), s->in_model);
            hdd_fail_all(s);
            break;
        }
        hdd_deliver(s, MAX(t, hdd_now(s)));
    }
    if (s->state == HDD_FAST_FORWARD) {
        /* a stopped VM's image equals the media (a cut writes it itself) */
        hdd_write_out(s);
    }
    hdd_delivered(s);
}

static int coroutine_fn GRAPH_RDLOCK
hdd_co_request(BlockDriverState *bs, HwmOp op, uint32_t flags, int64_t offset,
               int64_t bytes, QEMUIOVector *qiov)
{
    BDRVHddState *s = bs->opaque;
    HddReq req = {
        .co = qemu_coroutine_self(),
        .hr = {
            .op = op,
            .flags = flags,
            .offset = offset,
            .length = bytes,
        },
    };
    int ret;

    if (s->state == HDD_CUT || s->state == HDD_OFF) {
        /* the power has failed: counted while the cut runs (hdd_cut()) */
        s->cut_dropped++;
        return -EIO;
    }
    if (s->state == HDD_DOWN) {
        hdd_cycle_found_off(s);
        return hdd_co_answer(s, &req, -EIO);
    }
    if (!bytes && op != HWM_OP_FLUSH) {
        /*
         * Nothing to transfer (the block layer passes aligned zero-length
         * requests down, e.g. a virtio-blk request without data): done at
         * once, as on any other QEMU disk.  The model takes no command
         * without sectors.
         */
        return hdd_co_answer(s, &req, 0);
    }
    if (!runstate_is_running()) {
        return hdd_co_untimed(s, op, offset, bytes, qiov);
    }
    if (++s->arrivals == s->cut_at_request) {
        hdd_lose_power(s, hdd_now(s));
        return hdd_co_answer(s, &req, -EIO);
    }
    if (op == HWM_OP_WRITE) {
        req.buf = g_try_malloc(bytes);
        if (!req.buf) {
            return hdd_co_answer(s, &req, -ENOMEM);
        }
        qemu_iovec_to_buf(qiov, 0, req.buf, bytes);
    } else if (op == HWM_OP_READ) {
        req.qiov = qiov;
    }

    /*
     * Read the clock now, in the guest's MMIO access (where icount allows
     * it): hdd_submit() hands the model s->now.  A request that finds every
     * command slot taken, or arrives while events are being delivered,
     * waits in s->reqs for hdd_submit_waiting().  One the model refuses is
     * answered on the clock, not returned from here (hdd_co_answer()).
     */
    req.arrive_ns = hdd_now(s);
    hdd_acct_depth(&s->acct, &s->acct.front, s->now, 1);
    if (s->state == HDD_IDLE && s->in_model < s->queue_depth) {
        ret = hdd_submit(s, &req);
        if (ret < 0) {
            g_free(req.buf);
            hdd_acct_depth(&s->acct, &s->acct.front, s->now, -1);
            return hdd_co_answer(s, &req, ret);
        }
    } else {
        s->queued_total++;
    }
    QTAILQ_INSERT_TAIL(&s->reqs, &req, next);
    hdd_schedule(s);
    while (!req.done) {
        qemu_coroutine_yield();
    }
    g_free(req.buf);
    return req.ret;
}

static int coroutine_fn GRAPH_RDLOCK
hdd_co_preadv(BlockDriverState *bs, int64_t offset, int64_t bytes,
              QEMUIOVector *qiov, BdrvRequestFlags flags)
{
    return hdd_co_request(bs, HWM_OP_READ, 0, offset, bytes, qiov);
}

static int coroutine_fn GRAPH_RDLOCK
hdd_co_pwritev(BlockDriverState *bs, int64_t offset, int64_t bytes,
               QEMUIOVector *qiov, BdrvRequestFlags flags)
{
    return hdd_co_request(bs, HWM_OP_WRITE,
                          (flags & BDRV_REQ_FUA) ? HWM_REQ_FUA : 0,
                          offset, bytes, qiov);
}

static int coroutine_fn GRAPH_RDLOCK
hdd_co_pdiscard(BlockDriverState *bs, int64_t offset, int64_t bytes)
{
    return hdd_co_request(bs, HWM_OP_DISCARD, 0, offset, bytes, NULL);
}

/*
 * .bdrv_co_flush rather than .bdrv_co_flush_to_disk: the block layer skips
 * the latter when nothing was written since the last flush, but a drive
 * still spends time on every FLUSH it receives.
 */
static int coroutine_fn GRAPH_RDLOCK hdd_co_flush(BlockDriverState *bs)
{
    return hdd_co_request(bs, HWM_OP_FLUSH, 0, 0, 0, NULL);
}

static int64_t coroutine_fn GRAPH_RDLOCK hdd_co_getlength(BlockDriverState *bs)
{
    return bdrv_co_getlength(bs->file->bs);
}

static void hdd_refresh_limits(BlockDriverState *bs, Error **errp)
{
    bs->bl.request_alignment = HWM_SECTOR_BYTES;
}

static void hdd_drain_begin(BlockDriverState *bs)
{
    BDRVHddState *s = bs->opaque;

    /* no aio_poll() here: the fast-forward runs from a BH the drain polls */
    if (!QTAILQ_EMPTY(&s->answers)) {
        qemu_bh_schedule(s->ff_bh);
    }
    hdd_schedule(s);
}

static void hdd_drain_end(BlockDriverState *bs)
{
    BDRVHddState *s = bs->opaque;

    /* back to the virtual clock for background destaging */
    hdd_schedule(s);
}

/* ---- registration -------------------------------------------------------- */

static const char *const hdd_strong_runtime_opts[] = {
    HDD_OPT_PROFILE,
    HDD_OPT_PROFILE_DIR,
    HDD_OPT_FUA,
    HDD_OPT_WCE,
    HDD_OPT_QD,
    HDD_OPT_POLICY,
    NULL
};

static BlockDriver bdrv_hddmodel = {
    .format_name            = "hddmodel",
    .instance_size          = sizeof(BDRVHddState),

    .bdrv_open              = hdd_open,
    .bdrv_close             = hdd_close,
    .bdrv_child_perm        = bdrv_default_perms,
    .bdrv_co_getlength      = hdd_co_getlength,
    .bdrv_refresh_limits    = hdd_refresh_limits,

    .bdrv_co_preadv         = hdd_co_preadv,
    .bdrv_co_pwritev        = hdd_co_pwritev,
    .bdrv_co_pdiscard       = hdd_co_pdiscard,
    .bdrv_co_flush          = hdd_co_flush,

    .bdrv_drain_begin       = hdd_drain_begin,
    .bdrv_drain_end         = hdd_drain_end,

    .strong_runtime_opts    = hdd_strong_runtime_opts,
    .create_opts            = NULL,
};

static void bdrv_hddmodel_init(void)
{
    bdrv_register(&bdrv_hddmodel);
}

block_init(bdrv_hddmodel_init);
