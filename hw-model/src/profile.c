/*
 * Profile files: `key = value` lines, the unit in the key name, `#` starts a
 * comment.  Every key lives in one table entry below: its name (with unit),
 * type, which media it applies to, whether it is required, its default and
 * its bounds.  GKeyFile is not used because it needs [groups] and cannot
 * report the line of a semantically bad value; this parser names file, line
 * and key for every error.
 */
#define _POSIX_C_SOURCE 200809L /* open(O_NONBLOCK), fstat: hwm_read_file */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile.h"

G_DEFINE_QUARK(hwm-error-quark, hwm_error)

typedef enum {
    T_COUNT,      /* plain integer */
    T_TIME,       /* decimal; scale = ns per unit */
    T_SIZE,       /* decimal; scale = bytes per unit */
    T_RATIO,      /* decimal; scale = field units per key unit */
    T_BOOL,       /* yes/no, on/off, true/false, 1/0 */
    T_ENUM,       /* one of names[] */
} KeyType;

enum { FOR_ALL = 3, FOR_HDD = 1, FOR_FLASH = 2 };

typedef struct {
    const char *key;
    KeyType type;
    uint64_t scale;        /* T_TIME, T_SIZE, T_RATIO: field units per key unit */
    size_t offset;         /* field in HwmProfile */
    size_t width;          /* sizeof field: 4 or 8 (1 for bool) */
    int applies;           /* FOR_* */
    bool required;
    const char *dflt;      /* text of the default, NULL when required */
    uint64_t min, max;     /* in field units, inclusive */
    const char *const *names;   /* T_ENUM: value i is names[i] */
    const char *help;
} KeyDef;

static const char *const kind_names[] = { "hdd", "flash", NULL };
static const char *const layout_names[] = { "cylinder", "serpentine", NULL };
static const char *const fua_method_names[] = {
    "in-place", "media-cache", "protected-buffer", NULL };
static const char *const flush_names[] = { "non-queued", "queued", NULL };
static const char *const read_ahead_names[] = { "off", "track", "segment",
                                                NULL };
/* HwmPolicy has PROFILE = 0; a profile names one of the real policies. */
static const char *const policy_names[] = { "(profile)", "fifo", "sptf", NULL };

#define F(field) offsetof(HwmProfile, field), sizeof(((HwmProfile *)0)->field)
#define NS_PER_MS 1000000ull
#define NS_PER_US 1000ull
#define MIB (1024ull * 1024ull)
#define KIB 1024ull

