/*
 * An output file that appears only when the run succeeds: a temporary
 * file beside the target, renamed over it at the end (--timeline, --html).
 */
#ifndef PLATTER_SIM_OUTFILE_H
#define PLATTER_SIM_OUTFILE_H

#include <glib.h>

typedef struct {
    const char *option;     /* "--timeline", "--html": names it in errors */
    char *path, *tmp;       /* the target, the temporary file beside it */
    int fd;
    GString *text;          /* what to write, once rendered */
} OutFile;

/* Check `path` (not empty, a regular file if it exists) and create the
 * temporary file beside it; `option` names the file in errors. */
bool outfile_open(OutFile *f, const char *option, const char *path,
                  GError **errp);

/* Write f->text and rename it over the target. */
bool outfile_commit(OutFile *f, GError **errp);

/* The temporary file goes unless outfile_commit() renamed it. */
void outfile_free(OutFile *f);

#endif
