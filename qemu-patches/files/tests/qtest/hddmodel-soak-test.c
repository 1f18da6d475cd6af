/*
 * qtest: data integrity of an hddmodel drive under a long randomized run
 * through virtio-blk: writes, reads, flushes, idle time and power cuts
 * (between requests and in the middle of one) over a small region, so
 * that reads keep hitting data in the cache, on the media, or both.
 * Every sector written carries its version and LBA, so every sector read
 * names the write it came from.
 *
 * The reference has three versions per sector: the newest the guest saw
 * acknowledged, the newest a completed flush made durable, and the one on
 * the modelled media (followed through the oracle's DURABLE events).  What
 * is asserted:
 *   - every completion at the time the model gives, every status OK;
 *   - every read returns the newest acknowledged version of every sector;
 *   - a power cut reports exactly the extents the oracle loses, the driver
 *     held exactly those bytes, and the request in flight fails unless the
 *     model completed it before the cut;
 *   - after the cut, every sector outside the lost extents reads the
 *     newest acknowledged version; every sector inside reads an older
 *     version, not older than the last flush made durable, and exactly the
 *     one on the modelled media;
 *   - after the final clean shutdown the image holds the newest
 *     acknowledged version of every sector.
 *
 * Environment (besides the rig's, hddmodel-rig.h):
 *   HDDMODEL_SOAK_REQUESTS, HDDMODEL_SOAK_CUTS, HDDMODEL_SOAK_SEED
 *                          size and seed of the run (default 2000
 *                          requests, 10 power cuts, seed 1)
 *
 * Copyright (C) 2026 the platter authors.
 *
 * This work is licensed under the terms of the GNU GPL, version 2 or later.
 * See the COPYING file in the top-level directory.
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qobject/qlist.h"
#include "hddmodel-rig.h"

#define SOAK_BASE       8192            /* first sector of the region */
#define SOAK_SECTORS    256             /* 128 KiB */
#define SOAK_MAX_LEN    16              /* sectors per request */

typedef struct Soak {
    Rig *r;
    Oracle *o;
    GRand *rng;
    uint32_t version;                   /* of the newest write issued */
    uint64_t tag;                       /* the oracle's request in flight */
    uint32_t tag_version;
    bool tag_done;
    hwm_ns tag_done_ns;
    uint32_t acked[SOAK_SECTORS];
    uint32_t flushed[SOAK_SECTORS];
    uint32_t media[SOAK_SECTORS];
    uint64_t reads, writes, flushes, cuts, cuts_mid, dropped;
    uint64_t sectors_checked, sectors_lost;
} Soak;

static uint64_t env_number(const char *name, uint64_t dflt)
{
    const char *v = g_getenv(name);

    return v ? g_ascii_strtoull(v, NULL, 10) : dflt;
}

/* Version `version` of sector `lba` (version 0: never written). */
static void soak_sector(uint8_t *p, uint64_t lba, uint32_t version)
{
    uint32_t x = version * 2654435761u + (uint32_t)lba;
    int i;

    if (!version) {
        memset(p, 0, 512);
        return;
    }
    stl_le_p(p, version);
    stl_le_p(p + 4, lba);
    for (i = 8; i < 512; i += 4) {
        x = x * 1664525u + 1013904223u;
        stl_le_p(p + i, x);
    }
}

/* Which version of sector lba p holds: anything else fails the test. */
static uint32_t soak_version(Soak *k, const uint8_t *p, uint64_t lba)
{
    uint8_t want[512];
    uint32_t v = ldl_le_p(p);

    soak_sector(want, lba, v);
    g_assert_cmpmem(p, 512, want, 512);
    g_assert_cmpuint(v, <=, k->version);
    k->sectors_checked++;
    return v;
}

