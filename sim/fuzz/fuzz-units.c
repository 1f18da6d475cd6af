/* Fuzz target: the number parser every option, profile value and trace
 * field goes through (hwm_parse_decimal, and units_parse on top of it) and
 * its inverse, hwm_append_decimal, which prints bounds in error messages and
 * every value of --dump-profile.
 *
 * Input: byte 0 picks a scale (and, for byte counts, the K/M/G/T suffix),
 * bytes 1..8 a value, 9..16 and 17..24 the bounds; the rest is the text.
 * Checked: a parsed number prints back as the text's canonical form (no
 * leading zeros, no trailing fraction zeros), so the parse was exact; a
 * value prints to text that parses back to it; units_parse keeps its
 * bounds and names what it parsed in every error. */
#include <stdlib.h>
#include <string.h>

#include "units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* the scales keys and options use: counts, 10^k units, KiB, MiB */
static const uint64_t scales[] = { 1, 10, 1000, 10000, 1000000, 1000000000,
                                   1024, 1024 * 1024 };
#define HEAD 25

static uint64_t le64(const uint8_t *b)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) {
        v = v << 8 | b[i];
    }
    return v;
}

/* "007.250" -> "7.25", ".5" -> "0.5", "3." -> "3": what the printer gives */
static char *canonical(const char *s)
{
    const char *dot = strchr(s, '.');
    size_t ilen = dot ? (size_t)(dot - s) : strlen(s);
    size_t lead = 0;
    while (lead + 1 < ilen && s[lead] == '0') {
        lead++;
    }
    GString *c = g_string_new_len(s + lead, (gssize)(ilen - lead));
    if (c->len == 0) {
        g_string_append_c(c, '0');
    }
    if (dot) {
        size_t flen = strlen(dot + 1);
        while (flen > 0 && dot[flen] == '0') {
            flen--;
        }
        if (flen > 0) {
            g_string_append_c(c, '.');
            g_string_append_len(c, dot + 1, (gssize)flen);
        }
    }
    return g_string_free(c, FALSE);
}

/* fraction digits of a printed number (the parser takes at most 18) */
static size_t fraction_digits(const char *s)
{
    const char *dot = strchr(s, '.');
    return dot ? strlen(dot + 1) : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < HEAD) {
        return 0;
    }
    uint64_t scale = scales[data[0] % G_N_ELEMENTS(scales)];
    bool suffix = scale == 1 && (data[0] & 0x80);    /* sizes in bytes */
    uint64_t value = le64(data + 1);
    uint64_t lo = le64(data + 9), hi = le64(data + 17);
    g_autofree char *text = g_strndup((const char *)data + HEAD, size - HEAD);
    const char *why = NULL;
    uint64_t v;

    if (hwm_parse_decimal(text, scale, &v, &why)) {
        g_autoptr(GString) back = g_string_new(NULL);
        g_autofree char *want = canonical(text);
        hwm_append_decimal(back, v, scale);
        if (strcmp(back->str, want) != 0) {
            g_printerr("'%s' at scale %" G_GUINT64_FORMAT " parsed to %"
                       G_GUINT64_FORMAT ", which prints as '%s'\n", text,
                       scale, v, back->str);
            abort();
        }
    } else if (!why || !why[0]) {
        abort();
    }

    g_autoptr(GString) printed = g_string_new(NULL);
    hwm_append_decimal(printed, value, scale);
    if (fraction_digits(printed->str) <= 18 &&
        (!hwm_parse_decimal(printed->str, scale, &v, &why) || v != value)) {
        g_printerr("%" G_GUINT64_FORMAT " at scale %" G_GUINT64_FORMAT
                   " prints as '%s', which does not parse back\n", value,
                   scale, printed->str);
        abort();
    }

    UnitsSpec u = { .unit = "x", .scale = scale, .min = MIN(lo, hi),
                    .max = MAX(lo, hi), .suffix = suffix };
    GError *err = NULL;
    if (units_parse("WHAT", text, &u, &v, &err)) {
        if (v < u.min || v > u.max) {
            abort();
        }
    } else if (!err || !g_str_has_prefix(err->message, "WHAT: ")) {
        abort();
    }
    g_clear_error(&err);
    return 0;
}
