/* Host unit tests for the guest programs' statistics, PRNG and argument
 * parsing, against hand-computed inputs. Prints TAP. */
#define _GNU_SOURCE  /* fmemopen */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parse.h"
#include "pattern.h"
#include "prng.h"
#include "record.h"
#include "soak.h"
#include "report.h"
#include "stats.h"

static int n_run, n_fail;

static void ok(int cond, const char *what)
{
    n_run++;
    if (!cond)
        n_fail++;
    printf("%s %d - %s\n", cond ? "ok" : "not ok", n_run, what);
}

static int near(double a, double b)
{
    return fabs(a - b) < 1e-9;
}

static void test_percentiles(void)
{
    /* 1..100 us in shuffled order: nearest rank gives p50 = 50, p99 = 99,
     * p99.9 = 100, avg = 50.5. */
    struct lat_samples s = {0};
    for (int i = 0; i < 100; i++)
        lat_add(&s, (int64_t)(((i * 37) % 100) + 1) * 1000);
    struct lat_summary m;
    lat_summarize(&s, &m);
    ok(m.n == 100, "100 samples counted");
    ok(near(m.avg_us, 50.5), "avg of 1..100 us is 50.5");
    ok(near(m.p50_us, 50.0), "p50 of 1..100 is 50");
    ok(near(m.p99_us, 99.0), "p99 of 1..100 is 99");
    ok(near(m.p999_us, 100.0), "p99.9 of 1..100 is 100");
    ok(near(m.min_us, 1.0) && near(m.max_us, 100.0), "min 1, max 100");
    lat_free(&s);

    /* 1000 samples: 999 of 10 us and one of 5000 us. p99.9 is rank 999
     * (10 us), the outlier only shows in max; with 1001 samples rank 1000
     * is still 10 us. */
    for (int i = 0; i < 999; i++)
        lat_add(&s, 10000);
    lat_add(&s, 5000000);
    lat_summarize(&s, &m);
    ok(near(m.p999_us, 10.0), "p99.9 of 999x10 + 1x5000 is 10 (rank 999)");
    ok(near(m.avg_us, (999 * 10.0 + 5000.0) / 1000.0), "avg with outlier");
    ok(near(m.max_us, 5000.0), "max is the outlier");
    lat_free(&s);

    /* 2000 samples with two outliers: rank ceil(0.999 * 2000) = 1998 is
     * the last ordinary value, so still 10 us; three outliers move it. */
    for (int i = 0; i < 1997; i++)
        lat_add(&s, 10000);
    for (int i = 0; i < 3; i++)
        lat_add(&s, 7000000);
    lat_summarize(&s, &m);
    ok(near(m.p999_us, 7000.0), "p99.9 of 1997x10 + 3x7000 is 7000");
    ok(near(m.p99_us, 10.0), "p99 of the same is 10");
    lat_free(&s);

    const int64_t one[] = {42};
    ok(lat_percentile_sorted(one, 1, 50) == 42 &&
       lat_percentile_sorted(one, 1, 99.9) == 42, "single sample is every percentile");
    ok(lat_percentile_sorted(one, 0, 50) == 0, "empty input gives 0");
    const int64_t two[] = {1, 2};
    ok(lat_percentile_sorted(two, 2, 50) == 1 && lat_percentile_sorted(two, 2, 50.1) == 2,
       "p50 of {1,2} is 1, p50.1 is 2");

    lat_summarize(&s, &m);
    ok(m.n == 0 && m.avg_us == 0, "no samples: zero summary");

    struct lat_samples a = {0}, b = {0};
    lat_add(&a, 1000);
    lat_add(&b, 3000);
    lat_add(&b, 2000);
    lat_merge(&a, &b);
    lat_summarize(&a, &m);
    ok(m.n == 3 && near(m.avg_us, 2.0) && near(m.p50_us, 2.0), "merge of {1} and {3,2}");
    lat_free(&a);
    lat_free(&b);
}

