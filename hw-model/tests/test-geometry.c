/*
 * hw-model unit tests: the rotating medium's physics (geometry.c, media-hdd.c): a sequential
 * write in one revolution, the platter's angle, random-read and seek
 * times against the data sheet, off-track write inhibit, a transfer larger
 * than a track.
 * GLib test framework, TAP with --tap; the helpers are model-test.h's.
 */
#include <string.h>

#include "drive.h"
#include "model-test.h"

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
    /* a read's unit is its page's, round-robin over dies x planes */
    g_assert_true(hwm_device_locate(fd, 5 * 16384 + 512, &at));
    uint32_t units = at.units;
    g_assert_cmpuint(units, >, 5);
    g_assert_cmpuint(at.unit, ==, 5);
    g_assert_cmpuint(at.cylinders, ==, 0);
    g_assert_true(hwm_device_locate(fd, (uint64_t)(units + 5) * 16384, &at));
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

/* one registration per test: a list (duplicates pairs such lists across
 * the subject files by shape) */
/* `zone` rows (a DIXtrac extraction): each zone's LBAs start after its
 * front sectors, skip the spares at each track's end, and lie where the
 * measured skews and the first block's offset put them; the next zone
 * starts at its own first cylinder after the spares held back at the
 * previous zone's end. */
static const char measured_zones[] =
    "type = hdd\ncapacity_bytes = 1536000\nrpm = 7200\nheads = 2\n"
    "zones = 2\nouter_sectors_per_track = 100\ninner_sectors_per_track = 80\n"
    "seek_track_to_track_ms = 1\nseek_avg_ms = 5\nseek_full_stroke_ms = 9\n"
    "head_switch_ms = 0.5\nwrite_cache = no\n"
    "zone = 0 9 100 10 30 150 200 2 5\n"
    "zone = 10 19 80 8 20 0 0 0 0\n";

static void test_measured_zones(void)
{
    g_autoptr(HwmProfile) p = parse(measured_zones);
    g_autoptr(HwmDevice) d = device(p, HWM_OFF, HWM_POLICY_FIFO);
    /* lba, zone, cylinder, head, sector, sectors per track, angle */
    static const uint32_t want[][7] = {
        /* front 150: track 1 (98 LBAs a track), sector 52; one head
         * switch's skew (10) and the first block's 5: slot 67 of 100 */
        { 0, 0, 0, 1, 52, 100, 241200 },
        { 45, 0, 0, 1, 97, 100, (97 + 10 + 5 - 100) * 3600 },
        /* the track's last 2 sectors are spares: the next LBA is on the
         * next cylinder, 2 head switches and 1 cylinder switch skewed */
        { 46, 0, 1, 0, 0, 100, (1 * 10 + 1 * 30 + 5) * 3600 },
        /* zone 0 holds 10 x 2 x 98 - 150 - 200 = 1610 LBAs: the last on
         * track 17 (9 head and 8 cylinder switches), its spares after */
        { 1609, 0, 8, 1, 93, 100, (93 + 9 * 10 + 8 * 30 + 5) % 100 * 3600 },
        { 1610, 1, 10, 0, 0, 80, 0 },
        { 1770, 1, 11, 0, 0, 80, (8 + 20) * 4500 },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(want); i++) {
        HwmLocation at;
        g_assert_true(hwm_device_locate(d, (uint64_t)want[i][0] * 512, &at));
        g_test_message("lba %u: zone %u cyl %u head %u sector %u angle %u",
                       want[i][0], at.zone, at.cylinder, at.head, at.sector,
                       at.angle_mdeg);
        g_assert_cmpuint(at.zone, ==, want[i][1]);
        g_assert_cmpuint(at.cylinder, ==, want[i][2]);
        g_assert_cmpuint(at.head, ==, want[i][3]);
        g_assert_cmpuint(at.sector, ==, want[i][4]);
        g_assert_cmpuint(at.sectors_per_track, ==, want[i][5]);
        if (want[i][6] || i == 4) {
            g_assert_cmpuint(at.angle_mdeg, ==, want[i][6]);
        }
    }
}

