/*
 * qtest: power cuts of an hddmodel drive, through virtio-blk.  The QMP
 * cut (power comes back at once) and the scheduled ones (power-cut-ns,
 * power-cut-request: QEMU shuts down; power-cut-every-ns: again and
 * again, and it comes back), with requests in flight, in the
 * host queue, held back by the block layer, arriving while the driver
 * delivers events or runs the model forward on its own; and the clean
 * shutdown that loses nothing.  From the cut on (and whenever the VM
 * stops) the image holds exactly what the modelled media holds; with
 * crash-journal=FILE, the file says what else it may have held.
 *
 * Copyright (C) 2026 the platter authors.
 *
 * This work is licensed under the terms of the GNU GPL, version 2 or later.
 * See the COPYING file in the top-level directory.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qobject/qdict.h"
#include "qobject/qjson.h"
#include "qobject/qlist.h"
#include "qobject/qnum.h"
#include "hddmodel-rig.h"

/*
 * After a cut: a (flushed, at sector 2000) on the image, the cached write
 * at sector 3000 not.
 */
static void assert_cut_image(const char *img, const uint8_t *a)
{
    uint8_t got[4096], z[4096] = { 0 };

    read_image(img, 2000 * 512, got, sizeof(got));
    g_assert_cmpmem(got, sizeof(got), a, sizeof(got));
    read_image(img, 3000 * 512, got, sizeof(got));
    g_assert_cmpmem(got, sizeof(got), z, sizeof(z));
}

/*
 * Flushed data survives a power cut; data only in the write cache does
 * not; the image afterwards holds exactly what the modelled media holds.
 */
static void test_power_cut(void)
{
    g_autofree char *img = make_image();
    Rig *r = rig_start(img, true);
    uint8_t a[4096], b[4096], z[4096], got[4096];
    int64_t t0;
    QDict *resp, *ret;

    fill(a, sizeof(a), 1);
    fill(b, sizeof(b), 2);
    memset(z, 0, sizeof(z));
    vblk_setup(r);

    vblk_io(r, VIRTIO_BLK_T_OUT, 2000, a, sizeof(a), &t0);
    vblk_io(r, VIRTIO_BLK_T_FLUSH, 0, NULL, 0, &t0);
    vblk_io(r, VIRTIO_BLK_T_OUT, 3000, b, sizeof(b), &t0);
    /* the guest sees b before the cut */
    vblk_io(r, VIRTIO_BLK_T_IN, 3000, got, sizeof(got), &t0);
    g_assert_cmpmem(got, sizeof(got), b, sizeof(b));
    g_assert_cmpuint(node_stat(r, "d0", "cached-bytes"), ==, sizeof(b));

    resp = qtest_qmp(r->qts, "{'execute': 'hddmodel-power-cut',"
                     " 'arguments': {'node-name': 'd0'}}");
    ret = qdict_get_qdict(resp, "return");
    g_assert_nonnull(ret);
    g_assert_cmpint(qdict_get_int(ret, "lost-bytes"), ==, sizeof(b));
    g_assert_cmpint(qdict_get_int(ret, "cached-bytes"), ==, sizeof(b));
    qobject_unref(resp);
    /* a is durable: the cut has written it to the image */
    assert_cut_image(img, a);

    /* after the cut the drive reads what its media holds */
    vblk_io(r, VIRTIO_BLK_T_IN, 3000, got, sizeof(got), &t0);
    g_assert_cmpmem(got, sizeof(got), z, sizeof(z));
    rig_stop(r);
    assert_cut_image(img, a);
    unlink(img);
}

/*
 * power-cut-request / power-cut-ns: the drive loses power for good at the
 * Nth request or at a virtual time; the request that finds the power gone
 * fails, cached data is lost, flushed data is not, QEMU shuts down (paused
 * here, to look) and nothing more reaches the image.
 */

