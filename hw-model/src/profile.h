/*
 * The parsed contents of a profile file.  Every field carries its unit.
 * Private to hw-model; hosts see only the opaque HwmProfile.
 */
#ifndef HWM_PROFILE_H
#define HWM_PROFILE_H

#include "hwm.h"

typedef enum { HWM_KIND_HDD, HWM_KIND_FLASH } HwmKind;
typedef enum { HWM_LAYOUT_CYLINDER, HWM_LAYOUT_SERPENTINE } HwmLayout;

/* How a native-FUA write becomes durable before it is acknowledged. */
typedef enum {
    HWM_FUA_IN_PLACE,         /* written to its home sectors first */
    HWM_FUA_MEDIA_CACHE,      /* appended to an on-disk media-cache log */
    HWM_FUA_PROTECTED_BUFFER, /* held in a buffer that survives power loss */
} HwmFuaMethod;

typedef enum { HWM_FLUSH_NON_QUEUED, HWM_FLUSH_QUEUED } HwmFlushMode;

/* Data-sheet classes the derivation rules (profile-rules.c) depend on. */
typedef enum { HWM_FORM_3_5, HWM_FORM_2_5 } HwmFormFactor;
typedef enum { HWM_IF_SATA, HWM_IF_SAS, HWM_IF_NVME } HwmInterface;
/* The product class a data sheet sells the drive as. */
typedef enum { HWM_CLASS_ENTERPRISE, HWM_CLASS_DESKTOP } HwmDriveClass;

/* Where a key's value came from (--dump-profile says it). */
typedef enum {
    HWM_ORIGIN_DEFAULT = 0,   /* the table's class default */
    HWM_ORIGIN_GIVEN,         /* the profile file */
    HWM_ORIGIN_DERIVED,       /* a rule, from other keys */
    HWM_ORIGIN_UNSET,         /* an optional data-sheet figure not given */
} HwmOrigin;

/* At least the number of keys in profile-keys.c's table (checked there). */
#define HWM_PROFILE_MAX_KEYS 96

/* Which of the dirty extents in the write-back window goes first. */
typedef enum {
    HWM_WB_POSITIONING,       /* the one the medium reaches soonest */
    HWM_WB_ELEVATOR,          /* ascending LBA from the last write-back's
                                 end, wrapping (C-LOOK) */
    HWM_WB_OLDEST,            /* acknowledgement order */
} HwmWritebackOrder;

/* How far a rotating drive reads past a read it had to go to the media. */
typedef enum {
    HWM_READ_AHEAD_OFF,
    HWM_READ_AHEAD_TRACK,     /* to the end of the track */
    HWM_READ_AHEAD_SEGMENT,   /* a segment ahead of what the host has read,
                                 for as long as the host keeps reading */
} HwmReadAhead;

/* Kinds of read and write command whose controller overhead differs
 * (DiskSim's diskmodel; DIXtrac measures each): a hit is served by the
 * buffer, a miss goes to the media. */
typedef enum {
    HWM_OVH_READ_HIT,         /* from the write cache, a read segment or
                                 the read-ahead under way */
    HWM_OVH_READ_MISS,        /* from the media */
    HWM_OVH_WRITE_HIT,        /* into the write cache */
    HWM_OVH_WRITE_MISS,       /* to the media: write cache off, FUA in
                                 place or to the media-cache log */
    HWM_OVH_KINDS,
} HwmOverheadKind;

/* One recording zone as a drive's extraction measured it (a `zone` row):
 * cylinders, sectors per track, skews in sectors, the sectors before the
 * zone's first LBA, the spares held back at its end, and where its first
 * block sits on the track.  The rows replace the equal zones the
 * data-sheet keys spread between outer and inner sectors per track. */
typedef struct {
    uint32_t first_cyl;
    uint32_t last_cyl;
    uint32_t sectors_per_track;
    uint32_t track_skew_sectors;          /* a head switch shifts sector 0 */
    uint32_t cylinder_skew_sectors;       /* a cylinder switch shifts it */
    uint32_t front_sectors;               /* unused before the first LBA */
    uint32_t spare_sectors;               /* held back at the zone's end */
    uint32_t track_spare_sectors;         /* at each track's end, no LBA */
    uint32_t first_block_slot;            /* sectors past the index */
} HwmZoneRow;

/* One point of a measured seek curve (a `seek` row); the model is linear
 * between points and holds the last point's time beyond it. */
typedef struct {
    uint32_t distance_cyl;
    uint64_t time_ns;
} HwmSeekPoint;

