/*
 * The write cache's dirty extents: non-overlapping sector ranges that were
 * acknowledged but are not yet at their home location.  Indexed by LBA (for
 * overlap, merge and read hits) and, on rotating media, by (cylinder, start
 * angle) so shortest-positioning-time write-back costs O(cylinders visited
 * * log n) instead of a scan of every extent.  The indexes are intrusive
 * AVL trees (avl.h): an extent is a node of each.
 */
#ifndef HWM_CACHE_H
#define HWM_CACHE_H

#include "avl.h"
#include "geometry.h"

typedef struct CylIndex CylIndex;

typedef struct {
    uint64_t lba;            /* first sector */
    uint64_t sectors;
    uint64_t seq;            /* oldest acknowledgement it holds */
    bool durable;            /* non-volatile already (protected buffer or
                                media-cache log); still needs its home write */
    bool busy;               /* being written back right now */
    /* position key, rotating media only */
    uint32_t cyl;
    uint32_t head;
    uint32_t slot;           /* start angle, in sectors (geometry.h) */
    CylIndex *ci;            /* its cylinder's index */
    /* its nodes in Cache's indexes */
    AvlNode in_lba, in_seq, in_pos, in_idle, in_busy;
} Extent;

/* The dirty extents starting on one cylinder, by start angle.  A cylinder
 * lies in one zone, so its tracks share one sectors-per-track. */
struct CylIndex {
    uint32_t cyl;
    uint32_t spt;
    AvlTree by_slot;         /* Extent, ordered (slot, lba) */
    AvlNode in_cyl;          /* in Cache.by_cyl */
};

typedef struct {
    AvlTree by_lba;          /* Extent, by lba; they are freed from here */
    AvlTree by_cyl;          /* CylIndex, by cyl (rotating media) */
    AvlTree by_seq;          /* Extent, ordered (seq, lba): the oldest
                                acknowledgement in O(log n) */
    AvlTree idle_by_lba;     /* flash: the extents not being written back,
                                by lba: the lowest is found without passing
                                every busy one (one per die, thousands of
                                dies) */
    const Geometry *geo;     /* NULL: no position index (flash) */
    uint64_t dirty_sectors;
    uint64_t volatile_sectors;
    uint32_t extents;
    uint64_t generation;     /* bumped by every change */
    AvlTree busy;            /* extents being written back, by lba: one per
                                media unit at most, but a flash device has
                                thousands of units */
} Cache;

void hwm_cache_init(Cache *c, const Geometry *geo);
void hwm_cache_destroy(Cache *c);

/* Drop whatever part of [lba, lba+n) is cached; the caller ensured no busy
 * extent overlaps it. */
void hwm_cache_remove(Cache *c, uint64_t lba, uint64_t n);

/* Put [lba, lba+n) in the cache, replacing older data in the range and
 * merging with neighbours of the same kind. */
void hwm_cache_insert(Cache *c, uint64_t lba, uint64_t n, bool durable,
                  uint64_t seq);

bool hwm_cache_covers(const Cache *c, uint64_t lba, uint64_t n);
bool hwm_cache_overlaps_busy(const Cache *c, uint64_t lba, uint64_t n);

/* Extents a new insert of [lba, lba+n) would add (0 or 1: merges and
 * overwrites may add none). */
uint32_t hwm_cache_new_extents(const Cache *c, uint64_t lba, uint64_t n,
                               bool durable);

/*
 * Choose what to write back next among the extents with seq <= max_seq
 * that are not being written back; NULL when none is eligible.
 * nearest: the extent whose first sector the arm reaches soonest from
 * `arm` at time `t` (rotating media: the position index).
 * lowest: the lowest LBA (flash, where the position does not matter).
 */
Extent *hwm_cache_pick_nearest(Cache *c, ArmPos arm, hwm_ns t,
                               uint64_t max_seq);
Extent *hwm_cache_pick_lowest(Cache *c, uint64_t max_seq);
/* from: the first at or after `lba`, else the lowest (an elevator). */
Extent *hwm_cache_pick_from(Cache *c, uint64_t lba, uint64_t max_seq);
/* The eligible extents oldest first: the first, and the one after `e`. */
Extent *hwm_cache_oldest_idle(Cache *c, uint64_t max_seq);
Extent *hwm_cache_next_idle(Cache *c, const Extent *e, uint64_t max_seq);

/* Mark the first `n` sectors of `e` as being written back: splits `e` so
 * the busy part is an extent of its own, which is returned. */
Extent *hwm_cache_start_destage(Cache *c, Extent *e, uint64_t n);

/* The busy extent reached home: remove it. */
void hwm_cache_finish_destage(Cache *c, Extent *e);

/* Lowest seq among extents, or UINT64_MAX when empty. */
uint64_t hwm_cache_oldest_seq(const Cache *c);

/* Every volatile range, merged, in bytes, ascending. */
GArray *hwm_cache_volatile_ranges(const Cache *c);

void hwm_cache_clear(Cache *c);

#endif
