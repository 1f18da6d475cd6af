/*
 * The device: command queue, write cache, FUA, FLUSH and the media units
 * (one actuator for a disk, N dies for flash), run as a discrete-event
 * system on the host's clock.  What an access costs and takes is the
 * medium's (media.h: media-hdd.c, media-flash.c); this file decides what
 * runs when.
 *
 * Every state change happens while processing an internal event at its
 * time, in (time, insertion) order, so the same submissions at the same
 * times give the same events.  Host-visible events are queued as they
 * happen and handed out by hwm_advance().
 */
#include <string.h>

#include "media.h"
#include "profile.h"
#include "readcache.h"

typedef enum {
    EV_READY,       /* a command's overhead (and data-in transfer) is done */
    EV_DONE,        /* a command completes */
    EV_UNIT,        /* a media unit finished its operation */
    EV_WAKE,        /* idle write-back may start */
} TimerKind;

typedef struct {
    hwm_ns t;
    uint64_t order;
    TimerKind kind;
    uint32_t unit;
    uint64_t gen;           /* EV_UNIT: the unit's gen when armed; a
                               re-armed or stopped operation's old timer
                               is stale and ignored */
    struct Cmd *cmd;
} Timer;

typedef enum {
    CS_NEW,         /* queued, not yet taken by the controller */
    CS_PREP,        /* controller overhead running */
    CS_ROOM,        /* write waiting for cache room (or for a write-back of
                       the same sectors to finish) */
    CS_MEDIA,       /* waiting for a media unit */
    CS_RUNNING,     /* on a media unit */
    CS_FLUSH,       /* flush in progress */
    CS_FINISHING,   /* completion scheduled */
} CmdState;

typedef struct Cmd {
    HwmRequest req;
    uint64_t lba, sectors;
    hwm_ns submit_ns, ready_ns, start_ns;
    HwmBreakdown t;
    CmdState state;
    uint64_t flush_cut;     /* FLUSH: acknowledgements it must cover */
    bool reserved;          /* holds a cache reservation */
    bool hit, durable;
    bool read_ahead;        /* READ: rode on the read-ahead in progress */
    hwm_ns host_done;       /* READ from the media: when its data has
                               reached the host (HostStream) */
    uint32_t write_misses;  /* see HwmEvent */
    GList link;             /* in HwmDevice.cmds */
} Cmd;

typedef enum {
    OP_IDLE, OP_HOST, OP_LOG, OP_DESTAGE, OP_COMMIT,
    OP_READAHEAD,   /* readcache.c: reading past a read into a segment */
} OpKind;

typedef struct {
    OpKind op;
    hwm_ns busy_until;
    uint64_t gen;           /* bumped each time its timer is armed */
    Cmd *cmd;
    Extent *ext;
    ArmPos arm;
} Unit;

/*
 * A set of media units (parallel_units <= 4096 = 64 x 64) as a two-level
 * bitmap: the next member at or after a unit in O(1), so a flash device
 * finds the units that can start something without walking all of them.
 */
#define UNITSET_MAX 4096u
typedef struct {
    uint64_t top;               /* bit i: word i is not empty */
    uint64_t w[UNITSET_MAX / 64];
} UnitSet;

static void unitset_add(UnitSet *s, uint32_t u)
{
    s->w[u / 64] |= 1ull << (u % 64);
    s->top |= 1ull << (u / 64);
}

static void unitset_del(UnitSet *s, uint32_t u)
{
    s->w[u / 64] &= ~(1ull << (u % 64));
    if (!s->w[u / 64]) {
        s->top &= ~(1ull << (u / 64));
    }
}

/* The lowest member >= u, or UNIT_NONE. */
static uint32_t unitset_next(const UnitSet *s, uint32_t u)
{
    if (u >= UNITSET_MAX) {
        return UNIT_NONE;
    }
    uint64_t rest = s->w[u / 64] & (~0ull << (u % 64));
    if (rest) {
        return u / 64 * 64 + (uint32_t)__builtin_ctzll(rest);
    }
    uint32_t word = u / 64 + 1;
    uint64_t words = word < 64 ? s->top & (~0ull << word) : 0;
    if (!words) {
        return UNIT_NONE;
    }
    word = (uint32_t)__builtin_ctzll(words);
    return word * 64 + (uint32_t)__builtin_ctzll(s->w[word]);
}

struct HwmDevice {
    HwmProfile prof;            /* copy; name/source owned */
    Media media;                /* the mechanics (media-hdd.c, -flash.c) */
    Cache cache;
    ReadCache rc;               /* read segments and read-ahead (rotating) */

    bool wce, fua;
    uint32_t queue_depth;
    HwmPolicy policy;
    uint32_t queue_window;      /* commands sptf compares (UINT32_MAX: all) */
    uint32_t writeback_window;  /* extents write-back compares (UINT32_MAX:
                                   all) */
    uint64_t writeback_next;    /* the sector after the last write-back:
                                   where an elevator goes on from */
    uint64_t cache_sectors;     /* capacity */
    uint64_t high_water_sectors;
    uint32_t high_water_extents;
    uint64_t destage_max_sectors;

    GArray *timers;             /* binary heap of Timer */
    uint64_t timer_order;
    GArray *out;                /* HwmEvent ready for the host */
    guint out_head;

    GQueue cmds;                /* outstanding, arrival order */
    GList *admit_from;          /* the first CS_NEW command in cmds, or
                                   NULL: admission is in order, so those
                                   not yet admitted are a tail of cmds */
    GQueue room_wait;           /* Cmd*, FIFO */
    GPtrArray *media_q;         /* Cmd* waiting for a unit */
    GPtrArray *flushes;         /* queued flushes in progress */
    Cmd *nq_flush;              /* the non-queued flush in progress */

    Unit *units;
    uint32_t nunits;
    UnitSet idle;               /* units with op == OP_IDLE */
    UnitSet reads_idle;         /* idle units with a read of theirs waiting
                                   in media_q (flash reads go to the die
                                   that holds the data) */
    uint32_t *reads_waiting;    /* per unit: such reads in media_q */
    GPtrArray *running_writes;  /* Cmd* of host writes on a unit: write-back
                                   on another unit must not overtake them */

    hwm_ns now;                 /* latest time the host gave */
    hwm_ns instant;             /* time of the step being processed */
    hwm_ns last_busy;           /* last arrival or completion */
    hwm_ns wake_at;             /* armed EV_WAKE, or HWM_NEVER */
    hwm_ns commit_free;         /* queued flushes' metadata commits are
                                   serial: the next may start then */
    bool after_write;           /* the last read or write to complete was
                                   a write: the overheads it selects */
    uint64_t ack_seq;
    uint64_t reserved_sectors;
    uint32_t reserved_extents;
    struct {                    /* the state when room last ran out */
        const struct Cmd *cmd;
        uint64_t generation;
        uint64_t reserved;
    } room_fail;

