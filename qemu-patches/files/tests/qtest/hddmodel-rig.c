/*
 * The hddmodel qtests' rig: see hddmodel-rig.h.
 *
 * Copyright (C) 2026 the platter authors.
 *
 * This work is licensed under the terms of the GNU GPL, version 2 or later.
 * See the COPYING file in the top-level directory.
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qobject/qlist.h"
#include "standard-headers/linux/virtio_ring.h"
#include "hddmodel-rig.h"

/* The tests exercise the volatile write cache; a profile without one (no
 * cache, or a buffer behind power-loss protection) is skipped. */
static bool profile_has_cache(void)
{
    g_autoptr(HwmProfile) p = hwm_profile_load(profile_name(), profile_dir(),
                                               NULL);
    g_autofree char *dump = p ? hwm_profile_dump(p) : NULL;

    /* asked from the dump: hwm_device_new() failing is not clean yet */
    return dump && !strstr(dump, "\ncache_mb = 0 ") &&
           strncmp(dump, "cache_mb = 0 ", 13) != 0 &&
           !strstr(dump, "\npower_loss_protection = yes ");
}

static void test_skip(const void *why)
{
    g_test_skip(why);
}

bool rig_test_init(int *argc, char ***argv)
{
    g_test_init(argc, argv, NULL);
    if (!profile_dir()) {
        qtest_add_data_func("/hddmodel/skipped",
                            "HDDMODEL_PROFILE_DIR is not set", test_skip);
        return false;
    }
    if (!profile_has_cache()) {
        qtest_add_data_func("/hddmodel/skipped",
                            "the profile has no write cache to test",
                            test_skip);
        return false;
    }
    return true;
}

const char *extra_args(void)
{
    const char *a = g_getenv("HDDMODEL_QEMU_ARGS");

    return a ? a : "";
}

char *make_image(void)
{
    char *path;
    int fd = g_file_open_tmp("hddmodel-test.XXXXXX", &path, NULL);

    g_assert_cmpint(fd, >=, 0);
    g_assert_cmpint(ftruncate(fd, IMG_SIZE), ==, 0);
    close(fd);
    return path;
}

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

Rig *rig_start_full(const char *img, bool wce, const char *d0_more,
                           const char *qemu_more)
{
    Rig *r = g_new0(Rig, 1);
    g_autofree char *o0 = NULL, *o1 = NULL, *o2 = NULL;
    int fd;

    r->own_img = !img;
    r->img = img ? g_strdup(img) : make_image();
    r->img1 = make_image();
    r->img2 = make_image();
    fd = g_file_open_tmp("hddmodel-trace.XXXXXX", &r->trace, NULL);
    g_assert_cmpint(fd, >=, 0);
    close(fd);
    o0 = node_opts("d0", "off", wce, r->img, r->trace, d0_more);
    /* two command slots: the third of three NVMe commands must wait */
    o1 = node_opts("d1", "on", wce, r->img1, NULL, "queue-depth=2,");
    o2 = node_opts("d2", "on", wce, r->img2, NULL, "");
    r->qs = qtest_pc_boot(
        "-machine pc -nodefaults %s %s%s%s%s"
        "-device virtio-blk-pci,drive=d0,addr=%d.0,ioeventfd=off "
        "-device nvme,drive=d1,serial=platter1,addr=%d.0 "
        "-device virtio-scsi-pci,id=scsi0,addr=%d.0,ioeventfd=off "
        "-device scsi-hd,drive=d2,bus=scsi0.0,dpofua=on,rotation_rate=7200",
        extra_args(), qemu_more, o0, o1, o2, VBLK_SLOT, NVME_SLOT,
        VSCSI_SLOT);
    r->qts = r->qs->qts;
    return r;
}

Rig *rig_start_opts(const char *img, bool wce, const char *d0_more)
{
    return rig_start_full(img, wce, d0_more, "");
}

Rig *rig_start(const char *img, bool wce)
{
    return rig_start_opts(img, wce, "");
}

