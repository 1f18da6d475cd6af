/*
 * hw-model unit tests: bad input and profiles (device.c's checks, profile.c): bad requests and
 * times, config errors, profile errors, --dump-profile's origins,
 * profiles from a data sheet, derivation errors, the shipped profiles.
 * GLib test framework, TAP with --tap; the helpers are model-test.h's.
 */
#include <string.h>

#include "drive.h"
#include "model-test.h"

static void test_bad_requests(void)
{
    g_autoptr(HwmProfile) p = load("generic-7200");
    g_autoptr(HwmDevice) d = device(p, HWM_TRISTATE_PROFILE, HWM_POLICY_PROFILE);
    uint64_t cap = hwm_device_capacity_bytes(d);
    struct { HwmRequest r; int code; } cases[] = {
        { { .op = HWM_OP_WRITE, .offset = cap, .length = 512 }, HWM_ERROR_RANGE },
        { { .op = HWM_OP_WRITE, .offset = cap - 512, .length = 1024 }, HWM_ERROR_RANGE },
        { { .op = HWM_OP_READ, .offset = 512, .length = UINT64_MAX - 511 }, HWM_ERROR_RANGE },
        { { .op = HWM_OP_READ, .offset = 0, .length = 0 }, HWM_ERROR_INVALID },
        { { .op = HWM_OP_READ, .offset = 3, .length = 512 }, HWM_ERROR_INVALID },
        { { .op = HWM_OP_FLUSH, .length = 512 }, HWM_ERROR_INVALID },
        { { .op = HWM_OP_DISCARD, .flags = HWM_REQ_FUA, .length = 512 }, HWM_ERROR_INVALID },
        { { .op = (HwmOp)9, .length = 512 }, HWM_ERROR_INVALID },
        { { .op = HWM_OP_WRITE, .flags = 0x80, .length = 512 }, HWM_ERROR_INVALID },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        GError *err = NULL;
        g_assert_false(hwm_submit(d, 10, &cases[i].r, &err));
        g_assert_error(err, HWM_ERROR, cases[i].code);
        g_error_free(err);
    }
    GError *err = NULL;
    HwmRequest ok = { .op = HWM_OP_READ, .length = 512 };
    g_assert_true(hwm_submit(d, 10, &ok, &err));
    g_assert_false(hwm_submit(d, 5, &ok, &err));
    g_assert_error(err, HWM_ERROR, HWM_ERROR_TIME);
    g_clear_error(&err);
    g_assert_cmpint(hwm_next_event(d), !=, HWM_NEVER);
}

/* Times past HWM_TIME_MAX are refused, not overflowed; up to it they work. */
static void test_time_range(void)
{
    g_autoptr(HwmProfile) p = load("st20000nm007d");
    g_autoptr(HwmDevice) d = device(p, HWM_TRISTATE_PROFILE, HWM_POLICY_PROFILE);
    HwmRequest r = { .op = HWM_OP_WRITE, .length = 4096 };
    hwm_ns bad[] = { HWM_TIME_MAX + 1, INT64_MAX - 1000, INT64_MAX };
    GError *err = NULL;

    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        g_assert_false(hwm_submit(d, bad[i], &r, &err));
        g_assert_error(err, HWM_ERROR, HWM_ERROR_TIME);
        g_assert_nonnull(strstr(err->message, "past the latest"));
        g_clear_error(&err);
        g_assert_cmpint(hwm_next_event(d), ==, HWM_NEVER);
    }
    submit(d, HWM_TIME_MAX, 1, HWM_OP_WRITE, 0, 0, 4096);
    HwmEvent e = next_completion(d);
    g_assert_cmpint(e.time_ns, >, HWM_TIME_MAX);
    g_assert_cmpint(e.t.queue_ns, >=, 0);
}

static void test_config_errors(void)
{
    g_autoptr(HwmProfile) p = load("ideal");
    HwmConfig cfg = { .write_cache = HWM_ON };
    GError *err = NULL;
    g_assert_null(hwm_device_new(p, &cfg, &err));
    g_assert_error(err, HWM_ERROR, HWM_ERROR_INVALID);
    g_assert_nonnull(strstr(err->message, "no cache"));
    g_clear_error(&err);
}

