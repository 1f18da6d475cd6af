/*
 * Profile files: `key = value` lines, the unit in the key name, `#` starts a
 * comment.  Every key lives in one table entry below: its name (with unit),
 * type, which media it applies to, whether it is required, its default and
 * its bounds.  GKeyFile is not used because it needs [groups] and cannot
 * report the line of a semantically bad value; this parser names file, line
 * and key for every error.
 */
#define _POSIX_C_SOURCE 200809L /* open(O_NONBLOCK), fstat: hwm_read_file */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile.h"

G_DEFINE_QUARK(hwm-error-quark, hwm_error)

typedef enum {
    T_COUNT,      /* plain integer */
    T_TIME,       /* decimal; scale = ns per unit */
    T_SIZE,       /* decimal; scale = bytes per unit */
    T_RATIO,      /* decimal; scale = field units per key unit */
    T_BOOL,       /* yes/no, on/off, true/false, 1/0 */
    T_ENUM,       /* one of names[] */
} KeyType;

enum { FOR_ALL = 3, FOR_HDD = 1, FOR_FLASH = 2 };

typedef struct {
    const char *key;
    KeyType type;
    uint64_t scale;        /* T_TIME, T_SIZE, T_RATIO: field units per key unit */
    size_t offset;         /* field in HwmProfile */
    size_t width;          /* sizeof field: 4 or 8 (1 for bool) */
    int applies;           /* FOR_* */
    bool required;
    const char *dflt;      /* text of the default, NULL when required */
    uint64_t min, max;     /* in field units, inclusive */
    const char *const *names;   /* T_ENUM: value i is names[i] */
    const char *help;
    const struct Rule *rule;    /* derives the value when not given */
} KeyDef;

static const char *const kind_names[] = { "hdd", "flash", NULL };
static const char *const layout_names[] = { "cylinder", "serpentine", NULL };
static const char *const fua_method_names[] = {
    "in-place", "media-cache", "protected-buffer", NULL };
static const char *const flush_names[] = { "non-queued", "queued", NULL };
static const char *const read_ahead_names[] = { "off", "track", "segment",
                                                NULL };
/* HwmPolicy has PROFILE = 0; a profile names one of the real policies. */
static const char *const form_names[] = { "3.5-inch", "2.5-inch", NULL };
static const char *const interface_names[] = { "sata", "sas", "nvme", NULL };
static const char *const policy_names[] = { "(profile)", "fifo", "sptf", NULL };
static const char *const writeback_order_names[] = { "positioning",
                                                     "elevator", "oldest",
                                                     NULL };

#define NO_RULE NULL
#define F(field) offsetof(HwmProfile, field), sizeof(((HwmProfile *)0)->field)
#define NS_PER_MS 1000000ull
#define NS_PER_US 1000ull
#define MIB (1024ull * 1024ull)
#define KIB 1024ull


/*
 * Data-sheet defaults (issue 14, item 4).  A data sheet gives capacity,
 * rpm, form factor, average seek (often read and write), the sustained
 * (outer-zone) transfer rate, the cache size and the interface.  Every
 * other key the model needs is derived from those by one rule below, named
 * in its key's table entry, or takes the table's class default.  A rule
 * reads only the keys in its `inputs` (resolved first, given or derived),
 * and returns false when an optional input is absent: the key then takes
 * its default, or is reported missing if it has none.  Each rule cites
 * where its figure comes from; none copies another profile's values.
 */
typedef struct Rule {
    const char *name;               /* short name, shown by --dump-profile */
    const char *inputs[8];          /* keys it reads (NULL-terminated) */
    /* NULL: the value of its one input (a key that defaults to another) */
    bool (*fn)(const HwmProfile *p, uint64_t *out);
    const char *how;                /* the rule in words, for errors */
} Rule;

#define NS_PER_S 1000000000ull

/* Ratio of the innermost to the outermost zone's sectors per track, in
 * percent, and the most heads a drive of the form factor carries.
 * Zoned recording keeps the linear density about constant, so the ratio is
 * that of the data band's radii: the Hitachi Deskstar 7K500 specification
 * (3.5-inch, 30 zones) gives 76.3 MB/s instantaneous in zone 0 and 36.5 in
 * zone 29, 0.48; 2.5-inch platters have the same proportions (ID/OD of the
 * recording band about half the platter).  Heads: ten-platter 3.5-inch
 * drives (Exos X20: 20 heads, data sheet), five-platter 2.5-inch (15 mm). */
static const struct {
    uint64_t inner_pct, max_heads;
} form_class[] = {
    [HWM_FORM_3_5] = { 48, 20 },
    [HWM_FORM_2_5] = { 48, 10 },
};

/* heads-from-density: a surface holds tracks x bytes per track.  At the
 * outer edge a track holds sustained x 60/rpm bytes over 2 pi r_o, so the
 * linear density is known; tracks per inch are that over the bit aspect
 * ratio (user bits per inch / tracks per inch).  Integrating over the band
 * r_i..r_o (r_i = q r_o) gives, r_o cancelling,
 *     surface = 2 (1 - q^2) track_bytes^2 / (pi BAR)
 * BAR = 2.7 in user bits: it gives the published head counts of the WD
 * Caviar Black 1 TB (two 500 GB platters, TechReport), the HGST Ultrastar
 * 7K4000 (five platters) and the Exos X20 (20 heads) to within one head.
 * heads = capacity / surface, rounded, within 1..max for the form factor. */
static bool rule_heads(const HwmProfile *p, uint64_t *out)
{
    double rate;
    if (p->sustained_bytes_per_s) {
        rate = (double)p->sustained_bytes_per_s;
    } else if (p->outer_sectors_per_track) {  /* given: no derivation loop */
        rate = (double)p->outer_sectors_per_track * HWM_SECTOR_BYTES *
               p->rpm / 60.0;
    } else {
        return false;
    }
    double q = form_class[p->form_factor].inner_pct / 100.0;
    double track = rate * 60.0 / p->rpm;
    double surface = 2.0 * (1.0 - q * q) * track * track / (G_PI * 2.7);
    double h = (double)p->capacity_bytes / surface + 0.5;
    uint64_t max = form_class[p->form_factor].max_heads;
    *out = h < 1.0 ? 1 : h > (double)max ? max : (uint64_t)h;
    return true;
}