static const KeyDef keys[] = {
    { "type", T_ENUM, 1, F(kind), FOR_ALL, true, NULL, 0, 1, kind_names,
      "media: hdd (rotating) or flash" },
    { "capacity_bytes", T_SIZE, 1, F(capacity_bytes), FOR_ALL, true, NULL,
      1 * MIB, UINT64_MAX / 2, NULL, "user capacity" },

    { "rpm", T_COUNT, 1, F(rpm), FOR_HDD, true, NULL, 1000, 30000, NULL,
      "spindle speed" },
    { "heads", T_COUNT, 1, F(heads), FOR_HDD, true, NULL, 1, 64, NULL,
      "data surfaces" },
    { "zones", T_COUNT, 1, F(zones), FOR_HDD, true, NULL, 1, 1024, NULL,
      "recording zones, equal cylinders each, outer to inner" },
    { "outer_sectors_per_track", T_COUNT, 1, F(outer_sectors_per_track),
      FOR_HDD, true, NULL, 16, 1u << 20, NULL,
      "512-byte sectors on an outermost-zone track" },
    { "inner_sectors_per_track", T_COUNT, 1, F(inner_sectors_per_track),
      FOR_HDD, true, NULL, 16, 1u << 20, NULL,
      "512-byte sectors on an innermost-zone track" },
    { "layout", T_ENUM, 1, F(layout), FOR_HDD, false, "cylinder", 0, 1,
      layout_names, "LBA order: cylinder-major or serpentine bands" },
    { "serpentine_band_cylinders", T_COUNT, 1, F(serpentine_band_cylinders),
      FOR_HDD, false, "256", 1, 1u << 20, NULL,
      "cylinders one head covers before the next head (serpentine)" },
    { "seek_track_to_track_ms", T_TIME, NS_PER_MS, F(seek_track_to_track_ns),
      FOR_HDD, true, NULL, 1, 100 * NS_PER_MS, NULL,
      "seek of one cylinder (read)" },
    { "seek_avg_ms", T_TIME, NS_PER_MS, F(seek_avg_ns), FOR_HDD, true, NULL,
      1, 100 * NS_PER_MS, NULL, "seek over a third of the stroke (read)" },
    { "seek_full_stroke_ms", T_TIME, NS_PER_MS, F(seek_full_stroke_ns),
      FOR_HDD, true, NULL, 1, 200 * NS_PER_MS, NULL,
      "seek over the whole stroke (read)" },
    { "write_settle_ms", T_TIME, NS_PER_MS, F(write_settle_ns), FOR_HDD,
      false, "0", 0, 10 * NS_PER_MS, NULL,
      "extra settle before writing after a seek or head switch" },
    { "head_switch_ms", T_TIME, NS_PER_MS, F(head_switch_ns), FOR_HDD, true,
      NULL, 1, 10 * NS_PER_MS, NULL, "switch to another head, same cylinder" },
    { "media_cache_cylinder_pct", T_COUNT, 1, F(media_cache_cylinder_pct),
      FOR_HDD, false, "50", 0, 100, NULL,
      "position of the media-cache log across the stroke (0 = outer)" },
    { "post_seek_write_miss_pct", T_RATIO, 10000, F(post_seek_write_miss_ppm),
      FOR_HDD, false, "0", 0, 1000000, NULL,
      "writes after an average seek that off-track write inhibit aborts "
      "(scaled by seek time; none after a track-to-track seek or a head "
      "switch); the sector is written a revolution later" },
    { "read_segments", T_COUNT, 1, F(read_segments), FOR_HDD, false, "16",
      0, 1024, NULL,
      "read cache segments, each one contiguous range (0: no read cache)" },
    { "read_segment_kb", T_SIZE, KIB, F(read_segment_bytes), FOR_HDD, false,
      "1024", 4 * KIB, 1024 * MIB, NULL, "bytes one read segment holds" },
    { "read_segments_shared", T_BOOL, 1, F(read_segments_shared), FOR_HDD,
      false, "yes", 0, 1, NULL,
      "yes: read segments live in the cache_mb buffer, as many as the "
      "room dirty data leaves (dirty data evicts them); no: a buffer of "
      "their own" },
    { "read_ahead", T_ENUM, 1, F(read_ahead), FOR_HDD, false, "segment", 0,
      2, read_ahead_names,
      "after a read from the media, keep reading: off, to the end of the "
      "track, or a segment ahead of what the host has read (segment)" },
    { "read_ahead_abandon", T_BOOL, 1, F(read_ahead_abandon), FOR_HDD, false,
      "yes", 0, 1, NULL,
      "a command that needs the media stops the read-ahead at once "
      "(no: it waits for the read-ahead to end)" },
    { "zero_latency_read", T_BOOL, 1, F(zero_latency_read), FOR_HDD, false,
      "yes", 0, 1, NULL,
      "read-on-arrival: read a track's requested sectors from the first "
      "to come round, not from the first in order" },

    { "parallel_units", T_COUNT, 1, F(parallel_units), FOR_FLASH, true, NULL,
      1, 4096, NULL, "dies that program or read at once" },
    { "read_us", T_TIME, NS_PER_US, F(read_ns), FOR_FLASH, true, NULL, 1,
      10 * NS_PER_MS, NULL, "array read of one page" },
    { "program_us", T_TIME, NS_PER_US, F(program_ns), FOR_FLASH, true, NULL,
      1, 100 * NS_PER_MS, NULL, "program of one program unit" },
    { "program_kb", T_SIZE, KIB, F(program_bytes), FOR_FLASH, false, "16",
      4 * KIB, 1 * MIB, NULL, "bytes one program operation writes" },

    { "command_overhead_us", T_TIME, NS_PER_US, F(command_overhead_ns),
      FOR_ALL, false, "0", 0, 100 * NS_PER_MS, NULL,
      "controller time to take a command and report it" },
    { "interface_mb_s", T_SIZE, 1000000, F(interface_bytes_per_s), FOR_ALL,
      false, "600", 1000000, 1000000000000ull, NULL,
      "host link rate (MB = 10^6 bytes)" },
    { "queue_depth", T_COUNT, 1, F(queue_depth), FOR_ALL, false, "32", 1,
      65536, NULL, "commands the device holds at once" },
    { "queue_policy", T_ENUM, 1, F(policy), FOR_ALL, false, "sptf", 1, 2,
      policy_names, "command order: fifo or sptf (shortest positioning)" },
    { "sptf_max_wait_ms", T_TIME, NS_PER_MS, F(sptf_max_wait_ns), FOR_ALL,
      false, "500", 1, 100000 * NS_PER_MS, NULL,
      "a command older than this is served before shorter ones (aging)" },

    { "write_cache", T_BOOL, 1, F(write_cache), FOR_ALL, false, "yes", 0, 1,
      NULL, "volatile write cache enabled (WCE)" },
    { "cache_mb", T_SIZE, MIB, F(cache_bytes), FOR_ALL, false, "0", 0,
      UINT64_MAX / 2, NULL, "write cache capacity (MiB)" },
    { "cache_segments", T_COUNT, 1, F(cache_segments), FOR_ALL, false,
      "4096", 1, 1u << 24, NULL, "dirty extents the cache can track" },
    { "cache_high_water_pct", T_COUNT, 1, F(high_water_pct), FOR_ALL, false,
      "75", 1, 100, NULL, "write back while dirty above this share" },
    { "idle_destage_delay_ms", T_TIME, NS_PER_MS, F(idle_destage_delay_ns),
      FOR_ALL, false, "100", 0, 1000000 * NS_PER_MS, NULL,
      "write back when no command arrived for this long" },
    { "destage_max_kb", T_SIZE, KIB, F(destage_max_bytes), FOR_ALL, false,
      "1024", 4 * KIB, 1024 * MIB, NULL, "largest single write-back" },

    { "fua", T_BOOL, 1, F(fua), FOR_ALL, false, "yes", 0, 1, NULL,
      "native FUA advertised to the host" },
    { "fua_method", T_ENUM, 1, F(fua_method), FOR_ALL, false, "in-place", 0,
      2, fua_method_names, "how a FUA write is made durable" },
    { "flush", T_ENUM, 1, F(flush_mode), FOR_ALL, false, "non-queued", 0, 1,
      flush_names, "non-queued (waits for the queue: SATA) or queued (NVMe)" },
    { "flush_commit_us", T_TIME, NS_PER_US, F(flush_commit_ns), FOR_ALL,
      false, "0", 0, 1000 * NS_PER_MS, NULL,
      "flush routine after a flush's write-back (write cache on; "
      "one flush at a time)" },
};

