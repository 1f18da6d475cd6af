/*
 * hw-model unit tests (GLib test framework, TAP with --tap).  Every check
 * compares the model against an independent expectation: the physics of
 * the profile, a reference durability model, or a second identical run.
 */
#include <string.h>

#include "drive.h"
#include "hwm.h"

#define MS 1000000ll

static HwmProfile *load(const char *name)
{
    GError *err = NULL;
    HwmProfile *p = hwm_profile_load(name, PROFILE_DIR, &err);
    g_assert_no_error(err);
    return p;
}

static HwmProfile *parse(const char *text)
{
    GError *err = NULL;
    HwmProfile *p = hwm_profile_parse(text, strlen(text), "test.profile", &err);
    g_assert_no_error(err);
    return p;
}

static HwmDevice *device(const HwmProfile *p, HwmTristate wce, HwmPolicy pol)
{
    GError *err = NULL;
    HwmConfig cfg = { .write_cache = wce, .policy = pol };
    HwmDevice *d = hwm_device_new(p, &cfg, &err);
    g_assert_no_error(err);
    return d;
}

static void submit(HwmDevice *d, hwm_ns t, uint64_t tag, HwmOp op,
                   uint32_t flags, uint64_t off, uint64_t len)
{
    GError *err = NULL;
    HwmRequest r = { .tag = tag, .op = op, .flags = flags, .offset = off,
                     .length = op == HWM_OP_FLUSH ? 0 : len };
    g_assert_true(hwm_submit(d, t, &r, &err));
    g_assert_no_error(err);
}

/* Run until the next completion; returns it (DURABLE events skipped). */
static HwmEvent next_completion(HwmDevice *d)
{
    HwmEvent ev;
    for (;;) {
        hwm_ns t = hwm_next_event(d);
        g_assert_cmpint(t, !=, HWM_NEVER);
        if (hwm_advance(d, t, &ev, 1) == 1 && ev.kind == HWM_EV_COMPLETE) {
            return ev;
        }
    }
}

/* ---- ordering and determinism ------------------------------------------ */

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

/* ---- physics -------------------------------------------------------------- */

static void test_sequential_write_one_rev(void)
{
    g_autoptr(HwmProfile) p = load("generic-7200");
    g_autoptr(HwmDevice) d = device(p, HWM_OFF, HWM_POLICY_PROFILE);
    hwm_ns rev = 60ll * 1000000000ll / 7200;
    hwm_ns t = 0, first = 0;
    const int n = 200;

    for (int i = 0; i < n; i++) {
        submit(d, t, (uint64_t)i, HWM_OP_WRITE, 0, (uint64_t)i * 4096, 4096);
        HwmEvent e = next_completion(d);
        g_assert_true(e.durable);
        if (i == 0) {
            first = e.time_ns;
        }
        t = e.time_ns;
    }
    hwm_ns per = (t - first) / (n - 1);
    g_test_message("sequential QD1 write-through: %" G_GINT64_FORMAT
                   " ns per write, revolution %" G_GINT64_FORMAT, per, rev);
    g_assert_cmpint(per, >=, rev * 99 / 100);
    g_assert_cmpint(per, <=, rev * 101 / 100);
}

/* The head's angle is the spindle's phase from t = 0: checked against
 * t * rpm revolutions at times up to the model's latest. */
static void test_angle(gconstpointer profile)
{
    g_autoptr(HwmProfile) p = load(profile);
    g_autoptr(HwmDevice) d = device(p, HWM_TRISTATE_PROFILE,
                                    HWM_POLICY_PROFILE);
    uint32_t rpm = hwm_device_rotation_rpm(d);
    const hwm_ns at[] = { 0, 1, 2083333, 2083334, 8333333, 8333334,
                          123456789, 999999999999, HWM_TIME_MAX };
    const unsigned __int128 rev = 60000000000u;

    for (size_t i = 0; i < G_N_ELEMENTS(at); i++) {
        unsigned __int128 turns = (unsigned __int128)at[i] * rpm;
        uint32_t want = (uint32_t)(turns % rev * 360000u / rev);
        g_assert_cmpuint(hwm_device_angle_mdeg(d, at[i]), ==, want);
    }
    if (rpm == 7200) {
        /* a quarter turn is 2083333.3 ns */
        g_assert_cmpuint(hwm_device_angle_mdeg(d, 2083333), ==, 89999);
        g_assert_cmpuint(hwm_device_angle_mdeg(d, 2083334), ==, 90000);
    }
}

