/* dsync-write: the seed benchmark of "block: skip redundant flush for
 * O_DSYNC direct writes" — a single-threaded pwrite() loop on the raw block
 * device opened O_WRONLY | O_DIRECT | O_DSYNC, 4 KiB writes, sequential or
 * random over a span (default 100 GiB; random offsets aligned to the block
 * size from a seeded deterministic PRNG), for a fixed duration measured on
 * CLOCK_MONOTONIC. Prints one JSON object (see report.h) on stdout:
 * IOPS, latency avg/p50/p99/p99.9 in microseconds and the latency
 * histogram (lat_hist_ns, see report.h).
 *
 * usage: dsync-write --dev /dev/X [--pattern seq|rand] [--bs 4k]
 *                    [--span 100G] [--offset 0] [--runtime 60] [--ios N]
 *                    [--seed 1]
 * --ios N stops after N writes (whichever of --runtime/--ios comes first;
 * --runtime 0 means no time limit) so block-level checks can count exactly. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/fs.h>
#include <time.h>
#include <unistd.h>

#include "parse.h"
#include "pattern.h"
#include "platter-argv.h"
#include "report.h"
#include "stats.h"

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: dsync-write --dev /dev/X [--pattern seq|rand] [--bs 4k] "
            "[--span 100G] [--offset 0] [--runtime 60] [--ios N] [--seed 1]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *dev = NULL;
    struct pattern_opts po = PATTERN_OPTS_DEFAULT;
    uint64_t runtime_s = 60, max_ios = 0;
    const char *why;
    const struct platter_arg args[] = {
        PATTERN_ARGS(&po),
        { "--dev", platter_arg_text, &dev },
        { "--runtime", arg_u64, &runtime_s },
        { "--ios", arg_u64, &max_ios },
    };

    if (platter_argv_parse("dsync-write", argc, argv, args,
                           sizeof(args) / sizeof(args[0])) != 0 || !dev)
        usage();
    if ((why = pattern_opts_check(&po))) {
        fprintf(stderr, "dsync-write: %s\n", why);
        return 2;
    }
    const uint64_t bs = po.bs, span = po.span_bytes, base = po.base_bytes;
    if (runtime_s == 0 && max_ios == 0) {
        fprintf(stderr, "dsync-write: --runtime 0 needs --ios N\n");
        return 2;
    }

    struct blk_dev bd;
    if (blk_dev_open(&bd, dev) != 0)
        return 1;
    int fd = open(dev, O_WRONLY | O_DIRECT | O_DSYNC);
    if (fd < 0) {
        fprintf(stderr, "dsync-write: open %s: %s\n", dev, strerror(errno));
        return 1;
    }
    uint64_t size = 0;
    if (ioctl(fd, BLKGETSIZE64, &size) != 0 || size < base + span) {
        fprintf(stderr, "dsync-write: %s has %llu bytes, the test needs "
                "offset + span = %llu\n", dev, (unsigned long long)size,
                (unsigned long long)(base + span));
        return 1;
    }

    void *buf = aligned_alloc(4096, bs);
    if (!buf) {
        fprintf(stderr, "dsync-write: out of memory\n");
        return 1;
    }
    memset(buf, 0xa5, bs);

    struct write_pattern pat;
    pattern_start(&pat, &po);
    struct lat_samples lat = {0};
    uint64_t ios = 0;
    int64_t start = now_ns(), end = start + (int64_t)runtime_s * 1000000000;

    for (;;) {
        off_t off = (off_t)pattern_next(&pat);
        /* Stamp the block with its offset and sequence number so a later
         * durability check can tell which write it holds. */
        uint64_t stamp[2] = {(uint64_t)off, ios};
        memcpy(buf, stamp, sizeof(stamp));
        int64_t t0 = now_ns();
        ssize_t n = pwrite(fd, buf, bs, off);
        int64_t t1 = now_ns();
        if (n != (ssize_t)bs) {
            fprintf(stderr, "dsync-write: pwrite at %lld: %s\n", (long long)off,
                    n < 0 ? strerror(errno) : "short write");
            return 1;
        }
        if (lat_add(&lat, t1 - t0) < 0) {
            fprintf(stderr, "dsync-write: out of memory for samples\n");
            return 1;
        }
        ios++;
        if (max_ios && ios >= max_ios)
            break;
        if (runtime_s && t1 >= end)
            break;
    }
    int64_t elapsed = now_ns() - start;
    close(fd);

    struct lat_summary s;
    lat_summarize(&lat, &s);
    report_begin(stdout, "dsync-write");
    report_device(stdout, &bd);
    fprintf(stdout, ",\"params\":{\"pattern\":\"%s\",\"bs\":%llu,\"span\":%llu,"
            "\"offset\":%llu,\"runtime_s\":%llu,\"max_ios\":%llu,\"seed\":%llu}",
            po.random ? "rand" : "seq", (unsigned long long)bs,
            (unsigned long long)span, (unsigned long long)base,
            (unsigned long long)runtime_s, (unsigned long long)max_ios,
            (unsigned long long)po.seed);
    fprintf(stdout, ",\"ios\":%llu,\"runtime_ns\":%lld,\"iops\":%.3f",
            (unsigned long long)ios, (long long)elapsed,
            (double)ios * 1e9 / (double)elapsed);
    report_lat(stdout, "lat_us", &s);
    report_hist(stdout, "lat_hist_ns", &lat);
    report_end(stdout);
    lat_free(&lat);
    free(buf);
    return 0;
}
