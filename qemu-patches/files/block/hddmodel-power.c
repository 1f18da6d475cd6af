/*
 * hddmodel: power.  The QMP cut (power comes back at once), the scheduled
 * power loss (power-cut-ns, power-cut-request: for good, the guest stops
 * and QEMU quits) and power cycles (power-cut-every-ns: off, then back
 * HDD_DOWN_NS after the first command that found the drive off), their
 * options, and the stderr line each cut prints for scripts.
 *
 * Owns s->cut_* (cut_timer, cut_at_ns, cut_at_request, cut_dropped,
 * cut_bh), s->cycle_* and s->cycles.  Requests that fail while the power
 * is off are answered by the request path (hddmodel.c).
 *
 * State transitions it makes: IDLE -> CUT -> IDLE (hddmodel-power-cut),
 * IDLE -> CUT -> DOWN -> IDLE (a cycle), {IDLE, DELIVERING, FAST_FORWARD,
 * WRITE_OUT, DOWN} -> CUT -> OFF (the scheduled power loss; the cut runs
 * when the delivery or write-out under way ends).
 *
 * Copyright (C) 2026 the platter authors.
 *
 * This work is licensed under the terms of the GNU GPL, version 2 or later.
 * See the COPYING file in the top-level directory.
 */

#include "qemu/osdep.h"
#include "qemu/error-report.h"
#include "qemu/main-loop.h"
#include "qapi/error.h"
#include "qapi/qapi-types-block-core.h"
#include "block/block-io.h"
#include "block/block_int.h"
#include "hw/core/cpu.h"
#include "system/cpus.h"
#include "system/runstate.h"
#include "trace.h"

#include "hddmodel.h"

/*
 * power-cut-every-ns: how long the drive stays off after the first command
 * that found it off (virtual ns).  Long beyond a guest's reaction to an I/O
 * error, so every cut is seen by the host before the power is back (a cut
 * with nothing in flight would otherwise go unnoticed); the clock jumps
 * over it when the guest idles, so it costs no host time.
 */
#define HDD_DOWN_NS 100000000

/*
 * Power is gone at `at` (state CUT): what the drive held only in its
 * volatile cache is lost (the image gets the batch of durable data and
 * then holds exactly the media) and queued commands die.  Ends in
 * `after`: IDLE when power comes back at once (hddmodel-power-cut), OFF
 * when it does not.  *rep says what went (free rep->lost with
 * g_array_unref()).
 */
static void GRAPH_RDLOCK
hdd_cut(BDRVHddState *s, hwm_ns at, HddState after, HddCutReport *rep)
{
    unsigned i;

    assert(s->state == HDD_CUT);
    /* requests that fail from now on, hdd_co_request()'s included */
    s->cut_dropped = 0;
    /*
     * What the model did up to the cut happened: deliver it first, or data
     * it wrote to the media would be dropped with the cache.
     */
    hdd_deliver(s, at);
    hdd_write_out(s);
    /* (the image equals the media now) */
    hdd_crash_cut(s, after == HDD_OFF);
    rep->clock_ns = s->now;
    rep->lost = hwm_power_cut(s->dev, s->now);
    rep->lost_bytes = 0;
    for (i = 0; i < rep->lost->len; i++) {
        rep->lost_bytes += g_array_index(rep->lost, HwmExtent, i).length;
    }
    rep->cached_bytes = hdd_map_bytes(s->map);
    trace_hddmodel_power_cut(s, s->now, rep->lost_bytes, rep->cached_bytes);
    if (rep->lost_bytes != rep->cached_bytes) {
        /* the image is still right: it holds only what was destaged */
        warn_report("hddmodel: %s: model lost %" PRIu64 " bytes, cache held "
                    "%" PRIu64, bdrv_get_node_name(s->bs), rep->lost_bytes,
                    rep->cached_bytes);
    }
    hdd_map_clear(s->map, NULL, NULL);
    hdd_fail_all(s);
    rep->dropped = s->cut_dropped;
    hdd_trace_power_cut(s, rep->lost_bytes);
    hdd_set_state(s, after);
    if (after == HDD_OFF) {
        timer_del(&s->timer);
    }
    hdd_schedule(s);
}

/*
 * The scheduled power loss's cut: power does not come back.  One line on
 * stderr tells scripts what it took.
 */
