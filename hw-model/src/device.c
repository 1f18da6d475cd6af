/*
 * The device: command queue, write cache, FUA, FLUSH and the media units
 * (one actuator for a disk, N dies for flash), run as a discrete-event
 * system on the host's clock.  What an access costs and takes is the
 * medium's (media.h: media-hdd.c, media-flash.c); which unit runs what is
 * device-units.c's; this file is a command's life, from hwm_submit() to
 * its completion event, and the event loop that runs it.
 *
 * Every state change happens while processing an internal event at its
 * time, in (time, insertion) order, so the same submissions at the same
 * times give the same events.  Host-visible events are queued as they
 * happen and handed out by hwm_advance().
 */
#include "device.h"

/* ---- timer heap --------------------------------------------------------- */

static bool timer_before(const Timer *a, const Timer *b)
{
    return a->t < b->t || (a->t == b->t && a->order < b->order);
}

void dev_timer_push(HwmDevice *d, hwm_ns t, TimerKind kind, Cmd *cmd,
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
void dev_arm_unit(HwmDevice *d, uint32_t u, hwm_ns t)
{
    d->units[u].busy_until = t;
    d->units[u].gen++;
    dev_timer_push(d, t, EV_UNIT, NULL, u);
}

/* ---- host events -------------------------------------------------------- */

void dev_emit(HwmDevice *d, const HwmEvent *ev)
{
    g_array_append_vals(d->out, ev, 1);
}

hwm_ns dev_iface_ns(const HwmDevice *d, uint64_t bytes)
{
    return hwm_link_ns(d->prof.interface_bytes_per_s, bytes);
}

hwm_ns dev_link_out(HwmDevice *d, hwm_ns done, uint64_t bytes)
{
    done = MAX(done, d->link_out_free + dev_iface_ns(d, bytes));
    d->link_out_free = done;
    return done;
}

static void finish_cmd(HwmDevice *d, Cmd *c, hwm_ns done)
{
    HwmEvent ev = { .kind = HWM_EV_COMPLETE, .time_ns = done,
                    .tag = c->req.tag, .op = c->req.op,
                    .flags = c->req.flags, .submit_ns = c->submit_ns,
                    .start_ns = c->start_ns ? c->start_ns : c->submit_ns,
                    .t = c->t, .cache_hit = c->hit, .durable = c->durable,
                    .cached = c->cached,
                    .write_misses = c->write_misses,
                    .offset = c->req.offset, .length = c->req.length,
                    .read_ahead = c->read_ahead };
    hwm_ns parts = ev.t.overhead_ns + ev.t.seek_ns + ev.t.rotate_ns +
                   ev.t.transfer_ns + ev.t.destage_ns;
    /* whatever is not attributed was spent waiting in the queue */
    ev.t.queue_ns = done - c->submit_ns - parts;
    g_assert(ev.t.queue_ns >= 0);
    if (c->committing) {
        /* its data is what the sectors hold now: cached copies are
         * stale, also of a write acknowledged while it was in flight */
        c->committing = false;
        g_ptr_array_remove_fast(d->running_writes, c);
        hwm_cache_remove(&d->cache, c->lba, c->sectors);
    }
    dev_emit(d, &ev);

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
hwm_ns dev_completion(const HwmDevice *d, Cmd *c, hwm_ns t)
{
    hwm_ns o = (hwm_ns)d->prof.completion_overhead_ns[
        c->req.op == HWM_OP_WRITE];
    if (c->completion_charged) {
        return t;
    }
    c->completion_charged = true;
    c->t.overhead_ns += o;
    return t + o;
}

void dev_complete_at(HwmDevice *d, Cmd *c, hwm_ns t)
{
    c->state = CS_FINISHING;
    if (t <= d->instant) {
        finish_cmd(d, c, t);
    } else {
        dev_timer_push(d, t, EV_DONE, c, 0);
    }
}

/* ---- cache room --------------------------------------------------------- */

/* A write the buffer takes is durable at once: FUA (acknowledged from a
 * protected buffer: fua_method), or any write behind power-loss
 * protection. */
static bool acked_durable(const HwmDevice *d, const Cmd *c)
{
    return (c->req.flags & HWM_REQ_FUA) || d->prof.power_loss_protection;
}

static bool room_for(const HwmDevice *d, const Cmd *c)
{
    uint32_t more = hwm_cache_new_extents(&d->cache, c->lba, c->sectors,
                                          acked_durable(d, c));
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

void dev_unreserve(HwmDevice *d, Cmd *c)
{
    if (c->reserved) {
        c->reserved = false;
        d->reserved_sectors -= c->sectors;
        d->reserved_extents -= 1;
    }
}

/* A write the cache can hold; the rest go to the media in place.  A
 * protected buffer takes writes whatever the host set: WCE is about a
 * volatile cache, which such a drive does not have. */
static bool is_write_in_place(const HwmDevice *d, const Cmd *c)
{
    if ((!d->wce && !d->prof.power_loss_protection) ||
        c->sectors > d->cache_sectors) {
        return true;
    }
    return (c->req.flags & HWM_REQ_FUA) && !d->prof.power_loss_protection &&
           d->prof.fua_method == HWM_FUA_IN_PLACE;
}

bool dev_is_log_write(const HwmDevice *d, const Cmd *c)
{
    return (c->req.flags & HWM_REQ_FUA) && !d->prof.power_loss_protection &&
           d->prof.fua_method == HWM_FUA_MEDIA_CACHE &&
           d->media.ops->media_cache_log && !is_write_in_place(d, c);
}

static void on_ack(HwmDevice *d, Cmd *c, hwm_ns t);

bool dev_waits_for_busy(const HwmDevice *d, const Cmd *c)
{
    /* a write goes in beside older data of its sectors being written back
     * (cache.h); a discard drops the data, so it waits for that to end */
    return c->req.op == HWM_OP_DISCARD &&
           hwm_cache_overlaps_busy(&d->cache, c->lba, c->sectors);
}

/* Serve cache-room waiters in arrival order while they fit. */
static void serve_room_waiters(HwmDevice *d, hwm_ns t)
{
    Cmd *c;
    while ((c = g_queue_peek_head(&d->room_wait)) != NULL) {
        if (dev_waits_for_busy(d, c)) {
            break;
        }
        if (c->req.op == HWM_OP_DISCARD) {
            g_queue_pop_head(&d->room_wait);
            hwm_cache_remove(&d->cache, c->lba, c->sectors);
            c->t.destage_ns = t - c->ready_ns;
            dev_complete_at(d, c, t);
            continue;
        }
        if (is_write_in_place(d, c)) {
            g_queue_pop_head(&d->room_wait);
            c->t.destage_ns = t - c->ready_ns;
            dev_media_q_push(d, c);
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
        if (dev_is_log_write(d, c)) {
            dev_media_q_push(d, c);
        } else {
            /* into the cache now, before a write-back can start on older
             * data of the same sectors in this instant */
            on_ack(d, c, t);
        }
    }
}

/* ---- controller --------------------------------------------------------- */

/* The controller's overhead for `c`, by kind (HwmOverheadKind): decided
 * when it takes the command, from what the buffer holds then, as DiskSim
 * decides it on arrival.  Once the overhead is over, dev_read_from_buffer()
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
                                 dev_read_segments_now(d))));
        k = hit ? HWM_OVH_READ_HIT : HWM_OVH_READ_MISS;
        break;
    }
    case HWM_OP_WRITE:
        k = is_write_in_place(d, c) || dev_is_log_write(d, c) ?
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
            /* the data comes in after the data of the writes before it */
            hwm_ns x = dev_iface_ns(d, c->req.length);
            hwm_ns in = MAX(ready, d->link_in_free) + x;
            d->link_in_free = in;
            if (d->media.ops->positions_during_data &&
                is_write_in_place(d, c) && !dev_is_log_write(d, c)) {
                /* the drive takes the data into its buffer as it seeks:
                 * the media write waits only for what it has not got */
                c->data_in_ns = in;
            } else {
                ready = in;
                c->t.transfer_ns += x;
            }
            if (!is_write_in_place(d, c)) {
                /* a write the cache takes is acknowledged the instant it
                 * is in the cache (what a flush and a power cut count):
                 * its completion overhead comes before that instant */
                ready = dev_completion(d, c, ready);
            }
        }
        dev_timer_push(d, ready, EV_READY, c, 0);
    }
}

/* Read segments the buffer holds now: shared ones get the room dirty data
 * (and writes already given room) leave. */
uint32_t dev_read_segments_now(const HwmDevice *d)
{
    if (!d->prof.read_segments_shared) {
        return d->rc.nseg;
    }
    uint64_t taken = d->cache.dirty_sectors + d->reserved_sectors;
    uint64_t room = d->buffer_sectors > taken ? d->buffer_sectors - taken : 0;
    return (uint32_t)MIN(d->rc.nseg, room / MAX(1, d->rc.seg_sectors));
}

/* A hit or join may have sent the read-ahead further: move its timer. */
static void rearm_read_ahead(HwmDevice *d)
{
    if (d->rc.active && hwm_rc_end(&d->rc) != d->units[0].busy_until) {
        dev_arm_unit(d, 0, hwm_rc_end(&d->rc));
    }
}

/* A read the buffer serves without a media access of its own: from the
 * write cache, a read segment, or the read-ahead in progress. */
bool dev_read_from_buffer(HwmDevice *d, Cmd *c, hwm_ns t)
{
    hwm_ns done = t + dev_iface_ns(d, c->req.length);

    if (c->req.flags & HWM_REQ_FUA) {
        return false;                   /* FUA: from the media */
    }
    if (hwm_cache_covers(&d->cache, c->lba, c->sectors)) {
        c->hit = true;
    } else if (d->rc.nseg == 0) {
        return false;
    } else {
        switch (hwm_rc_lookup(&d->rc, t, c->lba, c->sectors,
                              dev_read_segments_now(d), &done)) {
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
    done = dev_link_out(d, done, c->req.length);
    c->t.transfer_ns += done - t;
    dev_complete_at(d, c, dev_completion(d, c, done));
    return true;
}

static void on_ready(HwmDevice *d, Cmd *c, hwm_ns t)
{
    c->ready_ns = t;
    switch (c->req.op) {
    case HWM_OP_READ:
        if (!dev_read_from_buffer(d, c, t)) {
            dev_media_q_push(d, c);
        }
        break;
    case HWM_OP_WRITE:
        if (c->data_in_ns > t && !is_write_in_place(d, c)) {
            /* the write cache came on since: the cache takes the data
             * once it is in */
            c->t.transfer_ns += c->data_in_ns - t;
            dev_timer_push(d, c->data_in_ns, EV_READY, c, 0);
            c->data_in_ns = 0;
            break;
        }
        /* fall through */
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
    bool protected = acked_durable(d, c);
    dev_unreserve(d, c);
    hwm_cache_insert(&d->cache, c->lba, c->sectors, protected, ++d->ack_seq);
    c->durable = protected;
    c->cached = true;
    c->state = CS_FINISHING;
    finish_cmd(d, c, t);
}

/* ---- flushes ------------------------------------------------------------ */

/* The commit (flush_commit_us) from `t`, one at a time: when it ends. */
static hwm_ns commit(HwmDevice *d, hwm_ns t)
{
    d->commit_free = MAX(t, d->commit_free) + (hwm_ns)d->prof.flush_commit_ns;
    return d->commit_free;
}

/*
 * A flush's write-back is over at `t`: the controller now runs its flush
 * routine (cache state, mapping journal), whether or not new data arrived
 * since the last one.  Returns when that ends.  Without a write cache
 * there is nothing to commit (each write committed itself), and behind
 * power-loss protection the capacitors would.
 */
static hwm_ns flush_commit(HwmDevice *d, hwm_ns t)
{
    if (!d->wce || d->prof.flush_commit_ns == 0 ||
        d->prof.power_loss_protection) {
        return t;
    }
    return commit(d, t);
}

hwm_ns dev_durable_write_done(HwmDevice *d, Cmd *c, hwm_ns t)
{
    if (d->prof.flush_commit_ns == 0 || d->prof.power_loss_protection ||
        (d->wce && !(c->req.flags & HWM_REQ_FUA))) {
        return t;
    }
    hwm_ns done = commit(d, t);
    c->t.destage_ns += done - t;
    c->committing = done > t;
    return done;
}

static void check_flushes(HwmDevice *d, hwm_ns t)
{
    /* the flush's commit needs the arm: after a read-ahead that holds it */
    if (d->nq_flush && d->nq_flush->state == CS_FLUSH &&
        (d->cache.extents == 0 || d->prof.power_loss_protection) &&
        d->units[0].op != OP_READAHEAD) {
        Cmd *c = d->nq_flush;
        hwm_ns committed = flush_commit(d, t);
        /* write-back ran alongside the controller's overhead */
        hwm_ns media = c->t.seek_ns + c->t.rotate_ns + c->t.transfer_ns;
        hwm_ns done = MAX(committed, c->start_ns + c->t.overhead_ns + media);
        c->t.destage_ns = done - c->start_ns - c->t.overhead_ns - media;
        if (committed > t && d->media.ops->one_actuator) {
            /* the commit writes drive metadata: the arm is busy with it */
            dev_unit_set_op(d, 0, OP_COMMIT);
            dev_arm_unit(d, 0, committed);
        }
        dev_complete_at(d, c, done);
    }
    if (d->flushes->len == 0) {
        return;
    }
    uint64_t oldest = hwm_cache_oldest_seq(&d->cache);
    for (guint i = 0; i < d->flushes->len;) {
        Cmd *c = g_ptr_array_index(d->flushes, i);
        if (oldest > c->flush_cut || d->prof.power_loss_protection) {
            hwm_ns done = flush_commit(d, t);
            c->t.destage_ns = done - c->ready_ns;
            g_ptr_array_remove_index(d->flushes, i);
            dev_complete_at(d, c, done);
        } else {
            i++;
        }
    }
}

/* After any state change at time t: move everything that can move. */
static void kick(HwmDevice *d, hwm_ns t)
{
    admit(d, t);
    serve_room_waiters(d, t);
    /* writes it completed may let a non-queued flush start */
    admit(d, t);
    dev_yield_read_ahead(d, t);
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
    dev_start_units(d, t);
}

void dev_run_until(HwmDevice *d, hwm_ns now)
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
                dev_unit_set_op(d, x.unit, OP_IDLE);
            } else {
                dev_on_unit_done(d, x.unit, x.t);
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
    dev_run_until(d, now);
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
    dev_run_until(d, d->now);
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

const char *hwm_op_name(HwmOp op)
{
    static const char *const names[] = { "READ", "WRITE", "FLUSH", "DISCARD" };
    return (unsigned)op < G_N_ELEMENTS(names) ? names[op] : "?";
}
