/*
 * hddmodel: the data of cached writes, by byte range.
 *
 * The drive model (hw-model) keeps only the ranges of the writes its
 * volatile cache holds; the bytes are here, until the model says a range
 * reached the media (the driver then writes it to the image) or the power
 * fails (they are dropped).  The driver keeps a second map of durable data
 * not yet written to the image, which it writes out in batches.  A
 * GSequence of non-overlapping extents sorted by offset; a newer write
 * replaces what it overlaps.  A cut never copies data: the pieces of an
 * extent that survive keep pointing into its buffer, which is shared and
 * freed with the last of them (a destage takes a large write apart a piece
 * at a time, and copying the rest at each step is quadratic).
 *
 * Copyright (C) 2026 the platter authors.
 *
 * This work is licensed under the terms of the GNU GPL, version 2 or later.
 * See the COPYING file in the top-level directory.
 */

#include "qemu/osdep.h"
#include "hddmodel.h"

typedef struct HddExtent {
    uint64_t offset;
    uint64_t length;
    GBytes *buf;                /* holds data; shared with split-off pieces */
    const uint8_t *data;        /* at least length bytes, inside buf */
} HddExtent;

struct HddMap {
    GSequence *extents;         /* HddExtent, sorted, non-overlapping */
    uint64_t bytes;
};

static gint hdd_extent_cmp(gconstpointer a, gconstpointer b, gpointer unused)
{
    const HddExtent *x = a, *y = b;

    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static void hdd_extent_free(gpointer p)
{
    HddExtent *e = p;

    g_bytes_unref(e->buf);
    g_free(e);
}

HddMap *hdd_map_new(void)
{
    HddMap *map = g_new0(HddMap, 1);

    map->extents = g_sequence_new(hdd_extent_free);
    return map;
}

void hdd_map_free(HddMap *map)
{
    if (map) {
        g_sequence_free(map->extents);
        g_free(map);
    }
}

uint64_t hdd_map_bytes(const HddMap *map)
{
    return map->bytes;
}

uint64_t hdd_map_extents(const HddMap *map)
{
    return g_sequence_get_length(map->extents);
}

/* First extent that overlaps [offset, ...), or the end iterator. */
static GSequenceIter *hdd_map_first(HddMap *map, uint64_t offset)
{
    HddExtent key = { .offset = offset };
    GSequenceIter *it = g_sequence_search(map->extents, &key, hdd_extent_cmp,
                                          NULL);

    /* it: first extent starting after offset; the one before may reach in */
    if (!g_sequence_iter_is_begin(it)) {
        GSequenceIter *prev = g_sequence_iter_prev(it);
        HddExtent *e = g_sequence_get(prev);

        if (e->offset + e->length > offset) {
            return prev;
        }
    }
    return it;
}

void hdd_map_cut(HddMap *map, uint64_t offset, uint64_t length,
                 HddMapFn *fn, void *opaque)
{
    uint64_t end = offset + length;
    GSequenceIter *it = hdd_map_first(map, offset);

    assert(end >= offset);
    while (!g_sequence_iter_is_end(it)) {
        HddExtent *e = g_sequence_get(it);
        uint64_t e_end = e->offset + e->length;
        uint64_t lo, hi;
        GSequenceIter *next = g_sequence_iter_next(it);

        if (e->offset >= end) {
            break;
        }
        lo = MAX(e->offset, offset);
        hi = MIN(e_end, end);
        if (fn) {
            fn(lo, hi - lo, e->data + (lo - e->offset), opaque);
        }
        map->bytes -= hi - lo;

        if (lo > e->offset) {
            if (hi < e_end) {
                /* the tail survives too: a new extent on e's buffer */
                HddExtent *tail = g_new(HddExtent, 1);

                tail->offset = hi;
                tail->length = e_end - hi;
                tail->buf = g_bytes_ref(e->buf);
                tail->data = e->data + (hi - e->offset);
                g_sequence_insert_sorted(map->extents, tail, hdd_extent_cmp,
                                         NULL);
            }
            /* the head survives in place */
            e->length = lo - e->offset;
        } else if (hi < e_end) {
            /* the tail survives in place: its order among extents holds */
            e->data += hi - e->offset;
            e->length = e_end - hi;
            e->offset = hi;
        } else {
            g_sequence_remove(it);
        }
        it = next;
    }
}

void hdd_map_clear(HddMap *map, HddMapFn *fn, void *opaque)
{
    GSequenceIter *it = g_sequence_get_begin_iter(map->extents);

    while (!g_sequence_iter_is_end(it)) {
        HddExtent *e = g_sequence_get(it);
        GSequenceIter *next = g_sequence_iter_next(it);

        if (fn) {
            fn(e->offset, e->length, e->data, opaque);
        }
        map->bytes -= e->length;
        g_sequence_remove(it);
        it = next;
    }
    assert(map->bytes == 0);
}

void hdd_map_put(HddMap *map, uint64_t offset, uint64_t length, uint8_t *data)
{
    HddExtent *e = g_new(HddExtent, 1);

    hdd_map_cut(map, offset, length, NULL, NULL);
    e->offset = offset;
    e->length = length;
    e->buf = g_bytes_new_take(data, length);
    e->data = data;
    g_sequence_insert_sorted(map->extents, e, hdd_extent_cmp, NULL);
    map->bytes += length;
}

void hdd_map_overlay(HddMap *map, uint64_t offset, uint64_t length,
                     uint8_t *buf)
{
    uint64_t end = offset + length;
    GSequenceIter *it;

    for (it = hdd_map_first(map, offset); !g_sequence_iter_is_end(it);
         it = g_sequence_iter_next(it)) {
        HddExtent *e = g_sequence_get(it);
        uint64_t lo, hi;

        if (e->offset >= end) {
            break;
        }
        lo = MAX(e->offset, offset);
        hi = MIN(e->offset + e->length, end);
        memcpy(buf + (lo - offset), e->data + (lo - e->offset), hi - lo);
    }
}

/*
 * The largest run hdd_map_foreach_run() hands out at once: adjacent
 * extents are copied together, so bound the copy (and the request).
 */
#define HDD_MAP_RUN_MAX_BYTES (64 * 1024 * 1024)

void hdd_map_foreach_run(HddMap *map, HddMapFn *fn, void *opaque)
{
    GSequenceIter *it = g_sequence_get_begin_iter(map->extents);

    while (!g_sequence_iter_is_end(it)) {
        HddExtent *first = g_sequence_get(it);
        GSequenceIter *last = it, *next = g_sequence_iter_next(it);
        uint64_t end = first->offset + first->length;
        g_autofree uint8_t *run = NULL;
        uint8_t *p;

        /* a run: extents that continue each other, within the bound */
        while (!g_sequence_iter_is_end(next)) {
            HddExtent *e = g_sequence_get(next);

            if (e->offset != end ||
                end + e->length - first->offset > HDD_MAP_RUN_MAX_BYTES) {
                break;
            }
            end += e->length;
            last = next;
            next = g_sequence_iter_next(next);
        }
        if (last == it) {
            fn(first->offset, first->length, first->data, opaque);
            it = next;
            continue;
        }
        run = g_malloc(end - first->offset);
        for (p = run; it != next; it = g_sequence_iter_next(it)) {
            HddExtent *e = g_sequence_get(it);

            memcpy(p, e->data, e->length);
            p += e->length;
        }
        fn(first->offset, end - first->offset, run, opaque);
    }
}