    HwmStats st;
};

static bool is_write_in_place(const HwmDevice *d, const Cmd *c);
static bool is_log_write(const HwmDevice *d, const Cmd *c);
static void kick(HwmDevice *d, hwm_ns t);
static void yield_read_ahead(HwmDevice *d, hwm_ns t);

/* ---- timer heap --------------------------------------------------------- */

static bool timer_before(const Timer *a, const Timer *b)
{
    return a->t < b->t || (a->t == b->t && a->order < b->order);
}

static void timer_push(HwmDevice *d, hwm_ns t, TimerKind kind, Cmd *cmd,
                       uint32_t unit)
{
    Timer x = { .t = t, .order = d->timer_order++, .kind = kind,
                .cmd = cmd, .unit = unit,
                .gen = kind == EV_UNIT ? d->units[unit].gen : 0 };
    g_array_append_val(d->timers, x);
    Timer *h = (Timer *)d->timers->data;
    for (guint i = d->timers->len - 1; i > 0;) {
        guint p = (i - 1) / 2;
        if (!timer_before(&h[i], &h[p])) {
            break;
        }
        Timer tmp = h[i];
        h[i] = h[p];
        h[p] = tmp;
        i = p;
    }
}

static Timer timer_pop(HwmDevice *d)
{
    Timer *h = (Timer *)d->timers->data;
    Timer top = h[0];
    guint n = d->timers->len - 1;
    h[0] = h[n];
    g_array_set_size(d->timers, n);
    for (guint i = 0;;) {
        guint l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && timer_before(&h[l], &h[m])) {
            m = l;
        }
        if (r < n && timer_before(&h[r], &h[m])) {
            m = r;
        }
        if (m == i) {
            break;
        }
        Timer tmp = h[i];
        h[i] = h[m];
        h[m] = tmp;
        i = m;
    }
    return top;
}

/* Unit `u` is busy until `t`: (re-)arm its one live timer. */
static void arm_unit(HwmDevice *d, uint32_t u, hwm_ns t)
{
    d->units[u].busy_until = t;
    d->units[u].gen++;
    timer_push(d, t, EV_UNIT, NULL, u);
}

/* ---- media units and their queue --------------------------------------- */

/* What the medium is asked to do for command `c`. */
static MediaReq media_req(const HwmDevice *d, const Cmd *c)
{
    return (MediaReq){ .lba = c->lba, .sectors = c->sectors,
                       .write = c->req.op == HWM_OP_WRITE,
                       .log = is_log_write(d, c) };
}

/* Every change of a unit's op goes through here, to keep the sets. */
static void unit_set_op(HwmDevice *d, uint32_t u, OpKind op)
{
    d->units[u].op = op;
    if (op == OP_IDLE) {
        unitset_add(&d->idle, u);
        if (d->reads_waiting[u]) {
            unitset_add(&d->reads_idle, u);
        }
    } else {
        unitset_del(&d->idle, u);
        unitset_del(&d->reads_idle, u);
    }
}

/* The unit a command must run on (a flash read: the die that holds the
 * data), or UNIT_NONE: any unit. */
static uint32_t pinned_unit(const HwmDevice *d, const Cmd *c)
{
    MediaReq r = media_req(d, c);
    return d->media.ops->unit_of(&d->media, &r);
}

static void media_q_push(HwmDevice *d, Cmd *c)
{
    uint32_t u = pinned_unit(d, c);
    c->state = CS_MEDIA;
    g_ptr_array_add(d->media_q, c);
    if (u != UNIT_NONE && d->reads_waiting[u]++ == 0 &&
        d->units[u].op == OP_IDLE) {
        unitset_add(&d->reads_idle, u);
    }
}

static Cmd *media_q_take(HwmDevice *d, guint idx)
{
    Cmd *c = g_ptr_array_index(d->media_q, idx);
    uint32_t u = pinned_unit(d, c);
    g_ptr_array_remove_index(d->media_q, idx);
    if (u != UNIT_NONE && --d->reads_waiting[u] == 0) {
        unitset_del(&d->reads_idle, u);
    }
    return c;
}

/* ---- host events -------------------------------------------------------- */

static void emit(HwmDevice *d, const HwmEvent *ev)
{
    g_array_append_vals(d->out, ev, 1);
}

static hwm_ns iface_ns(const HwmDevice *d, uint64_t bytes)
{
    return hwm_link_ns(d->prof.interface_bytes_per_s, bytes);
}

static void finish_cmd(HwmDevice *d, Cmd *c, hwm_ns done)
{
    HwmEvent ev = { .kind = HWM_EV_COMPLETE, .time_ns = done,
                    .tag = c->req.tag, .op = c->req.op,
                    .flags = c->req.flags, .submit_ns = c->submit_ns,
                    .start_ns = c->start_ns ? c->start_ns : c->submit_ns,
                    .t = c->t, .cache_hit = c->hit, .durable = c->durable,
                    .write_misses = c->write_misses,
                    .offset = c->req.offset, .length = c->req.length,
                    .read_ahead = c->read_ahead };
    hwm_ns parts = ev.t.overhead_ns + ev.t.seek_ns + ev.t.rotate_ns +
                   ev.t.transfer_ns + ev.t.destage_ns;
    /* whatever is not attributed was spent waiting in the queue */
    ev.t.queue_ns = done - c->submit_ns - parts;
    g_assert(ev.t.queue_ns >= 0);
    emit(d, &ev);

    switch (c->req.op) {
    case HWM_OP_READ:
        d->st.reads++;
        d->st.read_bytes += c->req.length;
        d->st.cache_read_hits += c->hit;
        d->after_write = false;
        break;
    case HWM_OP_WRITE:
        d->after_write = true;
        d->st.writes++;
        d->st.write_bytes += c->req.length;
        d->st.fua_writes += (c->req.flags & HWM_REQ_FUA) != 0;
        break;
    case HWM_OP_FLUSH:
        d->st.flushes++;
        break;
    case HWM_OP_DISCARD:
        d->st.discards++;
        break;
    }
    if (c == d->nq_flush) {
        d->nq_flush = NULL;
    }
    g_queue_unlink(&d->cmds, &c->link);
    g_free(c);
    d->last_busy = done;
}

/* Complete `c` at `t`: now if that is the instant being processed, so
 * events keep the order things happened in; else by a timer. */
static void complete_at(HwmDevice *d, Cmd *c, hwm_ns t)
{
    c->state = CS_FINISHING;
    if (t <= d->instant) {
        finish_cmd(d, c, t);
    } else {
        timer_push(d, t, EV_DONE, c, 0);
    }
}

/* ---- cache room --------------------------------------------------------- */

