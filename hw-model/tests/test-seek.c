/*
 * The seek curve honours the data sheet's average (issue 14).
 *
 * A data sheet's average seek is the mean over random seeks: start and end
 * cylinder uniform, so over N cylinders a seek of d (0 < d < N) has weight
 * N - d.  On every rotating profile shipped in PROFILE_DIR the model's own
 * seek time, summed over every distance with that weight, must average
 * seek_avg_ms within 0.5%, while the curve still starts at the
 * track-to-track figure, ends at the full-stroke figure and never falls.
 * A profile whose average no such curve can have is refused by name.
 */
#include <string.h>

#include "geometry.h"
#include "hwm.h"

static HwmProfile *load(const char *name)
{
    GError *err = NULL;
    HwmProfile *p = hwm_profile_load(name, PROFILE_DIR, &err);
    g_assert_no_error(err);
    return p;
}

static void test_mean(gconstpointer data)
{
    g_autoptr(HwmProfile) p = load(data);
    GError *err = NULL;
    Geometry g;

    g_assert_true(hwm_geometry_init(&g, p, &err));
    g_assert_no_error(err);
    uint64_t n = g.cylinders;
    __int128 sum = 0, weight = 0;
    hwm_ns prev = 0;
    for (uint64_t d = 1; d < n; d++) {
        hwm_ns t = hwm_geometry_seek_ns(&g, (uint32_t)d);
        /* a measured curve (seek rows) may dip where the drive did */
        g_assert_true(g.seek_points || t >= prev);
        prev = t;
        sum += (__int128)t * (n - d);
        weight += n - d;
    }
    double mean = (double)sum / (double)weight;
    double avg = (double)p->seek_avg_ns;
    g_test_message("%s: %" G_GUINT64_FORMAT " cylinders, anchor %.4f ms, "
                   "mean seek %.4f ms, seek_avg_ms %.4f", (const char *)data,
                   n, g.anchor_ns / 1e6, mean / 1e6, avg / 1e6);
    g_assert_cmpfloat(mean, >=, avg * 0.995);
    g_assert_cmpfloat(mean, <=, avg * 1.005);
    if (g.seek_points) {
        /* the measured points themselves (the data-sheet keys round them) */
        for (uint32_t i = 0; i < g.n_seek_points; i++) {
            if (g.seek_points[i].distance_cyl < n) {
                g_assert_cmpint(hwm_geometry_seek_ns(&g,
                                    g.seek_points[i].distance_cyl), ==,
                                (hwm_ns)g.seek_points[i].time_ns);
            }
        }
        hwm_geometry_free(&g);
        return;
    }
    g_assert_cmpint(hwm_geometry_seek_ns(&g, 1), ==,
                    (hwm_ns)p->seek_track_to_track_ns);
    g_assert_cmpint(hwm_geometry_seek_ns(&g, (uint32_t)(n - 1)), ==,
                    (hwm_ns)p->seek_full_stroke_ns);
    hwm_geometry_free(&g);
}

/* One zone, track-to-track 1 ms, full stroke 18 ms; the average is added. */
static const char flat_zone[] =
    "type = hdd\ncapacity_bytes = 100000000000\nrpm = 7200\nheads = 4\n"
    "zones = 1\nouter_sectors_per_track = 2000\n"
    "inner_sectors_per_track = 2000\nseek_track_to_track_ms = 1\n"
    "seek_full_stroke_ms = 18\nhead_switch_ms = 1\nwrite_cache = no\n";

/* `seek` rows: the curve goes through each point, is linear between
 * points (to the ns, rounded down) and holds the last point's time
 * beyond it; rows out of order or not starting at distance 1 are refused
 * with the line. */