/* hwm_device_locate(): where a byte is.  A write-through write of one
 * sector ends one sector's time after its sector came under the head, so
 * the platter's angle then is the sector's angle (within one sector: the
 * model times each boundary at the ceiling of its instant); the ends of
 * the device are zone 0, cylinder 0 and the last zone; past the end is
 * refused; flash reports the die a read runs on. */
static void test_locate(void)
{
    g_autoptr(HwmProfile) p = load("generic-7200");
    g_autoptr(HwmDevice) d = device(p, HWM_OFF, HWM_POLICY_FIFO);
    uint64_t cap = hwm_device_capacity_bytes(d), s = 5;
    HwmLocation at;
    hwm_ns t = 0;

    g_assert_true(hwm_device_locate(d, 0, &at));
    g_assert_cmpuint(at.zone, ==, 0);
    g_assert_cmpuint(at.cylinder, ==, 0);
    g_assert_cmpuint(at.head, ==, 0);
    g_assert_cmpuint(at.sector, ==, 0);
    g_assert_cmpuint(at.units, ==, 1);
    uint32_t outer_spt = at.sectors_per_track;
    g_assert_true(hwm_device_locate(d, cap - HWM_SECTOR_BYTES, &at));
    g_assert_cmpuint(at.zone, ==, at.zones - 1);
    g_assert_cmpuint(at.cylinder, <, at.cylinders);
    g_assert_cmpuint(at.cylinder, >, at.cylinders * 99 / 100);
    g_assert_cmpuint(at.sectors_per_track, <, outer_spt);
    g_assert_false(hwm_device_locate(d, cap, &at));

    for (int i = 0; i < 200; i++) {
        uint64_t off = hwm_splitmix64(&s) % (cap / HWM_SECTOR_BYTES) *
                       HWM_SECTOR_BYTES;
        submit(d, t, (uint64_t)i, HWM_OP_WRITE, 0, off, HWM_SECTOR_BYTES);
        HwmEvent e = next_completion(d);
        g_assert_true(hwm_device_locate(d, off, &at));
        uint32_t sector_mdeg = 360000u / at.sectors_per_track + 1;
        hwm_ns one = (hwm_ns)(60000000000ull / 7200 / at.sectors_per_track);
        uint32_t a = hwm_device_angle_mdeg(d, e.time_ns - one);
        uint32_t off_by = (a + 360000u - at.angle_mdeg) % 360000u;
        g_assert_cmpuint(MIN(off_by, 360000u - off_by), <=, sector_mdeg);
        g_assert_cmpuint(at.sector, <, at.sectors_per_track);
        g_assert_cmpuint(at.head, <, at.heads);
        t = e.time_ns + 1000000;
    }

    g_autoptr(HwmProfile) fp = load("990pro");
    g_autoptr(HwmDevice) fd = device(fp, HWM_TRISTATE_PROFILE,
                                     HWM_POLICY_PROFILE);
    g_assert_true(hwm_device_locate(fd, 5 * 16384 + 512, &at));
    g_assert_cmpuint(at.units, ==, 32);
    g_assert_cmpuint(at.unit, ==, 5);
    g_assert_cmpuint(at.cylinders, ==, 0);
    g_assert_true(hwm_device_locate(fd, 37 * 16384, &at));
    g_assert_cmpuint(at.unit, ==, 5);
}