/* spt-from-sustained: data sheets give the sustained rate, which counts
 * the head and cylinder switches; the Hitachi Deskstar/Ultrastar
 * specifications define it as bytes per cylinder over (heads x revolution
 * + (heads - 1) x head switch + cylinder switch).  Solved for sectors per
 * track with this model's switch costs (write settle is in the skew, so
 * the model's own sequential rate is the data sheet's): cylinder layout,
 * per cylinder of H tracks; serpentine, per band of B tracks of one head.
 * Rounded up, so the media rate is never below the data sheet's. */
static bool rule_outer_spt(const HwmProfile *p, uint64_t *out)
{
    if (!p->sustained_bytes_per_s) {
        return false;
    }
    uint64_t rev = 60 * NS_PER_S / p->rpm;
    uint64_t hs = p->head_switch_ns + p->write_settle_ns;
    uint64_t cs = p->seek_track_to_track_ns + p->write_settle_ns;
    uint64_t n, t;
    if (p->layout == HWM_LAYOUT_SERPENTINE) {
        n = p->serpentine_band_cylinders;
        t = n * rev + (n - 1) * cs + hs;
    } else {
        n = p->heads;
        t = n * rev + (n - 1) * hs + cs;
    }
    unsigned __int128 num = (unsigned __int128)p->sustained_bytes_per_s * t;
    unsigned __int128 den = (unsigned __int128)HWM_SECTOR_BYTES * n * NS_PER_S;
    *out = (uint64_t)((num + den - 1) / den);
    return true;
}

/* spt-inner-ratio: the outer zone's sectors per track times the form
 * factor's inner/outer ratio (form_class above). */
static bool rule_inner_spt(const HwmProfile *p, uint64_t *out)
{
    *out = p->outer_sectors_per_track * form_class[p->form_factor].inner_pct
           / 100;
    return true;
}

/* t2t-from-avg: track-to-track seek a tenth of the average.  Hitachi OEM
 * specifications: Travelstar 5K160, 1.0 ms single track against 11 ms
 * average; Travelstar 5K320, 1.0 against 12.  Recent nearline drives are
 * lower (WD Ultrastar DC HC310 OEM specification: 0.23 against 7.4 ms):
 * give the figure when the data sheet has it. */
static bool rule_t2t(const HwmProfile *p, uint64_t *out)
{
    *out = p->seek_avg_ns / 10;
    return true;
}

/* full-from-avg: full-stroke seek 1.8 times the average.  Seek time grows
 * as the square root of the distance for short seeks and linearly for
 * long ones (Ruemmler & Wilkes, "An introduction to disk drive modeling",
 * IEEE Computer 1994), so the average (the mean over random seeks) is a
 * little over half the full stroke: Hitachi Travelstar 5K160 20 ms against
 * 11, Travelstar 5K320 20 against 12 (OEM specifications). */
static bool rule_full_stroke(const HwmProfile *p, uint64_t *out)
{
    *out = p->seek_avg_ns * 9 / 5;
    return true;
}

/* head-switch-t2t: a head switch settles the new head on its track as a
 * track-to-track seek settles the arm, and costs about as much (Ruemmler
 * & Wilkes: head switching time is comparable to a short seek's). */
static bool rule_head_switch(const HwmProfile *p, uint64_t *out)
{
    *out = p->seek_track_to_track_ns;
    return true;
}

/* settle-from-write-seek: data sheets that give a write seek give it as
 * the read seek plus the extra write settle (HGST and WD OEM
 * specifications, "average seek time ... including settling", read and
 * write rows).  Without a write figure the key takes its default: 0.1 ms,
 * the difference of the read and write single-track seeks in OEM
 * specifications (Hitachi Travelstar 5K160 and 5K320: 1.0 and 1.1 ms; WD
 * Ultrastar DC HC310: 0.23 and 0.32 ms). */
static bool rule_write_settle(const HwmProfile *p, uint64_t *out)
{
    if (!p->seek_avg_write_ns) {
        return false;
    }
    *out = p->seek_avg_write_ns - p->seek_avg_ns;  /* checked >= 0 */
    return true;
}

/* overhead-hdd: a rotating drive's firmware takes about 0.1 ms per command
 * (the calibrated ST20000NM007D: 116 us, docs/calibration.md; Ruemmler &
 * Wilkes model it as a fixed per-command controller overhead).  Flash:
 * the default, 0, since NVMe controllers vary too much for a class
 * figure. */
static bool rule_overhead(const HwmProfile *p, uint64_t *out)
{
    if (p->kind != HWM_KIND_HDD) {
        return false;
    }
    *out = 100 * NS_PER_US;
    return true;
}

/* overhead-by-kind: a read or write of each kind (hit or miss, after a
 * read) costs the one command overhead unless the profile gives its own
 * (DiskSim's diskmodel parameters; DIXtrac measures them per drive);
 * overhead-after-write: after a write, the kind's overhead after a read.
 * Both take another key's value (Rule.fn NULL). */

/* rseg-from-cache: read segments share a quarter of the data sheet's
 * buffer (drives keep most of it for writes and the firmware), in 4 KiB
 * units, 64 KiB..4 MiB each.  No cache: the default. */
static bool rule_read_segment(const HwmProfile *p, uint64_t *out)
{
    if (!p->cache_bytes || !p->read_segments) {
        return false;
    }
    uint64_t b = p->cache_bytes / 4 / p->read_segments / (4 * KIB) * (4 * KIB);
    *out = MAX(64 * KIB, MIN(b, 4 * MIB));
    return true;
}

/* queue-from-interface: SATA NCQ has 32 tags (ATA8-ACS); SAS drives take
 * more tagged commands (64 assumed, the low end of what SAS drives
 * report); NVMe queues are deep (1024). */
