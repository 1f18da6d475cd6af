/* What a soak job knows about the sectors it owns, and the checker that
 * judges every sector read against it (blk-soak.c).
 *
 * A job owns a slice of the device no other job touches and issues one
 * request at a time, so for each sector it knows every write it issued, in
 * order: writes are numbered per job from 1 and each sector written carries
 * its write's number (record.h).  Per sector the slice keeps
 *   last   the last write issued to it (0: none since the slice began),
 *   floor  the oldest write it may hold: the last one made durable, by a
 *          flush that completed after the write was acknowledged or by an
 *          O_DSYNC write (0: anything, zeros included: never made durable,
 *          or discarded since).
 * Two checks:
 *   - a read with no power cut since the sector last changed must return
 *     exactly `last` (any write up to `last`, or zeros, once discarded:
 *     the data of a discarded range is undefined);
 *   - after a power cut a sector must hold a write in [floor, last], or
 *     zeros if floor is 0.  Anything older than floor is a lost durable
 *     write; anything not this job's write of this sector is corruption.
 * After the cut check the sector holds exactly what was read (the cache
 * came back empty), which becomes both its floor and its last. */
#ifndef PLATTER_SOAK_H
#define PLATTER_SOAK_H

#include <stddef.h>
#include <stdint.h>

#define SOAK_SECTOR_BYTES 512

struct soak_counts {
    uint64_t reads, writes, dsync_writes, flushes, discards;
    uint64_t read_sectors;      /* sectors checked by workload reads */
    uint64_t cut_sectors;       /* sectors checked after power cuts */
    uint64_t at_risk;           /* of those, with a write newer than floor */
    uint64_t kept;              /* ... that held the newest write */
    uint64_t volatile_lost;     /* ... that held an older one, >= floor */
    uint64_t losses;            /* sectors that failed a check */
};

struct soak_slice {
    uint64_t run;               /* stamped into every record */
    uint32_t job;
    uint64_t base_bytes;        /* device offset of the slice */
    uint64_t sectors;
    uint64_t next_seq;          /* the next write's number */
    uint64_t *last, *floor;     /* per sector, see above */
    uint8_t *flags;             /* SOAK_F_* per sector */
    uint64_t *dirty;            /* sectors acknowledged since the last flush */
    uint64_t ndirty;
    struct soak_counts n;
};

/* Allocate a slice of `sectors` sectors at base_bytes; 0, or -1. */
int soak_slice_init(struct soak_slice *s, uint64_t run, uint32_t job,
                    uint64_t base_bytes, uint64_t sectors);
void soak_slice_free(struct soak_slice *s);

/* A write of n sectors at sector index i is about to be issued: fill buf
 * (n * 512 bytes) with its records; returns its number. */
uint64_t soak_write_begin(struct soak_slice *s, uint64_t i, uint64_t n,
                          uint8_t *buf);
/* It was acknowledged; durable: an O_DSYNC write. */
void soak_write_done(struct soak_slice *s, uint64_t i, uint64_t n, int durable);
/* A flush issued after every write so far completed; covers: no cut may
 * have come before it (else it is counted and makes nothing durable). */
void soak_flush_done(struct soak_slice *s, int covers);
/* A discard of n sectors at i was issued (whether it completed or not). */
void soak_discard(struct soak_slice *s, uint64_t i, uint64_t n);

/* Check n sectors at i read into buf; after_cut selects the check (see
 * above) and, after a cut, records what the sectors now hold.  Each failed
 * sector is counted in s->n.losses and described on stderr; returns the
 * number that failed. */
uint64_t soak_check(struct soak_slice *s, uint64_t i, uint64_t n,
                    const uint8_t *buf, int after_cut);
/* Every sector was checked after a cut: nothing is waiting for a flush. */
void soak_cut_checked(struct soak_slice *s);

#endif