static bool room_for(const HwmDevice *d, const Cmd *c)
{
    bool durable = (c->req.flags & HWM_REQ_FUA) != 0;
    uint32_t more = hwm_cache_new_extents(&d->cache, c->lba, c->sectors,
                                          durable);
    return d->cache.dirty_sectors + d->reserved_sectors + c->sectors <=
               d->cache_sectors &&
           d->cache.extents + d->reserved_extents + more <=
               d->prof.cache_segments;
}

static void reserve(HwmDevice *d, Cmd *c)
{
    c->reserved = true;
    d->reserved_sectors += c->sectors;
    d->reserved_extents += 1;
}

static void unreserve(HwmDevice *d, Cmd *c)
{
    if (c->reserved) {
        c->reserved = false;
        d->reserved_sectors -= c->sectors;
        d->reserved_extents -= 1;
    }
}

/* A write the cache can hold; the rest go to the media in place. */
static bool is_write_in_place(const HwmDevice *d, const Cmd *c)
{
    if (!d->wce || c->sectors > d->cache_sectors) {
        return true;
    }
    return (c->req.flags & HWM_REQ_FUA) &&
           d->prof.fua_method == HWM_FUA_IN_PLACE;
}

static bool is_log_write(const HwmDevice *d, const Cmd *c)
{
    return (c->req.flags & HWM_REQ_FUA) &&
           d->prof.fua_method == HWM_FUA_MEDIA_CACHE &&
           d->media.ops->media_cache_log && !is_write_in_place(d, c);
}

static void on_ack(HwmDevice *d, Cmd *c, hwm_ns t);

/* Serve cache-room waiters in arrival order while they fit. */
static void serve_room_waiters(HwmDevice *d, hwm_ns t)
{
    Cmd *c;
    while ((c = g_queue_peek_head(&d->room_wait)) != NULL) {
        if (hwm_cache_overlaps_busy(&d->cache, c->lba, c->sectors)) {
            break;
        }
        if (c->req.op == HWM_OP_DISCARD) {
            g_queue_pop_head(&d->room_wait);
            hwm_cache_remove(&d->cache, c->lba, c->sectors);
            c->t.destage_ns = t - c->ready_ns;
            complete_at(d, c, t);
            continue;
        }
        if (is_write_in_place(d, c)) {
            g_queue_pop_head(&d->room_wait);
            c->t.destage_ns = t - c->ready_ns;
            media_q_push(d, c);
            continue;
        }
        /* skip the check when nothing changed since this waiter last
         * failed to fit */
        bool unchanged = d->room_fail.cmd == c &&
                         d->room_fail.generation == d->cache.generation &&
                         d->room_fail.reserved == d->reserved_sectors +
                                                  d->reserved_extents;
        if (unchanged || !room_for(d, c)) {
            d->room_fail.cmd = c;
            d->room_fail.generation = d->cache.generation;
            d->room_fail.reserved = d->reserved_sectors + d->reserved_extents;
            break;
        }
        g_queue_pop_head(&d->room_wait);
        d->room_fail.cmd = NULL;    /* its memory may hold the next one */
        reserve(d, c);
        c->t.destage_ns = t - c->ready_ns;
        if (is_log_write(d, c)) {
            media_q_push(d, c);
        } else {
            /* into the cache now, before a write-back can start on older
             * data of the same sectors in this instant */
            on_ack(d, c, t);
        }
    }
}

/* ---- controller --------------------------------------------------------- */

static uint32_t read_segments_now(const HwmDevice *d);

/* The controller's overhead for `c`, by kind (HwmOverheadKind): decided
 * when it takes the command, from what the buffer holds then, as DiskSim
 * decides it on arrival.  Once the overhead is over, read_from_buffer()
 * may find otherwise (the read-ahead moved on, or a write came in): the
 * overhead is spent by then. */
static hwm_ns overhead_of(const HwmDevice *d, const Cmd *c, hwm_ns t)
{
    HwmOverheadKind k;

    switch (c->req.op) {
    case HWM_OP_READ: {
        bool hit = !(c->req.flags & HWM_REQ_FUA) &&
                   (hwm_cache_covers(&d->cache, c->lba, c->sectors) ||
                    (d->rc.nseg > 0 &&
                     hwm_rc_peek(&d->rc, t, c->lba, c->sectors,
                                 read_segments_now(d))));
        k = hit ? HWM_OVH_READ_HIT : HWM_OVH_READ_MISS;
        break;
    }
    case HWM_OP_WRITE:
        k = is_write_in_place(d, c) || is_log_write(d, c) ?
            HWM_OVH_WRITE_MISS : HWM_OVH_WRITE_HIT;
        break;
    default:
        return (hwm_ns)d->prof.command_overhead_ns;
    }
    return (hwm_ns)d->prof.kind_overhead_ns[d->after_write][k];
}

static bool earlier_outstanding(const HwmDevice *d, const Cmd *c)
{
    return d->cmds.head != &c->link;
}

/* Take queued commands into the controller, stopping at a non-queued
 * flush, which waits for everything before it and holds up everything
 * after it (SATA FLUSH CACHE is not an NCQ command). */
static void admit(HwmDevice *d, hwm_ns t)
{
    /* the non-queued flush in progress precedes every command not yet
     * admitted: they wait for it (and the walk from the head to find the
     * first new command cost O(queue) per step) */
    if (d->nq_flush) {
        return;
    }
    for (GList *l = d->admit_from; l; l = d->admit_from = l->next) {
        Cmd *c = l->data;
        if (c->req.op == HWM_OP_FLUSH &&
            d->prof.flush_mode == HWM_FLUSH_NON_QUEUED) {
            if (earlier_outstanding(d, c)) {
                return;
            }
            d->admit_from = l->next;
            c->state = CS_FLUSH;
            c->start_ns = t;
            c->t.overhead_ns = (hwm_ns)d->prof.command_overhead_ns;
            c->flush_cut = d->ack_seq;
            d->nq_flush = c;
            return;
        }
        c->state = CS_PREP;
        c->start_ns = t;
        c->t.overhead_ns = overhead_of(d, c, t);
        hwm_ns ready = t + c->t.overhead_ns;
        if (c->req.op == HWM_OP_WRITE) {
            hwm_ns x = iface_ns(d, c->req.length);
            ready += x;
            c->t.transfer_ns += x;
        }
        timer_push(d, ready, EV_READY, c, 0);
    }
}

/* Read segments the buffer holds now: shared ones get the room dirty data
 * (and writes already given room) leave. */
static uint32_t read_segments_now(const HwmDevice *d)
{
    if (!d->prof.read_segments_shared) {
        return d->rc.nseg;
    }
    uint64_t taken = d->cache.dirty_sectors + d->reserved_sectors;
    uint64_t room = d->cache_sectors > taken ? d->cache_sectors - taken : 0;
    return (uint32_t)MIN(d->rc.nseg, room / MAX(1, d->rc.seg_sectors));
}