/* The oracle's events: the reference follows them. */
static void soak_event(const HwmEvent *ev, void *opaque)
{
    Soak *k = opaque;
    uint64_t first = ev->offset / 512, n = ev->length / 512, i;

    if (n) {
        g_assert_cmpuint(first, >=, SOAK_BASE);
        g_assert_cmpuint(first + n, <=, SOAK_BASE + SOAK_SECTORS);
        first -= SOAK_BASE;
    }
    if (ev->kind == HWM_EV_DURABLE) {
        for (i = 0; i < n; i++) {
            k->media[first + i] = k->acked[first + i];
        }
        return;
    }
    g_assert_cmpuint(ev->tag, ==, k->tag);
    k->tag_done = true;
    k->tag_done_ns = ev->time_ns;
    if (ev->op == HWM_OP_WRITE) {
        for (i = 0; i < n; i++) {
            k->acked[first + i] = k->tag_version;
            if (ev->durable) {
                k->media[first + i] = k->tag_version;
            }
        }
    } else if (ev->op == HWM_OP_FLUSH) {
        /* one request at a time: what was acked at submission is now */
        memcpy(k->flushed, k->acked, sizeof(k->flushed));
    }
}

/* Issue a request to the driver and the same one to the oracle. */
static void soak_submit(Soak *k, VblkReq *q, HwmOp op, uint64_t sector,
                        uint32_t nsec)
{
    static const uint32_t type[] = {
        [HWM_OP_READ] = VIRTIO_BLK_T_IN,
        [HWM_OP_WRITE] = VIRTIO_BLK_T_OUT,
        [HWM_OP_FLUSH] = VIRTIO_BLK_T_FLUSH,
    };
    uint8_t buf[SOAK_MAX_LEN * 512];
    HwmRequest hr = {
        .tag = ++k->o->tag, .op = op,
        .offset = sector * 512, .length = nsec * 512ull,
    };
    uint32_t i;

    if (op == HWM_OP_WRITE) {
        g_assert_cmpuint(nsec, <=, SOAK_MAX_LEN);
        k->tag_version = ++k->version;
        for (i = 0; i < nsec; i++) {
            soak_sector(buf + i * 512, sector + i, k->version);
        }
        k->writes++;
    } else {
        k->reads += op == HWM_OP_READ;
        k->flushes += op == HWM_OP_FLUSH;
    }
    vblk_prepare(k->r, q, type[op], sector, op == HWM_OP_WRITE ? buf : NULL,
                 hr.length);
    vblk_kick(k->r, q, NULL);
    oracle_run_until_cb(k->o, q->t0, soak_event, k);
    k->tag = hr.tag;
    k->tag_done = false;
    g_assert_true(hwm_submit(k->o->dev, q->t0, &hr, NULL));
}

/* A read's data against the newest acknowledged versions (copied to out). */
static void soak_check_read(Soak *k, VblkReq *q, uint8_t *out)
{
    g_autofree uint8_t *buf = g_malloc(q->len);
    uint32_t i;

    qtest_bufread(k->r->qts, q->addr + VBLK_HDR, buf, q->len);
    for (i = 0; i < q->len / 512; i++) {
        uint64_t lba = q->sector + i;

        g_assert_cmpuint(soak_version(k, buf + i * 512, lba), ==,
                         k->acked[lba - SOAK_BASE]);
    }
    if (out) {
        memcpy(out, buf, q->len);
    }
}

/* Wait for the request: OK, at the oracle's time, reads checked. */
static void soak_complete(Soak *k, VblkReq *q, uint8_t *out)
{
    vblk_wait(k->r, q, 1, true);
    g_assert_cmpint(q->status, ==, VIRTIO_BLK_S_OK);
    while (!k->tag_done) {
        hwm_ns t = hwm_next_event(k->o->dev);

        g_assert_cmpint(t, !=, HWM_NEVER);
        oracle_run_until_cb(k->o, t, soak_event, k);
    }
    g_assert_cmpint(q->t1, ==, k->tag_done_ns);
    if (q->type == VIRTIO_BLK_T_IN) {
        soak_check_read(k, q, out);
    }
    vblk_finish(k->r, q, NULL);
}

