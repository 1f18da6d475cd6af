/*
 * The data-sheet derivation rules of the profile keys (profile-table.h).
 *
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
#include "profile-table.h"

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

/* segments-from-class: a desktop drive keeps write data in the buffer
 * segments its reads use.  Seagate's product manuals say so in "Caching
 * write data": "The same buffer space and segmentation is used as set up
 * for read functions", and a segment's data "that has not yet been
 * written to the medium" is never overwritten; so the cache holds at most
 * one dirty range per segment, and a write that needs another waits for a
 * write-back.  DiskSim's disk model has the same limit ("Maximum number of
 * write segments"), which DIXtrac measures on a drive (one, on the Quantum
 * Atlas 10K: atlas10k.diskspecs, benh/disksim valid/).  Enterprise drives
 * keep the class default (4096): the calibrated ST20000NM007D reproduces
 * the seed's random FUA cells only with a cache of many dirty extents
 * (docs/calibration.md).  No read segments: the default too. */
static bool rule_cache_segments(const HwmProfile *p, uint64_t *out)
{
    if (p->drive_class != HWM_CLASS_DESKTOP || !p->read_segments) {
        return false;
    }
    *out = p->read_segments;
    return true;
}

/* write-cache-from-class: in the segments reads use (above), a write
 * longer than its segment wraps within it, and the drive "does not
 * overwrite data that has not yet been written to the medium" (the same
 * Seagate manuals): what dirty data can fill is the segments, read_segments
 * x read_segment_kb, not the whole buffer.  Any other drive: all of it. */
static bool rule_write_cache(const HwmProfile *p, uint64_t *out)
{
    *out = p->cache_bytes;
    if (p->drive_class == HWM_CLASS_DESKTOP && p->read_segments) {
        *out = MIN(p->cache_bytes,
                   (uint64_t)p->read_segments * p->read_segment_bytes);
    }
    return true;
}

const Rule hwm_rule_write_cache = { "write-cache-from-class",
    { "drive_class", "cache_mb", "read_segments", "read_segment_kb", NULL },
    rule_write_cache, "as cache_mb, or read_segments x read_segment_kb for "
    "drive_class = desktop" };
const Rule hwm_rule_cache_segments = { "segments-from-class",
    { "drive_class", "read_segments", NULL }, rule_cache_segments,
    "as read_segments for drive_class = desktop" };
const Rule hwm_rule_heads = { "heads-from-density",
    { "capacity_bytes", "rpm", "form_factor", "sustained_mb_s", NULL },
    rule_heads, "from capacity_bytes, form_factor and sustained_mb_s" };
const Rule hwm_rule_outer_spt = { "spt-from-sustained",
    { "sustained_mb_s", "rpm", "heads", "layout", "serpentine_band_cylinders",
      "head_switch_ms", "seek_track_to_track_ms", "write_settle_ms" },
    rule_outer_spt, "from sustained_mb_s and rpm" };
const Rule hwm_rule_inner_spt = { "spt-inner-ratio",
    { "outer_sectors_per_track", "form_factor", NULL },
    rule_inner_spt, "from outer_sectors_per_track and form_factor" };
const Rule hwm_rule_t2t = { "t2t-from-avg", { "seek_avg_ms", NULL },
    rule_t2t, "as seek_avg_ms / 10" };
const Rule hwm_rule_full = { "full-from-avg", { "seek_avg_ms", NULL },
    rule_full_stroke, "as 1.8 x seek_avg_ms" };
const Rule hwm_rule_head_switch = { "head-switch-t2t",
    { "seek_track_to_track_ms", NULL }, rule_head_switch,
    "as seek_track_to_track_ms" };
const Rule hwm_rule_write_settle = { "settle-from-write-seek",
    { "seek_avg_write_ms", "seek_avg_ms", NULL }, rule_write_settle,
    "as seek_avg_write_ms - seek_avg_ms" };
const Rule hwm_rule_overhead = { "overhead-hdd", { "type", NULL },
    rule_overhead, "for type = hdd" };
const Rule hwm_rule_kind_overhead = { "overhead-by-kind",
    { "command_overhead_us", NULL }, NULL, "as command_overhead_us" };
/* [HwmOverheadKind] */
const Rule hwm_rule_after_write[HWM_OVH_KINDS] = {
    { "overhead-after-write", { "read_hit_overhead_us", NULL }, NULL,
      "as read_hit_overhead_us" },
    { "overhead-after-write", { "read_miss_overhead_us", NULL }, NULL,
      "as read_miss_overhead_us" },
    { "overhead-after-write", { "write_hit_overhead_us", NULL }, NULL,
      "as write_hit_overhead_us" },
    { "overhead-after-write", { "write_miss_overhead_us", NULL }, NULL,
      "as write_miss_overhead_us" },
};
const Rule hwm_rule_read_segment = { "rseg-from-cache",
    { "cache_mb", "read_segments", NULL }, rule_read_segment,
    "as cache_mb / 4 / read_segments" };
const Rule hwm_rule_queue_depth = { "queue-from-interface",
    { "interface", NULL }, rule_queue_depth, "from interface" };
const Rule hwm_rule_flush = { "flush-from-interface", { "interface", NULL },
    rule_flush, "from interface" };
const Rule hwm_rule_queue_window = { "window-from-queue",
    { "queue_depth", NULL }, rule_queue_window, "as queue_depth" };
const Rule hwm_rule_writeback_window = { "wb-window-from-segments",
    { "cache_segments", NULL }, rule_writeback_window, "as cache_segments" };