/* Write a, flush, write b (cached); returns when b completed. */
static int64_t cut_prelude(Rig *r, const uint8_t *a, const uint8_t *b)
{
    int64_t t0, t_b;

    vblk_setup(r);
    vblk_io(r, VIRTIO_BLK_T_OUT, 2000, (void *)a, 4096, &t0);
    vblk_io(r, VIRTIO_BLK_T_FLUSH, 0, NULL, 0, &t0);
    t_b = vblk_io(r, VIRTIO_BLK_T_OUT, 3000, (void *)b, 4096, &t0);
    g_assert_cmpuint(node_stat(r, "d0", "cached-bytes"), ==, 4096);
    return t_b;
}

static void scheduled_cut(bool by_request)
{
    g_autofree char *img = make_image();
    g_autofree char *opt = NULL;
    Rig *r;
    uint8_t a[4096], b[4096], got[4096];
    int64_t t_b;

    fill(a, sizeof(a), 11);
    fill(b, sizeof(b), 12);
    if (by_request) {
        opt = g_strdup("power-cut-request=4,");
    } else {
        /* a dry run finds when b completes: the cut comes 1 ns later */
        r = rig_start(img, true);
        t_b = cut_prelude(r, a, b);
        rig_stop(r);
        unlink(img);
        g_free(img);
        img = make_image();
        opt = g_strdup_printf("power-cut-ns=%" PRId64 ",", t_b + 1);
    }
    r = rig_start_full(img, true, opt, "-action shutdown=pause ");
    t_b = cut_prelude(r, a, b);
    if (by_request) {
        g_assert_cmpint(vblk_try(r, VIRTIO_BLK_T_IN, 3000, got, sizeof(got),
                                 NULL), ==, VIRTIO_BLK_S_IOERR);
    } else {
        step(r, 1);
    }
    qtest_qmp_eventwait(r->qts, "SHUTDOWN");
    g_assert_cmpuint(node_stat(r, "d0", "power-cuts"), ==, 1);
    g_assert_cmpuint(node_stat(r, "d0", "lost-bytes"), ==, sizeof(b));
    g_assert_cmpuint(node_stat(r, "d0", "cached-bytes"), ==, 0);
    /* power does not come back: the QMP cut refuses, no clean write-back */
    qobject_unref(qtest_qmp_assert_failure_ref(
        r->qts, "{'execute': 'hddmodel-power-cut',"
        " 'arguments': {'node-name': 'd0'}}"));
    /* the image equals the media at the cut, not only once QEMU quits */
    assert_cut_image(img, a);
    rig_stop(r);
    assert_cut_image(img, a);
    unlink(img);
}

static void test_cut_at_request(void)
{
    scheduled_cut(true);
}

static void test_cut_at_time(void)
{
    scheduled_cut(false);
}

/*
 * power-cut-every-ns: the power fails at seeded times and comes back.  A
 * cut drops the cached write, never the flushed one; every request fails
 * until 100 ms after the first that found the drive off; then the drive
 * serves what its media holds, and the next cut comes.
 */
static uint8_t cycle_try(Rig *r, uint32_t type, uint64_t sector, void *data,
                         int64_t *t1)
{
    VblkReq q;

    vblk_prepare(r, &q, type, sector, NULL, data ? 4096 : 0);
    vblk_kick(r, &q, NULL);
    vblk_wait(r, &q, 1, true);
    vblk_finish(r, &q, q.status == VIRTIO_BLK_S_OK ? data : NULL);
    *t1 = q.t1;
    return q.status;
}

