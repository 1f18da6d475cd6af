/*
 * A long randomized integrity run of the model under the oracle: N requests
 * (writes, FUA writes, flushes, reads, discards) and a power cut about every
 * thousand, over profiles of each kind of durability (a protected FUA,
 * FUA written in place, a flash commit, power-loss protection, no cache,
 * a drive's measured layout),
 * with and without write cache.
 * Prints what it did; exits non-zero at the first violation.
 *
 *   soak-model [REQUESTS [SEED]]      (default 1000000 requests, seed 1)
 */
#include <stdio.h>
#include <stdlib.h>

#include "drive.h"

int main(int argc, char **argv)
{
    uint64_t total = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
    uint64_t s = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    /* dec-rz26 and hp-c2247a: measured zones and seek curves (track
     * spares, skews), writes fed while seeking, a read reconnect ratio */
    static const char *const names[] = { "st20000nm007d", "generic-7200",
                                         "990pro", "ideal", "micron-9200pro",
                                         "dec-rz26", "hp-c2247a" };
    const uint64_t nnames = G_N_ELEMENTS(names);
    const size_t chunk = 20000;
    uint64_t done = 0, cuts = 0, runs = 0;
    g_autofree DriveStep *steps = g_new0(DriveStep, chunk);

    while (done < total) {
        const char *name = names[runs % nnames];
        GError *err = NULL;
        g_autoptr(HwmProfile) p = hwm_profile_load(name, PROFILE_DIR, &err);
        if (!p) {
            fprintf(stderr, "soak-model: %s\n", err->message);
            return 2;
        }
        HwmConfig cfg = { .write_cache = (runs / nnames) % 3 == 2 ? HWM_OFF
                                                             : HWM_TRISTATE_PROFILE };
        g_autoptr(HwmDevice) d = hwm_device_new(p, &cfg, NULL);
        size_t n = (size_t)MIN(chunk, total - done);
        for (size_t i = 0; i < n; i++) {
            uint64_t r = hwm_splitmix64(&s), q = hwm_splitmix64(&s);
            DriveStep *st = &steps[i];
            st->gap_ns = (hwm_ns)(r % 2000000);
            st->power_cut = q % 1000 == 0;
            cuts += st->power_cut;
            st->op = (HwmOp)(q % 10 < 6 ? HWM_OP_WRITE : q % 10 < 8 ?
                             HWM_OP_FLUSH : q % 10 < 9 ? HWM_OP_READ :
                             HWM_OP_DISCARD);
            st->flags = st->op == HWM_OP_WRITE && (q >> 8) % 4 == 0 ?
                        HWM_REQ_FUA : 0;
            st->sectors = (uint32_t)((q >> 16) % 64);
            st->sector = (uint32_t)((q >> 24) % DRIVE_WINDOW_SECTORS);
        }
        g_autoptr(GString) why = g_string_new(NULL);
        if (!drive_run(d, steps, n, why)) {
            fprintf(stderr, "soak-model: %s, run %" G_GUINT64_FORMAT
                    " (seed %s): %s\n", name, runs, argc > 2 ? argv[2] : "1",
                    why->str);
            return 1;
        }
        done += n;
        runs++;
    }
    printf("soak-model: %" G_GUINT64_FORMAT " requests, %" G_GUINT64_FORMAT
           " power cuts, %" G_GUINT64_FORMAT " runs over %" G_GUINT64_FORMAT
           " profiles: 0 violations\n", done, cuts, runs, nnames);
    return 0;
}