/*
 * With HDDMODEL_TRACE_DIR set, keep d0's request trace there
 * (PROFILE-TEST-N.trace, one per QEMU run) so platter-sim can replay it
 * and check every completion time.
 */
static void keep_trace(Rig *r)
{
    const char *dir = g_getenv("HDDMODEL_TRACE_DIR");
    static int seq;
    g_autofree char *text = NULL, *name = NULL, *path = NULL, *test = NULL;
    gsize len;

    if (!dir || !*dir || !g_file_get_contents(r->trace, &text, &len, NULL)) {
        return;
    }
    test = g_path_get_basename(g_get_prgname());
    name = g_strdup_printf("%s-%s-%d.trace", profile_name(), test, ++seq);
    path = g_build_filename(dir, name, NULL);
    g_file_set_contents(path, text, len, NULL);
}

char *rig_stop_trace(Rig *r)
{
    char *text = NULL;

    if (r->vq) {
        qvirtqueue_cleanup(r->vblk->vdev.bus, r->vq, &r->qs->alloc);
    }
    g_free(r->vblk);
    qtest_shutdown(r->qs);
    keep_trace(r);
    g_assert_true(g_file_get_contents(r->trace, &text, NULL, NULL));
    unlink(r->trace);
    if (r->own_img) {
        unlink(r->img);
    }
    unlink(r->img1);
    unlink(r->img2);
    g_free(r->trace);
    g_free(r->img);
    g_free(r->img1);
    g_free(r->img2);
    g_free(r);
    return text;
}

void rig_stop(Rig *r)
{
    g_free(rig_stop_trace(r));
}

void rig_end(Rig *r)
{
    assert_alive(r);
    rig_stop(r);
}

int64_t now(Rig *r)
{
    return r->clock;
}

void step(Rig *r, int64_t ns)
{
    r->clock = qtest_clock_step(r->qts, ns);
}

void step_next(Rig *r)
{
    r->clock = qtest_clock_step_next(r->qts);
}

void vm_stop(Rig *r)
{
    qtest_qmp_assert_success(r->qts, "{'execute': 'stop'}");
    r->stopped = true;
}

void vm_cont(Rig *r)
{
    qtest_qmp_assert_success(r->qts, "{'execute': 'cont'}");
    r->stopped = false;
}

void vblk_setup(Rig *r)
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

void vblk_prepare(Rig *r, VblkReq *q, uint32_t type, uint64_t sector,
                         const void *data, size_t len)
{
    struct virtio_blk_outhdr hdr = {
        .type = cpu_to_le32(type),
        .sector = cpu_to_le64(sector),
    };
    uint8_t status = 0xff;
    g_autofree uint8_t *buf = NULL;

    memset(q, 0, sizeof(*q));
    q->type = type;
    q->sector = sector;
    q->len = len;
    q->addr = guest_alloc(&r->qs->alloc, VBLK_HDR + len + 1);
    if (!data && len > 65536) {
        /* the caller fills the data */
        qtest_memwrite(r->qts, q->addr, &hdr, sizeof(hdr));
        qtest_memwrite(r->qts, q->addr + VBLK_HDR + len, &status, 1);
        return;
    }
    /* one qtest command: the soak issues millions of these */
    buf = g_malloc0(VBLK_HDR + len + 1);
    memcpy(buf, &hdr, sizeof(hdr));
    if (data) {
        memcpy(buf + VBLK_HDR, data, len);
    }
    buf[VBLK_HDR + len] = status;
    qtest_bufwrite(r->qts, q->addr, buf, VBLK_HDR + len + 1);
}

/* Descriptor n of a chain: guest buffer, length, device writes it, last. */
static void vblk_desc(uint8_t *d, int n, uint32_t head, uint64_t addr,
                      uint32_t len, bool write, bool last)
{
    uint8_t *p = d + 16 * n;

    stq_le_p(p, addr);
    stl_le_p(p + 8, len);
    stw_le_p(p + 12, (write ? VRING_DESC_F_WRITE : 0) |
                     (last ? 0 : VRING_DESC_F_NEXT));
    stw_le_p(p + 14, head + n + 1);
}

