/*
 * Exact decimal numbers, without floating point.  Needs only <stdbool.h>
 * and <stdint.h>: the static guest programs, built without glib, use it
 * alone (with src/decimal.c); everything else gets it through hwm.h.
 *
 * Copyright (C) 2026 the platter authors.  GPL-2.0-or-later.
 */
#ifndef HWM_DECIMAL_H
#define HWM_DECIMAL_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Parse a non-negative decimal ("8", "8.25") exactly into value * scale,
 * without floating point; a fraction finer than one unit of the result is
 * an error, not rounded.  On failure `why` says what is wrong.  Profiles,
 * platter-sim's options and traces, and the guest programs share it.
 */
bool hwm_parse_decimal(const char *s, uint64_t scale, uint64_t *out,
                       const char **why);

#endif