static void test_random_read_average(void)
{
    g_autoptr(HwmProfile) p = load("generic-7200");
    g_autoptr(HwmDevice) d = device(p, HWM_OFF, HWM_POLICY_PROFILE);
    uint64_t s = 99, blocks = hwm_device_capacity_bytes(d) / 4096;
    hwm_ns t = 0, sum = 0;
    const int n = 20000;

    for (int i = 0; i < n; i++) {
        submit(d, t, (uint64_t)i, HWM_OP_READ, 0,
               hwm_splitmix64(&s) % blocks * 4096, 4096);
        HwmEvent e = next_completion(d);
        sum += e.t.seek_ns + e.t.rotate_ns + e.t.transfer_ns;
        t = e.time_ns;
    }
    /* data-sheet average seek + half a revolution + 4 KiB at the mean
     * media rate, plus the 4 KiB interface transfer */
    hwm_ns rev = 60ll * 1000000000ll / 7200;
    hwm_ns expect = 8500000 + rev / 2 + rev * 8 / 2700 + 4096ll * 1000 / 600;
    hwm_ns avg = sum / n;
    g_test_message("random QD1 reads: %" G_GINT64_FORMAT " ns, expected %"
                   G_GINT64_FORMAT, avg, expect);
    g_assert_cmpint(avg, >=, expect * 95 / 100);
    g_assert_cmpint(avg, <=, expect * 105 / 100);
}

static const char *seek_profile =
    "type = hdd\ncapacity_bytes = 100000000000\nrpm = 7200\nheads = 4\n"
    "zones = 1\nouter_sectors_per_track = 2000\ninner_sectors_per_track = 2000\n"
    "layout = cylinder\nseek_track_to_track_ms = 1.25\nseek_avg_ms = 9\n"
    "seek_full_stroke_ms = 18.5\nhead_switch_ms = 0.75\nwrite_cache = no\n"
    /* exact figures the tests compute with, not the class defaults */
    "write_settle_ms = 0\ncommand_overhead_us = 0\nread_segment_kb = 1024\n";

/*
 * Off-track write inhibit: the same requests, isolated in time so each
 * starts from the same arm position, with and without post-seek misses.
 * A write either costs the same or exactly one revolution more; the extra
 * revolutions are the device's write_misses; writes on the head's own track
 * and reads never miss; the share follows the profile.
 */
static void run_isolated(const char *text, bool write, uint64_t seed,
                         hwm_ns *lat, uint32_t *missed, int n, HwmStats *st)
{
    g_autoptr(HwmProfile) p = parse(text);
    g_autoptr(HwmDevice) d = device(p, HWM_OFF, HWM_POLICY_PROFILE);
    uint64_t blocks = hwm_device_capacity_bytes(d) / 4096, b = 0;

    for (int i = 0; i < n; i++) {
        /* even i: a random block; odd i: the block after it, on the track
         * the head is on */
        b = i % 2 == 0 ? hwm_splitmix64(&seed) % (blocks - 1) : b + 1;
        submit(d, (hwm_ns)i * 100 * MS, (uint64_t)i,
               write ? HWM_OP_WRITE : HWM_OP_READ, 0, b * 4096, 4096);
        HwmEvent e = next_completion(d);
        lat[i] = e.time_ns - e.submit_ns;
        missed[i] = e.write_misses;
    }
    hwm_stats(d, st);
}