static void test_cut_every(void)
{
    g_autofree char *img = make_image();
    /* gaps of 1 to 3 s: the first cut, drawn as the driver draws it */
    Rig *r = rig_start_opts(img, true, "power-cut-every-ns=2000000000,"
                            "power-cut-seed=7,");
    uint64_t rng = 7;
    int64_t t_cut = 1000000000 + (int64_t)(hwm_splitmix64(&rng) % 2000000000);
    uint8_t a[4096], b[4096], z[4096] = { 0 }, got[4096];
    int64_t t_fail, t;
    uint64_t cached;

    fill(a, sizeof(a), 31);
    fill(b, sizeof(b), 32);
    vblk_setup(r);
    vblk_io(r, VIRTIO_BLK_T_OUT, 2000, a, sizeof(a), &t);
    vblk_io(r, VIRTIO_BLK_T_FLUSH, 0, NULL, 0, &t);
    /* b cached 50 ms before the cut (idle write-back waits 100 ms): time
     * for its write to end on any drive, DiskSim's 5 MB/s SCSI drives
     * and their 16 ms write-through writes too (1 ms was not) */
    step(r, t_cut - 50000000 - now(r));
    vblk_io(r, VIRTIO_BLK_T_OUT, 3000, b, sizeof(b), &t);
    step(r, t_cut - 1 - now(r));
    g_assert_cmpuint(node_stat(r, "d0", "power-cuts"), ==, 0);
    /* (a drive whose idle write-back starts sooner, flash, has b on its
     * media by now: then the cut has nothing to drop) */
    cached = node_stat(r, "d0", "cached-bytes");
    g_assert_true(cached == 0 || cached == sizeof(b));
    step(r, 1);
    g_assert_cmpuint(node_stat(r, "d0", "power-cuts"), ==, 1);
    g_assert_cmpuint(node_stat(r, "d0", "lost-bytes"), ==, cached);
    g_assert_cmpuint(node_stat(r, "d0", "cached-bytes"), ==, 0);

    /* the cut found nothing in flight: the first request fails ... */
    step(r, 5000000);
    g_assert_cmpint(cycle_try(r, VIRTIO_BLK_T_IN, 3000, got, &t_fail), ==,
                    VIRTIO_BLK_S_IOERR);
    /* ... and every one for 100 ms after it */
    step(r, t_fail + 100000000 - 1 - now(r));
    g_assert_cmpint(cycle_try(r, VIRTIO_BLK_T_FLUSH, 0, NULL, &t), ==,
                    VIRTIO_BLK_S_IOERR);
    step(r, 1);
    /* back in power-on state: what the media holds */
    g_assert_cmpint(cycle_try(r, VIRTIO_BLK_T_IN, 3000, got, &t), ==,
                    VIRTIO_BLK_S_OK);
    g_assert_cmpmem(got, sizeof(got), cached ? z : b, sizeof(got));
    g_assert_cmpint(cycle_try(r, VIRTIO_BLK_T_IN, 2000, got, &t), ==,
                    VIRTIO_BLK_S_OK);
    g_assert_cmpmem(got, sizeof(got), a, sizeof(a));

    /* the next cut, at most 3 s on */
    step(r, 3000000000LL);
    g_assert_cmpuint(node_stat(r, "d0", "power-cuts"), ==, 2);
    g_assert_cmpint(cycle_try(r, VIRTIO_BLK_T_IN, 2000, got, &t), ==,
                    VIRTIO_BLK_S_IOERR);
    step(r, 100000000);
    rig_end(r);
    unlink(img);
}

/*
 * The Nth request (power-cut-request=5) is the second of two flushes
 * kicked together after cut_prelude(): the block layer issues it when the
 * first completes, from inside the driver's delivery of that completion.
 * The first flush has made b durable, the second fails, nothing is lost.
 */
static Rig *cut_start_two_flushes(const char *img, const char *d0_more,
                                  VblkReq *q)
{
    Rig *r = rig_start_full(img, true, d0_more, "-action shutdown=pause ");
    uint8_t a[4096], b[4096];
    int i;

    fill(a, sizeof(a), 21);
    fill(b, sizeof(b), 22);
    cut_prelude(r, a, b);
    for (i = 0; i < 2; i++) {
        vblk_prepare(r, &q[i], VIRTIO_BLK_T_FLUSH, 0, NULL, 0);
        vblk_kick(r, &q[i], NULL);
    }
    return r;
}

