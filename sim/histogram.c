#include <math.h>
#include <string.h>

#include "histogram.h"

void hist_init(Histogram *h)
{
    memset(h, 0, sizeof *h);
    h->min_ns = UINT64_MAX;
}

uint32_t hist_index(uint64_t v)
{
    if (v < HIST_SUB) {
        return (uint32_t)v;
    }
    uint32_t msb = 63u - (uint32_t)__builtin_clzll(v);
    uint32_t shift = msb - HIST_SUB_BITS;
    return (shift + 1) * HIST_SUB + (uint32_t)((v >> shift) - HIST_SUB);
}

uint64_t hist_value(uint32_t idx)
{
    if (idx < HIST_SUB) {
        return idx;
    }
    uint32_t shift = idx / HIST_SUB - 1;
    uint64_t lo = ((uint64_t)(idx % HIST_SUB) + HIST_SUB) << shift;
    return lo + (((1ull << shift) - 1) >> 1);
}

void hist_add(Histogram *h, uint64_t ns)
{
    double x = (double)ns, d;

    h->count++;
    h->sum_ns += ns;
    d = x - h->mean;
    h->mean += d / (double)h->count;
    h->m2 += d * (x - h->mean);
    h->min_ns = ns < h->min_ns ? ns : h->min_ns;
    h->max_ns = ns > h->max_ns ? ns : h->max_ns;
    h->bucket[hist_index(ns)]++;
}

uint64_t hist_percentile(const Histogram *h, uint32_t per_million)
{
    if (h->count == 0) {
        return 0;
    }
    /* the smallest value with at least that share of samples at or below */
    unsigned __int128 want = ((unsigned __int128)h->count * per_million +
                              999999) / 1000000;
    if (want == 0) {
        want = 1;
    }
    uint64_t seen = 0;
    for (uint32_t i = 0; i < HIST_BUCKETS; i++) {
        seen += h->bucket[i];
        if (seen >= want) {
            uint64_t v = hist_value(i);
            /* never report outside what was observed */
            v = v < h->min_ns ? h->min_ns : v;
            return v > h->max_ns ? h->max_ns : v;
        }
    }
    return h->max_ns;
}

uint64_t hist_mean(const Histogram *h)
{
    return h->count ? (uint64_t)(h->sum_ns / h->count) : 0;
}

uint64_t hist_stdev(const Histogram *h)
{
    if (h->count < 2) {
        return 0;
    }
    /* a reported statistic, not a time the model computes with */
    return (uint64_t)sqrt(h->m2 / (double)(h->count - 1));
}
