/*
 * The flash medium's throughput mechanisms, each against the time the
 * profile's figures give by hand: write-back fills a page with whatever
 * the buffer holds, every plane works at once, and the host link carries
 * one transfer at a time each way.
 */
#include <string.h>

#include "hwm.h"

#define US 1000ll
#define FAST_LINK "interface_mb_s = 1000000\n"   /* 4 ns per 4 KiB */
#define X4K 5     /* 4096 B at FAST_LINK, ns, rounded up */

/* One die of small pages; `extra` adds the keys a test is about. */
static HwmDevice *flash_device(const char *extra)
{
    g_autofree char *text = g_strconcat(
        "type = flash\ncapacity_bytes = 32000000000\nparallel_units = 1\n"
        "read_us = 50\nprogram_us = 100\nprogram_kb = 16\n"
        "command_overhead_us = 1\ncache_mb = 8\n", extra, NULL);
    GError *err = NULL;
    HwmProfile *p = hwm_profile_parse(text, strlen(text), "flash.profile",
                                      &err);
    g_assert_no_error(err);
    HwmDevice *d = hwm_device_new(p, NULL, &err);
    g_assert_no_error(err);
    hwm_profile_free(p);
    return d;
}

static void put(HwmDevice *d, uint64_t tag, HwmOp op, uint64_t off,
                uint64_t len)
{
    GError *err = NULL;
    HwmRequest r = { .tag = tag, .op = op, .offset = off, .length = len };
    g_assert_true(hwm_submit(d, 0, &r, &err));
    g_assert_no_error(err);
}

/* Run to the end; the latest completion and the latest durable event. */
static void run_out(HwmDevice *d, hwm_ns *last_done, hwm_ns *last_durable)
{
    HwmEvent ev;
    hwm_ns t;
    *last_done = *last_durable = 0;
    while ((t = hwm_next_event(d)) != HWM_NEVER) {
        while (hwm_advance(d, t, &ev, 1) == 1) {
            hwm_ns *slot = ev.kind == HWM_EV_COMPLETE ? last_done
                                                      : last_durable;
            *slot = MAX(*slot, ev.time_ns);
        }
    }
}

/* Eight 4 KiB writes far apart, all at once: the first is programmed on
 * its own (the die is idle), the other seven fill two 16 KiB pages.  One
 * program per extent would take eight program times. */
static void test_write_back_fills_a_page(void)
{
    g_autoptr(HwmDevice) d = flash_device(FAST_LINK);
    hwm_ns done, durable;
    HwmStats st;

    for (uint64_t i = 0; i < 8; i++) {
        put(d, i, HWM_OP_WRITE, i * 1048576, 4096);
    }
    run_out(d, &done, &durable);
    hwm_stats(d, &st);
    g_assert_cmpuint(st.media_ops, ==, 3);
    g_assert_cmpuint(st.destages, ==, 8);
    g_assert_cmpint(durable, >=, 3 * 100 * US);
    g_assert_cmpint(durable, <, 3 * 100 * US + 10 * US);
}

static void put_flags(HwmDevice *d, hwm_ns t, uint64_t tag, HwmOp op,
                      uint32_t flags, uint64_t off, uint64_t len)
{
    GError *err = NULL;
    HwmRequest r = { .tag = tag, .op = op, .flags = flags, .offset = off,
                     .length = len };
    g_assert_true(hwm_submit(d, t, &r, &err));
    g_assert_no_error(err);
}

/* The completion of the one command in flight. */
static HwmEvent complete_one(HwmDevice *d)
{
    HwmEvent ev;
    hwm_ns t;
    while ((t = hwm_next_event(d)) != HWM_NEVER) {
        while (hwm_advance(d, t, &ev, 1) == 1) {
            if (ev.kind == HWM_EV_COMPLETE) {
                return ev;
            }
        }
    }
    g_assert_not_reached();
}

/* Without power-loss protection a write that must be durable when it
 * completes (FUA, or any write with the write cache off) is programmed and
 * then waits for the commit (flush_commit_us), as a flush does; commits
 * run one at a time.  A plain write is acknowledged from the buffer. */