static const char *base_profile =
    "type = hdd\ncapacity_bytes = 100000000000\nrpm = 7200\nheads = 4\n"
    "zones = 2\nouter_sectors_per_track = 2000\ninner_sectors_per_track = 1000\n"
    "seek_track_to_track_ms = 1\nseek_avg_ms = 9\nseek_full_stroke_ms = 18\n"
    "head_switch_ms = 0.75\ncache_mb = 8\n";

static void expect_profile_error(const char *text, const char *needle)
{
    GError *err = NULL;
    HwmProfile *p = hwm_profile_parse(text, strlen(text), "bad.profile", &err);
    g_assert_null(p);
    g_assert_error(err, HWM_ERROR, HWM_ERROR_PROFILE);
    if (!strstr(err->message, needle)) {
        g_error("error '%s' does not mention '%s'", err->message, needle);
    }
    g_error_free(err);
}

static void test_profile_errors(void)
{
    g_autofree char *unknown = g_strconcat(base_profile, "spindles = 2\n", NULL);
    g_autofree char *no_unit = g_strconcat(base_profile, "write_settle = 1\n", NULL);
    g_autofree char *unit_in_value = g_strconcat(base_profile,
                                                 "write_settle_ms = 1ms\n", NULL);
    g_autofree char *zero = g_strconcat(base_profile, "queue_depth = 0\n", NULL);
    g_autofree char *garbage = g_strconcat(base_profile, "%%%%\n", NULL);
    g_autofree char *dup = g_strconcat(base_profile, "rpm = 5400\n", NULL);
    g_autofree char *wrong_kind = g_strconcat(base_profile, "read_us = 50\n", NULL);
    g_autofree char *bad_enum = g_strconcat(base_profile, "flush = sometimes\n", NULL);
    g_autofree char *neg = g_strconcat(base_profile, "write_settle_ms = -1\n", NULL);
    g_autofree char *fine = g_strconcat(base_profile, "write_settle_ms = 0.0000001\n", NULL);
    g_autofree char *over = g_strconcat(base_profile, "post_seek_write_miss_pct = 101\n", NULL);

    expect_profile_error(unknown, "bad.profile:13: unknown key 'spindles'");
    expect_profile_error(no_unit, "the key is 'write_settle_ms'");
    expect_profile_error(unit_in_value, "bad.profile:13: key 'write_settle_ms': bad value '1ms'");
    expect_profile_error(zero, "key 'queue_depth': must be positive");
    expect_profile_error(garbage, "bad.profile:13: expected 'key = value'");
    expect_profile_error(dup, "key 'rpm' repeats line 3");
    expect_profile_error(wrong_kind, "key 'read_us' does not apply to type = hdd");
    expect_profile_error(bad_enum, "non-queued, queued");
    expect_profile_error(neg, "key 'write_settle_ms': bad value '-1'");
    expect_profile_error(fine, "finer than the resolution");
    expect_profile_error(over, "key 'post_seek_write_miss_pct'");
    g_autofree char *no_window = g_strconcat(base_profile, "queue_window = 0\n",
                                             NULL);
    g_autofree char *bad_order = g_strconcat(base_profile,
                                             "writeback_order = lba\n", NULL);
    expect_profile_error(no_window, "key 'queue_window': must be positive");
    expect_profile_error(bad_order, "(positioning, elevator, oldest)");
    expect_profile_error("type = hdd\nrpm = 7200\n", "missing key 'capacity_bytes'");
    expect_profile_error("rpm = 7200\n", "missing key 'type'");
    expect_profile_error("type = disk\n", "(hdd, flash)");
    const char nul[] = "type = hdd\0\n";
    GError *err = NULL;
    g_assert_null(hwm_profile_parse(nul, sizeof nul - 1, "nul.profile", &err));
    g_assert_error(err, HWM_ERROR, HWM_ERROR_PROFILE);
    g_clear_error(&err);
    g_assert_null(hwm_profile_load("no-such-profile", PROFILE_DIR, &err));
    g_assert_nonnull(strstr(err->message, "no-such-profile"));
    g_clear_error(&err);
}

/* A dump without the origin marks ("[given, line N]" and so on), which
 * differ once the dump is parsed again (every value is given then). */
