/*
 * hw-model unit tests: the write cache and durability (device.c, cache.c): every event of
 * random workloads checked by the reference durability model in drive.c,
 * per shipped profile and for FUA in a media-cache log, queued flushes,
 * reads and write-back reordering.
 * GLib test framework, TAP with --tap; the helpers are model-test.h's.
 */
#include <inttypes.h>
#include <string.h>

#include "drive.h"
#include "model-test.h"

#define MIB_ (1024ull * 1024ull)

/* A shipped profile with one key's value replaced. */
/* A shipped profile with `key` set to `value`, plus `extra` lines (keys
 * it does not give; may be NULL). */
static HwmProfile *load_with_more(const char *name, const char *key,
                                  const char *value, const char *extra)
{
    g_autofree char *path = g_strdup_printf("%s/%s.profile", PROFILE_DIR, name);
    g_autofree char *text = NULL;
    g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
    g_autofree char *pattern = g_strdup_printf("(?m)^%s *=[^#\n]*", key);
    g_autofree char *repl = g_strdup_printf("%s = %s ", key, value);
    g_autoptr(GRegex) re = g_regex_new(pattern, 0, 0, NULL);
    g_autofree char *out = g_regex_replace_literal(re, text, -1, 0, repl, 0,
                                                   NULL);
    g_assert_cmpstr(out, !=, text);
    g_autofree char *all = g_strconcat(out, extra ? extra : "", NULL);
    return parse(all);
}

static HwmProfile *load_with(const char *name, const char *key,
                             const char *value)
{
    return load_with_more(name, key, value, NULL);
}

/* Random writes (some FUA), flushes, reads, discards and power cuts in a
 * small window, checked event by event by the oracle in drive.c. */
static void durability_run_profile(HwmProfile *p, uint64_t seed,
                                   HwmTristate wce, HwmPolicy policy)
{
    g_autoptr(HwmDevice) d = device(p, wce, policy);
    g_autoptr(GString) why = g_string_new(NULL);
    const size_t n = 4000;
    g_autofree DriveStep *steps = g_new0(DriveStep, n);
    uint64_t s = seed;

    for (size_t i = 0; i < n; i++) {
        uint64_t r = hwm_splitmix64(&s);
        DriveStep *st = &steps[i];
        st->gap_ns = (hwm_ns)(r % (3 * MS));
        r = hwm_splitmix64(&s);
        st->power_cut = r % 97 == 0;
        st->op = (HwmOp)(r % 10 < 6 ? HWM_OP_WRITE : r % 10 < 8 ?
                         HWM_OP_FLUSH : r % 10 < 9 ? HWM_OP_READ :
                         HWM_OP_DISCARD);
        st->flags = st->op == HWM_OP_WRITE && (r >> 8) % 4 == 0 ? HWM_REQ_FUA
                                                                 : 0;
        st->sectors = (uint32_t)((r >> 16) % 32);
        st->sector = (uint32_t)((r >> 24) % DRIVE_WINDOW_SECTORS);
    }
    if (!drive_run(d, steps, n, why)) {
        g_error("%s seed %" G_GUINT64_FORMAT ": %s", hwm_profile_name(p), seed,
                why->str);
    }
}

static void durability_run(const char *profile, uint64_t seed, HwmTristate wce,
                           HwmPolicy policy)
{
    g_autoptr(HwmProfile) p = load(profile);
    durability_run_profile(p, seed, wce, policy);
}

static void test_durability_media_cache(void)
{
    g_autoptr(HwmProfile) p = load_with("st20000nm007d", "fua_method",
                                        "media-cache");
    for (uint64_t seed = 1; seed <= 3; seed++) {
        durability_run_profile(p, seed, HWM_TRISTATE_PROFILE, HWM_POLICY_PROFILE);
    }
}

static void test_durability_queued_flush(void)
{
    g_autoptr(HwmProfile) p = load_with("generic-7200", "flush", "queued");
    for (uint64_t seed = 1; seed <= 3; seed++) {
        durability_run_profile(p, seed, HWM_TRISTATE_PROFILE, HWM_POLICY_PROFILE);
    }
}

/* The read path's variants under the oracle: a read-ahead that holds the
 * actuator through flushes (and a flush commit that needs it), track
 * read-ahead, a buffer of its own, in-order reads. */
