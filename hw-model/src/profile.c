/*
 * Profile files: `key = value` lines, the unit in the key name, `#` starts a
 * comment.  Every key lives in one entry of the table in profile-keys.c:
 * its name (with unit), type, which media it applies to, whether it is
 * required, its default and its bounds; keys a data sheet does not give are
 * derived by profile-rules.c.  This file reads a file against the table.
 * GKeyFile is not used because it needs [groups] and cannot report the line
 * of a semantically bad value; this parser names file, line and key for
 * every error.
 */
#include <string.h>

#include "profile-table.h"

G_DEFINE_QUARK(hwm-error-quark, hwm_error)

static bool parse_decimal(const char *s, uint64_t scale, uint64_t *out,
                          const char **why)
{
    if (hwm_parse_decimal(s, scale, out, why)) {
        return true;
    }
    if (g_str_equal(*why, "not a non-negative decimal number")) {
        *why = "not a non-negative decimal number (the unit belongs in the "
               "key name, not the value)";
    }
    return false;
}

static bool parse_value(const KeyDef *k, const char *val, uint64_t *out,
                        const char **why)
{
    switch (k->type) {
    case T_COUNT:
        if (parse_decimal(val, 1, out, why)) {
            return true;
        }
        /* a fraction; "too large" and "not a number" say it already */
        if (g_str_has_prefix(*why, "finer")) {
            *why = "not a whole number";
        }
        return false;
    case T_TIME:
    case T_SIZE:
    case T_RATIO:
        return parse_decimal(val, k->scale, out, why);
    case T_BOOL:
        if (!g_ascii_strcasecmp(val, "yes") || !g_ascii_strcasecmp(val, "on") ||
            !g_ascii_strcasecmp(val, "true") || !strcmp(val, "1")) {
            *out = 1;
            return true;
        }
        if (!g_ascii_strcasecmp(val, "no") || !g_ascii_strcasecmp(val, "off") ||
            !g_ascii_strcasecmp(val, "false") || !strcmp(val, "0")) {
            *out = 0;
            return true;
        }
        *why = "expected yes or no";
        return false;
    case T_ENUM:
        for (uint64_t i = k->min; i <= k->max; i++) {
            if (strcmp(val, k->names[i]) == 0) {
                *out = i;
                return true;
            }
        }
        *why = "not one of the allowed names";
        return false;
    }
    *why = "internal: unknown key type";
    return false;
}

static void store(HwmProfile *p, const KeyDef *k, uint64_t v)
{
    char *field = (char *)p + k->offset;

    if (k->width == sizeof(uint64_t)) {
        memcpy(field, &v, sizeof(uint64_t));
    } else if (k->width == sizeof(uint32_t)) {
        uint32_t v32 = (uint32_t)v;
        memcpy(field, &v32, sizeof v32);
    } else {
        bool b = v != 0;
        memcpy(field, &b, sizeof b);
    }
}

static uint64_t fetch(const HwmProfile *p, const KeyDef *k)
{
    const char *field = (const char *)p + k->offset;

    if (k->width == sizeof(uint64_t)) {
        uint64_t v;
        memcpy(&v, field, sizeof v);
        return v;
    }
    if (k->width == sizeof(uint32_t)) {
        uint32_t v;
        memcpy(&v, field, sizeof v);
        return v;
    }
    bool b;
    memcpy(&b, field, sizeof b);
    return b;
}

static bool check_bounds(const HwmProfile *p, const KeyDef *k, uint64_t v,
                         const char *where, GError **errp)
{
    if (v < k->min || v > k->max) {
        if (k->type == T_ENUM || k->type == T_BOOL) {
            g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                        "%s: key '%s': value out of range", where, k->key);
        } else if (v == 0 && k->min > 0) {
            g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                        "%s: key '%s': must be positive (%s)", where, k->key,
                        k->help);
        } else {
            /* say it in the key's own unit */
            g_autoptr(GString) m = g_string_new(NULL);
            hwm_append_decimal(m, v, k->scale);
            g_string_append(m, " is outside ");
            hwm_append_decimal(m, k->min, k->scale);
            g_string_append(m, "..");
            hwm_append_decimal(m, k->max, k->scale);
            g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE, "%s: key '%s': %s",
                        where, k->key, m->str);
        }
        return false;
    }
    (void)p;
    return true;
}