void GRAPH_RDLOCK hdd_cut_for_good(BDRVHddState *s)
{
    HddCutReport rep;

    hdd_cut(s, s->cut_at_ns, HDD_OFF, &rep);
    fprintf(stderr, "hddmodel-power-cut node=%s clock_ns=%" PRId64
            " arrivals=%" PRIu64 " lost_bytes=%" PRIu64 " lost_extents=%u"
            " dropped_requests=%" PRIu64 "\n", bdrv_get_node_name(s->bs),
            s->now, s->arrivals, rep.lost_bytes, rep.lost->len, rep.dropped);
    g_array_unref(rep.lost);
}

bool hdd_cut_power(BDRVHddState *s, HddCutReport *rep, Error **errp)
{
    const char *node = bdrv_get_node_name(s->bs);
    GRAPH_RDLOCK_GUARD_MAINLOOP();

    switch (s->state) {
    case HDD_IDLE:
        break;
    case HDD_DELIVERING:
    case HDD_FAST_FORWARD:
    case HDD_WRITE_OUT:
        error_setg(errp, "node '%s' is busy completing requests", node);
        return false;
    case HDD_CUT:
    case HDD_OFF:
        error_setg(errp, "node '%s' has lost power for good (%s)", node,
                   HDD_OPT_CUT_NS "/" HDD_OPT_CUT_REQUEST);
        return false;
    case HDD_DOWN:
        error_setg(errp, "node '%s' is off until it powers on again (%s)",
                   node, HDD_OPT_CUT_EVERY);
        return false;
    }
    hdd_set_state(s, HDD_CUT);
    hdd_cut(s, hdd_now(s), HDD_IDLE, rep);
    return true;
}

void hdd_cut_bh(void *opaque)
{
    BDRVHddState *s = opaque;
    GRAPH_RDLOCK_GUARD_MAINLOOP();

    /* (closing may have done the cut already) */
    if (s->state == HDD_CUT) {
        hdd_cut_for_good(s);
    }
}

/*
 * Every vCPU stops where it is.  Under icount they all run in one thread
 * (this one, if the request came from an MMIO access): cpu_pause() stops
 * each at once.  cpu_stop_current() alone left the others running until
 * the main loop handled the shutdown, for as many instructions as host
 * scheduling allowed, and they could see the answers the cut gave.
 */
static void hdd_stop_guest(void)
{
    CPUState *cpu;

    CPU_FOREACH(cpu) {
        cpu_pause(cpu);
    }
}

/*
 * The scheduled power loss (power-cut-ns / power-cut-request): unlike the
 * QMP command, power does not come back.  From this instant every new
 * command fails, the guest's vCPUs stop at the instruction they are on (so
 * what it printed before the cut is all it ever says, the same on every
 * run), and QEMU is asked to quit.  The cut of model and cache follows at
 * once; from a request's coroutine (the Nth request) a BH does it, and
 * during a delivery its end does (hdd_delivered()).
 */
void GRAPH_RDLOCK hdd_lose_power(BDRVHddState *s, hwm_ns at)
{
    HddState was = s->state;

    if (was == HDD_CUT || was == HDD_OFF) {
        return;
    }
    s->cut_at_ns = MAX(at, s->now);
    timer_del(&s->cut_timer);
    hdd_set_state(s, HDD_CUT);
    hdd_stop_guest();
    qemu_system_shutdown_request(SHUTDOWN_CAUSE_HOST_ERROR);
    if (was != HDD_IDLE && was != HDD_DOWN) {
        return;
    }
    if (qemu_in_coroutine()) {
        qemu_bh_schedule(s->cut_bh);
    } else {
        hdd_cut_for_good(s);
    }
}

void hdd_cut_timer_cb(void *opaque)
{
    BDRVHddState *s = opaque;
    GRAPH_RDLOCK_GUARD_MAINLOOP();

    if (hdd_guest_gone()) {
        /* the drive's clock stopped before the cut's time came */
        return;
    }
    hdd_lose_power(s, s->cut_at_ns);
}

/*
 * power-cut-every-ns: a command found the drive off.  The first to find it
 * so starts its way back: power returns HDD_DOWN_NS later.
 */
void hdd_cycle_found_off(BDRVHddState *s)
{
    if (s->cycle_on_ns == HWM_NEVER) {
        s->cycle_on_ns = hdd_now(s) + HDD_DOWN_NS;
        timer_mod_ns(&s->cycle_timer, s->cycle_on_ns);
    }
}

