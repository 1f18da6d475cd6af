#include "pattern.h"

#include <stdint.h>
#include <string.h>


void pattern_init(struct write_pattern *p, int random, uint64_t bs,
                  uint64_t span_bytes, uint64_t base_bytes, uint64_t seed)
{
    p->random = random;
    p->bs = bs;
    p->span_bytes = span_bytes;
    p->base_bytes = base_bytes;
    p->next_block = 0;
    prng_seed(&p->rng, seed);
}

uint64_t pattern_next(struct write_pattern *p)
{
    uint64_t blocks = p->span_bytes / p->bs;
    uint64_t blk = p->random ? prng_below(&p->rng, blocks)
                             : p->next_block++ % blocks;
    return p->base_bytes + blk * p->bs;
}

int pattern_parse(const char *s)
{
    if (!strcmp(s, "rand") || !strcmp(s, "random"))
        return 1;
    if (!strcmp(s, "seq") || !strcmp(s, "sequential"))
        return 0;
    return -1;
}

int pattern_arg(const char *value, void *dst)
{
    int random = pattern_parse(value);

    if (random < 0)
        return -1;
    *(int *)dst = random;
    return 0;
}

const char *pattern_opts_check(const struct pattern_opts *o)
{
    if (o->bs == 0 || o->bs % 512 || o->span_bytes < o->bs ||
        o->base_bytes % o->bs)
        return "need --bs a multiple of 512, --span >= --bs, --offset "
               "aligned to --bs";
    /* every offset is an off_t: past 2^63 - 1 the sum wrapped, passed the
     * device-size check and failed at the first write (EINVAL) */
    if (o->span_bytes > (uint64_t)INT64_MAX ||
        o->base_bytes > (uint64_t)INT64_MAX - o->span_bytes)
        return "--offset + --span is past 2^63 - 1 bytes";
    return NULL;
}

void pattern_start(struct write_pattern *p, const struct pattern_opts *o)
{
    pattern_init(p, o->random, o->bs, o->span_bytes, o->base_bytes, o->seed);
}
