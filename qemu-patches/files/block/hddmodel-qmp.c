/*
 * hddmodel: QMP commands.  query-hddmodel reports the model's counters and
 * the driver's own per node; hddmodel-power-cut cuts a node's power and
 * reports what the cut destroyed.
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
