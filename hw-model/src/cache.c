/*
 * Dirty-extent bookkeeping for the write cache.  Balanced trees keep every
 * index logarithmic, so per-request cost grows with log(extents), not with
 * the number of dirty extents.
 */
#include <stddef.h>

#include "cache.h"

static int cmp_lba(const void *a, const void *b)
{
    uint64_t x = ((const Extent *)a)->lba, y = ((const Extent *)b)->lba;
    return x < y ? -1 : x > y;
}

static int cmp_seq(const void *a, const void *b)
{
    const Extent *x = a, *y = b;
    if (x->seq != y->seq) {
        return x->seq < y->seq ? -1 : 1;
    }
    return x->lba < y->lba ? -1 : x->lba > y->lba;
}

void hwm_cache_init(Cache *c, const ExtentIndex *index)
{
    *c = (Cache){ .index = index };
    hwm_avl_init(&c->by_lba, cmp_lba, offsetof(Extent, in_lba));
    hwm_avl_init(&c->by_seq, cmp_seq, offsetof(Extent, in_seq));
    hwm_avl_init(&c->idle_by_lba, cmp_lba, offsetof(Extent, in_idle));
    hwm_avl_init(&c->busy, cmp_lba, offsetof(Extent, in_busy));
}

void hwm_cache_destroy(Cache *c)
{
    /* every extent is in by_seq (a detached one is in no by_lba): the
     * other trees only link them */
    if (c->index) {
        c->index->clear(c->index->opaque);
    }
    hwm_avl_clear(&c->by_seq, g_free);
    c->by_lba.root = c->idle_by_lba.root = c->busy.root = NULL;
}

void hwm_cache_clear(Cache *c)
{
    const ExtentIndex *index = c->index;
    hwm_cache_destroy(c);
    hwm_cache_init(c, index);
}

static void index_pos(Cache *c, Extent *e)
{
    if (c->index) {
        c->index->add(c->index->opaque, e);
    }
}

static void unindex_pos(Cache *c, Extent *e)
{
    if (c->index) {
        c->index->remove(c->index->opaque, e);
    }
}

static void account(Cache *c, const Extent *e, int sign)
{
    c->generation++;
    if (sign > 0) {
        c->dirty_sectors += e->sectors;
        c->volatile_sectors += e->durable ? 0 : e->sectors;
        c->extents++;
    } else {
        c->dirty_sectors -= e->sectors;
        c->volatile_sectors -= e->durable ? 0 : e->sectors;
        c->extents--;
    }
}

static Extent *add_extent(Cache *c, uint64_t lba, uint64_t n, bool durable,
                          uint64_t seq)
{
    Extent *e = g_new0(Extent, 1);
    e->lba = lba;
    e->sectors = n;
    e->durable = durable;
    e->seq = seq;
    hwm_avl_insert(&c->by_lba, e);
    hwm_avl_insert(&c->by_seq, e);
    if (!c->index) {
        hwm_avl_insert(&c->idle_by_lba, e);
    }
    index_pos(c, e);
    account(c, e, +1);
    return e;
}

static void drop_extent(Cache *c, Extent *e)
{
    account(c, e, -1);
    unindex_pos(c, e);
    hwm_avl_remove(&c->by_seq, e);
    if (e->busy) {
        hwm_avl_remove(&c->busy, e);
    } else if (!c->index) {
        hwm_avl_remove(&c->idle_by_lba, e);
    }
    if (!e->detached) {
        hwm_avl_remove(&c->by_lba, e);
    }
    g_free(e);
}

/* Whether any busy extent overlaps [lba, lba+n) (hwm_cache_overlaps_busy). */
static bool busy_overlap(const Cache *c, uint64_t lba, uint64_t n)
{
    /* busy extents are disjoint (behind keeps newer data from starting
     * while older data of its sectors is busy): if any overlaps, the last
     * one starting before the end of the range does */
    Extent key = { .lba = lba + n };
    const Extent *e = hwm_avl_before(&c->busy, &key);
    return e && e->lba + e->sectors > lba;
}

/* A new extent, behind whatever busy one it overlaps. */
static Extent *add_piece(Cache *c, uint64_t lba, uint64_t n, bool durable,
                         uint64_t seq)
{
    Extent *e = add_extent(c, lba, n, durable, seq);
    e->behind = busy_overlap(c, lba, n);
    return e;
}

/* The extent containing or following `lba`, if it starts before `end`. */
static Extent *first_overlap(const Cache *c, uint64_t lba, uint64_t end)
{
    Extent key = { .lba = lba };
    Extent *next = hwm_avl_upper_bound(&c->by_lba, &key);  /* start > lba */
    Extent *prev = next ? hwm_avl_prev(&c->by_lba, next)
                        : hwm_avl_last(&c->by_lba);

    if (prev && prev->lba + prev->sectors > lba) {
        return prev;
    }
    return next && next->lba < end ? next : NULL;
}

