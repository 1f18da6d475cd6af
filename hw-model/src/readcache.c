/*
 * Read segments and read-ahead (readcache.h).
 *
 * Why a drive streams sequential reads at the media rate even one command
 * at a time: after a read from the media, the head keeps reading the
 * sectors that follow into a segment of its buffer.  The next sequential
 * read finds its data there (a hit), or finds the read-ahead about to read
 * it and rides on it (a join): either way the head never waits a
 * revolution for a sector it just passed.  In segment mode the read-ahead
 * keeps a segment ahead of what the host has read for as long as the host
 * keeps reading, so a stream never stops; in track mode it stops at the
 * end of the track, as drives with small buffers do.
 *
 * Where the read-ahead is at time t is not stored but computed: it was at
 * an exact sector boundary at base_t (geometry.h), so the geometry walk
 * from there gives every later boundary exactly.  The base moves forward
 * on each hit or join, so no walk covers more than what was read since.
 */
#include "readcache.h"

void hwm_rc_init(ReadCache *rc, const Geometry *geo, const HwmProfile *p)
{
    *rc = (ReadCache){ .geo = geo,
                       .link_bytes_per_s = p->interface_bytes_per_s };
    if (!geo || p->read_segments == 0) {
        return;
    }
    rc->nseg = p->read_segments;
    rc->seg = g_new0(ReadSeg, rc->nseg);
    rc->seg_sectors = p->read_segment_bytes / HWM_SECTOR_BYTES;
    rc->mode = p->read_ahead;
}

void hwm_rc_destroy(ReadCache *rc)
{
    g_clear_pointer(&rc->seg, g_free);
    rc->nseg = 0;
}

void hwm_rc_clear(ReadCache *rc)
{
    for (uint32_t i = 0; i < rc->nseg; i++) {
        rc->seg[i] = (ReadSeg){ 0 };
    }
    rc->active = false;
    rc->stopping = false;
    rc->clock = 0;
}

/* When the read-ahead has read up to sector `x`, walking from its base;
 * `arm` (may be NULL) gets where the head is then, `mt` (may be NULL) the
 * media time spent on the way. */
static hwm_ns time_of(const ReadCache *rc, uint64_t x, ArmPos *arm,
                      MediaTime *mt)
{
    ArmPos a = rc->base_arm;
    MediaTime scratch = { 0 };
    hwm_ns t = rc->base_t;

    if (x > rc->base_lba) {
        t = hwm_geometry_access(rc->geo, &a, t, rc->base_lba,
                                x - rc->base_lba, 0, mt ? mt : &scratch);
    }
    if (arm) {
        *arm = a;
    }
    return t;
}

/* The first sector the read-ahead has not finished reading at `t`. */
static uint64_t pos_at(const ReadCache *rc, hwm_ns t)
{
    ArmPos a = rc->base_arm;
    return rc->base_lba +
           hwm_geometry_sectors_by(rc->geo, &a, rc->base_t, rc->base_lba,
                                   rc->limit - rc->base_lba, t);
}

/* Move the base up to what is read by `t`, counting its media time. */
static void rebase(ReadCache *rc, hwm_ns t)
{
    uint64_t x = pos_at(rc, t);
    if (x > rc->base_lba) {
        ArmPos a;
        rc->base_t = time_of(rc, x, &a, &rc->mt);
        rc->base_arm = a;
        rc->base_lba = x;
    }
}

/* The sectors a segment can serve at `t`: the read-ahead's segment holds
 * what it has read so far, at most a segment's worth (it is a ring). */
static void seg_range(const ReadCache *rc, uint32_t i, hwm_ns t,
                      uint64_t *lo, uint64_t *hi)
{
    const ReadSeg *s = &rc->seg[i];
    *lo = s->lo;
    *hi = s->hi;
    if (rc->active && i == rc->cur) {
        *hi = pos_at(rc, t);
        if (*hi > rc->seg_sectors) {
            *lo = MAX(*lo, *hi - rc->seg_sectors);
        }
    }
}

/*
 * The one retention policy of shared segments, which give way to dirty
 * data: with room for `avail` segments, does used segment i keep its data?
 * All do while they fit.  Else the read-ahead's own stays while there is
 * room for one (the actuator finishes its pass either way), and the others
 * by recency, as many as the room the read-ahead's leaves: the least
 * recently used go first.  fit() applies it; hwm_rc_peek() asks it of the
 * buffer as it is, to know a lookup's outcome without making it.
 */
