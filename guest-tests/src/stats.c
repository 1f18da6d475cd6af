#include "stats.h"

#include <math.h>
#include <stdlib.h>

int lat_add(struct lat_samples *s, int64_t ns)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 4096;
        int64_t *p = realloc(s->ns, cap * sizeof(*p));
        if (!p)
            return -1;
        s->ns = p;
        s->cap = cap;
    }
    s->ns[s->n++] = ns;
    return 0;
}

int lat_merge(struct lat_samples *dst, const struct lat_samples *src)
{
    for (size_t i = 0; i < src->n; i++)
        if (lat_add(dst, src->ns[i]) < 0)
            return -1;
    return 0;
}

void lat_free(struct lat_samples *s)
{
    free(s->ns);
    s->ns = NULL;
    s->n = s->cap = 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int64_t lat_percentile_sorted(const int64_t *sorted, size_t n, double p)
{
    if (n == 0)
        return 0;
    /* The small epsilon keeps e.g. 99.9% of 1000 at rank 999, not 1000,
     * when p/100 * n is not exactly representable. */
    double r = ceil(p / 100.0 * (double)n - 1e-9);
    size_t rank = r < 1.0 ? 1 : (size_t)r;
    if (rank > n)
        rank = n;
    return sorted[rank - 1];
}

void lat_summarize(struct lat_samples *s, struct lat_summary *out)
{
    *out = (struct lat_summary){0};
    if (s->n == 0)
        return;
    qsort(s->ns, s->n, sizeof(*s->ns), cmp_i64);
    /* Sum in integer nanoseconds: exact for any realistic run length. */
    int64_t sum = 0;
    for (size_t i = 0; i < s->n; i++)
        sum += s->ns[i];
    out->n = s->n;
    out->avg_us = (double)sum / (double)s->n / 1000.0;
    out->min_us = (double)s->ns[0] / 1000.0;
    out->max_us = (double)s->ns[s->n - 1] / 1000.0;
    out->p50_us = (double)lat_percentile_sorted(s->ns, s->n, 50.0) / 1000.0;
    out->p99_us = (double)lat_percentile_sorted(s->ns, s->n, 99.0) / 1000.0;
    out->p999_us = (double)lat_percentile_sorted(s->ns, s->n, 99.9) / 1000.0;
}

uint64_t lat_bucket(int64_t ns)
{
    const uint64_t sub = 1u << LAT_HIST_SUB_BITS;
    uint64_t v = ns < 0 ? 0 : (uint64_t)ns;
    if (v < sub)
        return v;
    unsigned e = 63 - (unsigned)__builtin_clzll(v);   /* floor(log2 v) */
    return (uint64_t)(e - LAT_HIST_SUB_BITS + 1) * sub +
           ((v >> (e - LAT_HIST_SUB_BITS)) & (sub - 1));
}
