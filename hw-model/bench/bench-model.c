/*
 * Model throughput in requests per host-CPU second.  A benchmark, not a
 * test: it prints figures and asserts nothing about them.
 *
 *   bench-model [PROFILE_DIR [SCENARIO]]     SCENARIO: 1, 2 or 3 (default all)
 */
#define _POSIX_C_SOURCE 200809L   /* clock_gettime: host CPU time */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "drive.h"
#include "hwm.h"

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A shipped profile with some keys replaced. */
static HwmProfile *profile_with(const char *dir, const char *name,
                                const char *const *over)
{
    g_autofree char *path = g_strdup_printf("%s/%s.profile", dir, name);
    g_autofree char *text = NULL;
    GError *err = NULL;
    if (!g_file_get_contents(path, &text, NULL, &err)) {
        g_printerr("bench-model: %s\n", err->message);
        exit(2);
    }
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    GString *out = g_string_new(NULL);
    for (int i = 0; lines[i]; i++) {
        bool replaced = false;
        for (int k = 0; over && over[k]; k++) {
            size_t n = strcspn(over[k], " =");
            replaced |= strncmp(lines[i], over[k], n) == 0 && lines[i][n] == ' ';
        }
        if (!replaced) {
            g_string_append_printf(out, "%s\n", lines[i]);
        }
    }
    for (int k = 0; over && over[k]; k++) {
        g_string_append_printf(out, "%s\n", over[k]);
    }
    HwmProfile *p = hwm_profile_parse(out->str, out->len, path, &err);
    g_string_free(out, TRUE);
    if (!p) {
        g_printerr("bench-model: %s\n", err->message);
        exit(2);
    }
    return p;
}

static HwmDevice *dev_new(HwmProfile *p, HwmTristate wce)
{
    GError *err = NULL;
    HwmConfig cfg = { .write_cache = wce };
    HwmDevice *d = hwm_device_new(p, &cfg, &err);
    if (!d) {
        g_printerr("bench-model: %s\n", err->message);
        exit(2);
    }
    return d;
}

static void submit(HwmDevice *d, hwm_ns t, HwmOp op, uint32_t flags,
                   uint64_t off)
{
    GError *err = NULL;
    HwmRequest r = { .op = op, .flags = flags, .offset = off, .length = 4096 };
    if (!hwm_submit(d, t, &r, &err)) {
        g_printerr("bench-model: %s\n", err->message);
        exit(2);
    }
}

/* Run to the next completion; returns its time. */
static hwm_ns wait_one(HwmDevice *d)
{
    HwmEvent ev;
    for (;;) {
        hwm_ns t = hwm_next_event(d);
        if (hwm_advance(d, t, &ev, 1) == 1 && ev.kind == HWM_EV_COMPLETE) {
            return ev.time_ns;
        }
    }
}

static void report(const char *name, uint64_t n, double s, const char *extra)
{
    printf("%-44s %9" G_GUINT64_FORMAT " requests  %7.3f s CPU  %10.0f req/s%s\n",
           name, n, s, n / s, extra);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : PROFILE_DIR;
    int only = argc > 2 ? atoi(argv[2]) : 0;
    uint64_t s = 1;

    if (!only || only == 1) {   /* QD1 sequential FUA writes */
        g_autoptr(HwmProfile) p = profile_with(dir, "st20000nm007d", NULL);
        g_autoptr(HwmDevice) d = dev_new(p, HWM_TRISTATE_PROFILE);
        const uint64_t n = 2000000;
        hwm_ns t = 0;
        double c0 = cpu_s();
        for (uint64_t i = 0; i < n; i++) {
            submit(d, t, HWM_OP_WRITE, HWM_REQ_FUA, i * 4096);
            t = wait_one(d) + 10000;
        }
        report("QD1 sequential 4K FUA writes (st20000nm007d)", n, cpu_s() - c0, "");
    }
    if (!only || only == 2) {   /* QD1 random writes into a full cache */
        static const char *const over[] = { "cache_segments = 65536",
                                             "cache_high_water_pct = 100",
                                             "idle_destage_delay_ms = 100000",
                                             NULL };
        g_autoptr(HwmProfile) p = profile_with(dir, "st20000nm007d", over);
        g_autoptr(HwmDevice) d = dev_new(p, HWM_TRISTATE_PROFILE);
        const uint64_t blocks = (100ull << 30) / 4096, n = 200000;
        HwmStats st;
        hwm_ns t = 0;
        do {
            submit(d, t, HWM_OP_WRITE, 0, hwm_splitmix64(&s) % blocks * 4096);
            t = wait_one(d) + 10000;
            hwm_stats(d, &st);
        } while (st.dirty_extents < 65000);
        double c0 = cpu_s();
        for (uint64_t i = 0; i < n; i++) {
            submit(d, t, HWM_OP_WRITE, 0, hwm_splitmix64(&s) % blocks * 4096);
            t = wait_one(d) + 10000;
        }
        double c = cpu_s() - c0;
        hwm_stats(d, &st);
        char extra[64];
        g_snprintf(extra, sizeof extra, "  (%" G_GUINT64_FORMAT " dirty extents)",
                   st.dirty_extents);
        report("QD1 random 4K writes, 256 MB cache full", n, c, extra);
    }
    if (!only || only == 3) {   /* QD32 random reads, SPTF, full stroke */
        g_autoptr(HwmProfile) p = profile_with(dir, "generic-7200", NULL);
        g_autoptr(HwmDevice) d = dev_new(p, HWM_OFF);
        const uint64_t blocks = hwm_device_capacity_bytes(d) / 4096, n = 1000000;
        hwm_ns t = 0;
        for (int i = 0; i < 32; i++) {
            submit(d, t, HWM_OP_READ, 0, hwm_splitmix64(&s) % blocks * 4096);
        }
        double c0 = cpu_s();
        for (uint64_t i = 0; i < n; i++) {
            t = wait_one(d);
            submit(d, t, HWM_OP_READ, 0, hwm_splitmix64(&s) % blocks * 4096);
        }
        report("QD32 random 4K reads, SPTF (generic-7200)", n, cpu_s() - c0, "");
    }
    return 0;
}