/* A hit or join may have sent the read-ahead further: move its timer. */
static void rearm_read_ahead(HwmDevice *d)
{
    if (d->rc.active && hwm_rc_end(&d->rc) != d->units[0].busy_until) {
        arm_unit(d, 0, hwm_rc_end(&d->rc));
    }
}

/* A read the buffer serves without a media access of its own: from the
 * write cache, a read segment, or the read-ahead in progress. */
static bool read_from_buffer(HwmDevice *d, Cmd *c, hwm_ns t)
{
    hwm_ns done = t + iface_ns(d, c->req.length);

    if (c->req.flags & HWM_REQ_FUA) {
        return false;                   /* FUA: from the media */
    }
    if (hwm_cache_covers(&d->cache, c->lba, c->sectors)) {
        c->hit = true;
    } else if (d->rc.nseg == 0) {
        return false;
    } else {
        switch (hwm_rc_lookup(&d->rc, t, c->lba, c->sectors,
                              read_segments_now(d), &done)) {
        case RC_MISS:
            return false;
        case RC_HIT:
            c->hit = true;
            d->st.read_segment_hits++;
            break;
        case RC_JOIN:
            /* the head is already streaming towards it: the host takes
             * what is in and the rest as it comes */
            c->read_ahead = true;
            d->st.read_ahead_joins++;
            break;
        }
        rearm_read_ahead(d);
    }
    c->t.transfer_ns += done - t;
    complete_at(d, c, done);
    return true;
}

static void on_ready(HwmDevice *d, Cmd *c, hwm_ns t)
{
    c->ready_ns = t;
    switch (c->req.op) {
    case HWM_OP_READ:
        if (!read_from_buffer(d, c, t)) {
            media_q_push(d, c);
        }
        break;
    case HWM_OP_WRITE:
    case HWM_OP_DISCARD:
        /* read segments must not serve the old data */
        hwm_rc_invalidate(&d->rc, c->lba, c->sectors);
        c->state = CS_ROOM;
        g_queue_push_tail(&d->room_wait, c);
        break;
    case HWM_OP_FLUSH:
        c->state = CS_FLUSH;
        c->flush_cut = d->ack_seq;
        g_ptr_array_add(d->flushes, c);
        break;
    }
}

static void on_ack(HwmDevice *d, Cmd *c, hwm_ns t)
{
    bool protected = (c->req.flags & HWM_REQ_FUA) != 0;
    unreserve(d, c);
    hwm_cache_insert(&d->cache, c->lba, c->sectors, protected, ++d->ack_seq);
    c->durable = protected;
    c->state = CS_FINISHING;
    finish_cmd(d, c, t);
}

/* ---- flushes ------------------------------------------------------------ */

/*
 * A flush's write-back is over at `t`: the controller now runs its flush
 * routine (cache state, mapping journal) for flush_commit, one flush at a
 * time, whether or not new data arrived since the last one.  Returns when
 * that ends.  Without a write cache there is nothing to commit.
 */
static hwm_ns flush_commit(HwmDevice *d, hwm_ns t)
{
    if (!d->wce || d->prof.flush_commit_ns == 0) {
        return t;
    }
    d->commit_free = MAX(t, d->commit_free) + (hwm_ns)d->prof.flush_commit_ns;
    return d->commit_free;
}

static void check_flushes(HwmDevice *d, hwm_ns t)
{
    /* the flush's commit needs the arm: after a read-ahead that holds it */
    if (d->nq_flush && d->nq_flush->state == CS_FLUSH &&
        d->cache.extents == 0 && d->units[0].op != OP_READAHEAD) {
        Cmd *c = d->nq_flush;
        hwm_ns committed = flush_commit(d, t);
        /* write-back ran alongside the controller's overhead */
        hwm_ns media = c->t.seek_ns + c->t.rotate_ns + c->t.transfer_ns;
        hwm_ns done = MAX(committed, c->start_ns + c->t.overhead_ns + media);
        c->t.destage_ns = done - c->start_ns - c->t.overhead_ns - media;
        if (committed > t && d->media.ops->one_actuator) {
            /* the commit writes drive metadata: the arm is busy with it */
            unit_set_op(d, 0, OP_COMMIT);
            arm_unit(d, 0, committed);
        }
        complete_at(d, c, done);
    }
    if (d->flushes->len == 0) {
        return;
    }
    uint64_t oldest = hwm_cache_oldest_seq(&d->cache);
    for (guint i = 0; i < d->flushes->len;) {
        Cmd *c = g_ptr_array_index(d->flushes, i);
        if (oldest > c->flush_cut) {
            hwm_ns done = flush_commit(d, t);
            c->t.destage_ns = done - c->ready_ns;
            g_ptr_array_remove_index(d->flushes, i);
            complete_at(d, c, done);
        } else {
            i++;
        }
    }
}

/* ---- media -------------------------------------------------------------- */

static bool overlaps_running_write(const HwmDevice *d, uint64_t lba,
                                   uint64_t n)
{
    for (guint i = 0; i < d->running_writes->len; i++) {
        const Cmd *c = g_ptr_array_index(d->running_writes, i);
        if (c->lba < lba + n && lba < c->lba + c->sectors) {
            return true;
        }
    }
    return false;
}

/* Is write-back wanted now, apart from flushes and room waiters? */
static bool destage_wanted(HwmDevice *d, hwm_ns t)
{
    if (d->cache.extents == 0) {
        return false;
    }
    if (d->media.ops->eager_write_back) {
        return true;
    }
    if (d->cache.dirty_sectors >= d->high_water_sectors ||
        d->cache.extents >= d->high_water_extents) {
        return true;
    }
    bool idle = d->cmds.length == 0;
    hwm_ns due = d->last_busy + (hwm_ns)d->prof.idle_destage_delay_ns;
    if (idle && t >= due) {
        return true;
    }
    if (idle && d->wake_at == HWM_NEVER) {
        /* one wake-up at a time: when it fires early (more commands came
         * since), this re-arms it for the new due time */
        d->wake_at = due;
        timer_push(d, due, EV_WAKE, NULL, 0);
    }
    return false;
}

static uint64_t flush_seq_limit(const HwmDevice *d)
{
    if (d->nq_flush) {
        return UINT64_MAX;
    }
    uint64_t cut = 0;
    for (guint i = 0; i < d->flushes->len; i++) {
        cut = MAX(cut, ((Cmd *)g_ptr_array_index(d->flushes, i))->flush_cut);
    }
    return cut;
}

/* Write-back within a window of the oldest dirty extents: the first the
 * order puts first (ties: the lower LBA). */