static void test_durability_read_path(void)
{
    static const char *const variants[][3] = {
        { "read_ahead_abandon", "no", "flush_commit_us = 200\n" },
        { "read_ahead", "track", NULL },
        { "read_segments_shared", "no", NULL },
        { "zero_latency_read", "no", NULL },
    };
    for (size_t v = 0; v < G_N_ELEMENTS(variants); v++) {
        g_autoptr(HwmProfile) p = load_with_more("generic-7200", variants[v][0],
                                                 variants[v][1],
                                                 variants[v][2]);
        for (uint64_t seed = 1; seed <= 2; seed++) {
            durability_run_profile(p, seed, HWM_TRISTATE_PROFILE,
                                   HWM_POLICY_PROFILE);
        }
        durability_run_profile(p, 3, HWM_OFF, HWM_POLICY_PROFILE);
    }
}

static void test_durability(gconstpointer profile)
{
    for (uint64_t seed = 1; seed <= 4; seed++) {
        durability_run(profile, seed, HWM_TRISTATE_PROFILE, HWM_POLICY_PROFILE);
    }
    durability_run(profile, 5, HWM_OFF, HWM_POLICY_PROFILE);
    durability_run(profile, 6, HWM_TRISTATE_PROFILE, HWM_POLICY_FIFO);
}

/* The new orders and windows under the oracle. */
static void test_durability_reordering(void)
{
    static const char *const variants[][5] = {
        { "writeback_order", "elevator", NULL },
        { "writeback_order", "oldest", NULL },
        { "writeback_window", "4", "queue_window", "2", NULL },
        { "writeback_window", "3", "writeback_order", "elevator", NULL },
        { "sptf_max_wait_ms", "1", NULL },
    };
    for (size_t v = 0; v < G_N_ELEMENTS(variants); v++) {
        const char *base[] = { "generic-7200", "990pro" };
        for (size_t b = 0; b < G_N_ELEMENTS(base); b++) {
            g_autoptr(HwmProfile) p = load_set(base[b], variants[v]);
            for (uint64_t seed = 1; seed <= 2; seed++) {
                durability_run_profile(p, seed, HWM_TRISTATE_PROFILE,
                                       HWM_POLICY_PROFILE);
            }
        }
    }
}

/* How many of 40 writes of `len` bytes, each sent when the one before
 * completes, are acknowledged within `fast` ns (into the cache, not
 * after a write-back) on profile `name` with keys `kv`: scattered 1 GiB
 * and a prime stride apart (no two touch or merge), or back to back. */
static unsigned writes_taken_at_once(const char *name, const char *const *kv,
                                     bool scattered, uint64_t len, hwm_ns fast)
{
    g_autoptr(HwmProfile) p = load_set(name, kv);
    g_autoptr(HwmDevice) d = device(p, HWM_TRISTATE_PROFILE,
                                    HWM_POLICY_PROFILE);
    unsigned n = 0;
    hwm_ns t = 0;
    for (uint64_t i = 0; i < 40; i++) {
        uint64_t off = scattered ? (i * 1000003ull % 997) << 30 : i * len;
        submit(d, t, i, HWM_OP_WRITE, 0, off, len);
        HwmEvent ev = next_completion(d);
        n += ev.time_ns - t < fast;
        t = ev.time_ns;
    }
    return n;
}

static unsigned scattered_taken(const char *name, const char *const *kv)
{
    return writes_taken_at_once(name, kv, true, 4096, MS);
}

/* segments-from-class: a desktop drive keeps dirty data in its read
 * segments, one range each, so the 17th scattered write waits for a
 * write-back; the enterprise class (the default) takes all 40. */
static void test_desktop_write_segments(void)
{
    const char *desktop[] = { NULL };
    const char *eight[] = { "read_segments", "8", NULL };
    const char *enterprise[] = { "drive_class", "enterprise", NULL };
    const char *given[] = { "cache_segments", "64", NULL };
    g_assert_cmpuint(scattered_taken("st32000641as", desktop), ==, 16);
    g_assert_cmpuint(scattered_taken("st32000641as", eight), ==, 8);
    g_assert_cmpuint(scattered_taken("st32000641as", enterprise), ==, 40);
    g_assert_cmpuint(scattered_taken("st32000641as", given), ==, 40);
    g_assert_cmpuint(scattered_taken("generic-7200", desktop), ==, 40);
}

