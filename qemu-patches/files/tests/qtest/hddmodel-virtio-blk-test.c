/*
 * qtest: the hddmodel driver behind virtio-blk (no FUA: the guest sees
 * fua=0, the block layer follows a FUA write with a flush).  Completion
 * times against the oracle, write-through, requests across a VM stop or a
 * drain, and what a hostile guest can send: past the end, zero length,
 * misaligned, huge, flush storms, more requests than the queue depth.
 *
 * Copyright (C) 2026 the platter authors.
 *
 * This work is licensed under the terms of the GNU GPL, version 2 or later.
 * See the COPYING file in the top-level directory.
 */

#include "qemu/osdep.h"
#include "hddmodel-rig.h"

/*
 * A mix of reads, writes and flushes at assorted offsets: every completion
 * lands exactly where the model puts it, data reads back intact.
 */
static void run_sequence(int64_t *done, int n)
{
    Rig *r = rig_start(NULL, true);
    Oracle *o = oracle_new(false, true);
    uint8_t wbuf[8192], rbuf[8192];
    int i;

    vblk_setup(r);
    for (i = 0; i < n; i++) {
        uint64_t sector = ((uint64_t)i * 7919 * 8) % (IMG_SIZE / 512 - 16);
        size_t len = (i % 3 == 2) ? 8192 : 4096;
        int64_t t0, t, expect;

        if (i % 5 == 4) {
            t = vblk_io(r, VIRTIO_BLK_T_FLUSH, 0, NULL, 0, &t0);
            expect = oracle_request(o, t0, HWM_OP_FLUSH, 0, 0, 0);
            g_test_message("%d flush at %" PRId64 ": done %" PRId64
                           " model %" PRId64, i, t0, t, expect);
        } else {
            fill(wbuf, len, i);
            t = vblk_io(r, VIRTIO_BLK_T_OUT, sector, wbuf, len, &t0);
            expect = oracle_request(o, t0, HWM_OP_WRITE, 0, sector * 512, len);
            g_test_message("%d write %" PRIu64 "+%zu at %" PRId64 ": done %"
                           PRId64 " model %" PRId64, i, sector, len, t0, t,
                           expect);
            g_assert_cmpint(t, ==, expect);
            done[i] = t;

            memset(rbuf, 0, len);
            t = vblk_io(r, VIRTIO_BLK_T_IN, sector, rbuf, len, &t0);
            expect = oracle_request(o, t0, HWM_OP_READ, 0, sector * 512, len);
            g_test_message("%d read at %" PRId64 ": done %" PRId64
                           " model %" PRId64, i, t0, t, expect);
            g_assert_cmpmem(rbuf, len, wbuf, len);
        }
        g_assert_cmpint(t, ==, expect);
        g_assert_cmpint(t, >, t0);
        done[i] = done[i] * 31 + t;
        /* let the guest "think" a deterministic while between requests */
        step(r, 1000 + i * 37000);
    }
    g_assert_cmpuint(node_stat(r, "d0", "writes"), >, 0);
    g_assert_cmpuint(node_stat(r, "d0", "fua-writes"), ==, 0);
    assert_all_stats(r, "d0");
    {
        /* the drive has run at least as far as the oracle */
        HwmStats os;
        QDict *st = node_stats(r, "d0");

        hwm_stats(o->dev, &os);
        g_assert_cmpuint(qdict_get_int(st, "write-misses"), >=,
                         os.write_misses);
        g_assert_cmpuint(qdict_get_int(st, "write-misses"), <=,
                         qdict_get_int(st, "media-ops"));
        /* counted as reads complete: the same on both */
        g_assert_cmpuint(qdict_get_int(st, "reads"), ==, os.reads);
        g_assert_cmpuint(qdict_get_int(st, "read-segment-hits"), ==,
                         os.read_segment_hits);
        g_assert_cmpuint(qdict_get_int(st, "read-ahead-joins"), ==,
                         os.read_ahead_joins);
        qobject_unref(st);
    }
    oracle_free(o);
    rig_stop(r);
}

static void test_virtio_timing(void)
{
    int64_t done[20] = { 0 };

    run_sequence(done, G_N_ELEMENTS(done));
}

static void test_determinism(void)
{
    int64_t a[12] = { 0 }, b[12] = { 0 };

    run_sequence(a, G_N_ELEMENTS(a));
    run_sequence(b, G_N_ELEMENTS(b));
    g_assert_cmpmem(a, sizeof(a), b, sizeof(b));
}

