#include <glib.h>
#include <string.h>

#include "units.h"

bool units_parse_decimal(const char *s, uint64_t scale, uint64_t *out)
{
    unsigned __int128 v = 0, frac = 0, den = 1;
    const char *p = s;
    bool digits = false;

    for (; g_ascii_isdigit(*p); p++, digits = true) {
        v = v * 10 + (unsigned)(*p - '0');
        if (v > UINT64_MAX) {
            return false;
        }
    }
    if (*p == '.') {
        for (p++; g_ascii_isdigit(*p); p++, digits = true) {
            if (den < (unsigned __int128)1 << 80) {
                frac = frac * 10 + (unsigned)(*p - '0');
                den *= 10;
            }
        }
    }
    if (!digits || *p) {
        return false;
    }
    unsigned __int128 r = v * scale + frac * scale / den;
    if (r > UINT64_MAX) {
        return false;
    }
    *out = (uint64_t)r;
    return true;
}

bool units_parse_size(const char *s, uint64_t *out)
{
    size_t n = strlen(s);
    uint64_t mult = 1;
    g_autofree char *num = g_strdup(s);

    if (n > 0) {
        switch (g_ascii_toupper(s[n - 1])) {
        case 'K': mult = 1ull << 10; break;
        case 'M': mult = 1ull << 20; break;
        case 'G': mult = 1ull << 30; break;
        case 'T': mult = 1ull << 40; break;
        default: break;
        }
        if (mult > 1) {
            num[n - 1] = '\0';
        }
    }
    return units_parse_decimal(num, mult, out);
}