/* Rows that contradict the rest of the profile are refused, named. */
static void test_measured_zones_refused(void)
{
    static const char *const bad[][3] = {
        { "zones = 2", "zones = 3", "key 'zones' = 3 contradicts the zone "
                                    "rows (from line 13), which say 2" },
        { "inner_sectors_per_track = 80", "inner_sectors_per_track = 81",
          "key 'inner_sectors_per_track' = 81 contradicts" },
        { "capacity_bytes = 1536000", "capacity_bytes = 1699840",
          "the zone rows (from line 13) hold 3210 sectors on 2 heads, fewer "
          "than capacity_bytes' 3320" },
        { "zone = 10 19", "zone = 9 19", ":14: key 'zone': first_cylinder "
                                         "is not past" },
        { "zone = 0 9 100 10 30", "zone = 0 9 100 100 30", ":13: key "
          "'zone': a skew or first_block_sectors is not below" },
        { "150 200 2 5", "150 200 100 5", ":13: key 'zone': "
          "track_spare_sectors leaves a track no sectors" },
        { "150 200 2 5", "1900 100 2 5", "zone row 1 (from line 13): "
          "front_sectors and spare_sectors leave the zone no sectors" },
        { "150 200 2 5", "150 200 2", ":13: key 'zone': expected 9 "
          "values" },
        { "type = hdd", "type = flash", "key 'zone' does not apply to type "
          "= flash" },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        const char *at = strstr(measured_zones, bad[i][0]);
        g_assert_nonnull(at);
        g_autofree char *text = g_strdup_printf(
            "%.*s%s%s", (int)(at - measured_zones), measured_zones, bad[i][1],
            at + strlen(bad[i][0]));
        GError *err = NULL;
        g_autoptr(HwmProfile) p = hwm_profile_parse(text, strlen(text),
                                                    "zones.profile", &err);
        g_assert_null(p);
        if (!err || !strstr(err->message, bad[i][2])) {
            g_error("%s -> %s: got '%s'", bad[i][0], bad[i][1],
                    err ? err->message : "(accepted)");
        }
        g_clear_error(&err);
    }
}

/* A write to the media (no write cache) positions the arm while its data
 * comes in over the link: on a long seek a slower link costs nothing, and
 * behind a link slower than the seek the write ends no sooner than its
 * data is in, and no later than that and its own time on the track (so
 * the seek was not added to the link's time). */
static void test_write_positions_during_data(void)
{
    static const char *const link[] = { "1000", "10", "1" };
    hwm_ns done[3], submitted = 0;
    const uint64_t far = 90000000000ull, len = 65536;

    for (size_t i = 0; i < G_N_ELEMENTS(link); i++) {
        g_autofree char *text = g_strconcat(seek_profile, "interface_mb_s = ",
                                            link[i], "\n", NULL);
        g_autoptr(HwmProfile) p = parse(text);
        g_autoptr(HwmDevice) d = device(p, HWM_OFF, HWM_POLICY_FIFO);
        submit(d, 0, 1, HWM_OP_WRITE, 0, 0, 4096);
        submitted = next_completion(d).time_ns;
        submit(d, submitted, 2, HWM_OP_WRITE, 0, far, len);
        HwmEvent e = next_completion(d);
        done[i] = e.time_ns - submitted;
        g_test_message("%s MB/s: the far write takes %" G_GINT64_FORMAT
                       " ns (seek %" G_GINT64_FORMAT ", transfer %"
                       G_GINT64_FORMAT ")", link[i], done[i], e.t.seek_ns,
                       e.t.transfer_ns);
    }
    /* 10 MB/s: 6.6 ms of link, inside the seek of 10 ms and more */
    g_assert_cmpint(done[1], ==, done[0]);
    /* 1 MB/s: 65.5 ms of link, longer than the seek */
    hwm_ns in = 65536000;
    g_assert_cmpint(done[2], >=, in);
    g_assert_cmpint(done[2], <=, in + 8333334 + 1000000);
}

/* read_reconnect_pct (the SCSI buffer full ratio): the drive sends a
 * media read's data once that share of it is in the buffer, then all of
 * it over the link; at 100 the host's data starts after the last sector
 * is read, (n - 1) sectors' media time later than at 0, where it streams
 * from the first (the link being the slower). */
