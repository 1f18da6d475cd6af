/*
 * qtest: the hddmodel driver behind QEMU's NVMe controller with platter's
 * patches (the Write FUA bit reaches the driver as BDRV_REQ_FUA: native
 * FUA, the guest sees fua=1; queues processed synchronously; a volatile
 * write cache reported only when the drive has one).  FUA writes durable
 * at completion, the driver's host queue behind two command slots, the
 * write cache as Identify and the features show it, and what a hostile
 * guest can send: past the end, above MDTS, FUA on a read.  NVMe is driven
 * by hand through its queues; libqos has no NVMe command driver.
 *
 * Copyright (C) 2026 the platter authors.
 *
 * This work is licensed under the terms of the GNU GPL, version 2 or later.
 * See the COPYING file in the top-level directory.
 */

#include "qemu/osdep.h"
#include "libqos/pci.h"
#include "hddmodel-rig.h"

#define NVME_REG_CC     0x14
#define NVME_REG_CSTS   0x1c
#define NVME_REG_AQA    0x24
#define NVME_REG_ASQ    0x28
#define NVME_REG_ACQ    0x30
#define NVME_QSIZE      8

#define NVME_SC_INVALID_FIELD   0x02
#define NVME_ID_CTRL_VWC        525     /* Identify Controller: VWC byte */
#define NVME_FEAT_VWC           0x06
#define NVME_SC_LBA_RANGE       0x80