/* write-cache-from-class: dirty data fills the segments (16 x 1 MiB on
 * the Barracuda XT), not the 64 MiB buffer: a stream of 1 MiB writes,
 * each 1.7 ms on the link, outruns the 138 MB/s media once about 16 MiB
 * are dirty; with the whole buffer for writes, 40 MiB fit (below the
 * 75% high water, 48 MiB, nothing is written back). */
static void test_desktop_write_cache_bytes(void)
{
    const char *desktop[] = { NULL };
    const char *whole[] = { "write_cache_kb", "65536", NULL };
    const char *enterprise[] = { "drive_class", "enterprise", NULL };
    unsigned n = writes_taken_at_once("st32000641as", desktop, false, MIB_,
                                      3 * MS);
    g_assert_cmpuint(n, >=, 16);
    g_assert_cmpuint(n, <, 24);
    g_assert_cmpuint(writes_taken_at_once("st32000641as", whole, false, MIB_,
                                          3 * MS), ==, 40);
    g_assert_cmpuint(writes_taken_at_once("st32000641as", enterprise, false,
                                          MIB_, 3 * MS), ==, 40);
}

/*
 * FUA writes into a protected buffer (st20000nm007d's): durable when
 * acknowledged, yet in the cache until written home.  With home_events a
 * HOME event reports each one's write-back (a timeline draws the cache
 * with them); without, there is none, and the model runs the same.
 * Returns the event trace as text; `homes` gets the HOME offsets.
 */
static GString *fua_into_buffer(bool home_events, GArray *homes)
{
    g_autoptr(HwmProfile) p = load("st20000nm007d");
    HwmConfig cfg = { .write_cache = HWM_ON, .home_events = home_events };
    g_autoptr(HwmDevice) d = hwm_device_new(p, &cfg, NULL);
    uint64_t s = 5, blocks = (100ull << 30) / 4096;
    GString *trace = g_string_new(NULL);
    hwm_ns t = 0;
    HwmEvent ev;

    g_assert_nonnull(d);
    for (uint64_t i = 0; i < 40; i++) {
        submit(d, t, i, HWM_OP_WRITE, HWM_REQ_FUA,
               hwm_splitmix64(&s) % blocks * 4096, 4096);
        ev = next_completion(d);
        g_assert_true(ev.durable && ev.cached);
        g_string_append_printf(trace, "C %" PRIu64 " %" PRId64 "\n", ev.tag,
                               ev.time_ns);
        t = ev.time_ns;
    }
    for (hwm_ns at; (at = hwm_next_event(d)) != HWM_NEVER;) {
        while (hwm_advance(d, at, &ev, 1) == 1) {
            g_assert_cmpint(ev.kind, !=, HWM_EV_DURABLE);
            g_assert_cmpint(ev.kind, ==, HWM_EV_HOME);
            g_assert_cmpuint(ev.length, ==, 4096);
            g_array_append_val(homes, ev.offset);
        }
    }
    return trace;
}

static void test_home_events(void)
{
    g_autoptr(GArray) on = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    g_autoptr(GArray) off = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    g_autoptr(GString) a = fua_into_buffer(true, on);
    g_autoptr(GString) b = fua_into_buffer(false, off);

    g_assert_cmpuint(on->len, ==, 40);      /* each write went home once */
    g_assert_cmpuint(off->len, ==, 0);
    g_assert_cmpstr(a->str, ==, b->str);    /* an observer changes nothing */
}

/* one registration per test: a list (duplicates pairs such lists across
 * the subject files by shape) */
int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_data_func("/durability/st20000nm007d", "st20000nm007d",
                         test_durability);
    g_test_add_data_func("/durability/generic-7200", "generic-7200",
                         test_durability);
    g_test_add_data_func("/durability/990pro", "990pro", test_durability);
    g_test_add_data_func("/durability/ideal", "ideal", test_durability);
    g_test_add_func("/durability/media-cache-fua", test_durability_media_cache);
    g_test_add_func("/durability/queued-flush-hdd", test_durability_queued_flush);
    g_test_add_func("/durability/read-path", test_durability_read_path);
    g_test_add_func("/durability/reordering", test_durability_reordering);
    g_test_add_func("/cache/home-events", test_home_events);
    g_test_add_func("/cache/desktop-write-segments",
                    test_desktop_write_segments);
    g_test_add_func("/cache/desktop-write-cache-bytes",
                    test_desktop_write_cache_bytes);
    return g_test_run();
}