/* Which of two keys a contradiction between them is blamed on: the given
 * one (the later line if both are), as "FILE:LINE: key 'K' = V", or a
 * derived one with its rule.  Caller frees. */
static char *blame(const HwmProfile *p, const char *a, const char *b)
{
    size_t ia = (size_t)(hwm_profile_find_key(a) - hwm_profile_keys);
    size_t ib = (size_t)(hwm_profile_find_key(b) - hwm_profile_keys);
    size_t i = ia;

    if (p->origin[ib] == HWM_ORIGIN_GIVEN &&
        (p->origin[ia] != HWM_ORIGIN_GIVEN || p->line[ib] > p->line[ia])) {
        i = ib;
    }
    const KeyDef *k = &hwm_profile_keys[i];
    g_autoptr(GString) v = g_string_new(NULL);
    hwm_append_decimal(v, fetch(p, k), k->scale);
    if (p->origin[i] == HWM_ORIGIN_GIVEN) {
        return g_strdup_printf("%s:%d: key '%s' = %s", p->source, p->line[i],
                               k->key, v->str);
    }
    return g_strdup_printf("%s: key '%s' = %s (%s%s%s)", p->source, k->key,
                           v->str,
                           p->origin[i] == HWM_ORIGIN_DERIVED ? "derived by "
                           "rule '" : "default",
                           p->origin[i] == HWM_ORIGIN_DERIVED ? p->rule[i] : "",
                           p->origin[i] == HWM_ORIGIN_DERIVED ? "'" : "");
}

/* "a <= b" between two keys of the table, or an error naming the key. */
static bool check_order(const HwmProfile *p, const char *a, const char *b,
                        const char *what, GError **errp)
{
    const KeyDef *ka = hwm_profile_find_key(a), *kb = hwm_profile_find_key(b);
    if (fetch(p, ka) <= fetch(p, kb)) {
        return true;
    }
    g_autofree char *who = blame(p, a, b);
    g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                "%s contradicts the profile: '%s' must not exceed '%s' (%s)",
                who, a, b, what);
    return false;
}

/* The data-sheet figures a rule reads, checked before any rule runs. */
static bool check_inputs(const HwmProfile *p, GError **errp)
{
    if (p->kind == HWM_KIND_HDD && p->seek_avg_write_ns) {
        return check_order(p, "seek_avg_ms", "seek_avg_write_ms",
                           "a write seek includes the read seek and the "
                           "write settle", errp);
    }
    return true;
}

/* `zone` rows replace the equal zones: the keys that describe those must
 * say the same as the rows, so no profile holds two layouts. */
