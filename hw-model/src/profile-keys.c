/*
 * The profile key table: every key a profile may give, in one entry each
 * (name with unit, type, which media, required or default, bounds, help,
 * and the rule that derives it when a data sheet does not give it), and
 * the look-ups on key names (profile-table.h).
 */
#include <string.h>

#include "profile-table.h"

const char *const hwm_kind_names[] = { "hdd", "flash", NULL };
static const char *const layout_names[] = { "cylinder", "serpentine", NULL };
static const char *const fua_method_names[] = {
    "in-place", "media-cache", "protected-buffer", NULL };
static const char *const flush_names[] = { "non-queued", "queued", NULL };
static const char *const read_ahead_names[] = { "off", "track", "segment",
                                                NULL };
/* HwmPolicy has PROFILE = 0; a profile names one of the real policies. */
static const char *const form_names[] = { "3.5-inch", "2.5-inch", NULL };
static const char *const interface_names[] = { "sata", "sas", "nvme", NULL };
static const char *const drive_class_names[] = { "enterprise", "desktop",
                                                NULL };
static const char *const policy_names[] = { "(profile)", "fifo", "sptf", NULL };
static const char *const writeback_order_names[] = { "positioning",
                                                     "elevator", "oldest",
                                                     NULL };

#define NO_RULE NULL
#define F(field) offsetof(HwmProfile, field), sizeof(((HwmProfile *)0)->field)

/* a table: `duplicates` pairs its rows by shape (the eight kind overheads
 * above all); they are data, one entry per key */