static void soak_io(Soak *k, HwmOp op, uint64_t sector, uint32_t nsec)
{
    VblkReq q;

    soak_submit(k, &q, op, sector, nsec);
    soak_complete(k, &q, NULL);
}

/*
 * Cut the power now, with `q` (if set) in flight.  Then check the region
 * against the reference as described above and make what survived the new
 * reference.
 */
static void soak_cut(Soak *k, VblkReq *q)
{
    hwm_ns t = now(k->r);
    QDict *cut = power_cut(k->r, "d0");
    QList *got = qdict_get_qlist(cut, "lost-extents");
    g_autoptr(GArray) lost = NULL;
    g_autofree uint8_t *buf = g_malloc(SOAK_SECTORS * 512);
    QListEntry *e;
    uint32_t before[SOAK_SECTORS], oldest[SOAK_SECTORS];
    uint64_t dropped = 0;
    uint32_t i = 0, v;
    VblkReq rq;

    g_assert_cmpint(qdict_get_int(cut, "clock-ns"), ==, t);
    oracle_run_until_cb(k->o, t, soak_event, k);
    lost = hwm_power_cut(k->o->dev, t);
    QLIST_FOREACH_ENTRY(got, e) {
        QDict *x = qobject_to(QDict, qlist_entry_obj(e));

        g_assert_cmpuint(i, <, lost->len);
        g_assert_cmpuint(qdict_get_int(x, "offset"), ==,
                         g_array_index(lost, HwmExtent, i).offset);
        g_assert_cmpuint(qdict_get_int(x, "length"), ==,
                         g_array_index(lost, HwmExtent, i).length);
        i++;
    }
    g_assert_cmpuint(i, ==, lost->len);
    g_assert_cmpint(qdict_get_int(cut, "lost-bytes"), ==,
                    qdict_get_int(cut, "cached-bytes"));
    if (q) {
        vblk_wait(k->r, q, 1, false);
        if (k->tag_done) {
            g_assert_cmpint(q->status, ==, VIRTIO_BLK_S_OK);
            if (q->type == VIRTIO_BLK_T_IN) {
                soak_check_read(k, q, NULL);
            }
        } else {
            g_assert_cmpint(q->status, ==, VIRTIO_BLK_S_IOERR);
            dropped = 1;
        }
        vblk_finish(k->r, q, NULL);
        k->cuts_mid++;
    }
    g_assert_cmpint(qdict_get_int(cut, "dropped-requests"), ==, dropped);
    k->dropped += dropped;
    k->cuts++;

    /*
     * What the guest reads now is the media: the newest acknowledged
     * version outside the lost extents, an older one not older than the
     * last flush inside them.
     */
    memcpy(before, k->acked, sizeof(before));
    memcpy(oldest, k->flushed, sizeof(oldest));
    memcpy(k->acked, k->media, sizeof(k->acked));
    memcpy(k->flushed, k->media, sizeof(k->flushed));
    soak_submit(k, &rq, HWM_OP_READ, SOAK_BASE, SOAK_SECTORS);
    soak_complete(k, &rq, buf);
    for (i = 0; i < SOAK_SECTORS; i++) {
        v = ldl_le_p(buf + i * 512);
        if (cut_lost(cut, (SOAK_BASE + i) * 512ull, 512)) {
            g_assert_cmpuint(v, <, before[i]);
            g_assert_cmpuint(v, >=, oldest[i]);
            k->sectors_lost++;
        } else {
            g_assert_cmpuint(v, ==, before[i]);
        }
    }
    qobject_unref(cut);
}

