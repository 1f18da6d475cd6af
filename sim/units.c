#include <glib.h>
#include <string.h>

#include "hwm.h"
#include "units.h"

bool units_parse_decimal(const char *s, uint64_t scale, uint64_t *out)
{
    const char *why;
    return hwm_parse_decimal(s, scale, out, &why);
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