/*
 * write-cache=off: every write is durable when it completes, on the image
 * once the VM stops.
 */
static void test_write_through(void)
{
    Rig *r = rig_start(NULL, false);
    Oracle *o = oracle_new(false, false);
    uint8_t a[4096], got[4096];
    int64_t t0, t;

    fill(a, sizeof(a), 7);
    vblk_setup(r);
    t = vblk_io(r, VIRTIO_BLK_T_OUT, 6000, a, sizeof(a), &t0);
    g_assert_cmpint(t, ==, oracle_request(o, t0, HWM_OP_WRITE, 0, 6000 * 512,
                                          sizeof(a)));
    g_assert_cmpuint(node_stat(r, "d0", "cached-bytes"), ==, 0);
    vm_stop(r);
    read_image(r->img, 6000 * 512, got, sizeof(got));
    g_assert_cmpmem(got, sizeof(got), a, sizeof(a));
    oracle_free(o);
    rig_stop(r);
}

/*
 * Stopping the VM with a request in flight drains it: the virtual clock
 * stops, so the driver must finish the request on its own instead of
 * waiting for a timer that cannot fire (a hang otherwise).  The guest
 * continues afterwards.
 */
static void test_stop_in_flight(void)
{
    Rig *r = rig_start(NULL, true);
    uint8_t buf[4096], got[4096];
    VblkReq q;
    int64_t t0;

    vblk_setup(r);
    fill(buf, sizeof(buf), 6);
    vblk_prepare(r, &q, VIRTIO_BLK_T_OUT, 50000, buf, sizeof(buf));
    vblk_kick(r, &q, NULL);
    g_assert_false(qvirtqueue_get_buf(r->qts, r->vq, NULL, NULL));

    vm_stop(r);
    vblk_wait(r, &q, 1, false);
    g_assert_cmpint(q.status, ==, VIRTIO_BLK_S_OK);
    vblk_finish(r, &q, NULL);
    vm_cont(r);

    vblk_io(r, VIRTIO_BLK_T_IN, 50000, got, sizeof(got), &t0);
    g_assert_cmpmem(got, sizeof(got), buf, sizeof(buf));
    rig_stop(r);
}

/*
 * Past the end of the device, straddling it, and offset + length wrapping
 * around: virtio-blk refuses them (IOERR) and the model never sees them;
 * the last sector still works.
 */
static void test_past_end(void)
{
    Rig *r = rig_start(NULL, true);
    uint64_t cap = IMG_SIZE / 512, before;
    uint8_t buf[4096];

    vblk_setup(r);
    memset(buf, 0x3c, sizeof(buf));
    before = d0_requests(r);
    g_assert_cmpint(vblk_try(r, VIRTIO_BLK_T_IN, cap, buf, 512, NULL), ==,
                    VIRTIO_BLK_S_IOERR);
    g_assert_cmpint(vblk_try(r, VIRTIO_BLK_T_OUT, cap, buf, 512, NULL), ==,
                    VIRTIO_BLK_S_IOERR);
    g_assert_cmpint(vblk_try(r, VIRTIO_BLK_T_OUT, cap - 4, buf, 4096, NULL),
                    ==, VIRTIO_BLK_S_IOERR);
    g_assert_cmpint(vblk_try(r, VIRTIO_BLK_T_IN, UINT64_MAX - 3, buf, 4096,
                             NULL), ==, VIRTIO_BLK_S_IOERR);
    /* sector * 512 wraps to byte offset 0 */
    g_assert_cmpint(vblk_try(r, VIRTIO_BLK_T_OUT, 1ull << 55, buf, 4096,
                             NULL), ==, VIRTIO_BLK_S_IOERR);
    g_assert_cmpuint(d0_requests(r), ==, before);
    /* the last 4 KiB is fine */
    g_assert_cmpint(vblk_try(r, VIRTIO_BLK_T_OUT, cap - 8, buf, 4096, NULL),
                    ==, VIRTIO_BLK_S_OK);
    g_assert_cmpuint(d0_requests(r), ==, before + 1);

    rig_end(r);
}

/*
 * Zero-length reads and writes (virtio-blk can express them: a request
 * with no data descriptor) succeed and transfer nothing, as on any other
 * QEMU disk; they are no command for the model.  Also at the very end of
 * the device.
 */
