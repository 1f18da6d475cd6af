/* The sim's latency histogram: statistics over extreme samples. */
#include <math.h>

#include <glib.h>

#include "histogram.h"

/* Four samples of 0 and four of 2^62 ns (the model's time range): every
 * deviation is 2^61, so the stdev is 2^61 * sqrt(8/7).  The exact sum of
 * squares, 2^126, times n passed 2^128 and wrapped. */
static void test_stdev_extreme(void)
{
    Histogram h;
    hist_init(&h);
    for (int i = 0; i < 4; i++) {
        hist_add(&h, 0);
        hist_add(&h, 1ull << 62);
    }
    double want = ldexp(1, 61) * sqrt(8.0 / 7.0);
    g_assert_cmpfloat(fabs((double)hist_stdev(&h) - want), <, want * 1e-12);
    g_assert_cmpuint(hist_mean(&h), ==, 1ull << 61);
}

/* 1 GiB requests over a slow link: latencies of hours, thousands of them */
static void test_stdev_large(void)
{
    Histogram h;
    hist_init(&h);
    for (uint64_t i = 0; i < 100000; i++) {
        hist_add(&h, 4000000000000ull + (i % 2) * 2000000000000ull);
    }
    /* alternating a, a + d: stdev d/2 * sqrt(n / (n - 1)) */
    double want = 1e12 * sqrt(100000.0 / 99999.0);
    g_assert_cmpfloat(fabs((double)hist_stdev(&h) - want), <, 2);
}

static void test_stdev_small(void)
{
    Histogram h;
    hist_init(&h);
    uint64_t v[] = { 2, 4, 4, 4, 5, 5, 7, 9 };   /* sample stdev 2.138 */
    for (size_t i = 0; i < G_N_ELEMENTS(v); i++) {
        hist_add(&h, v[i]);
    }
    g_assert_cmpuint(hist_stdev(&h), ==, 2);
    hist_init(&h);
    hist_add(&h, 7);
    g_assert_cmpuint(hist_stdev(&h), ==, 0);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/histogram/stdev-extreme", test_stdev_extreme);
    g_test_add_func("/histogram/stdev-large", test_stdev_large);
    g_test_add_func("/histogram/stdev-small", test_stdev_small);
    return g_test_run();
}