#define NKEYS G_N_ELEMENTS(keys)

static const KeyDef *find_key(const char *name)
{
    for (size_t i = 0; i < NKEYS; i++) {
        if (strcmp(keys[i].key, name) == 0) {
            return &keys[i];
        }
    }
    return NULL;
}

/* The units a key name may end in, and how --dump-profile names them. */
static const struct {
    const char *suffix;
    const char *name;
} key_units[] = {
    { "ms", "ms" }, { "us", "us" }, { "ns", "ns" }, { "mb_s", "MB/s" },
    { "mb", "MiB" }, { "kb", "KiB" }, { "bytes", "bytes" }, { "pct", "%" },
};

/* The unit in a key's name, or "" for a count, a name or a yes/no (the
 * last word is not always a unit: queue_depth, interface_mb_s). */
static const char *unit_of(const KeyDef *k)
{
    for (size_t u = 0; u < G_N_ELEMENTS(key_units); u++) {
        g_autofree char *tail = g_strconcat("_", key_units[u].suffix, NULL);
        if (g_str_has_suffix(k->key, tail)) {
            return key_units[u].name;
        }
    }
    return "";
}

bool hwm_parse_decimal(const char *s, uint64_t scale, uint64_t *out,
                       const char **why)
{
    uint64_t ip = 0, frac_num = 0, frac_den = 1;
    const char *p = s;
    bool digits = false;

    for (; g_ascii_isdigit(*p); p++, digits = true) {
        if (ip > (UINT64_MAX - 9) / 10) {
            *why = "too large";
            return false;
        }
        ip = ip * 10 + (uint64_t)(*p - '0');
    }
    if (*p == '.') {
        for (p++; g_ascii_isdigit(*p); p++, digits = true) {
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

static char *allowed_names(const KeyDef *k)
{
    GString *s = g_string_new(NULL);
    for (uint64_t i = k->min; i <= k->max; i++) {
        g_string_append_printf(s, "%s%s", i > k->min ? ", " : "", k->names[i]);
    }
    return g_string_free(s, FALSE);
}

/* Suggest the right key when the user left out or changed the unit. */
static const KeyDef *key_with_other_unit(const char *name)
{
    g_autofree char *stem = g_strdup(name);
    char *us = strrchr(stem, '_');

    for (int pass = 0; pass < 2; pass++) {
        for (size_t u = 0; u < G_N_ELEMENTS(key_units); u++) {
            g_autofree char *cand = g_strdup_printf("%s_%s", stem,
                                                    key_units[u].suffix);
            const KeyDef *k = find_key(cand);
            if (k) {
                return k;
            }
        }
        if (!us) {
            break;
        }
        *us = '\0';     /* second pass: drop the unit the user wrote */
    }
    return NULL;
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
        if (p->inner_sectors_per_track > p->outer_sectors_per_track) {
            g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                        "%s: key 'inner_sectors_per_track': %u exceeds "
                        "outer_sectors_per_track %u (outer tracks are longer)",
                        src, p->inner_sectors_per_track,
                        p->outer_sectors_per_track);
            return false;
        }
        if (!(p->seek_track_to_track_ns <= p->seek_avg_ns &&
              p->seek_avg_ns <= p->seek_full_stroke_ns)) {
            g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                        "%s: keys 'seek_track_to_track_ms' <= 'seek_avg_ms' "
                        "<= 'seek_full_stroke_ms' must hold", src);
            return false;
        }
    }
    if (p->write_cache && p->cache_bytes < 64 * KIB) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                    "%s: key 'cache_mb': write_cache = yes needs a cache "
                    "(cache_mb >= 1)", src);
        return false;
    }
    return true;
}

