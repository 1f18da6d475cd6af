/* blk-soak: a long mixed workload on the raw test device through power
 * cuts the drive recovers from (hddmodel's power-cut-every-ns), checking
 * every sector it reads against what it was told was durable (soak.h).
 *
 * --jobs threads each own a slice of the device (--slice bytes, slices
 * --stride apart from --offset) and issue one O_DIRECT request at a time,
 * chosen by a per-job PRNG (--seed): reads (40%), writes (35%), O_DSYNC
 * writes (5%), flushes (fdatasync, 12%) and discards (BLKDISCARD, 8%) of 1
 * to --max-sectors sectors at random places in the slice.  Each read is
 * checked at once.  A request failing with EIO (ENODATA on NVMe:
 * cut_errno()) means the drive lost power: the jobs stop, and once every
 * job has stopped (nothing in flight) and the drive is back, the main
 * thread reads back every slice and checks each sector against the
 * durable state; then the jobs go on.  The drive stays off for 100 ms
 * (virtual) after the first request that found it off, so a job that saw
 * the failure has stopped everyone before a later flush could succeed and
 * be taken as covering writes the cut destroyed.  After --requests
 * workload requests every slice is read back and checked once more.
 *
 * The JSON result has the counts and "losses" (0: nothing acknowledged as
 * durable was lost, every read returned what it must).  Exit status 0 with
 * no loss, 1 with a loss, 2 for bad arguments, 3 for an unexpected error.
 *
 * usage: blk-soak --dev DEV [--jobs 4] [--slice 1M] [--stride SLICE]
 *                 [--offset 0] [--requests 100000] [--max-sectors 8]
 *                 [--seed 1] */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <linux/fs.h>
#include <time.h>
#include <unistd.h>

#include "parse.h"
#include "platter-argv.h"
#include "prng.h"
#include "report.h"
#include "soak.h"

/* ---- options: one table ------------------------------------------------- */

struct opts {
    const char *dev;
    uint64_t jobs, slice_bytes, stride_bytes, offset_bytes, requests;
    uint64_t max_sectors, seed;
};

enum kind { K_STR, K_U64, K_SIZE };

static const struct opt {
    const char *name;
    enum kind kind;
    size_t at;                  /* offsetof(struct opts, field) */
    uint64_t lo, hi;            /* bounds of a number */
    const char *help;
} opt_table[] = {
    { "--dev", K_STR, offsetof(struct opts, dev), 0, 0, "the raw test device" },
    { "--jobs", K_U64, offsetof(struct opts, jobs), 1, 64,
      "threads, each with a slice of its own (default 4)" },
    { "--slice", K_SIZE, offsetof(struct opts, slice_bytes), 4096, 1ULL << 34,
      "bytes of each job's slice, a multiple of 4 KiB (default 1M)" },
    { "--stride", K_SIZE, offsetof(struct opts, stride_bytes), 4096, 1ULL << 44,
      "bytes from one slice's start to the next (default: --slice)" },
    { "--offset", K_SIZE, offsetof(struct opts, offset_bytes), 0, 1ULL << 50,
      "bytes: where the first slice starts (default 0)" },
    { "--requests", K_U64, offsetof(struct opts, requests), 1, 1ULL << 40,
      "workload requests of all jobs together (default 100000)" },
    { "--max-sectors", K_U64, offsetof(struct opts, max_sectors), 1, 256,
      "largest request in 512-byte sectors (default 8)" },
    { "--seed", K_U64, offsetof(struct opts, seed), 0, UINT64_MAX,
      "seed of every job's choices, stamped into each sector (default 1)" },
};
#define N_OPTS (sizeof(opt_table) / sizeof(opt_table[0]))

static void usage(void)
{
    fprintf(stderr, "usage: blk-soak --dev DEV [options]\n");
    for (size_t i = 0; i < N_OPTS; i++)
        fprintf(stderr, "  %-14s %s\n", opt_table[i].name, opt_table[i].help);
    exit(2);
}

/* A number option's parser: its table entry's kind and bounds. */
struct bounded {
    const struct opt *t;
    uint64_t *out;
};