static bool rule_queue_depth(const HwmProfile *p, uint64_t *out)
{
    static const uint64_t qd[] = { [HWM_IF_SATA] = 32, [HWM_IF_SAS] = 64,
                                   [HWM_IF_NVME] = 1024 };
    *out = qd[p->host_interface];
    return true;
}

/* flush-from-interface: ATA FLUSH CACHE EXT is not an NCQ command (it
 * waits for the queue); SCSI SYNCHRONIZE CACHE and NVMe Flush are queued. */
static bool rule_flush(const HwmProfile *p, uint64_t *out)
{
    *out = p->host_interface == HWM_IF_SATA ? HWM_FLUSH_NON_QUEUED
                                             : HWM_FLUSH_QUEUED;
    return true;
}

/* window-from-queue: the scheduler compares every queued command.  That is
 * how the scheduling literature and DiskSim model a drive's shortest
 * positioning time first (Worthington, Ganger & Patt, "Scheduling
 * algorithms for modern disk drives", SIGMETRICS 1994; Jacobson & Wilkes,
 * "Disk scheduling algorithms based on rotational position", HP Labs
 * HPL-CSP-91-7), and what enterprise SAS and SATA firmware's rotational
 * position ordering is modelled to do over its tagged queue.  A window of
 * queue_depth or more compares the whole queue whatever depth the host
 * sets.  A drive that compares fewer (desktop firmware: docs/profiles.md)
 * gives queue_window itself, from a measurement of that drive; no data
 * sheet says. */
static bool rule_queue_window(const HwmProfile *p, uint64_t *out)
{
    *out = p->queue_depth;
    return true;
}

/* wb-window-from-segments: write-back compares every dirty extent the
 * cache can hold, the same choice for the cache as window-from-queue for
 * the queue; a window of cache_segments or more is the whole cache. */
static bool rule_writeback_window(const HwmProfile *p, uint64_t *out)
{
    *out = p->cache_segments;
    return true;
}

static const Rule R_heads = { "heads-from-density",
    { "capacity_bytes", "rpm", "form_factor", "sustained_mb_s", NULL },
    rule_heads, "from capacity_bytes, form_factor and sustained_mb_s" };
static const Rule R_outer_spt = { "spt-from-sustained",
    { "sustained_mb_s", "rpm", "heads", "layout", "serpentine_band_cylinders",
      "head_switch_ms", "seek_track_to_track_ms", "write_settle_ms" },
    rule_outer_spt, "from sustained_mb_s and rpm" };
static const Rule R_inner_spt = { "spt-inner-ratio",
    { "outer_sectors_per_track", "form_factor", NULL },
    rule_inner_spt, "from outer_sectors_per_track and form_factor" };
static const Rule R_t2t = { "t2t-from-avg", { "seek_avg_ms", NULL },
    rule_t2t, "as seek_avg_ms / 10" };
static const Rule R_full = { "full-from-avg", { "seek_avg_ms", NULL },
    rule_full_stroke, "as 1.8 x seek_avg_ms" };
static const Rule R_head_switch = { "head-switch-t2t",
    { "seek_track_to_track_ms", NULL }, rule_head_switch,
    "as seek_track_to_track_ms" };
static const Rule R_write_settle = { "settle-from-write-seek",
    { "seek_avg_write_ms", "seek_avg_ms", NULL }, rule_write_settle,
    "as seek_avg_write_ms - seek_avg_ms" };
static const Rule R_overhead = { "overhead-hdd", { "type", NULL },
    rule_overhead, "for type = hdd" };
static const Rule R_kind_overhead = { "overhead-by-kind",
    { "command_overhead_us", NULL }, NULL, "as command_overhead_us" };
/* [HwmOverheadKind] */
static const Rule R_after_write[HWM_OVH_KINDS] = {
    { "overhead-after-write", { "read_hit_overhead_us", NULL }, NULL,
      "as read_hit_overhead_us" },
    { "overhead-after-write", { "read_miss_overhead_us", NULL }, NULL,
      "as read_miss_overhead_us" },
    { "overhead-after-write", { "write_hit_overhead_us", NULL }, NULL,
      "as write_hit_overhead_us" },
    { "overhead-after-write", { "write_miss_overhead_us", NULL }, NULL,
      "as write_miss_overhead_us" },
};
static const Rule R_read_segment = { "rseg-from-cache",
    { "cache_mb", "read_segments", NULL }, rule_read_segment,
    "as cache_mb / 4 / read_segments" };
static const Rule R_queue_depth = { "queue-from-interface",
    { "interface", NULL }, rule_queue_depth, "from interface" };
static const Rule R_flush = { "flush-from-interface", { "interface", NULL },
    rule_flush, "from interface" };
static const Rule R_queue_window = { "window-from-queue",
    { "queue_depth", NULL }, rule_queue_window, "as queue_depth" };
static const Rule R_writeback_window = { "wb-window-from-segments",
    { "cache_segments", NULL }, rule_writeback_window, "as cache_segments" };