static void test_durable_write_pays_the_commit(void)
{
    /* 1 us overhead, 100 us program, 500 us commit */
    const char *keys = FAST_LINK "flush_commit_us = 500\n";
    for (int wce = 1; wce >= 0; wce--) {
        g_autofree char *extra = g_strconcat(keys, "write_cache = ",
                                             wce ? "yes\n" : "no\n", NULL);
        g_autoptr(HwmDevice) d = flash_device(extra);
        put_flags(d, 0, 1, HWM_OP_WRITE, HWM_REQ_FUA, 0, 4096);
        HwmEvent a = complete_one(d);
        g_assert_cmpint(a.time_ns, ==, 1 * US + X4K + 100 * US + 500 * US);
        g_assert_cmpint(a.t.destage_ns, ==, 500 * US);
        /* two at once: the second's program runs beside the first's
         * commit, its commit after it */
        put_flags(d, a.time_ns, 2, HWM_OP_WRITE, HWM_REQ_FUA, 1 << 20, 4096);
        put_flags(d, a.time_ns, 3, HWM_OP_WRITE, HWM_REQ_FUA, 2 << 20, 4096);
        HwmEvent b = complete_one(d), c = complete_one(d);
        g_assert_cmpint(c.time_ns - b.time_ns, ==, 500 * US);
        /* a plain write: from the buffer, or (write cache off) programmed
         * and committed */
        put_flags(d, c.time_ns, 4, HWM_OP_WRITE, 0, 3 << 20, 4096);
        HwmEvent w = complete_one(d);
        g_assert_cmpint(w.time_ns - c.time_ns, ==,
                        wce ? 1 * US + X4K : 1 * US + X4K + 100 * US + 500 * US);
    }
}

/* Behind power-loss protection the buffer is durable: writes, FUA or not,
 * are acknowledged from it whatever the host set WCE to, a flush waits for
 * nothing, and a power cut loses nothing they acknowledged. */
static void test_power_loss_protection(void)
{
    for (int wce = 1; wce >= 0; wce--) {
        g_autofree char *extra = g_strconcat(
            FAST_LINK "flush_commit_us = 500\npower_loss_protection = yes\n",
            "write_cache = ", wce ? "yes\n" : "no\n", NULL);
        g_autoptr(HwmDevice) d = flash_device(extra);
        put_flags(d, 0, 1, HWM_OP_WRITE, HWM_REQ_FUA, 0, 4096);
        HwmEvent a = complete_one(d);
        g_assert_cmpint(a.time_ns, ==, 1 * US + X4K);
        for (uint64_t i = 0; i < 16; i++) {
            put_flags(d, a.time_ns, 2 + i, HWM_OP_WRITE, 0, (i + 1) << 20,
                      4096);
        }
        for (int i = 0; i < 16; i++) {
            complete_one(d);
        }
        HwmStats st;
        hwm_stats(d, &st);
        hwm_ns t = (hwm_ns)(16 * X4K + 1 * US + X4K) + a.time_ns;
        put_flags(d, t, 99, HWM_OP_FLUSH, 0, 0, 0);
        HwmEvent f = complete_one(d);
        g_assert_cmpint(f.time_ns - t, ==, 1 * US);
        /* the cut comes while write-back is still under way */
        put_flags(d, f.time_ns, 100, HWM_OP_WRITE, 0, 40 << 20, 65536);
        complete_one(d);
        g_autoptr(GArray) lost = hwm_power_cut(d, f.time_ns + 2 * US);
        g_assert_cmpuint(lost->len, ==, 0);
    }
}

/* Four reads on four pages of one die of four planes run together; with
 * one plane they take four read times. */
static void test_planes_read_at_once(void)
{
    g_autoptr(HwmDevice) d = flash_device(FAST_LINK "planes = 4\nwrite_cache = no\n");
    hwm_ns done, durable;

    for (uint64_t i = 0; i < 4; i++) {
        put(d, i, HWM_OP_READ, i * 16384, 4096);
    }
    run_out(d, &done, &durable);
    g_assert_cmpint(done, >=, 50 * US);
    g_assert_cmpint(done, <, 60 * US);
}

/* Two 1 MB writes and two 1 MB reads at once over a 1000 MB/s link: each
 * direction carries one at a time (1 ms each), the two directions at
 * once. */