static int bounded_arg(const char *v, void *dst)
{
    const struct bounded *b = dst;
    const struct opt *t = b->t;
    uint64_t x = 0;

    if ((t->kind == K_SIZE ? parse_size(v, &x) : parse_u64(v, &x)) != 0 ||
        x < t->lo || x > t->hi) {
        fprintf(stderr, "blk-soak: %s: '%s' is not a %s from %" PRIu64
                " to %" PRIu64 "\n", t->name, v,
                t->kind == K_SIZE ? "size" : "number", t->lo, t->hi);
        return -1;
    }
    *b->out = x;
    return 0;
}

static void parse_opts(struct opts *o, int argc, char **argv)
{
    struct platter_arg args[N_OPTS];
    struct bounded bounds[N_OPTS];

    *o = (struct opts){ .jobs = 4, .slice_bytes = 1 << 20, .requests = 100000,
                        .max_sectors = 8, .seed = 1 };
    for (size_t k = 0; k < N_OPTS; k++) {
        void *field = (char *)o + opt_table[k].at;
        bounds[k] = (struct bounded){ &opt_table[k], field };
        args[k] = opt_table[k].kind == K_STR ?
            (struct platter_arg){ opt_table[k].name, platter_arg_text, field } :
            (struct platter_arg){ opt_table[k].name, bounded_arg, &bounds[k] };
    }
    if (platter_argv_parse("blk-soak", argc, argv, args, N_OPTS) != 0)
        usage();
    if (!o->dev) {
        fprintf(stderr, "blk-soak: --dev is required\n");
        exit(2);
    }
    if (!o->stride_bytes)
        o->stride_bytes = o->slice_bytes;
    if (o->slice_bytes % 4096 || o->stride_bytes % 4096 || o->offset_bytes % 4096) {
        fprintf(stderr, "blk-soak: --slice, --stride and --offset must be "
                "multiples of 4 KiB\n");
        exit(2);
    }
    if (o->stride_bytes < o->slice_bytes) {
        fprintf(stderr, "blk-soak: --stride %" PRIu64 " is less than --slice %"
                PRIu64 ": slices would overlap\n", o->stride_bytes, o->slice_bytes);
        exit(2);
    }
}

/* ---- the jobs and the cuts ----------------------------------------------- */

#define CHECK_CHUNK_BYTES (256u << 10)
/* Longer than the drive's time off (hddmodel's HDD_DOWN_NS, 100 ms). */
#define POWER_WAIT_NS 150000000L

enum { P_READ = 40, P_WRITE = 75, P_DSYNC = 80, P_FLUSH = 92 };  /* else discard */

struct job {
    pthread_t tid;
    int fd, dfd;                /* O_DIRECT; O_DIRECT|O_DSYNC */
    int blk;                    /* a block device (else a test file) */
    struct soak_slice s;
    struct prng rng;
    uint8_t *buf;
    int fatal;                  /* errno of an unexpected failure */
};

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    atomic_int cut;             /* a request failed: everyone stops */
    unsigned parked, active;
    uint64_t phase;             /* bumped when the jobs may go on */
    atomic_uint_fast64_t issued;
    uint64_t limit, max_sectors;
    atomic_uint_fast64_t failed;  /* workload requests failed by a cut */
    uint64_t cuts, check_reads;
} g = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };

/*
 * Is errno what a command failed by a power cut gives?  EIO on virtio-blk
 * and scsi-hd.  On NVMe only a failed flush or discard is EIO: QEMU's
 * controller posts any failed read as Unrecovered Read Error and any failed
 * write as Write Fault, which Linux maps to BLK_STS_MEDIUM, -ENODATA
 * (nvme_error_status()).
 */
static int cut_errno(void)
{
    return errno == EIO || errno == ENODATA;
}

/* 0: done; 1: failed by a power cut; -1: failed otherwise (errno). */
static int io_result(ssize_t r, uint64_t want)
{
    if (r == (ssize_t)want)
        return 0;
    if (r < 0 && cut_errno())
        return 1;
    if (r >= 0)
        errno = EIO;  /* a short transfer on a block device: not a cut */
    return -1;
}

