/*
 * hddmodel: durable data on its way to the backing image.
 *
 * Owns s->unwritten (the batch: durable, not yet on the image), s->writing
 * (the batch being written), s->write_outs and s->write_out_done, and every
 * access to the image: the batch's write-out (HDD_UNWRITTEN_MAX_*), the
 * model's destages into it, completed reads (image data under what the
 * drive holds), and untimed I/O while the VM is not running, ordered
 * against a write-out under way.  The image I/O is synchronous, outside
 * coroutines (but for untimed I/O), so host I/O speed is invisible to the
 * guest.
 *
 * State transitions it makes: IDLE -> WRITE_OUT -> IDLE (or on to a
 * pending cut, through hdd_delivered()) when the VM stops.
 *
 * Copyright (C) 2026 the platter authors.
 *
 * This work is licensed under the terms of the GNU GPL, version 2 or later.
 * See the COPYING file in the top-level directory.
 */

#include "qemu/osdep.h"
#include "qemu/error-report.h"
#include "block/block-io.h"
#include "block/block_int.h"
#include "trace.h"

#include "hddmodel.h"

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
int GRAPH_RDLOCK hdd_write_out(BDRVHddState *s)
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

/*
 * Everything the drive holds goes to the image, the batch first (the
 * cache's data is newer): a clean shutdown, the state already OFF.  0, or
 * how the last failed write failed.
 */
int GRAPH_RDLOCK hdd_write_out_everything(BDRVHddState *s)
{
    HddImageWrite w = { .s = s };

    w.ret = hdd_write_out(s);
    hdd_map_clear(s->map, hdd_image_write_piece, &w);
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
int GRAPH_RDLOCK hdd_write_out_if_due(BDRVHddState *s)
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
int GRAPH_RDLOCK
hdd_destage(BDRVHddState *s, uint64_t offset, uint64_t length)
{
    trace_hddmodel_destage(s, offset, length, s->now);
    hdd_map_cut(s->map, offset, length, hdd_destage_piece, s);
    return hdd_write_out_if_due(s);
}

void hdd_media_overlay(BDRVHddState *s, uint64_t offset, uint64_t length,
                       uint8_t *buf)
{
    if (s->writing) {
        hdd_map_overlay(s->writing, offset, length, buf);
    }
    hdd_map_overlay(s->unwritten, offset, length, buf);
}

/* Over buf, image data: what the drive holds that the image does not. */
static void hdd_overlay(BDRVHddState *s, uint64_t offset, uint64_t length,
                        uint8_t *buf)
{
    hdd_media_overlay(s, offset, length, buf);
    hdd_map_overlay(s->map, offset, length, buf);
}

int GRAPH_RDLOCK hdd_read_data(BDRVHddState *s, HddReq *req)
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

int GRAPH_RDLOCK
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
void hdd_vm_state_change(void *opaque, bool running, RunState state)
{
    BDRVHddState *s = opaque;

    if (!running) {
        GRAPH_RDLOCK_GUARD_MAINLOOP();

        hdd_write_out_now(s);
    }
}

/*
 * I/O while the VM is not running (device realize probing the partition
 * table, block jobs or QMP on a stopped VM) is not part of any workload:
 * serve it from cache and image at once, durable, without the model, so
 * the model's clock stays the guest's.
 */
int coroutine_fn GRAPH_RDLOCK
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
        hdd_crash_untimed_write(s);
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