static const KeyDef keys[] = {
    { "type", T_ENUM, 1, F(kind), FOR_ALL, true, NULL, 0, 1, kind_names,
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
    { "sustained_mb_s", T_SIZE, 1000000, F(sustained_bytes_per_s), FOR_HDD,
      false, NULL, 1000000, 100000000000ull, NULL,
      "data sheet's sustained (outer-zone) transfer rate, MB = 10^6 bytes",
      NO_RULE },
    { "seek_avg_write_ms", T_TIME, NS_PER_MS, F(seek_avg_write_ns), FOR_HDD,
      false, NULL, 1, 100 * NS_PER_MS, NULL,
      "data sheet's average write seek", NO_RULE },

    { "heads", T_COUNT, 1, F(heads), FOR_HDD, true, NULL, 1, 64, NULL,
      "data surfaces", &R_heads },
    /* zones: the Hitachi Deskstar 7K500 specification lists 30 (zone 0 to
     * zone 29); with sectors per track falling linearly over them, more
     * zones change little */
    { "zones", T_COUNT, 1, F(zones), FOR_HDD, false, "30", 1, 1024, NULL,
      "recording zones, equal cylinders each, outer to inner", NO_RULE },
    { "outer_sectors_per_track", T_COUNT, 1, F(outer_sectors_per_track),
      FOR_HDD, true, NULL, 16, 1u << 20, NULL,
      "512-byte sectors on an outermost-zone track", &R_outer_spt },
    { "inner_sectors_per_track", T_COUNT, 1, F(inner_sectors_per_track),
      FOR_HDD, true, NULL, 16, 1u << 20, NULL,
      "512-byte sectors on an innermost-zone track", &R_inner_spt },
    { "layout", T_ENUM, 1, F(layout), FOR_HDD, false, "cylinder", 0, 1,
      layout_names, "LBA order: cylinder-major or serpentine bands", NO_RULE },
    { "serpentine_band_cylinders", T_COUNT, 1, F(serpentine_band_cylinders),
      FOR_HDD, false, "256", 1, 1u << 20, NULL,
      "cylinders one head covers before the next head (serpentine)", NO_RULE },
    { "seek_track_to_track_ms", T_TIME, NS_PER_MS, F(seek_track_to_track_ns),
      FOR_HDD, true, NULL, 1, 100 * NS_PER_MS, NULL,
      "seek of one cylinder (read)", &R_t2t },
    { "seek_avg_ms", T_TIME, NS_PER_MS, F(seek_avg_ns), FOR_HDD, true, NULL,
      1, 100 * NS_PER_MS, NULL,
      "average read seek, as data sheets give it: the mean over random "
      "seeks; the curve's value at a third of the stroke is solved to it",
      NO_RULE },
    { "seek_full_stroke_ms", T_TIME, NS_PER_MS, F(seek_full_stroke_ns),
      FOR_HDD, true, NULL, 1, 200 * NS_PER_MS, NULL,
      "seek over the whole stroke (read)", &R_full },
    { "write_settle_ms", T_TIME, NS_PER_MS, F(write_settle_ns), FOR_HDD,
      false, "0.1", 0, 10 * NS_PER_MS, NULL,
      "extra settle before writing after a seek or head switch",
      &R_write_settle },
    { "head_switch_ms", T_TIME, NS_PER_MS, F(head_switch_ns), FOR_HDD, true,
      NULL, 1, 10 * NS_PER_MS, NULL, "switch to another head, same cylinder",
      &R_head_switch },
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
      &R_read_segment },
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
      "and each read or write kind below that is not given)", &R_overhead },
    /* by kind, after DiskSim's diskmodel ("Read hit over. after read"
     * and its seven siblings, which DIXtrac measures): the kind is
     * decided when the controller takes the command */
    { "read_hit_overhead_us", T_TIME, NS_PER_US,
      F(kind_overhead_ns[0][HWM_OVH_READ_HIT]), FOR_ALL, false, NULL, 0,
      100 * NS_PER_MS, NULL,
      "controller time for a read the buffer serves (the write cache, a "
      "read segment or the read-ahead under way), after a read",
      &R_kind_overhead },
    { "read_miss_overhead_us", T_TIME, NS_PER_US,
      F(kind_overhead_ns[0][HWM_OVH_READ_MISS]), FOR_ALL, false, NULL, 0,
      100 * NS_PER_MS, NULL,
      "controller time for a read that goes to the media, after a read",
      &R_kind_overhead },
    { "write_hit_overhead_us", T_TIME, NS_PER_US,
      F(kind_overhead_ns[0][HWM_OVH_WRITE_HIT]), FOR_ALL, false, NULL, 0,
      100 * NS_PER_MS, NULL,
      "controller time for a write into the write cache, after a read",
      &R_kind_overhead },
    { "write_miss_overhead_us", T_TIME, NS_PER_US,
      F(kind_overhead_ns[0][HWM_OVH_WRITE_MISS]), FOR_ALL, false, NULL, 0,
      100 * NS_PER_MS, NULL,
      "controller time for a write that goes to the media (write cache "
      "off, a FUA write in place or to the media-cache log), after a read",
      &R_kind_overhead },
    { "read_hit_after_write_overhead_us", T_TIME, NS_PER_US,
      F(kind_overhead_ns[1][HWM_OVH_READ_HIT]), FOR_ALL, false, NULL, 0,
      100 * NS_PER_MS, NULL,
      "read_hit_overhead_us when the last read or write to complete was a "
      "write", &R_after_write[HWM_OVH_READ_HIT] },
    { "read_miss_after_write_overhead_us", T_TIME, NS_PER_US,
      F(kind_overhead_ns[1][HWM_OVH_READ_MISS]), FOR_ALL, false, NULL, 0,
      100 * NS_PER_MS, NULL,
      "read_miss_overhead_us when the last read or write to complete was a "
      "write", &R_after_write[HWM_OVH_READ_MISS] },
    { "write_hit_after_write_overhead_us", T_TIME, NS_PER_US,
      F(kind_overhead_ns[1][HWM_OVH_WRITE_HIT]), FOR_ALL, false, NULL, 0,
      100 * NS_PER_MS, NULL,
      "write_hit_overhead_us when the last read or write to complete was a "
      "write", &R_after_write[HWM_OVH_WRITE_HIT] },
    { "write_miss_after_write_overhead_us", T_TIME, NS_PER_US,
      F(kind_overhead_ns[1][HWM_OVH_WRITE_MISS]), FOR_ALL, false, NULL, 0,
      100 * NS_PER_MS, NULL,
      "write_miss_overhead_us when the last read or write to complete was a "
      "write", &R_after_write[HWM_OVH_WRITE_MISS] },
    { "interface_mb_s", T_SIZE, 1000000, F(interface_bytes_per_s), FOR_ALL,
      false, "600", 1000000, 1000000000000ull, NULL,
      "host link rate (MB = 10^6 bytes)", NO_RULE },
    { "queue_depth", T_COUNT, 1, F(queue_depth), FOR_ALL, false, "32", 1,
      65536, NULL, "commands the device holds at once", &R_queue_depth },
    { "queue_policy", T_ENUM, 1, F(policy), FOR_ALL, false, "sptf", 1, 2,
      policy_names, "command order: fifo or sptf (shortest positioning)", NO_RULE },
    { "sptf_max_wait_ms", T_TIME, NS_PER_MS, F(sptf_max_wait_ns), FOR_ALL,
      false, "500", 1, 100000 * NS_PER_MS, NULL,
      "a command older than this is served before shorter ones (aging)", NO_RULE },
    { "queue_window", T_COUNT, 1, F(queue_window), FOR_ALL, false, NULL, 1,
      65536, NULL,
      "commands waiting for the media that sptf compares: the oldest N "
      "(1: fifo; queue_depth or more: the whole queue)", &R_queue_window },

    { "write_cache", T_BOOL, 1, F(write_cache), FOR_ALL, false, "yes", 0, 1,
      NULL, "volatile write cache enabled (WCE)", NO_RULE },
    { "cache_mb", T_SIZE, MIB, F(cache_bytes), FOR_ALL, false, "0", 0,
      UINT64_MAX / 2, NULL, "write cache capacity (MiB)", NO_RULE },
    { "cache_segments", T_COUNT, 1, F(cache_segments), FOR_ALL, false,
      "4096", 1, 1u << 24, NULL, "dirty extents the cache can track", NO_RULE },
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
      "or more: all of them)", &R_writeback_window },
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
      &R_flush },
    { "flush_commit_us", T_TIME, NS_PER_US, F(flush_commit_ns), FOR_ALL,
      false, "0", 0, 1000 * NS_PER_MS, NULL,
      "flush routine after a flush's write-back (write cache on; "
      "one flush at a time)", NO_RULE },
};

