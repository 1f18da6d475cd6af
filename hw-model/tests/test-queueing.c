/*
 * hw-model unit tests: queueing and ordering (device.c, device-units.c): FIFO order,
 * determinism, SPTF against FIFO, the queue window, aging, the write-back
 * order a profile describes, a full queue.
 * GLib test framework, TAP with --tap; the helpers are model-test.h's.
 */
#include <string.h>

#include "drive.h"
#include "model-test.h"

static void test_fifo_order(void)
{
    g_autoptr(HwmProfile) p = load("generic-7200");
    g_autoptr(HwmDevice) d = device(p, HWM_OFF, HWM_POLICY_FIFO);
    uint64_t s = 7;
    uint64_t cap = hwm_device_capacity_bytes(d) / 4096;

    for (uint64_t i = 0; i < 32; i++) {
        submit(d, 0, i, HWM_OP_READ, 0, hwm_splitmix64(&s) % cap * 4096, 4096);
    }
    for (uint64_t i = 0; i < 32; i++) {
        HwmEvent e = next_completion(d);
        g_assert_cmpuint(e.tag, ==, i);
        g_assert_cmpint(e.time_ns, >=, e.submit_ns);
    }
}

static GString *run_mixed(const char *profile, uint64_t seed)
{
    g_autoptr(HwmProfile) p = load(profile);
    g_autoptr(HwmDevice) d = device(p, HWM_TRISTATE_PROFILE,
                                    HWM_POLICY_PROFILE);
    GString *log = g_string_new(NULL);
    uint64_t s = seed, span = 1ull << 30;
    hwm_ns t = 0;
    uint32_t outstanding = 0;
    HwmEvent ev[16];

    for (uint64_t i = 0; i < 3000; i++) {
        t += (hwm_ns)(hwm_splitmix64(&s) % (2 * MS));
        uint64_t r = hwm_splitmix64(&s);
        HwmOp op = (HwmOp)(r % 10 < 4 ? HWM_OP_WRITE : r % 10 < 7 ?
                           HWM_OP_READ : r % 10 < 9 ? HWM_OP_FLUSH :
                           HWM_OP_DISCARD);
        uint32_t flags = op == HWM_OP_WRITE && (r >> 8) % 3 == 0 ? HWM_REQ_FUA : 0;
        uint64_t len = op == HWM_OP_FLUSH ? 0 : ((r >> 16) % 64 + 1) * 512;
        uint64_t off = (r >> 24) % (span / 512) * 512;
        size_t n;
        while ((n = hwm_advance(d, t, ev, G_N_ELEMENTS(ev))) > 0) {
            for (size_t k = 0; k < n; k++) {
                g_string_append_printf(log, "%d %" G_GINT64_FORMAT " %"
                    G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %"
                    G_GUINT64_FORMAT " %d\n", ev[k].kind, ev[k].time_ns,
                    ev[k].tag, ev[k].offset, ev[k].length, ev[k].durable);
                if (ev[k].kind == HWM_EV_COMPLETE) {
                    g_assert_cmpint(ev[k].time_ns, >=, ev[k].submit_ns);
                    outstanding--;
                }
            }
        }
        if (outstanding < hwm_device_queue_depth(d)) {
            submit(d, t, i, op, flags, off, len);
            outstanding++;
        }
    }
    while (outstanding > 0) {
        HwmEvent e = next_completion(d);
        g_assert_cmpint(e.time_ns, >=, e.submit_ns);
        g_string_append_printf(log, "C %" G_GINT64_FORMAT " %" G_GUINT64_FORMAT
                               "\n", e.time_ns, e.tag);
        outstanding--;
    }
    return log;
}

static void test_deterministic(gconstpointer profile)
{
    g_autoptr(GString) a = run_mixed(profile, 42);
    g_autoptr(GString) b = run_mixed(profile, 42);
    g_autoptr(GString) c = run_mixed(profile, 43);
    g_assert_cmpuint(a->len, >, 1000);
    g_assert_cmpstr(a->str, ==, b->str);
    g_assert_cmpstr(a->str, !=, c->str);
}

/*
 * `depth` random 4 KiB reads kept queued on a write-through device; each
 * completion is logged (tag and time; `log` may be NULL) and issues the
 * next.  Returns the mean time per request.
 */
