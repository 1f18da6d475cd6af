/*
 * qtest for platter's hddmodel block driver and the front-end changes it
 * relies on.  No guest kernel: the test is the guest.  It drives
 * virtio-blk, virtio-scsi and NVMe by hand and steps QEMU_CLOCK_VIRTUAL
 * from timer deadline to timer deadline, so every completion time it sees
 * is exact.
 *
 * The expected completion times come from the same hw-model library the
 * driver embeds, driven here with the same calls at the same times: the
 * driver must add nothing to, and lose nothing of, the model's timing.
 *
 * Environment:
 *   QTEST_QEMU_BINARY      qemu-system-x86_64 under test
 *   HDDMODEL_PROFILE_DIR   directory with *.profile (required)
 *   HDDMODEL_PROFILE       profile to use (default generic-7200)
 *   HDDMODEL_QEMU_ARGS     extra QEMU arguments (firmware path)
 *   HDDMODEL_TRACE_DIR     keep the virtio-blk node's request traces here
 *
 * Copyright (C) 2026 the platter authors.
 *
 * This work is licensed under the terms of the GNU GPL, version 2 or later.
 * See the COPYING file in the top-level directory.
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "libqtest.h"
#include "libqos/libqos-pc.h"
#include "libqos/pci.h"
#include "libqos/virtio.h"
#include "libqos/virtio-pci.h"
#include "qobject/qdict.h"
#include "qobject/qlist.h"
#include "standard-headers/linux/virtio_blk.h"
#include "standard-headers/linux/virtio_ring.h"

#include "../../block/hwm/hwm.h"

#define IMG_SIZE        (64 * 1024 * 1024)
#define VBLK_SLOT       4
#define NVME_SLOT       5
#define VSCSI_SLOT      6
#define MAX_STEPS       100000

/* ---- the oracle: hw-model driven like the driver drives it ------------- */

typedef struct Oracle {
    HwmProfile *profile;
    HwmDevice *dev;
    uint64_t tag;
} Oracle;

static const char *profile_dir(void)
{
    return g_getenv("HDDMODEL_PROFILE_DIR");
}

static const char *profile_name(void)
{
    const char *p = g_getenv("HDDMODEL_PROFILE");

    return p ? p : "generic-7200";
}

/* e.g. "-L /usr/share/seabios" for a binary run from its build tree */
static const char *extra_args(void)
{
    const char *a = g_getenv("HDDMODEL_QEMU_ARGS");

    return a ? a : "";
}

static Oracle *oracle_new_qd(bool fua, bool wce, uint32_t qd)
{
    Oracle *o = g_new0(Oracle, 1);
    HwmConfig cfg = {
        .write_cache = wce ? HWM_ON : HWM_OFF,
        .fua = fua ? HWM_ON : HWM_OFF,
        .queue_depth = qd,
    };
    GError *err = NULL;

    o->profile = hwm_profile_load(profile_name(), profile_dir(), &err);
    g_assert_no_error(err);
    o->dev = hwm_device_new(o->profile, &cfg, &err);
    g_assert_no_error(err);
    return o;
}

static Oracle *oracle_new(bool fua, bool wce)
{
    return oracle_new_qd(fua, wce, 0);
}

static void oracle_free(Oracle *o)
{
    hwm_device_free(o->dev);
    hwm_profile_free(o->profile);
    g_free(o);
}

/* What the driver's timer does: run every event up to t, at its own time. */
static void oracle_run_until(Oracle *o, hwm_ns t)
{
    HwmEvent ev[16];

    for (;;) {
        hwm_ns next = hwm_next_event(o->dev);

        if (next == HWM_NEVER || next > t) {
            return;
        }
        while (hwm_advance(o->dev, next, ev, G_N_ELEMENTS(ev)) ==
               G_N_ELEMENTS(ev)) {
            /* drain */
        }
    }
}

/* Submit at t0 and return when the model completes it. */
static hwm_ns oracle_request(Oracle *o, hwm_ns t0, HwmOp op, uint32_t flags,
                             uint64_t offset, uint64_t length)
{
    HwmRequest r = {
        .tag = ++o->tag, .op = op, .flags = flags,
        .offset = offset, .length = length,
    };
    GError *err = NULL;
    HwmEvent ev[16];

    oracle_run_until(o, t0);
    g_assert_true(hwm_submit(o->dev, t0, &r, &err));
    g_assert_no_error(err);
    for (;;) {
        hwm_ns next = hwm_next_event(o->dev);
        size_t n, i;
        hwm_ns done = -1;

        g_assert_cmpint(next, !=, HWM_NEVER);
        do {
            n = hwm_advance(o->dev, next, ev, G_N_ELEMENTS(ev));
            for (i = 0; i < n; i++) {
                if (ev[i].kind == HWM_EV_COMPLETE && ev[i].tag == r.tag) {
                    done = ev[i].time_ns;
                }
            }
        } while (n == G_N_ELEMENTS(ev));
        if (done >= 0) {
            return done;
        }
    }
}