#define NKEYS G_N_ELEMENTS(keys)
G_STATIC_ASSERT(G_N_ELEMENTS(keys) <= HWM_PROFILE_MAX_KEYS);

static const KeyDef *find_key(const char *name)
{
    for (size_t i = 0; i < NKEYS; i++) {
        if (strcmp(keys[i].key, name) == 0) {
            return &keys[i];
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
static const char *unit_of(const KeyDef *k)
{
    for (size_t u = 0; u < G_N_ELEMENTS(key_units); u++) {
        g_autofree char *tail = g_strconcat("_", key_units[u].suffix, NULL);
        if (g_str_has_suffix(k->key, tail)) {
            return key_units[u].name;
        }
    }
    return "";
}

static bool parse_decimal(const char *s, uint64_t scale, uint64_t *out,
                          const char **why)
{
    if (hwm_parse_decimal(s, scale, out, why)) {
        return true;
    }
    if (g_str_equal(*why, "not a non-negative decimal number")) {
        *why = "not a non-negative decimal number (the unit belongs in the "
               "key name, not the value)";
    }
    return false;
}

static bool parse_value(const KeyDef *k, const char *val, uint64_t *out,
                        const char **why)
{
    switch (k->type) {
    case T_COUNT:
        if (parse_decimal(val, 1, out, why)) {
            return true;
        }
        /* a fraction; "too large" and "not a number" say it already */
        if (g_str_has_prefix(*why, "finer")) {
            *why = "not a whole number";
        }
        return false;
    case T_TIME:
    case T_SIZE:
    case T_RATIO:
        return parse_decimal(val, k->scale, out, why);
    case T_BOOL:
        if (!g_ascii_strcasecmp(val, "yes") || !g_ascii_strcasecmp(val, "on") ||
            !g_ascii_strcasecmp(val, "true") || !strcmp(val, "1")) {
            *out = 1;
            return true;
        }
        if (!g_ascii_strcasecmp(val, "no") || !g_ascii_strcasecmp(val, "off") ||
            !g_ascii_strcasecmp(val, "false") || !strcmp(val, "0")) {
            *out = 0;
            return true;
        }
        *why = "expected yes or no";
        return false;
    case T_ENUM:
        for (uint64_t i = k->min; i <= k->max; i++) {
            if (strcmp(val, k->names[i]) == 0) {
                *out = i;
                return true;
            }
        }
        *why = "not one of the allowed names";
        return false;
    }
    *why = "internal: unknown key type";
    return false;
}

static void store(HwmProfile *p, const KeyDef *k, uint64_t v)
{
    char *field = (char *)p + k->offset;

    if (k->width == sizeof(uint64_t)) {
        memcpy(field, &v, sizeof(uint64_t));
    } else if (k->width == sizeof(uint32_t)) {
        uint32_t v32 = (uint32_t)v;
        memcpy(field, &v32, sizeof v32);
    } else {
        bool b = v != 0;
        memcpy(field, &b, sizeof b);
    }
}

static uint64_t fetch(const HwmProfile *p, const KeyDef *k)
{
    const char *field = (const char *)p + k->offset;

    if (k->width == sizeof(uint64_t)) {
        uint64_t v;
        memcpy(&v, field, sizeof v);
        return v;
    }
    if (k->width == sizeof(uint32_t)) {
        uint32_t v;
        memcpy(&v, field, sizeof v);
        return v;
    }
    bool b;
    memcpy(&b, field, sizeof b);
    return b;
}

static char *allowed_names(const KeyDef *k)
{
    GString *s = g_string_new(NULL);
    for (uint64_t i = k->min; i <= k->max; i++) {
        g_string_append_printf(s, "%s%s", i > k->min ? ", " : "", k->names[i]);
    }
    return g_string_free(s, FALSE);
}

/* Suggest the right key when the user left out or changed the unit. */
static const KeyDef *key_with_other_unit(const char *name)
{
    g_autofree char *stem = g_strdup(name);
    char *us = strrchr(stem, '_');

    for (int pass = 0; pass < 2; pass++) {
        for (size_t u = 0; u < G_N_ELEMENTS(key_units); u++) {
            g_autofree char *cand = g_strdup_printf("%s_%s", stem,
                                                    key_units[u].suffix);
            const KeyDef *k = find_key(cand);
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

static bool check_bounds(const HwmProfile *p, const KeyDef *k, uint64_t v,
                         const char *where, GError **errp)
{
    if (v < k->min || v > k->max) {
        if (k->type == T_ENUM || k->type == T_BOOL) {
            g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                        "%s: key '%s': value out of range", where, k->key);
        } else if (v == 0 && k->min > 0) {
            g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                        "%s: key '%s': must be positive (%s)", where, k->key,
                        k->help);
        } else {
            /* say it in the key's own unit */
            g_autoptr(GString) m = g_string_new(NULL);
            hwm_append_decimal(m, v, k->scale);
            g_string_append(m, " is outside ");
            hwm_append_decimal(m, k->min, k->scale);
            g_string_append(m, "..");
            hwm_append_decimal(m, k->max, k->scale);
            g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE, "%s: key '%s': %s",
                        where, k->key, m->str);
        }
        return false;
    }
    (void)p;
    return true;
}

/* Which of two keys a contradiction between them is blamed on: the given
 * one (the later line if both are), as "FILE:LINE: key 'K' = V", or a
 * derived one with its rule.  Caller frees. */
static char *blame(const HwmProfile *p, const char *a, const char *b)
{
    size_t ia = (size_t)(find_key(a) - keys), ib = (size_t)(find_key(b) - keys);
    size_t i = ia;

    if (p->origin[ib] == HWM_ORIGIN_GIVEN &&
        (p->origin[ia] != HWM_ORIGIN_GIVEN || p->line[ib] > p->line[ia])) {
        i = ib;
    }
    const KeyDef *k = &keys[i];
    g_autoptr(GString) v = g_string_new(NULL);
    hwm_append_decimal(v, fetch(p, k), k->scale);
    if (p->origin[i] == HWM_ORIGIN_GIVEN) {
        return g_strdup_printf("%s:%d: key '%s' = %s", p->source, p->line[i],
                               k->key, v->str);
    }
    return g_strdup_printf("%s: key '%s' = %s (%s%s%s)", p->source, k->key,
                           v->str,
                           p->origin[i] == HWM_ORIGIN_DERIVED ? "derived by "
                           "rule '" : "default",
                           p->origin[i] == HWM_ORIGIN_DERIVED ? p->rule[i] : "",
                           p->origin[i] == HWM_ORIGIN_DERIVED ? "'" : "");
}

/* "a <= b" between two keys of the table, or an error naming the key. */
static bool check_order(const HwmProfile *p, const char *a, const char *b,
                        const char *what, GError **errp)
{
    const KeyDef *ka = find_key(a), *kb = find_key(b);
    if (fetch(p, ka) <= fetch(p, kb)) {
        return true;
    }
    g_autofree char *who = blame(p, a, b);
    g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                "%s contradicts the profile: '%s' must not exceed '%s' (%s)",
                who, a, b, what);
    return false;
}

/* The data-sheet figures a rule reads, checked before any rule runs. */
static bool check_inputs(const HwmProfile *p, GError **errp)
{
    if (p->kind == HWM_KIND_HDD && p->seek_avg_write_ns) {
        return check_order(p, "seek_avg_ms", "seek_avg_write_ms",
                           "a write seek includes the read seek and the "
                           "write settle", errp);
    }
    return true;
}

/* Cross-key rules a single table entry cannot express. */
static bool check_profile(HwmProfile *p, GError **errp)
{
    const char *src = p->source;

    if (p->capacity_bytes % HWM_SECTOR_BYTES) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                    "%s: key 'capacity_bytes': must be a multiple of %u",
                    src, HWM_SECTOR_BYTES);
        return false;
    }
    if (p->kind == HWM_KIND_HDD) {
        if (!check_order(p, "inner_sectors_per_track",
                         "outer_sectors_per_track",
                         "outer tracks are longer", errp)) {
            return false;
        }
        const char *seeks = "keys 'seek_track_to_track_ms' <= 'seek_avg_ms' "
                            "<= 'seek_full_stroke_ms' must hold";
        if (!check_order(p, "seek_track_to_track_ms", "seek_avg_ms", seeks,
                         errp) ||
            !check_order(p, "seek_avg_ms", "seek_full_stroke_ms", seeks,
                         errp)) {
            return false;
        }
        /* the outer zone's media rate carries the sustained rate */
        uint64_t media = (uint64_t)p->outer_sectors_per_track *
                         HWM_SECTOR_BYTES * p->rpm / 60;
        if (p->sustained_bytes_per_s > media) {
            g_autofree char *who = blame(p, "outer_sectors_per_track",
                                         "sustained_mb_s");
            g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                        "%s contradicts the profile: 'sustained_mb_s' "
                        "exceeds the outer zone's media rate "
                        "(outer_sectors_per_track x 512 x rpm / 60 = %"
                        G_GUINT64_FORMAT " bytes/s)", who, media);
            return false;
        }
    }
    if (p->write_cache && p->cache_bytes < 64 * KIB) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                    "%s: key 'cache_mb': write_cache = yes needs a cache "
                    "(cache_mb >= 1)", src);
        return false;
    }
    return true;
}

