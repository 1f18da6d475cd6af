/* cpu-spin: N threads, each pinned to its own CPU, run a loop of a known
 * instruction count; with --mutex every thread holds one pthread mutex for
 * its whole loop, so the loops run one after the other.  It measures what a
 * vCPU is in virtual time: with per-vCPU time (icount quantum) N threads
 * take one loop's time and N mutex-serialized threads take N times that;
 * under the shared icount clock N busy vCPUs share one vCPU's time.
 *
 * The loop is two instructions per iteration (dec, jnz), so a thread's loop
 * of --iters M takes 2M/ipns ns of its vCPU's own time plus whatever
 * interrupts that vCPU serves meanwhile.
 *
 * With --shared-counter every iteration also increments one counter that
 * all threads share (lock incq): the contended cache line, whose cost a
 * CPU profile's transfer_cycles models.  Three instructions per iteration;
 * the report adds the counter's final value (threads x iters) and the
 * mean ns per increment over all threads (wall_ns / (threads x iters)).
 *
 * usage: cpu-spin [--threads N] [--iters M] [--mutex] [--shared-counter]
 * Prints one JSON object: wall_ns (first loop started to last loop done,
 * lock waits included), loop_ns per thread (its own loop, lock wait excluded), insns per
 * thread, cpus online. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "parse.h"
#include "platter-argv.h"
#include "report.h"

struct spinner {
    pthread_t tid;
    int cpu;                    /* pinned to this CPU, -1: not pinned */
    uint64_t iters;
    pthread_mutex_t *lock;      /* held for the whole loop, or NULL */
    uint64_t *counter;          /* incremented every iteration, or NULL */
    pthread_barrier_t *go;
    int64_t loop_ns;            /* the loop alone */
    int64_t start_ns, done_ns;  /* CLOCK_MONOTONIC at the loop's ends */
    int err;
};

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Exactly 2 * iters instructions: the count the test's arithmetic uses. */
static void spin(uint64_t iters)
{
    if (iters == 0)
        return;
    __asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(iters) : : "cc");
}

/* Exactly 3 * iters instructions, one locked increment of *counter each. */
static void spin_counting(uint64_t iters, uint64_t *counter)
{
    if (iters == 0)
        return;
    __asm__ volatile("1: lock incq %1\n\tdec %0\n\tjnz 1b"
                     : "+r"(iters), "+m"(*counter) : : "cc", "memory");
}

static void *run(void *arg)
{
    struct spinner *s = arg;

    if (s->cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(s->cpu, &set);
        s->err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
    }
    pthread_barrier_wait(s->go);
    if (s->err)
        return NULL;
    if (s->lock)
        pthread_mutex_lock(s->lock);
    int64_t t0 = now_ns();
    if (s->counter)
        spin_counting(s->iters, s->counter);
    else
        spin(s->iters);
    int64_t t1 = now_ns();
    if (s->lock)
        pthread_mutex_unlock(s->lock);
    s->loop_ns = t1 - t0;
    s->start_ns = t0;
    s->done_ns = t1;
    return NULL;
}

static void usage(void)
{
    fprintf(stderr, "usage: cpu-spin [--threads N] [--iters M] [--mutex] [--shared-counter]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    uint64_t threads = 1, iters = 50000000;
    int use_mutex = 0, shared_counter = 0;
    /* its own cache line: nothing else the threads touch shares it */
    static uint64_t counter __attribute__((aligned(64)));

    const struct platter_arg args[] = {
        { "--mutex", NULL, &use_mutex },
        { "--shared-counter", NULL, &shared_counter },
        { "--threads", arg_u64, &threads },
        { "--iters", arg_u64, &iters },
    };

    if (platter_argv_parse("cpu-spin", argc, argv, args,
                           sizeof(args) / sizeof(args[0])) != 0 ||
        threads == 0 || threads > 1024 || iters == 0 ||
        iters > UINT64_MAX / 3 / threads)
        usage();

    long online = sysconf(_SC_NPROCESSORS_ONLN);
    struct spinner *s = calloc(threads, sizeof(*s));
    pthread_barrier_t go;
    pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    if (!s || pthread_barrier_init(&go, NULL, (unsigned)threads + 1) != 0) {
        fprintf(stderr, "cpu-spin: out of memory\n");
        return 1;
    }
    for (uint64_t i = 0; i < threads; i++) {
        /* one thread per CPU while there are CPUs; the main thread waits
         * in the barrier and join, so it costs no CPU time */
        s[i].cpu = (long)i < online ? (int)i : -1;
        s[i].iters = iters;
        s[i].lock = use_mutex ? &lock : NULL;
        s[i].counter = shared_counter ? &counter : NULL;
        s[i].go = &go;
        if (pthread_create(&s[i].tid, NULL, run, &s[i]) != 0) {
            fprintf(stderr, "cpu-spin: cannot create thread\n");
            return 1;
        }
    }
    pthread_barrier_wait(&go);
    int64_t first = INT64_MAX, last = INT64_MIN;
    int err = 0;
    for (uint64_t i = 0; i < threads; i++) {
        pthread_join(s[i].tid, NULL);
        if (s[i].err && !err)
            err = s[i].err;
        if (s[i].start_ns < first)
            first = s[i].start_ns;
        if (s[i].done_ns > last)
            last = s[i].done_ns;
    }
    if (err) {
        fprintf(stderr, "cpu-spin: cannot pin a thread: %s\n", strerror(err));
        return 1;
    }

    report_begin(stdout, "cpu-spin");
    fprintf(stdout, ",\"params\":{\"threads\":%llu,\"iters\":%llu,\"mutex\":%s,"
            "\"shared_counter\":%s}",
            (unsigned long long)threads, (unsigned long long)iters,
            use_mutex ? "true" : "false", shared_counter ? "true" : "false");
    fprintf(stdout, ",\"cpus_online\":%ld,\"insns_per_thread\":%llu",
            online, (unsigned long long)((shared_counter ? 3 : 2) * iters));
    if (shared_counter)
        fprintf(stdout, ",\"counter\":%llu,\"ns_per_increment\":%.3f",
                (unsigned long long)counter,
                (double)(last - first) / (double)(threads * iters));
    fprintf(stdout, ",\"wall_ns\":%lld,\"loop_ns\":[", (long long)(last - first));
    for (uint64_t i = 0; i < threads; i++)
        fprintf(stdout, "%s%lld", i ? "," : "", (long long)s[i].loop_ns);
    fprintf(stdout, "]");
    report_end(stdout);
    free(s);
    return 0;
}
