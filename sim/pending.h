/*
 * Output that appears only when the run succeeds, so an error leaves no
 * partial timeline and no partial trace file: --explain's timeline is
 * spooled to an unnamed temporary file and copied out at the end;
 * --trace-out is written to a temporary file beside its target and renamed
 * over it.
 */
#ifndef PLATTER_PENDING_H
#define PLATTER_PENDING_H

#include <stdbool.h>
#include <stdio.h>

#include "hwm.h"

typedef struct {
    FILE *explain;          /* the spool, or NULL */
    FILE *trace;            /* the temporary trace, or NULL */
    char *trace_tmp;        /* its name */
    const char *trace_out;  /* its target, or NULL */
} Pending;

/* Open the spool (when `explain`) and the temporary trace (when
 * `trace_out` is not NULL). */
bool pending_open(Pending *pd, bool explain, const char *trace_out,
                  GError **errp);
/* The run succeeded: rename the trace over its target, copy the spool to
 * `explain_to`. */
bool pending_commit(Pending *pd, FILE *explain_to, GError **errp);
/* Close whatever is open, remove the temporary trace. */
void pending_discard(Pending *pd);

#endif
