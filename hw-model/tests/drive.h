/*
 * Drive a device through a script of requests and power cuts while an
 * independent oracle checks every event: completions never precede their
 * submission, no request completes twice or after a power cut dropped it,
 * nothing outstanding is forgotten, counters agree with what was seen, a
 * FLUSH covers every write acknowledged before it, a FUA write is durable,
 * and a power cut reports exactly the acknowledged-but-volatile sectors.
 * Shared by the unit tests and the fuzz targets.
 */
#ifndef HWM_TEST_DRIVE_H
#define HWM_TEST_DRIVE_H

#include "hwm.h"

#define DRIVE_WINDOW_SECTORS 4096u   /* requests land in the first 2 MiB */

typedef struct {
    hwm_ns gap_ns;            /* time since the previous step */
    bool power_cut;           /* cut power instead of submitting */
    HwmOp op;
    uint32_t flags;
    uint32_t sector;          /* within the window */
    uint32_t sectors;
} DriveStep;

/* Returns false and fills `why` at the first violation. */
bool drive_run(HwmDevice *dev, const DriveStep *steps, size_t n, GString *why);

#endif
