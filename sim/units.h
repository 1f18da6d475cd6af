/* Command-line numbers: sizes with K/M/G/T suffixes (powers of 1024) and
 * decimal values scaled exactly to integers, never through floating point. */
#ifndef PLATTER_UNITS_H
#define PLATTER_UNITS_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

bool units_parse_decimal(const char *s, uint64_t scale, uint64_t *out);
bool units_parse_size(const char *s, uint64_t *out);

#endif
