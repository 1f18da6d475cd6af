/*
 * platter-sim's command line up to the run (cli.h): the command line's own
 * options and the device's, the check that each option given does
 * something for the run, the device and the workload's input.
 */
#include <sys/stat.h>
#include <string.h>

#include "cli.h"
#include "units.h"

/* The command line's own options and the device's; help_rank: options.h. */
static const OptSpec main_options[] = {
    /* a table: `duplicates` pairs its rows with the other OptSpec
     * tables' by shape; they are data, one entry per option */
    { "profile", OPT_FILE, OPT_SCOPE_ANY, "NAME|FILE",
      "drive profile: a NAME in the profile dir or a FILE",
      10, OPT_NO_NUMBER },
    { "profile-dir", OPT_FILE, OPT_SCOPE_ANY, "DIR",
      "where profile NAMEs are looked up (env PLATTER_PROFILE_DIR)",
      20, OPT_NO_NUMBER },
    { "version", OPT_FLAG, OPT_SCOPE_ANY, NULL,
      "print platter's version (git describe, or the release) and exit",
      25, OPT_NO_NUMBER },
    { "dump-profile", OPT_FLAG, OPT_SCOPE_ANY, NULL,
      "print the profile with every default filled in, then exit",
      30, OPT_NO_NUMBER },
    { "workload", OPT_TEXT, OPT_SCOPE_RUN, "NAME",
      "dsync | fsync-append | replay | fio (default dsync)",
      40, OPT_NO_NUMBER },
    { "trace-out", OPT_FILE, OPT_SCOPE_RUN, "FILE",
      "write every device command as a platter-trace v1 line",
      170, OPT_NO_NUMBER },
    { "write-cache", OPT_TEXT, OPT_SCOPE_RUN, "on|off",
      "override the profile's volatile write cache", 190, OPT_NO_NUMBER },
    { "fua", OPT_TEXT, OPT_SCOPE_RUN, "on|off",
      "override the profile's native FUA", 200, OPT_NO_NUMBER },
    /* 0: the profile's */
    { "queue-depth", OPT_TEXT, OPT_SCOPE_RUN, "N",
      "override the profile's queue depth", 210, OPT_COUNT(1, 65536), 0 },
    { "queue-policy", OPT_TEXT, OPT_SCOPE_RUN, "fifo|sptf",
      "override the profile's command order", 220, OPT_NO_NUMBER },
    { "json", OPT_FLAG, OPT_SCOPE_RUN, NULL,
      "one versioned JSON object on stdout", 320, OPT_NO_NUMBER },
    { "explain", OPT_TEXT, OPT_SCOPE_RUN, "N",
      "print the first N device commands as a timeline", 330,
      OPT_COUNT(0, UINT32_MAX), 0 },
    { "explain-format", OPT_TEXT, OPT_SCOPE_RUN, "wide|narrow",
      "--explain's table: wide (default: byte offsets, exact ns) or narrow "
      "(within 100 columns: GiB offsets, 0.1 us, short notes)", 335,
      OPT_NO_NUMBER },
    { "timeline", OPT_FILE, OPT_SCOPE_RUN, "FILE.svg",
      "draw device commands and the platter's angle as an SVG picture",
      340, OPT_NO_NUMBER },
    { "timeline-count", OPT_TEXT, OPT_SCOPE_RUN, "N",
      "--timeline: commands drawn (default 50, at most 5000)",
      350, OPT_NO_NUMBER },
    { "timeline-from", OPT_TEXT, OPT_SCOPE_RUN, "SECONDS",
      "--timeline: start at the first command submitted at or after "
      "this virtual time (default 0)", 360, OPT_NO_NUMBER },
    { "html", OPT_FILE, OPT_SCOPE_RUN, "FILE.html",
      "the --timeline commands as a self-contained HTML page that "
      "animates the drive, its queue and cache", 365, OPT_NO_NUMBER },
    { "html-question", OPT_TEXT, OPT_SCOPE_RUN, "TEXT",
      "--html: the question the page answers, shown first", 366,
      OPT_NO_NUMBER },
    { "html-notice", OPT_TEXT, OPT_SCOPE_RUN, "TEXT",
      "--html: what to notice on it, shown last", 367, OPT_NO_NUMBER },
};