static void cut_check_two_flushes(Rig *r, VblkReq *q, bool may_step)
{
    int i;

    vblk_wait(r, q, 2, may_step);
    g_assert_cmpint(q[0].status, ==, VIRTIO_BLK_S_OK);
    g_assert_cmpint(q[1].status, ==, VIRTIO_BLK_S_IOERR);
    g_assert_cmpint(q[1].t1, ==, q[0].t1);
    for (i = 0; i < 2; i++) {
        vblk_finish(r, &q[i], NULL);
    }
    qtest_qmp_eventwait(r->qts, "SHUTDOWN");
    g_assert_cmpuint(node_stat(r, "d0", "power-cuts"), ==, 1);
    g_assert_cmpuint(node_stat(r, "d0", "lost-bytes"), ==, 0);
    g_assert_cmpuint(node_stat(r, "d0", "in-flight"), ==, 0);
}

/*
 * ... while the driver delivers on the virtual clock: the cut waits for
 * the delivery to end.
 */
static void test_cut_in_delivery(void)
{
    g_autofree char *img = make_image();
    VblkReq q[2];
    Rig *r = cut_start_two_flushes(img, "power-cut-request=5,", q);
    uint8_t a[4096], b[4096], got[4096];

    cut_check_two_flushes(r, q, true);
    rig_stop(r);
    fill(a, sizeof(a), 21);
    fill(b, sizeof(b), 22);
    read_image(img, 2000 * 512, got, sizeof(got));
    g_assert_cmpmem(got, sizeof(got), a, sizeof(a));
    read_image(img, 3000 * 512, got, sizeof(got));
    g_assert_cmpmem(got, sizeof(got), b, sizeof(b));
    unlink(img);
}

/*
 * ... in a drained section (blockdev-reopen drains the node, then fails:
 * the driver cannot reopen), where the driver runs the model forward on
 * its own: the cut is done when the drain ends, without the clock moving.
 * (While the VM is stopped requests are served untimed and not counted:
 * the Nth cannot come then.)
 */
static void test_cut_in_fast_forward(void)
{
    g_autofree char *img = make_image();
    VblkReq q[2];
    Rig *r = cut_start_two_flushes(img, "power-cut-request=5,"
                                   "file.node-name=d0f,", q);

    qobject_unref(qtest_qmp(r->qts, "{'execute': 'blockdev-reopen', "
                            "'arguments': {'options': [{'driver': "
                            "'hddmodel', 'node-name': 'd0', 'file': "
                            "'d0f'}]}}"));
    g_assert_cmpuint(node_stat(r, "d0", "power-cuts"), ==, 1);
    cut_check_two_flushes(r, q, false);
    rig_stop(r);
    unlink(img);
}

/* A clean shutdown writes everything back. */
static void test_clean_shutdown(void)
{
    g_autofree char *img = make_image();
    Rig *r = rig_start(img, true);
    uint8_t a[4096], got[4096];
    int64_t t0;

    fill(a, sizeof(a), 3);
    vblk_setup(r);
    vblk_io(r, VIRTIO_BLK_T_OUT, 4000, a, sizeof(a), &t0);
    g_assert_cmpuint(node_stat(r, "d0", "cached-bytes"), ==, sizeof(a));
    rig_stop(r);

    read_image(img, 4000 * 512, got, sizeof(got));
    g_assert_cmpmem(got, sizeof(got), a, sizeof(a));
    unlink(img);
}

/*
 * Durable data reaches the image in batches: all of it when the VM stops,
 * and, while it runs, when a delivery of the drive's events (on the
 * virtual clock, the guest stopped) finds the batch's first data
 * HDD_UNWRITTEN_MAX_NS (50 ms) old or older in model time: never on host
 * time, and no deadline of its own.  Meanwhile the guest reads it from
 * the batch.
 */
