#include <string.h>

#include "units.h"

static bool out_of_range(const char *what, const char *s, const UnitsSpec *u,
                         bool high, GError **errp)
{
    g_autoptr(GString) lim = g_string_new(NULL);
    hwm_append_decimal(lim, high ? u->max : u->min, u->scale);
    g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID,
                "%s: '%s' is too %s: at %s %s%s%s", what, s,
                high ? "large" : "small", high ? "most" : "least", lim->str,
                u->unit ? " " : "", u->unit ? u->unit : "");
    return false;
}

bool units_parse(const char *what, const char *s, const UnitsSpec *u,
                 uint64_t *out, GError **errp)
{
    g_autofree char *num = g_strdup(s);
    size_t n = strlen(num);
    uint64_t mult = 1;
    const char *why = NULL;

    if (u->suffix && n > 0) {
        switch (g_ascii_toupper(num[n - 1])) {
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
    if (!hwm_parse_decimal(num, u->scale * mult, out, &why)) {
        if (!strcmp(why, "too large")) {
            return out_of_range(what, s, u, true, errp);
        }
        if (u->scale * mult == 1 && strchr(num, '.') &&
            strcmp(why, "not a non-negative decimal number") != 0) {
            why = "not a whole number";
        }
        g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID, "%s: bad %s '%s': %s%s",
                    what, u->suffix ? "size" : "value", s, why,
                    u->suffix ? " (a number with an optional K, M, G or T "
                                "suffix)" : "");
        return false;
    }
    if (*out < u->min || *out > u->max) {
        return out_of_range(what, s, u, *out > u->max, errp);
    }
    return true;
}
