/*
 * Exact decimal numbers, without floating point (decimal.c).  Part of the
 * leaf library (hw-model/common/): plain C11 and libc, no glib, no platter
 * header; the model (through hwm.h), platter-sim and the static guest
 * programs all use it.  The name keeps the hwm_ prefix it had in the model:
 * its callers there, and QEMU's build (scripts/lib/qemu-hwm-sources keeps
 * hwm_* symbols unrenamed), use it as it is.
 *
 * Copyright (C) 2026 the platter authors.  GPL-2.0-or-later.
 */
#ifndef PLATTER_DECIMAL_H
#define PLATTER_DECIMAL_H

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
