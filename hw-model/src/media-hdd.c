/*
 * A rotating drive's mechanics (media.h): one actuator over zoned platters
 * (geometry.c), off-track write inhibit after a seek, and the media-cache
 * log native FUA writes may be appended to; its write cache's extents
 * indexed by position for write-back in shortest positioning time.
 */
#include <stddef.h>

#include "media.h"

/* The dirty extents starting on one cylinder, by start angle.  A cylinder
 * lies in one zone, so its tracks share one sectors-per-track. */
struct CylIndex {
    uint32_t cyl;
    uint32_t spt;
    AvlTree by_slot;         /* Extent, ordered (slot, lba) */
    AvlNode in_cyl;          /* in Hdd.by_cyl */
};

typedef struct {
    Geometry geo;
    hwm_ns rev_ns;
    uint64_t positioned_writes; /* writes after a seek so far: the count
                                   decides which of them miss */
    /* media-cache log: where the next FUA append goes */
    uint32_t log_cyl, log_head;
    hwm_ns log_track_opened;
    bool log_open;
    /* the write cache's extents by position */
    AvlTree by_cyl;             /* CylIndex, by cyl */
    ExtentIndex index;
} Hdd;

/* ---- the write cache's extents by position -------------------------------
 *
 * An index of the dirty extents by (cylinder, start angle), kept by the
 * cache through ExtentIndex, so shortest-positioning-time write-back looks
 * at the cylinders near the arm, not at every extent. */

static int cmp_cyl(const void *a, const void *b)
{
    uint32_t x = ((const CylIndex *)a)->cyl, y = ((const CylIndex *)b)->cyl;
    return x < y ? -1 : x > y;
}

static int cmp_pos(const void *a, const void *b)
{
    const Extent *x = a, *y = b;
    if (x->slot != y->slot) {
        return x->slot < y->slot ? -1 : 1;
    }
    return x->lba < y->lba ? -1 : x->lba > y->lba;
}

/* ExtentIndex.add: a dirty extent enters the write cache. */
static void index_add(void *opaque, Extent *e)
{
    Hdd *h = opaque;
    Phys ph;
    hwm_geometry_map(&h->geo, e->lba, &ph);
    e->cyl = ph.cyl;
    e->head = ph.head;
    e->slot = ph.slot;
    CylIndex key = { .cyl = e->cyl };
    CylIndex *ci = hwm_avl_lower_bound(&h->by_cyl, &key);
    if (!ci || ci->cyl != e->cyl) {
        ci = g_new0(CylIndex, 1);
        ci->cyl = e->cyl;
        ci->spt = ph.spt;
        hwm_avl_init(&ci->by_slot, cmp_pos, offsetof(Extent, in_pos));
        hwm_avl_insert(&h->by_cyl, ci);
    }
    e->ci = ci;
    hwm_avl_insert(&ci->by_slot, e);
}

/* ExtentIndex.remove: it leaves. */
static void index_remove(void *opaque, Extent *e)
{
    Hdd *h = opaque;
    CylIndex *ci = e->ci;
    hwm_avl_remove(&ci->by_slot, e);
    if (hwm_avl_empty(&ci->by_slot)) {
        hwm_avl_remove(&h->by_cyl, ci);
        g_free(ci);
    }
}

/* ExtentIndex.clear: every extent goes (the cache frees them). */
static void index_clear(void *opaque)
{
    Hdd *h = opaque;
    hwm_avl_clear(&h->by_cyl, g_free);
}

/* First eligible extent at or after angle `slot` on a cylinder, wrapping
 * round to its lowest angle; NULL if none is eligible. */
static Extent *first_in_cyl_from(const CylIndex *ci, uint32_t slot,
                                 uint64_t max_seq)
{
    const AvlTree *t = &ci->by_slot;
    Extent key = { .slot = slot, .lba = 0 };

    for (Extent *e = hwm_avl_lower_bound(t, &key); e;
         e = hwm_avl_next(t, e)) {
        if (hwm_extent_eligible(e, max_seq)) {
            return e;
        }
    }
    for (Extent *e = hwm_avl_first(t); e && e->slot < slot;
         e = hwm_avl_next(t, e)) {
        if (hwm_extent_eligible(e, max_seq)) {
            return e;
        }
    }
    return NULL;
}

/* The eligible extent whose first sector the arm reaches soonest from
 * `arm` at `t`: O(cylinders visited * log n), not a scan of every extent. */
