/*
 * hw-model unit tests: power cuts (hwm_power_cut()): events already due are kept, and what
 * the dropped commands did (arm, read segments) does not shape the time
 * after the cut.
 * GLib test framework, TAP with --tap; the helpers are model-test.h's.
 */
#include <string.h>

#include "drive.h"
#include "model-test.h"

/*
 * Events due at the moment of a power cut happened before it: a host that
 * cuts without draining still gets them afterwards, and what they made
 * durable is not reported lost.
 */
static void test_power_cut_keeps_due_events(void)
{
    HwmProfile *p = load("st20000nm007d");
    HwmDevice *d = device(p, HWM_ON, HWM_POLICY_PROFILE);
    HwmEvent ev[4];
    hwm_ns t;
    GArray *lost;
    size_t n;

    submit(d, 0, 1, HWM_OP_WRITE, HWM_REQ_FUA, 0, 4096);
    t = hwm_next_event(d);
    g_assert_cmpint(t, !=, HWM_NEVER);
    lost = hwm_power_cut(d, t);
    g_assert_cmpuint(lost->len, ==, 0);     /* FUA: durable at completion */
    g_array_unref(lost);
    n = hwm_advance(d, t, ev, G_N_ELEMENTS(ev));
    g_assert_cmpuint(n, >=, 1);
    g_assert_cmpint(ev[n - 1].kind, ==, HWM_EV_COMPLETE);
    g_assert_cmpuint(ev[n - 1].tag, ==, 1);
    g_assert_cmpint(ev[n - 1].time_ns, ==, t);
    g_assert_cmpint(hwm_next_event(d), ==, HWM_NEVER);

    /* the same write cached, cut before it completes: dropped, lost */
    submit(d, t, 2, HWM_OP_WRITE, 0, 8192, 4096);
    lost = hwm_power_cut(d, t + 1);
    g_assert_cmpuint(lost->len, ==, 0);     /* not acknowledged yet */
    g_array_unref(lost);
    g_assert_cmpint(hwm_next_event(d), ==, HWM_NEVER);
    hwm_device_free(d);
    hwm_profile_free(p);
}

/*
 * After a cut the device is in power-on state whatever the cut dropped: a
 * device that was seeking to and writing far away when the power failed
 * times the next requests exactly as one that was idle (a trace of the
 * run, which cannot show dropped commands, replays exactly).
 */
static void test_power_cut_forgets_dropped(void)
{
    g_autoptr(HwmProfile) p = load("st20000nm007d");
    g_autoptr(HwmDevice) busy = device(p, HWM_OFF, HWM_POLICY_PROFILE);
    g_autoptr(HwmDevice) idle = device(p, HWM_OFF, HWM_POLICY_PROFILE);
    uint64_t blocks = hwm_device_capacity_bytes(busy) / 4096;
    const hwm_ns cut = 10 * MS;

    /* writes after long seeks: they move the arm and draw write misses */
    for (uint64_t i = 0; i < 8; i++) {
        submit(busy, 0, i, HWM_OP_WRITE, 0,
               (blocks - 1 - i * (blocks / 9)) * 4096, 4096);
    }
    g_array_unref(hwm_power_cut(busy, cut));
    g_array_unref(hwm_power_cut(idle, cut));
    for (uint64_t i = 0; i < 32; i++) {
        uint64_t off = (i * 7919 % 97) * (blocks / 100) * 4096;
        submit(busy, cut + (hwm_ns)i * 50 * MS, i, HWM_OP_WRITE, 0, off, 4096);
        submit(idle, cut + (hwm_ns)i * 50 * MS, i, HWM_OP_WRITE, 0, off, 4096);
        HwmEvent a = next_completion(busy), b = next_completion(idle);
        g_assert_cmpint(a.time_ns, ==, b.time_ns);
        g_assert_cmpuint(a.write_misses, ==, b.write_misses);
    }
}

/*
 * The same for the read path: a cut drops the read segments and a
 * read-ahead in progress (volatile buffer and actuator state), so reads
 * after it time exactly as on a device that never read; cut while the
 * read-ahead runs and after it filled its segment.
 */
