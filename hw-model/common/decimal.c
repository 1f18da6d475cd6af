/*
 * The one decimal-number parser of platter's C code (profiles, platter-sim's
 * options and traces, the guest programs' options).  Plain C11, no glib: part
 * of the leaf library (hw-model/common/), which the static guest programs
 * link too.
 *
 * Copyright (C) 2026 the platter authors.  GPL-2.0-or-later.
 */
#include "platter-decimal.h"

/* not isdigit(): that one depends on the locale */
static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

bool hwm_parse_decimal(const char *s, uint64_t scale, uint64_t *out,
                       const char **why)
{
    uint64_t ip = 0, frac_num = 0, frac_den = 1;
    const char *p = s;
    bool digits = false;

    for (; is_digit(*p); p++, digits = true) {
        uint64_t digit = (uint64_t)(*p - '0');
        if (ip > (UINT64_MAX - digit) / 10) {
            *why = "too large";
            return false;
        }
        ip = ip * 10 + digit;
    }
    if (*p == '.') {
        for (p++; is_digit(*p); p++, digits = true) {
            if (frac_den > UINT64_MAX / 100) {
                *why = "too many decimal places";
                return false;
            }
            frac_num = frac_num * 10 + (uint64_t)(*p - '0');
            frac_den *= 10;
        }
    }
    if (!digits || *p != '\0') {
        *why = "not a non-negative decimal number";
        return false;
    }
    if (scale == 0 || ip > UINT64_MAX / scale) {
        *why = "too large";
        return false;
    }
    /* frac_num < frac_den <= 10^18 and scale < 2^64: fits in 128 bits */
    unsigned __int128 f = (unsigned __int128)frac_num * scale;
    if (f % frac_den != 0) {
        *why = "finer than the resolution (1 ns, 1 byte, 0.0001%)";
        return false;
    }
    uint64_t frac = (uint64_t)(f / frac_den);
    if (frac > UINT64_MAX - ip * scale) {
        *why = "too large";
        return false;
    }
    *out = ip * scale + frac;
    return true;
}