static void test_zero_length(void)
{
    Rig *r = rig_start(NULL, true);
    uint64_t before;

    vblk_setup(r);
    before = d0_requests(r);
    g_assert_cmpint(vblk_try(r, VIRTIO_BLK_T_OUT, 100, NULL, 0, NULL), ==,
                    VIRTIO_BLK_S_OK);
    g_assert_cmpint(vblk_try(r, VIRTIO_BLK_T_IN, 100, NULL, 0, NULL), ==,
                    VIRTIO_BLK_S_OK);
    g_assert_cmpint(vblk_try(r, VIRTIO_BLK_T_OUT, IMG_SIZE / 512, NULL, 0,
                             NULL), ==, VIRTIO_BLK_S_OK);
    g_assert_cmpint(vblk_try(r, VIRTIO_BLK_T_IN, IMG_SIZE / 512, NULL, 0,
                             NULL), ==, VIRTIO_BLK_S_OK);
    g_assert_cmpuint(d0_requests(r), ==, before);
    g_assert_cmpuint(node_stat(r, "d0", "cached-bytes"), ==, 0);

    /* and while the VM is stopped (served without the model) */
    vm_stop(r);
    g_assert_cmpint(vblk_try(r, VIRTIO_BLK_T_OUT, 100, NULL, 0, NULL), ==,
                    VIRTIO_BLK_S_OK);
    g_assert_cmpint(vblk_try(r, VIRTIO_BLK_T_IN, 100, NULL, 0, NULL), ==,
                    VIRTIO_BLK_S_OK);
    vm_cont(r);

    rig_end(r);
}

/*
 * A command the model refuses (here: past the last time it accepts, the
 * clock at HWM_TIME_MAX + 1 ns) fails, and like every answer the driver
 * gives itself it completes from the virtual clock at the instant it came,
 * in the order the requests came.  Returned at once from its coroutine,
 * it completed from the block layer's BH instead (blk_aio_prwv()), which
 * under icount runs while the vCPU goes on, and here after the answers
 * the timer gave: the zero-length read kicked after it came back first.
 * (The PIT's 55 ms tick would take ages to step over: pit=off.)
 */
static void test_refused(void)
{
    Rig *r = rig_start_full(NULL, true, "", "-machine pit=off ");
    VblkReq q[2];
    uint8_t buf[4096];
    uint64_t before;
    int i;

    vblk_setup(r);
    step(r, (int64_t)HWM_TIME_MAX + 1 - now(r));
    before = d0_requests(r);
    /* one notify: virtio-blk submits them in sector order, q[0] first */
    vblk_prepare(r, &q[0], VIRTIO_BLK_T_IN, 0, NULL, sizeof(buf));
    vblk_queue(r, &q[0], NULL);
    vblk_prepare(r, &q[1], VIRTIO_BLK_T_IN, 1000, NULL, 0);
    vblk_queue(r, &q[1], NULL);
    vblk_notify(r);
    for (i = 0; i < 2; i++) {
        /* (fails if another request is used first) */
        vblk_wait(r, &q[i], 1, false);
        g_assert_cmpint(q[i].t1, ==, q[i].t0);
    }
    g_assert_cmpint(q[0].status, ==, VIRTIO_BLK_S_IOERR);
    g_assert_cmpint(q[1].status, ==, VIRTIO_BLK_S_OK);
    vblk_finish(r, &q[0], NULL);
    vblk_finish(r, &q[1], NULL);
    g_assert_cmpuint(d0_requests(r), ==, before);
    /* the model takes nothing any more: no assert_alive() */
    rig_stop(r);
}

/*
 * Lengths that are not a multiple of the 512-byte block are refused by
 * virtio-blk (IOERR); data split over descriptors at odd guest addresses
 * and sizes, and requests at odd sectors, work and read back intact.
 */