static Extent *pick_in_window(HwmDevice *d, const Unit *un, hwm_ns t,
                              uint64_t max_seq)
{
    const MediaOps *m = d->media.ops;
    Extent *best = NULL;
    uint64_t best_key = UINT64_MAX;
    uint32_t n = 0;

    for (Extent *e = hwm_cache_oldest_idle(&d->cache, max_seq);
         e && n < d->writeback_window;
         e = hwm_cache_next_idle(&d->cache, e, max_seq), n++) {
        uint64_t key;
        if (d->prof.writeback_order == HWM_WB_ELEVATOR) {
            /* unsigned distance: those behind the elevator wrap round */
            key = e->lba - d->writeback_next;
        } else if (m->access_cost) {
            MediaReq r = { .lba = e->lba, .sectors = e->sectors,
                           .write = true };
            key = (uint64_t)m->access_cost(&d->media, un->arm, &r, t);
        } else {
            key = 0;
        }
        if (!best || key < best_key ||
            (key == best_key && e->lba < best->lba)) {
            best = e;
            best_key = key;
        }
    }
    return best;
}

/* The dirty extent write-back takes next on a unit, among those
 * acknowledged up to max_seq: as the profile's writeback_order says, in a
 * window of the oldest writeback_window (or all of them, by index). */
static Extent *pick_destage(HwmDevice *d, const Unit *un, hwm_ns t,
                            uint64_t max_seq)
{
    bool whole = d->writeback_window == UINT32_MAX ||
                 d->cache.extents <= d->writeback_window;

    switch (d->prof.writeback_order) {
    case HWM_WB_OLDEST:
        return hwm_cache_oldest_idle(&d->cache, max_seq);
    case HWM_WB_ELEVATOR:
        return whole ? hwm_cache_pick_from(&d->cache, d->writeback_next,
                                           max_seq)
                     : pick_in_window(d, un, t, max_seq);
    case HWM_WB_POSITIONING:
        break;
    }
    return whole ? d->media.ops->pick(&d->media, &d->cache, un->arm, t,
                                      max_seq)
                 : pick_in_window(d, un, t, max_seq);
}

static bool start_destage(HwmDevice *d, uint32_t u, hwm_ns t, uint64_t max_seq)
{
    Unit *un = &d->units[u];
    Extent *e = pick_destage(d, un, t, max_seq);

    if (e && overlaps_running_write(d, e->lba, e->sectors)) {
        /* a FUA write of newer data for these sectors is running on another
         * unit: its completion retries write-back */
        e = NULL;
    }
    if (!e) {
        return false;
    }
    uint64_t n = MIN(e->sectors, d->destage_max_sectors);
    e = hwm_cache_start_destage(&d->cache, e, n);
    d->writeback_next = e->lba + e->sectors;
    MediaReq r = { .lba = e->lba, .sectors = e->sectors, .write = true };
    MediaTime mt = { 0 };
    bool missed;
    hwm_ns end = d->media.ops->access(&d->media, &un->arm, &r, t, &mt,
                                      &missed, NULL);
    if (d->media.ops->one_actuator && d->nq_flush &&
        d->nq_flush->state == CS_FLUSH) {
        /* the flush is waiting for exactly this: show where it went */
        d->nq_flush->t.seek_ns += mt.seek_ns;
        d->nq_flush->t.rotate_ns += mt.rotate_ns;
        d->nq_flush->t.transfer_ns += mt.transfer_ns;
        d->nq_flush->write_misses += missed;
    }
    d->st.write_misses += missed;
    d->st.seek_ns += mt.seek_ns;
    d->st.rotate_ns += mt.rotate_ns;
    d->st.transfer_ns += mt.transfer_ns;
    d->st.media_ops++;
    unit_set_op(d, u, OP_DESTAGE);
    un->ext = e;
    arm_unit(d, u, end);
    return true;
}

static bool unit_can_take(const HwmDevice *d, uint32_t u, const Cmd *c)
{
    uint32_t pin = pinned_unit(d, c);
    return pin == UNIT_NONE || pin == u;
}

/* The command unit `u` runs next: the first in readiness order under fifo;
 * under sptf, of the oldest queue_window it could start, an aged one (the
 * oldest) or the one positioned soonest. */
static int pick_host(HwmDevice *d, uint32_t u, hwm_ns t)
{
    int best = -1;
    hwm_ns best_cost = INT64_MAX;
    const MediaOps *m = d->media.ops;
    bool fifo = d->policy == HWM_POLICY_FIFO || !m->access_cost;
    uint32_t seen = 0;

    for (guint i = 0; i < d->media_q->len && seen < d->queue_window; i++) {
        Cmd *c = g_ptr_array_index(d->media_q, i);
        if (!unit_can_take(d, u, c)) {
            continue;
        }
        if (c->req.op == HWM_OP_WRITE &&
            hwm_cache_overlaps_busy(&d->cache, c->lba, c->sectors)) {
            continue;
        }
        seen++;
        if (fifo) {
            return (int)i;      /* media_q is in readiness order */
        }
        if (t - c->ready_ns >= (hwm_ns)d->prof.sptf_max_wait_ns) {
            return (int)i;      /* aged: oldest first */
        }
        MediaReq r = media_req(d, c);
        hwm_ns cost = m->access_cost(&d->media, d->units[u].arm, &r, t);
        if (cost < best_cost) {
            best_cost = cost;
            best = (int)i;
        }
    }
    return best;
}

static void start_host(HwmDevice *d, uint32_t u, hwm_ns t, int idx)
{
    Unit *un = &d->units[u];
    Cmd *c = media_q_take(d, (guint)idx);
    MediaReq r = media_req(d, c);
    MediaTime mt = { 0 };
    bool missed;
    /* a read's data goes to the host as the medium brings it in */
    HostStream hs = { .from_lba = c->lba, .end_lba = c->lba + c->sectors,
                      .link_bytes_per_s = d->prof.interface_bytes_per_s,
                      .done = t + iface_ns(d, c->req.length) };
    hwm_ns end = d->media.ops->access(&d->media, &un->arm, &r, t, &mt,
                                      &missed, r.write ? NULL : &hs);

    c->host_done = hs.done;
    unit_set_op(d, u, r.log ? OP_LOG : OP_HOST);
    if (r.write) {
        /* write-back on another unit must not overtake it */
        g_ptr_array_add(d->running_writes, c);
    }
    c->write_misses += missed;
    d->st.write_misses += missed;
    c->state = CS_RUNNING;
    c->t.seek_ns += mt.seek_ns;
    c->t.rotate_ns += mt.rotate_ns;
    c->t.transfer_ns += mt.transfer_ns;
    d->st.seek_ns += mt.seek_ns;
    d->st.rotate_ns += mt.rotate_ns;
    d->st.transfer_ns += mt.transfer_ns;
    d->st.media_ops++;
    un->cmd = c;
    arm_unit(d, u, end);
}