/* power-cut-every-ns: the next cut, a seeded gap in [N/2, 3N/2) after t. */
static void hdd_cycle_arm(BDRVHddState *s, hwm_ns t)
{
    uint64_t gap = s->cycle_every_ns / 2 +
                   hwm_splitmix64(&s->cycle_rng) % s->cycle_every_ns;

    /* gap <= 3/4 HWM_TIME_MAX (hdd_parse_cut()): no overflow */
    timer_mod_ns(&s->cycle_timer, MIN(t + (hwm_ns)gap, (hwm_ns)HWM_TIME_MAX));
}

/*
 * power-cut-every-ns: the power fails (IDLE -> DOWN) and comes back
 * (DOWN -> IDLE, the model in power-on state) on one timer.  A cut is the
 * QMP one; then every command fails until HDD_DOWN_NS after the first that
 * failed (the cut's own, if it found any in flight).  One stderr line per
 * cut tells scripts what it took.
 */
void hdd_cycle_timer_cb(void *opaque)
{
    BDRVHddState *s = opaque;
    HddCutReport rep;
    GRAPH_RDLOCK_GUARD_MAINLOOP();

    if (hdd_guest_gone()) {
        /* the drive's clock stopped before the cycle's time came */
        return;
    }
    switch (s->state) {
    case HDD_IDLE:
        hdd_set_state(s, HDD_CUT);
        hdd_cut(s, hdd_now(s), HDD_DOWN, &rep);
        s->cycles++;
        fprintf(stderr, "hddmodel-power-cycle node=%s n=%" PRIu64
                " clock_ns=%" PRId64 " lost_bytes=%" PRIu64 " lost_extents=%u"
                " dropped_requests=%" PRIu64 "\n", bdrv_get_node_name(s->bs),
                s->cycles, s->now, rep.lost_bytes, rep.lost->len,
                rep.dropped);
        g_array_unref(rep.lost);
        s->cycle_on_ns = rep.dropped ? s->now + HDD_DOWN_NS : HWM_NEVER;
        if (s->cycle_on_ns != HWM_NEVER) {
            timer_mod_ns(&s->cycle_timer, s->cycle_on_ns);
        }
        break;
    case HDD_DOWN:
        hdd_set_state(s, HDD_IDLE);
        hdd_cycle_arm(s, hdd_now(s));
        hdd_schedule(s);
        break;
    case HDD_DELIVERING:
    case HDD_FAST_FORWARD:
    case HDD_WRITE_OUT:
        /* not from the main loop's timers; if it ever is: right after */
        timer_mod_ns(&s->cycle_timer, s->now + 1);
        break;
    case HDD_CUT:
    case HDD_OFF:
        break;
    }
}

bool hdd_parse_cut(BDRVHddState *s, const BlockdevOptionsHddModel *o,
                          Error **errp)
{
    s->cut_at_ns = HWM_NEVER;
    s->cut_at_request = o->has_power_cut_request ? o->power_cut_request : 0;
    if (o->has_power_cut_request && !o->power_cut_request) {
        error_setg(errp, "hddmodel: " HDD_OPT_CUT_REQUEST " counts from 1");
        return false;
    }
    if (o->has_power_cut_ns) {
        if (o->power_cut_ns > HWM_TIME_MAX) {
            error_setg(errp, "hddmodel: " HDD_OPT_CUT_NS " %" PRIu64
                       " is too large: the model's clock ends at %" PRId64,
                       o->power_cut_ns, (hwm_ns)HWM_TIME_MAX);
            return false;
        }
        s->cut_at_ns = o->power_cut_ns;
        timer_mod_ns(&s->cut_timer, s->cut_at_ns);
    }
    if (o->has_power_cut_seed && !o->has_power_cut_every_ns) {
        error_setg(errp, "hddmodel: " HDD_OPT_CUT_SEED " does nothing without "
                   HDD_OPT_CUT_EVERY);
        return false;
    }
    if (o->has_power_cut_every_ns) {
        if (o->power_cut_every_ns < 2 ||
            o->power_cut_every_ns > HWM_TIME_MAX / 2) {
            error_setg(errp, "hddmodel: " HDD_OPT_CUT_EVERY " %" PRIu64
                       " is out of range: 2 to %" PRId64, o->power_cut_every_ns,
                       (hwm_ns)HWM_TIME_MAX / 2);
            return false;
        }
        s->cycle_every_ns = o->power_cut_every_ns;
        s->cycle_rng = o->has_power_cut_seed ? o->power_cut_seed : 1;
        hdd_cycle_arm(s, 0);
    }
    return true;
}
