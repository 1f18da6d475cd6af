#include "parse.h"

#include <string.h>
#include <strings.h>

#include "platter-decimal.h"

int parse_u64(const char *s, uint64_t *out)
{
    const char *why;

    return s && hwm_parse_decimal(s, 1, out, &why) ? 0 : -1;
}

int parse_size(const char *s, uint64_t *out)
{
    char num[32];
    const char *why;
    unsigned shift = 0;
    size_t n = s ? strcspn(s, "kKmMgGtT") : sizeof num;

    if (n >= sizeof num)
        return -1;
    memcpy(num, s, n);
    num[n] = '\0';
    switch (s[n] | 0x20) {
    case 'k': shift = 10; break;
    case 'm': shift = 20; break;
    case 'g': shift = 30; break;
    case 't': shift = 40; break;
    default: break;
    }
    if (shift && s[n + 1] && strcasecmp(s + n + 1, "iB") &&
        strcasecmp(s + n + 1, "B"))
        return -1;
    return hwm_parse_decimal(num, 1ull << shift, out, &why) ? 0 : -1;
}

int arg_u64(const char *value, void *dst)
{
    return parse_u64(value, dst);
}

int arg_size(const char *value, void *dst)
{
    return parse_size(value, dst);
}
