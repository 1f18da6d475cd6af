/* Command-line value parsing for the guest programs. */
#ifndef PLATTER_PARSE_H
#define PLATTER_PARSE_H

#include <stdint.h>

/* Parse a byte count with an optional binary suffix: "4096", "4k", "4KiB",
 * "100G", "100GiB", "2T", "1.5M" (K/M/G/T = 2^10/20/30/40; a fraction must
 * come to whole bytes). Returns 0 and sets *out, or -1 for malformed input
 * or overflow. Both parsers are hwm_parse_decimal (the leaf library's
 * platter-decimal.h), the one number parser of the C tree. */
int parse_size(const char *s, uint64_t *out);

/* Parse an unsigned decimal integer. Returns 0 or -1. */
int parse_u64(const char *s, uint64_t *out);

/* The two as parsers of a platter_arg table entry (platter-argv.h): `dst`
 * is a uint64_t *. */
int arg_u64(const char *value, void *dst);
int arg_size(const char *value, void *dst);

#endif
