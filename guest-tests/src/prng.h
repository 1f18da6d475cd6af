/* Seeded deterministic PRNG for random offsets and data patterns: the same
 * seed gives the same sequence on every run and every machine.  The
 * generator is the model's and platter-sim's splitmix64, from the leaf
 * library (hw-model/common/platter-splitmix64.h). */
#ifndef PLATTER_PRNG_H
#define PLATTER_PRNG_H

#include <stdint.h>

struct prng {
    uint64_t state;
};

void prng_seed(struct prng *r, uint64_t seed);
uint64_t prng_next(struct prng *r);
/* Uniform integer in [0, bound), bound > 0, without modulo bias. */
uint64_t prng_below(struct prng *r, uint64_t bound);

#endif
