/*
 * hddmodel: QMP commands.  query-hddmodel reports the model's counters and
 * the driver's own per node; hddmodel-power-cut cuts a node's power and
 * reports what the cut destroyed.  At exit, each node's accounting (where
 * its virtual time went) goes to stderr.
 *
 * Copyright (C) 2026 the platter authors.
 *
 * This work is licensed under the terms of the GNU GPL, version 2 or later.
 * See the COPYING file in the top-level directory.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qapi/qapi-commands-block-core.h"
#include "block/block-io.h"
#include "system/system.h"
#include "hddmodel.h"

static HddModelStats *hdd_stats(BDRVHddState *s)
{
    HddModelStats *st = g_new0(HddModelStats, 1);
    HwmStats hs;
    HddReq *req;

    hwm_stats(s->dev, &hs);
    /* every HwmStats field has a HddModelStats member of the same name */
#define HDD_COPY_STAT(name, type, unit, help) st->name = hs.name;
    HWM_STATS_FIELDS(HDD_COPY_STAT)
#undef HDD_COPY_STAT

    /* the driver's own */
    st->cached_bytes = hdd_map_bytes(s->map);
    st->cached_extents = hdd_map_extents(s->map);
    QTAILQ_FOREACH(req, &s->reqs, next) {
        st->in_flight++;
    }
    st->host_queued = s->queued_total;
    return st;
}

static HddModelInfo *hdd_info(BDRVHddState *s)
{
    HddModelInfo *info = g_new0(HddModelInfo, 1);

    info->node_name = g_strdup(bdrv_get_node_name(s->bs));
    info->profile = g_strdup(hwm_profile_name(s->profile));
    info->capacity = hwm_device_capacity_bytes(s->dev);
    info->fua = hwm_device_fua(s->dev);
    info->write_cache = hwm_device_write_cache(s->dev);
    info->queue_depth = hwm_device_queue_depth(s->dev);
    info->rotation_rpm = hwm_device_rotation_rpm(s->dev);
    info->clock_ns = s->now;
    info->stats = hdd_stats(s);
    return info;
}

HddModelInfoList *qmp_query_hddmodel(Error **errp)
{
    HddModelInfoList *head = NULL, **tail = &head;
    BlockDriverState *bs = NULL;

    while ((bs = bdrv_next_all_states(bs))) {
        BDRVHddState *s = hdd_state(bs);

        if (s) {
            QAPI_LIST_APPEND(tail, hdd_info(s));
        }
    }
    return head;
}

HddModelPowerCut *qmp_hddmodel_power_cut(const char *node_name, Error **errp)
{
    BlockDriverState *bs = bdrv_find_node(node_name);
    BDRVHddState *s;
    HddModelPowerCut *res;
    HddModelExtentList **tail;
    HddCutReport rep;
    unsigned i;

    if (!bs) {
        error_setg(errp, "no block node named '%s'", node_name);
        return NULL;
    }
    s = hdd_state(bs);
    if (!s) {
        error_setg(errp, "node '%s' is not an hddmodel node", node_name);
        return NULL;
    }
    if (!hdd_cut_power(s, &rep, errp)) {
        return NULL;
    }
    res = g_new0(HddModelPowerCut, 1);
    tail = &res->lost_extents;
    for (i = 0; i < rep.lost->len; i++) {
        HwmExtent *x = &g_array_index(rep.lost, HwmExtent, i);
        HddModelExtent *e = g_new0(HddModelExtent, 1);

        e->offset = x->offset;
        e->length = x->length;
        QAPI_LIST_APPEND(tail, e);
    }
    res->clock_ns = rep.clock_ns;
    res->lost_bytes = rep.lost_bytes;
    res->cached_bytes = rep.cached_bytes;
    res->dropped_requests = rep.dropped;
    g_array_unref(rep.lost);
    return res;
}

/* ---- accounting: where the drive's virtual time went --------------------- */

static void hdd_acct_close(HddOccupancy *o, hwm_ns now)
{
    if (now > o->since) {
        if (o->depth) {
            o->busy_ns += now - o->since;
        }
        o->depth_ns += (uint64_t)o->depth * (now - o->since);
        o->since = now;
    }
}

static void hdd_acct_report(Notifier *n, void *data);
static Notifier hdd_acct_exit = { .notify = hdd_acct_report };

static void hdd_acct_sample(HddAcct *a, hwm_ns now)
{
    uint64_t v[HDD_ACCT_SAMPLE_WIDTH];
    guint n, i;

    if (now < a->sample_next_ns) {
        return;
    }
    if (!a->samples) {
        a->samples = g_array_new(false, false, sizeof(uint64_t));
        a->sample_every_ns = 1000000;
    }
    n = a->samples->len / HDD_ACCT_SAMPLE_WIDTH;
    if (n >= HDD_ACCT_SAMPLES_MAX) {
        for (i = 1; 2 * i < n; i++) {
            memmove(&g_array_index(a->samples, uint64_t,
                                   i * HDD_ACCT_SAMPLE_WIDTH),
                    &g_array_index(a->samples, uint64_t,
                                   2 * i * HDD_ACCT_SAMPLE_WIDTH),
                    sizeof(v));
        }
        g_array_set_size(a->samples, (n + 1) / 2 * HDD_ACCT_SAMPLE_WIDTH);
        a->sample_every_ns *= 2;
    }
    hdd_acct_close(&a->front, now);
    hdd_acct_close(&a->model, now);
    v[0] = now;
    v[1] = a->front.busy_ns;
    v[2] = a->front.depth_ns;
    v[3] = a->model.busy_ns;
    v[4] = a->model.depth_ns;
    v[5] = a->completed;
    g_array_append_vals(a->samples, v, HDD_ACCT_SAMPLE_WIDTH);
    a->sample_next_ns = (now / a->sample_every_ns + 1) * a->sample_every_ns;
}

