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
 * Copyright (C) 2026 the platter authors.
 *
 * This work is licensed under the terms of the GNU GPL, version 2 or later.
 * See the COPYING file in the top-level directory.
 */

#include "qemu/osdep.h"
#include "qemu/cutils.h"
#include "qemu/error-report.h"
#include "qemu/main-loop.h"
#include "qemu/module.h"
#include "qemu/queue.h"
#include "qemu/timer.h"
#include "qapi/error.h"
#include "qapi/qapi-visit-block-core.h"
#include "qobject/qdict.h"
#include "block/block-io.h"
#include "block/block_int.h"
#include "block/qdict.h"
#include "hw/core/cpu.h"
#include "system/cpus.h"
#include "system/runstate.h"
#include "trace.h"

#include "hddmodel.h"

/*
 * Option names for strong_runtime_opts and error messages; what each
 * option is (type, meaning) is the schema's, BlockdevOptionsHddModel.
 */
#define HDD_OPT_PROFILE     "profile"
#define HDD_OPT_PROFILE_DIR "profile-dir"
#define HDD_OPT_FUA         "fua"
#define HDD_OPT_WCE         "write-cache"
#define HDD_OPT_QD          "queue-depth"
#define HDD_OPT_POLICY      "policy"
#define HDD_OPT_CUT_NS      "power-cut-ns"
#define HDD_OPT_CUT_REQUEST "power-cut-request"
#define HDD_OPT_CUT_EVERY   "power-cut-every-ns"
#define HDD_OPT_CUT_SEED    "power-cut-seed"

#define HDD_DEFAULT_PROFILE "generic-7200"

/*
 * power-cut-every-ns: how long the drive stays off after the first command
 * that found it off (virtual ns).  Long beyond a guest's reaction to an I/O
 * error, so every cut is seen by the host before the power is back (a cut
 * with nothing in flight would otherwise go unnoticed); the clock jumps
 * over it when the guest idles, so it costs no host time.
 */
#define HDD_DOWN_NS 100000000

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
 * icount clock is allowed.
 */
static hwm_ns hdd_now(BDRVHddState *s)
{
    hwm_ns v = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);

    if (v > s->now) {
        s->now = v;
    }
    return s->now;
}

/*
 * The virtual clock does not advance while the VM is stopped, and a drain
 * waits with aio_poll(), which never runs main-loop timers: in both cases
 * requests are completed by running the model forward on its own.
 */
static bool hdd_clock_stalled(BDRVHddState *s)
{
    return !runstate_is_running() ||
           qatomic_read(&s->bs->quiesce_counter) > 0;
}

/* ---- image I/O (synchronous, outside coroutines) ------------------------- */

/* Where hdd_image_write_piece() writes, and how the last write went. */
typedef struct HddImageWrite {
    BDRVHddState *s;
    int ret;
} HddImageWrite;

static void GRAPH_RDLOCK
hdd_image_write_piece(uint64_t offset, uint64_t length, const uint8_t *data,
                      void *opaque)
{
    HddImageWrite *w = opaque;
    BDRVHddState *s = w->s;
    int r;

    r = bdrv_pwrite(s->bs->file, offset, length, data, 0);
    if (r < 0) {
        error_report("hddmodel: %s: writing %" PRIu64 "+%" PRIu64
                     " to the image failed: %s",
                     bdrv_get_node_name(s->bs), offset, length, strerror(-r));
        w->ret = r;
    }
}

/*
 * Write the batch of durable data to the image.  It leaves s->unwritten
 * first, so durable data that arrives meanwhile (from the nested poll)
 * starts the next batch; reads find the batch in s->writing until it is
 * on the image.
 */
static int GRAPH_RDLOCK hdd_write_out(BDRVHddState *s)
{
    HddImageWrite w = { .s = s };

    assert(!qemu_in_coroutine());
    if (!hdd_map_extents(s->unwritten)) {
        return 0;
    }
    /* the states keep write-outs apart: none runs in another's poll */
    assert(!s->writing);
    s->writing = s->unwritten;
    s->unwritten = hdd_map_new();
    s->write_outs++;
    hdd_map_foreach_run(s->writing, hdd_image_write_piece, &w);
    g_clear_pointer(&s->writing, hdd_map_free);
    qemu_co_queue_restart_all(&s->write_out_done);
    return w.ret;
}