static bool check_zone_rows(const HwmProfile *p, GError **errp)
{
    const HwmZoneRow *first = &p->zone_rows[0];
    const HwmZoneRow *last = &p->zone_rows[p->n_zone_rows - 1];
    const char *key = NULL;
    uint64_t rows_say = 0;
    uint64_t usable = 0;

    if (p->zones != p->n_zone_rows) {
        key = "zones";
        rows_say = p->n_zone_rows;
    } else if (p->outer_sectors_per_track != first->sectors_per_track) {
        key = "outer_sectors_per_track";
        rows_say = first->sectors_per_track;
    } else if (p->inner_sectors_per_track != last->sectors_per_track) {
        key = "inner_sectors_per_track";
        rows_say = last->sectors_per_track;
    }
    if (key) {
        const KeyDef *k = hwm_profile_find_key(key);
        size_t i = (size_t)(k - hwm_profile_keys);
        g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                    "%s:%d: key '%s' = %" G_GUINT64_FORMAT " contradicts the "
                    "zone rows (from line %d), which say %" G_GUINT64_FORMAT,
                    p->source, p->line[i], key, fetch(p, k),
                    p->zone_rows_line, rows_say);
        return false;
    }
    for (uint32_t z = 0; z < p->n_zone_rows; z++) {
        const HwmZoneRow *r = &p->zone_rows[z];
        uint64_t all = ((uint64_t)r->last_cyl - r->first_cyl + 1) * p->heads *
                       (r->sectors_per_track - r->track_spare_sectors);
        if ((uint64_t)r->front_sectors + r->spare_sectors >= all) {
            g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                        "%s: zone row %u (from line %d): front_sectors and "
                        "spare_sectors leave the zone no sectors on %u "
                        "heads", p->source, z + 1, p->zone_rows_line,
                        p->heads);
            return false;
        }
        usable += all - r->front_sectors - r->spare_sectors;
    }
    if (usable < p->capacity_bytes / HWM_SECTOR_BYTES) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                    "%s: the zone rows (from line %d) hold %" G_GUINT64_FORMAT
                    " sectors on %u heads, fewer than capacity_bytes' %"
                    G_GUINT64_FORMAT, p->source, p->zone_rows_line, usable,
                    p->heads, p->capacity_bytes / HWM_SECTOR_BYTES);
        return false;
    }
    return true;
}

/* Cross-key rules a single table entry cannot express. */
static bool check_profile(HwmProfile *p, GError **errp)
{
    const char *src = p->source;

    if (p->capacity_bytes % HWM_SECTOR_BYTES) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                    "%s: key 'capacity_bytes': must be a multiple of %u",
                    src, HWM_SECTOR_BYTES);
        return false;
    }
    if (p->kind == HWM_KIND_HDD) {
        if (!check_order(p, "inner_sectors_per_track",
                         "outer_sectors_per_track",
                         "outer tracks are longer", errp)) {
            return false;
        }
        const char *seeks = "keys 'seek_track_to_track_ms' <= 'seek_avg_ms' "
                            "<= 'seek_full_stroke_ms' must hold";
        if (!check_order(p, "seek_track_to_track_ms", "seek_avg_ms", seeks,
                         errp) ||
            !check_order(p, "seek_avg_ms", "seek_full_stroke_ms", seeks,
                         errp)) {
            return false;
        }
        if (p->n_zone_rows && !check_zone_rows(p, errp)) {
            return false;
        }
        /* the outer zone's media rate carries the sustained rate */
        uint64_t media = (uint64_t)p->outer_sectors_per_track *
                         HWM_SECTOR_BYTES * p->rpm / 60;
        if (p->sustained_bytes_per_s > media) {
            g_autofree char *who = blame(p, "outer_sectors_per_track",
                                         "sustained_mb_s");
            g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                        "%s contradicts the profile: 'sustained_mb_s' "
                        "exceeds the outer zone's media rate "
                        "(outer_sectors_per_track x 512 x rpm / 60 = %"
                        G_GUINT64_FORMAT " bytes/s)", who, media);
            return false;
        }
    }
    if (p->write_cache && p->cache_bytes < 64 * KIB) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                    "%s: key 'cache_mb': write_cache = yes needs a cache "
                    "(cache_mb >= 1)", src);
        return false;
    }
    if (p->write_cache_bytes > p->cache_bytes ||
        (p->write_cache && p->write_cache_bytes < 64 * KIB)) {
        g_autofree char *who = blame(p, "write_cache_kb", "cache_mb");
        g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                    "%s contradicts the profile: 'write_cache_kb' is part "
                    "of the buffer (at most cache_mb), and at least 64 KiB "
                    "with write_cache = yes", who);
        return false;
    }
    return true;
}