HwmProfile *hwm_profile_parse(const char *text, gsize len, const char *source,
                              GError **errp)
{
    g_autoptr(HwmProfile) p = g_new0(HwmProfile, 1);
    g_autofree bool *seen = g_new0(bool, NKEYS);
    g_autofree int *seen_line = g_new0(int, NKEYS);
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

        const KeyDef *k = find_key(name);
        if (!k) {
            const KeyDef *alt = key_with_other_unit(name);
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
        size_t idx = (size_t)(k - keys);
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
                k->type == T_ENUM ? allowed_names(k) : NULL;
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
                    "%s: missing key 'type' (%s)", p->source, keys[0].help);
        return NULL;
    }
    int mask = p->kind == HWM_KIND_HDD ? FOR_HDD : FOR_FLASH;
    for (size_t i = 0; i < NKEYS; i++) {
        const KeyDef *k = &keys[i];
        if (!(k->applies & mask)) {
            if (seen[i]) {
                g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                            "%s:%d: key '%s' does not apply to type = %s",
                            p->source, seen_line[i], k->key,
                            kind_names[p->kind]);
                return NULL;
            }
            continue;
        }
        if (seen[i]) {
            continue;
        }
        if (k->required) {
            g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                        "%s: missing key '%s' (%s)", p->source, k->key,
                        k->help);
            return NULL;
        }
        uint64_t v;
        const char *why = NULL;
        if (!parse_value(k, k->dflt, &v, &why)) {
            g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                        "internal: default of '%s' is bad: %s", k->key, why);
            return NULL;
        }
        store(p, k, v);
    }
    if (!check_profile(p, errp)) {
        return NULL;
    }
    return g_steal_pointer(&p);
}

