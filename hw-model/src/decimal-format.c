/*
 * Writing a scaled integer as an exact decimal (hwm.h): the inverse of
 * hwm_parse_decimal(), for values shown in their key's own unit.
 */
#include "hwm.h"

/* Write a value in the key's own unit, exactly (no floating point). */
void hwm_append_decimal(GString *s, uint64_t v, uint64_t scale)
{
    g_string_append_printf(s, "%" G_GUINT64_FORMAT, v / scale);
    uint64_t rem = v % scale;
    if (rem) {
        g_string_append_c(s, '.');
    }
    /* long division: exact for a scale of 2^a x 5^b (10^k, KiB, MiB: every
     * key's), which ends within 64 digits; any other scale is cut there */
    for (int d = 0; rem && d < 64; d++) {
        unsigned __int128 r10 = (unsigned __int128)rem * 10;
        g_string_append_c(s, (char)('0' + (int)(r10 / scale)));
        rem = (uint64_t)(r10 % scale);
    }
}