/* ---- QEMU instance ------------------------------------------------------ */

typedef struct Rig {
    QOSState *qs;
    QTestState *qts;
    char *img;              /* d0's image: the test's */
    char *img1, *img2;      /* d1's and d2's: the rig's */
    char *trace;
    QVirtioPCIDevice *vblk;
    QVirtQueue *vq;
    int64_t clock;          /* QEMU_CLOCK_VIRTUAL */
} Rig;

static char *make_image(void)
{
    char *path;
    int fd = g_file_open_tmp("hddmodel-test.XXXXXX", &path, NULL);

    g_assert_cmpint(fd, >=, 0);
    g_assert_cmpint(ftruncate(fd, IMG_SIZE), ==, 0);
    close(fd);
    return path;
}

/*
 * One hddmodel node per front end: d0 on virtio-blk (no FUA; the image
 * under test, with a request trace), d1 on NVMe (native FUA) and d2 on
 * scsi-hd with dpofua=on, each on an image of its own (file locking).
 */
static char *node_opts(const char *node, const char *fua, bool wce,
                       const char *img, const char *trace, const char *more)
{
    return g_strdup_printf("-blockdev driver=hddmodel,node-name=%s,"
                           "profile=%s,profile-dir=%s,fua=%s,write-cache=%s,"
                           "%s%s%s%sfile.driver=file,file.filename=%s ",
                           node, profile_name(), profile_dir(), fua,
                           wce ? "on" : "off", trace ? "trace=" : "",
                           trace ? trace : "", trace ? "," : "", more, img);
}

static Rig *rig_start(const char *img, bool wce)
{
    Rig *r = g_new0(Rig, 1);
    g_autofree char *o0 = NULL, *o1 = NULL, *o2 = NULL;
    int fd;

    r->img = g_strdup(img);
    r->img1 = make_image();
    r->img2 = make_image();
    fd = g_file_open_tmp("hddmodel-trace.XXXXXX", &r->trace, NULL);
    g_assert_cmpint(fd, >=, 0);
    close(fd);
    o0 = node_opts("d0", "off", wce, img, r->trace, "");
    /* two command slots: the third of three NVMe commands must wait */
    o1 = node_opts("d1", "on", wce, r->img1, NULL, "queue-depth=2,");
    o2 = node_opts("d2", "on", wce, r->img2, NULL, "");
    r->qs = qtest_pc_boot(
        "-machine pc -nodefaults %s %s%s%s"
        "-device virtio-blk-pci,drive=d0,addr=%d.0,ioeventfd=off "
        "-device nvme,drive=d1,serial=platter1,addr=%d.0 "
        "-device virtio-scsi-pci,id=scsi0,addr=%d.0,ioeventfd=off "
        "-device scsi-hd,drive=d2,bus=scsi0.0,dpofua=on,rotation_rate=7200",
        extra_args(), o0, o1, o2, VBLK_SLOT, NVME_SLOT, VSCSI_SLOT);
    r->qts = r->qs->qts;
    return r;
}

/*
 * With HDDMODEL_TRACE_DIR set, keep d0's request trace there (PROFILE-N.trace,
 * one per QEMU run) so platter-sim can replay it and check every completion
 * time.
 */
static void keep_trace(Rig *r)
{
    const char *dir = g_getenv("HDDMODEL_TRACE_DIR");
    static int seq;
    g_autofree char *text = NULL, *name = NULL, *path = NULL;
    gsize len;

    if (!dir || !g_file_get_contents(r->trace, &text, &len, NULL)) {
        return;
    }
    name = g_strdup_printf("%s-%d.trace", profile_name(), ++seq);
    path = g_build_filename(dir, name, NULL);
    g_file_set_contents(path, text, len, NULL);
}

static void rig_stop(Rig *r)
{
    if (r->vq) {
        qvirtqueue_cleanup(r->vblk->vdev.bus, r->vq, &r->qs->alloc);
    }
    g_free(r->vblk);
    qtest_shutdown(r->qs);
    keep_trace(r);
    unlink(r->trace);
    unlink(r->img1);
    unlink(r->img2);
    g_free(r->trace);
    g_free(r->img);
    g_free(r->img1);
    g_free(r->img2);
    g_free(r);
}