/* io_result() for a call that returns 0 or -1 */
static int call_result(int r)
{
    return r == 0 ? 0 : cut_errno() ? 1 : -1;
}

static void report_cut(void)
{
    pthread_mutex_lock(&g.mu);
    atomic_store(&g.cut, 1);
    pthread_cond_broadcast(&g.cv);
    pthread_mutex_unlock(&g.mu);
}

static void park(void)
{
    pthread_mutex_lock(&g.mu);
    uint64_t ph = g.phase;
    g.parked++;
    pthread_cond_broadcast(&g.cv);
    while (g.phase == ph)
        pthread_cond_wait(&g.cv, &g.mu);
    g.parked--;
    pthread_mutex_unlock(&g.mu);
}

/* One workload request; 0, 1 (a cut) or -1 as io_result(). */
static int one_request(struct job *j)
{
    struct soak_slice *s = &j->s;
    uint64_t r = prng_below(&j->rng, 100);
    uint64_t n = 1 + prng_below(&j->rng, g.max_sectors);
    uint64_t i, bytes;
    off_t off;
    int ret;

    if (n > s->sectors)
        n = s->sectors;
    i = prng_below(&j->rng, s->sectors - n + 1);
    bytes = n * SOAK_SECTOR_BYTES;
    off = (off_t)(s->base_bytes + i * SOAK_SECTOR_BYTES);
    if (r < P_READ) {
        ret = io_result(pread(j->fd, j->buf, bytes, off), bytes);
        if (ret == 0) {
            s->n.reads++;
            soak_check(s, i, n, j->buf, 0);
        }
    } else if (r < P_DSYNC) {
        int dsync = r >= P_WRITE;

        soak_write_begin(s, i, n, j->buf);
        ret = io_result(pwrite(dsync ? j->dfd : j->fd, j->buf, bytes, off), bytes);
        /* durable only if no cut could have come between */
        if (ret == 0)
            soak_write_done(s, i, n, dsync && !atomic_load(&g.cut));
    } else if (r < P_FLUSH) {
        ret = call_result(fdatasync(j->fd));
        /* a flush that completed after a cut covers nothing before it (it
         * still completed: counted, or requests + failed falls short) */
        if (ret == 0)
            soak_flush_done(s, !atomic_load(&g.cut));
    } else {
        uint64_t range[2] = { (uint64_t)off, bytes };

        soak_discard(s, i, n);
        /* a test file on the host: punch a hole instead */
        ret = call_result(j->blk ? ioctl(j->fd, BLKDISCARD, range)
                                 : fallocate(j->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                                             off, (off_t)bytes));
    }
    return ret;
}

static void *run_job(void *arg)
{
    struct job *j = arg;

    for (;;) {
        int ret;

        if (atomic_load(&g.cut)) {
            park();
            continue;
        }
        if (atomic_fetch_add(&g.issued, 1) >= g.limit)
            break;
        ret = one_request(j);
        if (ret > 0) {
            atomic_fetch_add(&g.failed, 1);
            report_cut();
        } else if (ret < 0) {
            j->fatal = errno;
            break;
        }
    }
    pthread_mutex_lock(&g.mu);
    g.active--;
    pthread_cond_broadcast(&g.cv);
    pthread_mutex_unlock(&g.mu);
    return NULL;
}

static void sleep_ns(long ns)
{
    struct timespec t = { ns / 1000000000L, ns % 1000000000L };

    while (clock_nanosleep(CLOCK_MONOTONIC, 0, &t, &t) == EINTR)
        ;
}

/*
 * Read back every slice and check it (after_cut: against the durable
 * state, once the power is back).  A read failed by a cut is a further
 * cut: wait and go on from there in cut mode, as the media is what it was.
 * 0, or -1 on an unexpected error (errno).
 */