static void test_prng(void)
{
    /* Reference splitmix64 outputs for seed 0 (the published test vector
     * of the algorithm's reference implementation). */
    struct prng r;
    prng_seed(&r, 0);
    ok(prng_next(&r) == 0xe220a8397b1dcdafULL, "splitmix64(0) #1");
    ok(prng_next(&r) == 0x6e789e6aa1b965f4ULL, "splitmix64(0) #2");
    ok(prng_next(&r) == 0x06c45d188009454fULL, "splitmix64(0) #3");

    struct prng x, y;
    prng_seed(&x, 1);
    prng_seed(&y, 1);
    int same = 1, in_range = 1;
    uint64_t blocks = (100ULL << 30) / 4096;
    for (int i = 0; i < 10000; i++) {
        uint64_t a = prng_below(&x, blocks), b = prng_below(&y, blocks);
        same &= a == b;
        in_range &= a < blocks;
    }
    ok(same, "same seed, same offsets");
    ok(in_range, "offsets below span/bs");
    prng_seed(&y, 2);
    ok(prng_below(&x, blocks) != prng_below(&y, blocks), "other seed, other offsets");

    /* Uniformity sanity: 8 buckets of 80000 draws within 2% of 10000. */
    unsigned hist[8] = {0};
    prng_seed(&x, 7);
    for (int i = 0; i < 80000; i++)
        hist[prng_below(&x, 8)]++;
    int flat = 1;
    for (int i = 0; i < 8; i++)
        flat &= hist[i] > 9800 && hist[i] < 10200;
    ok(flat, "prng_below(8) is roughly uniform");
}

static void test_parse(void)
{
    uint64_t v = 0;
    ok(parse_size("4096", &v) == 0 && v == 4096, "size 4096");
    ok(parse_size("4k", &v) == 0 && v == 4096, "size 4k");
    ok(parse_size("4KiB", &v) == 0 && v == 4096, "size 4KiB");
    ok(parse_size("100G", &v) == 0 && v == 100ULL << 30, "size 100G");
    ok(parse_size("100GiB", &v) == 0 && v == 100ULL << 30, "size 100GiB");
    ok(parse_size("2T", &v) == 0 && v == 2ULL << 40, "size 2T");
    ok(parse_size("", &v) < 0 && parse_size("x", &v) < 0 && parse_size("4q", &v) < 0,
       "bad sizes rejected");
    ok(parse_size("-1", &v) < 0, "negative size rejected");
    ok(parse_size("99999999999T", &v) < 0, "overflowing size rejected");
    ok(parse_u64("60", &v) == 0 && v == 60, "u64 60");
    ok(parse_u64("6x", &v) < 0 && parse_u64("", &v) < 0, "bad u64 rejected");
    /* hwm_parse_decimal's rules: exact fractions, no sign, no blank */
    ok(parse_size("1.5M", &v) == 0 && v == 3ULL << 19, "size 1.5M");
    ok(parse_size("1.1K", &v) < 0, "size of a fractional byte rejected");
    ok(parse_size("4kx", &v) < 0 && parse_size("4.", &v) == 0 && v == 4,
       "junk after the suffix rejected, 4. is 4");
    ok(parse_u64("1.5", &v) < 0 && parse_u64(" 1", &v) < 0 &&
       parse_u64("+1", &v) < 0, "u64 fraction, blank and sign rejected");
    ok(parse_u64("99999999999999999999", &v) < 0, "overflowing u64 rejected");
}

static void test_record(void)
{
    static uint8_t buf[4096];
    struct record_id w = {.run = 9, .seq = 77, .offset = 8192, .job = 3}, got;
    uint32_t index = 99;

    record_fill(buf, sizeof(buf), &w);
    ok(record_read_sector(buf + 1536, &got, &index) == RECORD_INTACT &&
       got.run == 9 && got.seq == 77 && got.offset == 8192 && got.job == 3 &&
       index == 3, "a filled sector reads back as its write and index");
    int all = 1;
    for (int i = 0; i < 8; i++)
        all &= record_read_sector(buf + 512 * i, &got, &index) == RECORD_INTACT &&
               index == (uint32_t)i;
    ok(all, "every sector of a write is intact and numbered");
    buf[700] ^= 1;
    ok(record_read_sector(buf + 512, &got, &index) == RECORD_DAMAGED,
       "one flipped bit makes a sector damaged");
    memset(buf, 0, 512);
    ok(record_read_sector(buf, &got, &index) == RECORD_EMPTY,
       "an all-zero sector is empty");
    memset(buf, 0xa5, 512);
    ok(record_read_sector(buf, &got, &index) == RECORD_DAMAGED,
       "foreign data is damaged, not intact");
    static uint8_t a[512], b[512];
    struct record_id w2 = w;
    w2.seq = 78;
    record_fill(a, 512, &w);
    record_fill(b, 512, &w2);
    ok(memcmp(a + 40, b + 40, 400) != 0, "payload differs between writes");
}

