#include <stdlib.h>

#include "profiles.h"

const HwmProfile *fuzz_profile(unsigned i)
{
    static const char *const names[FUZZ_PROFILES] = {
        "st20000nm007d", "generic-7200", "990pro", "ideal" };
    static HwmProfile *loaded[FUZZ_PROFILES];   /* for the process' life */

    i %= FUZZ_PROFILES;
    if (!loaded[i]) {
        GError *err = NULL;
        loaded[i] = hwm_profile_load(names[i], PROFILE_DIR, &err);
        if (!loaded[i]) {
            g_printerr("fuzz: %s\n", err->message);
            abort();
        }
    }
    return loaded[i];
}
