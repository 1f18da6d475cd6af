/* powercut-write: the writer of a power-cut run.  It writes self-describing
 * records (record.h) and, each time the kernel says a write is durable,
 * prints "PLATTER-ACK <job> <seq>" on stderr (the serial console), one
 * write(2) per line.  It runs until a write or sync fails, which is what
 * happens when the modeled drive loses power; the host then holds every
 * acknowledgement that left the guest before the cut, and
 * powercut-verify checks them against what the media kept.
 *
 * Two shapes, matching the two patch series:
 *   --dev DEV   O_WRONLY|O_DIRECT|O_DSYNC pwrite()s of --bs bytes to the raw
 *               device, sequential or random over --span (as dsync-write);
 *               acknowledged when pwrite() returns.  Job 0.
 *   --dir DIR   --threads N, each appending --bs records to DIR/pc-<job>
 *               with write() + fsync(); acknowledged when fsync() returns.
 *               With --slots S, record seq goes to slot seq % S of the
 *               file with pwrite() + fdatasync(): after the first S, each
 *               write overwrites allocated blocks, and fdatasync has no
 *               metadata to log, so only the data device's cache flush
 *               makes it durable (the path the xfs series changes).
 *
 * usage: powercut-write (--dev DEV [--pattern seq|rand] [--span 100G]
 *                        [--offset 0] [--seed 1] | --dir DIR [--threads 16]
 *                        [--slots S])
 *                       [--bs 4k] [--run R] [--ios N]
 * --ios N stops each job after N acknowledged writes (0: until an error),
 * --run R is stamped into every record (the campaign's seed for this cut). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <linux/fs.h>
#include <unistd.h>

#include "parse.h"
#include "pattern.h"
#include "platter-argv.h"
#include "record.h"

struct job {
    pthread_t tid;
    uint32_t id;
    int fd;
    uint64_t bs, run, max_ios;
    uint64_t slots;              /* files: records wrap here; 0: append */
    struct write_pattern *pat;   /* raw device; NULL: append to fd */
    int err;
};

static void ack(uint32_t job, uint64_t seq)
{
    char line[64];
    int n = snprintf(line, sizeof(line), "PLATTER-ACK %u %llu\n", job,
                     (unsigned long long)seq);
    /* One write per line keeps lines whole on the console; a lost line
     * only makes the check weaker, never wrong. */
    if (write(2, line, (size_t)n) < 0)
        return;
}

static void *run_job(void *arg)
{
    struct job *j = arg;
    uint8_t *buf = aligned_alloc(4096, j->bs);

    if (!buf) {
        j->err = ENOMEM;
        return NULL;
    }
    for (uint64_t seq = 0; !j->max_ios || seq < j->max_ios; seq++) {
        struct record_id id = { .run = j->run, .seq = seq, .job = j->id };
        ssize_t n;

        id.offset = j->pat ? pattern_next(j->pat)
                  : (j->slots ? seq % j->slots : seq) * j->bs;
        record_fill(buf, j->bs, &id);
        n = j->pat || j->slots ? pwrite(j->fd, buf, j->bs, (off_t)id.offset)
                               : write(j->fd, buf, j->bs);
        if (n != (ssize_t)j->bs) {
            j->err = n < 0 ? errno : EIO;
            break;
        }
        if (!j->pat && (j->slots ? fdatasync(j->fd) : fsync(j->fd)) != 0) {
            j->err = errno;
            break;
        }
        ack(j->id, seq);
    }
    free(buf);
    return NULL;
}

static void usage(void)
{
    fprintf(stderr, "usage: powercut-write (--dev DEV [--pattern seq|rand] "
            "[--span 100G] [--offset 0] [--seed 1] | --dir DIR [--threads 16] "
            "[--slots S]) [--bs 4k] [--run R] [--ios N]\n");
    exit(2);
}

/* The device's (or test file's) size in bytes. */
static int dev_bytes(int fd, uint64_t *size)
{
    struct stat st;

    if (fstat(fd, &st) != 0)
        return -1;
    if (S_ISBLK(st.st_mode))
        return ioctl(fd, BLKGETSIZE64, size);
    *size = (uint64_t)st.st_size;
    return 0;
}