/* Settle key i if it can be: given keys are settled already; a key with a
 * rule waits until every input is settled.  False with *errp set: it
 * cannot be settled at all (missing, or a derived value out of bounds). */
static bool resolve_key(HwmProfile *p, size_t i, bool *done, bool *progress,
                        GError **errp)
{
    const KeyDef *k = &hwm_profile_keys[i];
    uint64_t v;
    const char *why = NULL;

    if (k->rule) {
        for (size_t j = 0; j < G_N_ELEMENTS(k->rule->inputs) &&
                           k->rule->inputs[j]; j++) {
            const KeyDef *in = hwm_profile_find_key(k->rule->inputs[j]);
            g_assert(in);
            if (!done[in - hwm_profile_keys]) {
                return true;                /* later */
            }
        }
        if (!k->rule->fn) {
            v = fetch(p, hwm_profile_find_key(k->rule->inputs[0]));
        }
        if (!k->rule->fn || k->rule->fn(p, &v)) {
            g_autofree char *where = g_strdup_printf(
                "%s: derived by rule '%s'", p->source, k->rule->name);
            if (!check_bounds(p, k, v, where, errp)) {
                return false;
            }
            store(p, k, v);
            p->origin[i] = HWM_ORIGIN_DERIVED;
            p->rule[i] = k->rule->name;
            done[i] = *progress = true;
            return true;
        }
    }
    if (!k->dflt) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                    "%s: missing key '%s' (%s)%s%s%s%s", p->source, k->key,
                    k->help, k->rule ? ": give it, or the data-sheet figures "
                    "rule '" : "", k->rule ? k->rule->name : "",
                    k->rule ? "' derives it " : "",
                    k->rule ? k->rule->how : "");
        return false;
    }
    if (!parse_value(k, k->dflt, &v, &why)) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                    "internal: default of '%s' is bad: %s", k->key, why);
        return false;
    }
    store(p, k, v);
    p->origin[i] = HWM_ORIGIN_DEFAULT;
    done[i] = *progress = true;
    return true;
}

/* One line of a row key: its columns, whitespace-separated, each in the
 * column's unit and bounds, then the row's own rules against the rows
 * before it. */
static bool parse_row(HwmProfile *p, const RowDef *row, const char *val,
                      const char *where, int line, GError **errp)
{
    g_auto(GStrv) cols = g_strsplit_set(val, " \t", -1);
    uint64_t v[ROW_MAX_COLUMNS];
    size_t n = 0;
    const char *why = NULL;

    if (row->count(p) >= row->max_rows) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                    "%s: key '%s': more than %u rows", where, row->key,
                    row->max_rows);
        return false;
    }
    for (size_t i = 0; cols[i]; i++) {
        if (!*cols[i]) {
            continue;
        }
        if (n == row->ncolumns) {
            n++;
            break;
        }
        const RowColumn *c = &row->columns[n];
        if (!parse_decimal(cols[i], c->scale, &v[n], &why)) {
            g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                        "%s: key '%s': column %zu (%s): bad value '%s': %s",
                        where, row->key, n + 1, c->name, cols[i], why);
            return false;
        }
        if (v[n] > c->max) {
            g_autoptr(GString) max = g_string_new(NULL);
            hwm_append_decimal(max, c->max, c->scale);
            g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                        "%s: key '%s': column %zu (%s): %s is above %s",
                        where, row->key, n + 1, c->name, cols[i], max->str);
            return false;
        }
        n++;
    }
    if (n != row->ncolumns) {
        g_autoptr(GString) names = g_string_new(NULL);
        for (size_t i = 0; i < row->ncolumns; i++) {
            g_string_append_printf(names, "%s%s", i ? " " : "",
                                   row->columns[i].name);
        }
        g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                    "%s: key '%s': expected %zu values (%s), got %s", where,
                    row->key, row->ncolumns, names->str,
                    n > row->ncolumns ? "more" : "fewer");
        return false;
    }
    if (!row->add(p, v, &why)) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE, "%s: key '%s': %s",
                    where, row->key, why);
        return false;
    }
    int *first = row->first_line(p);
    if (!*first) {
        *first = line;
    }
    return true;
}