static int check_all(struct job *jobs, uint64_t njobs, uint8_t *buf, int after_cut)
{
    for (uint64_t k = 0; k < njobs; k++) {
        struct soak_slice *s = &jobs[k].s;

        for (uint64_t i = 0; i < s->sectors;) {
            uint64_t n = CHECK_CHUNK_BYTES / SOAK_SECTOR_BYTES;
            int ret;

            if (n > s->sectors - i)
                n = s->sectors - i;
            ret = io_result(pread(jobs[0].fd, buf, n * SOAK_SECTOR_BYTES,
                                  (off_t)(s->base_bytes + i * SOAK_SECTOR_BYTES)),
                            n * SOAK_SECTOR_BYTES);
            g.check_reads++;
            if (ret < 0)
                return -1;
            if (ret > 0) {
                g.cuts++;
                sleep_ns(POWER_WAIT_NS);
                if (!after_cut)  /* what was read so far may be gone */
                    return check_all(jobs, njobs, buf, 1);
                continue;
            }
            soak_check(s, i, n, buf, after_cut);
            i += n;
        }
    }
    if (after_cut)
        for (uint64_t k = 0; k < njobs; k++)
            soak_cut_checked(&jobs[k].s);
    return 0;
}

/* The main thread: a check whenever all jobs stopped for a cut. */
static int coordinate(struct job *jobs, uint64_t njobs, uint8_t *buf)
{
    pthread_mutex_lock(&g.mu);
    for (;;) {
        if (atomic_load(&g.cut) && g.parked == g.active) {
            int ret;

            pthread_mutex_unlock(&g.mu);
            g.cuts++;
            sleep_ns(POWER_WAIT_NS);
            ret = check_all(jobs, njobs, buf, 1);
            pthread_mutex_lock(&g.mu);
            if (ret < 0) {
                pthread_mutex_unlock(&g.mu);
                return -1;
            }
            atomic_store(&g.cut, 0);
            g.phase++;
            pthread_cond_broadcast(&g.cv);
            continue;
        }
        if (!g.active)
            break;
        pthread_cond_wait(&g.cv, &g.mu);
    }
    pthread_mutex_unlock(&g.mu);
    return 0;
}

static int dev_bytes(int fd, uint64_t *size, int *blk)
{
    struct stat st;

    if (fstat(fd, &st) != 0)
        return -1;
    *blk = S_ISBLK(st.st_mode);
    if (*blk)
        return ioctl(fd, BLKGETSIZE64, size);
    *size = (uint64_t)st.st_size;
    return 0;
}