struct HwmProfile {
    char *name;                   /* file name without .profile */
    char *source;                 /* path or label, for messages */
    HwmKind kind;
    uint64_t capacity_bytes;

    /* rotating media */
    uint32_t rpm;
    uint32_t heads;
    uint32_t zones;
    uint32_t outer_sectors_per_track;     /* 512-byte sectors */
    uint32_t inner_sectors_per_track;
    HwmLayout layout;
    uint32_t serpentine_band_cylinders;
    uint64_t seek_track_to_track_ns;
    uint64_t seek_avg_ns;                 /* mean over random seeks */
    uint64_t seek_full_stroke_ns;
    uint64_t write_settle_ns;             /* extra settle before writing */
    uint64_t head_switch_ns;
    uint32_t media_cache_cylinder_pct;    /* where the media-cache log sits */
    uint32_t post_seek_write_miss_ppm;    /* writes after positioning that
                                             the servo aborts, per million */
    HwmZoneRow *zone_rows;                /* `zone` rows, or NULL */
    uint32_t n_zone_rows;
    int zone_rows_line;                   /* the first row's line */
    HwmSeekPoint *seek_points;            /* `seek` rows, or NULL */
    uint32_t n_seek_points;
    int seek_points_line;

    /* read path (readcache.c) */
    uint32_t read_segments;               /* 0: no read cache */
    uint64_t read_segment_bytes;
    bool read_segments_shared;            /* in cache_mb, after dirty data */
    HwmReadAhead read_ahead;
    bool read_ahead_abandon;              /* a command for the media stops it */
    bool zero_latency_read;               /* read-on-arrival */
    uint32_t read_reconnect_pct;          /* of a media read, buffered
                                             before the host gets any */

    /* data-sheet figures that only feed derivation rules (0: not given) */
    HwmFormFactor form_factor;
    HwmInterface host_interface;
    HwmDriveClass drive_class;
    uint64_t sustained_bytes_per_s;       /* outer-zone sustained rate */
    uint64_t seek_avg_write_ns;           /* average write seek */

    /* flash media */
    uint32_t parallel_units;
    uint32_t planes;                      /* per die: units = dies x planes */
    uint64_t read_ns;
    uint64_t program_ns;
    uint32_t program_bytes;               /* one program operation */

    /* controller and interface */
    uint64_t command_overhead_ns;         /* FLUSH, DISCARD; the default
                                             of each kind below */
    /* a read's or write's overhead by kind, [after a write][kind]: after
     * a read (or first), or after a write, the last read or write to
     * complete */
    uint64_t kind_overhead_ns[2][HWM_OVH_KINDS];
    uint64_t completion_overhead_ns[2];   /* [0] read, [1] write: after the
                                             data, before the completion */
    uint64_t interface_bytes_per_s;
    uint32_t queue_depth;
    HwmPolicy policy;
    uint64_t sptf_max_wait_ns;            /* aging: older requests go first */
    uint32_t queue_window;                /* commands the scheduler compares:
                                             the oldest N (queue_depth or
                                             more: all) */

    /* volatile write cache */
    bool write_cache;
    uint64_t cache_bytes;
    uint64_t write_cache_bytes;           /* of it, what takes write data */
    uint32_t cache_segments;              /* dirty extents it can track */
    uint32_t high_water_pct;              /* start write-back above this */
    uint64_t idle_destage_delay_ns;       /* write back after this idle */
    uint64_t destage_max_bytes;           /* largest single write-back */
    uint32_t writeback_window;            /* dirty extents write-back
                                             compares: the oldest N
                                             (cache_segments or more: all) */
    HwmWritebackOrder writeback_order;

    /* durability */
    bool fua;
    HwmFuaMethod fua_method;
    HwmFlushMode flush_mode;
    uint64_t flush_commit_ns;             /* the commit that makes programmed
                                             data durable (a flash drive's
                                             mapping journal), one at a time */
    bool power_loss_protection;           /* the write buffer survives a
                                             power cut */

    /* provenance of every value, by index in profile-keys.c's key table */
    unsigned char origin[HWM_PROFILE_MAX_KEYS];   /* HwmOrigin */
    int line[HWM_PROFILE_MAX_KEYS];               /* given: its line */
    const char *rule[HWM_PROFILE_MAX_KEYS];       /* derived: rule name */
};

/* A copy of `src` in `dst` that owns its strings and rows; release it
 * with hwm_profile_clear(). */
void hwm_profile_copy(HwmProfile *dst, const HwmProfile *src);
void hwm_profile_clear(HwmProfile *p);

#endif