HwmProfile *hwm_profile_parse(const char *text, gsize len, const char *source,
                              GError **errp)
{
    g_autoptr(HwmProfile) p = g_new0(HwmProfile, 1);
    g_autofree bool *seen = g_new0(bool, hwm_profile_nkeys);
    g_autofree int *seen_line = g_new0(int, hwm_profile_nkeys);
    g_auto(GStrv) lines = NULL;
    g_autofree char *copy = NULL;

    p->source = g_strdup(source ? source : "(profile)");
    {
        g_autofree char *base = g_path_get_basename(p->source);
        char *dot = g_str_has_suffix(base, ".profile") ? strrchr(base, '.')
                                                       : NULL;
        if (dot) {
            *dot = '\0';
        }
        p->name = g_strdup(base);
    }
    if (memchr(text, '\0', len)) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                    "%s: contains a NUL byte: not a text profile", p->source);
        return NULL;
    }
    copy = g_strndup(text, len);
    if (!g_utf8_validate(copy, -1, NULL)) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                    "%s: not valid UTF-8 text", p->source);
        return NULL;
    }
    lines = g_strsplit(copy, "\n", -1);

    for (int ln = 0; lines[ln]; ln++) {
        char *line = lines[ln];
        char *hash = strchr(line, '#');
        g_autofree char *where = NULL;

        if (hash) {
            *hash = '\0';
        }
        g_strstrip(line);
        if (!*line) {
            continue;
        }
        char *eq = strchr(line, '=');
        if (!eq) {
            g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                        "%s:%d: expected 'key = value', got '%s'",
                        p->source, ln + 1, line);
            return NULL;
        }
        *eq = '\0';
        char *name = g_strstrip(line);
        char *val = g_strstrip(eq + 1);
        where = g_strdup_printf("%s:%d", p->source, ln + 1);

        const RowDef *row = hwm_profile_find_row(name);
        if (row) {
            if (!parse_row(p, row, val, where, ln + 1, errp)) {
                return NULL;
            }
            continue;
        }
        const KeyDef *k = hwm_profile_find_key(name);
        if (!k) {
            const KeyDef *alt = hwm_profile_key_with_other_unit(name);
            if (alt) {
                g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                            "%s: unknown key '%s' (wrong or missing unit? "
                            "the key is '%s')", where, name, alt->key);
            } else {
                g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                            "%s: unknown key '%s'", where, name);
            }
            return NULL;
        }
        size_t idx = (size_t)(k - hwm_profile_keys);
        if (seen[idx]) {
            g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                        "%s: key '%s' repeats line %d", where, name,
                        seen_line[idx]);
            return NULL;
        }
        if (!*val) {
            g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                        "%s: key '%s' has no value", where, name);
            return NULL;
        }
        uint64_t v;
        const char *why = NULL;
        if (!parse_value(k, val, &v, &why)) {
            g_autofree char *names =
                k->type == T_ENUM ? hwm_profile_allowed_names(k) : NULL;
            if (g_str_equal(why, "too large")) {
                /* past 2^64: say the bound, in the key's unit */
                g_autoptr(GString) max = g_string_new(NULL);
                hwm_append_decimal(max, k->max, k->scale);
                g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                            "%s: key '%s': %s is too large: at most %s",
                            where, name, val, max->str);
                return NULL;
            }
            g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                        "%s: key '%s': bad value '%s': %s%s%s%s", where, name,
                        val, why, names ? " (" : "", names ? names : "",
                        names ? ")" : "");
            return NULL;
        }
        if (!check_bounds(p, k, v, where, errp)) {
            return NULL;
        }
        seen[idx] = true;
        seen_line[idx] = ln + 1;
        store(p, k, v);
    }

    /* the media type decides which keys apply; it must come first */
    size_t type_idx = 0;
    if (!seen[type_idx]) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                    "%s: missing key 'type' (%s)", p->source,
                    hwm_profile_keys[0].help);
        return NULL;
    }
    int mask = p->kind == HWM_KIND_HDD ? FOR_HDD : FOR_FLASH;
    for (size_t r = 0; r < hwm_profile_nrows; r++) {
        const RowDef *row = &hwm_profile_rows[r];
        int first = *row->first_line(p);
        if (first && !(row->applies & mask)) {
            g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                        "%s:%d: key '%s' does not apply to type = %s",
                        p->source, first, row->key, hwm_kind_names[p->kind]);
            return NULL;
        }
    }
    g_autofree bool *done = g_new0(bool, hwm_profile_nkeys);
    for (size_t i = 0; i < hwm_profile_nkeys; i++) {
        const KeyDef *k = &hwm_profile_keys[i];
        if (!(k->applies & mask)) {
            if (seen[i]) {
                g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                            "%s:%d: key '%s' does not apply to type = %s",
                            p->source, seen_line[i], k->key,
                            hwm_kind_names[p->kind]);
                return NULL;
            }
            done[i] = true;
            continue;
        }
        if (seen[i]) {
            p->origin[i] = HWM_ORIGIN_GIVEN;
            p->line[i] = seen_line[i];
            done[i] = true;
        } else if (!k->rule && !k->dflt && !k->required) {
            p->origin[i] = HWM_ORIGIN_UNSET;     /* optional figure */
            done[i] = true;
        }
    }
    /* inputs a derivation rule reads must be coherent before it reads them */
    if (!check_inputs(p, errp)) {
        return NULL;
    }
    /* the rest: a rule once its inputs are settled, else the default */
    for (bool progress = true; progress;) {
        progress = false;
        for (size_t i = 0; i < hwm_profile_nkeys; i++) {
            if (!done[i] && !resolve_key(p, i, done, &progress, errp)) {
                return NULL;
            }
        }
    }
    for (size_t i = 0; i < hwm_profile_nkeys; i++) {
        if (!done[i]) {
            g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                        "internal: rule for '%s' waits on itself",
                        hwm_profile_keys[i].key);
            return NULL;
        }
    }
    if (!check_profile(p, errp)) {
        return NULL;
    }
    return g_steal_pointer(&p);
}