const KeyDef hwm_profile_keys[] = {
    { "type", T_ENUM, 1, F(kind), FOR_ALL, true, NULL, 0, 1, hwm_kind_names,
      "media: hdd (rotating) or flash", NO_RULE },
    { "capacity_bytes", T_SIZE, 1, F(capacity_bytes), FOR_ALL, true, NULL,
      1 * MIB, UINT64_MAX / 2, NULL, "user capacity", NO_RULE },

    { "rpm", T_COUNT, 1, F(rpm), FOR_HDD, true, NULL, 1000, 30000, NULL,
      "spindle speed", NO_RULE },
    /* data-sheet figures that only feed the rules (form class, rates) */
    { "form_factor", T_ENUM, 1, F(form_factor), FOR_HDD, false, "3.5-inch",
      0, 1, form_names, "platter size class", NO_RULE },
    { "interface", T_ENUM, 1, F(host_interface), FOR_ALL, false, "sata", 0,
      2, interface_names, "host interface class", NO_RULE },
    { "drive_class", T_ENUM, 1, F(drive_class), FOR_HDD, false, "enterprise",
      0, 1, drive_class_names,
      "the product class the maker sells the drive as: enterprise "
      "(nearline, SAS) or desktop (client); the rules of the keys that "
      "depend on firmware take their class's value from it", NO_RULE },
    { "sustained_mb_s", T_SIZE, 1000000, F(sustained_bytes_per_s), FOR_HDD,
      false, NULL, 1000000, 100000000000ull, NULL,
      "data sheet's sustained (outer-zone) transfer rate, MB = 10^6 bytes",
      NO_RULE },
    { "seek_avg_write_ms", T_TIME, NS_PER_MS, F(seek_avg_write_ns), FOR_HDD,
      false, NULL, 1, 100 * NS_PER_MS, NULL,
      "data sheet's average write seek", NO_RULE },

    { "heads", T_COUNT, 1, F(heads), FOR_HDD, true, NULL, 1, 64, NULL,
      "data surfaces", &hwm_rule_heads },
    /* zones: the Hitachi Deskstar 7K500 specification lists 30 (zone 0 to
     * zone 29); with sectors per track falling linearly over them, more
     * zones change little */
    { "zones", T_COUNT, 1, F(zones), FOR_HDD, false, "30", 1, 1024, NULL,
      "recording zones, equal cylinders each, outer to inner", NO_RULE },
    { "outer_sectors_per_track", T_COUNT, 1, F(outer_sectors_per_track),
      FOR_HDD, true, NULL, 16, 1u << 20, NULL,
      "512-byte sectors on an outermost-zone track", &hwm_rule_outer_spt },
    { "inner_sectors_per_track", T_COUNT, 1, F(inner_sectors_per_track),
      FOR_HDD, true, NULL, 16, 1u << 20, NULL,
      "512-byte sectors on an innermost-zone track", &hwm_rule_inner_spt },
    { "layout", T_ENUM, 1, F(layout), FOR_HDD, false, "cylinder", 0, 1,
      layout_names, "LBA order: cylinder-major or serpentine bands", NO_RULE },
    { "serpentine_band_cylinders", T_COUNT, 1, F(serpentine_band_cylinders),
      FOR_HDD, false, "256", 1, 1u << 20, NULL,
      "cylinders one head covers before the next head (serpentine)", NO_RULE },
    { "seek_track_to_track_ms", T_TIME, NS_PER_MS, F(seek_track_to_track_ns),
      FOR_HDD, true, NULL, 1, 100 * NS_PER_MS, NULL,
      "seek of one cylinder (read)", &hwm_rule_t2t },
    { "seek_avg_ms", T_TIME, NS_PER_MS, F(seek_avg_ns), FOR_HDD, true, NULL,
      1, 100 * NS_PER_MS, NULL,
      "average read seek, as data sheets give it: the mean over random "
      "seeks; the curve's value at a third of the stroke is solved to it",
      NO_RULE },
    { "seek_full_stroke_ms", T_TIME, NS_PER_MS, F(seek_full_stroke_ns),
      FOR_HDD, true, NULL, 1, 200 * NS_PER_MS, NULL,
      "seek over the whole stroke (read)", &hwm_rule_full },
    { "write_settle_ms", T_TIME, NS_PER_MS, F(write_settle_ns), FOR_HDD,
      false, "0.1", 0, 10 * NS_PER_MS, NULL,
      "extra settle before writing after a seek or head switch",
      &hwm_rule_write_settle },
    { "head_switch_ms", T_TIME, NS_PER_MS, F(head_switch_ns), FOR_HDD, true,
      NULL, 1, 10 * NS_PER_MS, NULL, "switch to another head, same cylinder",
      &hwm_rule_head_switch },
    { "media_cache_cylinder_pct", T_COUNT, 1, F(media_cache_cylinder_pct),
      FOR_HDD, false, "50", 0, 100, NULL,
      "position of the media-cache log across the stroke (0 = outer)", NO_RULE },
    { "post_seek_write_miss_pct", T_RATIO, 10000, F(post_seek_write_miss_ppm),
      FOR_HDD, false, "0", 0, 1000000, NULL,
      "writes after an average seek that off-track write inhibit aborts "
      "(scaled by seek time; none after a track-to-track seek or a head "
      "switch); the sector is written a revolution later", NO_RULE },
    { "read_segments", T_COUNT, 1, F(read_segments), FOR_HDD, false, "16",
      0, 1024, NULL,
      "read cache segments, each one contiguous range (0: no read cache)", NO_RULE },
    { "read_segment_kb", T_SIZE, KIB, F(read_segment_bytes), FOR_HDD, false,
      "1024", 4 * KIB, 1024 * MIB, NULL, "bytes one read segment holds",
      &hwm_rule_read_segment },
    { "read_segments_shared", T_BOOL, 1, F(read_segments_shared), FOR_HDD,
      false, "yes", 0, 1, NULL,
      "yes: read segments live in the cache_mb buffer, as many as the "
      "room dirty data leaves (dirty data evicts them); no: a buffer of "
      "their own", NO_RULE },
    { "read_ahead", T_ENUM, 1, F(read_ahead), FOR_HDD, false, "segment", 0,
      2, read_ahead_names,
      "after a read from the media, keep reading: off, to the end of the "
      "track, or a segment ahead of what the host has read (segment)", NO_RULE },
    { "read_ahead_abandon", T_BOOL, 1, F(read_ahead_abandon), FOR_HDD, false,
      "yes", 0, 1, NULL,
      "a command that needs the media stops the read-ahead at once "
      "(no: it waits for the read-ahead to end)", NO_RULE },
    { "zero_latency_read", T_BOOL, 1, F(zero_latency_read), FOR_HDD, false,
      "yes", 0, 1, NULL,
      "read-on-arrival: read a track's requested sectors from the first "
      "to come round, not from the first in order", NO_RULE },
    /* SCSI's Disconnect-Reconnect mode page (02h), Buffer Full Ratio: how
     * full the buffer is before the target reconnects to send a read's
     * data; DIXtrac measures it as DiskSim's "High (read) water mark"
     * (by request size).  0: the data streams out as it comes in. */
    { "read_reconnect_pct", T_COUNT, 1, F(read_reconnect_pct), FOR_HDD,
      false, "0", 0, 100, NULL,
      "share of a media read the buffer holds before the drive starts "
      "sending it to the host (SCSI buffer full ratio; 0: at once)",
      NO_RULE },

    { "parallel_units", T_COUNT, 1, F(parallel_units), FOR_FLASH, true, NULL,
      1, 4096, NULL, "dies (the device has parallel_units x planes media units)", NO_RULE },
    { "planes", T_COUNT, 1, F(planes), FOR_FLASH, false, "1", 1, 16, NULL, "planes per die, each reading and programming a page at once (parallel_units x planes <= 4096)", NO_RULE },
    { "read_us", T_TIME, NS_PER_US, F(read_ns), FOR_FLASH, true, NULL, 1,
      10 * NS_PER_MS, NULL, "array read of one page", NO_RULE },
    { "program_us", T_TIME, NS_PER_US, F(program_ns), FOR_FLASH, true, NULL,
      1, 100 * NS_PER_MS, NULL, "program of one program unit", NO_RULE },
    { "program_kb", T_SIZE, KIB, F(program_bytes), FOR_FLASH, false, "16",
      4 * KIB, 1 * MIB, NULL, "a page: what one plane programs at once", NO_RULE },

    { "command_overhead_us", T_TIME, NS_PER_US, F(command_overhead_ns),
      FOR_ALL, false, "0", 0, 100 * NS_PER_MS, NULL,
      "controller time to take a command and report it (FLUSH, DISCARD, "
      "and each read or write kind below that is not given)",
      &hwm_rule_overhead },
    /* by kind, after DiskSim's diskmodel ("Read hit over. after read"
     * and its seven siblings, which DIXtrac measures): the kind is
     * decided when the controller takes the command */
    { "read_hit_overhead_us", T_TIME, NS_PER_US,
      F(kind_overhead_ns[0][HWM_OVH_READ_HIT]), FOR_ALL, false, NULL, 0,
      100 * NS_PER_MS, NULL,
      "controller time for a read the buffer serves (the write cache, a "
      "read segment or the read-ahead under way), after a read",
      &hwm_rule_kind_overhead },
    { "read_miss_overhead_us", T_TIME, NS_PER_US,
      F(kind_overhead_ns[0][HWM_OVH_READ_MISS]), FOR_ALL, false, NULL, 0,
      100 * NS_PER_MS, NULL,
      "controller time for a read that goes to the media, after a read",
      &hwm_rule_kind_overhead },
    { "write_hit_overhead_us", T_TIME, NS_PER_US,
      F(kind_overhead_ns[0][HWM_OVH_WRITE_HIT]), FOR_ALL, false, NULL, 0,
      100 * NS_PER_MS, NULL,
      "controller time for a write into the write cache, after a read",
      &hwm_rule_kind_overhead },
    { "write_miss_overhead_us", T_TIME, NS_PER_US,
      F(kind_overhead_ns[0][HWM_OVH_WRITE_MISS]), FOR_ALL, false, NULL, 0,
      100 * NS_PER_MS, NULL,
      "controller time for a write that goes to the media (write cache "
      "off, a FUA write in place or to the media-cache log), after a read",
      &hwm_rule_kind_overhead },
    { "read_hit_after_write_overhead_us", T_TIME, NS_PER_US,
      F(kind_overhead_ns[1][HWM_OVH_READ_HIT]), FOR_ALL, false, NULL, 0,
      100 * NS_PER_MS, NULL,
      "read_hit_overhead_us when the last read or write to complete was a "
      "write", &hwm_rule_after_write[HWM_OVH_READ_HIT] },
    { "read_miss_after_write_overhead_us", T_TIME, NS_PER_US,
      F(kind_overhead_ns[1][HWM_OVH_READ_MISS]), FOR_ALL, false, NULL, 0,
      100 * NS_PER_MS, NULL,
      "read_miss_overhead_us when the last read or write to complete was a "
      "write", &hwm_rule_after_write[HWM_OVH_READ_MISS] },
    { "write_hit_after_write_overhead_us", T_TIME, NS_PER_US,
      F(kind_overhead_ns[1][HWM_OVH_WRITE_HIT]), FOR_ALL, false, NULL, 0,
      100 * NS_PER_MS, NULL,
      "write_hit_overhead_us when the last read or write to complete was a "
      "write", &hwm_rule_after_write[HWM_OVH_WRITE_HIT] },
    { "write_miss_after_write_overhead_us", T_TIME, NS_PER_US,
      F(kind_overhead_ns[1][HWM_OVH_WRITE_MISS]), FOR_ALL, false, NULL, 0,
      100 * NS_PER_MS, NULL,
      "write_miss_overhead_us when the last read or write to complete was a "
      "write", &hwm_rule_after_write[HWM_OVH_WRITE_MISS] },
    /* DiskSim's "Read completion overhead" and "Write completion
     * overhead", which DIXtrac measures: the controller's time from a
     * command's last data (or its write reaching the media) to the
     * completion the host sees */
    { "read_completion_overhead_us", T_TIME, NS_PER_US,
      F(completion_overhead_ns[0]), FOR_ALL, false, "0", 0, 100 * NS_PER_MS,
      NULL, "a read's completion after its last data reached the host",
      NO_RULE },
    { "write_completion_overhead_us", T_TIME, NS_PER_US,
      F(completion_overhead_ns[1]), FOR_ALL, false, "0", 0, 100 * NS_PER_MS,
      NULL, "a write's completion after it is in the cache or on the media",
      NO_RULE },
    { "interface_mb_s", T_SIZE, 1000000, F(interface_bytes_per_s), FOR_ALL,
      false, "600", 1000000, 1000000000000ull, NULL,
      "host link rate (MB = 10^6 bytes)", NO_RULE },
    { "queue_depth", T_COUNT, 1, F(queue_depth), FOR_ALL, false, "32", 1,
      65536, NULL, "commands the device holds at once", &hwm_rule_queue_depth },
    { "queue_policy", T_ENUM, 1, F(policy), FOR_ALL, false, "sptf", 1, 2,
      policy_names, "command order: fifo or sptf (shortest positioning)", NO_RULE },
    { "sptf_max_wait_ms", T_TIME, NS_PER_MS, F(sptf_max_wait_ns), FOR_ALL,
      false, "500", 1, 100000 * NS_PER_MS, NULL,
      "a command older than this is served before shorter ones (aging)", NO_RULE },
    { "queue_window", T_COUNT, 1, F(queue_window), FOR_ALL, false, NULL, 1,
      65536, NULL,
      "commands waiting for the media that sptf compares: the oldest N "
      "(1: fifo; queue_depth or more: the whole queue)",
      &hwm_rule_queue_window },

    { "write_cache", T_BOOL, 1, F(write_cache), FOR_ALL, false, "yes", 0, 1,
      NULL, "volatile write cache enabled (WCE)", NO_RULE },
    { "cache_mb", T_SIZE, MIB, F(cache_bytes), FOR_ALL, false, "0", 0,
      UINT64_MAX / 2, NULL, "write cache capacity (MiB)", NO_RULE },
    { "write_cache_kb", T_SIZE, KIB, F(write_cache_bytes), FOR_ALL, false,
      NULL, 0, UINT64_MAX / 2, NULL,
      "of the buffer, what takes write data: dirty data never exceeds it "
      "(at most cache_mb)", &hwm_rule_write_cache },
    { "cache_segments", T_COUNT, 1, F(cache_segments), FOR_ALL, false,
      "4096", 1, 1u << 24, NULL, "dirty extents the cache can track",
      &hwm_rule_cache_segments },
    { "cache_high_water_pct", T_COUNT, 1, F(high_water_pct), FOR_ALL, false,
      "75", 1, 100, NULL, "write back while dirty above this share", NO_RULE },
    { "idle_destage_delay_ms", T_TIME, NS_PER_MS, F(idle_destage_delay_ns),
      FOR_ALL, false, "100", 0, 1000000 * NS_PER_MS, NULL,
      "write back when no command arrived for this long", NO_RULE },
    { "destage_max_kb", T_SIZE, KIB, F(destage_max_bytes), FOR_ALL, false,
      "1024", 4 * KIB, 1024 * MIB, NULL, "largest single write-back", NO_RULE },
    { "writeback_window", T_COUNT, 1, F(writeback_window), FOR_ALL, false,
      NULL, 1, 1u << 24, NULL,
      "dirty extents write-back chooses among: the oldest N (cache_segments "
      "or more: all of them)", &hwm_rule_writeback_window },
    { "writeback_order", T_ENUM, 1, F(writeback_order), FOR_ALL, false,
      "positioning", 0, 2, writeback_order_names,
      "which of them goes first: positioning (reached soonest), elevator "
      "(ascending LBA from the last write-back's end, wrapping) or oldest "
      "(acknowledgement order)", NO_RULE },

    { "fua", T_BOOL, 1, F(fua), FOR_ALL, false, "yes", 0, 1, NULL,
      "native FUA advertised to the host", NO_RULE },
    { "fua_method", T_ENUM, 1, F(fua_method), FOR_ALL, false, "in-place", 0,
      2, fua_method_names, "how a FUA write is made durable", NO_RULE },
    { "flush", T_ENUM, 1, F(flush_mode), FOR_ALL, false, "non-queued", 0, 1,
      flush_names, "non-queued (waits for the queue: SATA) or queued (NVMe)",
      &hwm_rule_flush },
    { "flush_commit_us", T_TIME, NS_PER_US, F(flush_commit_ns), FOR_ALL,
      false, "0", 0, 1000 * NS_PER_MS, NULL,
      "the commit that makes programmed data durable (a flash drive's "
      "mapping journal), one at a time: a flush runs it after its "
      "write-back (write cache on), and a write that must be durable when "
      "it completes (FUA, or write cache off) after its program", NO_RULE },
    { "power_loss_protection", T_BOOL, 1, F(power_loss_protection), FOR_ALL,
      false, "no", 0, 1, NULL,
      "the write buffer is backed by capacitors: every write it takes is "
      "durable when acknowledged, a FUA write is acknowledged from it, and "
      "a flush has nothing to do (such drives report a write-through cache)",
      NO_RULE },
};