/* Durable data for [offset, +length) joins the batch (which takes data). */
static void hdd_unwritten_put(BDRVHddState *s, uint64_t offset,
                              uint64_t length, uint8_t *data)
{
    if (!hdd_map_extents(s->unwritten)) {
        s->unwritten_since_ns = s->now;
    }
    hdd_map_put(s->unwritten, offset, length, data);
}

/* The batch goes to the image if it is full or old (HDD_UNWRITTEN_MAX_*). */
static int GRAPH_RDLOCK hdd_write_out_if_due(BDRVHddState *s)
{
    if (!hdd_map_extents(s->unwritten) ||
        (hdd_map_bytes(s->unwritten) < HDD_UNWRITTEN_MAX_BYTES &&
         hdd_map_extents(s->unwritten) < HDD_UNWRITTEN_MAX_EXTENTS &&
         s->now - s->unwritten_since_ns < HDD_UNWRITTEN_MAX_NS)) {
        return 0;
    }
    return hdd_write_out(s);
}

static void hdd_destage_piece(uint64_t offset, uint64_t length,
                              const uint8_t *data, void *opaque)
{
    hdd_unwritten_put(opaque, offset, length, g_memdup2(data, length));
}

/* The model says [offset, +length) is on the media now. */
static int GRAPH_RDLOCK
hdd_destage(BDRVHddState *s, uint64_t offset, uint64_t length)
{
    trace_hddmodel_destage(s, offset, length, s->now);
    hdd_map_cut(s->map, offset, length, hdd_destage_piece, s);
    return hdd_write_out_if_due(s);
}

/* Over buf, image data: what the drive holds that the image does not. */
static void hdd_overlay(BDRVHddState *s, uint64_t offset, uint64_t length,
                        uint8_t *buf)
{
    if (s->writing) {
        hdd_map_overlay(s->writing, offset, length, buf);
    }
    hdd_map_overlay(s->unwritten, offset, length, buf);
    hdd_map_overlay(s->map, offset, length, buf);
}

static int GRAPH_RDLOCK hdd_read_data(BDRVHddState *s, HddReq *req)
{
    uint64_t len = req->hr.length;
    g_autofree uint8_t *buf = g_try_malloc(len);
    int ret;

    if (!buf) {
        return -ENOMEM;
    }
    ret = bdrv_pread(s->bs->file, req->hr.offset, len, buf, 0);
    if (ret < 0) {
        return ret;
    }
    hdd_overlay(s, req->hr.offset, len, buf);
    qemu_iovec_from_buf(req->qiov, 0, buf, len);
    return 0;
}

static int GRAPH_RDLOCK
hdd_write_data(BDRVHddState *s, HddReq *req, bool durable)
{
    if (!durable) {
        hdd_map_put(s->map, req->hr.offset, req->hr.length, req->buf);
        req->buf = NULL;
        return 0;
    }
    /* Older cached data for this range must not be destaged over it later. */
    hdd_map_cut(s->map, req->hr.offset, req->hr.length, NULL, NULL);
    hdd_unwritten_put(s, req->hr.offset, req->hr.length, req->buf);
    req->buf = NULL;
    /* a failed batch fails the request that filled it */
    return hdd_write_out_if_due(s);
}

