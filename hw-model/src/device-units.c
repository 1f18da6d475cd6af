/*
 * The device's media units (device.h): the queue of commands waiting for
 * one, and what an idle unit starts next: a write-back someone waits for
 * (a flush, a write that needs room), a host command (fifo or shortest
 * positioning time first), or background write-back; and what happens
 * when its operation ends (write-back done, data in, read-ahead on).
 * How long an operation takes is the medium's (media.h).
 */
#include "device.h"

/* ---- media units and their queue --------------------------------------- */

/* What the medium is asked to do for command `c`. */
static MediaReq media_req(const HwmDevice *d, const Cmd *c)
{
    return (MediaReq){ .lba = c->lba, .sectors = c->sectors,
                       .write = c->req.op == HWM_OP_WRITE,
                       .log = dev_is_log_write(d, c),
                       .data_in_ns = c->data_in_ns };
}

/* Every change of a unit's op goes through here, to keep the sets. */
void dev_unit_set_op(HwmDevice *d, uint32_t u, OpKind op)
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

void dev_media_q_push(HwmDevice *d, Cmd *c)
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

/*
 * New data is in the buffer (a read from the media, a read-ahead): the
 * queued reads it now holds are served from it, as a drive looks a queued
 * command up in its buffer before it sends it to the media.  Without this,
 * a read that queued behind another read of the same sectors went to the
 * media after it, a revolution later: three sequential streams over the
 * same data cost a revolution a read (issue 38).
 */
