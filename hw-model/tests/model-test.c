/*
 * What the hw-model unit tests (test-*.c by subject) share: loading and
 * parsing profiles, a device, submitting a request, running to the next
 * completion, and the small rotating profile whose figures they compute
 * with.
 */
#include <string.h>

#include "model-test.h"

HwmProfile *load(const char *name)
{
    GError *err = NULL;
    HwmProfile *p = hwm_profile_load(name, PROFILE_DIR, &err);
    g_assert_no_error(err);
    return p;
}

HwmProfile *parse(const char *text)
{
    GError *err = NULL;
    HwmProfile *p = hwm_profile_parse(text, strlen(text), "test.profile", &err);
    g_assert_no_error(err);
    return p;
}

HwmDevice *device(const HwmProfile *p, HwmTristate wce, HwmPolicy pol)
{
    GError *err = NULL;
    HwmConfig cfg = { .write_cache = wce, .policy = pol };
    HwmDevice *d = hwm_device_new(p, &cfg, &err);
    g_assert_no_error(err);
    return d;
}

void submit(HwmDevice *d, hwm_ns t, uint64_t tag, HwmOp op,
                   uint32_t flags, uint64_t off, uint64_t len)
{
    GError *err = NULL;
    HwmRequest r = { .tag = tag, .op = op, .flags = flags, .offset = off,
                     .length = op == HWM_OP_FLUSH ? 0 : len };
    g_assert_true(hwm_submit(d, t, &r, &err));
    g_assert_no_error(err);
}

/* Run until the next completion; returns it (DURABLE events skipped). */
HwmEvent next_completion(HwmDevice *d)
{
    HwmEvent ev;
    for (;;) {
        hwm_ns t = hwm_next_event(d);
        g_assert_cmpint(t, !=, HWM_NEVER);
        if (hwm_advance(d, t, &ev, 1) == 1 && ev.kind == HWM_EV_COMPLETE) {
            return ev;
        }
    }
}

const char *const seek_profile =
    "type = hdd\ncapacity_bytes = 100000000000\nrpm = 7200\nheads = 4\n"
    "zones = 1\nouter_sectors_per_track = 2000\ninner_sectors_per_track = 2000\n"
    "layout = cylinder\nseek_track_to_track_ms = 1.25\nseek_avg_ms = 9\n"
    "seek_full_stroke_ms = 18.5\nhead_switch_ms = 0.75\nwrite_cache = no\n"
    /* exact figures the tests compute with, not the class defaults */
    "write_settle_ms = 0\ncommand_overhead_us = 0\nread_segment_kb = 1024\n";

/* A shipped profile with keys set: `kv` is key, value, ..., NULL; a key
 * the profile gives is replaced, another is added. */
HwmProfile *load_set(const char *name, const char *const *kv)
{
    g_autofree char *path = g_strdup_printf("%s/%s.profile", PROFILE_DIR, name);
    g_autofree char *text = NULL;
    g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
    g_autoptr(GString) out = g_string_new(text);
    for (; kv[0]; kv += 2) {
        g_autofree char *pattern = g_strdup_printf("(?m)^%s *=[^#\n]*", kv[0]);
        g_autofree char *repl = g_strdup_printf("%s = %s ", kv[0], kv[1]);
        g_autoptr(GRegex) re = g_regex_new(pattern, 0, 0, NULL);
        g_autofree char *next = g_regex_replace_literal(re, out->str, -1, 0,
                                                        repl, 0, NULL);
        if (g_str_equal(next, out->str)) {
            g_string_append_printf(out, "\n%s = %s\n", kv[0], kv[1]);
        } else {
            g_string_assign(out, next);
        }
    }
    return parse(out->str);
}
