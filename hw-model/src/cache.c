/*
 * Dirty-extent bookkeeping for the write cache.  GTree (balanced) keeps
 * both indexes logarithmic, so per-request cost grows with log(extents),
 * not with the number of dirty extents.
 */
#include "cache.h"

static gint cmp_lba(gconstpointer a, gconstpointer b, gpointer unused)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    (void)unused;
    return x < y ? -1 : x > y;
}

static gint cmp_cyl(gconstpointer a, gconstpointer b, gpointer unused)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    (void)unused;
    return x < y ? -1 : x > y;
}

static void free_cyl(gpointer p)
{
    CylIndex *ci = p;
    g_tree_destroy(ci->by_slot);
    g_free(ci);
}

static gint cmp_pos(gconstpointer a, gconstpointer b, gpointer unused)
{
    const Extent *x = a, *y = b;
    (void)unused;
    if (x->slot != y->slot) {
        return x->slot < y->slot ? -1 : 1;
    }
    return x->lba < y->lba ? -1 : x->lba > y->lba;
}

static gint cmp_seq(gconstpointer a, gconstpointer b, gpointer unused)
{
    const Extent *x = a, *y = b;
    (void)unused;
    if (x->seq != y->seq) {
        return x->seq < y->seq ? -1 : 1;
    }
    return x->lba < y->lba ? -1 : x->lba > y->lba;
}

void hwm_cache_init(Cache *c, const Geometry *geo)
{
    *c = (Cache){ .geo = geo };
    c->by_lba = g_tree_new_full(cmp_lba, NULL, NULL, g_free);
    c->by_seq = g_tree_new_full(cmp_seq, NULL, NULL, NULL);
    c->idle_by_lba = geo ? NULL : g_tree_new_full(cmp_lba, NULL, NULL, NULL);
    c->by_cyl = geo ? g_tree_new_full(cmp_cyl, NULL, NULL, free_cyl) : NULL;
    c->busy = g_tree_new_full(cmp_lba, NULL, NULL, NULL);
}

void hwm_cache_destroy(Cache *c)
{
    if (c->by_cyl) {
        g_tree_destroy(c->by_cyl);
    }
    g_tree_destroy(c->by_seq);
    if (c->idle_by_lba) {
        g_tree_destroy(c->idle_by_lba);
    }
    g_tree_destroy(c->by_lba);
    g_tree_destroy(c->busy);
    c->by_cyl = c->by_lba = c->by_seq = c->idle_by_lba = NULL;
    c->busy = NULL;
}

void hwm_cache_clear(Cache *c)
{
    const Geometry *geo = c->geo;
    hwm_cache_destroy(c);
    hwm_cache_init(c, geo);
}

static void index_pos(Cache *c, Extent *e)
{
    if (c->geo) {
        Phys ph;
        hwm_geometry_map(c->geo, e->lba, &ph);
        e->cyl = ph.cyl;
        e->head = ph.head;
        e->slot = ph.slot;
        CylIndex *ci = g_tree_lookup(c->by_cyl, &e->cyl);
        if (!ci) {
            ci = g_new0(CylIndex, 1);
            ci->cyl = e->cyl;
            ci->spt = ph.spt;
            ci->by_slot = g_tree_new_full(cmp_pos, NULL, NULL, NULL);
            g_tree_insert(c->by_cyl, &ci->cyl, ci);
        }
        g_tree_insert(ci->by_slot, e, e);
    }
}

static void unindex_pos(Cache *c, Extent *e)
{
    if (c->geo) {
        CylIndex *ci = g_tree_lookup(c->by_cyl, &e->cyl);
        g_tree_remove(ci->by_slot, e);
        if (g_tree_nnodes(ci->by_slot) == 0) {
            g_tree_remove(c->by_cyl, &e->cyl);
        }
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
    g_tree_insert(c->by_lba, &e->lba, e);
    g_tree_insert(c->by_seq, e, e);
    if (c->idle_by_lba) {
        g_tree_insert(c->idle_by_lba, &e->lba, e);
    }
    index_pos(c, e);
    account(c, e, +1);
    return e;
}

static void drop_extent(Cache *c, Extent *e)
{
    account(c, e, -1);
    unindex_pos(c, e);
    g_tree_remove(c->by_seq, e);
    if (c->idle_by_lba && !e->busy) {
        g_tree_remove(c->idle_by_lba, &e->lba);
    }
    g_tree_remove(c->by_lba, &e->lba);   /* frees e */
}

/* The extent containing or following `lba`, if it starts before `end`. */
static Extent *first_overlap(const Cache *c, uint64_t lba, uint64_t end)
{
    GTreeNode *n = g_tree_upper_bound(c->by_lba, &lba);   /* start > lba */
    GTreeNode *prev = n ? g_tree_node_previous(n) : NULL;

    if (!n) {
        /* every extent starts <= lba: the last one may contain lba */
        GTreeNode *last = g_tree_node_last(c->by_lba);
        prev = last;
    }
    if (prev) {
        Extent *e = g_tree_node_value(prev);
        if (e->lba + e->sectors > lba) {
            return e;
        }
    }
    if (n) {
        Extent *e = g_tree_node_value(n);
        if (e->lba < end) {
            return e;
        }
    }
    return NULL;
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
            add_extent(c, e_lba, lba - e_lba, durable, seq);
        }
        if (e_end > end) {
            add_extent(c, end, e_end - end, durable, seq);
        }
    }
}