#define WRITE_OUT_AGE_NS 50000000    /* the driver's HDD_UNWRITTEN_MAX_NS */

static void test_write_out(void)
{
    g_autofree char *img = make_image();
    Rig *r = rig_start(img, false);     /* write-through: all durable */
    uint8_t a[4096], b[4096], got[4096];
    int64_t t0, t_b;

    fill(a, sizeof(a), 31);
    fill(b, sizeof(b), 32);
    vblk_setup(r);
    vblk_io(r, VIRTIO_BLK_T_OUT, 2000, a, sizeof(a), &t0);
    vblk_io(r, VIRTIO_BLK_T_IN, 2000, got, sizeof(got), &t0);
    g_assert_cmpmem(got, sizeof(got), a, sizeof(a));
    vm_stop(r);
    read_image(img, 2000 * 512, got, sizeof(got));
    g_assert_cmpmem(got, sizeof(got), a, sizeof(a));
    vm_cont(r);

    /* durable at its completion, t_b */
    t_b = vblk_io(r, VIRTIO_BLK_T_OUT, 3000, b, sizeof(b), &t0);
    /* host time writes nothing (it did: a QEMU_CLOCK_REALTIME bound) */
    g_usleep(300 * 1000);
    read_image(img, 3000 * 512, got, sizeof(got));
    g_assert_true(memcmp(got, b, sizeof(b)) != 0);
    /* the guest reads it from the batch; that delivery finds it young */
    vblk_io(r, VIRTIO_BLK_T_IN, 3000, got, sizeof(got), &t0);
    g_assert_cmpmem(got, sizeof(got), b, sizeof(b));
    g_assert_cmpint(now(r), <, t_b + WRITE_OUT_AGE_NS);
    read_image(img, 3000 * 512, got, sizeof(got));
    g_assert_true(memcmp(got, b, sizeof(b)) != 0);
    /* an idle drive delivers nothing: the batch waits */
    step(r, t_b + WRITE_OUT_AGE_NS - now(r));
    read_image(img, 3000 * 512, got, sizeof(got));
    g_assert_true(memcmp(got, b, sizeof(b)) != 0);
    /* the next delivery finds it old */
    vblk_io(r, VIRTIO_BLK_T_IN, 2000, got, sizeof(got), &t0);
    read_image(img, 3000 * 512, got, sizeof(got));
    g_assert_cmpmem(got, sizeof(got), b, sizeof(b));
    rig_end(r);
    unlink(img);
}

#define CUT_PAIRS 30            /* write + flush: 150 descriptors */

/*
 * Power fails with the queue full: writes in the drive and in the host
 * queue, one flush in the drive and more held back by the block layer
 * behind it.  Every request completes: the ones done before the cut OK,
 * all others with IOERR, exactly dropped-requests of them, including the
 * flushes the block layer had held back (a flush issued before the cut
 * must not succeed after it: the writes it covers may be lost).  Writes
 * acknowledged before the cut read back unless reported lost; failed
 * writes left nothing.  QEMU keeps running.
 */