void hdd_acct_depth(HddAcct *a, HddOccupancy *o, hwm_ns now, int delta)
{
    static bool registered;

    if (!registered) {
        /* one report for every node, at exit */
        qemu_add_exit_notifier(&hdd_acct_exit);
        registered = true;
    }
    hdd_acct_sample(a, now);
    hdd_acct_close(o, now);
    assert(delta >= 0 || o->depth >= (uint32_t)-delta);
    o->depth += delta;
    o->max = MAX(o->max, o->depth);
}

void hdd_acct_wait(uint64_t *n, hwm_ns *sum, hwm_ns *max, hwm_ns from,
                   hwm_ns to)
{
    hwm_ns d = to > from ? to - from : 0;

    (*n)++;
    *sum += d;
    *max = MAX(*max, d);
}

/*
 * One line per hddmodel node on stderr (scripts/run-guest reads it), when
 * the node closes, or at exit for a node still open then:
 * "hddmodel-accounting node=NAME clock_ns=.. front_busy_ns=..
 * front_depth_ns=.. front_max=.. model_busy_ns=.. model_depth_ns=..
 * model_max=.. submitted=.. submit_wait_ns=.. submit_wait_max_ns=..
 * completed=.. complete_delay_ns=.. complete_delay_max_ns=.." and then
 * every counter of the model (HWM_STATS_FIELDS), up to the model's clock;
 * then its samples over time, if any.  (At close, because a guest's exit
 * through isa-debug-exit closes every block node before the exit
 * notifiers run: a report from the notifier alone found no node, and
 * guest runs had no drive accounting at all.)
 */
void hdd_acct_print(BlockDriverState *bs, BDRVHddState *s)
{
    HddAcct *a = &s->acct;
    HwmStats hs;

    if (a->reported) {
        return;
    }
    a->reported = true;
    hdd_acct_close(&a->front, s->now);
    hdd_acct_close(&a->model, s->now);
    hwm_stats(s->dev, &hs);
    fprintf(stderr, "hddmodel-accounting node=%s clock_ns=%" PRIu64
            " front_busy_ns=%" PRIu64 " front_depth_ns=%" PRIu64
            " front_max=%u model_busy_ns=%" PRIu64
            " model_depth_ns=%" PRIu64 " model_max=%u"
            " submitted=%" PRIu64 " submit_wait_ns=%" PRIu64
            " submit_wait_max_ns=%" PRIu64 " completed=%" PRIu64
            " complete_delay_ns=%" PRIu64
            " complete_delay_max_ns=%" PRIu64,
            bdrv_get_node_name(bs), (uint64_t)s->now,
            (uint64_t)a->front.busy_ns, a->front.depth_ns, a->front.max,
            (uint64_t)a->model.busy_ns, a->model.depth_ns, a->model.max,
            a->submitted, (uint64_t)a->submit_wait_ns,
            (uint64_t)a->submit_wait_max_ns, a->completed,
            (uint64_t)a->complete_delay_ns,
            (uint64_t)a->complete_delay_max_ns);
#define HDD_PRINT_STAT(name, type, unit, help) \
    fprintf(stderr, " %s=%" PRIu64, #name, (uint64_t)hs.name);
    HWM_STATS_FIELDS(HDD_PRINT_STAT)
#undef HDD_PRINT_STAT
    fprintf(stderr, "\n");
    if (a->samples) {
        guint i;

        /*
         * "hddmodel-samples node=NAME CLOCK:FRONT_BUSY_NS:FRONT_DEPTH_NS:
         * MODEL_BUSY_NS:MODEL_DEPTH_NS:COMPLETED ..."
         */
        fprintf(stderr, "hddmodel-samples node=%s", bdrv_get_node_name(bs));
        for (i = 0; i < a->samples->len; i++) {
            fprintf(stderr, "%s%" PRIu64,
                    i % HDD_ACCT_SAMPLE_WIDTH ? ":" : " ",
                    g_array_index(a->samples, uint64_t, i));
        }
        fprintf(stderr, "\n");
    }
}

static void hdd_acct_report(Notifier *n, void *data)
{
    BlockDriverState *bs = NULL;

    while ((bs = bdrv_next_all_states(bs))) {
        BDRVHddState *s = hdd_state(bs);

        if (s) {
            hdd_acct_print(bs, s);
        }
    }
}
