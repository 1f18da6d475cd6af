/* powercut-verify: after a power cut, check that every write powercut-write
 * acknowledged is intact.  Given, per job, the last acknowledged sequence
 * number (acknowledgements are in order within a job), it reads every
 * sector of every acknowledged write and judges it (record.h):
 *   raw device: the sector must hold that write or a later write to the
 *               same place (a later write may have landed, acknowledged or
 *               not);
 *   files:      DIR/pc-<job> must hold exactly that record there; with
 *               --slots S (the writer's), only the newest acknowledged
 *               write of each slot is checked, and that or a later write
 *               to the slot passes.
 * Anything else is a loss: an empty sector (never reached the media), a
 * damaged one, an older write's data, or a file too short.
 *
 * Prints one JSON object on stdout: checked writes and sectors, losses and
 * the first few lost writes.  Exit status 0 whatever the verdict (the
 * verdict is data); 1 if the device or files cannot be read, 2 for usage.
 *
 * usage: powercut-verify (--dev DEV [--pattern seq|rand] [--span 100G]
 *                         [--offset 0] [--seed 1] | --dir DIR [--slots S])
 *                        [--bs 4k] [--run R] --acked JOB:SEQ[,JOB:SEQ...]
 * (--acked none: nothing was acknowledged.) */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parse.h"
#include "pattern.h"
#include "platter-argv.h"
#include "record.h"

#define MAX_JOBS 256
#define MAX_REPORTED 16

struct verdict {
    uint64_t writes, sectors, lost;
    unsigned reported;
};

static void usage(void)
{
    fprintf(stderr, "usage: powercut-verify (--dev DEV [--pattern seq|rand] "
            "[--span 100G] [--offset 0] [--seed 1] | --dir DIR [--slots S]) [--bs 4k] "
            "[--run R] --acked JOB:SEQ[,JOB:SEQ...]|none\n");
    exit(2);
}

/* "0:12,3:7" -> last[0] = 12, last[3] = 7 (others stay -1). */
static int parse_acked(const char *s, int64_t last[MAX_JOBS])
{
    char buf[4096], *save = NULL;

    for (int j = 0; j < MAX_JOBS; j++)
        last[j] = -1;
    if (!strcmp(s, "none"))
        return 0;
    if (strlen(s) >= sizeof(buf))
        return -1;
    strcpy(buf, s);
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(t, ':');
        uint64_t job, seq;
        if (!colon)
            return -1;
        *colon = '\0';
        if (parse_u64(t, &job) || parse_u64(colon + 1, &seq) ||
            job >= MAX_JOBS || seq > INT64_MAX)
            return -1;
        last[job] = (int64_t)seq;
    }
    return 0;
}

/* --acked's parser: the text (for the report) and what it says. */
struct acked_arg {
    const char *text;
    int64_t *last;              /* MAX_JOBS of them */
};

static int acked_arg(const char *value, void *dst)
{
    struct acked_arg *a = dst;

    a->text = value;
    return parse_acked(value, a->last);
}

/* Judge the sectors of acknowledged write *want as read into buf (got
 * bytes of it exist); print it as a loss if any sector fails. */
static void judge(struct verdict *v, const struct record_id *want,
                  const uint8_t *buf, uint64_t bs, uint64_t got, int exact)
{
    const char *found = NULL;
    uint64_t bad_sector = 0;

    v->writes++;
    for (uint64_t at = 0; at < bs && !found; at += RECORD_SECTOR_BYTES) {
        struct record_id id;
        uint32_t index;

        v->sectors++;
        bad_sector = at / RECORD_SECTOR_BYTES;
        if (at >= got) {
            found = "missing";
            break;
        }
        switch (record_read_sector(buf + at, &id, &index)) {
        case RECORD_EMPTY:
            found = "empty";
            break;
        case RECORD_DAMAGED:
            found = "damaged";
            break;
        case RECORD_INTACT:
            if (id.run != want->run || id.job != want->job ||
                id.offset != want->offset || index != bad_sector)
                found = "foreign";
            else if (id.seq < want->seq || (exact && id.seq != want->seq))
                found = "stale";
            break;
        }
    }
    if (!found)
        return;
    if (v->lost++ < MAX_REPORTED)
        printf("%s{\"job\":%u,\"seq\":%llu,\"offset\":%llu,\"sector\":%llu,"
               "\"found\":\"%s\"}", v->reported++ ? "," : "", want->job,
               (unsigned long long)want->seq, (unsigned long long)want->offset,
               (unsigned long long)bad_sector, found);
}