int main(int argc, char **argv)
{
    struct opts o;
    struct job *jobs = NULL;
    struct blk_dev bd;
    struct soak_counts t = { 0 };
    struct timespec t0, t1;
    uint64_t size = 0, last_end;
    uint8_t *buf = NULL;
    int status = 0;

    parse_opts(&o, argc, argv);
    last_end = o.offset_bytes + (o.jobs - 1) * o.stride_bytes + o.slice_bytes;
    jobs = calloc(o.jobs, sizeof(*jobs));
    buf = aligned_alloc(4096, CHECK_CHUNK_BYTES);
    if (!jobs || !buf) {
        fprintf(stderr, "blk-soak: out of memory\n");
        status = 3;
        goto out;
    }
    for (uint64_t k = 0; k < o.jobs; k++)
        jobs[k].fd = jobs[k].dfd = -1;
    if (blk_dev_open(&bd, o.dev) != 0) {
        status = 3;
        goto out;
    }
    g.limit = o.requests;
    g.max_sectors = o.max_sectors;
    for (uint64_t k = 0; k < o.jobs; k++) {
        struct job *j = &jobs[k];

        j->fd = open(o.dev, O_RDWR | O_DIRECT);
        j->dfd = open(o.dev, O_RDWR | O_DIRECT | O_DSYNC);
        if (j->fd < 0 || j->dfd < 0 || dev_bytes(j->fd, &size, &j->blk) != 0) {
            fprintf(stderr, "blk-soak: %s: %s\n", o.dev, strerror(errno));
            status = 3;
            goto out;
        }
        if (size < last_end) {
            fprintf(stderr, "blk-soak: %s has %" PRIu64 " bytes, the slices "
                    "need %" PRIu64 "\n", o.dev, size, last_end);
            status = 2;
            goto out;
        }
        j->buf = aligned_alloc(4096, o.max_sectors * SOAK_SECTOR_BYTES);
        if (!j->buf || soak_slice_init(&j->s, o.seed, (uint32_t)k,
                                       o.offset_bytes + k * o.stride_bytes,
                                       o.slice_bytes / SOAK_SECTOR_BYTES) != 0) {
            fprintf(stderr, "blk-soak: out of memory\n");
            status = 3;
            goto out;
        }
        prng_seed(&j->rng, o.seed * 0x9e3779b97f4a7c15ULL + k);
    }
    g.active = (unsigned)o.jobs;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (uint64_t k = 0; k < o.jobs; k++)
        if (pthread_create(&jobs[k].tid, NULL, run_job, &jobs[k]) != 0) {
            fprintf(stderr, "blk-soak: cannot start job %" PRIu64 "\n", k);
            return 3;
        }
    if (coordinate(jobs, o.jobs, buf) != 0) {
        fprintf(stderr, "blk-soak: checking after a cut: %s\n", strerror(errno));
        return 3;
    }
    for (uint64_t k = 0; k < o.jobs; k++) {
        pthread_join(jobs[k].tid, NULL);
        if (jobs[k].fatal) {
            fprintf(stderr, "blk-soak: job %" PRIu64 ": %s\n", k,
                    strerror(jobs[k].fatal));
            status = 3;
        }
    }
    if (!status && check_all(jobs, o.jobs, buf, 0) != 0) {
        fprintf(stderr, "blk-soak: final check: %s\n", strerror(errno));
        status = 3;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    for (uint64_t k = 0; k < o.jobs; k++) {
        const struct soak_counts *c = &jobs[k].s.n;

        t.reads += c->reads;
        t.writes += c->writes;
        t.dsync_writes += c->dsync_writes;
        t.flushes += c->flushes;
        t.discards += c->discards;
        t.read_sectors += c->read_sectors;
        t.cut_sectors += c->cut_sectors;
        t.at_risk += c->at_risk;
        t.kept += c->kept;
        t.volatile_lost += c->volatile_lost;
        t.losses += c->losses;
    }
    if (!status && t.losses)
        status = 1;
    report_begin(stdout, "soak");
    report_device(stdout, &bd);
    printf(",\"seed\":%" PRIu64 ",\"jobs\":%" PRIu64 ",\"slice_bytes\":%" PRIu64
           ",\"stride_bytes\":%" PRIu64 ",\"requests\":%" PRIu64
           ",\"reads\":%" PRIu64 ",\"writes\":%" PRIu64 ",\"dsync_writes\":%" PRIu64
           ",\"flushes\":%" PRIu64 ",\"discards\":%" PRIu64
           ",\"failed\":%" PRIu64 ",\"check_reads\":%" PRIu64 ",\"cuts\":%" PRIu64
           ",\"read_sectors_checked\":%" PRIu64 ",\"cut_sectors_checked\":%" PRIu64
           ",\"at_risk_sectors\":%" PRIu64 ",\"kept_sectors\":%" PRIu64
           ",\"volatile_lost_sectors\":%" PRIu64 ",\"losses\":%" PRIu64
           ",\"elapsed_ns\":%" PRId64 ",\"status\":%d",
           o.seed, o.jobs, o.slice_bytes, o.stride_bytes,
           t.reads + t.writes + t.flushes + t.discards, t.reads, t.writes,
           t.dsync_writes, t.flushes, t.discards, (uint64_t)atomic_load(&g.failed),
           g.check_reads, g.cuts,
           t.read_sectors, t.cut_sectors, t.at_risk, t.kept, t.volatile_lost,
           t.losses,
           (int64_t)(t1.tv_sec - t0.tv_sec) * 1000000000 + (t1.tv_nsec - t0.tv_nsec),
           status);
    report_end(stdout);
out:
    /* (a failure once the jobs run ends the process where it happens) */
    for (uint64_t k = 0; jobs && k < o.jobs; k++) {
        if (jobs[k].fd >= 0)
            close(jobs[k].fd);
        if (jobs[k].dfd >= 0)
            close(jobs[k].dfd);
        free(jobs[k].buf);
        soak_slice_free(&jobs[k].s);
    }
    free(jobs);
    free(buf);
    return status;
}
