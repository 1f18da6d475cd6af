#include "prng.h"

#include "platter-splitmix64.h"

void prng_seed(struct prng *r, uint64_t seed)
{
    r->state = seed;
}

uint64_t prng_next(struct prng *r)
{
    return hwm_splitmix64(&r->state);
}

uint64_t prng_below(struct prng *r, uint64_t bound)
{
    /* Reject the top partial block of 2^64 so every value is equally
     * likely; with bound ~ 2^25 (100 GiB / 4 KiB) rejection is ~never. */
    uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
    uint64_t x;
    do
        x = prng_next(r);
    while (x >= limit);
    return x % bound;
}