int main(int argc, char **argv)
{
    const char *dev = NULL, *dir = NULL, *acked = NULL;
    struct pattern_opts po = PATTERN_OPTS_DEFAULT;
    uint64_t run = 1, slots = 0;
    const char *why;
    static int64_t last[MAX_JOBS];

    struct acked_arg ack = { NULL, last };
    const struct platter_arg args[] = {
        PATTERN_ARGS(&po),
        { "--dev", platter_arg_text, &dev },
        { "--dir", platter_arg_text, &dir },
        { "--run", arg_u64, &run },
        { "--acked", acked_arg, &ack },
        { "--slots", arg_u64, &slots },
    };

    if (platter_argv_parse("powercut-verify", argc, argv, args,
                           sizeof(args) / sizeof(args[0])) != 0)
        usage();
    acked = ack.text;
    if (!dev == !dir || !acked) {
        fprintf(stderr, "powercut-verify: give --acked and exactly one of "
                "--dev and --dir\n");
        return 2;
    }
    if ((why = pattern_opts_check(&po))) {
        fprintf(stderr, "powercut-verify: %s\n", why);
        return 2;
    }
    if (slots && (dev || slots > (1ULL << 30))) {
        fprintf(stderr, "powercut-verify: --slots: files only, at most 2^30\n");
        return 2;
    }
    const uint64_t bs = po.bs;
    for (int j = dev ? 1 : 0; dev && j < MAX_JOBS; j++)
        if (last[j] >= 0) {
            fprintf(stderr, "powercut-verify: a raw-device run has only job 0\n");
            return 2;
        }

    uint8_t *buf = malloc(bs);
    struct verdict v = {0};
    if (!buf) {
        fprintf(stderr, "powercut-verify: out of memory\n");
        return 1;
    }
    /* "run_id", not "run": run-guest adds "run" (how QEMU ran) to a guest
     * result, and a JSON object with a key twice is refused */
    printf("{\"version\":1,\"test\":\"powercut-verify\",\"run_id\":%llu,"
           "\"losses\":[", (unsigned long long)run);
    for (int j = 0; j < MAX_JOBS; j++) {
        struct write_pattern pat;
        char path[4096];
        int fd;

        if (last[j] < 0)
            continue;
        if (dev) {
            snprintf(path, sizeof(path), "%s", dev);
            pattern_start(&pat, &po);
        } else {
            snprintf(path, sizeof(path), "%s/pc-%d", dir, j);
        }
        fd = open(path, O_RDONLY);
        if (fd < 0 && (dev || errno != ENOENT)) {
            fprintf(stderr, "powercut-verify: %s: %s\n", path, strerror(errno));
            return 1;
        }
        /* with slots, only each slot's newest acknowledged write */
        int64_t first = slots && last[j] >= (int64_t)slots ? last[j] - (int64_t)slots + 1 : 0;
        for (int64_t seq = first; seq <= last[j]; seq++) {
            struct record_id want = { .run = run, .seq = (uint64_t)seq,
                                      .job = (uint32_t)j };
            ssize_t got = 0;

            want.offset = dev ? pattern_next(&pat)
                        : (slots ? (uint64_t)seq % slots : (uint64_t)seq) * bs;
            if (fd >= 0) {
                got = pread(fd, buf, bs, (off_t)want.offset);
                if (got < 0) {
                    fprintf(stderr, "powercut-verify: reading %s at %llu: %s\n",
                            path, (unsigned long long)want.offset, strerror(errno));
                    return 1;
                }
            }
            judge(&v, &want, buf, bs, (uint64_t)got, !dev && !slots);
        }
        if (fd >= 0)
            close(fd);
    }
    printf("],\"checked_writes\":%llu,\"checked_sectors\":%llu,"
           "\"lost_writes\":%llu}\n", (unsigned long long)v.writes,
           (unsigned long long)v.sectors, (unsigned long long)v.lost);
    free(buf);
    return 0;
}
