/*
 * platter-sim's command-line options, owned where they are used: the
 * command line's own (main.c), those several workloads take (engine.c),
 * and each workload's (its file).  Each is one OptSpec entry; main.c joins
 * the tables into one GOption table, in `help_rank` order, and a workload
 * reads its values by name.  Every value is text until a parser reads it
 * (units_parse() for numbers), so NULL means "not given".
 */
#ifndef PLATTER_OPTIONS_H
#define PLATTER_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwm.h"
#include "units.h"

typedef enum {
    OPT_TEXT,                 /* a value, parsed later */
    OPT_FILE,                 /* a file name (not converted to UTF-8) */
    OPT_FLAG,                 /* no value */
} OptKind;

/* Which runs an option does something for; one given where it does nothing
 * is an error, not silently ignored ("--xfs-log" with dsync would read as
 * a result for xfs). */
typedef enum {
    OPT_SCOPE_WORKLOAD,       /* the workloads that own or `uses` it */
    OPT_SCOPE_RUN,            /* every workload, not --dump-profile */
    OPT_SCOPE_ANY,            /* always */
} OptScope;

typedef struct {
    const char *name;         /* without the leading "--" */
    OptKind kind;
    OptScope scope;
    const char *arg;          /* its value in --help ("SIZE"), NULL: a flag */
    const char *help;
    /* its place in --help, lowest first: the order the options had when
     * they were one table, so --help stays as it was; a new option takes a
     * free number near the ones it belongs with */
    unsigned help_rank;
    /* a number (opt_number): its unit and bounds, and its value when not
     * given; zero for an option that is not a number */
    UnitsSpec units;
    uint64_t dflt;
} OptSpec;

/* UnitsSpec of a byte count (K, M, G, T suffixes) and of a plain count */
#define OPT_BYTES { "bytes", 1, 0, UINT64_MAX, true }
#define OPT_COUNT(lo, hi) { NULL, 1, (lo), (hi), false }
/* the units and dflt of an option that is not a number */
#define OPT_NO_NUMBER { NULL, 0, 0, 0, false }, 0
#define NS_PER_S 1000000000ull

/* Every option's value, by name. */
typedef struct Options Options;

/* One table of `tables` (n of them, each `lens[i]` entries) with room for
 * the values. */
Options *options_new(const OptSpec *const *tables, const size_t *lens,
                     size_t n);
void options_free(Options *o);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(Options, options_free)
/* GOption's table for `o` (its values stored in `o`), in help_rank order,
 * ending with a zeroed entry; free it with g_free. */
GOptionEntry *options_entries(Options *o);

/* The option's text, NULL when not given; `name` must be in the table. */
const char *opt_text(const Options *o, const char *name);
bool opt_flag(const Options *o, const char *name);
bool opt_given(const Options *o, const char *name);

/* The option's number by its entry's units, or its entry's dflt when it
 * was not given. */
bool opt_number(const Options *o, const char *name, uint64_t *out,
                GError **errp);

/* The options given (in help order): for each, `cb`; stops at the first
 * false it returns. */
bool options_each_given(const Options *o,
                        bool (*cb)(const OptSpec *spec, void *ctx,
                                   GError **errp),
                        void *ctx, GError **errp);

/* Set an option error and return false, so checks read as one line. */
G_GNUC_PRINTF(2, 3)
bool opt_bad(GError **errp, const char *fmt, ...);

#endif