static void test_pattern(void)
{
    struct write_pattern p, q;
    pattern_init(&p, 0, 4096, 3 * 4096, 8192, 1);
    uint64_t o[4];
    for (int i = 0; i < 4; i++)
        o[i] = pattern_next(&p);
    ok(o[0] == 8192 && o[1] == 12288 && o[2] == 16384 && o[3] == 8192,
       "sequential pattern starts at the base and wraps at the span");
    pattern_init(&p, 1, 4096, 1 << 30, 0, 5);
    pattern_init(&q, 1, 4096, 1 << 30, 0, 5);
    int same = 1, aligned = 1;
    for (int i = 0; i < 1000; i++) {
        uint64_t x = pattern_next(&p);
        same &= x == pattern_next(&q);
        aligned &= x % 4096 == 0 && x < (1u << 30);
    }
    ok(same && aligned, "random pattern: same seed, same aligned offsets in the span");
    ok(pattern_parse("rand") == 1 && pattern_parse("seq") == 0 &&
       pattern_parse("zig") < 0, "pattern names");
}

static void test_histogram(void)
{
    /* Buckets: exact below 64 ns, then 64 per power of two, each at most
     * 1/64 of its values wide; never decreasing. */
    int mono = 1, narrow = 1;
    for (int64_t v = 1; v < 100000000; v += v / 97 + 1) {
        if (lat_bucket(v) < lat_bucket(v - 1))
            mono = 0;
        /* the bucket's first value: where the index last changed */
        int64_t lo = v;
        while (lo > 0 && lat_bucket(lo - 1) == lat_bucket(v))
            lo--;
        if (v >= 64 && (double)(v - lo) > (double)lo / 64.0)
            narrow = 0;
    }
    ok(mono, "bucket index never decreases");
    ok(narrow, "a bucket spans at most 1/64 of its values");
    ok(lat_bucket(63) == 63 && lat_bucket(64) == 64 && lat_bucket(127) == 127 &&
       lat_bucket(128) == 128 && lat_bucket(129) == 128, "exact below 128, then pairs");

    /* 10 us x3, 10.01 us (the same bucket), 5 ms: two entries, each its
     * largest sample, counts adding up to n. */
    struct lat_samples s = {0};
    const int64_t v[] = {5000000, 10000, 10010, 10000, 10000};
    for (size_t i = 0; i < 5; i++)
        lat_add(&s, v[i]);
    struct lat_summary m;
    lat_summarize(&s, &m);
    char buf[256] = "";
    FILE *f = fmemopen(buf, sizeof(buf), "w");
    report_hist(f, "h", &s);
    fclose(f);
    ok(!strcmp(buf, ",\"h\":[[10010,4],[5000000,1]]"), "histogram of 5 samples");
    lat_free(&s);
    f = fmemopen(buf, sizeof(buf), "w");
    report_hist(f, "h", &s);
    fclose(f);
    ok(!strcmp(buf, ",\"h\":[]"), "no samples: an empty histogram");
}

/* The soak checker (soak.h) on a slice of 8 sectors, with the "media"
 * played by a buffer: what a cut may leave passes, a lost durable write,
 * a foreign sector and a stale read fail. */