static void test_misaligned(void)
{
    Rig *r = rig_start(NULL, true);
    static const size_t wsegs[] = { 1, 511, 1000, 0 };
    static const size_t rsegs[] = { 3, 4000, 77, 0 };
    uint8_t a[8192], got[8192];
    uint64_t before;

    vblk_setup(r);
    fill(a, sizeof(a), 11);
    before = d0_requests(r);
    g_assert_cmpint(vblk_try(r, VIRTIO_BLK_T_OUT, 200, a, 100, NULL), ==,
                    VIRTIO_BLK_S_IOERR);
    g_assert_cmpint(vblk_try(r, VIRTIO_BLK_T_OUT, 200, a, 4097, NULL), ==,
                    VIRTIO_BLK_S_IOERR);
    g_assert_cmpint(vblk_try(r, VIRTIO_BLK_T_IN, 200, got, 511, NULL), ==,
                    VIRTIO_BLK_S_IOERR);
    g_assert_cmpint(vblk_try(r, VIRTIO_BLK_T_IN, 200, got, 4095, rsegs), ==,
                    VIRTIO_BLK_S_IOERR);
    g_assert_cmpuint(d0_requests(r), ==, before);

    /* 4 KiB at sector 7: not 4 KiB aligned, in odd-sized pieces */
    g_assert_cmpint(vblk_try(r, VIRTIO_BLK_T_OUT, 7, a, 4096, wsegs), ==,
                    VIRTIO_BLK_S_OK);
    memset(got, 0, sizeof(got));
    g_assert_cmpint(vblk_try(r, VIRTIO_BLK_T_IN, 7, got, 4096, rsegs), ==,
                    VIRTIO_BLK_S_OK);
    g_assert_cmpmem(got, 4096, a, 4096);
    /* a read straddling cached and uncached sectors */
    g_assert_cmpint(vblk_try(r, VIRTIO_BLK_T_IN, 3, got, 8192, rsegs), ==,
                    VIRTIO_BLK_S_OK);
    g_assert_cmpmem(got + 2048, 4096, a, 4096);
    g_assert_true(got[0] == 0 && got[2047] == 0 && got[6144] == 0 &&
                  got[8191] == 0);
    g_assert_cmpuint(d0_requests(r), ==, before + 3);

    rig_end(r);
}

/*
 * The largest request the device can take: the whole 64 MiB device in one
 * write and one read; one sector more is refused.
 */
static void test_huge(void)
{
    g_autofree char *img = make_image();
    Rig *r = rig_start(img, true);
    uint64_t before, off;
    uint8_t want[4096], got[4096];
    VblkReq q;
    int i;

    vblk_setup(r);
    vblk_prepare(r, &q, VIRTIO_BLK_T_OUT, 0, NULL, IMG_SIZE);
    qtest_memset(r->qts, q.addr + VBLK_HDR, 0x5a, IMG_SIZE);
    vblk_kick(r, &q, NULL);
    vblk_wait(r, &q, 1, true);
    g_assert_cmpint(q.status, ==, VIRTIO_BLK_S_OK);
    vblk_finish(r, &q, NULL);
    g_assert_cmpuint(node_stat(r, "d0", "write-bytes"), ==, IMG_SIZE);

    /* one sector past the end, 64 MiB long: refused, nothing changes */
    before = d0_requests(r);
    vblk_prepare(r, &q, VIRTIO_BLK_T_OUT, 1, NULL, IMG_SIZE);
    vblk_kick(r, &q, NULL);
    vblk_wait(r, &q, 1, true);
    g_assert_cmpint(q.status, ==, VIRTIO_BLK_S_IOERR);
    vblk_finish(r, &q, NULL);
    g_assert_cmpuint(d0_requests(r), ==, before);

    vblk_prepare(r, &q, VIRTIO_BLK_T_IN, 0, NULL, IMG_SIZE);
    qtest_memset(r->qts, q.addr + VBLK_HDR, 0, IMG_SIZE);
    vblk_kick(r, &q, NULL);
    vblk_wait(r, &q, 1, true);
    g_assert_cmpint(q.status, ==, VIRTIO_BLK_S_OK);
    memset(want, 0x5a, sizeof(want));
    for (i = 0; i < 16; i++) {
        off = (uint64_t)i * (IMG_SIZE / 16) + (i == 15 ? IMG_SIZE / 16 - 4096
                                                      : 512 * i);
        qtest_memread(r->qts, q.addr + VBLK_HDR + off, got, sizeof(got));
        g_assert_cmpmem(got, sizeof(got), want, sizeof(want));
    }
    vblk_finish(r, &q, NULL);

    assert_alive(r);
    rig_stop(r);

    /* the clean shutdown wrote the whole device */
    read_image(img, IMG_SIZE - 8 * 4096, got, sizeof(got));
    g_assert_cmpmem(got, sizeof(got), want, sizeof(want));
    unlink(img);
}

#define STORM_BATCH 100         /* flushes in flight at once: 200 descriptors */
#define STORM_BATCHES 30

