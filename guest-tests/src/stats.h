/* Latency statistics shared by the guest workload programs.
 *
 * Samples are kept exactly (one int64 per I/O, nanoseconds): at the seed
 * benchmark's highest rate (~7500 IOPS for 60 s) that is ~3.6 MB, and exact
 * percentiles avoid the bucket error of histogram approximations when the
 * results are compared against a table within 10%. */
#ifndef PLATTER_STATS_H
#define PLATTER_STATS_H

#include <stddef.h>
#include <stdint.h>

struct lat_samples {
    int64_t *ns;     /* samples in arrival order, sorted by lat_summarize */
    size_t n;
    size_t cap;
};

struct lat_summary {
    size_t n;
    double avg_us;
    double min_us, max_us;
    double p50_us, p99_us, p999_us;
};

/* Append one sample; returns 0, or -1 if memory ran out. */
int lat_add(struct lat_samples *s, int64_t ns);
/* Append all samples of src to dst; returns 0 or -1. */
int lat_merge(struct lat_samples *dst, const struct lat_samples *src);
void lat_free(struct lat_samples *s);

/* Nearest-rank percentile of n sorted values, p in (0, 100]: the smallest
 * value such that at least p% of the values are <= it, i.e. the element at
 * 1-based rank ceil(p/100 * n). Returns 0 for n == 0. */
int64_t lat_percentile_sorted(const int64_t *sorted, size_t n, double p);

/* Sort the samples in place and fill *out (all zero when there are none). */
void lat_summarize(struct lat_samples *s, struct lat_summary *out);

/* The latency histogram a result carries beside its percentiles, so the
 * host can draw the whole distribution: log-linear buckets, every value
 * below 2^LAT_HIST_SUB_BITS ns its own, above that 2^LAT_HIST_SUB_BITS
 * buckets per power of two (a bucket spans at most 1/64 of its values).
 * lat_bucket() is a value's bucket index, non-decreasing in the value. */
#define LAT_HIST_SUB_BITS 6
uint64_t lat_bucket(int64_t ns);

#endif