static void test_read_reconnect(void)
{
    static const char *const pct[] = { "0", "100" };
    hwm_ns done[2];

    for (size_t i = 0; i < G_N_ELEMENTS(pct); i++) {
        g_autofree char *text = g_strconcat(seek_profile,
                                            "interface_mb_s = 10\n"
                                            "read_reconnect_pct = ", pct[i],
                                            "\n", NULL);
        g_autoptr(HwmProfile) p = parse(text);
        g_autoptr(HwmDevice) d = device(p, HWM_OFF, HWM_POLICY_FIFO);
        submit(d, 0, 1, HWM_OP_READ, 0, 50000000000ull, 65536);
        done[i] = next_completion(d).time_ns;
    }
    /* 127 sectors of a 2,000-sector track at 7200 rpm */
    hwm_ns later = (hwm_ns)(127ull * 8333333333ull / 2000 / 1000);
    g_test_message("reconnect at 100%%: %" G_GINT64_FORMAT " ns later "
                   "(127 sectors: %" G_GINT64_FORMAT ")", done[1] - done[0],
                   later);
    g_assert_cmpint(done[1] - done[0], >=, later - 2);
    g_assert_cmpint(done[1] - done[0], <=, later + 2);
}

/* read_completion_overhead_us and write_completion_overhead_us (DiskSim's
 * completion overheads, which DIXtrac measures): the host sees a read or
 * a write done that much later, and the overhead says so; nothing else
 * moves. */
static void test_completion_overhead(void)
{
    static const char *const extra[] = {
        "", "read_completion_overhead_us = 250\nwrite_completion_overhead_us = 80\n" };
    hwm_ns at[2][2], ovh[2][2];

    for (size_t i = 0; i < G_N_ELEMENTS(extra); i++) {
        g_autofree char *text = g_strconcat(seek_profile, extra[i], NULL);
        g_autoptr(HwmProfile) p = parse(text);
        g_autoptr(HwmDevice) d = device(p, HWM_OFF, HWM_POLICY_FIFO);
        submit(d, 0, 1, HWM_OP_READ, 0, 50000000000ull, 4096);
        HwmEvent e = next_completion(d);
        at[i][0] = e.time_ns;
        ovh[i][0] = e.t.overhead_ns;
        /* at the same instant in both runs, the arm where the read left it */
        submit(d, 100 * MS, 2, HWM_OP_WRITE, 0, 90000000000ull, 4096);
        e = next_completion(d);
        at[i][1] = e.time_ns;
        ovh[i][1] = e.t.overhead_ns;
    }
    g_assert_cmpint(at[1][0] - at[0][0], ==, 250000);
    g_assert_cmpint(ovh[1][0] - ovh[0][0], ==, 250000);
    g_assert_cmpint(ovh[1][1] - ovh[0][1], ==, 80000);
    g_assert_cmpint(at[1][1] - at[0][1], ==, 80000);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/physics/sequential-write-one-revolution",
                    test_sequential_write_one_rev);
    g_test_add_func("/physics/random-read-average", test_random_read_average);
    g_test_add_data_func("/physics/angle/generic-7200", "generic-7200",
                         test_angle);
    g_test_add_data_func("/physics/angle/990pro", "990pro", test_angle);
    g_test_add_func("/physics/locate", test_locate);
    g_test_add_func("/physics/seek-endpoints", test_seek_endpoints);
    g_test_add_func("/physics/post-seek-write-miss", test_post_seek_write_miss);
    g_test_add_func("/physics/huge-transfer", test_huge_transfer);
    g_test_add_func("/physics/measured-zones", test_measured_zones);
    g_test_add_func("/physics/measured-zones-refused",
                    test_measured_zones_refused);
    g_test_add_func("/physics/write-positions-during-data",
                    test_write_positions_during_data);
    g_test_add_func("/physics/read-reconnect", test_read_reconnect);
    g_test_add_func("/physics/completion-overhead", test_completion_overhead);
    return g_test_run();
}