/*
 * Thousands of back-to-back flushes, a hundred in flight at a time, some
 * with a write in the same batch: every one completes OK, in order, and
 * every one reaches the drive.
 */
static void test_flush_storm(void)
{
    Rig *r = rig_start(NULL, true);
    VblkReq q[STORM_BATCH];
    uint8_t a[4096];
    uint64_t flushes0;
    int b, i;

    vblk_setup(r);
    flushes0 = node_stat(r, "d0", "flushes");
    for (b = 0; b < STORM_BATCHES; b++) {
        for (i = 0; i < STORM_BATCH; i++) {
            if (i == 0 && b % 3 == 0) {
                fill(a, sizeof(a), b);
                vblk_prepare(r, &q[i], VIRTIO_BLK_T_OUT, 30000 + b * 8, a,
                             sizeof(a));
            } else {
                vblk_prepare(r, &q[i], VIRTIO_BLK_T_FLUSH, 0, NULL, 0);
            }
            vblk_kick(r, &q[i], NULL);
        }
        vblk_wait(r, q, STORM_BATCH, true);
        for (i = 0; i < STORM_BATCH; i++) {
            g_assert_cmpint(q[i].status, ==, VIRTIO_BLK_S_OK);
            /* the block layer serializes flushes: they finish in order */
            if (i > 1) {
                g_assert_cmpint(q[i].t1, >=, q[i - 1].t1);
            }
            vblk_finish(r, &q[i], NULL);
        }
    }
    g_assert_cmpuint(node_stat(r, "d0", "flushes") - flushes0, ==,
                     STORM_BATCHES * STORM_BATCH - (STORM_BATCHES + 2) / 3);
    /* nothing dirty is left after the last flush */
    g_assert_cmpuint(node_stat(r, "d0", "dirty-bytes"), ==, 0);
    rig_end(r);
}

#define OVF_REQS 80             /* 240 of the 256 descriptors */
#define OVF_QD 4

static void ovf_submit(Rig *r, VblkReq *q, uint32_t type, uint8_t *bufs)
{
    int i;

    for (i = 0; i < OVF_REQS; i++) {
        if (type == VIRTIO_BLK_T_OUT) {
            fill(bufs + i * 4096, 4096, 100 + i);
        }
        /* 32 KiB apart: virtio-blk does not merge them */
        vblk_prepare(r, &q[i], type, 10000 + i * 64,
                     type == VIRTIO_BLK_T_OUT ? bufs + i * 4096 : NULL, 4096);
        vblk_kick(r, &q[i], NULL);
    }
}

/*
 * Many more requests in flight than the drive's queue depth: the extra
 * ones wait in the driver's host queue, every one completes at the time
 * the model gives for a FIFO host queue, and the data is intact.
 */
static void test_queue_overflow(void)
{
    Rig *r = rig_start_opts(NULL, true, "queue-depth=" G_STRINGIFY(OVF_QD) ",");
    Oracle *o = oracle_new_qd(false, true, OVF_QD);
    g_autofree uint8_t *w = g_malloc(OVF_REQS * 4096);
    g_autofree uint8_t *got = g_malloc(4096);
    HwmRequest hr[OVF_REQS];
    int64_t want[OVF_REQS];
    VblkReq q[OVF_REQS];
    uint32_t type;
    int i, pass;

    vblk_setup(r);
    for (pass = 0; pass < 2; pass++) {
        type = pass ? VIRTIO_BLK_T_IN : VIRTIO_BLK_T_OUT;
        ovf_submit(r, q, type, w);
        vblk_wait(r, q, OVF_REQS, true);
        for (i = 0; i < OVF_REQS; i++) {
            hr[i] = (HwmRequest) {
                .tag = i, .op = pass ? HWM_OP_READ : HWM_OP_WRITE,
                .offset = (10000 + i * 64) * 512ull, .length = 4096,
            };
        }
        oracle_burst(o, q[0].t0, hr, OVF_REQS, OVF_QD, want);
        for (i = 0; i < OVF_REQS; i++) {
            g_assert_cmpint(q[i].status, ==, VIRTIO_BLK_S_OK);
            g_assert_cmpint(q[i].t0, ==, q[0].t0);
            g_assert_cmpint(q[i].t1, ==, want[i]);
            vblk_finish(r, &q[i], pass ? got : NULL);
            if (pass) {
                g_assert_cmpmem(got, 4096, w + i * 4096, 4096);
            }
        }
        g_assert_cmpuint(node_stat(r, "d0", "host-queued"), ==,
                         (pass + 1) * (OVF_REQS - OVF_QD));
    }
    oracle_free(o);
    rig_end(r);
}