/* Settle key i if it can be: given keys are settled already; a key with a
 * rule waits until every input is settled.  False with *errp set: it
 * cannot be settled at all (missing, or a derived value out of bounds). */
static bool resolve_key(HwmProfile *p, size_t i, bool *done, bool *progress,
                        GError **errp)
{
    const KeyDef *k = &keys[i];
    uint64_t v;
    const char *why = NULL;

    if (k->rule) {
        for (size_t j = 0; j < G_N_ELEMENTS(k->rule->inputs) &&
                           k->rule->inputs[j]; j++) {
            const KeyDef *in = find_key(k->rule->inputs[j]);
            g_assert(in);
            if (!done[in - keys]) {
                return true;                /* later */
            }
        }
        if (!k->rule->fn) {
            v = fetch(p, find_key(k->rule->inputs[0]));
        }
        if (!k->rule->fn || k->rule->fn(p, &v)) {
            g_autofree char *where = g_strdup_printf(
                "%s: derived by rule '%s'", p->source, k->rule->name);
            if (!check_bounds(p, k, v, where, errp)) {
                return false;
            }
            store(p, k, v);
            p->origin[i] = HWM_ORIGIN_DERIVED;
            p->rule[i] = k->rule->name;
            done[i] = *progress = true;
            return true;
        }
    }
    if (!k->dflt) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                    "%s: missing key '%s' (%s)%s%s%s%s", p->source, k->key,
                    k->help, k->rule ? ": give it, or the data-sheet figures "
                    "rule '" : "", k->rule ? k->rule->name : "",
                    k->rule ? "' derives it " : "",
                    k->rule ? k->rule->how : "");
        return false;
    }
    if (!parse_value(k, k->dflt, &v, &why)) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                    "internal: default of '%s' is bad: %s", k->key, why);
        return false;
    }
    store(p, k, v);
    p->origin[i] = HWM_ORIGIN_DEFAULT;
    done[i] = *progress = true;
    return true;
}