const size_t hwm_profile_nkeys = G_N_ELEMENTS(hwm_profile_keys);
G_STATIC_ASSERT(G_N_ELEMENTS(hwm_profile_keys) <= HWM_PROFILE_MAX_KEYS);

/* ---- row keys ----------------------------------------------------------- */

static const RowColumn zone_columns[] = {
    { "first_cylinder", 1, UINT32_MAX - 1 },
    { "last_cylinder", 1, UINT32_MAX - 1 },
    { "sectors_per_track", 1, 1u << 20 },
    { "track_skew_sectors", 1, 1u << 20 },
    { "cylinder_skew_sectors", 1, 1u << 20 },
    { "front_sectors", 1, UINT32_MAX },
    { "spare_sectors", 1, UINT32_MAX },
    { "track_spare_sectors", 1, 1u << 20 },
    { "first_block_sectors", 1, 1u << 20 },
};

static bool zone_add(HwmProfile *p, const uint64_t *v, const char **why)
{
    HwmZoneRow z = {
        .first_cyl = (uint32_t)v[0], .last_cyl = (uint32_t)v[1],
        .sectors_per_track = (uint32_t)v[2],
        .track_skew_sectors = (uint32_t)v[3],
        .cylinder_skew_sectors = (uint32_t)v[4],
        .front_sectors = (uint32_t)v[5], .spare_sectors = (uint32_t)v[6],
        .track_spare_sectors = (uint32_t)v[7],
        .first_block_slot = (uint32_t)v[8],
    };

    if (z.sectors_per_track == 0) {
        *why = "sectors_per_track must be positive";
    } else if (z.last_cyl < z.first_cyl) {
        *why = "last_cylinder is below first_cylinder";
    } else if (p->n_zone_rows > 0 &&
               z.first_cyl <= p->zone_rows[p->n_zone_rows - 1].last_cyl) {
        *why = "first_cylinder is not past the previous zone's last_cylinder"
               " (rows go outward in, without overlap)";
    } else if (z.track_spare_sectors >= z.sectors_per_track) {
        *why = "track_spare_sectors leaves a track no sectors";
    } else if (z.track_skew_sectors >= z.sectors_per_track ||
               z.cylinder_skew_sectors >= z.sectors_per_track ||
               z.first_block_slot >= z.sectors_per_track) {
        *why = "a skew or first_block_sectors is not below sectors_per_track";
    } else {
        p->zone_rows = g_renew(HwmZoneRow, p->zone_rows, p->n_zone_rows + 1);
        p->zone_rows[p->n_zone_rows++] = z;
        return true;
    }
    return false;
}

