/*
 * Log-linear latency histogram (the scheme fio uses): exact below 64 ns,
 * then 64 buckets per power of two, so any percentile is within 1/64 of
 * the true sample.  Fixed memory, O(1) insert.
 */
#ifndef PLATTER_HISTOGRAM_H
#define PLATTER_HISTOGRAM_H

#include <stdint.h>

#define HIST_SUB_BITS 6
#define HIST_SUB (1u << HIST_SUB_BITS)
#define HIST_BUCKETS ((64 - HIST_SUB_BITS + 1) * HIST_SUB)

typedef struct {
    uint64_t count;
    uint64_t min_ns, max_ns;
    unsigned __int128 sum_ns;   /* exact: below 2^64 samples of 2^64 */
    /* Welford's running mean and sum of squared deviations: an exact sum
     * of squares passes 2^128 with a few samples near 2^62 ns, and
     * n * sum_sq with far fewer; doubles cannot overflow here and give
     * the same result for the same samples on every IEEE machine */
    double mean, m2;
    uint64_t bucket[HIST_BUCKETS];
} Histogram;

void hist_init(Histogram *h);
void hist_add(Histogram *h, uint64_t ns);
/* Value at percentile `per_million` / 10^6 (e.g. 990000 = p99), or 0. */
uint64_t hist_percentile(const Histogram *h, uint32_t per_million);
uint64_t hist_mean(const Histogram *h);
uint64_t hist_stdev(const Histogram *h);
/* Bucket index of a value and the value a bucket reports (its middle). */
uint32_t hist_index(uint64_t ns);
uint64_t hist_value(uint32_t index);

#endif
