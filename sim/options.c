/* platter-sim's option tables joined into one, and their values by name
 * (options.h). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

typedef struct {
    const OptSpec *spec;
    size_t order;             /* its table and entry: ties keep it */
    char *text;               /* OPT_TEXT, OPT_FILE: NULL until given */
    gboolean flag;            /* OPT_FLAG */
} OptSlot;

struct Options {
    OptSlot *slot;            /* in help_rank order */
    size_t n;
};

static int by_rank(const void *a, const void *b)
{
    const OptSlot *x = a, *y = b;

    if (x->spec->help_rank != y->spec->help_rank) {
        return x->spec->help_rank < y->spec->help_rank ? -1 : 1;
    }
    return x->order < y->order ? -1 : x->order > y->order;
}

Options *options_new(const OptSpec *const *tables, const size_t *lens,
                     size_t n)
{
    Options *o = g_new0(Options, 1);

    for (size_t t = 0; t < n; t++) {
        o->n += lens[t];
    }
    o->slot = g_new0(OptSlot, o->n);
    size_t k = 0;
    for (size_t t = 0; t < n; t++) {
        for (size_t i = 0; i < lens[t]; i++, k++) {
            o->slot[k].spec = &tables[t][i];
            o->slot[k].order = k;
        }
    }
    qsort(o->slot, o->n, sizeof *o->slot, by_rank);
    for (size_t i = 0; i < o->n; i++) {
        for (size_t j = i + 1; j < o->n; j++) {
            /* two tables naming one option: GOption would take the first */
            g_assert(strcmp(o->slot[i].spec->name, o->slot[j].spec->name));
        }
    }
    return o;
}

void options_free(Options *o)
{
    for (size_t i = 0; i < o->n; i++) {
        g_free(o->slot[i].text);
    }
    g_free(o->slot);
    g_free(o);
}

GOptionEntry *options_entries(Options *o)
{
    static const GOptionArg arg[] = {
        [OPT_TEXT] = G_OPTION_ARG_STRING, [OPT_FILE] = G_OPTION_ARG_FILENAME,
        [OPT_FLAG] = G_OPTION_ARG_NONE,
    };
    GOptionEntry *e = g_new0(GOptionEntry, o->n + 1);

    for (size_t i = 0; i < o->n; i++) {
        const OptSpec *s = o->slot[i].spec;
        /* string options start NULL: GOption replaces, it does not free,
         * the initial value */
        e[i] = (GOptionEntry){
            s->name, 0, 0, arg[s->kind],
            s->kind == OPT_FLAG ? (gpointer)&o->slot[i].flag
                                : (gpointer)&o->slot[i].text,
            s->help, s->arg };
    }
    return e;
}

static const OptSlot *slot(const Options *o, const char *name)
{
    for (size_t i = 0; i < o->n; i++) {
        if (!strcmp(o->slot[i].spec->name, name)) {
            return &o->slot[i];
        }
    }
    g_error("platter-sim: no option --%s in the tables", name);
}

const char *opt_text(const Options *o, const char *name)
{
    return slot(o, name)->text;
}

bool opt_flag(const Options *o, const char *name)
{
    return slot(o, name)->flag;
}

bool opt_given(const Options *o, const char *name)
{
    const OptSlot *s = slot(o, name);
    return s->spec->kind == OPT_FLAG ? s->flag : s->text != NULL;
}

bool opt_number(const Options *o, const char *name, uint64_t *out,
                GError **errp)
{
    const OptSlot *s = slot(o, name);
    g_autofree char *what = g_strdup_printf("--%s", name);

    g_assert(s->spec->units.scale > 0);    /* a number */
    if (!s->text) {
        *out = s->spec->dflt;
        return true;
    }
    return units_parse(what, s->text, &s->spec->units, out, errp);
}

bool options_each_given(const Options *o,
                        bool (*cb)(const OptSpec *spec, void *ctx,
                                   GError **errp),
                        void *ctx, GError **errp)
{
    for (size_t i = 0; i < o->n; i++) {
        const OptSlot *s = &o->slot[i];
        bool given = s->spec->kind == OPT_FLAG ? s->flag : s->text != NULL;
        if (given && !cb(s->spec, ctx, errp)) {
            return false;
        }
    }
    return true;
}

bool opt_bad(GError **errp, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    g_autofree char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error_literal(errp, HWM_ERROR, HWM_ERROR_INVALID, msg);
    return false;
}
