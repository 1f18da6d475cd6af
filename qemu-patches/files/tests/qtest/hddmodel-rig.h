/*
 * The hddmodel qtests' rig (hddmodel-rig.c): one QEMU under -accel qtest
 * with an hddmodel node on each front end, its virtual clock stepped by
 * the test, virtio-blk requests on d0, QMP on the driver.  No guest
 * kernel: the test is the guest.
 *
 * Environment:
 *   QTEST_QEMU_BINARY      qemu-system-x86_64 under test
 *   HDDMODEL_PROFILE_DIR   directory with *.profile (required)
 *   HDDMODEL_PROFILE       profile to use (default generic-7200)
 *   HDDMODEL_QEMU_ARGS     extra QEMU arguments (firmware path)
 *   HDDMODEL_TRACE_DIR     keep d0's request traces here
 *
 * Copyright (C) 2026 the platter authors.
 *
 * This work is licensed under the terms of the GNU GPL, version 2 or later.
 * See the COPYING file in the top-level directory.
 */

#ifndef HDDMODEL_RIG_H
#define HDDMODEL_RIG_H

#include "libqtest.h"
#include "libqos/libqos-pc.h"
#include "libqos/virtio.h"
#include "libqos/virtio-pci.h"
#include "qobject/qdict.h"
#include "standard-headers/linux/virtio_blk.h"
#include "hddmodel-oracle.h"

#define IMG_SIZE        (64 * 1024 * 1024)
#define VBLK_SLOT       4
#define NVME_SLOT       5
#define VSCSI_SLOT      6
#define MAX_STEPS       100000

/*
 * g_test_init(), and false (with a skipped test registered) if the tests
 * cannot run: no HDDMODEL_PROFILE_DIR, or a profile without the write
 * cache they exercise.
 */
bool rig_test_init(int *argc, char ***argv);
/* HDDMODEL_QEMU_ARGS, or "" */
const char *extra_args(void);

typedef struct Rig {
    QOSState *qs;
    QTestState *qts;
    char *img;              /* d0's image: the test's, or the rig's */
    bool own_img;           /* the rig's: rig_stop() deletes it */
    char *img1, *img2;      /* d1's and d2's: the rig's */
    char *trace;
    QVirtioPCIDevice *vblk;
    QVirtQueue *vq;
    int in_flight;          /* virtio-blk requests kicked, not yet used */
    uint16_t avail_idx;     /* virtio-blk: next avail ring slot */
    bool stopped;           /* the test stopped the VM */
    int64_t clock;          /* QEMU_CLOCK_VIRTUAL */
} Rig;

/* A sparse image of IMG_SIZE bytes in the temporary directory. */
char *make_image(void);

/*
 * One hddmodel node per front end: d0 on virtio-blk (no FUA; the image
 * under test, with a request trace), d1 on NVMe (native FUA, two command
 * slots) and d2 on scsi-hd with dpofua=on, each on an image of its own
 * (file locking).  img NULL: the rig makes d0's image too (and deletes
 * it at rig_stop()).  d0_more:
 * extra d0 options, e.g. "queue-depth=4,"; qemu_more: extra QEMU
 * arguments, e.g. "-action shutdown=pause ".
 */
Rig *rig_start_full(const char *img, bool wce, const char *d0_more,
                    const char *qemu_more);
Rig *rig_start_opts(const char *img, bool wce, const char *d0_more);
Rig *rig_start(const char *img, bool wce);
void rig_stop(Rig *r);
/* rig_stop(), returning d0's request trace as QEMU left it (free it) */
char *rig_stop_trace(Rig *r);
/* The end of a test: assert_alive(), then rig_stop(). */
void rig_end(Rig *r);

/*
 * qtest cannot read the clock without moving it, so the rig keeps it: it
 * starts at 0 and moves only when the test steps it.
 */
int64_t now(Rig *r);
void step(Rig *r, int64_t ns);
void step_next(Rig *r);
void vm_stop(Rig *r);
void vm_cont(Rig *r);

/* ---- virtio-blk on d0 -------------------------------------------------- */

void vblk_setup(Rig *r);

/*
 * A virtio-blk request: header, data, status byte in one guest buffer.
 * vblk_prepare() writes them, vblk_kick() makes the request visible to the
 * device (which starts it at once: ioeventfd=off), vblk_wait() steps the
 * clock until the given requests are used, vblk_finish() frees the buffer.
 */
typedef struct VblkReq {
    uint32_t type;
    uint64_t sector;
    size_t len;
    uint64_t addr;
    uint32_t head;
    int64_t t0, t1;         /* kicked, used */
    uint8_t status;
    bool done;
} VblkReq;

#define VBLK_HDR sizeof(struct virtio_blk_outhdr)

/* data NULL with len > 64 KiB: the caller fills the data */
void vblk_prepare(Rig *r, VblkReq *q, uint32_t type, uint64_t sector,
                  const void *data, size_t len);
/*
 * segs: sizes of the first data descriptors, 0-terminated (NULL: one data
 * descriptor); the last descriptor takes the rest.
 */
void vblk_kick(Rig *r, VblkReq *q, const size_t *segs);
/* vblk_kick() in two: into the avail ring, then one notify for all */
void vblk_queue(Rig *r, VblkReq *q, const size_t *segs);
void vblk_notify(Rig *r);
/*
 * Collect used requests until all of q[0..n) are done, stepping the clock
 * from deadline to deadline when nothing is ready.  With !may_step the
 * clock never moves: they must complete on their own.
 */
void vblk_wait(Rig *r, VblkReq *q, int n, bool may_step);
/* Copy a read's data out (if buf) and free the request's guest buffer. */
void vblk_finish(Rig *r, VblkReq *q, void *buf);
/*
 * One request, alone; returns its status (data read into data if IN).
 * While the test has the VM stopped it must complete without the clock
 * moving.
 */
uint8_t vblk_try(Rig *r, uint32_t type, uint64_t sector, void *data,
                 size_t len, const size_t *segs);
/*
 * Issue one request and step the clock from deadline to deadline until it
 * completes OK.  Returns the completion time; *t0 gets the submission time.
 */
int64_t vblk_io(Rig *r, uint32_t type, uint64_t sector, void *data,
                size_t len, int64_t *t0);
/*
 * QEMU still serves the guest: a write and a read of it on d0 come back
 * intact, nothing is left in flight, and the driver answers QMP.
 */
void assert_alive(Rig *r);
/* requests the model saw on d0 */
uint64_t d0_requests(Rig *r);

/* ---- QMP, data --------------------------------------------------------- */

/* query-hddmodel's stats of a node (unref it) */
QDict *node_stats(Rig *r, const char *node);
uint64_t node_stat(Rig *r, const char *node, const char *key);
/* query-hddmodel has every counter of HwmStats (its QAPI name: '-' for '_') */
void assert_all_stats(Rig *r, const char *node);
/* hddmodel-power-cut on a node: its return (unref it) */
QDict *power_cut(Rig *r, const char *node);
/* Is [offset, offset + len) inside one of the cut's lost extents? */
bool cut_lost(QDict *cut, uint64_t offset, uint64_t len);

void fill(uint8_t *buf, size_t len, unsigned seed);
void read_image(const char *img, uint64_t offset, void *buf, size_t len);

#endif