static void serve_queued_reads(HwmDevice *d, hwm_ns t)
{
    for (guint i = 0; i < d->media_q->len;) {
        Cmd *c = g_ptr_array_index(d->media_q, i);
        if (c->req.op == HWM_OP_READ && dev_read_from_buffer(d, c, t)) {
            media_q_take(d, i);     /* served: out of the queue */
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
        dev_timer_push(d, due, EV_WAKE, NULL, 0);
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
    uint64_t fill = d->media.ops->write_unit_sectors ?
                    d->media.ops->write_unit_sectors(&d->media) : 0;
    uint64_t n = MIN(e->sectors, d->destage_max_sectors);
    if (fill) {
        n = MIN(n, fill);
    }
    e = hwm_cache_start_destage(&d->cache, e, n);
    d->writeback_next = e->lba + e->sectors;
    uint64_t total = e->sectors;
    /* fill the rest of the program with the next dirty data the order
     * gives, wherever it lies */
    while (total < fill) {
        Extent *x = pick_destage(d, un, t, max_seq);
        if (!x || overlaps_running_write(d, x->lba, x->sectors)) {
            break;
        }
        x = hwm_cache_start_destage(&d->cache, x,
                                    MIN(x->sectors, fill - total));
        if (!un->batch) {
            un->batch = g_ptr_array_new();
        }
        g_ptr_array_add(un->batch, x);
        total += x->sectors;
        d->writeback_next = x->lba + x->sectors;
    }
    MediaReq r = { .lba = e->lba, .sectors = total, .write = true };
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
    dev_unit_set_op(d, u, OP_DESTAGE);
    un->ext = e;
    dev_arm_unit(d, u, end);
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
    /* the sector whose arrival fills the buffer to the reconnect ratio */
    uint64_t need = ((uint64_t)c->sectors * d->prof.read_reconnect_pct + 99) /
                    100;
    HostStream hs = { .from_lba = c->lba, .end_lba = c->lba + c->sectors,
                      .link_bytes_per_s = d->prof.interface_bytes_per_s,
                      .reconnect_lba = c->lba + (need ? need - 1 : 0),
                      .done = t + dev_iface_ns(d, c->req.length) };
    hwm_ns end = d->media.ops->access(&d->media, &un->arm, &r, t, &mt,
                                      &missed, r.write ? NULL : &hs);

    c->host_done = hs.done;
    dev_unit_set_op(d, u, r.log ? OP_LOG : OP_HOST);
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
    dev_arm_unit(d, u, end);
}

static bool room_waiter_needs_space(const HwmDevice *d)
{
    const Cmd *c = g_queue_peek_head((GQueue *)&d->room_wait);
    return c && !dev_waits_for_busy(d, c);
}

/* Does a command wait for the media (as opposed to background
 * write-back, which a read-ahead does not hold up for long)? */
/* Whether something waits for the media, besides queued reads inside
 * [lba, lba + n): the data just read, which serves them. */
static bool media_wanted_past(const HwmDevice *d, uint64_t lba, uint64_t n)
{
    for (guint i = 0; i < d->media_q->len; i++) {
        const Cmd *c = g_ptr_array_index(d->media_q, i);
        if (c->req.op != HWM_OP_READ || (c->req.flags & HWM_REQ_FUA) ||
            c->lba < lba || c->lba + c->sectors > lba + n) {
            return true;
        }
    }
    return d->flushes->len > 0 ||
           (d->nq_flush && d->nq_flush->state == CS_FLUSH) ||
           room_waiter_needs_space(d);
}

static bool media_wanted(const HwmDevice *d)
{
    return media_wanted_past(d, 0, 0);
}

/* The actuator is reading ahead: a command that wants the media stops it,
 * if the profile says so (reads riding on it are served first).  Runs
 * before anything else is given the actuator. */
void dev_yield_read_ahead(HwmDevice *d, hwm_ns t)
{
    Unit *un = &d->units[0];
    if (un->op != OP_READAHEAD ||
        !d->prof.read_ahead_abandon || !media_wanted(d)) {
        return;
    }
    hwm_ns free_at = hwm_rc_stop(&d->rc, t);
    if (free_at > t) {
        if (free_at != un->busy_until) {
            dev_arm_unit(d, 0, free_at);
        }
        return;
    }
    hwm_rc_finish(&d->rc, t, &un->arm);
    dev_unit_set_op(d, 0, OP_IDLE);
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
void dev_start_units(HwmDevice *d, hwm_ns t)
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

void dev_on_unit_done(HwmDevice *d, uint32_t u, hwm_ns t)
{
    Unit *un = &d->units[u];
    OpKind op = un->op;
    bool read_in = op == OP_READAHEAD;   /* the media brought data in */

    dev_unit_set_op(d, u, OP_IDLE);
    if (op == OP_DESTAGE) {
        guint more = un->batch ? un->batch->len : 0;
        for (guint i = 0; i <= more; i++) {
            Extent *e = i == 0 ? un->ext
                               : g_ptr_array_index(un->batch, i - 1);
            d->st.destages++;
            d->st.destage_bytes += e->sectors * HWM_SECTOR_BYTES;
            if (!e->durable) {
                g_autoptr(GArray) home = hwm_cache_reached_home(&d->cache, e);
                for (guint k = 0; k < home->len; k++) {
                    const HwmExtent *r = &g_array_index(home, HwmExtent, k);
                    HwmEvent ev = { .kind = HWM_EV_DURABLE, .time_ns = t,
                                    .offset = r->offset * HWM_SECTOR_BYTES,
                                    .length = r->length * HWM_SECTOR_BYTES };
                    dev_emit(d, &ev);
                }
            } else if (d->home_events) {
                HwmEvent ev = { .kind = HWM_EV_HOME, .time_ns = t,
                                .offset = e->lba * HWM_SECTOR_BYTES,
                                .length = e->sectors * HWM_SECTOR_BYTES };
                dev_emit(d, &ev);
            }
            hwm_cache_finish_destage(&d->cache, e);
        }
        un->ext = NULL;
        if (more) {
            g_ptr_array_set_size(un->batch, 0);
        }
    } else if (op == OP_HOST || op == OP_LOG) {
        Cmd *c = un->cmd;
        un->cmd = NULL;
        if (c->req.op == HWM_OP_WRITE) {
            hwm_ns done = t;
            if (op == OP_LOG) {
                /* durable in the log; its home write is still owed */
                dev_unreserve(d, c);
                hwm_cache_insert(&d->cache, c->lba, c->sectors, true,
                             ++d->ack_seq);
                c->cached = true;
            } else {
                /* newer data is home: cached copies are stale (once its
                 * commit is over, if it waits for one: finish_cmd) */
                done = dev_durable_write_done(d, c, t);
                if (!c->committing) {
                    hwm_cache_remove(&d->cache, c->lba, c->sectors);
                }
            }
            if (!c->committing) {
                g_ptr_array_remove_fast(d->running_writes, c);
            }
            c->durable = true;
            dev_complete_at(d, c, dev_completion(d, c, done));
        } else {
            read_in = true;
            /* the part of the host transfer the media read did not hide */
            hwm_ns x = dev_link_out(d, c->host_done, c->req.length) - t;
            /* keep what was read; read on past it while nothing else
             * wants the media, or whatever waits when a command waits
             * for the read-ahead to end (read_ahead_abandon = no) */
            if (d->rc.nseg > 0 &&
                hwm_rc_read_done(&d->rc, t, un->arm, c->lba, c->sectors,
                                 !d->prof.read_ahead_abandon ||
                                 !media_wanted_past(d, c->lba, c->sectors),
                                 dev_read_segments_now(d))) {
                dev_unit_set_op(d, u, OP_READAHEAD);
                dev_arm_unit(d, u, hwm_rc_end(&d->rc));
            }
            c->t.transfer_ns += x;
            dev_complete_at(d, c, dev_completion(d, c, t + x));
        }
    } else if (op == OP_READAHEAD) {
        hwm_rc_finish(&d->rc, t, &un->arm);
    }
    if (read_in && d->rc.nseg > 0) {
        serve_queued_reads(d, t);
    }
}