static void test_power_cut_forgets_reads(void)
{
    g_autoptr(HwmProfile) p = load("st20000nm007d");
    const hwm_ns after[] = { 1 * MS, 200 * MS };

    for (guint k = 0; k < G_N_ELEMENTS(after); k++) {
        g_autoptr(HwmDevice) busy = device(p, HWM_OFF, HWM_POLICY_PROFILE);
        g_autoptr(HwmDevice) idle = device(p, HWM_OFF, HWM_POLICY_PROFILE);
        const uint64_t base = 1ull << 30;

        submit(busy, 0, 0, HWM_OP_READ, 0, base, 65536);
        HwmEvent r = next_completion(busy);
        g_assert_false(r.cache_hit);
        hwm_ns cut = r.time_ns + after[k];
        g_array_unref(hwm_power_cut(busy, cut));
        g_array_unref(hwm_power_cut(idle, cut));
        for (uint64_t i = 0; i < 8; i++) {
            /* the data read, and what the read-ahead went on to read */
            uint64_t off = base + i * 65536;
            hwm_ns t = cut + (hwm_ns)i * 30 * MS;
            submit(busy, t, 1 + i, HWM_OP_READ, 0, off, 65536);
            submit(idle, t, 1 + i, HWM_OP_READ, 0, off, 65536);
            HwmEvent a = next_completion(busy), b = next_completion(idle);
            g_assert_cmpint(a.time_ns, ==, b.time_ns);
            g_assert_cmpint(a.cache_hit, ==, b.cache_hit);
            g_assert_cmpint(a.read_ahead, ==, b.read_ahead);
        }
    }
}

/*
 * A cached write is acknowledged the instant the cache takes it: with a
 * completion overhead (write_completion_overhead_us) that overhead comes
 * before, so a cut just before the completion finds nothing in the cache
 * and loses nothing.  Before, the data went into the cache and the
 * completion followed 500 us later: a cut between them reported a loss
 * the host was never told of (QEMU's soak test on dec-rz26: "model lost
 * 7680 bytes, cache held 0").
 */
static void test_power_cut_before_completion(void)
{
    static const char *const kv[] = { "write_completion_overhead_us", "500",
                                      NULL };
    g_autoptr(HwmProfile) p = load_set("st20000nm007d", kv);
    g_autoptr(HwmDevice) d = device(p, HWM_ON, HWM_POLICY_PROFILE);

    submit(d, 0, 1, HWM_OP_WRITE, 0, 0, 4096);
    HwmEvent e = next_completion(d);
    g_assert_false(e.durable);
    hwm_ns done = e.time_ns;

    g_autoptr(HwmDevice) d2 = device(p, HWM_ON, HWM_POLICY_PROFILE);
    submit(d2, 0, 1, HWM_OP_WRITE, 0, 0, 4096);
    GArray *lost = hwm_power_cut(d2, done - 100000);
    g_assert_cmpuint(lost->len, ==, 0);
    g_array_unref(lost);

    /* and once it has completed, the cut loses it */
    g_autoptr(HwmDevice) d3 = device(p, HWM_ON, HWM_POLICY_PROFILE);
    submit(d3, 0, 1, HWM_OP_WRITE, 0, 0, 4096);
    HwmEvent ev[4];
    g_assert_cmpuint(hwm_advance(d3, done, ev, G_N_ELEMENTS(ev)), >=, 1);
    lost = hwm_power_cut(d3, done);
    g_assert_cmpuint(lost->len, ==, 1);
    g_array_unref(lost);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/durability/power-cut-keeps-due-events",
                    test_power_cut_keeps_due_events);
    g_test_add_func("/durability/power-cut-forgets-dropped",
                    test_power_cut_forgets_dropped);
    g_test_add_func("/durability/power-cut-forgets-reads",
                    test_power_cut_forgets_reads);
    g_test_add_func("/durability/power-cut-before-completion",
                    test_power_cut_before_completion);
    return g_test_run();
}
