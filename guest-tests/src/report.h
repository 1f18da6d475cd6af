/* The versioned JSON result every guest program prints on stdout:
 *   {"version":1, "test":..., "kernel":"<uname -r> | <\/proc/version>",
 *    "device":{...queue attrs, stat deltas...}, ...test fields..., }
 * Kept small and flat so the host side can parse it with anything. */
#ifndef PLATTER_REPORT_H
#define PLATTER_REPORT_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "stats.h"

#define REPORT_VERSION 1

/* Counters from /sys/dev/block/M:m/stat that the block-level checks need. */
struct blk_stat {
    uint64_t writes, write_sectors, flushes;
    int valid;
};

/* A block device, identified by dev_t, with its sysfs directory. */
struct blk_dev {
    dev_t dev;
    char path[256];         /* /dev/... or the mounted directory */
    char sysfs[128];        /* /sys/dev/block/M:m */
    struct blk_stat before;
};

/* Fill d for a block device node (st_rdev) or a file on a mounted file
 * system (st_dev). Returns 0, or -1 with a message on stderr. */
int blk_dev_open(struct blk_dev *d, const char *path);
void blk_stat_read(const struct blk_dev *d, struct blk_stat *st);

void json_str(FILE *f, const char *s);
/* Print '{"version":1,"test":"<test>","kernel":"..."' (object left open). */
void report_begin(FILE *f, const char *test);
/* Print ',"device":{...}' with queue attributes and the stat deltas since
 * d->before. */
void report_device(FILE *f, const struct blk_dev *d);
/* Print ',"<key>":{"avg":..,"p50":..,"p99":..,"p99.9":..,"min":..,"max":..}'
 * in microseconds. */
void report_lat(FILE *f, const char *key, const struct lat_summary *s);
/* Print ',"<key>":[[ns,count],...]': the samples (sorted, as
 * lat_summarize leaves them) by lat_bucket(), each bucket as its largest
 * sample in ns and its count, ascending.  The counts add up to s->n. */
void report_hist(FILE *f, const char *key, const struct lat_samples *s);
/* Close the object and end the line. */
void report_end(FILE *f);

#endif
