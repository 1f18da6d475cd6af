/*
 * The hddmodel qtests' timing oracle (hddmodel-oracle.c).
 *
 * Copyright (C) 2026 the platter authors.
 *
 * This work is licensed under the terms of the GNU GPL, version 2 or later.
 * See the COPYING file in the top-level directory.
 */

#ifndef HDDMODEL_ORACLE_H
#define HDDMODEL_ORACLE_H

#include "../../block/hwm/hwm.h"

/* The drive profile under test: HDDMODEL_PROFILE in HDDMODEL_PROFILE_DIR. */
const char *profile_dir(void);
const char *profile_name(void);

typedef struct Oracle {
    HwmProfile *profile;
    HwmDevice *dev;
    uint64_t tag;
} Oracle;

/* qd 0: the profile's queue depth */
Oracle *oracle_new_qd(bool fua, bool wce, uint32_t qd);
Oracle *oracle_new(bool fua, bool wce);
void oracle_free(Oracle *o);

typedef void OracleEventFn(const HwmEvent *ev, void *opaque);

/*
 * What the driver's timer does: run every event up to t, at its own time,
 * handing each to fn (if set).
 */
void oracle_run_until_cb(Oracle *o, hwm_ns t, OracleEventFn *fn,
                         void *opaque);
void oracle_run_until(Oracle *o, hwm_ns t);
/* Submit at t0 and return when the model completes it. */
hwm_ns oracle_request(Oracle *o, hwm_ns t0, HwmOp op, uint32_t flags,
                      uint64_t offset, uint64_t length);
/*
 * A burst: n requests arrive at t0 at a drive that takes qd at once; the
 * rest wait in the host queue (FIFO) and go in at the time of the
 * completion that frees a slot, as the driver does.  done[tag] gets each
 * completion time.
 */
void oracle_burst(Oracle *o, hwm_ns t0, const HwmRequest *req, int n,
                  uint32_t qd, int64_t *done);

#endif