static void zone_get(const HwmProfile *p, uint32_t i, uint64_t *v)
{
    const HwmZoneRow *z = &p->zone_rows[i];
    uint64_t out[] = { z->first_cyl, z->last_cyl, z->sectors_per_track,
                       z->track_skew_sectors, z->cylinder_skew_sectors,
                       z->front_sectors, z->spare_sectors,
                       z->track_spare_sectors, z->first_block_slot };
    memcpy(v, out, sizeof out);
}

static uint32_t zone_count(const HwmProfile *p)
{
    return p->n_zone_rows;
}

static int *zone_line(HwmProfile *p)
{
    return &p->zone_rows_line;
}

static const RowColumn seek_columns[] = {
    { "distance_cylinders", 1, UINT32_MAX - 1 },
    { "time_ms", NS_PER_MS, 10 * NS_PER_S },
};

static bool seek_add(HwmProfile *p, const uint64_t *v, const char **why)
{
    HwmSeekPoint s = { .distance_cyl = (uint32_t)v[0], .time_ns = v[1] };

    if (p->n_seek_points == 0 && s.distance_cyl != 1) {
        *why = "the first seek row is at distance_cylinders 1";
    } else if (p->n_seek_points > 0 &&
               s.distance_cyl <=
                   p->seek_points[p->n_seek_points - 1].distance_cyl) {
        *why = "distance_cylinders is not above the previous row's";
    } else if (s.time_ns == 0) {
        *why = "time_ms must be positive";
    } else {
        p->seek_points = g_renew(HwmSeekPoint, p->seek_points,
                                 p->n_seek_points + 1);
        p->seek_points[p->n_seek_points++] = s;
        return true;
    }
    return false;
}