/* ---- request bookkeeping ------------------------------------------------ */

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
static void hdd_trace_line(BDRVHddState *s, HddReq *req, const HwmEvent *ev)
{
    if (!s->trace) {
        return;
    }
    hwm_trace_order_completed(s->trace_order, req->trace_seq, ev,
                              s->trace_text);
    hdd_trace_flush(s);
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
static void hdd_answer_all(BDRVHddState *s)
{
    HddReq *req;

    while ((req = QTAILQ_FIRST(&s->answers))) {
        QTAILQ_REMOVE(&s->answers, req, next);
        req->done = true;
        aio_co_wake(req->co);
    }
}

static void hdd_answer_timer_cb(void *opaque)
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
static void hdd_submit_waiting(BDRVHddState *s)
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

static void hdd_set_state(BDRVHddState *s, HddState to)
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
static void hdd_schedule(BDRVHddState *s)
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
        ret = hdd_write_data(s, req, ev->durable);
        break;
    case HWM_OP_FLUSH:
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
static void GRAPH_RDLOCK hdd_deliver(BDRVHddState *s, hwm_ns now)
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
            } else {
                hdd_destage(s, ev[i].offset, ev[i].length);
            }
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
static void hdd_fail_all(BDRVHddState *s)
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
 * Power is gone at `at` (state CUT): what the drive held only in its
 * volatile cache is lost (the image gets the batch of durable data and
 * then holds exactly the media) and queued commands die.  Ends in
 * `after`: IDLE when power comes back at once (hddmodel-power-cut), OFF
 * when it does not.  *rep says what went (free rep->lost with
 * g_array_unref()).
 */
static void GRAPH_RDLOCK
hdd_cut(BDRVHddState *s, hwm_ns at, HddState after, HddCutReport *rep)
{
    unsigned i;

    assert(s->state == HDD_CUT);
    /* requests that fail from now on, hdd_co_request()'s included */
    s->cut_dropped = 0;
    /*
     * What the model did up to the cut happened: deliver it first, or data
     * it wrote to the media would be dropped with the cache.
     */
    hdd_deliver(s, at);
    hdd_write_out(s);
    rep->clock_ns = s->now;
    rep->lost = hwm_power_cut(s->dev, s->now);
    rep->lost_bytes = 0;
    for (i = 0; i < rep->lost->len; i++) {
        rep->lost_bytes += g_array_index(rep->lost, HwmExtent, i).length;
    }
    rep->cached_bytes = hdd_map_bytes(s->map);
    trace_hddmodel_power_cut(s, s->now, rep->lost_bytes, rep->cached_bytes);
    if (rep->lost_bytes != rep->cached_bytes) {
        /* the image is still right: it holds only what was destaged */
        warn_report("hddmodel: %s: model lost %" PRIu64 " bytes, cache held "
                    "%" PRIu64, bdrv_get_node_name(s->bs), rep->lost_bytes,
                    rep->cached_bytes);
    }
    hdd_map_clear(s->map, NULL, NULL);
    hdd_fail_all(s);
    rep->dropped = s->cut_dropped;
    if (s->trace) {
        hwm_trace_order_power_cut(s->trace_order, s->now, rep->lost_bytes,
                                  s->trace_text);
        hdd_trace_flush(s);
        fflush(s->trace);
    }
    hdd_set_state(s, after);
    if (after == HDD_OFF) {
        timer_del(&s->timer);
    }
    hdd_schedule(s);
}

/*
 * The scheduled power loss's cut: power does not come back.  One line on
 * stderr tells scripts what it took.
 */
static void GRAPH_RDLOCK hdd_cut_for_good(BDRVHddState *s)
{
    HddCutReport rep;

    hdd_cut(s, s->cut_at_ns, HDD_OFF, &rep);
    fprintf(stderr, "hddmodel-power-cut node=%s clock_ns=%" PRId64
            " arrivals=%" PRIu64 " lost_bytes=%" PRIu64 " lost_extents=%u"
            " dropped_requests=%" PRIu64 "\n", bdrv_get_node_name(s->bs),
            s->now, s->arrivals, rep.lost_bytes, rep.lost->len, rep.dropped);
    g_array_unref(rep.lost);
}