HwmProfile *hwm_profile_parse(const char *text, gsize len, const char *source,
                              GError **errp)
{
    g_autoptr(HwmProfile) p = g_new0(HwmProfile, 1);
    g_autofree bool *seen = g_new0(bool, NKEYS);
    g_autofree int *seen_line = g_new0(int, NKEYS);
    g_auto(GStrv) lines = NULL;
    g_autofree char *copy = NULL;

    p->source = g_strdup(source ? source : "(profile)");
    {
        g_autofree char *base = g_path_get_basename(p->source);
        char *dot = g_str_has_suffix(base, ".profile") ? strrchr(base, '.')
                                                       : NULL;
        if (dot) {
            *dot = '\0';
        }
        p->name = g_strdup(base);
    }
    if (memchr(text, '\0', len)) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                    "%s: contains a NUL byte: not a text profile", p->source);
        return NULL;
    }
    copy = g_strndup(text, len);
    if (!g_utf8_validate(copy, -1, NULL)) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                    "%s: not valid UTF-8 text", p->source);
        return NULL;
    }
    lines = g_strsplit(copy, "\n", -1);

    for (int ln = 0; lines[ln]; ln++) {
        char *line = lines[ln];
        char *hash = strchr(line, '#');
        g_autofree char *where = NULL;

        if (hash) {
            *hash = '\0';
        }
        g_strstrip(line);
        if (!*line) {
            continue;
        }
        char *eq = strchr(line, '=');
        if (!eq) {
            g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                        "%s:%d: expected 'key = value', got '%s'",
                        p->source, ln + 1, line);
            return NULL;
        }
        *eq = '\0';
        char *name = g_strstrip(line);
        char *val = g_strstrip(eq + 1);
        where = g_strdup_printf("%s:%d", p->source, ln + 1);

        const KeyDef *k = find_key(name);
        if (!k) {
            const KeyDef *alt = key_with_other_unit(name);
            if (alt) {
                g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                            "%s: unknown key '%s' (wrong or missing unit? "
                            "the key is '%s')", where, name, alt->key);
            } else {
                g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                            "%s: unknown key '%s'", where, name);
            }
            return NULL;
        }
        size_t idx = (size_t)(k - keys);
        if (seen[idx]) {
            g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                        "%s: key '%s' repeats line %d", where, name,
                        seen_line[idx]);
            return NULL;
        }
        if (!*val) {
            g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                        "%s: key '%s' has no value", where, name);
            return NULL;
        }
        uint64_t v;
        const char *why = NULL;
        if (!parse_value(k, val, &v, &why)) {
            g_autofree char *names =
                k->type == T_ENUM ? allowed_names(k) : NULL;
            if (g_str_equal(why, "too large")) {
                /* past 2^64: say the bound, in the key's unit */
                g_autoptr(GString) max = g_string_new(NULL);
                hwm_append_decimal(max, k->max, k->scale);
                g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                            "%s: key '%s': %s is too large: at most %s",
                            where, name, val, max->str);
                return NULL;
            }
            g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                        "%s: key '%s': bad value '%s': %s%s%s%s", where, name,
                        val, why, names ? " (" : "", names ? names : "",
                        names ? ")" : "");
            return NULL;
        }
        if (!check_bounds(p, k, v, where, errp)) {
            return NULL;
        }
        seen[idx] = true;
        seen_line[idx] = ln + 1;
        store(p, k, v);
    }

    /* the media type decides which keys apply; it must come first */
    size_t type_idx = 0;
    if (!seen[type_idx]) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                    "%s: missing key 'type' (%s)", p->source, keys[0].help);
        return NULL;
    }
    int mask = p->kind == HWM_KIND_HDD ? FOR_HDD : FOR_FLASH;
    g_autofree bool *done = g_new0(bool, NKEYS);
    for (size_t i = 0; i < NKEYS; i++) {
        const KeyDef *k = &keys[i];
        if (!(k->applies & mask)) {
            if (seen[i]) {
                g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                            "%s:%d: key '%s' does not apply to type = %s",
                            p->source, seen_line[i], k->key,
                            kind_names[p->kind]);
                return NULL;
            }
            done[i] = true;
            continue;
        }
        if (seen[i]) {
            p->origin[i] = HWM_ORIGIN_GIVEN;
            p->line[i] = seen_line[i];
            done[i] = true;
        } else if (!k->rule && !k->dflt && !k->required) {
            p->origin[i] = HWM_ORIGIN_UNSET;     /* optional figure */
            done[i] = true;
        }
    }
    /* inputs a derivation rule reads must be coherent before it reads them */
    if (!check_inputs(p, errp)) {
        return NULL;
    }
    /* the rest: a rule once its inputs are settled, else the default */
    for (bool progress = true; progress;) {
        progress = false;
        for (size_t i = 0; i < NKEYS; i++) {
            if (!done[i] && !resolve_key(p, i, done, &progress, errp)) {
                return NULL;
            }
        }
    }
    for (size_t i = 0; i < NKEYS; i++) {
        if (!done[i]) {
            g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                        "internal: rule for '%s' waits on itself", keys[i].key);
            return NULL;
        }
    }
    if (!check_profile(p, errp)) {
        return NULL;
    }
    return g_steal_pointer(&p);
}

