/* Fuzz target: platter-sim's whole command line up to the run (sim/cli.c:
 * GOption, every option's parser and bounds, the check that each option
 * does something for the workload, the profile, the device made with the
 * drive options, the workload's prepare, which loads a trace, and the
 * outputs kept apart from the inputs), without running a simulation.
 *
 * Input: ARGS, or ARGS "\0\0" FILE.  ARGS are the arguments after
 * "platter-sim", each ending at a NUL (the last at the end of ARGS): what
 * an exec could pass.  An argument "@IN" is a path to FILE (a memfd, a
 * regular file: a profile, a trace); one starting "@/" is that path in the
 * source tree (a committed trace, the profile folder).
 * Checked: setup succeeds, or fails with status 2 and a message that is
 * not empty; a run it accepts has its device and workload; a --dump-profile
 * it accepts dumps text; nothing leaks (LeakSanitizer), nothing crashes,
 * within libFuzzer's time and memory limits. */
#define _GNU_SOURCE /* memfd_create */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ARGS 64

/* FILE in a memfd: its /proc/self/fd path, or NULL (fd -1) without one */
static char *in_file(const uint8_t *data, size_t size, int *fd)
{
    *fd = memfd_create("fuzz-options-in", 0);
    if (*fd < 0) {
        abort();              /* the host, not an input */
    }
    for (size_t done = 0; done < size;) {
        ssize_t n = write(*fd, data + done, size - done);
        if (n <= 0) {
            abort();
        }
        done += (size_t)n;
    }
    return g_strdup_printf("/proc/self/fd/%d", *fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *file = NULL;
    size_t args_len = size, file_len = 0;

    for (size_t i = 0; i + 1 < size; i++) {
        if (data[i] == 0 && data[i + 1] == 0) {
            args_len = i;
            file = data + i + 2;
            file_len = size - i - 2;
            break;
        }
    }
    int fd = -1;
    g_autofree char *in = in_file(file, file ? file_len : 0, &fd);
    g_autoptr(GPtrArray) owned = g_ptr_array_new_with_free_func(g_free);
    g_ptr_array_add(owned, g_strdup("platter-sim"));
    for (size_t at = 0; at < args_len && owned->len < MAX_ARGS;) {
        const char *arg = (const char *)data + at;
        size_t len = strnlen(arg, args_len - at);
        char *a = g_strndup(arg, len);
        if (!strcmp(a, "@IN")) {
            g_free(a);
            a = g_strdup(in);
        } else if (g_str_has_prefix(a, "@/")) {
            char *p = g_strconcat(SOURCE_ROOT, a + 1, NULL);
            g_free(a);
            a = p;
        }
        g_ptr_array_add(owned, a);
        at += len + 1;
    }
    /* GOption takes options out of argv; `owned` keeps them to free */
    int argc = (int)owned->len;
    char **argv = g_new0(char *, owned->len + 1);
    memcpy(argv, owned->pdata, owned->len * sizeof *argv);

    SimCli c = { 0 };
    GError *err = NULL;
    int rc = sim_cli_setup(&c, &argc, &argv, PROFILE_DIR, false, &err);
    if (rc != 0) {
        if (rc != 2 || !err || !err->message[0]) {
            g_printerr("fuzz-options: status %d, %s\n", rc,
                       err ? err->message : "no error");
            abort();
        }
        g_clear_error(&err);
    } else if (err) {
        g_printerr("fuzz-options: succeeded with an error: %s\n",
                   err->message);
        abort();
    } else if (c.what == CLI_RUN && (!c.dev || !c.prof || !c.p.ops)) {
        abort();
    } else if (c.what == CLI_DUMP) {
        g_autofree char *text = hwm_profile_dump(c.prof);
        if (!text || !text[0]) {
            abort();
        }
    }
    sim_cli_clear(&c);
    g_free(argv);
    close(fd);
    return 0;
}