static bool room_waiter_needs_space(const HwmDevice *d)
{
    const Cmd *c = g_queue_peek_head((GQueue *)&d->room_wait);
    return c && !hwm_cache_overlaps_busy(&d->cache, c->lba, c->sectors);
}

/* Does a command wait for the media (as opposed to background
 * write-back, which a read-ahead does not hold up for long)? */
static bool media_wanted(const HwmDevice *d)
{
    return d->media_q->len > 0 || d->flushes->len > 0 ||
           (d->nq_flush && d->nq_flush->state == CS_FLUSH) ||
           room_waiter_needs_space(d);
}

/* The actuator is reading ahead: a command that wants the media stops it,
 * if the profile says so (reads riding on it are served first).  Runs
 * before anything else is given the actuator. */
static void yield_read_ahead(HwmDevice *d, hwm_ns t)
{
    Unit *un = &d->units[0];
    if (un->op != OP_READAHEAD ||
        !d->prof.read_ahead_abandon || !media_wanted(d)) {
        return;
    }
    hwm_ns free_at = hwm_rc_stop(&d->rc, t);
    if (free_at > t) {
        if (free_at != un->busy_until) {
            arm_unit(d, 0, free_at);
        }
        return;
    }
    hwm_rc_finish(&d->rc, t, &un->arm);
    unit_set_op(d, 0, OP_IDLE);
    un->gen++;                          /* its timer is stale now */
}

/* Returns whether unit `u` (idle) started something. */
static bool start_unit(HwmDevice *d, uint32_t u, hwm_ns t)
{
    /* write-back that someone is waiting for comes first */
    if (d->nq_flush && d->nq_flush->state == CS_FLUSH) {
        /* nothing else runs during a non-queued flush */
        return start_destage(d, u, t, UINT64_MAX);
    }
    if (d->flushes->len > 0 && start_destage(d, u, t, flush_seq_limit(d))) {
        return true;
    }
    if (room_waiter_needs_space(d) && start_destage(d, u, t, UINT64_MAX)) {
        return true;
    }
    int idx = pick_host(d, u, t);
    if (idx >= 0) {
        start_host(d, u, t, idx);
        return true;
    }
    return destage_wanted(d, t) && start_destage(d, u, t, UINT64_MAX);
}

/*
 * Every idle unit, lowest first, takes what it can.  Once one takes
 * nothing, no unit can take write-back or a write (neither depends on the
 * unit, and starting work never makes more of it), so only the units with
 * a read of their own waiting are left to try: the work is O(units that
 * start), not O(units), on a flash device of thousands of dies.
 */
static void start_units(HwmDevice *d, hwm_ns t)
{
    uint32_t u = unitset_next(&d->idle, 0);
    while (u != UNIT_NONE && start_unit(d, u, t)) {
        u = unitset_next(&d->idle, u + 1);
    }
    while (u != UNIT_NONE &&
           (u = unitset_next(&d->reads_idle, u + 1)) != UNIT_NONE) {
        start_unit(d, u, t);
    }
}

static void on_unit_done(HwmDevice *d, uint32_t u, hwm_ns t)
{
    Unit *un = &d->units[u];
    OpKind op = un->op;

    unit_set_op(d, u, OP_IDLE);
    if (op == OP_DESTAGE) {
        Extent *e = un->ext;
        HwmEvent ev = { .kind = HWM_EV_DURABLE, .time_ns = t,
                        .offset = e->lba * HWM_SECTOR_BYTES,
                        .length = e->sectors * HWM_SECTOR_BYTES };
        d->st.destages++;
        d->st.destage_bytes += ev.length;
        if (!e->durable) {
            emit(d, &ev);
        }
        hwm_cache_finish_destage(&d->cache, e);
        un->ext = NULL;
    } else if (op == OP_HOST || op == OP_LOG) {
        Cmd *c = un->cmd;
        un->cmd = NULL;
        if (c->req.op == HWM_OP_WRITE) {
            g_ptr_array_remove_fast(d->running_writes, c);
            if (op == OP_LOG) {
                /* durable in the log; its home write is still owed */
                unreserve(d, c);
                hwm_cache_insert(&d->cache, c->lba, c->sectors, true,
                             ++d->ack_seq);
            } else {
                /* newer data is home: cached copies are stale */
                hwm_cache_remove(&d->cache, c->lba, c->sectors);
            }
            c->durable = true;
            complete_at(d, c, t);
        } else {
            /* the part of the host transfer the media read did not hide */
            hwm_ns x = c->host_done - t;
            /* keep what was read; read on past it while nothing else
             * wants the media */
            if (d->rc.nseg > 0 &&
                hwm_rc_read_done(&d->rc, t, un->arm, c->lba, c->sectors,
                                 !media_wanted(d), read_segments_now(d))) {
                unit_set_op(d, u, OP_READAHEAD);
                arm_unit(d, u, hwm_rc_end(&d->rc));
            }
            c->t.transfer_ns += x;
            complete_at(d, c, t + x);
        }
    } else if (op == OP_READAHEAD) {
        hwm_rc_finish(&d->rc, t, &un->arm);
    }
}

/* After any state change at time t: move everything that can move. */
static void kick(HwmDevice *d, hwm_ns t)
{
    admit(d, t);
    serve_room_waiters(d, t);
    /* writes it completed may let a non-queued flush start */
    admit(d, t);
    yield_read_ahead(d, t);
    for (;;) {
        Cmd *nq = d->nq_flush;
        check_flushes(d, t);
        if (!nq || d->nq_flush) {
            break;
        }
        /* the non-queued flush completed at this instant: let in what
         * waited behind it (another such flush may complete at once) */
        admit(d, t);
    }
    start_units(d, t);
}

static void run_until(HwmDevice *d, hwm_ns now)
{
    while (d->timers->len > 0 &&
           ((Timer *)d->timers->data)[0].t <= now) {
        Timer x = timer_pop(d);
        d->instant = x.t;
        switch (x.kind) {
        case EV_READY:
            on_ready(d, x.cmd, x.t);
            break;
        case EV_DONE:
            finish_cmd(d, x.cmd, x.t);
            break;
        case EV_UNIT:
            if (x.gen != d->units[x.unit].gen) {
                break;          /* re-armed or stopped since */
            }
            if (d->units[x.unit].op == OP_COMMIT) {
                unit_set_op(d, x.unit, OP_IDLE);
            } else {
                on_unit_done(d, x.unit, x.t);
            }
            break;
        case EV_WAKE:
            if (d->wake_at == x.t) {
                d->wake_at = HWM_NEVER;
            }
            break;
        }
        kick(d, x.t);
    }
}

/* ---- public API --------------------------------------------------------- */

static void apply_tristate(bool *v, HwmTristate t)
{
    if (t == HWM_ON) {
        *v = true;
    } else if (t == HWM_OFF) {
        *v = false;
    }
}

