/*
 * The write cache's dirty extents: non-overlapping sector ranges that were
 * acknowledged but are not yet at their home location.  Indexed by LBA (for
 * overlap, merge and read hits) and by acknowledgement order; a medium may
 * keep an index of its own (ExtentIndex: media-hdd.c's by cylinder and
 * start angle, for shortest-positioning-time write-back).  The indexes are
 * intrusive AVL trees (avl.h): an extent is a node of each.
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
    bool detached;           /* busy, and newer data of some of its sectors
                                came in: out of by_lba (which holds the
                                newer), still in by_seq and busy */
    bool behind;             /* overlaps a busy extent (older data of its
                                sectors on the way home): not written back
                                before that one is, so the newer lands last */
    /* position key: the medium's index's own (media-hdd.c), set by its
     * add() and untouched by the cache */
    uint32_t cyl;
    uint32_t head;
    uint32_t slot;           /* start angle, in sectors (geometry.h) */
    CylIndex *ci;            /* its cylinder's index */
    /* its nodes in Cache's indexes */
    AvlNode in_lba, in_seq, in_pos, in_idle, in_busy;
} Extent;

/*
 * A medium's own index of the dirty extents, kept in step with the cache:
 * told of every extent that enters and that leaves it.
 */
typedef struct {
    void (*add)(void *opaque, Extent *e);
    void (*remove)(void *opaque, Extent *e);
    /* every extent is about to go (the cache frees them after) */
    void (*clear)(void *opaque);
    void *opaque;
} ExtentIndex;

typedef struct {
    AvlTree by_lba;          /* Extent, by lba; they are freed from here */
    AvlTree by_seq;          /* Extent, ordered (seq, lba): the oldest
                                acknowledgement in O(log n) */
    AvlTree idle_by_lba;     /* without a medium's index (flash): the
                                extents not being written back, by lba: the
                                lowest is found without passing every busy
                                one (one per die, thousands of dies) */
    const ExtentIndex *index; /* the medium's, or NULL */
    uint64_t dirty_sectors;
    uint64_t volatile_sectors;
    uint32_t extents;
    uint64_t generation;     /* bumped by every change */
    AvlTree busy;            /* extents being written back, by lba: one per
                                media unit at most, but a flash device has
                                thousands of units */
} Cache;

/* `index`: the medium's index of the extents (it must outlive the cache),
 * or NULL: then the cache keeps idle_by_lba for hwm_cache_pick_lowest(). */
void hwm_cache_init(Cache *c, const ExtentIndex *index);
void hwm_cache_destroy(Cache *c);

/* Drop whatever part of [lba, lba+n) is cached; the caller ensured no busy
 * extent overlaps it. */
void hwm_cache_remove(Cache *c, uint64_t lba, uint64_t n);

/* Put [lba, lba+n) in the cache, replacing older data in the range and
 * merging with neighbours of the same kind.  Older data of the range that
 * is being written back goes on (detached): a buffer takes the new data
 * at once, as a drive's does, and writes it back after the old. */
void hwm_cache_insert(Cache *c, uint64_t lba, uint64_t n, bool durable,
                  uint64_t seq);

bool hwm_cache_covers(const Cache *c, uint64_t lba, uint64_t n);
bool hwm_cache_overlaps_busy(const Cache *c, uint64_t lba, uint64_t n);

/* Extents a new insert of [lba, lba+n) would add (0 or 1: merges and
 * overwrites may add none). */
uint32_t hwm_cache_new_extents(const Cache *c, uint64_t lba, uint64_t n,
                               bool durable);

/* May `e` be written back now, for a flush that waits for max_seq? */
static inline bool hwm_extent_eligible(const Extent *e, uint64_t max_seq)
{
    return !e->busy && !e->behind && e->seq <= max_seq;
}

/*
 * Choose what to write back next among the eligible extents; NULL when
 * none is.  (The medium's own picks, by position, are media-hdd.c's.)
 * lowest: the lowest LBA (a cache without a medium's index only).
 */
Extent *hwm_cache_pick_lowest(Cache *c, uint64_t max_seq);
/* from: the first at or after `lba`, else the lowest (an elevator). */
Extent *hwm_cache_pick_from(Cache *c, uint64_t lba, uint64_t max_seq);
/* The eligible extents oldest first: the first, and the one after `e`. */
Extent *hwm_cache_oldest_idle(Cache *c, uint64_t max_seq);
Extent *hwm_cache_next_idle(Cache *c, const Extent *e, uint64_t max_seq);

/* Mark the first `n` sectors of `e` as being written back: splits `e` so
 * the busy part is an extent of its own, which is returned. */
Extent *hwm_cache_start_destage(Cache *c, Extent *e, uint64_t n);

/* The sector ranges ({offset, length} in sectors) of busy extent `e`
 * whose data its write-back brings home: all of it, or for a detached
 * extent the sectors no newer data in the buffer holds. */
GArray *hwm_cache_reached_home(const Cache *c, const Extent *e);

/* The busy extent reached home: remove it. */
void hwm_cache_finish_destage(Cache *c, Extent *e);

/* Lowest seq among extents, or UINT64_MAX when empty. */
uint64_t hwm_cache_oldest_seq(const Cache *c);

/* Every volatile range (a detached extent's too), merged, in bytes,
 * ascending. */
GArray *hwm_cache_volatile_ranges(const Cache *c);

void hwm_cache_clear(Cache *c);

#endif