static void test_soak(void)
{
    struct soak_slice s;
    uint8_t disk[8 * SOAK_SECTOR_BYTES] = { 0 }, w[8 * SOAK_SECTOR_BYTES];
    uint8_t durable[2 * SOAK_SECTOR_BYTES];
    int quiet = dup(2);

    ok(soak_slice_init(&s, 7, 1, 1 << 20, 8) == 0, "soak: slice allocated");
    ok(soak_check(&s, 0, 8, disk, 0) == 0, "soak: a fresh slice reads zeros");
    /* write 1 to sectors 0-1, flushed: durable */
    soak_write_begin(&s, 0, 2, w);
    memcpy(disk, w, 2 * SOAK_SECTOR_BYTES);
    memcpy(durable, w, sizeof(durable));
    soak_write_done(&s, 0, 2, 0);
    ok(soak_check(&s, 0, 2, disk, 0) == 0, "soak: a read returns the acknowledged write");
    soak_flush_done(&s, 1);
    /* write 2 to sectors 0-3, acknowledged, not flushed */
    soak_write_begin(&s, 0, 4, w);
    memcpy(disk, w, 4 * SOAK_SECTOR_BYTES);
    soak_write_done(&s, 0, 4, 0);
    fflush(stderr);
    dup2(open("/dev/null", O_WRONLY), 2);  /* the loss lines */
    ok(soak_check(&s, 0, 2, durable, 0) == 2,
       "soak: a read of an older write than the last acknowledged fails");
    /* a cut that lost write 2 on sectors 0-1: back to write 1, durable */
    memcpy(disk, durable, sizeof(durable));
    s.n.losses = 0;
    ok(soak_check(&s, 0, 8, disk, 1) == 0 && s.n.volatile_lost == 2 &&
       s.n.kept == 2 && s.n.at_risk == 4,
       "soak: a cut may lose writes that were not durable");
    soak_cut_checked(&s);
    /* write 3 to sector 4, O_DSYNC: durable at once; then a cut that
     * loses it (sector 4 back to zeros) is a loss */
    soak_write_begin(&s, 4, 1, w);
    soak_write_done(&s, 4, 1, 1);
    ok(soak_check(&s, 4, 1, disk + 4 * SOAK_SECTOR_BYTES, 1) == 1 && s.n.losses == 1,
       "soak: a lost durable write after a cut is a loss");
    /* a flush seen after a cut: counted, but the write stays at risk */
    {
        uint64_t flushes = s.n.flushes;

        soak_write_begin(&s, 7, 1, w);
        soak_write_done(&s, 7, 1, 0);
        soak_flush_done(&s, 0);
        ok(s.n.flushes == flushes + 1 && s.ndirty == 1,
           "soak: a flush after a cut is counted and makes nothing durable");
        soak_flush_done(&s, 1);
    }
    /* a flushed write lost the same way */
    soak_write_begin(&s, 5, 1, w);
    soak_write_done(&s, 5, 1, 0);
    soak_flush_done(&s, 1);
    ok(soak_check(&s, 5, 1, disk + 5 * SOAK_SECTOR_BYTES, 1) == 1,
       "soak: a lost flushed write after a cut is a loss");
    /* another job's sector, or this job's sector at another place */
    {
        struct record_id id = { .run = 7, .seq = 1, .job = 2, .offset = (1 << 20) };
        uint8_t x[SOAK_SECTOR_BYTES];
        record_fill(x, sizeof(x), &id);
        ok(soak_check(&s, 0, 1, x, 0) == 1, "soak: another job's write is a loss");
        id.job = 1;
        ok(soak_check(&s, 1, 1, x, 1) == 1, "soak: a write of another sector is a loss");
    }
    fflush(stderr);
    dup2(quiet, 2);
    close(quiet);
    /* discarded: anything up to the last write, or zeros */
    soak_write_begin(&s, 6, 2, w);
    soak_write_done(&s, 6, 2, 0);
    soak_flush_done(&s, 1);
    soak_discard(&s, 6, 2);
    memset(disk + 6 * SOAK_SECTOR_BYTES, 0, 2 * SOAK_SECTOR_BYTES);
    ok(soak_check(&s, 6, 2, disk + 6 * SOAK_SECTOR_BYTES, 0) == 0 &&
       soak_check(&s, 6, 2, w, 1) == 0, "soak: a discarded sector may read zeros or its data");
    soak_slice_free(&s);
}

int main(void)
{
    test_percentiles();
    test_prng();
    test_parse();
    test_record();
    test_pattern();
    test_histogram();
    test_soak();
    printf("1..%d\n", n_run);
    printf("# %d passed, %d failed\n", n_run - n_fail, n_fail);
    return n_fail ? 1 : 0;
}
