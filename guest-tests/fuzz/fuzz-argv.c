/* Fuzz target: the guest programs' argument walk (hw-model/common/argv.c)
 * with the parsers they give it (guest-tests/src/parse.c: numbers and
 * sizes; pattern.c: --pattern) and the check of the options every raw-
 * device program shares (PATTERN_ARGS, pattern_opts_check: dsync-write,
 * powercut-write, powercut-verify), in one table shaped like theirs:
 * PATTERN_ARGS, --dev and --dir (text), --run and --ios (numbers),
 * --datasync (a flag).
 *
 * Input: the arguments after the program's name, each ending at a NUL
 * (the last at the end of the input).
 * Checked: the walk succeeds, or fails with exactly one line on stderr,
 * "dsync-write: ...", that holds no control character (a value quoted from
 * argv could break it or drive a terminal); every number and size it took
 * is what parse_u64 / parse_size give for the last value given; options
 * pattern_opts_check accepts give offsets that are multiples of --bs within
 * [--offset, --offset + --span), a range an off_t (int64) holds, so no
 * write or read the programs make wraps to a negative offset. */
#define _GNU_SOURCE /* memfd_create */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "parse.h"
#include "pattern.h"
#include "platter-argv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ARGS 64
#define PROG "dsync-write"

/* stderr into a memfd around the walk: what it printed */
static int capture_begin(int *saved)
{
    int fd = memfd_create("fuzz-argv-stderr", 0);
    fflush(stderr);
    *saved = dup(2);
    if (fd < 0 || *saved < 0 || dup2(fd, 2) < 0) {
        abort();              /* the host, not an input */
    }
    return fd;
}

static size_t capture_end(int fd, int saved, char *buf, size_t cap)
{
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    off_t len = lseek(fd, 0, SEEK_CUR);
    size_t n = len > 0 ? (size_t)len : 0;
    n = n < cap - 1 ? n : cap - 1;
    if (pread(fd, buf, n, 0) != (ssize_t)n) {
        abort();
    }
    buf[n] = '\0';
    close(fd);
    return n;
}

/* the last value given for `name`, or NULL */
static const char *last_value(int argc, char **argv, const char *name,
                              const char *const *flags, size_t n_flags)
{
    const char *v = NULL;
    for (int i = 1; i < argc; i++) {
        int flag = 0;
        for (size_t k = 0; k < n_flags; k++)
            flag |= !strcmp(argv[i], flags[k]);
        if (flag)
            continue;
        if (i + 1 < argc && !strcmp(argv[i], name))
            v = argv[i + 1];
        i++;                  /* every other option takes a value */
    }
    return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *argv[MAX_ARGS + 2] = { (char *)PROG };
    int argc = 1;
    char *copy = malloc(size + 1);

    memcpy(copy, data, size);
    copy[size] = '\0';
    for (size_t at = 0; at <= size && argc <= MAX_ARGS;) {
        argv[argc++] = copy + at;
        at += strlen(copy + at) + 1;
        if (at > size)
            break;
    }
    if (size == 0)
        argc = 1;

    const char *dev = NULL, *dir = NULL;
    struct pattern_opts po = PATTERN_OPTS_DEFAULT;
    uint64_t run = 1, ios = 0;
    int datasync = 0;
    const struct platter_arg args[] = {
        PATTERN_ARGS(&po),
        { "--dev", platter_arg_text, &dev },
        { "--dir", platter_arg_text, &dir },
        { "--run", arg_u64, &run },
        { "--ios", arg_u64, &ios },
        { "--datasync", NULL, &datasync },
    };
    static const char *const flags[] = { "--datasync" };
    int saved;
    char err[4096];
    int fd = capture_begin(&saved);
    int rc = platter_argv_parse(PROG, argc, argv, args,
                                sizeof(args) / sizeof(args[0]));
    size_t n = capture_end(fd, saved, err, sizeof err);

    if (rc != 0) {
        /* one line, PROG's, with no control character but its end */
        if (rc != -1 || n < sizeof PROG + 2 || strncmp(err, PROG ": ", sizeof PROG + 1) ||
            err[n - 1] != '\n' || strchr(err, '\n') != err + n - 1) {
            fprintf(stderr, "fuzz-argv: status %d, stderr '%s'\n", rc, err);
            abort();
        }
        for (size_t i = 0; i + 1 < n; i++) {
            if ((unsigned char)err[i] < 0x20 || err[i] == 0x7f) {
                fprintf(stderr, "fuzz-argv: a control character in '%s'\n", err);
                abort();
            }
        }
        free(copy);
        return 0;
    }
    if (n != 0) {
        abort();              /* success says nothing */
    }
    /* each number is the parse of its last value */
    static const struct { const char *name; int size; } nums[] = {
        { "--bs", 1 }, { "--span", 1 }, { "--offset", 1 }, { "--seed", 0 },
        { "--run", 0 }, { "--ios", 0 },
    };
    const uint64_t got[] = { po.bs, po.span_bytes, po.base_bytes, po.seed, run, ios };
    for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++) {
        const char *v = last_value(argc, argv, nums[k].name, flags, 1);
        uint64_t want;
        if (v && ((nums[k].size ? parse_size(v, &want) : parse_u64(v, &want)) != 0 ||
                  want != got[k])) {
            fprintf(stderr, "fuzz-argv: %s '%s' gave %llu\n", nums[k].name, v,
                    (unsigned long long)got[k]);
            abort();
        }
    }
    if (!pattern_opts_check(&po)) {
        struct write_pattern p;
        pattern_start(&p, &po);
        if (po.span_bytes > (uint64_t)INT64_MAX ||
            po.base_bytes > (uint64_t)INT64_MAX - po.span_bytes) {
            fprintf(stderr, "fuzz-argv: accepted --offset %llu --span %llu: "
                    "past an off_t\n", (unsigned long long)po.base_bytes,
                    (unsigned long long)po.span_bytes);
            abort();
        }
        for (int i = 0; i < 16; i++) {
            uint64_t off = pattern_next(&p);
            if (off < po.base_bytes || off % po.bs ||
                off - po.base_bytes > po.span_bytes - po.bs) {
                abort();
            }
        }
    }
    free(copy);
    return 0;
}
