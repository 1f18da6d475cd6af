/*
 * What the hw-model unit tests share (model-test.c).  Each test file
 * covers one subject and is a test of its own in meson.
 */
#ifndef HWM_MODEL_TEST_H
#define HWM_MODEL_TEST_H

#include "hwm.h"

#define MS 1000000ll

/* A shipped profile by name (PROFILE_DIR), or one from text. */
HwmProfile *load(const char *name);
HwmProfile *parse(const char *text);
/* A shipped profile with keys set: `kv` is key, value, ..., NULL; a key
 * the profile gives is replaced, another is added. */
HwmProfile *load_set(const char *name, const char *const *kv);
HwmDevice *device(const HwmProfile *p, HwmTristate wce, HwmPolicy pol);
void submit(HwmDevice *d, hwm_ns t, uint64_t tag, HwmOp op, uint32_t flags,
            uint64_t off, uint64_t len);
/* Run until the next completion; returns it (DURABLE events skipped). */
HwmEvent next_completion(HwmDevice *d);

/* One zone, 2000 sectors a track, 7200 rpm, no cache: exact figures the
 * tests compute with, not a class's defaults. */
extern const char *const seek_profile;

#endif