static void seek_get(const HwmProfile *p, uint32_t i, uint64_t *v)
{
    v[0] = p->seek_points[i].distance_cyl;
    v[1] = p->seek_points[i].time_ns;
}

static uint32_t seek_count(const HwmProfile *p)
{
    return p->n_seek_points;
}

static int *seek_line(HwmProfile *p)
{
    return &p->seek_points_line;
}

const RowDef hwm_profile_rows[] = {
    { "zone", FOR_HDD, zone_columns, G_N_ELEMENTS(zone_columns), 1024,
      "one recording zone as measured (a DIXtrac extraction): its "
      "cylinders, sectors per track, track and cylinder skews, the sectors "
      "before its first LBA, the spares at its end and at each track's "
      "end, and where its first block sits; the rows replace the equal zones of zones, "
      "outer_sectors_per_track and inner_sectors_per_track, which must "
      "agree with them", zone_add, zone_get, zone_count, zone_line },
    { "seek", FOR_HDD, seek_columns, G_N_ELEMENTS(seek_columns), 1u << 16,
      "one point of the measured seek curve: the model is linear between "
      "points and holds the last time beyond it; the curve replaces the "
      "one through seek_track_to_track_ms, seek_avg_ms and "
      "seek_full_stroke_ms, which then only feed derivation rules",
      seek_add, seek_get, seek_count, seek_line },
};
const size_t hwm_profile_nrows = G_N_ELEMENTS(hwm_profile_rows);

