/*
 * The read path of a rotating drive: read segments (each one contiguous
 * range of sectors, replaced least recently used first) and the read-ahead
 * that fills one of them after a read from the media.
 *
 * The read-ahead is one media operation the device runs on its actuator;
 * this file knows where it is at any time (from the instant it was at an
 * exact sector boundary, through the geometry walk), how far it goes, and
 * which reads it serves.  The device decides when it starts and when a
 * command stops it, and keeps the actuator's timer.
 */
#ifndef HWM_READCACHE_H
#define HWM_READCACHE_H

#include "geometry.h"

typedef struct {
    uint64_t lo, hi;          /* sectors held, [lo, hi); the segment the
                                 read-ahead fills grows past hi as it runs */
    uint64_t used;            /* last use, for LRU; 0: empty */
} ReadSeg;

typedef struct {
    const Geometry *geo;
    uint64_t link_bytes_per_s;  /* the host link: reads stream over it */
    ReadSeg *seg;
    uint32_t nseg;
    uint64_t seg_sectors;
    HwmReadAhead mode;
    uint64_t clock;           /* LRU stamps; 0: no segment ever filled
                                 since power-on (writes skip the scan) */

    /* the read-ahead in progress: it reads sector base_lba from base_t
     * (an exact boundary instant) with the arm at base_arm */
    bool active;
    bool stopping;            /* stopped by a command: no more extensions */
    uint32_t cur;             /* the segment it fills */
    hwm_ns base_t;
    ArmPos base_arm;
    uint64_t base_lba;
    uint64_t start_lba;       /* where it began, for read_ahead_bytes */
    uint64_t limit;           /* it stops before this sector */
    uint64_t must;            /* commands riding on it need this far */

    /* totals for HwmStats */
    MediaTime mt;             /* media time the read-ahead spent */
    uint64_t ahead_sectors;   /* sectors it read */
    uint64_t abandoned;       /* read-aheads a command stopped early */
} ReadCache;

void hwm_rc_init(ReadCache *rc, const Geometry *geo, const HwmProfile *p);
void hwm_rc_destroy(ReadCache *rc);
/* Power cut: the buffer is gone and the read-ahead with it. */
void hwm_rc_clear(ReadCache *rc);

typedef enum {
    RC_MISS,      /* the media must be read */
    RC_HIT,       /* all of it is in a segment now */
    RC_JOIN,      /* the read-ahead in progress will read the rest */
} RcLookup;

/*
 * A read of [lba, lba+n) is ready at `t`.  `avail` is how many segments the
 * buffer holds now (shared segments give way to dirty data).  For RC_JOIN,
 * `*host_done` is when its last byte has reached the host: what is in the
 * segment goes at once, the rest as the read-ahead brings it in
 * (HostStream).  A hit or join keeps the read-ahead running a segment
 * ahead of the host (segment mode), so the device must re-arm the
 * actuator's timer at hwm_rc_end().
 */
RcLookup hwm_rc_lookup(ReadCache *rc, hwm_ns t, uint64_t lba, uint64_t n,
                       uint32_t avail, hwm_ns *host_done);

/* Would hwm_rc_lookup() at `t` find [lba, lba+n) (a hit or a join)?
 * Changes nothing: the controller asks when it takes the command, to know
 * which overhead the command costs. */
bool hwm_rc_peek(const ReadCache *rc, hwm_ns t, uint64_t lba, uint64_t n,
                 uint32_t avail);

/*
 * The media read of [lba, lba+n) ended at `t` with the arm at `arm`: keep
 * its data in a segment and, when `ahead`, start a read-ahead after it.
 * Returns true when a read-ahead runs (until hwm_rc_end()).
 */
bool hwm_rc_read_done(ReadCache *rc, hwm_ns t, ArmPos arm, uint64_t lba,
                      uint64_t n, bool ahead, uint32_t avail);

/* When the read-ahead in progress reaches its limit. */
hwm_ns hwm_rc_end(const ReadCache *rc);

/* A command needs the media at `t`: stop the read-ahead at the sector it
 * is on, or where the reads riding on it need it.  Returns when the
 * actuator is free. */
hwm_ns hwm_rc_stop(ReadCache *rc, hwm_ns t);

/* The read-ahead is over at `t` (its limit, or the end of a stop): the
 * segment keeps what it read; `*arm` is where the head is. */
void hwm_rc_finish(ReadCache *rc, hwm_ns t, ArmPos *arm);

/* [lba, lba+n) has new data: no segment may serve the old. */
void hwm_rc_invalidate(ReadCache *rc, uint64_t lba, uint64_t n);

#endif
