/*
 * Flash mechanics (media.h): parallel dies of one or more planes, each
 * plane reading or programming one page at a time, nothing to position.
 * Every plane is a media unit of its own: a multi-plane program fills a
 * page on each plane of a die at once, which under load (when the buffer
 * holds enough for every plane) takes the same time as the planes working
 * apart, and independent plane reads let each plane serve a read of its
 * own.  Data is striped over the planes in pages, so a read runs on the
 * plane that holds it; a write (and a write-back) may be programmed on any
 * free plane.  Write-back fills a page with whatever dirty data the buffer
 * holds, as an SSD's write buffer does: the mapping table is log-structured,
 * so sectors far apart share a page (write_unit_sectors).
 */
#include "media.h"

static uint64_t page_sectors(const Media *m)
{
    return m->prof->program_bytes / HWM_SECTOR_BYTES;
}

static bool flash_init(Media *m, GError **errp)
{
    uint64_t units = (uint64_t)m->prof->parallel_units * m->prof->planes;

    if (units > UNITS_MAX) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                    "%s: parallel_units x planes = %" G_GUINT64_FORMAT
                    " is more than %u", m->prof->source, units, UNITS_MAX);
        return false;
    }
    m->units = (uint32_t)units;
    m->geo = NULL;
    m->state = NULL;
    return true;
}

static void flash_fini(Media *m)
{
    (void)m;
}

static void flash_power_on(Media *m)
{
    (void)m;
}

static uint32_t flash_unit_of(const Media *m, const MediaReq *r)
{
    if (r->write) {
        return UNIT_NONE;
    }
    return (uint32_t)((r->lba / page_sectors(m)) % m->units);
}

static hwm_ns flash_access(Media *m, ArmPos *arm, const MediaReq *r,
                           hwm_ns t, MediaTime *mt, bool *missed,
                           HostStream *hs)
{
    uint64_t per = page_sectors(m);
    hwm_ns op = (hwm_ns)(r->write ? m->prof->program_ns : m->prof->read_ns);
    /* the pages of one access lie on consecutive planes and are read or
     * programmed together, a round per `units` pages (the command holds
     * only its first plane: the others' share is not booked on them) */
    uint64_t pages = (r->lba % per + r->sectors + per - 1) / per;
    hwm_ns end = t + op * (hwm_ns)((pages + m->units - 1) / m->units);

    (void)arm;
    *missed = false;
    mt->transfer_ns += end - t;
    if (hs) {
        /* a die reads whole pages: the data goes out after them */
        hs->done = MAX(hs->done, end + hwm_link_ns(hs->link_bytes_per_s,
                                                  (hs->end_lba - hs->from_lba) *
                                                  HWM_SECTOR_BYTES));
    }
    return end;
}

/* A program writes a page per plane: write-back gathers that much. */
static uint64_t flash_write_unit_sectors(const Media *m)
{
    return page_sectors(m);
}

/* The lowest LBA: write-back costs the same wherever the data is. */
static Extent *flash_pick(const Media *m, Cache *c, ArmPos arm, hwm_ns t,
                          uint64_t max_seq)
{
    (void)m;
    (void)arm;
    (void)t;
    return hwm_cache_pick_lowest(c, max_seq);
}

/* an ops table, as media-hdd.c's: duplicates pairs its rows by shape; they are data, one entry per operation */
const MediaOps hwm_media_flash = {
    .name = "flash",
    .init = flash_init,
    .fini = flash_fini,
    .power_on = flash_power_on,
    .unit_of = flash_unit_of,
    .access_cost = NULL,
    .access = flash_access,
    .pick = flash_pick,
    .write_unit_sectors = flash_write_unit_sectors,
    .eager_write_back = true,
    .one_actuator = false,
    .media_cache_log = false,
};
