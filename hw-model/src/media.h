/*
 * A medium's mechanics behind one small table, after DiskSim's mechanics
 * interface (diskmodel's dm_mech_if: access and positioning times from a
 * head position) and ublk-disksim's one file per drive model.  The device
 * (device.c) keeps the command queue, the cache policy and the events; it
 * asks the medium what an access would cost, how long one takes, and which
 * dirty extent it would write back next.  One file per medium:
 * media-hdd.c (an actuator over zoned platters), media-flash.c (dies).
 */
#ifndef HWM_MEDIA_H
#define HWM_MEDIA_H

#include "cache.h"
#include "geometry.h"

#define UNIT_NONE UINT32_MAX
#define UNITS_MAX 4096u      /* media units a device can have */

/* One media access as the medium sees it: a host command or a write-back. */
typedef struct {
    uint64_t lba;
    uint64_t sectors;
    bool write;
    bool log;                /* a FUA write appended to the media-cache log
                                (only where media_cache_log is set) */
    hwm_ns data_in_ns;       /* a write whose data still comes in over the
                                link while the arm positions: when the last
                                byte is in (0: all in already) */
} MediaReq;

typedef struct MediaOps MediaOps;

typedef struct {
    const MediaOps *ops;
    const HwmProfile *prof;  /* the device's copy */
    uint32_t units;          /* media units that work at once (actuators,
                                dies) */
    const Geometry *geo;     /* rotating media's layout, else NULL: read
                                segments and read-ahead walk it */
    const ExtentIndex *index; /* the medium's index of the write cache's
                                extents (hwm_cache_init()), or NULL */
    void *state;             /* the medium's own, from init */
} Media;

struct MediaOps {
    const char *name;
    /* Set up `m` from m->prof: units, geo, state.  False with *errp set. */
    bool (*init)(Media *m, GError **errp);
    void (*fini)(Media *m);
    /* Power comes back after a cut: forget what dropped commands moved, so
     * the time after a cut does not depend on them. */
    void (*power_on)(Media *m);
    /* The unit that must serve `r`, or UNIT_NONE: any. */
    uint32_t (*unit_of)(const Media *m, const MediaReq *r);
    /* Positioning time of `r` from `arm` at `t`: what shortest-positioning
     * scheduling compares.  NULL: nothing to position, commands are served
     * in the order they became ready. */
    hwm_ns (*access_cost)(const Media *m, ArmPos arm, const MediaReq *r,
                          hwm_ns t);
    /* Carry `r` out from `t` on a unit at `*arm`: returns its end, moves
     * `*arm`, adds the time by component to `*mt`; `*missed` says the
     * servo made a write wait a revolution (off-track write inhibit).
     * `hs` (a host read, else NULL): its `done` gets when the data has
     * reached the host, as the medium sends it (geometry.h). */
    hwm_ns (*access)(Media *m, ArmPos *arm, const MediaReq *r, hwm_ns t,
                     MediaTime *mt, bool *missed, HostStream *hs);
    /* The dirty extent a unit at `arm` would write back next at `t` among
     * those with seq <= max_seq and not busy, or NULL. */
    Extent *(*pick)(const Media *m, Cache *c, ArmPos arm, hwm_ns t,
                    uint64_t max_seq);
    /* What one write-back may carry: after the first extent it picks,
     * more dirty extents (the next ones pick() gives) fill one media write
     * of up to this many sectors, sent as one access.  NULL: one extent
     * (a disk writes each extent at its own place). */
    uint64_t (*write_unit_sectors)(const Media *m);

    /* What the device's policy depends on. */
    bool eager_write_back;   /* write back whenever a unit is free; else at
                                the high-water mark, after idle time, or
                                when something waits for it */
    bool one_actuator;       /* all media work runs on unit 0: a non-queued
                                flush's write-backs are its own media time,
                                and its metadata commit holds the actuator */
    bool media_cache_log;    /* FUA writes may go to a media-cache log */
    bool positions_during_data; /* a write to the media positions while
                                its data comes in (MediaReq.data_in_ns) */
};

extern const MediaOps hwm_media_hdd;
extern const MediaOps hwm_media_flash;

#endif
