/*
 * How the model's work per request grows with what it holds: host CPU per
 * operation against the number of dirty extents and of flash dies.  A
 * benchmark, not a test: it prints figures and asserts nothing about them.
 * Flat columns mean O(1) or O(log n); a column that grows with the row
 * means the walk the issue found (every extent per flush check, every die
 * per event).
 *
 *   bench-scaling [extents|dies]
 */
#define _POSIX_C_SOURCE 200809L   /* clock_gettime: host CPU time */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hwm.h"

static double cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static HwmDevice *device(const char *text)
{
    GError *err = NULL;
    g_autoptr(HwmProfile) p = hwm_profile_parse(text, strlen(text), "bench",
                                                 &err);
    HwmDevice *d = p ? hwm_device_new(p, NULL, &err) : NULL;
    if (!d) {
        g_printerr("bench-scaling: %s\n", err->message);
        exit(2);
    }
    return d;
}

static void submit(HwmDevice *d, hwm_ns t, uint64_t tag, HwmOp op,
                   uint64_t off, uint64_t len)
{
    GError *err = NULL;
    HwmRequest r = { .tag = tag, .op = op, .offset = off, .length = len };
    if (!hwm_submit(d, t, &r, &err)) {
        g_printerr("bench-scaling: %s\n", err->message);
        exit(2);
    }
}

/* Run until `count` completions; returns the time of the last. */
static hwm_ns complete(HwmDevice *d, uint64_t count)
{
    HwmEvent ev;
    hwm_ns t = 0;
    while (count > 0 && (t = hwm_next_event(d)) != HWM_NEVER) {
        if (hwm_advance(d, t, &ev, 1) == 1 && ev.kind == HWM_EV_COMPLETE) {
            count--;
        }
    }
    return t;
}

/*
 * K dirty extents (scattered 4 KiB writes into a cache that never writes
 * back by itself), then one queued FLUSH: every write-back it waits for
 * re-checks the oldest acknowledgement, which walked all K extents.
 */
static void dirty_extents(void)
{
    static const uint32_t ks[] = { 1000, 4000, 16000, 64000 };
    printf("dirty extents  write-backs  CPU ns per write-back (FLUSH queued)\n");
    for (size_t i = 0; i < G_N_ELEMENTS(ks); i++) {
        g_autofree char *text = g_strdup_printf(
            "type = hdd\ncapacity_bytes = 4000787030016\nrpm = 7200\n"
            "heads = 8\nzones = 16\nouter_sectors_per_track = 3600\n"
            "inner_sectors_per_track = 1800\nseek_track_to_track_ms = 1\n"
            "seek_avg_ms = 8.5\nseek_full_stroke_ms = 17\nhead_switch_ms = 0.8\n"
            "queue_depth = 65536\nflush = queued\nwrite_cache = yes\n"
            "cache_mb = 4096\ncache_segments = 1000000\n"
            "cache_high_water_pct = 100\nidle_destage_delay_ms = 1000000\n");
        g_autoptr(HwmDevice) d = device(text);
        uint64_t s = 7, blocks = hwm_device_capacity_bytes(d) / 4096;
        for (uint32_t k = 0; k < ks[i]; k++) {
            submit(d, 0, k, HWM_OP_WRITE, hwm_splitmix64(&s) % blocks * 4096, 4096);
        }
        hwm_ns now = complete(d, ks[i]);
        HwmStats st0, st1;
        hwm_stats(d, &st0);
        double c0 = cpu_ns();
        submit(d, now, 1u << 31, HWM_OP_FLUSH, 0, 0);
        complete(d, 1);
        double c1 = cpu_ns();
        hwm_stats(d, &st1);
        uint64_t wb = st1.destages - st0.destages;
        printf("%13u  %11" G_GUINT64_FORMAT "  %8.0f\n", ks[i], wb,
               (c1 - c0) / (double)(wb ? wb : 1));
    }
}

/*
 * N dies, 256 requests kept in flight (random 4 KiB reads and writes):
 * every event walked every die.
 */
/* the same measuring loop as dirty_extents() over another axis (dies, not
 * extents): each benchmark states its own profile text and table, which
 * a shared helper would hide (duplicates pairs the two by shape) */
static void flash_units(void)
{
    static const uint32_t units[] = { 64, 512, 4096 };
    const uint64_t total = 200000;
    printf("\nflash dies  requests  CPU ns per request (256 in flight)\n");
    for (size_t i = 0; i < G_N_ELEMENTS(units); i++) {
        g_autofree char *text = g_strdup_printf(
            "type = flash\ncapacity_bytes = 214748364800\nparallel_units = %u\n"
            "read_us = 50\nprogram_us = 500\nprogram_kb = 16\n"
            "queue_depth = 256\nwrite_cache = yes\ncache_mb = 64\n"
            "flush = queued\n", units[i]);
        g_autoptr(HwmDevice) d = device(text);
        uint64_t s = 11, blocks = hwm_device_capacity_bytes(d) / 4096;
        uint64_t issued = 0, done = 0;
        HwmEvent ev[256];
        double c0 = cpu_ns();
        for (; issued < 256; issued++) {
            submit(d, 0, issued, hwm_splitmix64(&s) % 2 ? HWM_OP_READ : HWM_OP_WRITE,
                   hwm_splitmix64(&s) % blocks * 4096, 4096);
        }
        while (done < total) {
            hwm_ns t = hwm_next_event(d);
            size_t n = hwm_advance(d, t, ev, G_N_ELEMENTS(ev));
            for (size_t k = 0; k < n; k++) {
                if (ev[k].kind != HWM_EV_COMPLETE) {
                    continue;
                }
                done++;
                if (issued < total) {
                    submit(d, t, issued++, hwm_splitmix64(&s) % 2 ? HWM_OP_READ
                                                       : HWM_OP_WRITE,
                           hwm_splitmix64(&s) % blocks * 4096, 4096);
                }
            }
        }
        double c1 = cpu_ns();
        printf("%10u  %8" G_GUINT64_FORMAT "  %8.0f\n", units[i], done,
               (c1 - c0) / (double)done);
    }
}

int main(int argc, char **argv)
{
    /* bench-scaling [extents|dies]: one table, or both */
    if (argc < 2 || !strcmp(argv[1], "extents")) {
        dirty_extents();
    }
    if (argc < 2 || !strcmp(argv[1], "dies")) {
        flash_units();
    }
    return 0;
}
