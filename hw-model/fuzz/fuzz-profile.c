/* Fuzz target: the profile parser.  Any text must give a profile or an
 * error with a message; a profile must dump to text that parses to the
 * same profile, and must make a device or refuse with a message. */
#include <stdlib.h>
#include <string.h>

#include "hwm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    GError *err = NULL;
    HwmProfile *p = hwm_profile_parse((const char *)data, size, "fuzz", &err);

    if (!p) {
        if (!err || !err->message[0]) {
            abort();
        }
        g_error_free(err);
        return 0;
    }
    char *dump = hwm_profile_dump(p);
    HwmProfile *again = hwm_profile_parse(dump, strlen(dump), "fuzz", &err);
    if (!again) {
        g_printerr("dump does not parse: %s\n%s", err->message, dump);
        abort();
    }
    char *dump2 = hwm_profile_dump(again);
    /* the same values; the origin marks differ ("[given, line N]") */
    GRegex *re = g_regex_new(" \\[[^]\n]*\\]\n", 0, 0, NULL);
    char *v1 = g_regex_replace_literal(re, dump, -1, 0, "\n", 0, NULL);
    char *v2 = g_regex_replace_literal(re, dump2, -1, 0, "\n", 0, NULL);
    if (strcmp(strchr(v1, '\n'), strchr(v2, '\n')) != 0) {
        abort();
    }
    g_free(v1);
    g_free(v2);
    g_regex_unref(re);
    HwmDevice *d = hwm_device_new(p, NULL, &err);
    if (d) {
        HwmRequest r = { .op = HWM_OP_WRITE, .length = 4096 };
        if (hwm_submit(d, 0, &r, NULL)) {
            HwmEvent ev[4];
            hwm_ns t;
            while ((t = hwm_next_event(d)) != HWM_NEVER) {
                hwm_advance(d, t, ev, G_N_ELEMENTS(ev));
            }
        }
        hwm_device_free(d);
    } else {
        if (!err->message[0]) {
            abort();
        }
        g_clear_error(&err);
    }
    g_free(dump);
    g_free(dump2);
    hwm_profile_free(again);
    hwm_profile_free(p);
    return 0;
}
