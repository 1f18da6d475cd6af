/*
 * splitmix64, the one seeded PRNG of platter's C code: the model's
 * write-miss draws, platter-sim's random workloads, the tests and
 * benchmarks, and the guest programs' offsets and data patterns.  The
 * same seed gives the same sequence on every machine.
 *
 * Header-only and needing only <stdint.h>: part of the leaf library
 * (hw-model/common/), which the static guest programs, built without glib,
 * use without any hw-model header; the model gets it through hwm.h.  The
 * name keeps the hwm_ prefix it had in the model (see platter-decimal.h).
 *
 * Copyright (C) 2026 the platter authors.  GPL-2.0-or-later.
 */
#ifndef PLATTER_SPLITMIX64_H
#define PLATTER_SPLITMIX64_H

#include <stdint.h>

/* Advance `*state` and return its next output.  Any seed is fine (0
 * included): the state walks the whole 64-bit period. */
static inline uint64_t hwm_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

#endif