const RowDef *hwm_profile_find_row(const char *name)
{
    for (size_t i = 0; i < hwm_profile_nrows; i++) {
        if (strcmp(hwm_profile_rows[i].key, name) == 0) {
            return &hwm_profile_rows[i];
        }
    }
    return NULL;
}

const KeyDef *hwm_profile_find_key(const char *name)
{
    for (size_t i = 0; i < hwm_profile_nkeys; i++) {
        if (strcmp(hwm_profile_keys[i].key, name) == 0) {
            return &hwm_profile_keys[i];
        }
    }
    return NULL;
}

/* The units a key name may end in, and how --dump-profile names them. */
static const struct {
    const char *suffix;
    const char *name;
} key_units[] = {
    { "ms", "ms" }, { "us", "us" }, { "ns", "ns" }, { "mb_s", "MB/s" },
    { "mb", "MiB" }, { "kb", "KiB" }, { "bytes", "bytes" }, { "pct", "%" },
};

/* The unit in a key's name, or "" for a count, a name or a yes/no (the
 * last word is not always a unit: queue_depth, interface_mb_s). */
const char *hwm_profile_key_unit(const KeyDef *k)
{
    for (size_t u = 0; u < G_N_ELEMENTS(key_units); u++) {
        g_autofree char *tail = g_strconcat("_", key_units[u].suffix, NULL);
        if (g_str_has_suffix(k->key, tail)) {
            return key_units[u].name;
        }
    }
    return "";
}

char *hwm_profile_allowed_names(const KeyDef *k)
{
    GString *s = g_string_new(NULL);
    for (uint64_t i = k->min; i <= k->max; i++) {
        g_string_append_printf(s, "%s%s", i > k->min ? ", " : "", k->names[i]);
    }
    return g_string_free(s, FALSE);
}

/* Suggest the right key when the user left out or changed the unit. */
const KeyDef *hwm_profile_key_with_other_unit(const char *name)
{
    g_autofree char *stem = g_strdup(name);
    char *us = strrchr(stem, '_');

    for (int pass = 0; pass < 2; pass++) {
        for (size_t u = 0; u < G_N_ELEMENTS(key_units); u++) {
            g_autofree char *cand = g_strdup_printf("%s_%s", stem,
                                                    key_units[u].suffix);
            const KeyDef *k = hwm_profile_find_key(cand);
            if (k) {
                return k;
            }
        }
        if (!us) {
            break;
        }
        *us = '\0';     /* second pass: drop the unit the user wrote */
    }
    return NULL;
}
