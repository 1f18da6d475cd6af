/*
 * The hddmodel qtests' timing oracle: hw-model itself, linked into the
 * test and driven with the calls the driver makes at the times it makes
 * them.  The driver must add nothing to, and lose nothing of, the model's
 * timing, so every completion the tests see must land where the oracle
 * puts it.
 *
 * Copyright (C) 2026 the platter authors.
 *
 * This work is licensed under the terms of the GNU GPL, version 2 or later.
 * See the COPYING file in the top-level directory.
 */

#include "qemu/osdep.h"
#include "hddmodel-oracle.h"

const char *profile_dir(void)
{
    return g_getenv("HDDMODEL_PROFILE_DIR");
}

const char *profile_name(void)
{
    const char *p = g_getenv("HDDMODEL_PROFILE");

    return p ? p : "generic-7200";
}

Oracle *oracle_new_qd(bool fua, bool wce, uint32_t qd)
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

Oracle *oracle_new(bool fua, bool wce)
{
    return oracle_new_qd(fua, wce, 0);
}

void oracle_free(Oracle *o)
{
    hwm_device_free(o->dev);
    hwm_profile_free(o->profile);
    g_free(o);
}

void oracle_run_until_cb(Oracle *o, hwm_ns t, OracleEventFn *fn,
                                void *opaque)
{
    HwmEvent ev[16];
    size_t n, i;

    for (;;) {
        hwm_ns next = hwm_next_event(o->dev);

        if (next == HWM_NEVER || next > t) {
            return;
        }
        do {
            n = hwm_advance(o->dev, next, ev, G_N_ELEMENTS(ev));
            for (i = 0; fn && i < n; i++) {
                fn(&ev[i], opaque);
            }
        } while (n == G_N_ELEMENTS(ev));
    }
}

void oracle_run_until(Oracle *o, hwm_ns t)
{
    oracle_run_until_cb(o, t, NULL, NULL);
}

hwm_ns oracle_request(Oracle *o, hwm_ns t0, HwmOp op, uint32_t flags,
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

void oracle_burst(Oracle *o, hwm_ns t0, const HwmRequest *req, int n,
                         uint32_t qd, int64_t *done)
{
    HwmEvent ev[16];
    int sub = 0, fin = 0;
    uint32_t in = 0;
    hwm_ns t = t0;

    oracle_run_until(o, t0);
    while (fin < n) {
        size_t m, j;

        while (sub < n && in < qd) {
            g_assert_true(hwm_submit(o->dev, t, &req[sub++], NULL));
            in++;
        }
        t = hwm_next_event(o->dev);
        g_assert_cmpint(t, !=, HWM_NEVER);
        do {
            m = hwm_advance(o->dev, t, ev, G_N_ELEMENTS(ev));
            for (j = 0; j < m; j++) {
                if (ev[j].kind == HWM_EV_COMPLETE) {
                    done[ev[j].tag] = ev[j].time_ns;
                    fin++;
                    in--;
                }
            }
        } while (m == G_N_ELEMENTS(ev));
    }
}
