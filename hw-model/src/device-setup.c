/*
 * A device's life outside its commands (device.h): built from a profile
 * and a config, cut from power (back to power-on state, what the cache
 * held lost), freed; and the read-only queries the host makes.
 */
#include <string.h>

#include "device.h"

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
    hwm_profile_copy(&d->prof, p);
    d->media.ops = p->kind == HWM_KIND_HDD ? &hwm_media_hdd
                                           : &hwm_media_flash;
    d->media.prof = &d->prof;
    if (!d->media.ops->init(&d->media, errp)) {
        hwm_profile_clear(&d->prof);
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
        hwm_profile_clear(&d->prof);
        g_free(d);
        return NULL;
    }
    d->home_events = cfg->home_events;
    d->queue_depth = cfg->queue_depth ? cfg->queue_depth : p->queue_depth;
    d->policy = cfg->policy ? cfg->policy : p->policy;
    /* a window as large as the queue (or the cache) is all of it, whatever
     * queue depth the host sets */
    d->queue_window = p->queue_window >= p->queue_depth ? UINT32_MAX
                                                         : p->queue_window;
    d->writeback_window = p->writeback_window >= p->cache_segments ?
                          UINT32_MAX : p->writeback_window;
    d->cache_sectors = p->write_cache_bytes / HWM_SECTOR_BYTES;
    d->buffer_sectors = p->cache_bytes / HWM_SECTOR_BYTES;
    d->high_water_sectors = d->cache_sectors * p->high_water_pct / 100;
    d->high_water_extents = (uint32_t)((uint64_t)p->cache_segments *
                                       p->high_water_pct / 100);
    d->destage_max_sectors = MAX(1, p->destage_max_bytes / HWM_SECTOR_BYTES);

    hwm_cache_init(&d->cache, d->media.index);
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

static void free_batches(HwmDevice *d)
{
    for (uint32_t u = 0; u < d->nunits; u++) {
        if (d->units[u].batch) {
            g_ptr_array_unref(d->units[u].batch);
            d->units[u].batch = NULL;
        }
    }
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
    d->link_in_free = 0;
    d->link_out_free = 0;
    d->room_fail.cmd = NULL;
    free_batches(d);
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
    hwm_profile_clear(&d->prof);
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

uint32_t hwm_device_cache_segments(const HwmDevice *d)
{
    return d->prof.cache_segments;
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

GArray *hwm_volatile_extents(const HwmDevice *d)
{
    return hwm_cache_volatile_ranges(&d->cache);
}

GArray *hwm_power_cut(HwmDevice *d, hwm_ns now)
{
    if (now > d->now) {
        d->now = now;
    }
    dev_run_until(d, d->now);
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