/*
 * Writes more than the queue depth into the drive, one clock step in:
 * some are in the drive, the rest in the driver's host queue.
 */
static void ovf_start(Rig *r, VblkReq *q, uint8_t *bufs)
{
    vblk_setup(r);
    ovf_submit(r, q, VIRTIO_BLK_T_OUT, bufs);
    step_next(r);
    g_assert_cmpuint(node_stat(r, "d0", "in-flight"), >, OVF_QD);
}

/*
 * stop with more requests in flight than the queue depth: the VM stops
 * only when all are done (the driver runs the model on its own, the
 * virtual clock being stopped); requests the guest issues while stopped
 * are served at once; cont resumes normally.
 */
static void test_stop_full_queue(void)
{
    Rig *r = rig_start_opts(NULL, true, "queue-depth=" G_STRINGIFY(OVF_QD) ",");
    g_autofree uint8_t *w = g_malloc(OVF_REQS * 4096);
    uint8_t got[4096], b[4096];
    VblkReq q[OVF_REQS];
    int64_t t0;
    int i;

    ovf_start(r, q, w);
    vm_stop(r);
    vblk_wait(r, q, OVF_REQS, false);
    for (i = 0; i < OVF_REQS; i++) {
        g_assert_cmpint(q[i].status, ==, VIRTIO_BLK_S_OK);
        vblk_finish(r, &q[i], NULL);
    }
    g_assert_cmpuint(node_stat(r, "d0", "in-flight"), ==, 0);

    /* while stopped: served without the clock */
    fill(b, sizeof(b), 13);
    g_assert_cmpint(vblk_try(r, VIRTIO_BLK_T_OUT, 10000, b, sizeof(b), NULL),
                    ==, VIRTIO_BLK_S_OK);
    vm_cont(r);

    vblk_io(r, VIRTIO_BLK_T_IN, 10000, got, sizeof(got), &t0);
    g_assert_cmpmem(got, sizeof(got), b, sizeof(b));
    for (i = 1; i < OVF_REQS; i++) {
        vblk_io(r, VIRTIO_BLK_T_IN, q[i].sector, got, sizeof(got), &t0);
        g_assert_cmpmem(got, sizeof(got), w + i * 4096, 4096);
    }
    rig_end(r);
}

/*
 * A drained section while the VM runs and requests are in flight (here
 * blockdev-reopen, which drains the node before it finds the driver
 * cannot reopen): the drain completes them without the clock moving, and
 * the guest carries on.
 */
static void test_drain_in_flight(void)
{
    Rig *r = rig_start_opts(NULL, true, "queue-depth=" G_STRINGIFY(OVF_QD) ","
                            "file.node-name=d0f,");
    g_autofree uint8_t *w = g_malloc(OVF_REQS * 4096);
    uint8_t got[4096];
    VblkReq q[OVF_REQS];
    QDict *resp;
    int64_t t0;
    int i;

    ovf_start(r, q, w);
    resp = qtest_qmp(r->qts, "{'execute': 'blockdev-reopen', 'arguments':"
                     " {'options': [{'driver': 'hddmodel', 'node-name': 'd0',"
                     " 'file': 'd0f'}]}}");
    g_test_message("blockdev-reopen: %s", qdict_haskey(resp, "error") ?
                   qdict_get_str(qdict_get_qdict(resp, "error"), "desc") :
                   "ok");
    qobject_unref(resp);
    vblk_wait(r, q, OVF_REQS, false);
    for (i = 0; i < OVF_REQS; i++) {
        g_assert_cmpint(q[i].status, ==, VIRTIO_BLK_S_OK);
        vblk_finish(r, &q[i], NULL);
    }
    for (i = 0; i < OVF_REQS; i++) {
        vblk_io(r, VIRTIO_BLK_T_IN, q[i].sector, got, sizeof(got), &t0);
        g_assert_cmpmem(got, sizeof(got), w + i * 4096, 4096);
    }
    rig_end(r);
}

/*
 * Requests of one instant that complete out of order: a far read, then
 * two overlapping writes and a read of them, kicked one by one at the
 * same virtual time.  The cached writes overtake the read.  d0's trace
 * must list them in the order the driver took them, as platter-sim
 * --trace-out does: a replay submits the lines of one instant in file
 * order, and overlapping commands do not commute.  scripts/test-qemu
 * replays the trace with platter-sim --verify.
 */