/* Every option table: the command line's, the shared ones, each
 * workload's. */
static Options *options_all(void)
{
    size_t n_wl, n = 0;
    const WorkloadOps *const *wl = sim_workloads(&n_wl);
    const OptSpec *tables[2 + n_wl];
    size_t lens[2 + n_wl];

    tables[n] = main_options;
    lens[n++] = G_N_ELEMENTS(main_options);
    tables[n] = sim_shared_options(&lens[n]);
    n++;
    for (size_t i = 0; i < n_wl; i++, n++) {
        tables[n] = wl[i]->options;
        lens[n] = wl[i]->n_options;
    }
    return options_new(tables, lens, n);
}

/* The workloads' names, joined by `sep`, of those that take `spec` (NULL:
 * all). */
static char *workload_names(const OptSpec *spec, const char *sep)
{
    size_t n;
    const WorkloadOps *const *wl = sim_workloads(&n);
    g_autoptr(GString) s = g_string_new(NULL);

    for (size_t i = 0; i < n; i++) {
        if (!spec || sim_workload_takes(wl[i], spec)) {
            g_string_append_printf(s, "%s%s", s->len ? sep : "", wl[i]->name);
        }
    }
    return g_string_free(g_steal_pointer(&s), FALSE);
}

typedef struct {
    const WorkloadOps *w;     /* NULL: --dump-profile */
    const char *mode;         /* in the message */
} Scope;

/* An option given that does nothing for the run is an error. */
static bool in_scope(const OptSpec *spec, void *ctx, GError **errp)
{
    const Scope *sc = ctx;
    bool applies = spec->scope == OPT_SCOPE_ANY ||
                   (sc->w && (spec->scope == OPT_SCOPE_RUN ||
                              sim_workload_takes(sc->w, spec)));
    if (applies) {
        return true;
    }
    g_autofree char *to = workload_names(
        spec->scope == OPT_SCOPE_RUN ? NULL : spec, ", ");
    return opt_bad(errp, "--%s does nothing with %s (it applies to "
                   "--workload %s)", spec->name, sc->mode, to);
}

static bool on_off(const Options *o, const char *name, HwmTristate *out,
                   GError **errp)
{
    const char *v = opt_text(o, name);

    if (!v) {
        *out = HWM_TRISTATE_PROFILE;
    } else if (!strcmp(v, "on")) {
        *out = HWM_ON;
    } else if (!strcmp(v, "off")) {
        *out = HWM_OFF;
    } else {
        return opt_bad(errp, "--%s: expected on or off, got '%s'", name, v);
    }
    return true;
}

/* --write-cache, --fua, --queue-depth and --queue-policy: the profile's
 * unless given. */
static bool device_config(const Options *o, HwmConfig *cfg, GError **errp)
{
    const char *policy = opt_text(o, "queue-policy");
    uint64_t v;

    memset(cfg, 0, sizeof *cfg);
    if (!on_off(o, "write-cache", &cfg->write_cache, errp) ||
        !on_off(o, "fua", &cfg->fua, errp) ||
        !opt_number(o, "queue-depth", &v, errp)) {
        return false;
    }
    cfg->queue_depth = (uint32_t)v;
    /* the page draws the cache filling and draining: every write-back,
     * also of data that was durable when acknowledged */
    cfg->home_events = opt_text(o, "html") != NULL;
    if (policy && !strcmp(policy, "fifo")) {
        cfg->policy = HWM_POLICY_FIFO;
    } else if (policy && !strcmp(policy, "sptf")) {
        cfg->policy = HWM_POLICY_SPTF;
    } else if (policy) {
        return opt_bad(errp, "--queue-policy: unknown '%s' (fifo, sptf)",
                       policy);
    }
    return true;
}

