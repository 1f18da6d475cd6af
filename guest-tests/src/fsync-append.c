/* fsync-append: N threads, each appending bs bytes (default 4 KiB) to its
 * own file on a mounted file system and fsync()ing after every write, for a
 * fixed duration on CLOCK_MONOTONIC: the workload of "xfs: skip the fsync
 * flush when a later flush has completed" (16 jobs of 4k append + fsync).
 * Prints one JSON object on stdout: fsyncs/s ("iops") and fsync latency
 * ("lat_us": avg/p50/p99/p99.9 in microseconds) and the fsync latency
 * histogram (lat_hist_ns, see report.h).
 *
 * usage: fsync-append --dir /mnt [--threads 16] [--bs 4k] [--runtime 10]
 *                     [--datasync] */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "parse.h"
#include "platter-argv.h"
#include "report.h"
#include "stats.h"

struct worker {
    pthread_t tid;
    int fd;
    uint64_t bs;
    int datasync;
    int64_t end_ns;
    pthread_barrier_t *go;
    struct lat_samples lat;
    int err;
};

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void *run(void *arg)
{
    struct worker *w = arg;
    void *buf = malloc(w->bs);
    if (!buf) {
        w->err = ENOMEM;
        pthread_barrier_wait(w->go);
        return NULL;
    }
    memset(buf, 0x5a, w->bs);
    pthread_barrier_wait(w->go);
    for (;;) {
        if (write(w->fd, buf, w->bs) != (ssize_t)w->bs) {
            w->err = errno ? errno : EIO;
            break;
        }
        int64_t t0 = now_ns();
        int r = w->datasync ? fdatasync(w->fd) : fsync(w->fd);
        int64_t t1 = now_ns();
        if (r != 0) {
            w->err = errno;
            break;
        }
        if (lat_add(&w->lat, t1 - t0) < 0) {
            w->err = ENOMEM;
            break;
        }
        if (t1 >= w->end_ns)
            break;
    }
    free(buf);
    return NULL;
}

static void usage(void)
{
    fprintf(stderr, "usage: fsync-append --dir DIR [--threads 16] [--bs 4k] "
                    "[--runtime 10] [--datasync]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *dir = NULL;
    uint64_t threads = 16, bs = 4096, runtime_s = 10;
    int datasync = 0;

    const struct platter_arg args[] = {
        { "--datasync", NULL, &datasync },
        { "--dir", platter_arg_text, &dir },
        { "--threads", arg_u64, &threads },
        { "--bs", arg_size, &bs },
        { "--runtime", arg_u64, &runtime_s },
    };

    if (platter_argv_parse("fsync-append", argc, argv, args,
                           sizeof(args) / sizeof(args[0])) != 0 ||
        !dir || threads == 0 || threads > 1024 || bs == 0 || runtime_s == 0)
        usage();

    struct blk_dev bd;
    if (blk_dev_open(&bd, dir) != 0)
        return 1;
    struct worker *w = calloc(threads, sizeof(*w));
    pthread_barrier_t go;
    if (!w || pthread_barrier_init(&go, NULL, (unsigned)threads + 1) != 0) {
        fprintf(stderr, "fsync-append: out of memory\n");
        return 1;
    }
    for (uint64_t i = 0; i < threads; i++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/append.%llu", dir,
                 (unsigned long long)i);
        w[i].fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
        if (w[i].fd < 0) {
            fprintf(stderr, "fsync-append: %s: %s\n", path, strerror(errno));
            return 1;
        }
    }
    /* Start from a clean state: file creation is not part of the test. */
    sync();
    bd.before.valid = 0;
    blk_stat_read(&bd, &bd.before);

    int64_t start = now_ns();
    for (uint64_t i = 0; i < threads; i++) {
        w[i].bs = bs;
        w[i].datasync = datasync;
        w[i].end_ns = start + (int64_t)runtime_s * 1000000000;
        w[i].go = &go;
        if (pthread_create(&w[i].tid, NULL, run, &w[i]) != 0) {
            fprintf(stderr, "fsync-append: cannot create thread\n");
            return 1;
        }
    }
    pthread_barrier_wait(&go);
    struct lat_samples all = {0};
    int err = 0;
    for (uint64_t i = 0; i < threads; i++) {
        pthread_join(w[i].tid, NULL);
        if (w[i].err && !err)
            err = w[i].err;
        if (lat_merge(&all, &w[i].lat) < 0)
            err = ENOMEM;
        lat_free(&w[i].lat);
        close(w[i].fd);
    }
    int64_t elapsed = now_ns() - start;
    if (err) {
        fprintf(stderr, "fsync-append: worker failed: %s\n", strerror(err));
        return 1;
    }

    struct lat_summary s;
    lat_summarize(&all, &s);
    report_begin(stdout, "fsync-append");
    report_device(stdout, &bd);
    fprintf(stdout, ",\"params\":{\"threads\":%llu,\"bs\":%llu,\"runtime_s\":%llu,"
            "\"sync\":\"%s\"}", (unsigned long long)threads,
            (unsigned long long)bs, (unsigned long long)runtime_s,
            datasync ? "fdatasync" : "fsync");
    fprintf(stdout, ",\"ios\":%llu,\"runtime_ns\":%lld,\"iops\":%.3f",
            (unsigned long long)s.n, (long long)elapsed,
            (double)s.n * 1e9 / (double)elapsed);
    report_lat(stdout, "lat_us", &s);
    report_hist(stdout, "lat_hist_ns", &all);
    report_end(stdout);
    lat_free(&all);
    free(w);
    return 0;
}
