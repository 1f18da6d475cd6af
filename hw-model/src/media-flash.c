/*
 * Flash mechanics (media.h): parallel dies, each reading or programming
 * one page-sized unit at a time, nothing to position.  Data is striped
 * over the dies in program units, so a read runs on the die that holds it;
 * a write (and a write-back) may be programmed on any free die.
 */
#include "media.h"

static uint64_t page_sectors(const Media *m)
{
    return m->prof->program_bytes / HWM_SECTOR_BYTES;
}

static bool flash_init(Media *m, GError **errp)
{
    (void)errp;
    m->units = m->prof->parallel_units;
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
    hwm_ns end = t + op * (hwm_ns)((r->sectors + per - 1) / per);

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

/* The lowest LBA: write-back costs the same wherever the data is. */
static Extent *flash_pick(const Media *m, Cache *c, ArmPos arm, hwm_ns t,
                          uint64_t max_seq)
{
    (void)m;
    (void)arm;
    (void)t;
    return hwm_cache_pick_lowest(c, max_seq);
}

const MediaOps hwm_media_flash = {
    .name = "flash",
    .init = flash_init,
    .fini = flash_fini,
    .power_on = flash_power_on,
    .unit_of = flash_unit_of,
    .access_cost = NULL,
    .access = flash_access,
    .pick = flash_pick,
    .eager_write_back = true,
    .one_actuator = false,
    .media_cache_log = false,
};
