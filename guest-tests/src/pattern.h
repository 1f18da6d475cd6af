/* Where a raw-device workload's writes go: sequential (wrapping at the end
 * of the span) or uniformly random over it from a seeded PRNG.  Shared by
 * the writers and the power-cut verifier, which replays the same offsets. */
#ifndef PLATTER_PATTERN_H
#define PLATTER_PATTERN_H

#include <stdint.h>

#include "parse.h"
#include "prng.h"

struct write_pattern {
    int random;
    uint64_t bs, span_bytes, base_bytes;  /* base: first byte of the span */
    uint64_t next_block;                  /* sequential: next block */
    struct prng rng;                      /* random: offset source */
};

void pattern_init(struct write_pattern *p, int random, uint64_t bs,
                  uint64_t span_bytes, uint64_t base_bytes, uint64_t seed);
/* Byte offset of the next write. */
uint64_t pattern_next(struct write_pattern *p);
/* "seq"/"sequential" -> 0, "rand"/"random" -> 1, else -1. */
int pattern_parse(const char *s);

/* The options every raw-device writer and the verifier share:
 * --pattern seq|rand, --bs SIZE, --span SIZE, --offset SIZE, --seed N. */
struct pattern_opts {
    int random;
    uint64_t bs, span_bytes, base_bytes, seed;
};
#define PATTERN_OPTS_DEFAULT { 0, 4096, 100ULL << 30, 0, 1 }

/* Those options as entries of a program's platter_arg table
 * (platter-argv.h), `o` a struct pattern_opts *. */
#define PATTERN_ARGS(o)                               \
    { "--pattern", pattern_arg, &(o)->random },       \
    { "--bs", arg_size, &(o)->bs },                   \
    { "--span", arg_size, &(o)->span_bytes },         \
    { "--offset", arg_size, &(o)->base_bytes },       \
    { "--seed", arg_u64, &(o)->seed }
/* --pattern's parser: `dst` an int *, 0 seq, 1 rand. */
int pattern_arg(const char *value, void *dst);
/* NULL when the options fit together, else what is wrong. */
const char *pattern_opts_check(const struct pattern_opts *o);
void pattern_start(struct write_pattern *p, const struct pattern_opts *o);

#endif