HwmDevice *hwm_device_new(const HwmProfile *p, const HwmConfig *cfg,
                          GError **errp)
{
    HwmConfig none = { 0 };
    HwmDevice *d = g_new0(HwmDevice, 1);

    cfg = cfg ? cfg : &none;
    d->prof = *p;
    d->prof.name = g_strdup(p->name);
    d->prof.source = g_strdup(p->source);
    d->media.ops = p->kind == HWM_KIND_HDD ? &hwm_media_hdd
                                           : &hwm_media_flash;
    d->media.prof = &d->prof;
    if (!d->media.ops->init(&d->media, errp)) {
        g_free(d->prof.name);
        g_free(d->prof.source);
        g_free(d);
        return NULL;
    }
    d->wce = p->write_cache;
    d->fua = p->fua;
    apply_tristate(&d->wce, cfg->write_cache);
    apply_tristate(&d->fua, cfg->fua);
    if (d->wce && p->cache_bytes < 64 * 1024) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID,
                    "%s: write cache requested but the profile has no cache "
                    "(cache_mb = 0)", p->source);
        d->media.ops->fini(&d->media);
        g_free(d->prof.name);
        g_free(d->prof.source);
        g_free(d);
        return NULL;
    }
    d->queue_depth = cfg->queue_depth ? cfg->queue_depth : p->queue_depth;
    d->policy = cfg->policy ? cfg->policy : p->policy;
    /* a window as large as the queue (or the cache) is all of it, whatever
     * queue depth the host sets */
    d->queue_window = p->queue_window >= p->queue_depth ? UINT32_MAX
                                                         : p->queue_window;
    d->writeback_window = p->writeback_window >= p->cache_segments ?
                          UINT32_MAX : p->writeback_window;
    d->cache_sectors = p->cache_bytes / HWM_SECTOR_BYTES;
    d->high_water_sectors = d->cache_sectors * p->high_water_pct / 100;
    d->high_water_extents = (uint32_t)((uint64_t)p->cache_segments *
                                       p->high_water_pct / 100);
    d->destage_max_sectors = MAX(1, p->destage_max_bytes / HWM_SECTOR_BYTES);

    hwm_cache_init(&d->cache, d->media.geo);
    hwm_rc_init(&d->rc, d->media.geo, p);
    d->timers = g_array_new(FALSE, FALSE, sizeof(Timer));
    d->out = g_array_new(FALSE, FALSE, sizeof(HwmEvent));
    d->media_q = g_ptr_array_new();
    d->flushes = g_ptr_array_new();
    d->nunits = d->media.units;
    g_assert(d->nunits <= UNITSET_MAX);     /* the profile's bound */
    d->units = g_new0(Unit, d->nunits);
    d->reads_waiting = g_new0(uint32_t, d->nunits);
    d->running_writes = g_ptr_array_new();
    for (uint32_t u = 0; u < d->nunits; u++) {
        unitset_add(&d->idle, u);
    }
    d->wake_at = HWM_NEVER;
    return d;
}

static void drop_commands(HwmDevice *d)
{
    GList *l;
    /* the links live inside the commands: unlink, never g_list_free them */
    while ((l = g_queue_pop_head_link(&d->cmds)) != NULL) {
        g_free(l->data);
    }
    g_queue_clear(&d->room_wait);
    g_ptr_array_set_size(d->media_q, 0);
    g_ptr_array_set_size(d->flushes, 0);
    g_array_set_size(d->timers, 0);
    d->nq_flush = NULL;
    d->admit_from = NULL;
    d->reserved_sectors = 0;
    d->reserved_extents = 0;
    d->wake_at = HWM_NEVER;
    d->commit_free = 0;
    d->room_fail.cmd = NULL;
    memset(d->units, 0, sizeof *d->units * d->nunits);
    memset(d->reads_waiting, 0, sizeof *d->reads_waiting * d->nunits);
    g_ptr_array_set_size(d->running_writes, 0);
    d->idle = (UnitSet){ 0 };
    d->reads_idle = (UnitSet){ 0 };
    for (uint32_t u = 0; u < d->nunits; u++) {
        unitset_add(&d->idle, u);
    }
    hwm_rc_clear(&d->rc);
}

void hwm_device_free(HwmDevice *d)
{
    if (!d) {
        return;
    }
    drop_commands(d);
    hwm_cache_destroy(&d->cache);
    hwm_rc_destroy(&d->rc);
    d->media.ops->fini(&d->media);
    g_array_unref(d->timers);
    g_array_unref(d->out);
    g_ptr_array_unref(d->media_q);
    g_ptr_array_unref(d->flushes);
    g_free(d->units);
    g_free(d->reads_waiting);
    g_ptr_array_unref(d->running_writes);
    g_free(d->prof.name);
    g_free(d->prof.source);
    g_free(d);
}

uint64_t hwm_device_capacity_bytes(const HwmDevice *d)
{
    return d->prof.capacity_bytes;
}

bool hwm_device_write_cache(const HwmDevice *d)
{
    return d->wce;
}

bool hwm_device_fua(const HwmDevice *d)
{
    return d->fua;
}

uint32_t hwm_device_queue_depth(const HwmDevice *d)
{
    return d->queue_depth;
}

uint64_t hwm_device_cache_bytes(const HwmDevice *d)
{
    return d->cache_sectors * HWM_SECTOR_BYTES;
}

uint32_t hwm_device_rotation_rpm(const HwmDevice *d)
{
    return d->media.geo ? d->media.geo->rpm : 0;
}

uint32_t hwm_device_angle_mdeg(const HwmDevice *d, hwm_ns t)
{
    if (!d->media.geo) {
        return 0;
    }
    /* phase < PHASE_REV < 2^36: the product fits in 64 bits */
    return (uint32_t)(hwm_geometry_phase(d->media.geo, t) * 360000u /
                      PHASE_REV);
}

bool hwm_device_locate(const HwmDevice *d, uint64_t offset, HwmLocation *out)
{
    const Geometry *g = d->media.geo;
    uint64_t lba = offset / HWM_SECTOR_BYTES;

    if (offset >= d->prof.capacity_bytes) {
        return false;
    }
    *out = (HwmLocation){ .units = d->media.units };
    if (!g) {
        MediaReq r = { .lba = lba, .sectors = 1 };
        uint32_t u = d->media.ops->unit_of(&d->media, &r);
        out->unit = u == UNIT_NONE ? 0 : u;
        return true;
    }
    Phys ph;
    hwm_geometry_map(g, lba, &ph);
    out->zone = ph.zone;
    out->zones = g->nzones;
    out->cylinder = ph.cyl;
    out->cylinders = g->cylinders;
    out->head = ph.head;
    out->heads = g->heads;
    out->sector = ph.sector;
    out->sectors_per_track = ph.spt;
    out->angle_mdeg = (uint32_t)((uint64_t)ph.slot * 360000u / ph.spt);
    return true;
}