static bool build_params(const Options *o, SimParams *p, HwmConfig *cfg,
                         GError **errp)
{
    uint64_t explain;

    memset(p, 0, sizeof *p);
    const char *workload = opt_text(o, "workload");
    workload = workload ? workload : "dsync";
    if (!(p->ops = sim_workload(workload))) {
        g_autofree char *names = workload_names(NULL, ", ");
        return opt_bad(errp, "--workload: unknown '%s' (%s)", workload,
                       names);
    }
    g_autofree char *mode = g_strdup_printf("--workload %s", workload);
    Scope sc = { p->ops, mode };
    if (!options_each_given(o, in_scope, &sc, errp) ||
        !sim_shape_params(o, p, errp) ||
        !p->ops->configure(o, p, errp) ||
        !opt_number(o, "explain", &explain, errp)) {
        return false;
    }
    p->explain = (uint32_t)explain;
    const char *format = opt_text(o, "explain-format");
    if (format && strcmp(format, "wide") != 0 && strcmp(format, "narrow") != 0) {
        return opt_bad(errp, "--explain-format: unknown '%s' (wide, narrow)",
                       format);
    }
    if (format && !opt_text(o, "explain")) {
        return opt_bad(errp, "--explain-format goes with --explain N "
                       "(it formats that table)");
    }
    p->explain_narrow = format && !strcmp(format, "narrow");
    return device_config(o, cfg, errp);
}

static void free_params(SimParams *p)
{
    if (p->ops && p->own) {
        (p->ops->free_own ? p->ops->free_own : g_free)(p->own);
    }
}

/* a and b name one file: the same inode, or (when one does not exist
 * yet) the same name */
static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;

    if (!a || !b) {
        return false;
    }
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0) {
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    }
    return strcmp(a, b) == 0;
}

/* An output never overwrites an input (--trace, --profile) or another
 * output (issue 27): a trace recorded over the one it replays replaced
 * the input, and --timeline over --trace-out kept only one of them.  The
 * profile is the file it was read from (issue 39: a profile given by NAME
 * with --profile-dir or PLATTER_PROFILE_DIR was overwritten). */
static bool outputs_apart(const Options *o, const HwmProfile *prof, GError **errp)
{
    static const char *const outs[] = { "trace-out", "timeline", "html" };
    static const char *const ins[] = { "trace", "profile" };

    for (size_t i = 0; i < G_N_ELEMENTS(outs); i++) {
        const char *out = opt_text(o, outs[i]);
        /* the inputs, then the outputs named before this one */
        for (size_t j = 0; j < G_N_ELEMENTS(ins) + i; j++) {
            const char *other = j < G_N_ELEMENTS(ins) ? ins[j]
                                                      : outs[j - G_N_ELEMENTS(ins)];
            if (same_file(out, opt_text(o, other))) {
                return opt_bad(errp, "--%s: %s is also --%s: an output never "
                               "overwrites an input or another output",
                               outs[i], out, other);
            }
        }
        if (same_file(out, hwm_profile_source(prof))) {
            return opt_bad(errp, "--%s: %s is the file of --profile %s: an output "
                           "never overwrites an input", outs[i], out,
                           opt_text(o, "profile"));
        }
        /* (issue 39's outputs family: --html onto the running binary
         * replaced platter-sim) */
        if (same_file(out, "/proc/self/exe")) {
            return opt_bad(errp, "--%s: %s is platter-sim itself: an output never "
                           "overwrites a program", outs[i], out);
        }
    }
    return true;
}