int main(int argc, char **argv)
{
    const char *dev = NULL, *dir = NULL;
    struct pattern_opts po = PATTERN_OPTS_DEFAULT;
    uint64_t run = 1;
    const char *why;
    uint64_t threads = 16, max_ios = 0, slots = 0;

    const struct platter_arg args[] = {
        PATTERN_ARGS(&po),
        { "--dev", platter_arg_text, &dev },
        { "--dir", platter_arg_text, &dir },
        { "--run", arg_u64, &run },
        { "--threads", arg_u64, &threads },
        { "--ios", arg_u64, &max_ios },
        { "--slots", arg_u64, &slots },
    };

    if (platter_argv_parse("powercut-write", argc, argv, args,
                           sizeof(args) / sizeof(args[0])) != 0)
        usage();
    if (threads == 0 || threads > 256) {
        fprintf(stderr, "powercut-write: --threads: %llu is not from 1 to "
                "256\n", (unsigned long long)threads);
        return 2;
    }
    if (!dev == !dir) {
        fprintf(stderr, "powercut-write: give exactly one of --dev and --dir\n");
        return 2;
    }
    if (slots && (dev || slots > (1ULL << 30))) {
        fprintf(stderr, "powercut-write: --slots: files only, at most 2^30\n");
        return 2;
    }
    if ((why = pattern_opts_check(&po))) {
        fprintf(stderr, "powercut-write: %s\n", why);
        return 2;
    }
    const uint64_t bs = po.bs;

    struct write_pattern pat;
    struct job *jobs;
    uint64_t njobs = dev ? 1 : threads;
    int status = 0;

    jobs = calloc(njobs, sizeof(*jobs));
    if (!jobs) {
        fprintf(stderr, "powercut-write: out of memory\n");
        return 1;
    }
    for (uint64_t k = 0; k < njobs; k++) {
        struct job *j = &jobs[k];
        char path[4096];

        j->id = (uint32_t)k;
        j->bs = bs;
        j->run = run;
        j->max_ios = max_ios;
        j->slots = slots;
        if (dev) {
            uint64_t size = 0;

            j->fd = open(dev, O_WRONLY | O_DIRECT | O_DSYNC);
            if (j->fd < 0 && errno == EINVAL)  /* a test file on tmpfs */
                j->fd = open(dev, O_WRONLY | O_DSYNC);
            if (j->fd < 0 || dev_bytes(j->fd, &size) != 0) {
                fprintf(stderr, "powercut-write: %s: %s\n", dev, strerror(errno));
                return 1;
            }
            if (size < po.base_bytes + po.span_bytes) {
                fprintf(stderr, "powercut-write: %s has %llu bytes, the run "
                        "needs --offset + --span = %llu\n", dev,
                        (unsigned long long)size,
                        (unsigned long long)(po.base_bytes + po.span_bytes));
                return 1;
            }
            pattern_start(&pat, &po);
            j->pat = &pat;
        } else {
            snprintf(path, sizeof(path), "%s/pc-%u", dir, j->id);
            j->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | (slots ? 0 : O_APPEND),
                         0644);
            if (j->fd < 0) {
                fprintf(stderr, "powercut-write: %s: %s\n", path, strerror(errno));
                return 1;
            }
        }
    }
    if (dir) {
        /* The files must exist after a cut, or a verifier could not tell
         * "never created" from "lost". */
        int dfd = open(dir, O_RDONLY | O_DIRECTORY);
        if (dfd < 0 || fsync(dfd) != 0) {
            fprintf(stderr, "powercut-write: syncing %s: %s\n", dir, strerror(errno));
            return 1;
        }
        close(dfd);
    }
    fprintf(stderr, "PLATTER-WRITING\n");
    for (uint64_t k = 0; k < njobs; k++)
        if (pthread_create(&jobs[k].tid, NULL, run_job, &jobs[k]) != 0) {
            fprintf(stderr, "powercut-write: cannot start job %llu\n",
                    (unsigned long long)k);
            return 1;
        }
    for (uint64_t k = 0; k < njobs; k++) {
        pthread_join(jobs[k].tid, NULL);
        if (jobs[k].err) {
            fprintf(stderr, "powercut-write: job %llu: %s\n",
                    (unsigned long long)k, strerror(jobs[k].err));
            status = 1;
        }
    }
    printf("{\"version\":1,\"test\":\"powercut-write\",\"jobs\":%llu,"
           "\"ios_per_job\":%llu,\"status\":%d}\n", (unsigned long long)njobs,
           (unsigned long long)max_ios, status);
    free(jobs);
    return status;
}
