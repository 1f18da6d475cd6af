/*
 * The platter-trace format (hwm.h): the text both platter-sim --trace-out
 * and the QEMU driver's trace=FILE write, and the pieces of it platter-sim's
 * replay parser takes from here, so writer and reader share one definition.
 * No I/O: everything appends to a GString or reads a string.
 *
 * Copyright (C) 2026 the platter authors.  GPL-2.0-or-later.
 */
#include <stddef.h>
#include <string.h>

#include "hwm.h"

static const char op_letters[] = { [HWM_OP_READ] = 'R', [HWM_OP_WRITE] = 'W',
                                   [HWM_OP_FLUSH] = 'F',
                                   [HWM_OP_DISCARD] = 'D' };

/* The device line's keys, in the order they are written. */
typedef enum { K_NAME, K_BYTES, K_BOOL, K_COUNT } KeyType;

static const struct {
    const char *key;
    KeyType type;
    size_t offset;              /* in HwmTraceDevice */
} dev_keys[] = {
    { "profile", K_NAME, offsetof(HwmTraceDevice, profile) },
    { "capacity", K_BYTES, offsetof(HwmTraceDevice, capacity_bytes) },
    { "fua", K_BOOL, offsetof(HwmTraceDevice, fua) },
    { "write-cache", K_BOOL, offsetof(HwmTraceDevice, write_cache) },
    { "queue-depth", K_COUNT, offsetof(HwmTraceDevice, queue_depth) },
};

/* key i's member of a device, to read (GET) or to set (SET) */
#define GET(d, i, type) ((const type *)((const char *)(d) + dev_keys[i].offset))
#define SET(d, i, type) ((type *)((char *)(d) + dev_keys[i].offset))

/* Key i's value as the trace writes it.  Caller frees. */
static char *key_value(const HwmTraceDevice *d, size_t i)
{
    switch (dev_keys[i].type) {
    case K_NAME:
        return g_strdup(*GET(d, i, char *));
    case K_BYTES:
        return g_strdup_printf("%" G_GUINT64_FORMAT, *GET(d, i, uint64_t));
    case K_BOOL:
        return g_strdup(*GET(d, i, bool) ? "1" : "0");
    case K_COUNT:
        return g_strdup_printf("%u", *GET(d, i, uint32_t));
    }
    g_assert_not_reached();
}

HwmTraceDevice hwm_trace_device(const HwmProfile *p, const HwmDevice *dev)
{
    return (HwmTraceDevice){
        .profile = hwm_profile_name(p),
        .capacity_bytes = hwm_device_capacity_bytes(dev),
        .fua = hwm_device_fua(dev),
        .write_cache = hwm_device_write_cache(dev),
        .queue_depth = hwm_device_queue_depth(dev),
    };
}

void hwm_trace_append_header(GString *s, const HwmTraceDevice *d)
{
    g_string_append_printf(s, "# %s v%d\n#", HWM_TRACE_MAGIC,
                           HWM_TRACE_VERSION);
    for (size_t i = 0; i < G_N_ELEMENTS(dev_keys); i++) {
        g_autofree char *v = key_value(d, i);
        g_string_append_printf(s, " %s=%s", dev_keys[i].key, v);
    }
    g_string_append_c(s, '\n');
}

void hwm_trace_append_request(GString *s, const HwmEvent *e)
{
    g_string_append_printf(s, "%" G_GINT64_FORMAT " %c %" G_GUINT64_FORMAT
                           " %" G_GUINT64_FORMAT " %s # done=%"
                           G_GINT64_FORMAT "\n", e->submit_ns,
                           op_letters[e->op], e->offset, e->length,
                           (e->flags & HWM_REQ_FUA) ? "FUA" : "-",
                           e->time_ns);
}

void hwm_trace_append_power_cut(GString *s, hwm_ns at, uint64_t lost_bytes)
{
    g_string_append_printf(s, "# power-cut at=%" G_GINT64_FORMAT " lost=%"
                           G_GUINT64_FORMAT "\n", at, lost_bytes);
}

struct HwmTraceOrder {
    GHashTable *done;           /* &HwmEvent.tag (its seq) -> HwmEvent */
    uint64_t submitted;         /* commands taken */
    uint64_t written;           /* commands before this one are written */
};

HwmTraceOrder *hwm_trace_order_new(void)
{
    HwmTraceOrder *o = g_new0(HwmTraceOrder, 1);
    o->done = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL,
                                    g_free);
    return o;
}

void hwm_trace_order_free(HwmTraceOrder *o)
{
    if (o) {
        g_hash_table_unref(o->done);
        g_free(o);
    }
}

uint64_t hwm_trace_order_submitted(HwmTraceOrder *o)
{
    return o->submitted++;
}