static hwm_ns queued_reads(const HwmProfile *p, HwmConfig cfg,
                           uint32_t depth, GString *log)
{
    GError *err = NULL;
    cfg.write_cache = HWM_OFF;
    g_autoptr(HwmDevice) d = hwm_device_new(p, &cfg, &err);
    g_assert_no_error(err);
    uint64_t s = 5, blocks = hwm_device_capacity_bytes(d) / 4096;
    hwm_ns t = 0, first = -1;
    const int n = 3000;

    for (uint32_t i = 0; i < depth; i++) {
        submit(d, 0, i, HWM_OP_READ, 0, hwm_splitmix64(&s) % blocks * 4096,
               4096);
    }
    for (int i = 0; i < n; i++) {
        HwmEvent e = next_completion(d);
        if (log) {
            g_string_append_printf(log, "%" G_GUINT64_FORMAT " %" G_GINT64_FORMAT
                                   "\n", e.tag, e.time_ns);
        }
        first = first < 0 ? e.time_ns : first;
        t = e.time_ns;
        submit(d, t, 1000 + (uint64_t)i, HWM_OP_READ, 0,
               hwm_splitmix64(&s) % blocks * 4096, 4096);
    }
    return (t - first) / (n - 1);
}

/* SPTF must beat FIFO at depth: that is what it is for. */
static void test_sptf_beats_fifo(void)
{
    g_autoptr(HwmProfile) p = load("generic-7200");
    hwm_ns fifo = queued_reads(p, (HwmConfig){ .policy = HWM_POLICY_FIFO },
                               32, NULL);
    hwm_ns sptf = queued_reads(p, (HwmConfig){ .policy = HWM_POLICY_SPTF },
                               32, NULL);
    g_test_message("QD32 random reads: FIFO %" G_GINT64_FORMAT " ns, SPTF %"
                   G_GINT64_FORMAT " ns per request", fifo, sptf);
    g_assert_cmpint(sptf * 2, <, fifo);
}

/* queue_window 1 is FIFO to the nanosecond; a window of 4 reorders, less
 * than the whole queue does; the default compares the whole queue, also
 * when the host sets a deeper queue than the profile's. */
static void test_queue_window(void)
{
    g_autoptr(HwmProfile) all = load_set("generic-7200", (const char *[]){
        "read_segments", "0", NULL });
    g_autoptr(HwmProfile) one = load_set("generic-7200", (const char *[]){
        "read_segments", "0", "queue_window", "1", NULL });
    g_autoptr(HwmProfile) four = load_set("generic-7200", (const char *[]){
        "read_segments", "0", "queue_window", "4", NULL });
    HwmConfig fifo = { .policy = HWM_POLICY_FIFO }, none = { 0 };
    g_autoptr(GString) l_fifo = g_string_new(NULL);
    g_autoptr(GString) l_one = g_string_new(NULL);
    g_autoptr(GString) l_four = g_string_new(NULL);
    g_autoptr(GString) l_all = g_string_new(NULL);

    hwm_ns t_fifo = queued_reads(all, fifo, 32, l_fifo);
    hwm_ns t_one = queued_reads(one, none, 32, l_one);
    hwm_ns t_four = queued_reads(four, none, 32, l_four);
    hwm_ns t_all = queued_reads(all, none, 32, l_all);
    g_test_message("QD32 random reads, ns per request: fifo %" G_GINT64_FORMAT
                   ", window 1 %" G_GINT64_FORMAT ", window 4 %"
                   G_GINT64_FORMAT ", whole queue %" G_GINT64_FORMAT,
                   t_fifo, t_one, t_four, t_all);
    g_assert_true(g_str_equal(l_one->str, l_fifo->str));
    g_assert_cmpint(t_four, <, t_one * 9 / 10);
    g_assert_cmpint(t_all, <, t_four * 9 / 10);

    /* a deeper queue set by the host: the derived window (32) still means
     * the whole queue, as a profile of that depth has it */
    g_autoptr(HwmProfile) p64 = load_set("generic-7200", (const char *[]){
        "read_segments", "0", "queue_depth", "64", NULL });
    HwmConfig qd64 = { .queue_depth = 64 };
    g_autoptr(GString) l_host = g_string_new(NULL);
    g_autoptr(GString) l_prof = g_string_new(NULL);
    queued_reads(all, qd64, 64, l_host);
    queued_reads(p64, none, 64, l_prof);
    g_assert_true(g_str_equal(l_host->str, l_prof->str));
}