static bool retained(const ReadCache *rc, uint32_t i, uint32_t avail)
{
    uint32_t used = 0, newer = 0;
    bool filling = rc->active && rc->seg[rc->cur].used;

    for (uint32_t k = 0; k < rc->nseg; k++) {
        used += rc->seg[k].used != 0;
        newer += k != i && !(rc->active && k == rc->cur) &&
                 rc->seg[k].used > rc->seg[i].used;
    }
    if (used <= avail) {
        return true;
    }
    if (rc->active && i == rc->cur) {
        return avail > 0;
    }
    return newer + filling < avail;
}

/*
 * Apply the policy: the segments it does not retain lose their data.
 * Deciding one at a time on the buffer as it changes gives the same
 * answer as deciding all at once: a segment dropped is older than every
 * segment retained, so it never counted as newer for one of them, and
 * while one that must go is left the buffer is still over `avail`.
 */
static void fit(ReadCache *rc, uint32_t avail)
{
    uint32_t used = 0;

    for (uint32_t i = 0; i < rc->nseg; i++) {
        used += rc->seg[i].used != 0;
    }
    if (used <= avail) {
        return;                     /* the common case, in O(segments) */
    }
    for (uint32_t i = 0; i < rc->nseg; i++) {
        if (!rc->seg[i].used || retained(rc, i, avail)) {
            continue;
        }
        if (rc->active && i == rc->cur) {
            /* the actuator finishes its pass, but the data has no room
             * to stay */
            rc->seg[i].lo = rc->limit;
        } else {
            rc->seg[i].used = 0;
        }
    }
}

/* The host has read up to `end` from the read-ahead's segment: in segment
 * mode keep a segment ahead of it.  `ride`: a command waits for it. */
static void extend(ReadCache *rc, hwm_ns t, uint64_t end, bool ride)
{
    rebase(rc, t);
    if (ride) {
        rc->must = MAX(rc->must, end);
    }
    if (!rc->stopping) {
        uint64_t want = rc->mode == HWM_READ_AHEAD_SEGMENT ?
                        end + rc->seg_sectors : end;
        rc->limit = MIN(MAX(rc->limit, want), rc->geo->total_sectors);
    }
}

/* When the host has [lba, lba+n) of the read-ahead in progress, asked for
 * at `t` (the base is at what is read by then: extend() rebased it). */
static hwm_ns join_done(const ReadCache *rc, hwm_ns t, uint64_t lba,
                        uint64_t n)
{
    HostStream hs = { .from_lba = MAX(lba, rc->base_lba), .end_lba = lba + n,
                      .link_bytes_per_s = rc->link_bytes_per_s,
                      .done = t + hwm_link_ns(rc->link_bytes_per_s,
                                              n * HWM_SECTOR_BYTES) };
    ArmPos a = rc->base_arm;
    MediaTime scratch = { 0 };

    if (lba + n > rc->base_lba) {
        hwm_geometry_read_streamed(rc->geo, &a, rc->base_t, rc->base_lba,
                                   lba + n - rc->base_lba, 0, &scratch, &hs);
    }
    return hs.done;
}

bool hwm_rc_peek(const ReadCache *rc, hwm_ns t, uint64_t lba, uint64_t n,
                 uint32_t avail)
{
    for (uint32_t i = 0; i < rc->nseg; i++) {
        uint64_t lo, hi;
        if (!rc->seg[i].used) {
            continue;
        }
        seg_range(rc, i, t, &lo, &hi);
        if (lo <= lba && lba + n <= hi && retained(rc, i, avail)) {
            return true;
        }
    }
    if (rc->active && retained(rc, rc->cur, avail)) {
        uint64_t lo, hi;
        seg_range(rc, rc->cur, t, &lo, &hi);
        bool reaches = rc->stopping ? lba + n <= rc->limit
                                    : lba <= rc->limit;
        return lo <= lba && reaches;
    }
    return false;
}