static bool check_time(HwmDevice *d, hwm_ns now, GError **errp)
{
    if (now > HWM_TIME_MAX) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_TIME,
                    "time %" G_GINT64_FORMAT " ns is past the latest the "
                    "model accepts (%" G_GINT64_FORMAT " ns)", now,
                    (hwm_ns)HWM_TIME_MAX);
        return false;
    }
    if (now < d->now) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_TIME,
                    "time went backwards: %" G_GINT64_FORMAT " ns after %"
                    G_GINT64_FORMAT " ns", now, d->now);
        return false;
    }
    return true;
}

static bool check_request(const HwmDevice *d, const HwmRequest *r,
                          GError **errp)
{
    uint64_t cap = d->prof.capacity_bytes;

    if (r->op > HWM_OP_DISCARD) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID,
                    "request %" G_GUINT64_FORMAT ": unknown op %d", r->tag,
                    (int)r->op);
        return false;
    }
    if (r->flags & ~HWM_REQ_FUA) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID,
                    "request %" G_GUINT64_FORMAT ": unknown flags 0x%x",
                    r->tag, r->flags & ~HWM_REQ_FUA);
        return false;
    }
    if (r->op == HWM_OP_FLUSH) {
        if (r->length != 0 || r->flags) {
            g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID,
                        "request %" G_GUINT64_FORMAT ": FLUSH takes no "
                        "range or flags", r->tag);
            return false;
        }
        return true;
    }
    if ((r->flags & HWM_REQ_FUA) && r->op == HWM_OP_DISCARD) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID,
                    "request %" G_GUINT64_FORMAT ": FUA on DISCARD", r->tag);
        return false;
    }
    if (r->length == 0 || r->offset % HWM_SECTOR_BYTES ||
        r->length % HWM_SECTOR_BYTES) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID,
                    "request %" G_GUINT64_FORMAT ": %s at %" G_GUINT64_FORMAT
                    " length %" G_GUINT64_FORMAT ": offset and length must "
                    "be non-zero multiples of %u bytes", r->tag,
                    hwm_op_name(r->op), r->offset, r->length,
                    HWM_SECTOR_BYTES);
        return false;
    }
    if (r->offset >= cap || r->length > cap - r->offset) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_RANGE,
                    "request %" G_GUINT64_FORMAT ": %s at %" G_GUINT64_FORMAT
                    " length %" G_GUINT64_FORMAT " ends past the device end "
                    "(%" G_GUINT64_FORMAT " bytes)", r->tag,
                    hwm_op_name(r->op), r->offset, r->length, cap);
        return false;
    }
    return true;
}

bool hwm_submit(HwmDevice *d, hwm_ns now, const HwmRequest *req,
                GError **errp)
{
    if (!check_time(d, now, errp) || !check_request(d, req, errp)) {
        return false;
    }
    run_until(d, now);
    d->now = now;
    if (d->cmds.length >= d->queue_depth) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_QUEUE_FULL,
                    "request %" G_GUINT64_FORMAT ": queue full (%u commands "
                    "outstanding)", req->tag, d->queue_depth);
        return false;
    }
    Cmd *c = g_new0(Cmd, 1);
    c->req = *req;
    c->lba = req->offset / HWM_SECTOR_BYTES;
    c->sectors = req->length / HWM_SECTOR_BYTES;
    c->submit_ns = now;
    c->state = CS_NEW;
    c->link.data = c;
    g_queue_push_tail_link(&d->cmds, &c->link);
    if (!d->admit_from) {
        d->admit_from = &c->link;
    }
    d->last_busy = now;
    d->instant = now;
    kick(d, now);
    return true;
}

hwm_ns hwm_next_event(HwmDevice *d)
{
    if (d->out_head < d->out->len) {
        return g_array_index(d->out, HwmEvent, d->out_head).time_ns;
    }
    if (d->timers->len == 0) {
        return HWM_NEVER;
    }
    return MAX(((Timer *)d->timers->data)[0].t, d->now);
}

size_t hwm_advance(HwmDevice *d, hwm_ns now, HwmEvent *ev, size_t cap)
{
    size_t n = 0;

    if (now > d->now) {
        d->now = now;
    }
    run_until(d, d->now);
    while (n < cap && d->out_head < d->out->len) {
        ev[n++] = g_array_index(d->out, HwmEvent, d->out_head);
        d->out_head++;
    }
    if (d->out_head == d->out->len) {
        g_array_set_size(d->out, 0);
        d->out_head = 0;
    }
    return n;
}

GArray *hwm_volatile_extents(const HwmDevice *d)
{
    return hwm_cache_volatile_ranges(&d->cache);
}

GArray *hwm_power_cut(HwmDevice *d, hwm_ns now)
{
    if (now > d->now) {
        d->now = now;
    }
    run_until(d, d->now);
    GArray *lost = hwm_cache_volatile_ranges(&d->cache);
    for (guint i = 0; i < lost->len; i++) {
        d->st.lost_bytes += g_array_index(lost, HwmExtent, i).length;
    }
    d->st.power_cuts++;
    drop_commands(d);
    hwm_cache_clear(&d->cache);
    /*
     * Power-on state, the same whatever the dropped commands had done: the
     * arm starts where a new device's does, the write-miss draws and the
     * media-cache log start over (drop_commands() emptied the read segments
     * and stopped the read-ahead: the buffer is volatile).  Commands the cut dropped never complete,
     * so a trace of the run cannot show them; had they moved the arm or the
     * draw count, a replay of that trace would time everything after the
     * cut differently (platter-sim --verify).
     */
    d->media.ops->power_on(&d->media);
    d->writeback_next = 0;
    d->after_write = false;
    d->last_busy = d->now;
    return lost;
}

void hwm_stats(const HwmDevice *d, HwmStats *out)
{
    *out = d->st;
    /* the read-ahead's media time and reach (what it read so far of the
     * one in progress shows when it ends) */
    out->seek_ns += d->rc.mt.seek_ns;
    out->rotate_ns += d->rc.mt.rotate_ns;
    out->transfer_ns += d->rc.mt.transfer_ns;
    out->read_ahead_bytes = d->rc.ahead_sectors * HWM_SECTOR_BYTES;
    out->read_ahead_stops = d->rc.abandoned;
    out->dirty_bytes = d->cache.dirty_sectors * HWM_SECTOR_BYTES;
    out->dirty_extents = d->cache.extents;
}

const char *hwm_op_name(HwmOp op)
{
    static const char *const names[] = { "READ", "WRITE", "FLUSH", "DISCARD" };
    return (unsigned)op < G_N_ELEMENTS(names) ? names[op] : "?";
}
