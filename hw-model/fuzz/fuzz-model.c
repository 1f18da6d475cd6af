/* Fuzz target: the model's API driven by arbitrary request sequences and
 * power cuts, every event checked by the oracle in tests/drive.c.
 *
 * Input: byte 0 picks the profile and overrides, then 8 bytes a step:
 * gap (2 bytes, x 4096 ns), op/flags/cut (1), sector (3), sectors (2). */
#include <stdlib.h>
#include <string.h>

#include "drive.h"
#include "hwm.h"
#include "profiles.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) {
        return 0;
    }
    uint8_t sel = data[0];
    HwmConfig cfg = { .write_cache = (HwmTristate)((sel >> 2) % 3),
                      .fua = HWM_TRISTATE_PROFILE,
                      .queue_depth = (sel >> 4) & 1 ? 4 : 0,
                      .policy = (HwmPolicy)((sel >> 5) % 3),
                      /* (shares its bit with the policy's) */
                      .home_events = (sel >> 7) & 1 };
    HwmDevice *d = hwm_device_new(fuzz_profile(sel & 3), &cfg, NULL);
    if (!d) {
        return 0;   /* e.g. a write cache asked of a profile without one */
    }
    size_t n = (size - 1) / 8;
    DriveStep *steps = g_new0(DriveStep, n + 1);
    for (size_t i = 0; i < n; i++) {
        const uint8_t *b = data + 1 + i * 8;
        DriveStep *s = &steps[i];
        s->gap_ns = (hwm_ns)(b[0] | b[1] << 8) * 4096;
        s->power_cut = (b[2] & 0xf0) == 0xf0;
        s->op = (HwmOp)(b[2] & 3);
        s->flags = (b[2] >> 2) & 3;          /* includes an unknown flag */
        s->sector = (uint32_t)(b[3] | b[4] << 8 | b[5] << 16);
        s->sectors = (uint32_t)(b[6] | b[7] << 8);
    }
    GString *why = g_string_new(NULL);
    if (!drive_run(d, steps, n, why)) {
        g_printerr("fuzz-model: %s\n", why->str);
        abort();
    }
    g_string_free(why, TRUE);
    g_free(steps);
    hwm_device_free(d);
    return 0;
}