/* Write what is due; `cut`: what is still missing never comes. */
static void order_write(HwmTraceOrder *o, bool cut, GString *s)
{
    for (; o->written < o->submitted; o->written++) {
        uint64_t seq = o->written;
        HwmEvent *e = g_hash_table_lookup(o->done, &seq);
        if (!e && !cut) {
            break;
        }
        if (e) {
            hwm_trace_append_request(s, e);
            g_hash_table_remove(o->done, &seq);
        }
    }
}

void hwm_trace_order_completed(HwmTraceOrder *o, uint64_t seq,
                               const HwmEvent *e, GString *s)
{
    HwmEvent *held = g_new(HwmEvent, 1);

    g_assert(seq >= o->written && seq < o->submitted);
    *held = *e;
    held->tag = seq;            /* the key; a request line has no tag */
    g_hash_table_insert(o->done, &held->tag, held);
    order_write(o, false, s);
}

void hwm_trace_order_power_cut(HwmTraceOrder *o, hwm_ns at,
                               uint64_t lost_bytes, GString *s)
{
    order_write(o, true, s);
    hwm_trace_append_power_cut(s, at, lost_bytes);
}

bool hwm_trace_parse_op(const char *text, HwmOp *op)
{
    for (size_t i = 0; i < G_N_ELEMENTS(op_letters); i++) {
        if (text[0] == op_letters[i] && text[1] == '\0') {
            *op = (HwmOp)i;
            return true;
        }
    }
    return false;
}

bool hwm_trace_parse_flags(const char *text, uint32_t *flags)
{
    if (!strcmp(text, "-") || !strcmp(text, "FUA")) {
        *flags = text[0] == 'F' ? HWM_REQ_FUA : 0;
        return true;
    }
    return false;
}

static bool parse_value(HwmTraceDevice *out, size_t i, char *v,
                        GError **errp)
{
    const char *why = "not 0 or 1";
    uint64_t n;

    if (!*v) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID, "key '%s': no value",
                    dev_keys[i].key);
        return false;
    }
    switch (dev_keys[i].type) {
    case K_NAME:
        *SET(out, i, const char *) = v;
        return true;
    case K_BOOL:
        if (!strcmp(v, "0") || !strcmp(v, "1")) {
            *SET(out, i, bool) = v[0] == '1';
            return true;
        }
        break;
    case K_BYTES:
        if (hwm_parse_decimal(v, 1, &n, &why)) {
            if (n > 0 && n % HWM_SECTOR_BYTES == 0) {
                *SET(out, i, uint64_t) = n;
                return true;
            }
            why = "not a positive multiple of 512 bytes";
        }
        break;
    case K_COUNT:
        if (hwm_parse_decimal(v, 1, &n, &why)) {
            if (n > 0 && n <= UINT32_MAX) {
                *SET(out, i, uint32_t) = (uint32_t)n;
                return true;
            }
            why = "not 1 to 4294967295";
        }
        break;
    }
    g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID, "key '%s': '%s': %s",
                dev_keys[i].key, v, why);
    return false;
}

bool hwm_trace_parse_device(char *text, HwmTraceDevice *out, uint32_t *given,
                            GError **errp)
{
    static const char blanks[] = " \t\r";

    *out = (HwmTraceDevice){ 0 };
    *given = 0;
    for (char *tok = text + strspn(text, blanks); *tok;
         tok += strspn(tok, blanks)) {
        size_t len = strcspn(tok, blanks), i = 0;
        char *next = tok[len] ? tok + len + 1 : tok + len;
        char *eq = memchr(tok, '=', len);
        tok[len] = '\0';
        if (eq) {
            *eq = '\0';
            while (i < G_N_ELEMENTS(dev_keys) && strcmp(dev_keys[i].key, tok)) {
                i++;
            }
        }
        if (!eq || i == G_N_ELEMENTS(dev_keys)) {
            g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID,
                        "%s '%s' (the keys: profile, capacity, fua, "
                        "write-cache, queue-depth)",
                        eq ? "unknown key" : "not KEY=VALUE", tok);
            return false;
        }
        if (*given & (1u << i)) {
            g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID,
                        "key '%s' given twice", tok);
            return false;
        }
        if (!parse_value(out, i, eq + 1, errp)) {
            return false;
        }
        *given |= 1u << i;
        tok = next;
    }
    return true;
}

char *hwm_trace_device_diff(const HwmTraceDevice *trace, uint32_t given,
                            const HwmTraceDevice *dev)
{
    g_autoptr(GString) s = g_string_new(NULL);

    for (size_t i = 0; i < G_N_ELEMENTS(dev_keys); i++) {
        g_autofree char *t = NULL, *d = NULL;
        if (!(given & (1u << i))) {
            continue;
        }
        t = key_value(trace, i);
        d = key_value(dev, i);
        if (strcmp(t, d) != 0) {
            g_string_append_printf(s, "%s%s=%s (this device: %s)",
                                   s->len ? ", " : "", dev_keys[i].key, t, d);
        }
    }
    return s->len ? g_string_free(g_steal_pointer(&s), FALSE) : NULL;
}