/*
 * Like qvirtqueue_add() per descriptor and qvirtqueue_kick(), in four qtest
 * commands instead of a dozen or so (the soak issues millions): the chain
 * in one write, the avail ring entry and index, the notify (always:
 * notification suppression is an optimization a driver may ignore).
 */
void vblk_queue(Rig *r, VblkReq *q, const size_t *segs)
{
    QTestState *qts = r->qts;
    QVirtQueue *vq = r->vq;
    uint64_t data = q->addr + VBLK_HDR;
    bool in = q->type == VIRTIO_BLK_T_IN;
    uint8_t d[16 * 16];
    size_t off = 0;
    int i, n = 0;

    /* libqos never returns descriptors: recycle them when all are back */
    if (r->in_flight == 0) {
        qvirtqueue_reset_pool(vq);
    }
    q->head = vq->free_head;
    vblk_desc(d, n++, q->head, q->addr, VBLK_HDR, false, false);
    if (q->len) {
        for (i = 0; segs && segs[i] && off + segs[i] < q->len; i++) {
            g_assert_cmpint(n, <, 14);
            vblk_desc(d, n++, q->head, data + off, segs[i], in, false);
            off += segs[i];
        }
        vblk_desc(d, n++, q->head, data + off, q->len - off, in, false);
    }
    vblk_desc(d, n++, q->head, data + q->len, 1, true, true);
    g_assert_cmpuint(vq->num_free, >=, n);
    vq->free_head += n;
    vq->num_free -= n;
    qtest_memwrite(qts, vq->desc + 16 * q->head, d, 16 * n);

    qtest_writew(qts, vq->avail + 4 + 2 * (r->avail_idx % vq->size), q->head);
    qtest_writew(qts, vq->avail + 2, ++r->avail_idx);
    q->t0 = now(r);
    r->in_flight++;
}

void vblk_notify(Rig *r)
{
    r->vblk->vdev.bus->virtqueue_kick(&r->vblk->vdev, r->vq);
}

void vblk_kick(Rig *r, VblkReq *q, const size_t *segs)
{
    vblk_queue(r, q, segs);
    vblk_notify(r);
}

/* (host I/O of a stopped VM may still take a few main-loop iterations) */
void vblk_wait(Rig *r, VblkReq *q, int n, bool may_step)
{
    int left = 0, i, steps = 0;
    uint32_t idx;

    for (i = 0; i < n; i++) {
        left += !q[i].done;
    }
    while (left > 0) {
        if (!qvirtqueue_get_buf(r->qts, r->vq, &idx, NULL)) {
            g_assert_cmpint(++steps, <, MAX_STEPS);
            if (may_step) {
                step_next(r);
            } else {
                g_usleep(100);
            }
            continue;
        }
        for (i = 0; i < n && (q[i].done || q[i].head != idx); i++) {
            /* find it */
        }
        g_assert_cmpint(i, <, n);
        q[i].done = true;
        q[i].t1 = now(r);
        q[i].status = qtest_readb(r->qts, q[i].addr + VBLK_HDR + q[i].len);
        r->in_flight--;
        left--;
    }
}

void vblk_finish(Rig *r, VblkReq *q, void *buf)
{
    if (buf && q->len) {
        qtest_bufread(r->qts, q->addr + VBLK_HDR, buf, q->len);
    }
    guest_free(&r->qs->alloc, q->addr);
}

uint8_t vblk_try(Rig *r, uint32_t type, uint64_t sector, void *data,
                        size_t len, const size_t *segs)
{
    VblkReq q;

    vblk_prepare(r, &q, type, sector, type == VIRTIO_BLK_T_OUT ? data : NULL,
                 len);
    vblk_kick(r, &q, segs);
    vblk_wait(r, &q, 1, !r->stopped);
    vblk_finish(r, &q, type == VIRTIO_BLK_T_IN &&
                       q.status == VIRTIO_BLK_S_OK ? data : NULL);
    return q.status;
}