/* The extents starting before `lba` (the nearest) and at or after it (the
 * nearest), with one tree search. */
static void around(const Cache *c, uint64_t lba, Extent **before,
                   Extent **after)
{
    GTreeNode *n = g_tree_lower_bound(c->by_lba, &lba);
    GTreeNode *p = n ? g_tree_node_previous(n) : g_tree_node_last(c->by_lba);
    *before = p ? g_tree_node_value(p) : NULL;
    *after = n ? g_tree_node_value(n) : NULL;
}

static bool can_merge(const Extent *e, bool durable)
{
    return e && !e->busy && e->durable == durable;
}

uint32_t hwm_cache_new_extents(const Cache *c, uint64_t lba, uint64_t n,
                               bool durable)
{
    uint64_t end = lba + n;
    Extent *before, *after;

    around(c, lba, &before, &after);
    if ((before && before->lba + before->sectors > lba) ||
        (after && after->lba < end)) {
        return 0;       /* replaces at least part of one: at most a split */
    }
    bool left = before && before->lba + before->sectors == lba &&
                can_merge(before, durable);
    bool right = after && after->lba == end && can_merge(after, durable);
    return left || right ? 0 : 1;
}

void hwm_cache_insert(Cache *c, uint64_t lba, uint64_t n, bool durable,
                      uint64_t seq)
{
    uint64_t end = lba + n;
    Extent *before, *after;

    hwm_cache_remove(c, lba, n);
    around(c, lba, &before, &after);
    Extent *left = before && before->lba + before->sectors == lba &&
                   can_merge(before, durable) ? before : NULL;
    Extent *right = after && after->lba == end && can_merge(after, durable) ?
                    after : NULL;
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
            /* its key in by_seq changes: out and back in */
            g_tree_remove(c->by_seq, left);
            left->seq = oldest;
            g_tree_insert(c->by_seq, left, left);
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
    /* busy extents are disjoint: if any overlaps, the last one starting
     * before the end of the range does */
    uint64_t end = lba + n;
    GTreeNode *at = g_tree_lower_bound(c->busy, &end);
    GTreeNode *before = at ? g_tree_node_previous(at)
                           : g_tree_node_last(c->busy);
    const Extent *e = before ? g_tree_node_value(before) : NULL;
    return e && e->lba + e->sectors > lba;
}

/* First eligible extent at or after angle `slot` on a cylinder, wrapping
 * round to its lowest angle; NULL if none is eligible. */
static Extent *first_in_cyl_from(const CylIndex *ci, uint32_t slot,
                                 uint64_t max_seq)
{
    Extent key = { .slot = slot, .lba = 0 };
    GTreeNode *n = g_tree_lower_bound(ci->by_slot, &key);

    for (; n; n = g_tree_node_next(n)) {
        Extent *e = g_tree_node_value(n);
        if (!e->busy && e->seq <= max_seq) {
            return e;
        }
    }
    for (n = g_tree_node_first(ci->by_slot); n; n = g_tree_node_next(n)) {
        Extent *e = g_tree_node_value(n);
        if (e->slot >= slot) {
            break;
        }
        if (!e->busy && e->seq <= max_seq) {
            return e;
        }
    }
    return NULL;
}