/*
 * Aging: a read far from where the others are keeps losing to them under
 * sptf (31 reads queued on one cylinder after it, each completion replaced
 * by another there).  sptf_max_wait_ms bounds its wait; without it (the
 * bound far off) it waits until the others stop, at 2 s.
 */
static hwm_ns starved_read(const char *aging_ms)
{
    g_autoptr(HwmProfile) p = load_set("generic-7200", (const char *[]){
        "read_segments", "0", "sptf_max_wait_ms", aging_ms, NULL });
    g_autoptr(HwmDevice) d = device(p, HWM_OFF, HWM_POLICY_PROFILE);
    uint64_t s = 3, far = hwm_device_capacity_bytes(d) - 4096;
    const uint64_t cyl_blocks = 8 * 3600 / 8;  /* cylinder 0: 8 heads of
                                                  3600 sectors */
    const hwm_ns stop = 2000 * MS;
    hwm_ns far_done = -1;

    /* the first near read takes the arm; the far one is then the oldest
     * waiting */
    for (uint64_t i = 0; i < 31; i++) {
        submit(d, 0, i, HWM_OP_READ, 0, hwm_splitmix64(&s) % cyl_blocks * 4096,
               4096);
        if (i == 0) {
            submit(d, 0, 999, HWM_OP_READ, 0, far, 4096);
        }
    }
    for (uint64_t i = 0; far_done < 0 || hwm_next_event(d) != HWM_NEVER; i++) {
        HwmEvent e = next_completion(d);
        if (e.tag == 999) {
            far_done = e.time_ns;
        } else if (e.time_ns < stop) {
            submit(d, e.time_ns, 1000 + i, HWM_OP_READ, 0,
                   hwm_splitmix64(&s) % cyl_blocks * 4096, 4096);
        }
    }
    return far_done;
}

static void test_aging_bounds_latency(void)
{
    hwm_ns aged = starved_read("50"), unaged = starved_read("100000");
    g_test_message("far read among 31 near ones: done at %" G_GINT64_FORMAT
                   " ns with 50 ms aging, %" G_GINT64_FORMAT " ns without",
                   aged, unaged);
    /* the oldest once aged: 50 ms, then the read on the arm (a head
     * switch and up to a revolution), then its own full-stroke seek and up
     * to a revolution; 1 ms for overheads and transfers */
    hwm_ns rev = 60ll * 1000000000 / 7200;
    g_assert_cmpint(aged, >=, 50 * MS);
    g_assert_cmpint(aged, <=, 50 * MS + 800000 + 17 * MS + 2 * rev + MS);
    g_assert_cmpint(unaged, >=, 2000 * MS);
}

/*
 * Scattered dirty data, then a FLUSH: how long its write-back takes and
 * in which order the extents reach the media, by writeback_order and
 * writeback_window.  Returns the flush's completion time after the last
 * write's; `order` gets the DURABLE offsets in the order they came.
 */
static hwm_ns flush_scattered(const char *key, const char *value,
                              GArray *order)
{
    g_autoptr(HwmProfile) p = load_set("generic-7200", (const char *[]){
        key, value, NULL });
    g_autoptr(HwmDevice) d = device(p, HWM_ON, HWM_POLICY_PROFILE);
    uint64_t s = 17, blocks = hwm_device_capacity_bytes(d) / 4096;
    hwm_ns t = 0, flushed = -1;
    HwmEvent ev;

    for (uint64_t i = 0; i < 200; i++) {
        submit(d, t, i, HWM_OP_WRITE, 0, hwm_splitmix64(&s) % blocks * 4096,
               4096);
        t = next_completion(d).time_ns;
    }
    submit(d, t, 1000, HWM_OP_FLUSH, 0, 0, 0);
    while (flushed < 0) {
        hwm_ns at = hwm_next_event(d);
        g_assert_cmpint(at, !=, HWM_NEVER);
        if (hwm_advance(d, at, &ev, 1) != 1) {
            continue;
        }
        if (ev.kind == HWM_EV_DURABLE) {
            g_array_append_val(order, ev.offset);
        } else {
            g_assert_cmpuint(ev.tag, ==, 1000);
            flushed = ev.time_ns;
        }
    }
    g_assert_cmpuint(order->len, ==, 200);
    return flushed - t;
}

