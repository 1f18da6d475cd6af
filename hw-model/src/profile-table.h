/*
 * The profile key table and the data-sheet derivation rules, private to
 * profile*.c: profile-keys.c holds the table (every key: name with unit,
 * type, media, default, bounds, help, rule), profile-rules.c the rules,
 * profile.c the parser that reads a file against them.
 */
#ifndef HWM_PROFILE_TABLE_H
#define HWM_PROFILE_TABLE_H

#include <stddef.h>

#include "profile.h"

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
    const struct Rule *rule;    /* derives the value when not given */
} KeyDef;

#define NS_PER_S 1000000000ull
#define NS_PER_MS 1000000ull
#define NS_PER_US 1000ull
#define MIB (1024ull * 1024ull)
#define KIB 1024ull

/* A derivation rule (profile-rules.c says how they work). */
typedef struct Rule {
    const char *name;               /* short name, shown by --dump-profile */
    const char *inputs[8];          /* keys it reads (NULL-terminated) */
    /* NULL: the value of its one input (a key that defaults to another) */
    bool (*fn)(const HwmProfile *p, uint64_t *out);
    const char *how;                /* the rule in words, for errors */
} Rule;

extern const Rule hwm_rule_after_write[HWM_OVH_KINDS];
extern const Rule hwm_rule_cache_segments;
extern const Rule hwm_rule_flush;
extern const Rule hwm_rule_full;
extern const Rule hwm_rule_head_switch;
extern const Rule hwm_rule_heads;
extern const Rule hwm_rule_inner_spt;
extern const Rule hwm_rule_kind_overhead;
extern const Rule hwm_rule_outer_spt;
extern const Rule hwm_rule_overhead;
extern const Rule hwm_rule_queue_depth;
extern const Rule hwm_rule_queue_window;
extern const Rule hwm_rule_read_segment;
extern const Rule hwm_rule_t2t;
extern const Rule hwm_rule_write_settle;
extern const Rule hwm_rule_writeback_window;
extern const Rule hwm_rule_write_cache;

/* ---- the key table (profile-keys.c) ------------------------------------- */

extern const KeyDef hwm_profile_keys[];
extern const size_t hwm_profile_nkeys;
/* type = N's name: "hdd", "flash" */
extern const char *const hwm_kind_names[];

/* ---- row keys (profile-keys.c) ------------------------------------------
 * A row key may repeat: each line is one row of a table, its values the
 * columns, whitespace-separated, each with its unit in its name.  The rows
 * of a drive's extraction: its zones and its measured seek curve. */

typedef struct {
    const char *name;      /* with unit, as --dump-profile names it */
    uint64_t scale;        /* field units per column unit (ns per ms) */
    uint64_t max;          /* in field units */
} RowColumn;

#define ROW_MAX_COLUMNS 10

typedef struct RowDef {
    const char *key;
    int applies;           /* FOR_* */
    const RowColumn *columns;
    size_t ncolumns;
    uint32_t max_rows;
    const char *help;
    /* append one parsed row to p: false with *why when it cannot follow
     * the rows before it */
    bool (*add)(HwmProfile *p, const uint64_t *v, const char **why);
    /* row i of p, in field units, for --dump-profile */
    void (*get)(const HwmProfile *p, uint32_t i, uint64_t *v);
    uint32_t (*count)(const HwmProfile *p);
    int *(*first_line)(HwmProfile *p);
} RowDef;

extern const RowDef hwm_profile_rows[];
extern const size_t hwm_profile_nrows;
/* The row key called `name`, or NULL. */
const RowDef *hwm_profile_find_row(const char *name);

/* The key called `name`, or NULL. */
const KeyDef *hwm_profile_find_key(const char *name);
/* The unit in a key's name as --dump-profile shows it, or "". */
const char *hwm_profile_key_unit(const KeyDef *k);
/* T_ENUM: its names, ", "-separated (free with g_free). */
char *hwm_profile_allowed_names(const KeyDef *k);
/* The key `name` meant with another unit (or none), or NULL. */
const KeyDef *hwm_profile_key_with_other_unit(const char *name);

#endif