static Extent *pick_rotating(Cache *c, ArmPos arm, hwm_ns t, uint64_t max_seq)
{
    const Geometry *g = c->geo;
    Extent *best = NULL;
    hwm_ns best_cost = INT64_MAX;
    GTreeNode *here = g_tree_lower_bound(c->by_cyl, &arm.cyl);

    /* the arm's own cylinder: heads differ in cost, check each extent;
     * there are only two arrival angles, on this head or after a switch */
    if (here && ((CylIndex *)g_tree_node_value(here))->cyl == arm.cyl) {
        CylIndex *ci = g_tree_node_value(here);
        hwm_ns switch_ns = (hwm_ns)(g->head_switch_ns + g->write_settle_ns);
        for (GTreeNode *n = g_tree_node_first(ci->by_slot); n;
             n = g_tree_node_next(n)) {
            Extent *e = g_tree_node_value(n);
            if (e->busy || e->seq > max_seq) {
                continue;
            }
            bool same = e->head == arm.head;
            hwm_ns pos = same ? 0 : switch_ns;
            hwm_ns cost = pos + hwm_geometry_wait_ns(g, t + pos, e->slot,
                                                     ci->spt, 0);
            if (cost < best_cost) {
                best_cost = cost;
                best = e;
            }
        }
    }
    /* then outward in both directions while a seek alone is cheaper than
     * the best found; on another cylinder only the first extent at or after
     * the arrival angle can win */
    for (int dir = -1; dir <= 1; dir += 2) {
        GTreeNode *n;
        if (dir > 0) {
            n = here;
            if (n && ((CylIndex *)g_tree_node_value(n))->cyl == arm.cyl) {
                n = g_tree_node_next(n);
            }
        } else {
            n = here ? g_tree_node_previous(here) : g_tree_node_last(c->by_cyl);
        }
        for (; n; n = dir > 0 ? g_tree_node_next(n) : g_tree_node_previous(n)) {
            const CylIndex *ci = g_tree_node_value(n);
            uint32_t d = ci->cyl > arm.cyl ? ci->cyl - arm.cyl
                                           : arm.cyl - ci->cyl;
            hwm_ns seek = hwm_geometry_seek_ns(g, d) +
                          (hwm_ns)g->write_settle_ns;
            if (seek >= best_cost) {
                break;
            }
            uint32_t arrive = hwm_geometry_next_slot(g, t + seek, ci->spt);
            Extent *e = first_in_cyl_from(ci, arrive, max_seq);
            if (e) {
                hwm_ns cost = seek + hwm_geometry_wait_ns(g, t + seek, e->slot,
                                                          ci->spt, 0);
                if (cost < best_cost ||
                    (cost == best_cost && best && e->lba < best->lba)) {
                    best_cost = cost;
                    best = e;
                }
            }
        }
    }
    return best;
}

Extent *hwm_cache_pick_nearest(Cache *c, ArmPos arm, hwm_ns t,
                               uint64_t max_seq)
{
    return c->extents == 0 ? NULL : pick_rotating(c, arm, t, max_seq);
}

Extent *hwm_cache_pick_lowest(Cache *c, uint64_t max_seq)
{
    if (c->extents == 0) {
        return NULL;
    }
    for (GTreeNode *n = g_tree_node_first(c->idle_by_lba); n;
         n = g_tree_node_next(n)) {
        Extent *e = g_tree_node_value(n);
        if (e->seq <= max_seq) {
            return e;
        }
    }
    return NULL;
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
    e->busy = true;
    if (c->idle_by_lba) {
        g_tree_remove(c->idle_by_lba, &e->lba);
    }
    g_tree_insert(c->busy, &e->lba, e);
    c->generation++;
    return e;
}

void hwm_cache_finish_destage(Cache *c, Extent *e)
{
    g_assert(e->busy);
    g_tree_remove(c->busy, &e->lba);
    drop_extent(c, e);
}

uint64_t hwm_cache_oldest_seq(const Cache *c)
{
    GTreeNode *n = g_tree_node_first(c->by_seq);
    return n ? ((const Extent *)g_tree_node_value(n))->seq : UINT64_MAX;
}

static gboolean collect_volatile(gpointer k, gpointer v, gpointer data)
{
    const Extent *e = v;
    GArray *out = data;
    (void)k;
    if (e->durable) {
        return FALSE;
    }
    uint64_t off = e->lba * HWM_SECTOR_BYTES;
    uint64_t len = e->sectors * HWM_SECTOR_BYTES;
    if (out->len > 0) {
        HwmExtent *last = &g_array_index(out, HwmExtent, out->len - 1);
        if (last->offset + last->length == off) {
            last->length += len;
            return FALSE;
        }
    }
    HwmExtent x = { .offset = off, .length = len };
    g_array_append_val(out, x);
    return FALSE;
}

GArray *hwm_cache_volatile_ranges(const Cache *c)
{
    GArray *out = g_array_new(FALSE, FALSE, sizeof(HwmExtent));
    g_tree_foreach(c->by_lba, collect_volatile, out);
    return out;
}