static void test_power_cut_full_queue(void)
{
    Rig *r = rig_start(NULL, true);
    g_autofree uint8_t *w = g_malloc(CUT_PAIRS * 4096);
    uint8_t got[4096], z[4096];
    VblkReq q[2 * CUT_PAIRS];
    QDict *cut;
    int i, ok = 0, failed = 0, flush_failed = 0;

    vblk_setup(r);
    memset(z, 0, sizeof(z));
    for (i = 0; i < 2 * CUT_PAIRS; i++) {
        if (i % 2 == 0) {
            fill(w + i / 2 * 4096, 4096, 200 + i);
            vblk_prepare(r, &q[i], VIRTIO_BLK_T_OUT, 20000 + i * 64,
                         w + i / 2 * 4096, 4096);
        } else {
            vblk_prepare(r, &q[i], VIRTIO_BLK_T_FLUSH, 0, NULL, 0);
        }
        vblk_kick(r, &q[i], NULL);
    }
    /* let a few complete */
    for (i = 0; i < 3; i++) {
        step_next(r);
    }
    cut = power_cut(r, "d0");
    g_assert_cmpint(qdict_get_int(cut, "lost-bytes"), ==,
                    qdict_get_int(cut, "cached-bytes"));
    g_assert_cmpint(qdict_get_int(cut, "clock-ns"), ==, now(r));

    /* everything has completed, without the clock moving */
    vblk_wait(r, q, 2 * CUT_PAIRS, false);
    for (i = 0; i < 2 * CUT_PAIRS; i++) {
        if (q[i].status == VIRTIO_BLK_S_OK) {
            ok++;
        } else {
            g_assert_cmpint(q[i].status, ==, VIRTIO_BLK_S_IOERR);
            failed++;
            flush_failed += q[i].type == VIRTIO_BLK_T_FLUSH;
        }
    }
    g_test_message("%d completed before the cut, %d failed (%d flushes)",
                   ok, failed, flush_failed);
    g_assert_cmpint(failed, ==, qdict_get_int(cut, "dropped-requests"));
    g_assert_cmpint(failed, >, 0);
    g_assert_cmpint(flush_failed, >, 1);
    g_assert_cmpuint(node_stat(r, "d0", "in-flight"), ==, 0);

    for (i = 0; i < 2 * CUT_PAIRS; i += 2) {
        const uint8_t *want = w + i / 2 * 4096;

        if (q[i].status != VIRTIO_BLK_S_OK ||
            cut_lost(cut, q[i].sector * 512, 4096)) {
            want = z;
        }
        vblk_finish(r, &q[i], NULL);
        vblk_io(r, VIRTIO_BLK_T_IN, q[i].sector, got, sizeof(got),
                &q[i].t0);
        g_assert_cmpmem(got, sizeof(got), want, 4096);
    }
    for (i = 1; i < 2 * CUT_PAIRS; i += 2) {
        vblk_finish(r, &q[i], NULL);
    }
    qobject_unref(cut);
    assert_alive(r);
    /* and a second cut with nothing in flight */
    cut = power_cut(r, "d0");
    g_assert_cmpint(qdict_get_int(cut, "dropped-requests"), ==, 0);
    qobject_unref(cut);
    rig_end(r);
}

/*
 * crash-journal=FILE: at the power loss the file holds the writes no flush
 * covered (b, then c over a), the media as of the flush under them (a,
 * and zeros) and the data of each.
 */
static int64_t journal_int(QList *row, int i)
{
    QListEntry *e;

    QLIST_FOREACH_ENTRY(row, e) {
        if (i-- == 0) {
            return qnum_get_int(qobject_to(QNum, qlist_entry_obj(e)));
        }
    }
    g_assert_not_reached();
}