static void test_measured_curve(void)
{
    g_autofree char *rows = g_strconcat(
        flat_zone, "seek_avg_ms = 8\n",
        "seek = 1 1\nseek = 11 2\nseek = 101 5\nseek = 1001 4.5\n", NULL);
    GError *err = NULL;
    g_autoptr(HwmProfile) p = hwm_profile_parse(rows, strlen(rows), "rows",
                                                &err);
    g_assert_no_error(err);
    Geometry g;
    g_assert_true(hwm_geometry_init(&g, p, &err));
    const struct { uint32_t d; hwm_ns t; } want[] = {
        { 1, 1000000 }, { 6, 1500000 }, { 11, 2000000 }, { 12, 2033333 },
        { 56, 3500000 }, { 101, 5000000 }, { 551, 4750000 },
        { 1001, 4500000 }, { 5000, 4500000 },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(want); i++) {
        g_assert_cmpint(hwm_geometry_seek_ns(&g, want[i].d), ==, want[i].t);
    }
    hwm_geometry_free(&g);

    static const char *const bad[][2] = {
        { "seek = 2 1\n", ":13: key 'seek': the first seek row is at "
                          "distance_cylinders 1" },
        { "seek = 1 1\nseek = 1 2\n", ":14: key 'seek': "
                                     "distance_cylinders is not above" },
        { "seek = 1 0\n", ":13: key 'seek': time_ms must be positive" },
        { "seek = 1\n", ":13: key 'seek': expected 2 values" },
        { "seek = 1 2 3\n", ":13: key 'seek': expected 2 values" },
        { "seek = 1 2ms\n", ":13: key 'seek': column 2 (time_ms): bad "
                            "value '2ms'" },
        { "seek = 1 10001\n", ":13: key 'seek': column 2 (time_ms): "
                              "10001 is above 10000" },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        g_autofree char *text = g_strconcat(flat_zone, "seek_avg_ms = 8\n",
                                            bad[i][0], NULL);
        g_autoptr(HwmProfile) q = hwm_profile_parse(text, strlen(text),
                                                    "bad", &err);
        g_assert_null(q);
        g_assert_error(err, HWM_ERROR, HWM_ERROR_PROFILE);
        if (!strstr(err->message, bad[i][1])) {
            g_error("%s: got '%s'", bad[i][0], err->message);
        }
        g_clear_error(&err);
    }
}

/* An average at either end of [track-to-track, full stroke] needs an
 * anchor outside it: the device is refused, naming the key. */
static void test_impossible(void)
{
    static const char *const avg[] = { "18", "1.05" };
    for (size_t i = 0; i < G_N_ELEMENTS(avg); i++) {
        g_autofree char *text = g_strconcat(flat_zone, "seek_avg_ms = ",
                                            avg[i], "\n", NULL);
        GError *err = NULL;
        g_autoptr(HwmProfile) p = hwm_profile_parse(text, strlen(text),
                                                    "bad.profile", &err);
        g_assert_no_error(err);
        HwmConfig cfg = { 0 };
        HwmDevice *d = hwm_device_new(p, &cfg, &err);
        g_assert_null(d);
        g_assert_error(err, HWM_ERROR, HWM_ERROR_PROFILE);
        g_test_message("%s", err->message);
        g_assert_nonnull(strstr(err->message, "bad.profile: key 'seek_avg_ms'"));
        g_error_free(err);
    }
}

int main(int argc, char **argv)
{
    g_autoptr(GDir) dir = g_dir_open(PROFILE_DIR, 0, NULL);
    const char *f;
    int profiles = 0;

    g_test_init(&argc, &argv, NULL);
    g_assert_nonnull(dir);
    while ((f = g_dir_read_name(dir)) != NULL) {
        if (!g_str_has_suffix(f, ".profile")) {
            continue;
        }
        char *name = g_strndup(f, strlen(f) - strlen(".profile"));
        g_autoptr(HwmProfile) p = load(name);
        if (p->kind != HWM_KIND_HDD) {
            g_free(name);
            continue;
        }
        g_autofree char *path = g_strdup_printf("/seek/mean/%s", name);
        g_test_add_data_func_full(path, name, test_mean, g_free);
        profiles++;
    }
    g_assert_cmpint(profiles, >, 0);
    g_test_add_func("/seek/impossible-average", test_impossible);
    g_test_add_func("/seek/measured-curve", test_measured_curve);
    return g_test_run();
}