/* The profile, and what --dump-profile or the run needs of it. */
static int setup_profile(SimCli *c, const char *profile_dir, GError **errp)
{
    const Options *o = c->o;
    const char *profile = opt_text(o, "profile");
    const char *dir = opt_text(o, "profile-dir");
    const char *env_dir = g_getenv("PLATTER_PROFILE_DIR");
    HwmConfig cfg;

    dir = dir ? dir : env_dir ? env_dir : profile_dir;
    if (!profile) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID,
                    "--profile is required (a name from %s, or a file)", dir);
        return 2;
    }
    /* a file is read as it is: a --profile-dir given with one would be
     * silently unused (issue 39) */
    if (opt_text(o, "profile-dir") &&
        (strchr(profile, '/') || g_str_has_suffix(profile, ".profile"))) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID,
                    "--profile-dir looks up a profile NAME; --profile %s is a "
                    "file, read as it is", profile);
        return 2;
    }
    if (!(c->prof = hwm_profile_load(profile, dir, errp))) {
        return 2;
    }
    if (opt_flag(o, "dump-profile")) {
        Scope dump = { NULL, "--dump-profile" };
        c->what = CLI_DUMP;
        /* a profile no device can be made from (not a plausible geometry)
         * is no profile: made here with the drive options given, as a run
         * would make it */
        if (!options_each_given(o, in_scope, &dump, errp) ||
            !device_config(o, &cfg, errp)) {
            return 2;
        }
        g_autoptr(HwmDevice) probe = hwm_device_new(c->prof, &cfg, errp);
        return probe ? 0 : 2;
    }
    c->what = CLI_RUN;
    if (!build_params(o, &c->p, &cfg, errp) ||
        !(c->dev = hwm_device_new(c->prof, &cfg, errp)) ||
        (c->p.ops->prepare &&
         !c->p.ops->prepare(&c->p, c->prof, c->dev, errp)) ||
        !outputs_apart(o, c->prof, errp)) {
        return 2;
    }
    return 0;
}

/* GLib converts option values from the C locale's character set (ASCII:
 * platter-sim never calls setlocale, so its numbers print the same
 * everywhere) and says only "Invalid byte sequence in conversion input":
 * name the word */
static void name_unconvertible(char **words, const GError *err, GError **errp)
{
    for (int i = 1; words[i]; i++) {
        if (!g_str_is_ascii(words[i])) {
            bool value = words[i][0] != '-' && words[i - 1][0] == '-' && i > 1;
            g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID,
                        "'%s%s%s': option values are ASCII (%s)",
                        value ? words[i - 1] : "", value ? " " : "", words[i],
                        err->message);
            return;
        }
    }
    g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID, "%s", err->message);
}

int sim_cli_setup(SimCli *c, int *argc, char ***argv, const char *profile_dir,
                  bool help, GError **errp)
{
    c->o = options_all();
    g_autofree GOptionEntry *entries = options_entries(c->o);
    g_autoptr(GOptionContext) ctx = g_option_context_new(
        "- simulate a modeled drive under a workload");

    g_option_context_add_main_entries(ctx, entries, NULL);
    g_option_context_set_help_enabled(ctx, help);
    /* the parse consumes argv: keep the words for naming a bad one */
    g_auto(GStrv) words = g_strdupv(*argv);
    g_autoptr(GError) err = NULL;
    if (!g_option_context_parse(ctx, argc, argv, &err)) {
        if (err->domain == G_CONVERT_ERROR) {
            name_unconvertible(words, err, errp);
        } else {
            g_propagate_error(errp, g_steal_pointer(&err));
        }
        return 2;
    }
    if (*argc > 1) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID,
                    "unexpected argument '%s'", (*argv)[1]);
        return 2;
    }
    if (opt_flag(c->o, "version")) {
        c->what = CLI_VERSION;
        return 0;
    }
    return setup_profile(c, profile_dir, errp);
}

void sim_cli_clear(SimCli *c)
{
    free_params(&c->p);
    g_clear_pointer(&c->dev, hwm_device_free);
    g_clear_pointer(&c->prof, hwm_profile_free);
    g_clear_pointer(&c->o, options_free);
}