static void test_post_seek_write_miss(void)
{
    const int n = 4000;
    g_autofree hwm_ns *base = g_new(hwm_ns, n);
    g_autofree hwm_ns *miss = g_new(hwm_ns, n);
    g_autofree uint32_t *flag0 = g_new(uint32_t, n);
    g_autofree uint32_t *flag = g_new(uint32_t, n);
    g_autofree char *text = g_strconcat(seek_profile,
                                        "post_seek_write_miss_pct = 20\n", NULL);
    hwm_ns rev = 60ll * 1000000000ll / 7200;
    HwmStats sb, sm;
    int revs = 0;

    run_isolated(seek_profile, true, 5, base, flag0, n, &sb);
    run_isolated(text, true, 5, miss, flag, n, &sm);
    g_assert_cmpuint(sb.write_misses, ==, 0);
    for (int i = 0; i < n; i++) {
        hwm_ns extra = miss[i] - base[i];
        /* the completion names its own miss */
        g_assert_cmpuint(flag0[i], ==, 0);
        g_assert_cmpuint(flag[i], ==, extra != 0);
        if (extra != 0) {
            /* one revolution, to the ns the model rounds it to */
            g_assert_cmpint(extra, >=, rev);
            g_assert_cmpint(extra, <=, rev + 1);
            g_assert_cmpint(i % 2, ==, 0);
            revs++;
        }
    }
    g_assert_cmpint(revs, ==, (int)sm.write_misses);
    /* random seeks over the whole stroke average about seek_avg: about the
     * profile's share of them miss */
    g_test_message("%d of %d post-seek writes missed", revs, n / 2);
    g_assert_cmpint(revs, >=, n / 2 * 12 / 100);
    g_assert_cmpint(revs, <=, n / 2 * 28 / 100);

    /* a head switch never misses, even one slower than a track-to-track
     * seek; a seek past the average always does at a share of 100% */
    g_auto(GStrv) halves = g_strsplit(seek_profile, "head_switch_ms = 0.75", 2);
    g_assert_cmpuint(g_strv_length(halves), ==, 2);
    g_autoptr(GString) slow_switch = g_string_new(NULL);
    g_string_append_printf(slow_switch, "%shead_switch_ms = 3%s", halves[0],
                           halves[1]);
    g_string_append(slow_switch, "post_seek_write_miss_pct = 100\n");
    g_autoptr(HwmProfile) ps = parse(slow_switch->str);
    g_autoptr(HwmDevice) ds = device(ps, HWM_OFF, HWM_POLICY_PROFILE);
    uint64_t far = hwm_device_capacity_bytes(ds) / 4096 * 9 / 10 * 4096;
    for (int i = 0; i < 40; i++) {
        /* cylinder 0: head 0, then head 1 (2000 sectors a track) */
        submit(ds, (hwm_ns)i * 100 * MS, (uint64_t)i, HWM_OP_WRITE, 0,
               i % 2 ? 2000 * 512 : 0, 4096);
        g_assert_cmpuint(next_completion(ds).write_misses, ==, 0);
    }
    submit(ds, 5000 * MS, 99, HWM_OP_WRITE, 0, far, 4096);
    g_assert_cmpuint(next_completion(ds).write_misses, ==, 1);

    /* reads are never inhibited */
    run_isolated(text, false, 5, miss, flag, n, &sm);
    run_isolated(seek_profile, false, 5, base, flag0, n, &sb);
    g_assert_cmpuint(sm.write_misses, ==, 0);
    g_assert_cmpmem(miss, n * sizeof(hwm_ns), base, n * sizeof(hwm_ns));
}

static void test_seek_endpoints(void)
{
    g_autoptr(HwmProfile) p = parse(seek_profile);
    g_autoptr(HwmDevice) d = device(p, HWM_OFF, HWM_POLICY_PROFILE);
    uint64_t cyl_bytes = 4ull * 2000 * 512;
    uint64_t last = hwm_device_capacity_bytes(d) - 4096;

    submit(d, 0, 1, HWM_OP_READ, 0, 0, 4096);
    HwmEvent e = next_completion(d);
    /* track to track: the next cylinder, same head */
    submit(d, e.time_ns, 2, HWM_OP_READ, 0, cyl_bytes, 4096);
    e = next_completion(d);
    g_assert_cmpint(e.t.seek_ns, ==, 1250000);
    /* head switch: same cylinder, next head */
    submit(d, e.time_ns, 3, HWM_OP_READ, 0, cyl_bytes + 2000 * 512, 4096);
    e = next_completion(d);
    g_assert_cmpint(e.t.seek_ns, ==, 750000);
    /* full stroke: to the last cylinder and back */
    submit(d, e.time_ns, 4, HWM_OP_READ, 0, 0, 4096);
    e = next_completion(d);
    submit(d, e.time_ns, 5, HWM_OP_READ, 0, last, 4096);
    e = next_completion(d);
    g_assert_cmpint(e.t.seek_ns, ==, 18500000);
}

/* ---- durability ------------------------------------------------------------ */

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

/* A shipped profile with keys set: `kv` is key, value, ..., NULL; a key
 * the profile gives is replaced, another is added. */
