/*
 * platter-sim: drive the hw-model device with a synthetic workload or a
 * trace on a virtual clock, and report like fio.  This file runs what the
 * command line (cli.c: the options, the profile, the device) set up: the
 * workload (workload.h, which owns its options, parameters and report
 * lines) with its output files, or --dump-profile, or --version.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime: host CPU time, reported apart */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "pending.h"
#include "platter-version.h"
#include "report.h"
#include "timeline.h"
#include "trace.h"
#include "units.h"
#include "workload.h"

static uint64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Run the workload on `dev` with its output files; its report on stdout. */
static int simulate(const Options *o, SimParams *p, const HwmProfile *prof,
                    HwmDevice *dev, const char *command, uint64_t cpu0,
                    GError **errp)
{
    SimResult r;
    const char *tl_file = opt_text(o, "timeline");
    const char *tl_count = opt_text(o, "timeline-count");
    const char *tl_from = opt_text(o, "timeline-from");
    const char *html = opt_text(o, "html");
    TimelineLesson lesson = { opt_text(o, "html-question"),
                              opt_text(o, "html-notice") };
    g_autoptr(Timeline) tl = NULL;

    if ((tl_file || html || tl_count || tl_from || lesson.question ||
         lesson.notice) &&
        !(tl = timeline_open(tl_file, html, tl_count, tl_from, command,
                             &lesson, errp))) {
        return 2;
    }
    p->timeline = tl;
    Pending out = { 0 };
    if (!pending_open(&out, p->explain > 0, opt_text(o, "trace-out"), errp)) {
        pending_discard(&out);
        return 2;
    }
    p->explain_out = out.explain;
    p->trace_out = out.trace;
    if (p->trace_out) {
        HwmTraceDevice desc = hwm_trace_device(prof, dev);
        trace_write_header(p->trace_out, &desc);
    }
    bool json = opt_flag(o, "json");
    if (!sim_run(dev, p, &r, errp) ||
        (p->ops->verdict && !p->ops->verdict(p, &r, errp)) ||
        (tl && !timeline_render(tl, dev, errp)) ||
        !pending_commit(&out, json ? stderr : stdout, errp) ||
        (tl && !timeline_commit(tl, errp))) {
        pending_discard(&out);
        return 1;
    }
    pending_discard(&out);
    ReportInfo info = {
        .profile = hwm_profile_name(prof),
        .workload = p->ops->name,
        .write_cache = hwm_device_write_cache(dev),
        .fua = hwm_device_fua(dev),
        .queue_depth = hwm_device_queue_depth(dev),
        .host_cpu_ns = cpu_ns() - cpu0,
    };
    if (p->ops->describe) {
        p->ops->describe(p, &info.policy, &info.pattern);
    }
    (json ? report_json : report_human)(stdout, p, &r, &info);
    return 0;
}

/* The profile dir of an installed platter-sim: PLATTER_PROFILE_RELDIR from
 * the binary's own directory (any prefix, DESTDIR or a copied tree); the
 * source tree's when that is not there (a binary in the build dir). */
static char *default_profile_dir(void)
{
    g_autofree char *exe = g_file_read_link("/proc/self/exe", NULL);
    if (exe) {
        g_autofree char *bindir = g_path_get_dirname(exe);
        char *dir = g_build_filename(bindir, PLATTER_PROFILE_RELDIR, NULL);
        if (g_file_test(dir, G_FILE_TEST_IS_DIR)) {
            return dir;
        }
        g_free(dir);
    }
    return g_strdup(PLATTER_PROFILE_DIR);
}

int main(int argc, char **argv)
{
    SimCli c = { 0 };
    g_autofree char *command = timeline_command_line(argc, argv);
    g_autofree char *profile_dir = default_profile_dir();
    GError *err = NULL;
    uint64_t cpu0 = cpu_ns();
    int rc = sim_cli_setup(&c, &argc, &argv, profile_dir, true, &err);

    if (rc == 0 && c.what == CLI_VERSION) {
        printf("platter-sim %s\n", PLATTER_VERSION);
        rc = fflush(stdout) == 0 && !ferror(stdout) ? 0 : 125;
    } else if (rc == 0) {
        if (c.what == CLI_DUMP) {
            g_autofree char *text = hwm_profile_dump(c.prof);
            fputs(text, stdout);
        } else {
            rc = simulate(c.o, &c.p, c.prof, c.dev, command, cpu0, &err);
        }
        /* a report cut short (a full disk, a closed pipe) is not a result */
        if (!err && (fflush(stdout) != 0 || ferror(stdout))) {
            g_set_error(&err, HWM_ERROR, HWM_ERROR_INVALID,
                        "cannot write the output to stdout: %s",
                        g_strerror(errno ? errno : EIO));
        }
    }
    sim_cli_clear(&c);
    if (err) {
        /* one line: a control character quoted from a bad input (a vertical
         * tab, a newline in a profile line) would break it or drive the
         * terminal; printed as '?' */
        for (char *ch = err->message; *ch; ch++) {
            if ((unsigned char)*ch < 0x20 || *ch == 0x7f) {
                *ch = '?';
            }
        }
        fprintf(stderr, "platter-sim: %s\n", err->message);
        g_error_free(err);
        rc = rc ? rc : 1;
    }
    return rc;
}
