/*
 * qtest: the hddmodel driver behind scsi-hd with dpofua=on on
 * virtio-scsi, the closest to the seed's SATA drive.  With platter's
 * scsi-disk patch a WRITE(10) with FUA reaches the driver as one FUA
 * write, not as a write followed by a cache flush.
 *
 * Copyright (C) 2026 the platter authors.
 *
 * This work is licensed under the terms of the GNU GPL, version 2 or later.
 * See the COPYING file in the top-level directory.
 */

#include "qemu/osdep.h"
#include "standard-headers/linux/virtio_ring.h"
#include "hddmodel-rig.h"

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
    Rig *r = rig_start(NULL, true);
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
}

int main(int argc, char **argv)
{
    if (rig_test_init(&argc, &argv)) {
        qtest_add_func("/hddmodel/scsi-hd/dpofua", test_scsi_fua);
    }
    return g_test_run();
}
