/* The one number parser of platter-sim: options and trace fields alike.
 * Decimals are scaled exactly to integers (hwm_parse_decimal), never through
 * floating point; sizes may carry a K, M, G or T suffix (powers of 1024);
 * every value is checked against its bounds, and an error names the value,
 * the text and what is wrong with it (too large: the maximum). */
#ifndef PLATTER_UNITS_H
#define PLATTER_UNITS_H

#include <stdbool.h>
#include <stdint.h>

#include "hwm.h"

typedef struct {
    const char *unit;     /* the input's unit in messages ("s", "bytes"),
                             NULL for a plain count */
    uint64_t scale;       /* result units per input unit (1: a count) */
    uint64_t min, max;    /* bounds of the result, inclusive */
    bool suffix;          /* accept K, M, G, T */
} UnitsSpec;

/* Parse `s` into `*out` by `u`; on error "WHAT: ..." (`what` names the
 * value: "--jobs", "TRACE:3: submit time"). */
bool units_parse(const char *what, const char *s, const UnitsSpec *u,
                 uint64_t *out, GError **errp);

#endif
