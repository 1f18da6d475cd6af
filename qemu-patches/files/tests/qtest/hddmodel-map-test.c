/*
 * hddmodel: the map of cached write data (block/hddmodel-map.c), alone.
 *
 * No QEMU runs here.  Random puts, cuts, overlays and clears are checked
 * against a byte array that holds what the map should; and a cut must
 * hand out pointers into the buffer the put gave it, since a copy per cut
 * made the destage of a large write quadratic (each 16 KiB piece copied
 * the rest of the write).
 *
 * Copyright (C) 2026 the platter authors.
 *
 * This work is licensed under the terms of the GNU GPL, version 2 or later.
 * See the COPYING file in the top-level directory.
 */

#include "qemu/osdep.h"
#include "../../block/hddmodel.h"

#define SPACE_BYTES 4096        /* the byte range the random steps use */

typedef struct Oracle {
    uint8_t byte[SPACE_BYTES];
    bool held[SPACE_BYTES];
} Oracle;

typedef struct Pieces {
    const Oracle *before;       /* the oracle before the cut */
    uint64_t offset, length;    /* the cut */
    bool seen[SPACE_BYTES];
    uint64_t bytes;
} Pieces;

static uint64_t rng_next(uint64_t *state)
{
    /* xorshift64*: the steps are the same on every host */
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return *state * 0x2545F4914F6CDD1DULL;
}

static uint64_t rng_below(uint64_t *state, uint64_t n)
{
    return rng_next(state) % n;
}

static void check_piece(uint64_t offset, uint64_t length, const uint8_t *data,
                        void *opaque)
{
    Pieces *p = opaque;
    uint64_t i;

    g_assert_cmpuint(length, >, 0);
    g_assert_cmpuint(offset, >=, p->offset);
    g_assert_cmpuint(offset + length, <=, p->offset + p->length);
    for (i = 0; i < length; i++) {
        g_assert_true(p->before->held[offset + i]);
        g_assert_false(p->seen[offset + i]);
        g_assert_cmpuint(data[i], ==, p->before->byte[offset + i]);
        p->seen[offset + i] = true;
    }
    p->bytes += length;
}

static void check_map(HddMap *map, const Oracle *o)
{
    g_autofree uint8_t *buf = g_malloc(SPACE_BYTES);
    uint64_t held = 0, i;

    memset(buf, 0xee, SPACE_BYTES);
    hdd_map_overlay(map, 0, SPACE_BYTES, buf);
    for (i = 0; i < SPACE_BYTES; i++) {
        if (o->held[i]) {
            g_assert_cmpuint(buf[i], ==, o->byte[i]);
            held++;
        } else {
            g_assert_cmpuint(buf[i], ==, 0xee);
        }
    }
    g_assert_cmpuint(hdd_map_bytes(map), ==, held);
}

static void cut_and_check(HddMap *map, Oracle *o, uint64_t offset,
                          uint64_t length)
{
    g_autofree Pieces *p = g_new0(Pieces, 1);
    g_autofree Oracle *before = g_memdup2(o, sizeof(*o));
    uint64_t i, expect = 0;

    p->before = before;
    p->offset = offset;
    p->length = length;
    hdd_map_cut(map, offset, length, check_piece, p);
    for (i = offset; i < offset + length; i++) {
        /* every held byte of the range handed out once, then gone */
        g_assert_cmpint(p->seen[i], ==, before->held[i]);
        expect += before->held[i];
        o->held[i] = false;
    }
    g_assert_cmpuint(p->bytes, ==, expect);
}

static void test_random_steps(void)
{
    int seed;

    for (seed = 1; seed <= 200; seed++) {
        uint64_t rng = 0x9E3779B97F4A7C15ULL * seed;
        g_autofree Oracle *o = g_new0(Oracle, 1);
        HddMap *map = hdd_map_new();
        int step;

        for (step = 0; step < 200; step++) {
            uint64_t offset = rng_below(&rng, SPACE_BYTES);
            uint64_t length = 1 + rng_below(&rng, MIN(SPACE_BYTES - offset,
                                                      512));
            uint64_t kind = rng_below(&rng, 10), i;

            if (kind < 5) {
                uint8_t *data = g_malloc(length);

                for (i = 0; i < length; i++) {
                    data[i] = rng_next(&rng);
                    o->byte[offset + i] = data[i];
                    o->held[offset + i] = true;
                }
                hdd_map_put(map, offset, length, data);
            } else if (kind < 9) {
                cut_and_check(map, o, offset, length);
            } else {
                cut_and_check(map, o, 0, SPACE_BYTES);
                g_assert_cmpuint(hdd_map_extents(map), ==, 0);
            }
            check_map(map, o);
        }
        hdd_map_free(map);
    }
}

typedef struct Origin {
    const uint8_t *base;        /* the buffer the put gave */
    uint64_t offset;            /* where the put placed it */
    uint64_t pieces;
} Origin;

static void expect_in_place(uint64_t offset, uint64_t length,
                            const uint8_t *data, void *opaque)
{
    Origin *origin = opaque;

    g_assert_true(data == origin->base + (offset - origin->offset));
    origin->pieces++;
}

/* A large write destaged a piece at a time, from its front: no copies. */
static void test_front_cuts_share_the_buffer(void)
{
    const uint64_t write_bytes = 4 * 1024 * 1024, piece_bytes = 16 * 1024;
    const uint64_t offset = 1024 * 1024;
    uint8_t *data = g_malloc0(write_bytes);
    Origin origin = { .base = data, .offset = offset };
    HddMap *map = hdd_map_new();
    uint64_t at;

    hdd_map_put(map, offset, write_bytes, data);
    for (at = offset; at < offset + write_bytes; at += piece_bytes) {
        hdd_map_cut(map, at, piece_bytes, expect_in_place, &origin);
        g_assert_cmpuint(hdd_map_bytes(map), ==, offset + write_bytes -
                         at - piece_bytes);
    }
    g_assert_cmpuint(origin.pieces, ==, write_bytes / piece_bytes);
    g_assert_cmpuint(hdd_map_extents(map), ==, 0);
    hdd_map_free(map);
}

/* A cut from the middle leaves head and tail on the one buffer. */
static void test_middle_cut_shares_the_buffer(void)
{
    const uint64_t offset = 8192, length = 65536;
    uint8_t *data = g_malloc0(length);
    Origin origin = { .base = data, .offset = offset };
    HddMap *map = hdd_map_new();

    hdd_map_put(map, offset, length, data);
    hdd_map_cut(map, offset + 4096, 4096, expect_in_place, &origin);
    g_assert_cmpuint(hdd_map_extents(map), ==, 2);
    hdd_map_cut(map, offset + 16384, 4096, expect_in_place, &origin);
    g_assert_cmpuint(hdd_map_extents(map), ==, 3);
    hdd_map_clear(map, expect_in_place, &origin);
    g_assert_cmpuint(origin.pieces, ==, 5);
    hdd_map_free(map);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/hddmodel/map/random-steps", test_random_steps);
    g_test_add_func("/hddmodel/map/front-cuts-share-the-buffer",
                   test_front_cuts_share_the_buffer);
    g_test_add_func("/hddmodel/map/middle-cut-shares-the-buffer",
                   test_middle_cut_shares_the_buffer);
    return g_test_run();
}