bool hdd_cut_power(BDRVHddState *s, HddCutReport *rep, Error **errp)
{
    const char *node = bdrv_get_node_name(s->bs);
    GRAPH_RDLOCK_GUARD_MAINLOOP();

    switch (s->state) {
    case HDD_IDLE:
        break;
    case HDD_DELIVERING:
    case HDD_FAST_FORWARD:
    case HDD_WRITE_OUT:
        error_setg(errp, "node '%s' is busy completing requests", node);
        return false;
    case HDD_CUT:
    case HDD_OFF:
        error_setg(errp, "node '%s' has lost power for good (%s)", node,
                   HDD_OPT_CUT_NS "/" HDD_OPT_CUT_REQUEST);
        return false;
    case HDD_DOWN:
        error_setg(errp, "node '%s' is off until it powers on again (%s)",
                   node, HDD_OPT_CUT_EVERY);
        return false;
    }
    hdd_set_state(s, HDD_CUT);
    hdd_cut(s, hdd_now(s), HDD_IDLE, rep);
    return true;
}

/*
 * A delivery or write-out is over: back to idle, or on to the cut if power
 * failed.
 */
static void GRAPH_RDLOCK hdd_delivered(BDRVHddState *s)
{
    if (s->state == HDD_CUT) {
        hdd_cut_for_good(s);
        return;
    }
    hdd_set_state(s, HDD_IDLE);
    hdd_schedule(s);
}