/*
 * qtest cannot read the clock without moving it, so the rig keeps it: it
 * starts at 0 and moves only when the test steps it.
 */
static int64_t now(Rig *r)
{
    return r->clock;
}

static void step(Rig *r, int64_t ns)
{
    r->clock = qtest_clock_step(r->qts, ns);
}

static void step_next(Rig *r)
{
    r->clock = qtest_clock_step_next(r->qts);
}

/* ---- virtio-blk ---------------------------------------------------------- */

static void vblk_setup(Rig *r)
{
    QVirtioDevice *d;
    uint64_t features;

    r->vblk = virtio_pci_new(r->qs->pcibus,
                             &(QPCIAddress) {
                                 .devfn = QPCI_DEVFN(VBLK_SLOT, 0) });
    g_assert_nonnull(r->vblk);
    d = &r->vblk->vdev;
    qvirtio_pci_device_enable(r->vblk);
    qvirtio_start_device(d);
    features = qvirtio_get_features(d);
    features &= ~(QVIRTIO_F_BAD_FEATURE | (1u << VIRTIO_RING_F_INDIRECT_DESC) |
                  (1u << VIRTIO_RING_F_EVENT_IDX) | (1u << VIRTIO_BLK_F_SCSI));
    qvirtio_set_features(d, features);
    g_assert_cmpuint(qvirtio_config_readq(d, 0), ==, IMG_SIZE / 512);
    r->vq = qvirtqueue_setup(d, &r->qs->alloc, 0);
    qvirtio_set_driver_ok(d);
}

/*
 * Issue one request and step the clock from deadline to deadline until it
 * completes.  Returns the completion time; *t0 gets the submission time.
 */
static int64_t vblk_io(Rig *r, uint32_t type, uint64_t sector, void *data,
                       size_t len, int64_t *t0)
{
    QVirtioDevice *d = &r->vblk->vdev;
    QTestState *qts = r->qts;
    struct virtio_blk_outhdr hdr = {
        .type = cpu_to_le32(type),
        .sector = cpu_to_le64(sector),
    };
    uint64_t addr = guest_alloc(&r->qs->alloc, sizeof(hdr) + len + 1);
    uint8_t status = 0xff;
    uint32_t head, idx;
    int64_t t;
    int i;

    qtest_memwrite(qts, addr, &hdr, sizeof(hdr));
    if (type == VIRTIO_BLK_T_OUT) {
        qtest_memwrite(qts, addr + sizeof(hdr), data, len);
    }
    qtest_memwrite(qts, addr + sizeof(hdr) + len, &status, 1);

    head = qvirtqueue_add(qts, r->vq, addr, sizeof(hdr), false, true);
    if (len) {
        qvirtqueue_add(qts, r->vq, addr + sizeof(hdr), len,
                       type == VIRTIO_BLK_T_IN, true);
    }
    qvirtqueue_add(qts, r->vq, addr + sizeof(hdr) + len, 1, true, false);

    *t0 = now(r);
    qvirtqueue_kick(qts, d, r->vq, head);
    for (i = 0; i < MAX_STEPS; i++) {
        if (qvirtqueue_get_buf(qts, r->vq, &idx, NULL)) {
            break;
        }
        step_next(r);
    }
    g_assert_cmpint(i, <, MAX_STEPS);
    g_assert_cmpuint(idx, ==, head);
    t = now(r);

    status = qtest_readb(qts, addr + sizeof(hdr) + len);
    g_assert_cmpint(status, ==, VIRTIO_BLK_S_OK);
    if (type == VIRTIO_BLK_T_IN) {
        qtest_memread(qts, addr + sizeof(hdr), data, len);
    }
    guest_free(&r->qs->alloc, addr);
    return t;
}

static QDict *node_stats(Rig *r, const char *node)
{
    QDict *resp = qtest_qmp(r->qts, "{'execute': 'query-hddmodel'}");
    QList *list = qdict_get_qlist(resp, "return");
    QListEntry *e;
    QDict *found = NULL;

    g_assert_nonnull(list);
    QLIST_FOREACH_ENTRY(list, e) {
        QDict *info = qobject_to(QDict, qlist_entry_obj(e));

        if (!strcmp(qdict_get_str(info, "node-name"), node)) {
            found = qdict_get_qdict(info, "stats");
            qobject_ref(found);
        }
    }
    qobject_unref(resp);
    g_assert_nonnull(found);
    return found;
}

static uint64_t node_stat(Rig *r, const char *node, const char *key)
{
    QDict *st = node_stats(r, node);
    uint64_t v = qdict_get_int(st, key);

    qobject_unref(st);
    return v;
}