HwmProfile *hwm_profile_load(const char *name_or_path, const char *search_dir,
                             GError **errp)
{
    g_autofree char *path = NULL;
    g_autofree char *text = NULL;
    gsize len = 0;
    GError *local = NULL;

    if (!name_or_path || !*name_or_path) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE, "no profile given");
        return NULL;
    }
    if (strchr(name_or_path, '/') || g_str_has_suffix(name_or_path, ".profile")
        || !search_dir) {
        path = g_strdup(name_or_path);
    } else {
        path = g_strdup_printf("%s/%s.profile", search_dir, name_or_path);
    }
    if (!hwm_read_file(path, HWM_PROFILE_MAX_BYTES, &text, &len, &local)) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE, "profile '%s': %s",
                    name_or_path, local->message);
        g_error_free(local);
        return NULL;
    }
    return hwm_profile_parse(text, len, path, errp);
}

void hwm_profile_copy(HwmProfile *dst, const HwmProfile *src)
{
    *dst = *src;
    dst->name = g_strdup(src->name);
    dst->source = g_strdup(src->source);
    dst->zone_rows = NULL;
    dst->seek_points = NULL;
    if (src->n_zone_rows) {
        dst->zone_rows = g_new(HwmZoneRow, src->n_zone_rows);
        memcpy(dst->zone_rows, src->zone_rows,
               src->n_zone_rows * sizeof(HwmZoneRow));
    }
    if (src->n_seek_points) {
        dst->seek_points = g_new(HwmSeekPoint, src->n_seek_points);
        memcpy(dst->seek_points, src->seek_points,
               src->n_seek_points * sizeof(HwmSeekPoint));
    }
}