static void hdd_timer_cb(void *opaque)
{
    BDRVHddState *s = opaque;
    GRAPH_RDLOCK_GUARD_MAINLOOP();

    if (s->state != HDD_IDLE) {
        /* CUT: the cut BH runs next; OFF: nothing reaches the model again */
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
static void hdd_fast_forward_bh(void *opaque)
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

/*
 * The batch of durable data goes to the image now, as a step of its own:
 * the requests that arrive meanwhile wait in the host queue.  Not IDLE: a
 * cut is pending (it writes the batch) or done (nothing is left).
 */
static void GRAPH_RDLOCK hdd_write_out_now(BDRVHddState *s)
{
    if (s->state != HDD_IDLE) {
        return;
    }
    hdd_set_state(s, HDD_WRITE_OUT);
    hdd_write_out(s);
    if (s->state == HDD_WRITE_OUT) {
        hdd_submit_waiting(s);
    }
    hdd_delivered(s);
}

/*
 * The VM stops (QMP stop, savevm, migration, shutdown): from here until
 * it runs again the image equals the media.  (Requests still in flight
 * are completed by the drain that follows, whose fast-forward writes what
 * they make durable.)
 */
static void hdd_vm_state_change(void *opaque, bool running, RunState state)
{
    BDRVHddState *s = opaque;

    if (!running) {
        GRAPH_RDLOCK_GUARD_MAINLOOP();

        hdd_write_out_now(s);
    }
}

static void hdd_cut_bh(void *opaque)
{
    BDRVHddState *s = opaque;
    GRAPH_RDLOCK_GUARD_MAINLOOP();

    /* (closing may have done the cut already) */
    if (s->state == HDD_CUT) {
        hdd_cut_for_good(s);
    }
}

/*
 * Every vCPU stops where it is.  Under icount they all run in one thread
 * (this one, if the request came from an MMIO access): cpu_pause() stops
 * each at once.  cpu_stop_current() alone left the others running until
 * the main loop handled the shutdown, for as many instructions as host
 * scheduling allowed, and they could see the answers the cut gave.
 */
static void hdd_stop_guest(void)
{
    CPUState *cpu;

    CPU_FOREACH(cpu) {
        cpu_pause(cpu);
    }
}

/*
 * The scheduled power loss (power-cut-ns / power-cut-request): unlike the
 * QMP command, power does not come back.  From this instant every new
 * command fails, the guest's vCPUs stop at the instruction they are on (so
 * what it printed before the cut is all it ever says, the same on every
 * run), and QEMU is asked to quit.  The cut of model and cache follows at
 * once; from a request's coroutine (the Nth request) a BH does it, and
 * during a delivery its end does (hdd_delivered()).
 */
static void GRAPH_RDLOCK hdd_lose_power(BDRVHddState *s, hwm_ns at)
{
    HddState was = s->state;

    if (was == HDD_CUT || was == HDD_OFF) {
        return;
    }
    s->cut_at_ns = MAX(at, s->now);
    timer_del(&s->cut_timer);
    hdd_set_state(s, HDD_CUT);
    hdd_stop_guest();
    qemu_system_shutdown_request(SHUTDOWN_CAUSE_HOST_ERROR);
    if (was != HDD_IDLE && was != HDD_DOWN) {
        return;
    }
    if (qemu_in_coroutine()) {
        qemu_bh_schedule(s->cut_bh);
    } else {
        hdd_cut_for_good(s);
    }
}

static void hdd_cut_timer_cb(void *opaque)
{
    BDRVHddState *s = opaque;
    GRAPH_RDLOCK_GUARD_MAINLOOP();

    hdd_lose_power(s, s->cut_at_ns);
}

/* power-cut-every-ns: the next cut, a seeded gap in [N/2, 3N/2) after t. */
static void hdd_cycle_arm(BDRVHddState *s, hwm_ns t)
{
    uint64_t gap = s->cycle_every_ns / 2 +
                   hwm_splitmix64(&s->cycle_rng) % s->cycle_every_ns;

    /* gap <= 3/4 HWM_TIME_MAX (hdd_parse_cut()): no overflow */
    timer_mod_ns(&s->cycle_timer, MIN(t + (hwm_ns)gap, (hwm_ns)HWM_TIME_MAX));
}

/*
 * power-cut-every-ns: the power fails (IDLE -> DOWN) and comes back
 * (DOWN -> IDLE, the model in power-on state) on one timer.  A cut is the
 * QMP one; then every command fails until HDD_DOWN_NS after the first that
 * failed (the cut's own, if it found any in flight).  One stderr line per
 * cut tells scripts what it took.
 */
static void hdd_cycle_timer_cb(void *opaque)
{
    BDRVHddState *s = opaque;
    HddCutReport rep;
    GRAPH_RDLOCK_GUARD_MAINLOOP();

    switch (s->state) {
    case HDD_IDLE:
        hdd_set_state(s, HDD_CUT);
        hdd_cut(s, hdd_now(s), HDD_DOWN, &rep);
        s->cycles++;
        fprintf(stderr, "hddmodel-power-cycle node=%s n=%" PRIu64
                " clock_ns=%" PRId64 " lost_bytes=%" PRIu64 " lost_extents=%u"
                " dropped_requests=%" PRIu64 "\n", bdrv_get_node_name(s->bs),
                s->cycles, s->now, rep.lost_bytes, rep.lost->len,
                rep.dropped);
        g_array_unref(rep.lost);
        s->cycle_on_ns = rep.dropped ? s->now + HDD_DOWN_NS : HWM_NEVER;
        if (s->cycle_on_ns != HWM_NEVER) {
            timer_mod_ns(&s->cycle_timer, s->cycle_on_ns);
        }
        break;
    case HDD_DOWN:
        hdd_set_state(s, HDD_IDLE);
        hdd_cycle_arm(s, hdd_now(s));
        hdd_schedule(s);
        break;
    case HDD_DELIVERING:
    case HDD_FAST_FORWARD:
    case HDD_WRITE_OUT:
        /* not from the main loop's timers; if it ever is: right after */
        timer_mod_ns(&s->cycle_timer, s->now + 1);
        break;
    case HDD_CUT:
    case HDD_OFF:
        break;
    }
}

/*
 * I/O while the VM is not running (device realize probing the partition
 * table, block jobs or QMP on a stopped VM) is not part of any workload:
 * serve it from cache and image at once, durable, without the model, so
 * the model's clock stays the guest's.
 */
static int coroutine_fn GRAPH_RDLOCK
hdd_co_untimed(BDRVHddState *s, HwmOp op, int64_t offset, int64_t bytes,
               QEMUIOVector *qiov)
{
    g_autofree uint8_t *buf = NULL;
    uint64_t write_outs;
    int ret = 0;

    switch (op) {
    case HWM_OP_READ:
        buf = g_try_malloc(bytes);
        if (!buf) {
            return -ENOMEM;
        }
        /* a batch that reached the image during the read: read again */
        do {
            while (s->writing) {
                qemu_co_queue_wait(&s->write_out_done, NULL);
            }
            write_outs = s->write_outs;
            ret = bdrv_co_pread(s->bs->file, offset, bytes, buf, 0);
        } while (ret >= 0 && write_outs != s->write_outs);
        if (ret >= 0) {
            hdd_overlay(s, offset, bytes, buf);
            qemu_iovec_from_buf(qiov, 0, buf, bytes);
        }
        break;
    case HWM_OP_WRITE:
        /* an older batch of this range must not land after this write */
        while (s->writing) {
            qemu_co_queue_wait(&s->write_out_done, NULL);
        }
        hdd_map_cut(s->unwritten, offset, bytes, NULL, NULL);
        hdd_map_cut(s->map, offset, bytes, NULL, NULL);
        ret = bdrv_co_pwritev(s->bs->file, offset, bytes, qiov, 0);
        break;
    case HWM_OP_FLUSH:
    case HWM_OP_DISCARD:
        break;
    }
    return ret < 0 ? ret : 0;
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
        /* the first command to find the drive off starts its way back */
        if (s->cycle_on_ns == HWM_NEVER) {
            s->cycle_on_ns = hdd_now(s) + HDD_DOWN_NS;
            timer_mod_ns(&s->cycle_timer, s->cycle_on_ns);
        }
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

/* ---- open / close ------------------------------------------------------- */

static char *hdd_default_profile_dir(void)
{
    g_autofree char *datadir = get_relocated_path(CONFIG_QEMU_DATADIR);

    return g_build_filename(datadir, "..", "platter", "profiles", NULL);
}

/*
 * The options as the schema defines them (BlockdevOptionsHddModel in
 * qapi/block-core.json): one definition for -drive's strings and for
 * -blockdev's and blockdev-add's typed values.  Everything but "file" (the
 * image's node, for bdrv_open_file_child()) is consumed.
 */
static BlockdevOptions *hdd_parse_options(QDict *options, Error **errp)
{
    BlockdevOptions *opts = NULL;
    QObject *file;
    Visitor *v;

    qdict_put_str(options, "driver", "hddmodel");
    v = qobject_input_visitor_new_flat_confused(options, errp);
    if (v) {
        visit_type_BlockdevOptions(v, NULL, &opts, errp);
        visit_free(v);
    }
    qdict_del(options, "driver");
    if (!opts) {
        return NULL;
    }
    assert(opts->driver == BLOCKDEV_DRIVER_HDDMODEL);
    file = qobject_ref(qdict_get(options, "file"));
    while (qdict_first(options)) {
        qdict_del(options, qdict_first(options)->key);
    }
    qdict_put_obj(options, "file", file);
    return opts;
}

static HwmTristate hdd_tristate(bool given, bool on)
{
    return !given ? HWM_TRISTATE_PROFILE : on ? HWM_ON : HWM_OFF;
}

static const HwmPolicy hdd_policies[HDD_MODEL_POLICY__MAX] = {
    [HDD_MODEL_POLICY_FIFO] = HWM_POLICY_FIFO,
    [HDD_MODEL_POLICY_SPTF] = HWM_POLICY_SPTF,
};

static HwmConfig hdd_config(const BlockdevOptionsHddModel *o)
{
    return (HwmConfig) {
        .write_cache = hdd_tristate(o->has_write_cache, o->write_cache),
        .fua = hdd_tristate(o->has_fua, o->fua),
        .queue_depth = o->has_queue_depth ? o->queue_depth : 0,
        .policy = o->has_policy ? hdd_policies[o->policy]
                                : HWM_POLICY_PROFILE,
    };
}

static bool hdd_parse_cut(BDRVHddState *s, const BlockdevOptionsHddModel *o,
                          Error **errp)
{
    s->cut_at_ns = HWM_NEVER;
    s->cut_at_request = o->has_power_cut_request ? o->power_cut_request : 0;
    if (o->has_power_cut_request && !o->power_cut_request) {
        error_setg(errp, "hddmodel: " HDD_OPT_CUT_REQUEST " counts from 1");
        return false;
    }
    if (o->has_power_cut_ns) {
        if (o->power_cut_ns > HWM_TIME_MAX) {
            error_setg(errp, "hddmodel: " HDD_OPT_CUT_NS " %" PRIu64
                       " is too large: the model's clock ends at %" PRId64,
                       o->power_cut_ns, (hwm_ns)HWM_TIME_MAX);
            return false;
        }
        s->cut_at_ns = o->power_cut_ns;
        timer_mod_ns(&s->cut_timer, s->cut_at_ns);
    }
    if (o->has_power_cut_seed && !o->has_power_cut_every_ns) {
        error_setg(errp, "hddmodel: " HDD_OPT_CUT_SEED " does nothing without "
                   HDD_OPT_CUT_EVERY);
        return false;
    }
    if (o->has_power_cut_every_ns) {
        if (o->power_cut_every_ns < 2 ||
            o->power_cut_every_ns > HWM_TIME_MAX / 2) {
            error_setg(errp, "hddmodel: " HDD_OPT_CUT_EVERY " %" PRIu64
                       " is out of range: 2 to %" PRId64, o->power_cut_every_ns,
                       (hwm_ns)HWM_TIME_MAX / 2);
            return false;
        }
        s->cycle_every_ns = o->power_cut_every_ns;
        s->cycle_rng = o->has_power_cut_seed ? o->power_cut_seed : 1;
        hdd_cycle_arm(s, 0);
    }
    return true;
}

/*
 * The trace goes to a regular file only: a FIFO without a reader would
 * block QEMU in open(), a device such as /dev/full would fail every write.
 * Opened without blocking, then checked, so a FIFO is never waited on.
 */
static bool hdd_open_trace(BDRVHddState *s, const char *path, Error **errp)
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

static void hdd_free(BDRVHddState *s)
{
    timer_del(&s->timer);
    timer_del(&s->cut_timer);
    timer_del(&s->cycle_timer);
    timer_del(&s->answer_timer);
    g_clear_pointer(&s->acct.samples, g_array_unref);
    if (s->vm_state) {
        qemu_del_vm_change_state_handler(s->vm_state);
        s->vm_state = NULL;
    }
    g_clear_pointer(&s->ff_bh, qemu_bh_delete);
    g_clear_pointer(&s->cut_bh, qemu_bh_delete);
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
    g_clear_pointer(&s->by_tag, g_hash_table_unref);
    g_clear_pointer(&s->map, hdd_map_free);
    g_clear_pointer(&s->unwritten, hdd_map_free);
    g_clear_pointer(&s->dev, hwm_device_free);
    g_clear_pointer(&s->profile, hwm_profile_free);
}

static int hdd_open(BlockDriverState *bs, QDict *options, int flags,
                    Error **errp)
{
    BDRVHddState *s = bs->opaque;
    g_autoptr(BlockdevOptions) opts = NULL;
    BlockdevOptionsHddModel *o;
    HwmConfig cfg;
    g_autoptr(GError) gerr = NULL;
    g_autofree char *default_dir = NULL;
    const char *profile, *dir;
    int64_t len;
    int ret;

    s->bs = bs;
    QTAILQ_INIT(&s->reqs);
    QTAILQ_INIT(&s->answers);
    s->by_tag = g_hash_table_new(g_int64_hash, g_int64_equal);
    s->map = hdd_map_new();
    s->unwritten = hdd_map_new();
    qemu_co_queue_init(&s->write_out_done);
    timer_init_ns(&s->timer, QEMU_CLOCK_VIRTUAL, hdd_timer_cb, s);
    timer_init_ns(&s->cut_timer, QEMU_CLOCK_VIRTUAL, hdd_cut_timer_cb, s);
    timer_init_ns(&s->cycle_timer, QEMU_CLOCK_VIRTUAL, hdd_cycle_timer_cb, s);
    timer_init_ns(&s->answer_timer, QEMU_CLOCK_VIRTUAL, hdd_answer_timer_cb,
                  s);
    s->vm_state = qemu_add_vm_change_state_handler(hdd_vm_state_change, s);
    s->ff_bh = aio_bh_new(bdrv_get_aio_context(bs), hdd_fast_forward_bh, s);
    s->cut_bh = aio_bh_new(qemu_get_aio_context(), hdd_cut_bh, s);

    opts = hdd_parse_options(options, errp);
    if (!opts) {
        ret = -EINVAL;
        goto fail;
    }
    o = &opts->u.hddmodel;

    ret = bdrv_open_file_child(NULL, options, "file", bs, errp);
    if (ret < 0) {
        goto fail;
    }

    cfg = hdd_config(o);
    profile = o->profile ? o->profile : HDD_DEFAULT_PROFILE;
    dir = o->profile_dir;
    if (!dir) {
        default_dir = hdd_default_profile_dir();
        dir = default_dir;
    }
    s->profile = hwm_profile_load(profile, dir, &gerr);
    if (!s->profile) {
        error_setg(errp, "hddmodel: profile '%s' (dir %s): %s", profile, dir,
                   gerr->message);
        ret = -EINVAL;
        goto fail;
    }
    s->dev = hwm_device_new(s->profile, &cfg, &gerr);
    if (!s->dev) {
        error_setg(errp, "hddmodel: profile '%s': %s", profile,
                   gerr->message);
        ret = -EINVAL;
        goto fail;
    }
    s->queue_depth = MAX(hwm_device_queue_depth(s->dev), 1);

    bdrv_graph_rdlock_main_loop();
    len = bdrv_getlength(bs->file->bs);
    bdrv_graph_rdunlock_main_loop();
    if (len < 0) {
        error_setg_errno(errp, -len, "hddmodel: cannot get the image size");
        ret = len;
        goto fail;
    }
    if (len % HWM_SECTOR_BYTES ||
        (uint64_t)len > hwm_device_capacity_bytes(s->dev)) {
        error_setg(errp, "hddmodel: image size %" PRId64 " must be a multiple "
                   "of %u and at most the profile's capacity %" PRIu64,
                   len, HWM_SECTOR_BYTES, hwm_device_capacity_bytes(s->dev));
        ret = -EINVAL;
        goto fail;
    }

    if (o->trace && !hdd_open_trace(s, o->trace, errp)) {
        ret = -EINVAL;
        goto fail;
    }

    if (!hdd_parse_cut(s, o, errp)) {
        ret = -EINVAL;
        goto fail;
    }

    bs->supported_write_flags = hwm_device_fua(s->dev) ? BDRV_REQ_FUA : 0;
    return 0;

fail:
    hdd_free(s);
    return ret;
}

static void GRAPH_UNLOCKED hdd_close(BlockDriverState *bs)
{
    BDRVHddState *s = bs->opaque;
    HddImageWrite w = { .s = s };
    GRAPH_RDLOCK_GUARD_MAINLOOP();

    /* (the drain before has answered them; none may be left waiting) */
    hdd_answer_all(s);
    switch (s->state) {
    case HDD_CUT:
        /* a power loss whose cut has not run yet */
        hdd_cut_for_good(s);
        break;
    case HDD_OFF:
        break;
    default:
        /*
         * A clean shutdown: everything the drive holds reaches the media.
         * bdrv_close() drained first, so no request should be left; fail
         * any rather than leave a coroutine waiting.
         */
        hdd_set_state(s, HDD_OFF);
        hdd_fail_all(s);
        /* the durable batch first: the cache's data is newer */
        w.ret = hdd_write_out(s);
        hdd_map_clear(s->map, hdd_image_write_piece, &w);
        break;
    }
    if (w.ret == 0) {
        bdrv_flush(bs->file->bs);
    }
    hdd_free(s);
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