static void test_trace_order(void)
{
    static const struct {
        uint32_t type;
        uint64_t sector;
        size_t len;
    } burst[] = {
        { VIRTIO_BLK_T_IN, 100000, 65536 },
        { VIRTIO_BLK_T_OUT, 64, 8192 },
        { VIRTIO_BLK_T_OUT, 68, 8192 },
        { VIRTIO_BLK_T_IN, 64, 4096 },
    };
    enum { N = G_N_ELEMENTS(burst) };
    Rig *r = rig_start(NULL, true);
    uint8_t w[8192];
    VblkReq q[N];
    g_autofree char *trace = NULL;
    g_auto(GStrv) lines = NULL;
    int i, k = 0;

    vblk_setup(r);
    fill(w, sizeof(w), 11);
    for (i = 0; i < N; i++) {
        vblk_prepare(r, &q[i], burst[i].type, burst[i].sector,
                     burst[i].type == VIRTIO_BLK_T_OUT ? w : NULL,
                     burst[i].len);
        vblk_kick(r, &q[i], NULL);
    }
    vblk_wait(r, q, N, true);
    for (i = 0; i < N; i++) {
        g_assert_cmpint(q[i].status, ==, VIRTIO_BLK_S_OK);
        g_assert_cmpint(q[i].t0, ==, q[0].t0);
        vblk_finish(r, &q[i], NULL);
    }
    /* the point of the test: completion order is not submission order */
    g_assert_cmpint(q[1].t1, <, q[0].t1);

    trace = rig_stop_trace(r);
    lines = g_strsplit(trace, "\n", -1);
    for (i = 0; lines[i]; i++) {
        int64_t sub, done;
        uint64_t off, len;
        char op, flags[8];

        if (!lines[i][0] || lines[i][0] == '#') {
            continue;
        }
        g_assert_cmpint(sscanf(lines[i], "%" SCNd64 " %c %" SCNu64 " %"
                               SCNu64 " %7s # done=%" SCNd64, &sub, &op,
                               &off, &len, flags, &done), ==, 6);
        g_test_message("trace line %d: %s", i, lines[i]);
        g_assert_cmpint(k, <, N);
        g_assert_cmpint(op, ==, burst[k].type == VIRTIO_BLK_T_OUT ? 'W' : 'R');
        g_assert_cmpuint(off, ==, burst[k].sector * 512);
        g_assert_cmpuint(len, ==, burst[k].len);
        g_assert_cmpint(sub, ==, q[k].t0);
        g_assert_cmpint(done, ==, q[k].t1);
        k++;
    }
    g_assert_cmpint(k, ==, N);
}

int main(int argc, char **argv)
{
    if (rig_test_init(&argc, &argv)) {
        qtest_add_func("/hddmodel/virtio-blk/timing", test_virtio_timing);
        qtest_add_func("/hddmodel/virtio-blk/determinism", test_determinism);
        qtest_add_func("/hddmodel/virtio-blk/trace-order", test_trace_order);
        qtest_add_func("/hddmodel/virtio-blk/write-through",
                       test_write_through);
        qtest_add_func("/hddmodel/virtio-blk/stop-in-flight",
                       test_stop_in_flight);
        qtest_add_func("/hddmodel/virtio-blk/hostile/past-end",
                       test_past_end);
        qtest_add_func("/hddmodel/virtio-blk/hostile/zero-length",
                       test_zero_length);
        qtest_add_func("/hddmodel/virtio-blk/hostile/misaligned",
                       test_misaligned);
        qtest_add_func("/hddmodel/virtio-blk/hostile/refused", test_refused);
        qtest_add_func("/hddmodel/virtio-blk/hostile/huge", test_huge);
        qtest_add_func("/hddmodel/virtio-blk/hostile/flush-storm",
                       test_flush_storm);
        qtest_add_func("/hddmodel/virtio-blk/hostile/queue-overflow",
                       test_queue_overflow);
        qtest_add_func("/hddmodel/virtio-blk/hostile/stop-full-queue",
                       test_stop_full_queue);
        qtest_add_func("/hddmodel/virtio-blk/hostile/drain-in-flight",
                       test_drain_in_flight);
    }
    return g_test_run();
}