void hwm_profile_clear(HwmProfile *p)
{
    g_clear_pointer(&p->name, g_free);
    g_clear_pointer(&p->source, g_free);
    g_clear_pointer(&p->zone_rows, g_free);
    g_clear_pointer(&p->seek_points, g_free);
    p->n_zone_rows = p->n_seek_points = 0;
}

void hwm_profile_free(HwmProfile *p)
{
    if (p) {
        hwm_profile_clear(p);
        g_free(p);
    }
}

const char *hwm_profile_name(const HwmProfile *p)
{
    return p->name;
}

const char *hwm_profile_source(const HwmProfile *p)
{
    return p->source;
}

uint64_t hwm_profile_capacity_bytes(const HwmProfile *p)
{
    return p->capacity_bytes;
}


char *hwm_profile_dump(const HwmProfile *p)
{
    GString *s = g_string_new(NULL);
    int mask = p->kind == HWM_KIND_HDD ? FOR_HDD : FOR_FLASH;

    g_string_append_printf(s, "# profile %s (from %s)\n", p->name, p->source);
    for (size_t i = 0; i < hwm_profile_nkeys; i++) {
        const KeyDef *k = &hwm_profile_keys[i];
        if (!(k->applies & mask)) {
            continue;
        }
        uint64_t v = fetch(p, k);
        const char *unit = hwm_profile_key_unit(k);
        if (p->origin[i] == HWM_ORIGIN_UNSET) {
            /* an optional data-sheet figure: a comment, so the dump
             * still parses to the same profile */
            g_string_append_printf(s, "# %s: not given    # %s%s%s "
                                   "[unset]\n", k->key, unit,
                                   *unit ? ", " : "", k->help);
            continue;
        }
        g_string_append_printf(s, "%s = ", k->key);
        switch (k->type) {
        case T_ENUM:
            g_string_append(s, k->names[v]);
            break;
        case T_BOOL:
            g_string_append(s, v ? "yes" : "no");
            break;
        default:
            hwm_append_decimal(s, v, k->scale);
        }
        g_string_append_printf(s, "    # %s%s%s ", unit, *unit ? ", " : "",
                               k->help);
        switch ((HwmOrigin)p->origin[i]) {
        case HWM_ORIGIN_GIVEN:
            g_string_append_printf(s, "[given, line %d]\n", p->line[i]);
            break;
        case HWM_ORIGIN_DERIVED:
            g_string_append_printf(s, "[derived: %s]\n", p->rule[i]);
            break;
        default:
            g_string_append(s, "[default]\n");
        }
    }
    for (size_t r = 0; r < hwm_profile_nrows; r++) {
        const RowDef *row = &hwm_profile_rows[r];
        uint32_t n = row->count(p);
        if (!(row->applies & mask)) {
            continue;
        }
        g_string_append_printf(s, "# %s rows: ", row->key);
        for (size_t c = 0; c < row->ncolumns; c++) {
            g_string_append_printf(s, "%s%s", c ? " " : "",
                                   row->columns[c].name);
        }
        g_string_append_printf(s, " (%s) [%s]\n", row->help,
                               n ? "given" : "none");
        for (uint32_t i = 0; i < n; i++) {
            uint64_t v[ROW_MAX_COLUMNS];
            row->get(p, i, v);
            g_string_append_printf(s, "%s =", row->key);
            for (size_t c = 0; c < row->ncolumns; c++) {
                g_string_append_c(s, ' ');
                hwm_append_decimal(s, v[c], row->columns[c].scale);
            }
            g_string_append_c(s, '\n');
        }
    }
    return g_string_free(s, FALSE);
}