static HwmProfile *load_set(const char *name, const char *const *kv)
{
    g_autofree char *path = g_strdup_printf("%s/%s.profile", PROFILE_DIR, name);
    g_autofree char *text = NULL;
    g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
    g_autoptr(GString) out = g_string_new(text);
    for (; kv[0]; kv += 2) {
        g_autofree char *pattern = g_strdup_printf("(?m)^%s *=[^#\n]*", kv[0]);
        g_autofree char *repl = g_strdup_printf("%s = %s ", kv[0], kv[1]);
        g_autoptr(GRegex) re = g_regex_new(pattern, 0, 0, NULL);
        g_autofree char *next = g_regex_replace_literal(re, out->str, -1, 0,
                                                        repl, 0, NULL);
        if (g_str_equal(next, out->str)) {
            g_string_append_printf(out, "\n%s = %s\n", kv[0], kv[1]);
        } else {
            g_string_assign(out, next);
        }
    }
    return parse(out->str);
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

/* ---- read path (readcache.c) ------------------------------------------ */

/* seek_profile with a buffer and the read-path keys in `extra` */
static HwmDevice *read_device(const char *extra, HwmTristate wce,
                              HwmProfile **pp)
{
    g_autofree char *text = g_strconcat(seek_profile, "cache_mb = 8\n",
                                        extra, NULL);
    *pp = parse(text);
    return device(*pp, wce, HWM_POLICY_PROFILE);
}

static HwmEvent read_at(HwmDevice *d, hwm_ns t, uint64_t off, uint64_t len)
{
    static uint64_t tag;
    submit(d, t, ++tag, HWM_OP_READ, 0, off, len);
    return next_completion(d);
}

static HwmStats stats_of(HwmDevice *d)
{
    HwmStats st;
    hwm_stats(d, &st);
    return st;
}

/* 1e9 * 60 / 7200 / 2000 ns per sector, exactly, as a fraction */
#define SEEK_PROFILE_SECTORS_NS(n) ((hwm_ns)(n) * 60000000000ll / 7200 / 2000)

static void test_read_hit_and_join(void)
{
    g_autoptr(HwmProfile) p = NULL;
    g_autoptr(HwmDevice) d = read_device("", HWM_OFF, &p);

    HwmEvent a = read_at(d, 0, 0, 65536);
    g_assert_false(a.cache_hit);
    /* the same data again: from its segment, no media */
    HwmEvent b = read_at(d, a.time_ns, 0, 65536);
    g_assert_true(b.cache_hit);
    g_assert_cmpint(b.t.seek_ns + b.t.rotate_ns, ==, 0);
    /* the next 64 KiB: the read-ahead is on its way there; it ends 128
     * sectors after the first read's media end, to the ns */
    HwmEvent c = read_at(d, b.time_ns, 65536, 65536);
    g_assert_true(c.read_ahead);
    hwm_ns x = (65536ll * 1000000000ll + 599999999) / 600000000;
    hwm_ns want = a.time_ns - x + SEEK_PROFILE_SECTORS_NS(128) + x;
    g_assert_cmpint(c.time_ns, >=, want - 1);
    g_assert_cmpint(c.time_ns, <=, want + 1);
    HwmStats st = stats_of(d);
    g_assert_cmpuint(st.read_segment_hits, ==, 1);
    g_assert_cmpuint(st.cache_read_hits, ==, 1);
    g_assert_cmpuint(st.read_ahead_joins, ==, 1);
}

/* A far read right after a read: with abandon it goes at once, exactly as
 * with no read-ahead; without, it waits for the read-ahead to end. */
static void test_read_ahead_abandon(void)
{
    const char *extra[] = { "read_ahead = off\n", "read_ahead_abandon = yes\n",
                            "read_ahead_abandon = no\n" };
    hwm_ns done[3];
    HwmStats st[3];

    for (int i = 0; i < 3; i++) {
        g_autoptr(HwmProfile) p = NULL;
        g_autoptr(HwmDevice) d = read_device(extra[i], HWM_OFF, &p);
        HwmEvent a = read_at(d, 0, 0, 4096);
        done[i] = read_at(d, a.time_ns, 200ull << 20, 4096).time_ns;
        st[i] = stats_of(d);
    }
    g_assert_cmpint(done[1], ==, done[0]);
    g_assert_cmpint(done[2], >, done[0]);
    g_assert_cmpuint(st[0].read_ahead_stops, ==, 0);
    g_assert_cmpuint(st[1].read_ahead_stops, ==, 1);
    g_assert_cmpuint(st[2].read_ahead_stops, ==, 0);
    /* 1 MiB segment ahead of the 4 KiB read, all of it without abandon */
    g_assert_cmpuint(st[2].read_ahead_bytes, ==, 1 << 20);
    g_assert_cmpuint(st[1].read_ahead_bytes, <, 1 << 20);
}

/* A read that misses streams to the host as its sectors come off the
 * media: behind a 150 MB/s link (below the 123 MB/s media rate of a
 * track, but 7 ms for 1 MiB) a 1 MiB read ends one sector's link time
 * after its media read, not 7 ms after,
 * and a second read that rides on the read-ahead likewise.  Timed against
 * the same reads behind a 1 TB/s link, where the media read is all. */
static void test_read_streams_to_host(void)
{
    /* 512 B at 150 MB/s: 3413.3 ns, rounded up */
    hwm_ns sector_link = (512ll * 1000000000ll + 149999999) / 150000000;
    HwmEvent e[2][2];

    for (int slow = 0; slow < 2; slow++) {
        g_autoptr(HwmProfile) p = NULL;
        g_autoptr(HwmDevice) d = read_device(slow ? "interface_mb_s = 150\n"
                                                  : "interface_mb_s = 1000000\n",
                                             HWM_OFF, &p);
        e[slow][0] = read_at(d, 0, 0, 1 << 20);
        /* the next MiB: the read-ahead is under way when it comes */
        e[slow][1] = read_at(d, e[slow][0].time_ns, 1 << 20, 1 << 20);
        g_assert_false(e[slow][0].read_ahead);
        g_assert_true(e[slow][1].read_ahead);
    }
    for (int k = 0; k < 2; k++) {
        /* fast: done = media end + 1 ns (512 B at 1 TB/s, rounded up); the
         * read-ahead runs on the same media times either way */
        hwm_ns media_end = e[0][k].time_ns - 1;
        g_assert_cmpint(e[1][k].time_ns, ==, media_end + sector_link);
        /* the columns add up: the transfer is the media's plus what the
         * media read did not hide */
        HwmBreakdown b = e[1][k].t;
        g_assert_cmpint(b.overhead_ns + b.seek_ns + b.rotate_ns +
                        b.transfer_ns + b.destage_ns + b.queue_ns, ==,
                        e[1][k].time_ns - e[1][k].submit_ns);
    }
    g_assert_cmpint(e[1][0].t.transfer_ns, ==,
                    e[0][0].t.transfer_ns - 1 + sector_link);
}

/* Controller overhead by kind: hit or miss, after a read or a write
 * (DiskSim's eight; profile.h).  Each command runs alone on an idle drive,
 * so the overhead column is the kind's figure; an after-write key not
 * given takes its after-read key's value. */
static void test_overhead_by_kind(void)
{
    g_autoptr(HwmProfile) p = NULL;
    g_autoptr(HwmDevice) d = read_device(
        "read_hit_overhead_us = 11\nread_miss_overhead_us = 13\n"
        "write_hit_overhead_us = 17\nwrite_miss_overhead_us = 19\n"
        "read_hit_after_write_overhead_us = 23\n"
        "read_miss_after_write_overhead_us = 29\n"
        "write_hit_after_write_overhead_us = 31\n", HWM_ON, &p);
    static const struct {
        HwmOp op;
        uint32_t flags;
        uint64_t off;
        hwm_ns overhead_us;
    } seq[] = {
        { HWM_OP_WRITE, 0, 0, 17 },             /* first: as after a read */
        { HWM_OP_WRITE, 0, 4096, 31 },          /* into the cache */
        { HWM_OP_READ, 0, 0, 23 },              /* from the write cache */
        { HWM_OP_READ, 0, 1 << 30, 13 },        /* from the media */
        { HWM_OP_READ, 0, (1 << 30) + 4096, 11 },   /* read-ahead's */
        { HWM_OP_WRITE, HWM_REQ_FUA, 1 << 20, 19 }, /* in place */
        { HWM_OP_WRITE, HWM_REQ_FUA, 2 << 20, 19 }, /* after a write: none
                                                   given, as after a read */
        { HWM_OP_READ, 0, 3u << 30, 29 },
        { HWM_OP_FLUSH, 0, 0, 0 },             /* command_overhead_us */
    };
    hwm_ns t = 0;

    for (size_t i = 0; i < G_N_ELEMENTS(seq); i++) {
        bool flush = seq[i].op == HWM_OP_FLUSH;
        submit(d, t, i, seq[i].op, seq[i].flags, flush ? 0 : seq[i].off,
               flush ? 0 : 4096);
        HwmEvent e = next_completion(d);
        g_assert_cmpint(e.t.overhead_ns, ==, seq[i].overhead_us * 1000);
        t = e.time_ns + 50 * MS;                /* the read-ahead is done */
    }
}

static void test_read_ahead_track(void)
{
    g_autoptr(HwmProfile) p = NULL;
    g_autoptr(HwmDevice) d = read_device("read_ahead = track\n", HWM_OFF, &p);
    HwmEvent ev;

    read_at(d, 0, 100 * 512, 8 * 512);
    while (hwm_next_event(d) != HWM_NEVER) {
        hwm_advance(d, hwm_next_event(d), &ev, 1);
    }
    /* to the end of the 2000-sector track, no further */
    g_assert_cmpuint(stats_of(d).read_ahead_bytes, ==, (2000 - 108) * 512);
}

/* Read-on-arrival: a whole track takes one revolution from the first
 * sector boundary after the head arrives; reading in order waits for the
 * track's first sector first.  The link is fast (1 TB/s), so what the
 * media read leaves of the host transfer is at most `x`. */
static void test_zero_latency_read(void)
{
    hwm_ns rev = 60000000000ll / 7200;
    hwm_ns x = 1024000ll * 1000000000ll / 1000000000000ll;
    uint64_t track = 10ull * 4 * 2000 * 512;    /* cylinder 10, head 0 */
    hwm_ns longest[2] = { 0, 0 };

    for (int zl = 0; zl < 2; zl++) {
        g_autoptr(HwmProfile) p = NULL;
        g_autoptr(HwmDevice) d = read_device(zl ? "zero_latency_read = yes\n"
                                                  "interface_mb_s = 1000000\n"
                                                : "zero_latency_read = no\n"
                                                  "interface_mb_s = 1000000\n",
                                             HWM_OFF, &p);
        hwm_ns t = 0;
        for (int i = 0; i < 20; i++) {
            read_at(d, t, 0, 4096);   /* move away: the next read seeks */
            HwmEvent e = read_at(d, t + 40 * MS + i * 777777, track, 1024000);
            hwm_ns spin = e.t.rotate_ns + e.t.transfer_ns;
            if (zl) {
                /* at most the rest of the sector it arrives in more */
                g_assert_cmpint(spin, >=, rev - 1);
                g_assert_cmpint(spin, <=,
                                rev + SEEK_PROFILE_SECTORS_NS(1) + 1 + x);
            } else {
                g_assert_cmpint(spin, >=, rev - 1);
            }
            longest[zl] = MAX(longest[zl], spin);
            t = e.time_ns + 10 * MS;
        }
    }
    g_assert_cmpint(longest[0], >, rev + rev / 2);
}

/* Shared segments give way to dirty data; a buffer of their own does not. */
static void test_read_segments_shared(void)
{
    for (int shared = 0; shared < 2; shared++) {
        g_autoptr(HwmProfile) p = NULL;
        g_autofree char *extra = g_strdup_printf(
            "read_segments = 2\n"
            "read_segments_shared = %s\ncache_high_water_pct = 100\n"
            "idle_destage_delay_ms = 1000000\n", shared ? "yes" : "no");
        g_autoptr(HwmDevice) d = read_device(extra, HWM_ON, &p);
        HwmEvent a = read_at(d, 0, 0, 65536);
        g_assert_true(read_at(d, a.time_ns, 0, 65536).cache_hit);
        /* fill the 8 MiB buffer with dirty data */
        submit(d, a.time_ns + MS, 99, HWM_OP_WRITE, 0, 100ull << 20, 8 << 20);
        HwmEvent w = next_completion(d);
        g_assert_false(w.durable);
        /* the segment is a ring the read-ahead filled past the first
         * read: its second 64 KiB is still there, unless evicted */
        g_assert_cmpint(read_at(d, w.time_ns, 65536, 65536).cache_hit, ==,
                        !shared);
    }
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

/* ---- bad input ---------------------------------------------------------------- */

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

/* The interface time of a request past 18.4 GB (bytes * 10^9 > 2^64
 * wrapped): fast media behind a slow link, so the link dominates. */
static void test_huge_transfer(void)
{
    g_autoptr(HwmProfile) p = parse(
        "type = flash\ncapacity_bytes = 32000000000\nparallel_units = 1\n"
        "read_us = 1\nprogram_us = 1\nprogram_kb = 1024\n"
        "interface_mb_s = 1\nwrite_cache = no\n");
    g_autoptr(HwmDevice) d = device(p, HWM_TRISTATE_PROFILE, HWM_POLICY_PROFILE);
    uint64_t len = 20000000000ull;      /* 20 GB at 1 MB/s: 20000 s */

    submit(d, 0, 1, HWM_OP_READ, 0, 0, len);
    HwmEvent e = next_completion(d);
    g_assert_cmpint(e.t.transfer_ns, >=, (hwm_ns)20000 * 1000000000);
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

/* ---- reordering a profile describes --------------------------------------- */


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

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/model/fifo-order", test_fifo_order);
    g_test_add_data_func("/model/deterministic/st20000nm007d", "st20000nm007d",
                         test_deterministic);
    g_test_add_data_func("/model/deterministic/990pro", "990pro",
                         test_deterministic);
    g_test_add_func("/physics/sequential-write-one-revolution",
                    test_sequential_write_one_rev);
    g_test_add_func("/physics/random-read-average", test_random_read_average);
    g_test_add_data_func("/physics/angle/generic-7200", "generic-7200",
                         test_angle);
    g_test_add_data_func("/physics/angle/990pro", "990pro", test_angle);
    g_test_add_func("/physics/locate", test_locate);
    g_test_add_func("/physics/seek-endpoints", test_seek_endpoints);
    g_test_add_func("/physics/post-seek-write-miss", test_post_seek_write_miss);
    g_test_add_data_func("/durability/st20000nm007d", "st20000nm007d",
                         test_durability);
    g_test_add_data_func("/durability/generic-7200", "generic-7200",
                         test_durability);
    g_test_add_data_func("/durability/990pro", "990pro", test_durability);
    g_test_add_data_func("/durability/ideal", "ideal", test_durability);
    g_test_add_func("/durability/media-cache-fua", test_durability_media_cache);
    g_test_add_func("/durability/queued-flush-hdd", test_durability_queued_flush);
    g_test_add_func("/durability/read-path", test_durability_read_path);
    g_test_add_func("/physics/sptf-beats-fifo", test_sptf_beats_fifo);
    g_test_add_func("/read/segment-hit-and-join", test_read_hit_and_join);
    g_test_add_func("/read/read-ahead-abandon", test_read_ahead_abandon);
    g_test_add_func("/read/read-ahead-track", test_read_ahead_track);
    g_test_add_func("/read/streams-to-host", test_read_streams_to_host);
    g_test_add_func("/device/overhead-by-kind", test_overhead_by_kind);
    g_test_add_func("/read/zero-latency", test_zero_latency_read);
    g_test_add_func("/read/segments-shared", test_read_segments_shared);
    g_test_add_func("/durability/power-cut-keeps-due-events",
                    test_power_cut_keeps_due_events);
    g_test_add_func("/durability/power-cut-forgets-dropped",
                    test_power_cut_forgets_dropped);
    g_test_add_func("/durability/power-cut-forgets-reads",
                    test_power_cut_forgets_reads);
    g_test_add_func("/sched/queue-window", test_queue_window);
    g_test_add_func("/sched/aging-bounds-latency", test_aging_bounds_latency);
    g_test_add_func("/sched/writeback-order", test_writeback_order);
    g_test_add_func("/durability/reordering", test_durability_reordering);
    g_test_add_func("/input/bad-requests", test_bad_requests);
    g_test_add_func("/input/queue-full", test_queue_full);
    g_test_add_func("/input/time-range", test_time_range);
    g_test_add_func("/physics/huge-transfer", test_huge_transfer);
    g_test_add_func("/input/config-errors", test_config_errors);
    g_test_add_func("/input/profile-errors", test_profile_errors);
    g_test_add_func("/input/dump-origins", test_dump_origins);
    g_test_add_func("/input/data-sheet-profile", test_data_sheet_profile);
    g_test_add_func("/input/derivation-errors", test_derivation_errors);
    g_test_add_func("/input/shipped-profiles", test_shipped_profiles);
    return g_test_run();
}