static void fill(uint8_t *buf, size_t len, unsigned seed)
{
    size_t i;

    for (i = 0; i < len; i++) {
        buf[i] = (uint8_t)(seed * 131 + i * 7 + (i >> 9));
    }
}

/* ---- tests --------------------------------------------------------------- */

/*
 * A mix of reads, writes and flushes at assorted offsets: every completion
 * lands exactly where the model puts it, data reads back intact.
 */
static void run_sequence(int64_t *done, int n)
{
    g_autofree char *img = make_image();
    Rig *r = rig_start(img, true);
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
    oracle_free(o);
    rig_stop(r);
    unlink(img);
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

static void read_image(const char *img, uint64_t offset, void *buf, size_t len)
{
    int fd = open(img, O_RDONLY);

    g_assert_cmpint(fd, >=, 0);
    g_assert_cmpint(pread(fd, buf, len, offset), ==, len);
    close(fd);
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

    /* after the cut the drive reads what its media holds */
    vblk_io(r, VIRTIO_BLK_T_IN, 3000, got, sizeof(got), &t0);
    g_assert_cmpmem(got, sizeof(got), z, sizeof(z));
    rig_stop(r);

    read_image(img, 2000 * 512, got, sizeof(got));
    g_assert_cmpmem(got, sizeof(got), a, sizeof(a));
    read_image(img, 3000 * 512, got, sizeof(got));
    g_assert_cmpmem(got, sizeof(got), z, sizeof(z));
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

/* write-cache=off: every write is on the image when it completes. */
static void test_write_through(void)
{
    g_autofree char *img = make_image();
    Rig *r = rig_start(img, false);
    Oracle *o = oracle_new(false, false);
    uint8_t a[4096], got[4096];
    int64_t t0, t;

    fill(a, sizeof(a), 7);
    vblk_setup(r);
    t = vblk_io(r, VIRTIO_BLK_T_OUT, 6000, a, sizeof(a), &t0);
    g_assert_cmpint(t, ==, oracle_request(o, t0, HWM_OP_WRITE, 0, 6000 * 512,
                                          sizeof(a)));
    g_assert_cmpuint(node_stat(r, "d0", "cached-bytes"), ==, 0);
    read_image(img, 6000 * 512, got, sizeof(got));
    g_assert_cmpmem(got, sizeof(got), a, sizeof(a));
    oracle_free(o);
    rig_stop(r);
    unlink(img);
}

/*
 * Stopping the VM with a request in flight drains it: the virtual clock
 * stops, so the driver must finish the request on its own instead of
 * waiting for a timer that cannot fire (a hang otherwise).  The guest
 * continues afterwards.
 */
static void test_stop_in_flight(void)
{
    g_autofree char *img = make_image();
    Rig *r = rig_start(img, true);
    QTestState *qts;
    struct virtio_blk_outhdr hdr = {
        .type = cpu_to_le32(VIRTIO_BLK_T_OUT),
        .sector = cpu_to_le64(50000),
    };
    uint8_t buf[4096], got[4096], status = 0xff;
    uint64_t addr;
    uint32_t head, idx;
    int64_t t0;

    vblk_setup(r);
    qts = r->qts;
    fill(buf, sizeof(buf), 6);
    addr = guest_alloc(&r->qs->alloc, sizeof(hdr) + sizeof(buf) + 1);
    qtest_memwrite(qts, addr, &hdr, sizeof(hdr));
    qtest_memwrite(qts, addr + sizeof(hdr), buf, sizeof(buf));
    qtest_memwrite(qts, addr + sizeof(hdr) + sizeof(buf), &status, 1);
    head = qvirtqueue_add(qts, r->vq, addr, sizeof(hdr), false, true);
    qvirtqueue_add(qts, r->vq, addr + sizeof(hdr), sizeof(buf), false, true);
    qvirtqueue_add(qts, r->vq, addr + sizeof(hdr) + sizeof(buf), 1, true,
                   false);
    qvirtqueue_kick(qts, &r->vblk->vdev, r->vq, head);
    g_assert_false(qvirtqueue_get_buf(qts, r->vq, &idx, NULL));

    qtest_qmp_assert_success(qts, "{'execute': 'stop'}");
    g_assert_true(qvirtqueue_get_buf(qts, r->vq, &idx, NULL));
    g_assert_cmpuint(idx, ==, head);
    g_assert_cmpint(qtest_readb(qts, addr + sizeof(hdr) + sizeof(buf)), ==,
                    VIRTIO_BLK_S_OK);
    guest_free(&r->qs->alloc, addr);
    qtest_qmp_assert_success(qts, "{'execute': 'cont'}");

    vblk_io(r, VIRTIO_BLK_T_IN, 50000, got, sizeof(got), &t0);
    g_assert_cmpmem(got, sizeof(got), buf, sizeof(buf));
    rig_stop(r);
    unlink(img);
}

/* ---- NVMe ---------------------------------------------------------------- */

#define NVME_REG_CC     0x14
#define NVME_REG_CSTS   0x1c
#define NVME_REG_AQA    0x24
#define NVME_REG_ASQ    0x28
#define NVME_REG_ACQ    0x30
#define NVME_QSIZE      8

typedef struct Nvme {
    QPCIDevice *pdev;
    QPCIBar bar;
    uint64_t sq[2], cq[2];
    uint16_t sq_tail[2], cq_head[2];
    uint8_t phase[2];
    uint16_t cid;
} Nvme;

static uint64_t alloc_page(Rig *r, size_t size)
{
    uint64_t a = guest_alloc(&r->qs->alloc, size + 4096);

    /* the allocator's alignment is not promised; align by hand */
    a = (a + 4095) & ~4095ull;
    qtest_memset(r->qts, a, 0, size);
    return a;
}

/* Submit a command on queue q and wait (stepping the clock) for its CQE. */
static uint16_t nvme_cmd(Rig *r, Nvme *n, int q, uint32_t dw[16],
                         int64_t *t0, int64_t *t1)
{
    QTestState *qts = r->qts;
    uint64_t cqe;
    uint16_t status = 0;
    int i;

    dw[0] |= (uint32_t)(++n->cid) << 16;
    for (i = 0; i < 16; i++) {
        qtest_writel(qts, n->sq[q] + n->sq_tail[q] * 64 + i * 4, dw[i]);
    }
    n->sq_tail[q] = (n->sq_tail[q] + 1) % NVME_QSIZE;
    if (t0) {
        *t0 = now(r);
    }
    qpci_io_writel(n->pdev, n->bar, 0x1000 + (2 * q) * 4, n->sq_tail[q]);

    cqe = n->cq[q] + n->cq_head[q] * 16;
    for (i = 0; i < MAX_STEPS; i++) {
        status = qtest_readw(qts, cqe + 14);
        if ((status & 1) == n->phase[q]) {
            break;
        }
        step_next(r);
    }
    g_assert_cmpint(i, <, MAX_STEPS);
    if (t1) {
        *t1 = now(r);
    }
    g_assert_cmpuint(qtest_readw(qts, cqe + 12), ==, n->cid);
    n->cq_head[q] = (n->cq_head[q] + 1) % NVME_QSIZE;
    if (n->cq_head[q] == 0) {
        n->phase[q] ^= 1;
    }
    qpci_io_writel(n->pdev, n->bar, 0x1000 + (2 * q + 1) * 4, n->cq_head[q]);
    return status >> 1;
}

static void nvme_setup(Rig *r, Nvme *n)
{
    uint32_t dw[16];
    int i;

    n->pdev = qpci_device_find(r->qs->pcibus, QPCI_DEVFN(NVME_SLOT, 0));
    g_assert_nonnull(n->pdev);
    qpci_device_enable(n->pdev);
    n->bar = qpci_iomap(n->pdev, 0, NULL);
    for (i = 0; i < 2; i++) {
        n->sq[i] = alloc_page(r, 4096);
        n->cq[i] = alloc_page(r, 4096);
        n->phase[i] = 1;
    }
    qpci_io_writel(n->pdev, n->bar, NVME_REG_AQA,
                   ((NVME_QSIZE - 1) << 16) | (NVME_QSIZE - 1));
    qpci_io_writeq(n->pdev, n->bar, NVME_REG_ASQ, n->sq[0]);
    qpci_io_writeq(n->pdev, n->bar, NVME_REG_ACQ, n->cq[0]);
    qpci_io_writel(n->pdev, n->bar, NVME_REG_CC, 1 | (6 << 16) | (4 << 20));
    for (i = 0; i < 1000; i++) {
        if (qpci_io_readl(n->pdev, n->bar, NVME_REG_CSTS) & 1) {
            break;
        }
        step(r, 1000);
    }
    g_assert_cmpint(i, <, 1000);

    memset(dw, 0, sizeof(dw));         /* Create I/O Completion Queue 1 */
    dw[0] = 0x05;
    dw[6] = n->cq[1];
    dw[7] = n->cq[1] >> 32;
    dw[10] = ((NVME_QSIZE - 1) << 16) | 1;
    dw[11] = 1;                         /* physically contiguous, no irq */
    g_assert_cmpuint(nvme_cmd(r, n, 0, dw, NULL, NULL), ==, 0);

    memset(dw, 0, sizeof(dw));         /* Create I/O Submission Queue 1 */
    dw[0] = 0x01;
    dw[6] = n->sq[1];
    dw[7] = n->sq[1] >> 32;
    dw[10] = ((NVME_QSIZE - 1) << 16) | 1;
    dw[11] = (1 << 16) | 1;
    g_assert_cmpuint(nvme_cmd(r, n, 0, dw, NULL, NULL), ==, 0);
}

static void test_nvme_fua(void)
{
    g_autofree char *img = make_image();
    Rig *r = rig_start(img, true);
    Oracle *o = oracle_new_qd(true, true, 2);
    Nvme n = { 0 };
    uint64_t data;
    uint8_t buf[4096], want[4096];
    uint32_t dw[16];
    int64_t t0, t1;

    nvme_setup(r, &n);
    data = alloc_page(r, 4096);
    fill(buf, sizeof(buf), 4);
    qtest_memwrite(r->qts, data, buf, sizeof(buf));

    /* Write, FUA set: the driver sees a FUA write, durable at completion */
    memset(dw, 0, sizeof(dw));
    dw[0] = 0x01;
    dw[1] = 1;
    dw[6] = data;
    dw[7] = data >> 32;
    dw[10] = 5000;
    dw[12] = (8 - 1) | (1u << 30);
    g_assert_cmpuint(nvme_cmd(r, &n, 1, dw, &t0, &t1), ==, 0);
    g_assert_cmpint(t1, ==,
                    oracle_request(o, t0, HWM_OP_WRITE, HWM_REQ_FUA,
                                   5000 * 512, 4096));
    g_assert_cmpuint(node_stat(r, "d1", "fua-writes"), ==, 1);
    g_assert_cmpuint(node_stat(r, "d1", "cached-bytes"), ==, 0);

    /* the same without FUA: cached */
    dw[0] = 0x01;
    dw[10] = 6000;
    dw[12] = 8 - 1;
    g_assert_cmpuint(nvme_cmd(r, &n, 1, dw, &t0, &t1), ==, 0);
    g_assert_cmpint(t1, ==,
                    oracle_request(o, t0, HWM_OP_WRITE, 0, 6000 * 512, 4096));
    g_assert_cmpuint(node_stat(r, "d1", "fua-writes"), ==, 1);
    g_assert_cmpuint(node_stat(r, "d1", "writes"), ==, 2);

    /* the FUA write is on the image already, before any flush */
    read_image(r->img1, 5000 * 512, buf, sizeof(buf));
    fill(want, sizeof(want), 4);
    g_assert_cmpmem(buf, sizeof(buf), want, sizeof(want));

    oracle_free(o);
    rig_stop(r);
    unlink(img);
}

/*
 * Three writes rung with one doorbell on a drive that takes two commands
 * at a time: the third waits in the driver's host queue and goes to the
 * model when the first completes.  Every completion matches the model.
 */
static void test_nvme_queued(void)
{
    g_autofree char *img = make_image();
    Rig *r = rig_start(img, true);
    Oracle *o = oracle_new_qd(true, true, 2);
    Nvme n = { 0 };
    uint64_t data, lba[3] = { 100000, 20, 70000 };
    int64_t t0, got[3] = { -1, -1, -1 }, want[3] = { -1, -1, -1 };
    uint16_t cid0;
    HwmEvent ev[16];
    int i, k, done = 0, next_sub = 2;

    nvme_setup(r, &n);
    data = alloc_page(r, 4096);
    cid0 = n.cid + 1;
    for (i = 0; i < 3; i++) {
        uint32_t dw[16] = { 0 };
        int j;

        dw[0] = 0x01 | (uint32_t)(++n.cid) << 16;
        dw[1] = 1;
        dw[6] = data;
        dw[7] = data >> 32;
        dw[10] = lba[i];
        dw[12] = 8 - 1;
        for (j = 0; j < 16; j++) {
            qtest_writel(r->qts, n.sq[1] + n.sq_tail[1] * 64 + j * 4, dw[j]);
        }
        n.sq_tail[1] = (n.sq_tail[1] + 1) % NVME_QSIZE;
    }
    t0 = now(r);
    qpci_io_writel(n.pdev, n.bar, 0x1000 + 2 * 4, n.sq_tail[1]);

    while (done < 3) {
        uint64_t cqe = n.cq[1] + n.cq_head[1] * 16;
        uint16_t st = qtest_readw(r->qts, cqe + 14);

        if ((st & 1) != n.phase[1]) {
            step_next(r);
            continue;
        }
        g_assert_cmpuint(st >> 1, ==, 0);
        k = qtest_readw(r->qts, cqe + 12) - cid0;
        g_assert_cmpint(k, >=, 0);
        g_assert_cmpint(k, <, 3);
        got[k] = now(r);
        done++;
        n.cq_head[1] = (n.cq_head[1] + 1) % NVME_QSIZE;
        if (n.cq_head[1] == 0) {
            n.phase[1] ^= 1;
        }
        qpci_io_writel(n.pdev, n.bar, 0x1000 + 3 * 4, n.cq_head[1]);
    }

    /* the oracle: two submitted at t0, the third at the first completion */
    oracle_run_until(o, t0);
    for (i = 0; i < 2; i++) {
        HwmRequest hr = { .tag = i, .op = HWM_OP_WRITE,
                          .offset = lba[i] * 512, .length = 4096 };
        g_assert_true(hwm_submit(o->dev, t0, &hr, NULL));
    }
    for (done = 0; done < 3;) {
        hwm_ns t = hwm_next_event(o->dev);
        size_t m, j;
        bool freed = false;

        g_assert_cmpint(t, !=, HWM_NEVER);
        do {
            m = hwm_advance(o->dev, t, ev, G_N_ELEMENTS(ev));
            for (j = 0; j < m; j++) {
                if (ev[j].kind == HWM_EV_COMPLETE) {
                    want[ev[j].tag] = ev[j].time_ns;
                    done++;
                    freed = true;
                }
            }
        } while (m == G_N_ELEMENTS(ev));
        if (freed && next_sub < 3) {
            HwmRequest hr = { .tag = next_sub, .op = HWM_OP_WRITE,
                              .offset = lba[next_sub] * 512, .length = 4096 };
            g_assert_true(hwm_submit(o->dev, t, &hr, NULL));
            next_sub++;
        }
    }
    for (i = 0; i < 3; i++) {
        g_assert_cmpint(got[i], ==, want[i]);
    }
    g_assert_cmpuint(node_stat(r, "d1", "host-queued"), ==, 1);

    oracle_free(o);
    rig_stop(r);
    unlink(img);
}

/* ---- virtio-scsi + scsi-hd, dpofua=on ------------------------------------ */

typedef struct QEMU_PACKED ScsiCmdReq {
    uint8_t lun[8];
    uint64_t tag;
    uint8_t task_attr, prio, crn;
    uint8_t cdb[32];
} ScsiCmdReq;

typedef struct QEMU_PACKED ScsiCmdResp {
    uint32_t sense_len, resid;
    uint16_t status_qualifier;
    uint8_t status, response;
    uint8_t sense[96];
} ScsiCmdResp;

/* One command on the request queue, data-out only; returns SCSI status. */
static uint8_t vscsi_cmd(Rig *r, QVirtioPCIDevice *dev, QVirtQueue *vq,
                         const uint8_t *cdb, size_t cdb_len,
                         const void *data, size_t len)
{
    QTestState *qts = r->qts;
    ScsiCmdReq req = { .lun = { 1, 0, 0x40, 0 } };
    ScsiCmdResp resp = { .response = 0xff };
    uint64_t a_req = guest_alloc(&r->qs->alloc, sizeof(req));
    uint64_t a_data = len ? guest_alloc(&r->qs->alloc, len) : 0;
    uint64_t a_resp = guest_alloc(&r->qs->alloc, sizeof(resp));
    uint32_t head, idx;
    int i;

    memcpy(req.cdb, cdb, cdb_len);
    qtest_memwrite(qts, a_req, &req, sizeof(req));
    qtest_memwrite(qts, a_resp, &resp, sizeof(resp));
    head = qvirtqueue_add(qts, vq, a_req, sizeof(req), false, true);
    if (len) {
        qtest_memwrite(qts, a_data, data, len);
        qvirtqueue_add(qts, vq, a_data, len, false, true);
    }
    qvirtqueue_add(qts, vq, a_resp, sizeof(resp), true, false);
    qvirtqueue_kick(qts, &dev->vdev, vq, head);
    for (i = 0; i < MAX_STEPS; i++) {
        if (qvirtqueue_get_buf(qts, vq, &idx, NULL)) {
            break;
        }
        step_next(r);
    }
    g_assert_cmpint(i, <, MAX_STEPS);
    qtest_memread(qts, a_resp, &resp, sizeof(resp));
    g_assert_cmpuint(resp.response, ==, 0);     /* VIRTIO_SCSI_S_OK */
    guest_free(&r->qs->alloc, a_req);
    guest_free(&r->qs->alloc, a_resp);
    if (len) {
        guest_free(&r->qs->alloc, a_data);
    }
    return resp.status;
}

/*
 * scsi-hd with dpofua=on: WRITE(10) with FUA reaches the driver as one FUA
 * write, not as a write followed by a cache flush.
 */
static void test_scsi_fua(void)
{
    g_autofree char *img = make_image();
    Rig *r = rig_start(img, true);
    QVirtioPCIDevice *dev;
    QVirtQueue *vq[3];
    uint8_t buf[4096];
    uint8_t tur[6] = { 0 };
    uint8_t w10[10] = { 0x2a, 0x08, 0, 0, 0x1f, 0x40, 0, 0, 8, 0 };
    uint64_t features;
    int i;

    dev = virtio_pci_new(r->qs->pcibus,
                         &(QPCIAddress) {
                             .devfn = QPCI_DEVFN(VSCSI_SLOT, 0) });
    g_assert_nonnull(dev);
    qvirtio_pci_device_enable(dev);
    qvirtio_start_device(&dev->vdev);
    features = qvirtio_get_features(&dev->vdev);
    features &= ~(QVIRTIO_F_BAD_FEATURE | (1u << VIRTIO_RING_F_INDIRECT_DESC) |
                  (1u << VIRTIO_RING_F_EVENT_IDX));
    qvirtio_set_features(&dev->vdev, features);
    for (i = 0; i < 3; i++) {
        vq[i] = qvirtqueue_setup(&dev->vdev, &r->qs->alloc, i);
    }
    qvirtio_set_driver_ok(&dev->vdev);

    /* the first command reports the power-on unit attention */
    vscsi_cmd(r, dev, vq[2], tur, sizeof(tur), NULL, 0);
    g_assert_cmpuint(vscsi_cmd(r, dev, vq[2], tur, sizeof(tur), NULL, 0),
                     ==, 0);

    fill(buf, sizeof(buf), 5);
    g_assert_cmpuint(vscsi_cmd(r, dev, vq[2], w10, sizeof(w10),
                               buf, sizeof(buf)), ==, 0);
    g_assert_cmpuint(node_stat(r, "d2", "fua-writes"), ==, 1);
    g_assert_cmpuint(node_stat(r, "d2", "flushes"), ==, 0);

    w10[1] = 0;                         /* same write without FUA */
    g_assert_cmpuint(vscsi_cmd(r, dev, vq[2], w10, sizeof(w10),
                               buf, sizeof(buf)), ==, 0);
    g_assert_cmpuint(node_stat(r, "d2", "fua-writes"), ==, 1);
    g_assert_cmpuint(node_stat(r, "d2", "writes"), ==, 2);
    g_assert_cmpuint(node_stat(r, "d2", "flushes"), ==, 0);

    for (i = 0; i < 3; i++) {
        qvirtqueue_cleanup(dev->vdev.bus, vq[i], &r->qs->alloc);
    }
    g_free(dev);
    rig_stop(r);
    unlink(img);
}

/* The tests exercise the write cache; a profile without one is skipped. */
static bool profile_has_cache(void)
{
    g_autoptr(HwmProfile) p = hwm_profile_load(profile_name(), profile_dir(),
                                               NULL);
    g_autofree char *dump = p ? hwm_profile_dump(p) : NULL;

    /* asked from the dump: hwm_device_new() failing is not clean yet */
    return dump && !strstr(dump, "\ncache_mb = 0 ") &&
           strncmp(dump, "cache_mb = 0 ", 13) != 0;
}

static void test_skip(const void *why)
{
    g_test_skip(why);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    if (!profile_dir()) {
        qtest_add_data_func("/hddmodel/skipped",
                            "HDDMODEL_PROFILE_DIR is not set", test_skip);
        return g_test_run();
    }
    if (!profile_has_cache()) {
        qtest_add_data_func("/hddmodel/skipped",
                            "the profile has no write cache to test",
                            test_skip);
        return g_test_run();
    }
    qtest_add_func("/hddmodel/virtio-blk/timing", test_virtio_timing);
    qtest_add_func("/hddmodel/virtio-blk/determinism", test_determinism);
    qtest_add_func("/hddmodel/virtio-blk/power-cut", test_power_cut);
    qtest_add_func("/hddmodel/virtio-blk/clean-shutdown", test_clean_shutdown);
    qtest_add_func("/hddmodel/virtio-blk/stop-in-flight", test_stop_in_flight);
    qtest_add_func("/hddmodel/virtio-blk/write-through", test_write_through);
    qtest_add_func("/hddmodel/nvme/fua", test_nvme_fua);
    qtest_add_func("/hddmodel/nvme/host-queue", test_nvme_queued);
    qtest_add_func("/hddmodel/scsi-hd/dpofua", test_scsi_fua);
    return g_test_run();
}