int64_t vblk_io(Rig *r, uint32_t type, uint64_t sector, void *data,
                       size_t len, int64_t *t0)
{
    VblkReq q;

    vblk_prepare(r, &q, type, sector, type == VIRTIO_BLK_T_OUT ? data : NULL,
                 len);
    vblk_kick(r, &q, NULL);
    vblk_wait(r, &q, 1, true);
    g_assert_cmpint(q.status, ==, VIRTIO_BLK_S_OK);
    vblk_finish(r, &q, type == VIRTIO_BLK_T_IN ? data : NULL);
    *t0 = q.t0;
    return q.t1;
}

void assert_alive(Rig *r)
{
    static unsigned seed = 1000;
    uint8_t a[4096], got[4096];
    int64_t t0;

    fill(a, sizeof(a), ++seed);
    vblk_io(r, VIRTIO_BLK_T_OUT, 90000, a, sizeof(a), &t0);
    vblk_io(r, VIRTIO_BLK_T_IN, 90000, got, sizeof(got), &t0);
    g_assert_cmpmem(got, sizeof(got), a, sizeof(a));
    g_assert_cmpuint(node_stat(r, "d0", "in-flight"), ==, 0);
}

uint64_t d0_requests(Rig *r)
{
    QDict *st = node_stats(r, "d0");
    uint64_t n = qdict_get_int(st, "reads") + qdict_get_int(st, "writes") +
                 qdict_get_int(st, "flushes");

    qobject_unref(st);
    return n;
}

QDict *node_stats(Rig *r, const char *node)
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

uint64_t node_stat(Rig *r, const char *node, const char *key)
{
    QDict *st = node_stats(r, node);
    uint64_t v = qdict_get_int(st, key);

    qobject_unref(st);
    return v;
}

static void assert_stat(QDict *st, const char *name)
{
    g_autofree char *key = g_strdelimit(g_strdup(name), "_", '-');

    g_assert_true(qdict_haskey(st, key));
}

void assert_all_stats(Rig *r, const char *node)
{
    QDict *st = node_stats(r, node);

#define HDD_ASSERT_STAT(name, type, unit, help) assert_stat(st, #name);
    HWM_STATS_FIELDS(HDD_ASSERT_STAT)
#undef HDD_ASSERT_STAT
    qobject_unref(st);
}

QDict *power_cut(Rig *r, const char *node)
{
    QDict *resp = qtest_qmp(r->qts, "{'execute': 'hddmodel-power-cut',"
                            " 'arguments': {'node-name': %s}}", node);
    QDict *ret = qdict_get_qdict(resp, "return");

    g_assert_nonnull(ret);
    qobject_ref(ret);
    qobject_unref(resp);
    return ret;
}

bool cut_lost(QDict *cut, uint64_t offset, uint64_t len)
{
    QList *l = qdict_get_qlist(cut, "lost-extents");
    QListEntry *e;

    QLIST_FOREACH_ENTRY(l, e) {
        QDict *x = qobject_to(QDict, qlist_entry_obj(e));
        uint64_t o = qdict_get_int(x, "offset");
        uint64_t n = qdict_get_int(x, "length");

        if (offset < o + n && o < offset + len) {
            g_assert_cmpuint(offset, >=, o);
            g_assert_cmpuint(offset + len, <=, o + n);
            return true;
        }
    }
    return false;
}

void fill(uint8_t *buf, size_t len, unsigned seed)
{
    size_t i;

    for (i = 0; i < len; i++) {
        buf[i] = (uint8_t)(seed * 131 + i * 7 + (i >> 9));
    }
}

void read_image(const char *img, uint64_t offset, void *buf, size_t len)
{
    int fd = open(img, O_RDONLY);

    g_assert_cmpint(fd, >=, 0);
    g_assert_cmpint(pread(fd, buf, len, offset), ==, len);
    close(fd);
}