static char *values_only(const char *dump)
{
    g_autoptr(GRegex) re = g_regex_new(" \\[[^]\n]*\\]\n", 0, 0, NULL);
    return g_regex_replace_literal(re, dump, -1, 0, "\n", 0, NULL);
}

/* The value and origin mark of `key` in a dump ("7200    # ... [given,
 * line 3]" gives "7200" and "given, line 3"). */
static void dump_entry(const char *dump, const char *key, char **val,
                       char **mark)
{
    g_autofree char *pat = g_strdup_printf("\n%s = ", key);
    const char *at = strstr(dump, pat);
    g_assert_nonnull(at);
    at += strlen(pat);
    const char *eol = strchr(at, '\n');
    *val = g_strndup(at, strcspn(at, " \n"));
    const char *open = g_strrstr_len(at, eol - at, " [");
    g_assert_nonnull(open);
    *mark = g_strndup(open + 2, (gsize)(eol - open - 3));
}

static void expect_origin(const char *dump, const char *key, const char *val,
                          const char *mark)
{
    g_autofree char *v = NULL, *m = NULL;
    dump_entry(dump, key, &v, &m);
    if (val) {
        g_assert_cmpstr(v, ==, val);
    }
    g_assert_cmpstr(m, ==, mark);
}

/* A profile from a data sheet alone: what is given is marked given, with
 * its line; what a rule derives names the rule; the rest is default. */
static void test_dump_origins(void)
{
    const char *text =
        "type = hdd\n"                       /* 1 */
        "capacity_bytes = 1000204886016\n"   /* 2 */
        "rpm = 7200\n"                       /* 3 */
        "# a comment line\n"                 /* 4 */
        "seek_avg_ms = 8.5\n"                /* 5 */
        "seek_avg_write_ms = 9\n"            /* 6 */
        "sustained_mb_s = 150\n"             /* 7 */
        "cache_mb = 64\n";                   /* 8 */
    g_autoptr(HwmProfile) p = parse(text);
    g_autofree char *dump = hwm_profile_dump(p);

    expect_origin(dump, "type", "hdd", "given, line 1");
    expect_origin(dump, "rpm", "7200", "given, line 3");
    expect_origin(dump, "seek_avg_ms", "8.5", "given, line 5");
    expect_origin(dump, "cache_mb", "64", "given, line 8");
    expect_origin(dump, "heads", NULL, "derived: heads-from-density");
    expect_origin(dump, "outer_sectors_per_track", NULL,
                  "derived: spt-from-sustained");
    expect_origin(dump, "inner_sectors_per_track", NULL,
                  "derived: spt-inner-ratio");
    expect_origin(dump, "seek_track_to_track_ms", "0.85",
                  "derived: t2t-from-avg");
    expect_origin(dump, "seek_full_stroke_ms", "15.3",
                  "derived: full-from-avg");
    expect_origin(dump, "head_switch_ms", "0.85", "derived: head-switch-t2t");
    expect_origin(dump, "write_settle_ms", "0.5",
                  "derived: settle-from-write-seek");
    expect_origin(dump, "read_segment_kb", "1024", "derived: rseg-from-cache");
    expect_origin(dump, "command_overhead_us", "100", "derived: overhead-hdd");
    expect_origin(dump, "write_hit_overhead_us", "100",
                  "derived: overhead-by-kind");
    expect_origin(dump, "read_miss_after_write_overhead_us", "100",
                  "derived: overhead-after-write");
    expect_origin(dump, "queue_depth", "32", "derived: queue-from-interface");
    expect_origin(dump, "flush", "non-queued", "derived: flush-from-interface");
    expect_origin(dump, "zones", "30", "default");
    expect_origin(dump, "form_factor", "3.5-inch", "default");
    expect_origin(dump, "queue_policy", "sptf", "default");
    expect_origin(dump, "queue_window", "32", "derived: window-from-queue");
    expect_origin(dump, "writeback_window", "4096",
                  "derived: wb-window-from-segments");
    expect_origin(dump, "writeback_order", "positioning", "default");
    /* an optional figure not given is a comment, marked unset */
    g_autofree char *q = g_strdup(text);
    q[strstr(q, "seek_avg_write_ms") - q] = '#';
    g_autoptr(HwmProfile) p2 = parse(q);
    g_autofree char *dump2 = hwm_profile_dump(p2);
    g_assert_nonnull(strstr(dump2, "\n# seek_avg_write_ms: not given "));
    g_assert_nonnull(strstr(dump2, "[unset]\n"));
    expect_origin(dump2, "write_settle_ms", "0.1", "default");
    /* a value given keeps its origin even when a rule could derive it */
    g_autofree char *r = g_strconcat(text, "heads = 6\n", NULL);
    g_autoptr(HwmProfile) p3 = parse(r);
    g_autofree char *dump3 = hwm_profile_dump(p3);
    expect_origin(dump3, "heads", "6", "given, line 9");
}