static gint cmp_off(gconstpointer a, gconstpointer b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void test_writeback_order(void)
{
    g_autoptr(GArray) o_pos = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    g_autoptr(GArray) o_elev = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    g_autoptr(GArray) o_old = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    g_autoptr(GArray) o_w1 = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    g_autoptr(GArray) o_w16 = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    hwm_ns pos = flush_scattered(NULL, NULL, o_pos);
    hwm_ns elev = flush_scattered("writeback_order", "elevator", o_elev);
    hwm_ns old = flush_scattered("writeback_order", "oldest", o_old);
    hwm_ns w1 = flush_scattered("writeback_window", "1", o_w1);
    hwm_ns w16 = flush_scattered("writeback_window", "16", o_w16);

    g_test_message("flush of 200 scattered 4 KiB writes: positioning %"
                   G_GINT64_FORMAT " ns, elevator %" G_GINT64_FORMAT
                   ", oldest %" G_GINT64_FORMAT "; positioning in a window "
                   "of 1 %" G_GINT64_FORMAT ", of 16 %" G_GINT64_FORMAT,
                   pos, elev, old, w1, w16);
    /* shortest positioning first beats a sweep, which beats arrival order
     * (a random seek and half a revolution each) */
    g_assert_cmpint(pos, <, elev * 9 / 10);
    g_assert_cmpint(elev, <, old * 9 / 10);
    /* oldest: in the order the writes were acknowledged */
    uint64_t s = 17;
    for (guint i = 0; i < o_old->len; i++) {
        uint64_t blocks = 4000787030016ull / 4096;
        g_assert_cmpuint(g_array_index(o_old, uint64_t, i), ==,
                         hwm_splitmix64(&s) % blocks * 4096);
    }
    /* elevator from sector 0 (nothing was written back before): ascending */
    g_autoptr(GArray) sorted = g_array_copy(o_elev);
    g_array_sort(sorted, cmp_off);
    g_assert_cmpmem(sorted->data, sorted->len * 8, o_elev->data,
                    o_elev->len * 8);
    /* a window of one is the oldest, whatever the order; a window of 16
     * reorders, less than the whole cache */
    g_assert_cmpint(w1, ==, old);
    g_assert_cmpmem(o_w1->data, o_w1->len * 8, o_old->data, o_old->len * 8);
    g_assert_cmpint(w16, <, old * 9 / 10);
    g_assert_cmpint(pos, <, w16 * 9 / 10);
}

static void test_queue_full(void)
{
    g_autoptr(HwmProfile) p = load("generic-7200");
    g_autoptr(HwmDevice) d = device(p, HWM_OFF, HWM_POLICY_PROFILE);
    GError *err = NULL;
    for (uint32_t i = 0; i < hwm_device_queue_depth(d); i++) {
        submit(d, 0, i, HWM_OP_READ, 0, i * 1048576ull, 4096);
    }
    HwmRequest r = { .op = HWM_OP_READ, .length = 4096 };
    g_assert_false(hwm_submit(d, 0, &r, &err));
    g_assert_error(err, HWM_ERROR, HWM_ERROR_QUEUE_FULL);
    g_error_free(err);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/model/fifo-order", test_fifo_order);
    g_test_add_data_func("/model/deterministic/st20000nm007d", "st20000nm007d",
                         test_deterministic);
    g_test_add_data_func("/model/deterministic/990pro", "990pro",
                         test_deterministic);
    g_test_add_func("/physics/sptf-beats-fifo", test_sptf_beats_fifo);
    g_test_add_func("/sched/queue-window", test_queue_window);
    g_test_add_func("/sched/aging-bounds-latency", test_aging_bounds_latency);
    g_test_add_func("/sched/writeback-order", test_writeback_order);
    g_test_add_func("/input/queue-full", test_queue_full);
    return g_test_run();
}