typedef struct Nvme {
    QPCIDevice *pdev;
    QPCIBar bar;
    uint64_t sq[2], cq[2];
    uint16_t sq_tail[2], cq_head[2];
    uint8_t phase[2];
    uint16_t cid;
    uint32_t result;        /* the last CQE's Dword 0 */
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
    n->result = qtest_readl(qts, cqe);
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

/* One NVMe Read (0x02) or Write (0x01) of nlb blocks at lba on queue 1. */
static uint16_t nvme_rw(Rig *r, Nvme *n, uint8_t opc, uint64_t lba,
                        uint32_t nlb, uint64_t data, bool fua)
{
    uint32_t dw[16] = { 0 };

    dw[0] = opc;
    dw[1] = 1;
    dw[6] = data;
    dw[7] = data >> 32;
    dw[10] = lba;
    dw[11] = lba >> 32;
    dw[12] = (nlb - 1) | (fua ? 1u << 30 : 0);
    /* status without phase, More and DNR: SCT << 8 | SC */
    return nvme_cmd(r, n, 1, dw, NULL, NULL) & 0x7ff;
}

/*
 * QEMU still serves the guest: an NVMe write and a read of it come back
 * intact, nothing is left in flight on d1.
 */
static void nvme_assert_alive(Rig *r, Nvme *n)
{
    static unsigned seed = 2000;
    uint64_t data = alloc_page(r, 4096);
    uint8_t a[4096], got[4096];

    fill(a, sizeof(a), ++seed);
    qtest_memwrite(r->qts, data, a, sizeof(a));
    g_assert_cmpuint(nvme_rw(r, n, 0x01, 90000, 8, data, false), ==, 0);
    qtest_memset(r->qts, data, 0, sizeof(a));
    g_assert_cmpuint(nvme_rw(r, n, 0x02, 90000, 8, data, false), ==, 0);
    qtest_memread(r->qts, data, got, sizeof(got));
    g_assert_cmpmem(got, sizeof(got), a, sizeof(a));
    g_assert_cmpuint(node_stat(r, "d1", "in-flight"), ==, 0);
}

/* The end of a test: nvme_assert_alive(), then rig_stop(). */
static void nvme_end(Rig *r, Nvme *n)
{
    nvme_assert_alive(r, n);
    rig_stop(r);
}

static void test_nvme_fua(void)
{
    Rig *r = rig_start(NULL, true);
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

    /* the FUA write is on the image once the VM stops, without a flush */
    vm_stop(r);
    read_image(r->img1, 5000 * 512, buf, sizeof(buf));
    fill(want, sizeof(want), 4);
    g_assert_cmpmem(buf, sizeof(buf), want, sizeof(want));

    oracle_free(o);
    rig_stop(r);
}

/*
 * Three writes rung with one doorbell on a drive that takes two commands
 * at a time: the third waits in the driver's host queue and goes to the
 * model when the first completes.  Every completion matches the model.
 */
static void test_nvme_queued(void)
{
    Rig *r = rig_start(NULL, true);
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
}

/* An NVMe Read (0x02) or Write (0x01) */
typedef struct NvmeRw {
    uint8_t opc;
    uint64_t lba;
    uint32_t nlb;
    bool fua;
} NvmeRw;

/*
 * Each of bad[] is refused with `status` before the block layer, so the
 * model never sees it; then `good` succeeds.
 */
static void nvme_refused(const NvmeRw *bad, int nbad, uint16_t status,
                         const NvmeRw *good)
{
    Rig *r = rig_start(NULL, true);
    Nvme n = { 0 };
    uint64_t data;
    int i;

    nvme_setup(r, &n);
    data = alloc_page(r, 4096);
    for (i = 0; i < nbad; i++) {
        g_assert_cmpuint(nvme_rw(r, &n, bad[i].opc, bad[i].lba, bad[i].nlb,
                                 data, bad[i].fua), ==, status);
    }
    g_assert_cmpuint(node_stat(r, "d1", "writes") +
                     node_stat(r, "d1", "reads"), ==, 0);
    g_assert_cmpuint(nvme_rw(r, &n, good->opc, good->lba, good->nlb, data,
                             good->fua), ==, 0);
    g_assert_cmpuint(node_stat(r, "d1", "fua-writes"), ==, good->fua);
    nvme_end(r, &n);
}

#define CAP_LBAS (IMG_SIZE / 512)

/*
 * Past the end of the device, straddling it, and LBA + count wrapping
 * 2^64: LBA Out of Range; the last sectors still work.
 */
static void test_past_end(void)
{
    static const NvmeRw bad[] = {
        { 0x02, CAP_LBAS - 4, 8, false },
        { 0x01, CAP_LBAS, 1, false },
        { 0x01, UINT64_MAX - 2, 8, true },
    };
    static const NvmeRw good = { 0x01, CAP_LBAS - 8, 8, true };

    nvme_refused(bad, G_N_ELEMENTS(bad), NVME_SC_LBA_RANGE, &good);
}

/* Transfers above the controller's MDTS (512 KiB): Invalid Field. */
static void test_huge(void)
{
    static const NvmeRw bad[] = {
        { 0x02, 0, 2048, false },           /* 1 MiB */
        { 0x01, 0, 2048, true },
        { 0x01, 0, 65536, true },           /* 32 MiB */
    };
    static const NvmeRw good = { 0x02, CAP_LBAS - 8, 8, false };

    nvme_refused(bad, G_N_ELEMENTS(bad), NVME_SC_INVALID_FIELD, &good);
}

/*
 * NVMe Read with FUA set: QEMU's controller serves it as a plain read, and
 * it returns the newest data, including data still in the volatile cache.
 */
static void test_fua_read(void)
{
    Rig *r = rig_start(NULL, true);
    Nvme n = { 0 };
    uint64_t data;
    uint8_t a[4096], got[4096];

    nvme_setup(r, &n);
    data = alloc_page(r, 4096);
    fill(a, sizeof(a), 12);
    qtest_memwrite(r->qts, data, a, sizeof(a));
    g_assert_cmpuint(nvme_rw(r, &n, 0x01, 7000, 8, data, false), ==, 0);
    g_assert_cmpuint(node_stat(r, "d1", "cached-bytes"), ==, sizeof(a));

    qtest_memset(r->qts, data, 0, sizeof(a));
    g_assert_cmpuint(nvme_rw(r, &n, 0x02, 7000, 8, data, true), ==, 0);
    qtest_memread(r->qts, data, got, sizeof(got));
    g_assert_cmpmem(got, sizeof(got), a, sizeof(a));
    g_assert_cmpuint(node_stat(r, "d1", "reads"), ==, 1);

    /* a FUA read of sectors never written: zeroes */
    qtest_memset(r->qts, data, 0xee, sizeof(a));
    g_assert_cmpuint(nvme_rw(r, &n, 0x02, 9000, 8, data, true), ==, 0);
    qtest_memread(r->qts, data, got, sizeof(got));
    memset(a, 0, sizeof(a));
    g_assert_cmpmem(got, sizeof(got), a, sizeof(a));

    nvme_end(r, &n);
}

/*
 * Identify Controller reports a volatile write cache (VWC bit 0) exactly
 * when the namespace's drive has one.  With the front end's write-cache=off
 * the namespace is write-through: the host must see no cache (Linux then
 * sends neither Flush nor FUA), cannot enable one with Set Features, and
 * every write reaches the driver durable (FUA, from the block layer).
 */
static void nvme_vwc(bool wce)
{
    Rig *r = rig_start_full(NULL, true, "",
                            wce ? "" : "-global nvme.write-cache=off ");
    Nvme n = { 0 };
    uint64_t page;
    uint32_t dw[16];
    uint8_t buf[4096];

    nvme_setup(r, &n);
    page = alloc_page(r, 4096);

    memset(dw, 0, sizeof(dw));          /* Identify, CNS 01h: controller */
    dw[0] = 0x06;
    dw[6] = page;
    dw[7] = page >> 32;
    dw[10] = 1;
    g_assert_cmpuint(nvme_cmd(r, &n, 0, dw, NULL, NULL), ==, 0);
    g_assert_cmpuint(qtest_readb(r->qts, page + NVME_ID_CTRL_VWC) & 1, ==,
                     wce);

    memset(dw, 0, sizeof(dw));          /* Get Features: VWC enabled? */
    dw[0] = 0x0a;
    dw[10] = NVME_FEAT_VWC;
    g_assert_cmpuint(nvme_cmd(r, &n, 0, dw, NULL, NULL), ==, 0);
    g_assert_cmpuint(n.result & 1, ==, wce);

    memset(dw, 0, sizeof(dw));          /* Set Features: enable the cache */
    dw[0] = 0x09;
    dw[10] = NVME_FEAT_VWC;
    dw[11] = 1;
    g_assert_cmpuint(nvme_cmd(r, &n, 0, dw, NULL, NULL) & 0x7ff, ==,
                     wce ? 0 : NVME_SC_INVALID_FIELD);

    /* a write without FUA: cached, or durable at once when write-through */
    fill(buf, sizeof(buf), 9);
    qtest_memwrite(r->qts, page, buf, sizeof(buf));
    g_assert_cmpuint(nvme_rw(r, &n, 0x01, 3000, 8, page, false), ==, 0);
    g_assert_cmpuint(node_stat(r, "d1", "fua-writes"), ==, wce ? 0 : 1);

    nvme_end(r, &n);
}

static void test_vwc_on(void)
{
    nvme_vwc(true);
}

static void test_vwc_off(void)
{
    nvme_vwc(false);
}

int main(int argc, char **argv)
{
    if (rig_test_init(&argc, &argv)) {
        qtest_add_func("/hddmodel/nvme/fua", test_nvme_fua);
        qtest_add_func("/hddmodel/nvme/host-queue", test_nvme_queued);
        qtest_add_func("/hddmodel/nvme/vwc/write-back", test_vwc_on);
        qtest_add_func("/hddmodel/nvme/vwc/write-through", test_vwc_off);
        qtest_add_func("/hddmodel/nvme/hostile/past-end", test_past_end);
        qtest_add_func("/hddmodel/nvme/hostile/huge", test_huge);
        qtest_add_func("/hddmodel/nvme/hostile/fua-read", test_fua_read);
    }
    return g_test_run();
}