static Extent *pick_nearest(const Hdd *h, ArmPos arm, hwm_ns t,
                            uint64_t max_seq)
{
    const Geometry *g = &h->geo;
    const AvlTree *cyls = &h->by_cyl;
    Extent *best = NULL;
    hwm_ns best_cost = INT64_MAX;
    CylIndex key = { .cyl = arm.cyl };
    CylIndex *here = hwm_avl_lower_bound(cyls, &key);
    CylIndex *own = here && here->cyl == arm.cyl ? here : NULL;

    /* the arm's own cylinder: heads differ in cost, check each extent;
     * there are only two arrival angles, on this head or after a switch */
    if (own) {
        hwm_ns switch_ns = (hwm_ns)(g->head_switch_ns + g->write_settle_ns);
        for (Extent *e = hwm_avl_first(&own->by_slot); e;
             e = hwm_avl_next(&own->by_slot, e)) {
            if (!hwm_extent_eligible(e, max_seq)) {
                continue;
            }
            bool same = e->head == arm.head;
            hwm_ns pos = same ? 0 : switch_ns;
            hwm_ns cost = pos + hwm_geometry_wait_ns(g, t + pos, e->slot,
                                                     own->spt, 0);
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
        CylIndex *ci;
        if (dir > 0) {
            ci = own ? hwm_avl_next(cyls, own) : here;
        } else {
            ci = here ? hwm_avl_prev(cyls, here) : hwm_avl_last(cyls);
        }
        for (; ci; ci = dir > 0 ? hwm_avl_next(cyls, ci)
                                : hwm_avl_prev(cyls, ci)) {
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


static bool hdd_init(Media *m, GError **errp)
{
    Hdd *h = g_new0(Hdd, 1);

    if (!hwm_geometry_init(&h->geo, m->prof, errp)) {
        g_free(h);
        return false;
    }
    h->rev_ns = hwm_geometry_rev_ns(&h->geo);
    h->log_cyl = (uint32_t)((uint64_t)(h->geo.cylinders - 1) *
                            m->prof->media_cache_cylinder_pct / 100);
    hwm_avl_init(&h->by_cyl, cmp_cyl, offsetof(CylIndex, in_cyl));
    h->index = (ExtentIndex){ .add = index_add, .remove = index_remove,
                              .clear = index_clear, .opaque = h };
    m->units = 1;
    m->geo = &h->geo;
    m->index = &h->index;
    m->state = h;
    return true;
}

static void hdd_fini(Media *m)
{
    Hdd *h = m->state;

    hwm_avl_clear(&h->by_cyl, g_free);  /* the cache has emptied it */
    hwm_geometry_free(&h->geo);
    g_free(h);
    m->state = NULL;
    m->geo = NULL;
    m->index = NULL;
}

/* The arm starts where a new device's does (the device resets it), and
 * the write-miss draws and the media-cache log start over. */
static void hdd_power_on(Media *m)
{
    Hdd *h = m->state;

    h->positioned_writes = 0;
    h->log_open = false;
    h->log_head = 0;
}

static uint32_t hdd_unit_of(const Media *m, const MediaReq *r)
{
    (void)m;
    (void)r;
    return UNIT_NONE;           /* one actuator serves everything */
}

static hwm_ns hdd_access_cost(const Media *m, ArmPos arm, const MediaReq *r,
                              hwm_ns t)
{
    const Hdd *h = m->state;

    if (r->log) {
        Phys ph = { .cyl = h->log_cyl, .head = h->log_head };
        return hwm_geometry_position_ns(&h->geo, arm, &ph, true);
    }
    return hwm_geometry_access_cost(&h->geo, arm, t, r->lba, r->sectors,
                                    r->write, r->data_in_ns);
}

/*
 * Off-track write inhibit: right after a seek the head is still settling,
 * and while its position error exceeds the write-inhibit limit the drive
 * must not write (it would overwrite the neighbouring track); the sector
 * passes and the write is tried again when it next comes round, a
 * revolution later.  Residual vibration grows with the seek, so the chance
 * is the profile's share at an average seek, scaled by how far the seek's
 * time exceeds a track-to-track seek's; a head switch, a track-to-track seek
 * or a write on the track the head follows never misses.  Which writes miss
 * is a fixed function of their count, so runs repeat exactly.
 */
static bool write_miss(Hdd *h, const HwmProfile *p, ArmPos arm, uint64_t lba)
{
    uint64_t share_ppm = p->post_seek_write_miss_ppm;
    if (share_ppm == 0) {
        return false;
    }
    Phys ph;
    hwm_geometry_map(&h->geo, lba, &ph);
    if (ph.cyl == arm.cyl) {
        return false;   /* the head's own track, or a head switch */
    }
    uint64_t pos = (uint64_t)hwm_geometry_position_ns(&h->geo, arm, &ph, true);
    uint64_t near = p->seek_track_to_track_ns + p->write_settle_ns;
    uint64_t avg = p->seek_avg_ns + p->write_settle_ns;
    if (pos <= near) {
        return false;
    }
    /* 10^6 x a seek in ns fits in 64 bits; a seek longer than average can
     * take the share past 100%; a flat seek curve leaves the share as is */
    uint64_t ppm = avg > near ? share_ppm * (pos - near) / (avg - near)
                              : share_ppm;
    ppm = MIN(ppm, 1000000);
    /* the first draw of a splitmix64 seeded with the count: consecutive
     * counts give unrelated draws */
    uint64_t seed = ++h->positioned_writes;
    uint64_t x = hwm_splitmix64(&seed);
    return x % 1000000 < ppm;
}

/* The media-cache log is written wherever its track passes under the head:
 * no rotational wait, but it may not wrap onto its own start, so after a
 * revolution on one track it moves to the next (a head switch). */
static hwm_ns log_append(Hdd *h, ArmPos *arm, hwm_ns t, uint64_t sectors,
                         MediaTime *mt)
{
    Phys ph = { .cyl = h->log_cyl, .head = h->log_head };
    hwm_ns pos = hwm_geometry_position_ns(&h->geo, *arm, &ph, true);
    uint32_t z = 0;
    while (z + 1 < h->geo.nzones &&
           h->geo.zones[z + 1].first_cyl <= h->log_cyl) {
        z++;
    }
    uint32_t spt = h->geo.zones[z].spt;
    /* one header sector per entry says where the data belongs */
    hwm_ns xfer = hwm_geometry_xfer_ns(&h->geo, (uint32_t)sectors + 1, spt);

    if (pos > 0 || !h->log_open) {
        h->log_open = true;
        h->log_track_opened = t + pos;
    } else if (t + xfer - h->log_track_opened > h->rev_ns) {
        h->log_head = (h->log_head + 1) % h->geo.heads;
        ph.head = h->log_head;
        pos = hwm_geometry_position_ns(&h->geo, *arm, &ph, true);
        h->log_track_opened = t + pos;
    }
    mt->seek_ns += pos;
    mt->transfer_ns += xfer;
    arm->cyl = h->log_cyl;
    arm->head = h->log_head;
    return t + pos + xfer;
}

static hwm_ns hdd_access(Media *m, ArmPos *arm, const MediaReq *r, hwm_ns t,
                         MediaTime *mt, bool *missed, HostStream *hs)
{
    Hdd *h = m->state;
    unsigned how;

    *missed = false;
    if (r->log) {
        return log_append(h, arm, t, r->sectors, mt);
    }
    if (r->write) {
        *missed = write_miss(h, m->prof, *arm, r->lba);
        how = ACC_WRITE | (*missed ? ACC_MISS : 0);
    } else {
        how = m->prof->zero_latency_read ? ACC_ZERO_LATENCY : 0;
        if (hs) {
            /* the host takes the data as it comes off the platter */
            return hwm_geometry_read_streamed(&h->geo, arm, t, r->lba,
                                              r->sectors, how, mt, hs);
        }
    }
    return hwm_geometry_write_fed(&h->geo, arm, t, r->lba, r->sectors, how,
                                  r->write ? r->data_in_ns : 0, mt);
}

/* Shortest positioning time first, over the whole cache. */
static Extent *hdd_pick(const Media *m, Cache *c, ArmPos arm, hwm_ns t,
                        uint64_t max_seq)
{
    return c->extents == 0 ? NULL : pick_nearest(m->state, arm, t, max_seq);
}

/* an ops table, as media-flash.c's: duplicates pairs its rows by shape; they are data, one entry per operation */
const MediaOps hwm_media_hdd = {
    .name = "hdd",
    .init = hdd_init,
    .fini = hdd_fini,
    .power_on = hdd_power_on,
    .unit_of = hdd_unit_of,
    .access_cost = hdd_access_cost,
    .access = hdd_access,
    .pick = hdd_pick,
    .eager_write_back = false,
    .one_actuator = true,
    .media_cache_log = true,
    .positions_during_data = true,
};