bool hwm_read_file(const char *path, gsize max_bytes, char **text,
                   gsize *len, GError **errp)
{
    struct stat st;
    g_autofree char *buf = NULL;
    gsize got = 0;
    bool ok = false;
    /* non-blocking: opening a FIFO with no writer returns at once, so
     * fstat() can refuse it instead of the read hanging */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

    if (fd < 0) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID, "cannot read %s: %s",
                    path, g_strerror(errno));
        return false;
    }
    if (fstat(fd, &st) != 0) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID, "cannot read %s: %s",
                    path, g_strerror(errno));
    } else if (!S_ISREG(st.st_mode)) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID,
                    "%s is not a regular file (a %s): refused", path,
                    S_ISDIR(st.st_mode) ? "directory" :
                    S_ISFIFO(st.st_mode) ? "FIFO" :
                    S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "device" :
                    "socket or other special file");
    } else if ((guint64)st.st_size > max_bytes) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID,
                    "%s is too large: %" G_GUINT64_FORMAT " bytes, at most %"
                    G_GSIZE_FORMAT, path, (guint64)st.st_size, max_bytes);
    } else {
        /* one byte more than allowed: a file that grew is caught too */
        buf = g_malloc((gsize)st.st_size + 2);
        gsize want = (gsize)st.st_size + 1;
        ssize_t n = 1;
        while (got < want && (n = read(fd, buf + got, want - got)) > 0) {
            got += (gsize)n;
        }
        if (n < 0) {
            g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID,
                        "cannot read %s: %s", path, g_strerror(errno));
        } else if (got > (gsize)st.st_size) {
            g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID,
                        "%s changed while it was read", path);
        } else {
            buf[got] = '\0';
            ok = true;
        }
    }
    close(fd);
    if (ok) {
        *text = g_steal_pointer(&buf);
        *len = got;
    }
    return ok;
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

void hwm_profile_free(HwmProfile *p)
{
    if (p) {
        g_free(p->name);
        g_free(p->source);
        g_free(p);
    }
}

const char *hwm_profile_name(const HwmProfile *p)
{
    return p->name;
}

uint64_t hwm_profile_capacity_bytes(const HwmProfile *p)
{
    return p->capacity_bytes;
}

/* Write a value in the key's own unit, exactly (no floating point). */
void hwm_append_decimal(GString *s, uint64_t v, uint64_t scale)
{
    g_string_append_printf(s, "%" G_GUINT64_FORMAT, v / scale);
    uint64_t rem = v % scale;
    if (rem) {
        int digits = 0;
        for (uint64_t d = scale; d > 1; d /= 10) {
            digits++;
        }
        char buf[32];
        g_snprintf(buf, sizeof buf, "%0*" G_GUINT64_FORMAT, digits, rem);
        for (int i = digits - 1; i > 0 && buf[i] == '0'; i--) {
            buf[i] = '\0';
        }
        g_string_append_printf(s, ".%s", buf);
    }
}

char *hwm_profile_dump(const HwmProfile *p)
{
    GString *s = g_string_new(NULL);
    int mask = p->kind == HWM_KIND_HDD ? FOR_HDD : FOR_FLASH;

    g_string_append_printf(s, "# profile %s (from %s)\n", p->name, p->source);
    for (size_t i = 0; i < NKEYS; i++) {
        const KeyDef *k = &keys[i];
        if (!(k->applies & mask)) {
            continue;
        }
        uint64_t v = fetch(p, k);
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
        const char *unit = unit_of(k);
        g_string_append_printf(s, "    # %s%s%s\n", unit, *unit ? ", " : "",
                               k->help);
    }
    return g_string_free(s, FALSE);
}