bool hwm_read_file(const char *path, gsize max_bytes, char **text,
                   gsize *len, GError **errp)
{
    struct stat st;
    g_autofree char *buf = NULL;
    gsize got = 0;
    bool ok = false;
    /* non-blocking: opening a FIFO with no writer returns at once, so
     * fstat() can refuse it instead of the read hanging */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

    if (fd < 0) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID, "cannot read %s: %s",
                    path, g_strerror(errno));
        return false;
    }
    if (fstat(fd, &st) != 0) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID, "cannot read %s: %s",
                    path, g_strerror(errno));
    } else if (!S_ISREG(st.st_mode)) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID,
                    "%s is not a regular file (a %s): refused", path,
                    S_ISDIR(st.st_mode) ? "directory" :
                    S_ISFIFO(st.st_mode) ? "FIFO" :
                    S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "device" :
                    "socket or other special file");
    } else if ((guint64)st.st_size > max_bytes) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID,
                    "%s is too large: %" G_GUINT64_FORMAT " bytes, at most %"
                    G_GSIZE_FORMAT, path, (guint64)st.st_size, max_bytes);
    } else {
        /* one byte more than allowed: a file that grew is caught too */
        buf = g_malloc((gsize)st.st_size + 2);
        gsize want = (gsize)st.st_size + 1;
        ssize_t n = 1;
        while (got < want && (n = read(fd, buf + got, want - got)) > 0) {
            got += (gsize)n;
        }
        if (n < 0) {
            g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID,
                        "cannot read %s: %s", path, g_strerror(errno));
        } else if (got > (gsize)st.st_size) {
            g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID,
                        "%s changed while it was read", path);
        } else {
            buf[got] = '\0';
            ok = true;
        }
    }
    close(fd);
    if (ok) {
        *text = g_steal_pointer(&buf);
        *len = got;
    }
    return ok;
}

HwmProfile *hwm_profile_load(const char *name_or_path, const char *search_dir,
                             GError **errp)
{
    g_autofree char *path = NULL;
    g_autofree char *text = NULL;
    gsize len = 0;
    GError *local = NULL;

    if (!name_or_path || !*name_or_path) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE, "no profile given");
        return NULL;
    }
    if (strchr(name_or_path, '/') || g_str_has_suffix(name_or_path, ".profile")
        || !search_dir) {
        path = g_strdup(name_or_path);
    } else {
        path = g_strdup_printf("%s/%s.profile", search_dir, name_or_path);
    }
    if (!hwm_read_file(path, HWM_PROFILE_MAX_BYTES, &text, &len, &local)) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE, "profile '%s': %s",
                    name_or_path, local->message);
        g_error_free(local);
        return NULL;
    }
    return hwm_profile_parse(text, len, path, errp);
}

void hwm_profile_free(HwmProfile *p)
{
    if (p) {
        g_free(p->name);
        g_free(p->source);
        g_free(p);
    }
}

const char *hwm_profile_name(const HwmProfile *p)
{
    return p->name;
}

uint64_t hwm_profile_capacity_bytes(const HwmProfile *p)
{
    return p->capacity_bytes;
}

/* Write a value in the key's own unit, exactly (no floating point). */
void hwm_append_decimal(GString *s, uint64_t v, uint64_t scale)
{
    g_string_append_printf(s, "%" G_GUINT64_FORMAT, v / scale);
    uint64_t rem = v % scale;
    if (rem) {
        g_string_append_c(s, '.');
    }
    /* long division: exact for a scale of 2^a x 5^b (10^k, KiB, MiB: every
     * key's), which ends within 64 digits; any other scale is cut there */
    for (int d = 0; rem && d < 64; d++) {
        unsigned __int128 r10 = (unsigned __int128)rem * 10;
        g_string_append_c(s, (char)('0' + (int)(r10 / scale)));
        rem = (uint64_t)(r10 % scale);
    }
}

char *hwm_profile_dump(const HwmProfile *p)
{
    GString *s = g_string_new(NULL);
    int mask = p->kind == HWM_KIND_HDD ? FOR_HDD : FOR_FLASH;

    g_string_append_printf(s, "# profile %s (from %s)\n", p->name, p->source);
    for (size_t i = 0; i < NKEYS; i++) {
        const KeyDef *k = &keys[i];
        if (!(k->applies & mask)) {
            continue;
        }
        uint64_t v = fetch(p, k);
        const char *unit = unit_of(k);
        if (p->origin[i] == HWM_ORIGIN_UNSET) {
            /* an optional data-sheet figure: a comment, so the dump
             * still parses to the same profile */
            g_string_append_printf(s, "# %s: not given    # %s%s%s "
                                   "[unset]\n", k->key, unit,
                                   *unit ? ", " : "", k->help);
            continue;
        }
        g_string_append_printf(s, "%s = ", k->key);
        switch (k->type) {
        case T_ENUM:
            g_string_append(s, k->names[v]);
            break;
        case T_BOOL:
            g_string_append(s, v ? "yes" : "no");
            break;
        default:
            hwm_append_decimal(s, v, k->scale);
        }
        g_string_append_printf(s, "    # %s%s%s ", unit, *unit ? ", " : "",
                               k->help);
        switch ((HwmOrigin)p->origin[i]) {
        case HWM_ORIGIN_GIVEN:
            g_string_append_printf(s, "[given, line %d]\n", p->line[i]);
            break;
        case HWM_ORIGIN_DERIVED:
            g_string_append_printf(s, "[derived: %s]\n", p->rule[i]);
            break;
        default:
            g_string_append(s, "[default]\n");
        }
    }
    return g_string_free(s, FALSE);
}