RcLookup hwm_rc_lookup(ReadCache *rc, hwm_ns t, uint64_t lba, uint64_t n,
                       uint32_t avail, hwm_ns *host_done)
{
    fit(rc, avail);
    for (uint32_t i = 0; i < rc->nseg; i++) {
        uint64_t lo, hi;
        if (!rc->seg[i].used) {
            continue;
        }
        seg_range(rc, i, t, &lo, &hi);
        if (lo <= lba && lba + n <= hi) {
            rc->seg[i].used = ++rc->clock;
            if (rc->active && i == rc->cur) {
                extend(rc, t, lba + n, false);
            }
            return RC_HIT;
        }
    }
    if (rc->active) {
        uint64_t lo, hi;
        seg_range(rc, rc->cur, t, &lo, &hi);
        /* starts in what it has read or will read before it stops; once
         * stopped it reads no further than it must */
        bool reaches = rc->stopping ? lba + n <= rc->limit
                                    : lba <= rc->limit;
        if (lo <= lba && reaches) {
            rc->seg[rc->cur].used = ++rc->clock;
            extend(rc, t, lba + n, true);
            *host_done = join_done(rc, t, lba, n);
            return RC_JOIN;
        }
    }
    return RC_MISS;
}

bool hwm_rc_read_done(ReadCache *rc, hwm_ns t, ArmPos arm, uint64_t lba,
                      uint64_t n, bool ahead, uint32_t avail)
{
    uint32_t pick = UINT32_MAX;

    g_assert(!rc->active);
    if (avail == 0 || rc->nseg == 0) {
        return false;
    }
    fit(rc, avail - 1);         /* room for this one */
    for (uint32_t i = 0; i < rc->nseg; i++) {
        if (!rc->seg[i].used) {
            pick = i;
            break;
        }
    }
    g_assert(pick != UINT32_MAX);
    uint64_t end = lba + n;
    rc->seg[pick] = (ReadSeg){ .lo = n > rc->seg_sectors ?
                                     end - rc->seg_sectors : lba,
                               .hi = end, .used = ++rc->clock };
    if (!ahead || rc->mode == HWM_READ_AHEAD_OFF) {
        return false;
    }
    uint64_t limit = end + rc->seg_sectors;
    if (rc->mode == HWM_READ_AHEAD_TRACK) {
        Phys ph;
        hwm_geometry_map(rc->geo, MIN(end, rc->geo->total_sectors - 1), &ph);
        limit = end - ph.sector + ph.lbas;
    }
    limit = MIN(limit, rc->geo->total_sectors);
    if (limit <= end) {
        return false;
    }
    rc->active = true;
    rc->stopping = false;
    rc->cur = pick;
    rc->base_t = t;
    rc->base_arm = arm;
    rc->base_lba = rc->start_lba = rc->must = end;
    rc->limit = limit;
    return true;
}

hwm_ns hwm_rc_end(const ReadCache *rc)
{
    return time_of(rc, rc->limit, NULL, NULL);
}

hwm_ns hwm_rc_stop(ReadCache *rc, hwm_ns t)
{
    uint64_t x = pos_at(rc, t);
    uint64_t limit = MIN(rc->limit, MAX(x, rc->must));

    if (!rc->stopping && limit < rc->limit) {
        rc->abandoned++;
    }
    rc->stopping = true;
    rc->limit = limit;
    return MAX(t, time_of(rc, limit, NULL, NULL));
}

void hwm_rc_finish(ReadCache *rc, hwm_ns t, ArmPos *arm)
{
    ReadSeg *s = &rc->seg[rc->cur];

    (void)t;
    g_assert(rc->active);
    time_of(rc, rc->limit, arm, &rc->mt);
    rc->ahead_sectors += rc->limit - rc->start_lba;
    s->hi = rc->limit;
    if (s->hi - s->lo > rc->seg_sectors) {
        s->lo = s->hi - rc->seg_sectors;
    }
    if (s->lo >= s->hi) {
        s->used = 0;                /* evicted or overwritten meanwhile */
    }
    rc->active = false;
    rc->stopping = false;
}

void hwm_rc_invalidate(ReadCache *rc, uint64_t lba, uint64_t n)
{
    if (rc->clock == 0) {
        return;                     /* nothing was ever read into them */
    }
    for (uint32_t i = 0; i < rc->nseg; i++) {
        ReadSeg *s = &rc->seg[i];
        bool filling = rc->active && i == rc->cur;
        uint64_t hi = filling ? rc->limit : s->hi;
        if (!s->used || lba >= hi || lba + n <= s->lo) {
            continue;
        }
        if (filling) {
            /* it keeps reading (the actuator is committed); what lies
             * up to the new data's end can no longer be served */
            s->lo = MAX(s->lo, MIN(lba + n, rc->limit));
        } else {
            s->used = 0;
        }
    }
}