static void test_link_one_transfer_at_a_time(void)
{
    g_autoptr(HwmDevice) d = flash_device("planes = 4\ninterface_mb_s = 1000\n");
    hwm_ns done, durable;

    put(d, 1, HWM_OP_WRITE, 0, 1000000 - 1000000 % 4096);
    put(d, 2, HWM_OP_WRITE, 4 * 1048576, 1000000 - 1000000 % 4096);
    run_out(d, &done, &durable);
    /* 999424 bytes at 1000 MB/s: 999.424 us each, after 1 us overhead */
    g_assert_cmpint(done, ==, 1 * US + 2 * 999424);

    g_autoptr(HwmDevice) r = flash_device("planes = 4\ninterface_mb_s = 1000\n"
                                          "write_cache = no\n");
    put(r, 1, HWM_OP_READ, 0, 16384);
    put(r, 2, HWM_OP_READ, 16384, 16384);
    run_out(r, &done, &durable);
    /* the second read's data follows the first's: 1 us overhead, a 50 us
     * page read on each plane, then two 16.384 us transfers */
    g_assert_cmpint(done, ==, 51 * US + 2 * 16384);
}

/* A write to sectors whose older data is being programmed goes into the
 * buffer at once, as a drive's buffer takes it, and is programmed after
 * the older data; the older program reports nothing of the sectors the
 * newer data holds, and a flush waits for the newer program. */
static void test_rewrite_while_programming(void)
{
    g_autoptr(HwmDevice) d = flash_device(FAST_LINK "planes = 1\n");
    HwmEvent ev;
    hwm_ns t, flushed = -1, last_durable = -1;
    int durable_events = 0;

    put_flags(d, 0, 1, HWM_OP_WRITE, 0, 0, 8192);
    g_assert_cmpint(complete_one(d).time_ns, ==, 1 * US + 2 * X4K - 1);
    /* 10 us on, the program of the first (100 us) is under way */
    put_flags(d, 10 * US, 2, HWM_OP_WRITE, 0, 4096, 4096);
    ev = complete_one(d);
    g_assert_cmpuint(ev.tag, ==, 2);
    g_assert_cmpint(ev.time_ns, <=, 10 * US + 1 * US + X4K);
    put_flags(d, ev.time_ns, 3, HWM_OP_FLUSH, 0, 0, 0);
    while ((t = hwm_next_event(d)) != HWM_NEVER) {
        while (hwm_advance(d, t, &ev, 1) == 1) {
            if (ev.kind == HWM_EV_COMPLETE) {
                g_assert_cmpuint(ev.tag, ==, 3);
                flushed = ev.time_ns;
            } else {
                durable_events++;
                last_durable = ev.time_ns;
                if (ev.time_ns < 150 * US) {
                    /* the first program: only the sector range nothing
                     * newer holds */
                    g_assert_cmpuint(ev.offset, ==, 0);
                    g_assert_cmpuint(ev.length, ==, 4096);
                } else {
                    g_assert_cmpuint(ev.offset, ==, 4096);
                    g_assert_cmpuint(ev.length, ==, 4096);
                }
            }
        }
    }
    g_assert_cmpint(durable_events, ==, 2);
    /* two programs, one after the other */
    g_assert_cmpint(last_durable, >=, 200 * US);
    g_assert_cmpint(flushed, >=, last_durable);
}

static void test_too_many_units(void)
{
    const char *text =
        "type = flash\ncapacity_bytes = 32000000000\nparallel_units = 4096\n"
        "planes = 2\nread_us = 50\nprogram_us = 100\nwrite_cache = no\n";
    GError *err = NULL;
    HwmProfile *p = hwm_profile_parse(text, strlen(text), "units.profile",
                                      &err);
    g_assert_no_error(err);
    g_assert_null(hwm_device_new(p, NULL, &err));
    g_assert_error(err, HWM_ERROR, HWM_ERROR_PROFILE);
    g_assert_nonnull(strstr(err->message, "parallel_units x planes"));
    g_error_free(err);
    hwm_profile_free(p);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/flash/write-back-fills-a-page",
                    test_write_back_fills_a_page);
    g_test_add_func("/flash/planes-read-at-once", test_planes_read_at_once);
    g_test_add_func("/flash/link-one-transfer-at-a-time",
                    test_link_one_transfer_at_a_time);
    g_test_add_func("/flash/too-many-units", test_too_many_units);
    g_test_add_func("/flash/rewrite-while-programming",
                    test_rewrite_while_programming);
    g_test_add_func("/flash/durable-write-pays-the-commit",
                    test_durable_write_pays_the_commit);
    g_test_add_func("/flash/power-loss-protection", test_power_loss_protection);
    return g_test_run();
}