static void test_soak(void)
{
    uint64_t n = env_number("HDDMODEL_SOAK_REQUESTS", 2000);
    uint64_t cuts = env_number("HDDMODEL_SOAK_CUTS", 10);
    uint64_t seed = env_number("HDDMODEL_SOAK_SEED", 1);
    g_autofree char *img = make_image();
    g_autofree uint8_t *buf = g_malloc(SOAK_SECTORS * 512);
    g_autofree Soak *k = g_new0(Soak, 1);
    gint64 start = g_get_monotonic_time();
    uint64_t i;

    g_assert_cmpuint(cuts, <=, n);
    k->r = rig_start(img, true);
    k->o = oracle_new(false, true);
    k->rng = g_rand_new_with_seed(seed);
    vblk_setup(k->r);
    for (i = 0; i < n; i++) {
        GRand *g = k->rng;
        uint32_t nsec = g_rand_int_range(g, 1, SOAK_MAX_LEN + 1);
        uint64_t sector = SOAK_BASE +
                          g_rand_int_range(g, 0, SOAK_SECTORS - nsec + 1);
        int dice = g_rand_int_range(g, 0, 100);
        HwmOp op = dice < 45 ? HWM_OP_WRITE :
                   dice < 88 ? HWM_OP_READ : HWM_OP_FLUSH;
        VblkReq q;

        if (op == HWM_OP_FLUSH) {
            sector = nsec = 0;
        }
        /* selection sampling: exactly `cuts` cuts, spread over the run */
        if (g_rand_double(g) * (n - i) < cuts - k->cuts) {
            if (g_rand_boolean(g)) {
                /* in the middle of a request (or just after it) */
                int steps = g_rand_int_range(g, 0, 3);

                soak_submit(k, &q, op, sector, nsec);
                while (steps--) {
                    step_next(k->r);
                }
                soak_cut(k, &q);
            } else {
                soak_io(k, op, sector, nsec);
                soak_cut(k, NULL);
            }
        } else {
            soak_io(k, op, sector, nsec);
        }
        /* the guest thinks; now and then long enough for the cache to drain */
        dice = g_rand_int_range(g, 0, 100);
        if (dice < 20) {
            step(k->r, g_rand_int_range(g, 1, 20 * 1000 * 1000));
        } else if (dice < 22) {
            step(k->r, 500 * 1000 * 1000);
        }
        if (n >= 100000 && (i + 1) % 100000 == 0) {
            g_printerr("soak: %" PRIu64 " of %" PRIu64 " requests, %" PRIu64
                       " cuts, %.0f s\n", i + 1, n, k->cuts,
                       (g_get_monotonic_time() - start) / 1e6);
        }
    }
    g_assert_cmpuint(k->cuts, ==, cuts);
    oracle_free(k->o);
    rig_stop(k->r);

    /* the clean shutdown wrote back everything acknowledged */
    read_image(img, SOAK_BASE * 512, buf, SOAK_SECTORS * 512);
    for (i = 0; i < SOAK_SECTORS; i++) {
        g_assert_cmpuint(soak_version(k, buf + i * 512, SOAK_BASE + i), ==,
                         k->acked[i]);
    }
    g_test_message("soak seed %" PRIu64 ": %" PRIu64 " requests (%" PRIu64
                   " reads, %" PRIu64 " writes, %" PRIu64 " flushes), %"
                   PRIu64 " power cuts (%" PRIu64 " with a request in "
                   "flight, %" PRIu64 " of those dropped it), %" PRIu64
                   " sectors lost and checked, %" PRIu64 " sectors read and "
                   "checked, 0 mismatches, %.1f s", seed,
                   k->reads + k->writes + k->flushes, k->reads, k->writes,
                   k->flushes, k->cuts, k->cuts_mid, k->dropped,
                   k->sectors_lost, k->sectors_checked,
                   (g_get_monotonic_time() - start) / 1e6);
    g_rand_free(k->rng);
    unlink(img);
}

int main(int argc, char **argv)
{
    if (rig_test_init(&argc, &argv)) {
        qtest_add_func("/hddmodel/virtio-blk/soak", test_soak);
    }
    return g_test_run();
}