/* hgst-ultrastar-7k4000 is written from its data sheet alone: it loads,
 * and every derived figure is physically plausible for a 3.5-inch 7200 rpm
 * drive of 4 TB with a 171 MB/s sustained rate and an 8.2 ms seek. */
static void test_data_sheet_profile(void)
{
    g_autoptr(HwmProfile) p = load("hgst-ultrastar-7k4000");
    g_autoptr(HwmDevice) d = device(p, HWM_TRISTATE_PROFILE,
                                    HWM_POLICY_PROFILE);
    g_autofree char *dump = hwm_profile_dump(p);
    g_autofree char *v = NULL, *m = NULL;
    const char *why = NULL;
    uint64_t heads, outer, inner, t2t, avg, full, hs, settle, zones;

#define FIG(key, scale, out) do { \
        g_clear_pointer(&v, g_free); g_clear_pointer(&m, g_free); \
        dump_entry(dump, key, &v, &m); \
        g_assert_true(hwm_parse_decimal(v, scale, &(out), &why)); \
        g_assert_false(g_str_has_prefix(m, "given") && \
                       strcmp(key, "seek_avg_ms") != 0); \
    } while (0)
    FIG("heads", 1, heads);
    FIG("zones", 1, zones);
    FIG("outer_sectors_per_track", 1, outer);
    FIG("inner_sectors_per_track", 1, inner);
    FIG("seek_track_to_track_ms", 1000, t2t);
    FIG("seek_avg_ms", 1000, avg);
    FIG("seek_full_stroke_ms", 1000, full);
    FIG("head_switch_ms", 1000, hs);
    FIG("write_settle_ms", 1000, settle);
#undef FIG
    /* five platters: 10 heads; the rule is good to about one head */
    g_assert_cmpuint(heads, >=, 8);
    g_assert_cmpuint(heads, <=, 12);
    g_assert_cmpuint(zones, >=, 8);
    /* the outer zone carries the sustained 171 MB/s plus switch time, at
     * most a quarter more */
    uint64_t media = outer * 512 * 7200 / 60;
    g_assert_cmpuint(media, >=, 171000000);
    g_assert_cmpuint(media, <=, 171000000ull * 5 / 4);
    /* zoned recording: inner tracks 40-60% of outer ones */
    g_assert_cmpuint(inner * 100, >=, outer * 40);
    g_assert_cmpuint(inner * 100, <=, outer * 60);
    /* seeks in order, full stroke 1.5-2.5 x average, track-to-track and
     * head switch well under a millisecond and a half (in us) */
    g_assert_cmpuint(t2t, <, avg);
    g_assert_cmpuint(full * 10, >=, avg * 15);
    g_assert_cmpuint(full * 10, <=, avg * 25);
    g_assert_cmpuint(t2t, >=, 100);
    g_assert_cmpuint(t2t, <=, 1500);
    g_assert_cmpuint(hs, <=, 1500);
    g_assert_cmpuint(settle, <=, 1000);
    g_assert_cmpuint(hwm_device_capacity_bytes(d), ==, 4000787030016ull);
}

/* A rule's input missing or contradicting another key: an error naming
 * the file, the line and the key. */