static void test_crash_journal(void)
{
    g_autofree char *img = make_image();
    g_autofree char *journal = g_strdup_printf("%s.journal", img);
    g_autofree char *opt = g_strdup_printf("power-cut-request=5,"
                                           "crash-journal=%s,", journal);
    g_autofree char *text = NULL;
    uint8_t a[4096], b[4096], c[4096], z[4096] = { 0 }, got[4096];
    const uint8_t *data, *want;
    QDict *head;
    QList *writes, *before;
    QListEntry *e;
    size_t len;
    char *nl;
    int64_t t0;
    Rig *r;
    int i;

    fill(a, sizeof(a), 21);
    fill(b, sizeof(b), 22);
    fill(c, sizeof(c), 23);
    r = rig_start_full(img, true, opt, "-action shutdown=pause ");
    vblk_setup(r);
    vblk_io(r, VIRTIO_BLK_T_OUT, 2000, a, sizeof(a), &t0);
    vblk_io(r, VIRTIO_BLK_T_FLUSH, 0, NULL, 0, &t0);
    vblk_io(r, VIRTIO_BLK_T_OUT, 3000, b, sizeof(b), &t0);
    vblk_io(r, VIRTIO_BLK_T_OUT, 2000, c, sizeof(c), &t0);
    g_assert_cmpint(vblk_try(r, VIRTIO_BLK_T_IN, 3000, got, sizeof(got), NULL),
                    ==, VIRTIO_BLK_S_IOERR);
    qtest_qmp_eventwait(r->qts, "SHUTDOWN");
    rig_stop(r);

    g_assert_true(g_file_get_contents(journal, &text, &len, NULL));
    nl = memchr(text, '\n', len);
    g_assert_nonnull(nl);
    *nl = 0;
    data = (const uint8_t *)nl + 1;
    head = qobject_to(QDict, qobject_from_json(text, &error_abort));
    g_assert_cmpstr(qdict_get_str(head, "format"), ==,
                    "platter-crash-journal");
    g_assert_cmpint(qdict_get_int(head, "version"), ==, 1);
    g_assert_true(qdict_get_bool(head, "complete"));
    g_assert_cmpint(qdict_get_int(head, "acked"), ==, 3);
    g_assert_cmpint(qdict_get_int(head, "durable_seq"), ==, 1);
    g_assert_cmpint(qdict_get_int(head, "data_bytes"), ==,
                    len - (nl + 1 - text));

    /* [seq, offset, length, durable, data_at]: b, then c */
    writes = qdict_get_qlist(head, "writes");
    g_assert_cmpint(qlist_size(writes), ==, 2);
    i = 0;
    QLIST_FOREACH_ENTRY(writes, e) {
        QList *row = qobject_to(QList, qlist_entry_obj(e));

        want = i ? c : b;
        g_assert_cmpint(journal_int(row, 0), ==, 2 + i);
        g_assert_cmpint(journal_int(row, 1), ==, (i ? 2000 : 3000) * 512);
        g_assert_cmpint(journal_int(row, 2), ==, 4096);
        g_assert_cmpint(journal_int(row, 3), ==, 0);
        g_assert_cmpmem(data + journal_int(row, 4), 4096, want, 4096);
        i++;
    }
    /* [offset, length, data_at]: a under c, nothing under b */
    before = qdict_get_qlist(head, "before");
    g_assert_cmpint(qlist_size(before), ==, 2);
    i = 0;
    QLIST_FOREACH_ENTRY(before, e) {
        QList *row = qobject_to(QList, qlist_entry_obj(e));

        want = i ? z : a;
        g_assert_cmpint(journal_int(row, 0), ==, (i ? 3000 : 2000) * 512);
        g_assert_cmpint(journal_int(row, 1), ==, 4096);
        g_assert_cmpmem(data + journal_int(row, 2), 4096, want, 4096);
        i++;
    }
    qobject_unref(head);
    unlink(journal);
    unlink(img);
}

int main(int argc, char **argv)
{
    if (rig_test_init(&argc, &argv)) {
        qtest_add_func("/hddmodel/power-cut/qmp", test_power_cut);
        qtest_add_func("/hddmodel/power-cut/clean-shutdown",
                       test_clean_shutdown);
        qtest_add_func("/hddmodel/power-cut/write-out", test_write_out);
        qtest_add_func("/hddmodel/power-cut/at-request", test_cut_at_request);
        qtest_add_func("/hddmodel/power-cut/at-time", test_cut_at_time);
        qtest_add_func("/hddmodel/power-cut/every", test_cut_every);
        qtest_add_func("/hddmodel/power-cut/in-delivery",
                       test_cut_in_delivery);
        qtest_add_func("/hddmodel/power-cut/in-fast-forward",
                       test_cut_in_fast_forward);
        qtest_add_func("/hddmodel/power-cut/full-queue",
                       test_power_cut_full_queue);
        qtest_add_func("/hddmodel/power-cut/crash-journal",
                       test_crash_journal);
    }
    return g_test_run();
}
