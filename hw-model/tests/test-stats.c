/*
 * The counter list (HWM_STATS_FIELDS in hwm.h) is well formed: every
 * consumer (the struct, platter-sim's reports, the driver's QMP copy)
 * expands it, so a bad entry would spread to all of them.
 */
#include <string.h>

#include "hwm.h"

typedef struct {
    const char *name, *unit, *help;
    size_t size;
    bool is_signed;
} Field;

#define FIELD(n, type, unit, help) \
    { #n, unit, help, sizeof(type), \
      _Generic(((HwmStats *)0)->n, int64_t: true, default: false) },
static const Field fields[] = { HWM_STATS_FIELDS(FIELD) };
#undef FIELD

static void test_names_unique(void)
{
    for (size_t i = 0; i < G_N_ELEMENTS(fields); i++) {
        for (size_t j = i + 1; j < G_N_ELEMENTS(fields); j++) {
            g_assert_cmpstr(fields[i].name, !=, fields[j].name);
        }
    }
}

/* A unit is one of three, the name carries it (the project's rule for
 * struct fields), and times are hwm_ns, everything else uint64_t. */
static void test_units(void)
{
    for (size_t i = 0; i < G_N_ELEMENTS(fields); i++) {
        const Field *f = &fields[i];
        bool ns = !strcmp(f->unit, "ns"), bytes = !strcmp(f->unit, "bytes");
        g_test_message("%s: %s", f->name, f->unit);
        g_assert_true(ns || bytes || !strcmp(f->unit, "count"));
        g_assert_cmpint(g_str_has_suffix(f->name, "_ns"), ==, ns);
        g_assert_cmpint(g_str_has_suffix(f->name, "_bytes"), ==, bytes);
        g_assert_cmpint(f->is_signed, ==, ns);
        g_assert_cmpuint(f->size, ==, 8);
    }
}

/* Help is one short line, as a QMP or --help column takes it. */
static void test_help(void)
{
    for (size_t i = 0; i < G_N_ELEMENTS(fields); i++) {
        const char *h = fields[i].help;
        g_test_message("%s: %s", fields[i].name, h);
        g_assert_cmpuint(strlen(h), >, 0);
        g_assert_cmpuint(strlen(h), <=, 60);
        g_assert_null(strchr(h, '\n'));
    }
}

/* The struct is the list and nothing else, and hwm_stats() fills all of
 * it: a new device reports every counter zero. */
static void test_struct_is_list(void)
{
    size_t total = 0;
    for (size_t i = 0; i < G_N_ELEMENTS(fields); i++) {
        total += fields[i].size;
    }
    g_assert_cmpuint(total, ==, sizeof(HwmStats));

    GError *err = NULL;
    g_autoptr(HwmProfile) p = hwm_profile_load("generic-7200", PROFILE_DIR,
                                               &err);
    g_assert_no_error(err);
    HwmConfig cfg = { 0 };
    g_autoptr(HwmDevice) d = hwm_device_new(p, &cfg, &err);
    g_assert_no_error(err);
    HwmStats st;
    memset(&st, 0xa5, sizeof st);
    hwm_stats(d, &st);
#define ZERO(n, type, unit, help) g_assert_cmpint(st.n, ==, 0);
    HWM_STATS_FIELDS(ZERO)
#undef ZERO
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/stats/names-unique", test_names_unique);
    g_test_add_func("/stats/units", test_units);
    g_test_add_func("/stats/help", test_help);
    g_test_add_func("/stats/struct-is-list", test_struct_is_list);
    return g_test_run();
}