void hwm_cache_remove(Cache *c, uint64_t lba, uint64_t n)
{
    uint64_t end = lba + n;
    Extent *e;

    while ((e = first_overlap(c, lba, end)) != NULL) {
        uint64_t e_end = e->lba + e->sectors;
        uint64_t seq = e->seq;
        bool durable = e->durable;
        uint64_t e_lba = e->lba;

        g_assert(!e->busy);
        drop_extent(c, e);
        if (e_lba < lba) {
            add_piece(c, e_lba, lba - e_lba, durable, seq);
        }
        if (e_end > end) {
            add_piece(c, end, e_end - end, durable, seq);
        }
    }
}

/* The extents starting before `lba` (the nearest) and at or after it (the
 * nearest). */
static void around(const Cache *c, uint64_t lba, Extent **prev,
                   Extent **next)
{
    Extent key = { .lba = lba };
    *next = hwm_avl_lower_bound(&c->by_lba, &key);
    *prev = *next ? hwm_avl_prev(&c->by_lba, *next)
                  : hwm_avl_last(&c->by_lba);
}

static bool can_merge(const Extent *e, bool durable)
{
    return e && !e->busy && !e->behind && e->durable == durable;
}

/* Older data of [lba, lba+n) being written back stays busy, out of
 * by_lba, so that newer data of its sectors can come in. */
static void detach_busy(Cache *c, uint64_t lba, uint64_t n)
{
    Extent key = { .lba = lba + n };
    Extent *e = hwm_avl_before(&c->busy, &key);

    while (e && e->lba + e->sectors > lba) {
        Extent *prev = hwm_avl_prev(&c->busy, e);
        if (!e->detached) {
            hwm_avl_remove(&c->by_lba, e);
            e->detached = true;
            c->generation++;
        }
        e = prev;
    }
}

uint32_t hwm_cache_new_extents(const Cache *c, uint64_t lba, uint64_t n,
                               bool durable)
{
    uint64_t end = lba + n;
    Extent *prev, *next;

    if (busy_overlap(c, lba, n)) {
        return 1;       /* behind the busy data, which stays: merges with none */
    }
    around(c, lba, &prev, &next);
    if ((prev && prev->lba + prev->sectors > lba) ||
        (next && next->lba < end)) {
        return 0;       /* replaces at least part of one: at most a split */
    }
    bool left = prev && prev->lba + prev->sectors == lba &&
                can_merge(prev, durable);
    bool right = next && next->lba == end && can_merge(next, durable);
    return left || right ? 0 : 1;
}

void hwm_cache_insert(Cache *c, uint64_t lba, uint64_t n, bool durable,
                      uint64_t seq)
{
    uint64_t end = lba + n;
    Extent *prev, *next;

    detach_busy(c, lba, n);
    hwm_cache_remove(c, lba, n);
    if (busy_overlap(c, lba, n)) {
        /* behind, merged with none; a flush that waits for the older data
         * now waits for this, which replaced it in the buffer (its write-
         * back reports only the sectors nothing newer holds) */
        Extent key = { .lba = end };
        for (Extent *b = hwm_avl_before(&c->busy, &key);
             b && b->lba + b->sectors > lba; b = hwm_avl_prev(&c->busy, b)) {
            seq = MIN(seq, b->seq);
        }
        add_piece(c, lba, n, durable, seq);
        return;
    }
    around(c, lba, &prev, &next);
    Extent *left = prev && prev->lba + prev->sectors == lba &&
                   can_merge(prev, durable) ? prev : NULL;
    Extent *right = next && next->lba == end && can_merge(next, durable) ?
                    next : NULL;
    if (left) {
        /* extend in place: the start, hence the position key, is kept */
        uint64_t more = n, oldest = seq;
        if (right) {
            more += right->sectors;
            oldest = MIN(oldest, right->seq);
            drop_extent(c, right);
        }
        account(c, left, -1);
        left->sectors += more;
        if (oldest < left->seq) {
            left->seq = oldest;
            hwm_avl_reposition(&c->by_seq, left);
        }
        account(c, left, +1);
    } else if (right) {
        uint64_t rs = right->sectors, rseq = right->seq;
        drop_extent(c, right);
        add_extent(c, lba, n + rs, durable, MIN(seq, rseq));
    } else {
        add_extent(c, lba, n, durable, seq);
    }
}

bool hwm_cache_covers(const Cache *c, uint64_t lba, uint64_t n)
{
    uint64_t end = lba + n;
    while (lba < end) {
        Extent *e = first_overlap(c, lba, lba + 1);
        if (!e || e->lba > lba) {
            return false;
        }
        lba = e->lba + e->sectors;
    }
    return true;
}

bool hwm_cache_overlaps_busy(const Cache *c, uint64_t lba, uint64_t n)
{
    return busy_overlap(c, lba, n);
}

Extent *hwm_cache_pick_lowest(Cache *c, uint64_t max_seq)
{
    for (Extent *e = hwm_avl_first(&c->idle_by_lba); e;
         e = hwm_avl_next(&c->idle_by_lba, e)) {
        if (e->seq <= max_seq && !e->behind) {
            return e;
        }
    }
    return NULL;
}