static void test_derivation_errors(void)
{
    const char *sheet =
        "type = hdd\ncapacity_bytes = 1000204886016\nrpm = 7200\n"
        "seek_avg_ms = 8.5\ncache_mb = 64\n";          /* lines 1-5 */
    g_autofree char *full_short = g_strconcat(sheet, "sustained_mb_s = 150\n",
                                              "seek_full_stroke_ms = 6\n",
                                              NULL);
    expect_profile_error(full_short,
                         "bad.profile:7: key 'seek_full_stroke_ms' = 6 "
                         "contradicts the profile: 'seek_avg_ms' must not "
                         "exceed 'seek_full_stroke_ms'");
    g_autofree char *t2t_long = g_strconcat(sheet, "sustained_mb_s = 150\n",
                                            "seek_track_to_track_ms = 9\n",
                                            NULL);
    expect_profile_error(t2t_long, "bad.profile:7: key "
                         "'seek_track_to_track_ms' = 9 contradicts");
    g_autofree char *write_fast = g_strconcat(sheet, "sustained_mb_s = 150\n",
                                              "seek_avg_write_ms = 8\n", NULL);
    expect_profile_error(write_fast, "bad.profile:7: key 'seek_avg_write_ms' "
                         "= 8 contradicts the profile");
    g_autofree char *too_fast = g_strconcat(sheet, "sustained_mb_s = 150\n",
                                            "outer_sectors_per_track = 1000\n",
                                            "heads = 4\n", NULL);
    expect_profile_error(too_fast, "bad.profile:7: key "
                         "'outer_sectors_per_track' = 1000 contradicts the "
                         "profile: 'sustained_mb_s' exceeds");
    /* neither the rate nor the geometry: the key and the rule's inputs */
    expect_profile_error(sheet, "bad.profile: missing key 'heads' (data "
                         "surfaces): give it, or the data-sheet figures rule "
                         "'heads-from-density' derives it from");
    g_autofree char *no_rate = g_strconcat(sheet, "heads = 4\n", NULL);
    expect_profile_error(no_rate, "missing key 'outer_sectors_per_track'");
    g_autofree char *no_seek = g_strdup(
        "type = hdd\ncapacity_bytes = 1000204886016\nrpm = 7200\n"
        "sustained_mb_s = 150\n");
    expect_profile_error(no_seek, "missing key 'seek_avg_ms'");
    /* the write cache is part of the buffer, and holds a write */
    g_autofree char *wc_big = g_strconcat(sheet, "sustained_mb_s = 150\n",
                                          "write_cache_kb = 65537\n", NULL);
    expect_profile_error(wc_big, "bad.profile:7: key 'write_cache_kb' = "
                         "65537 contradicts the profile: 'write_cache_kb' "
                         "is part of the buffer");
    g_autofree char *wc_small = g_strconcat(sheet, "sustained_mb_s = 150\n",
                                            "write_cache_kb = 16\n", NULL);
    expect_profile_error(wc_small, "bad.profile:7: key 'write_cache_kb' = 16 "
                         "contradicts");
}

static void test_shipped_profiles(void)
{
    const char *names[] = { "st20000nm007d", "generic-7200", "990pro", "ideal",
                            "hgst-ultrastar-7k4000" };
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
        g_autoptr(HwmProfile) p = load(names[i]);
        g_autoptr(HwmDevice) d = device(p, HWM_TRISTATE_PROFILE,
                                        HWM_POLICY_PROFILE);
        g_autofree char *dump = hwm_profile_dump(p);
        /* the dump is itself a valid profile with the same meaning */
        g_autoptr(HwmProfile) again = parse(dump);
        g_autofree char *dump2 = hwm_profile_dump(again);
        g_autofree char *v1 = values_only(dump), *v2 = values_only(dump2);
        g_assert_cmpstr(strchr(v1, '\n'), ==, strchr(v2, '\n'));
        g_assert_cmpuint(hwm_device_capacity_bytes(d), ==,
                         hwm_profile_capacity_bytes(p));
    }
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/input/bad-requests", test_bad_requests);
    g_test_add_func("/input/time-range", test_time_range);
    g_test_add_func("/input/config-errors", test_config_errors);
    g_test_add_func("/input/profile-errors", test_profile_errors);
    g_test_add_func("/input/dump-origins", test_dump_origins);
    g_test_add_func("/input/data-sheet-profile", test_data_sheet_profile);
    g_test_add_func("/input/derivation-errors", test_derivation_errors);
    g_test_add_func("/input/shipped-profiles", test_shipped_profiles);
    return g_test_run();
}