Extent *hwm_cache_pick_from(Cache *c, uint64_t lba, uint64_t max_seq)
{
    Extent key = { .lba = lba };
    for (Extent *e = hwm_avl_lower_bound(&c->by_lba, &key); e;
         e = hwm_avl_next(&c->by_lba, e)) {
        if (hwm_extent_eligible(e, max_seq)) {
            return e;
        }
    }
    for (Extent *e = hwm_avl_first(&c->by_lba); e && e->lba < lba;
         e = hwm_avl_next(&c->by_lba, e)) {
        if (hwm_extent_eligible(e, max_seq)) {
            return e;
        }
    }
    return NULL;
}

/* by_seq from `e` on: the extents past max_seq all come after it */
static Extent *idle_from(Cache *c, Extent *e, uint64_t max_seq)
{
    for (; e && e->seq <= max_seq; e = hwm_avl_next(&c->by_seq, e)) {
        if (!e->busy && !e->behind) {
            return e;
        }
    }
    return NULL;
}

Extent *hwm_cache_oldest_idle(Cache *c, uint64_t max_seq)
{
    return idle_from(c, hwm_avl_first(&c->by_seq), max_seq);
}

Extent *hwm_cache_next_idle(Cache *c, const Extent *e, uint64_t max_seq)
{
    return idle_from(c, hwm_avl_next(&c->by_seq, e), max_seq);
}

Extent *hwm_cache_start_destage(Cache *c, Extent *e, uint64_t n)
{
    if (n < e->sectors) {
        uint64_t lba = e->lba, total = e->sectors, seq = e->seq;
        bool durable = e->durable;
        drop_extent(c, e);
        e = add_extent(c, lba, n, durable, seq);
        add_extent(c, lba + n, total - n, durable, seq);
    }
    if (!c->index) {
        hwm_avl_remove(&c->idle_by_lba, e);
    }
    e->busy = true;
    hwm_avl_insert(&c->busy, e);
    c->generation++;
    return e;
}

void hwm_cache_finish_destage(Cache *c, Extent *e)
{
    uint64_t lba = e->lba, end = e->lba + e->sectors;

    g_assert(e->busy);
    drop_extent(c, e);
    /* newer data of its sectors may go now */
    for (Extent *x = first_overlap(c, lba, end); x && x->lba < end;
         x = hwm_avl_next(&c->by_lba, x)) {
        if (x->behind && !busy_overlap(c, x->lba, x->sectors)) {
            x->behind = false;
            c->generation++;
        }
    }
}

GArray *hwm_cache_reached_home(const Cache *c, const Extent *e)
{
    GArray *out = g_array_new(FALSE, FALSE, sizeof(HwmExtent));
    uint64_t at = e->lba, end = e->lba + e->sectors;

    if (e->detached) {
        for (const Extent *x = first_overlap(c, at, end); x && x->lba < end;
             x = hwm_avl_next(&c->by_lba, x)) {
            if (x->lba > at) {
                HwmExtent r = { .offset = at, .length = x->lba - at };
                g_array_append_val(out, r);
            }
            at = MAX(at, x->lba + x->sectors);
        }
    }
    if (at < end) {
        HwmExtent r = { .offset = at, .length = end - at };
        g_array_append_val(out, r);
    }
    return out;
}

uint64_t hwm_cache_oldest_seq(const Cache *c)
{
    const Extent *e = hwm_avl_first(&c->by_seq);
    return e ? e->seq : UINT64_MAX;
}

static gint cmp_offset(gconstpointer a, gconstpointer b)
{
    const HwmExtent *x = a, *y = b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

GArray *hwm_cache_volatile_ranges(const Cache *c)
{
    GArray *all = g_array_new(FALSE, FALSE, sizeof(HwmExtent));
    GArray *out = g_array_new(FALSE, FALSE, sizeof(HwmExtent));
    for (const Extent *e = hwm_avl_first(&c->by_lba); e;
         e = hwm_avl_next(&c->by_lba, e)) {
        if (!e->durable) {
            HwmExtent x = { .offset = e->lba * HWM_SECTOR_BYTES,
                            .length = e->sectors * HWM_SECTOR_BYTES };
            g_array_append_val(all, x);
        }
    }
    /* older data still on its way home, under newer data of by_lba */
    for (const Extent *e = hwm_avl_first(&c->busy); e;
         e = hwm_avl_next(&c->busy, e)) {
        if (e->detached && !e->durable) {
            HwmExtent x = { .offset = e->lba * HWM_SECTOR_BYTES,
                            .length = e->sectors * HWM_SECTOR_BYTES };
            g_array_append_val(all, x);
        }
    }
    g_array_sort(all, cmp_offset);
    for (guint i = 0; i < all->len; i++) {
        HwmExtent x = g_array_index(all, HwmExtent, i);
        if (out->len > 0) {
            HwmExtent *last = &g_array_index(out, HwmExtent, out->len - 1);
            if (last->offset + last->length >= x.offset) {
                last->length = MAX(last->offset + last->length,
                                   x.offset + x.length) - last->offset;
                continue;
            }
        }
        g_array_append_val(out, x);
    }
    g_array_free(all, TRUE);
    return out;
}
