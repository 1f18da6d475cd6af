/*
 * Zoned recording, LBA layout and the seek curve.  The seek curve is the
 * Ruemmler & Wilkes shape (a + b sqrt(d) up to a third of the stroke,
 * linear beyond) through the three figures drive data sheets give:
 * track-to-track and full stroke are its end points, and its value at a
 * third of the stroke (the anchor) is solved so that its mean over random
 * seeks is the data sheet's average.
 */
#include <math.h>

#include "geometry.h"

/* Exact integer square root.  The double is only a first guess: the
 * result is corrected with integer arithmetic, so it is the same on every
 * machine. */
static uint64_t isqrt64(uint64_t x)
{
    uint64_t r = (uint64_t)sqrt((double)x);
    while (r > 0 && (r > UINT32_MAX || r * r > x)) {
        r--;
    }
    while (r + 1 <= UINT32_MAX && (r + 1) * (r + 1) <= x) {
        r++;
    }
    return r;
}

static hwm_ns seek_curve_ns(const Geometry *g, uint32_t d);

/* Far beyond any drive (a 20 TB drive has about 560,000), and small enough
 * that solve_anchor()'s exact sums fit in 128 bits. */
#define MAX_CYLINDERS (1u << 24)

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return a / b + (a % b != 0);
}

/*
 * The anchor: the seek over boundary_cyl cylinders, chosen so that the
 * curve's mean over random seeks is the profile's seek_avg_ms.  Data sheets
 * define the average seek that way (Hitachi OEM specifications, e.g.
 * Deskstar 7K1000.C 4.5.2.1: "the weighted average of all possible seek
 * combinations"): start and end cylinder uniform and distinct, so a seek
 * of d cylinders (0 < d < N) has weight N - d.  The curve is linear in the
 * anchor A: below the boundary t(d) = t2t + (A - t2t) u(d), with
 * u(d) = (isqrt(d << 20) - 1024) / Du; above it t(d) = A + (F - A) k / K,
 * with k = d - B and K = N - 1 - B.  So with
 *     W1 = sum over d <= B of (N - d),   U = sum of (N - d)(isqrt(d<<20) - 1024),
 *     W2 = sum over k of (K + 1 - k) = K(K+1)/2,
 *     V  = sum over k of (K + 1 - k) k = K(K+1)(K+2)/6,
 * the weighted sum is t2t (W1 - U/Du) + A (U/Du + W2 - V/K) + F V/K, and
 * setting it to avg (W1 + W2), times Du K, gives A exactly as a ratio of
 * integers, rounded to the nearest ns.  U sums by value of the square
 * root: about 1024 sqrt(B) terms, a few hundred thousand on real drives.
 * The curve the model then evaluates floors each seek to the ns, so its
 * mean is below seek_avg_ms by less than 1 ns.
 */
static bool solve_anchor(Geometry *g, const HwmProfile *p, GError **errp)
{
    typedef __int128 i128;
    const uint64_t n = g->cylinders, b = g->boundary_cyl;
    const uint64_t du = g->sqrt_boundary - 1024, k = n - 1 - b;
    i128 w1 = 0, u = 0;

    /* isqrt(d << 20) = r for d in [ceil(r^2 / 2^20), ceil((r+1)^2 / 2^20)) */
    for (uint64_t r = 1024; r <= g->sqrt_boundary; r++) {
        uint64_t lo = ceil_div(r * r, 1u << 20);
        uint64_t hi = MIN(ceil_div((r + 1) * (r + 1), 1u << 20), b + 1);
        if (lo >= hi) {
            continue;
        }
        /* sum of (n - d) for d in [lo, hi) */
        i128 w = (i128)(hi - lo) * n - (i128)(lo + hi - 1) * (hi - lo) / 2;
        w1 += w;
        u += w * (i128)(r - 1024);
    }
    i128 w2 = (i128)k * (k + 1) / 2;
    i128 v = (i128)k * (k + 1) * (k + 2) / 6;
    i128 num = (i128)p->seek_avg_ns * (w1 + w2) * du * k -
               (i128)g->t2t_ns * (w1 * du - u) * k -
               (i128)g->full_ns * v * du;
    i128 den = u * k + w2 * du * k - v * du;   /* > 0: K >= 2, W2 K > V */
    i128 a = num < 0 ? -1 : (num + den / 2) / den;

    if (a < (i128)g->t2t_ns || a > (i128)g->full_ns) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                    "%s: key 'seek_avg_ms' (%" G_GUINT64_FORMAT " ns) cannot "
                    "be the mean seek of a curve from 'seek_track_to_track_ms'"
                    " to 'seek_full_stroke_ms': its value at a third of the "
                    "stroke would fall outside them", p->source,
                    p->seek_avg_ns);
        return false;
    }
    g->anchor_ns = (uint64_t)a;
    return true;
}

/* Sectors a delay of `ns` sweeps past on a track of `spt` sectors, rounded
 * up so the next track starts after the switch is over. */
static uint32_t skew_sectors(uint64_t ns, uint32_t spt, uint32_t rpm)
{
    unsigned __int128 units = (unsigned __int128)ns * rpm * spt;
    uint64_t s = (uint64_t)(units / PHASE_REV) + (units % PHASE_REV != 0);
    return (uint32_t)(s % spt);
}

static bool init_measured_zones(Geometry *g, const HwmProfile *p,
                                GError **errp);
static bool init_seek(Geometry *g, const HwmProfile *p, GError **errp);

bool hwm_geometry_init(Geometry *g, const HwmProfile *p, GError **errp)
{
    uint64_t cap = p->capacity_bytes / HWM_SECTOR_BYTES;
    uint64_t sum_spt = 0;

    *g = (Geometry){ .rpm = p->rpm, .heads = p->heads, .layout = p->layout,
                     .band = p->serpentine_band_cylinders,
                     .nzones = p->zones,
                     .t2t_ns = p->seek_track_to_track_ns,
                     .full_ns = p->seek_full_stroke_ns,
                     .write_settle_ns = p->write_settle_ns,
                     .head_switch_ns = p->head_switch_ns };
    if (p->n_zone_rows) {
        return init_measured_zones(g, p, errp) && init_seek(g, p, errp);
    }
    g->zones = g_new0(Zone, g->nzones);
    for (uint32_t z = 0; z < g->nzones; z++) {
        uint32_t drop = p->outer_sectors_per_track - p->inner_sectors_per_track;
        g->zones[z].spt = p->outer_sectors_per_track -
            (g->nzones > 1 ?
             (uint32_t)((uint64_t)drop * z / (g->nzones - 1)) : 0);
        sum_spt += g->zones[z].spt;
    }
    /* equal cylinders per zone, enough to hold the capacity */
    uint64_t cpz = ceil_div(cap, sum_spt * g->heads);
    if (cpz * g->nzones > MAX_CYLINDERS || cpz < 1) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                    "%s: capacity_bytes needs %" G_GUINT64_FORMAT
                    " cylinders per zone: not a plausible geometry",
                    p->source, cpz);
        hwm_geometry_free(g);
        return false;
    }
    uint64_t lba = 0;
    for (uint32_t z = 0; z < g->nzones; z++) {
        Zone *zn = &g->zones[z];
        uint64_t track = (uint64_t)zn->spt;
        zn->first_lba = lba;
        zn->first_cyl = (uint32_t)(cpz * z);
        zn->cylinders = (uint32_t)cpz;
        zn->sectors = MIN(cap - lba, cpz * g->heads * track);
        zn->lbas_per_track = zn->spt;
        /* skew so a sequential transfer crossing a track boundary finds its
         * next sector just arriving, even when writing */
        zn->head_skew = skew_sectors(p->head_switch_ns + p->write_settle_ns,
                                     zn->spt, p->rpm);
        zn->cyl_skew = skew_sectors(p->seek_track_to_track_ns +
                                    p->write_settle_ns, zn->spt, p->rpm);
        lba += zn->sectors;
    }
    g->total_sectors = cap;
    g->cylinders = (uint32_t)(cpz * g->nzones);
    return init_seek(g, p, errp);
}

/* The zones as the profile's `zone` rows measured them: each zone's LBAs
 * start after its front sectors and stop short of its spares (DiskSim's
 * g1 layout keeps its spares in the zone, by schemes this does not tell
 * apart: a spare's place shifts an LBA by at most the zone's spares). */
static bool init_measured_zones(Geometry *g, const HwmProfile *p,
                                GError **errp)
{
    uint64_t cap = p->capacity_bytes / HWM_SECTOR_BYTES;
    uint64_t lba = 0;

    g->nzones = p->n_zone_rows;
    g->zones = g_new0(Zone, g->nzones);
    for (uint32_t z = 0; z < g->nzones; z++) {
        const HwmZoneRow *r = &p->zone_rows[z];
        Zone *zn = &g->zones[z];
        uint64_t cyls = (uint64_t)r->last_cyl - r->first_cyl + 1;
        uint32_t per = r->sectors_per_track - r->track_spare_sectors;
        uint64_t held = cyls * g->heads * per - r->front_sectors -
                        r->spare_sectors;

        zn->spt = r->sectors_per_track;
        zn->first_lba = lba;
        zn->first_cyl = r->first_cyl;
        zn->cylinders = (uint32_t)cyls;
        zn->sectors = MIN(cap - lba, held);
        zn->head_skew = r->track_skew_sectors;
        zn->cyl_skew = r->cylinder_skew_sectors;
        zn->front = r->front_sectors;
        zn->first_slot = r->first_block_slot;
        zn->lbas_per_track = per;
        lba += zn->sectors;
    }
    g->total_sectors = cap;
    g->cylinders = p->zone_rows[g->nzones - 1].last_cyl + 1;
    if (g->cylinders > MAX_CYLINDERS) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                    "%s: the zone rows end at cylinder %u: more than %u "
                    "cylinders", p->source, g->cylinders - 1, MAX_CYLINDERS);
        hwm_geometry_free(g);
        return false;
    }
    return true;
}

/* The seek curve: the measured points when the profile has them, else the
 * data-sheet curve through its anchor. */
static bool init_seek(Geometry *g, const HwmProfile *p, GError **errp)
{
    if (g->cylinders < 7) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_PROFILE,
                    "%s: only %u cylinders: too few for a seek curve "
                    "(raise capacity_bytes or lower sectors per track)",
                    p->source, g->cylinders);
        hwm_geometry_free(g);
        return false;
    }
    g->boundary_cyl = (g->cylinders - 1) / 3;
    g->sqrt_boundary = isqrt64((uint64_t)g->boundary_cyl << 20);
    g->seek_points = p->seek_points;
    g->n_seek_points = p->n_seek_points;
    if (!g->seek_points && !solve_anchor(g, p, errp)) {
        hwm_geometry_free(g);
        return false;
    }
    g->short_seek_ns = g_new(hwm_ns, SHORT_SEEKS);
    for (uint32_t d = 0; d < SHORT_SEEKS; d++) {
        g->short_seek_ns[d] = seek_curve_ns(g, d);
    }
    return true;
}

void hwm_geometry_free(Geometry *g)
{
    g_clear_pointer(&g->zones, g_free);
    g_clear_pointer(&g->short_seek_ns, g_free);
}

/* Linear between the measured points that bracket d, the last point's
 * time beyond it. */
static hwm_ns seek_measured_ns(const Geometry *g, uint32_t d)
{
    const HwmSeekPoint *pt = g->seek_points;
    uint32_t lo = 0, hi = g->n_seek_points - 1;

    if (d >= pt[hi].distance_cyl) {
        return (hwm_ns)pt[hi].time_ns;
    }
    while (hi - lo > 1) {           /* pt[lo].d <= d < pt[hi].d */
        uint32_t mid = lo + (hi - lo) / 2;
        if (pt[mid].distance_cyl <= d) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    uint64_t span = pt[hi].distance_cyl - pt[lo].distance_cyl;
    uint64_t k = d - pt[lo].distance_cyl;
    if (pt[hi].time_ns >= pt[lo].time_ns) {
        return (hwm_ns)(pt[lo].time_ns +
                        (pt[hi].time_ns - pt[lo].time_ns) * k / span);
    }
    return (hwm_ns)(pt[lo].time_ns -
                    (pt[lo].time_ns - pt[hi].time_ns) * k / span);
}

static hwm_ns seek_curve_ns(const Geometry *g, uint32_t d)
{
    if (d == 0) {
        return 0;
    }
    if (g->seek_points) {
        return seek_measured_ns(g, d);
    }
    if (d <= g->boundary_cyl) {
        /* a + b*sqrt(d) through (1, t2t) and (boundary, anchor) */
        uint64_t sq = isqrt64((uint64_t)d << 20);
        return (hwm_ns)(g->t2t_ns + (g->anchor_ns - g->t2t_ns) * (sq - 1024) /
                                    (g->sqrt_boundary - 1024));
    }
    /* c + e*d through (boundary, anchor) and (full stroke, full) */
    uint64_t span = (uint64_t)(g->cylinders - 1) - g->boundary_cyl;
    return (hwm_ns)(g->anchor_ns + (g->full_ns - g->anchor_ns) *
                                   (uint64_t)(d - g->boundary_cyl) / span);
}

hwm_ns hwm_geometry_rev_ns(const Geometry *g)
{
    return (hwm_ns)ceil_div(PHASE_REV, g->rpm);
}

uint64_t hwm_geometry_phase(const Geometry *g, hwm_ns t)
{
    return ((uint64_t)t % PHASE_REV) * g->rpm % PHASE_REV;
}

/* How far past the boundary before `slot` the head is at `t`, in ticks
 * (geometry.h), in [0, one revolution). */
static uint64_t ticks_past(const Geometry *g, hwm_ns t, uint32_t slot,
                           uint32_t spt)
{
    uint64_t rev = PHASE_REV * spt;
    uint64_t at = hwm_geometry_phase(g, t) * spt;
    uint64_t b = (uint64_t)slot * PHASE_REV;
    return at >= b ? at - b : at + rev - b;
}

hwm_ns hwm_geometry_wait_ns(const Geometry *g, hwm_ns t, uint32_t slot,
                            uint32_t spt, uint32_t revs)
{
    uint64_t rev = PHASE_REV * spt;
    uint64_t per_ns = (uint64_t)g->rpm * spt;
    uint64_t past = ticks_past(g, t, slot, spt);
    /* a boundary that passed less than 1 ns ago is still reachable now:
     * t is the ceiling of the instant the previous access ended there */
    uint64_t passes = past < per_ns ? revs : (uint64_t)revs + 1;
    return passes == 0 ? 0 : (hwm_ns)ceil_div(passes * rev - past, per_ns);
}

uint32_t hwm_geometry_next_slot(const Geometry *g, hwm_ns t, uint32_t spt)
{
    uint64_t per_ns = (uint64_t)g->rpm * spt;
    uint64_t at = hwm_geometry_phase(g, t) * spt;
    /* the first boundary k * PHASE_REV with at - k * PHASE_REV < per_ns */
    uint64_t k = at + 1 > per_ns ? ceil_div(at + 1 - per_ns, PHASE_REV) : 0;
    return (uint32_t)(k % spt);
}

hwm_ns hwm_geometry_xfer_ns(const Geometry *g, uint32_t sectors, uint32_t spt)
{
    unsigned __int128 units = (unsigned __int128)PHASE_REV * sectors;
    unsigned __int128 per_rpm = (unsigned __int128)spt * g->rpm;
    return (hwm_ns)((units + per_rpm - 1) / per_rpm);
}

hwm_ns hwm_geometry_seek_ns(const Geometry *g, uint32_t d)
{
    return d < SHORT_SEEKS ? g->short_seek_ns[d] : seek_curve_ns(g, d);
}

static uint32_t find_zone(const Geometry *g, uint64_t lba)
{
    uint32_t lo = 0, hi = g->nzones - 1;
    while (lo < hi) {
        uint32_t mid = (lo + hi + 1) / 2;
        if (g->zones[mid].first_lba <= lba) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    return lo;
}

void hwm_geometry_map(const Geometry *g, uint64_t lba, Phys *out)
{
    uint32_t z = find_zone(g, lba);
    const Zone *zn = &g->zones[z];
    uint64_t off = lba - zn->first_lba + zn->front;
    uint64_t track = off / zn->lbas_per_track;
    uint64_t head_switches;
    uint32_t cyl_in_zone;

    out->zone = z;
    out->spt = zn->spt;
    out->lbas = zn->lbas_per_track;
    out->sector = (uint32_t)(off % zn->lbas_per_track);
    if (g->layout == HWM_LAYOUT_CYLINDER) {
        cyl_in_zone = (uint32_t)(track / g->heads);
        out->head = (uint32_t)(track % g->heads);
        head_switches = track - cyl_in_zone;
    } else {
        /* serpentine: one head sweeps a band of cylinders, the next head
         * sweeps it back, and so on; then the next band */
        uint64_t per_band = (uint64_t)g->heads * g->band;
        uint64_t b = track / per_band;
        uint32_t band_cyls = MIN(g->band,
                                 zn->cylinders - (uint32_t)(b * g->band));
        uint64_t r = track - b * per_band;
        uint32_t h = (uint32_t)(r / band_cyls);
        uint32_t pos = (uint32_t)(r % band_cyls);
        out->head = h;
        cyl_in_zone = (uint32_t)(b * g->band) +
                      (h % 2 == 0 ? pos : band_cyls - 1 - pos);
        head_switches = b * (g->heads - 1) + h;
    }
    out->cyl = zn->first_cyl + cyl_in_zone;
    uint64_t cyl_switches = track - head_switches;
    uint64_t skew = (head_switches % zn->spt) * zn->head_skew +
                    (cyl_switches % zn->spt) * zn->cyl_skew;
    out->slot = (uint32_t)((out->sector + skew + zn->first_slot) % zn->spt);
}

hwm_ns hwm_geometry_position_ns(const Geometry *g, ArmPos from, const Phys *to,
                            bool write)
{
    uint32_t d = from.cyl > to->cyl ? from.cyl - to->cyl : to->cyl - from.cyl;
    hwm_ns t;

    if (d > 0) {
        t = hwm_geometry_seek_ns(g, d);
    } else if (from.head != to->head) {
        t = (hwm_ns)g->head_switch_ns;
    } else {
        return 0;
    }
    return t + (write ? (hwm_ns)g->write_settle_ns : 0);
}

/* The earliest a write fed by the link may begin on the medium: its data
 * is all in by `data_in`, and the medium takes `sectors` sectors of the
 * first track's length in no less than their time under the head. */
static hwm_ns fed_start(const Geometry *g, const Phys *ph, uint64_t sectors,
                        hwm_ns data_in)
{
    hwm_ns media = hwm_geometry_xfer_ns(g, (uint32_t)MIN(sectors, UINT32_MAX),
                                        ph->spt);
    return data_in > media ? data_in - media : 0;
}

hwm_ns hwm_geometry_access_cost(const Geometry *g, ArmPos arm, hwm_ns t,
                                uint64_t lba, uint64_t sectors, bool write,
                                hwm_ns data_in)
{
    Phys ph;
    hwm_geometry_map(g, lba, &ph);
    hwm_ns pos = hwm_geometry_position_ns(g, arm, &ph, write);
    hwm_ns arrive = t + pos;
    if (write && data_in) {
        arrive = MAX(arrive, fed_start(g, &ph, sectors, data_in));
    }
    return arrive - t + hwm_geometry_wait_ns(g, arrive, ph.slot, ph.spt, 0);
}

/*
 * The one walk over the data, track by track, behind both
 * hwm_geometry_access() (stop = HWM_NEVER) and hwm_geometry_sectors_by().
 * Every start and end is the ceiling of an exact boundary instant, so
 * consecutive chunks and consecutive accesses chain without loss.
 */
/*
 * The host's part of one track's chunk (HostStream): sectors [lba, lba+n)
 * of the chunk, read from index j (zero-latency; 0: in order) starting at
 * `start`, `past` ticks after that boundary.  A sector is ready for the
 * host when it and all before it are in, so the transfer ends no earlier
 * than any sector's readiness plus the link time of it and what follows.
 * Within a run of sectors read in order that sum is linear in the sector,
 * so its ends bound it; read out of order, the sectors from j on are ready
 * when sector j-1 is, which the run [.., j-1] covers.
 */
static void stream_chunk(const Phys *ph, uint64_t lba, uint32_t n, uint32_t j,
                         hwm_ns start, uint64_t past, uint64_t per_ns,
                         HostStream *hs)
{
    uint64_t lo = MAX(lba, hs->from_lba), hi = MIN(lba + n, hs->end_lba);
    if (lo >= hi) {
        return;
    }
    uint32_t first = (uint32_t)(lo - lba), last = (uint32_t)(hi - 1 - lba);
    if (j > 0 && first < j) {
        last = MIN(last, j - 1);
    }
    uint32_t ends[3] = { first, last, 0 };
    int nends = 2;
    if (hs->reconnect_lba > hs->from_lba && hs->reconnect_lba >= lba &&
        hs->reconnect_lba < lba + n) {
        ends[nends++] = (uint32_t)(hs->reconnect_lba - lba);
    }
    for (int k = 0; k < nends; k++) {
        uint32_t i = ends[k];
        /* the boundary after sector i, counted from where reading began */
        uint64_t b = i >= j ? i - j + 1 : ph->spt - j + i + 1;
        hwm_ns in = start + (hwm_ns)ceil_div(b * PHASE_REV - past, per_ns);
        uint64_t rest = hs->end_lba - (lba + i);
        if (k == 2) {
            /* the reconnect: the host's data goes from its first sector */
            rest = hs->end_lba - hs->from_lba;
        }
        hs->done = MAX(hs->done, in + hwm_link_ns(hs->link_bytes_per_s,
                                                 rest * HWM_SECTOR_BYTES));
    }
}

static hwm_ns walk(const Geometry *g, ArmPos *arm, hwm_ns t, uint64_t lba,
                   uint64_t sectors, unsigned how, hwm_ns stop,
                   hwm_ns data_in, uint64_t *done, MediaTime *mt,
                   HostStream *hs)
{
    bool write = how & ACC_WRITE;
    uint32_t miss = (how & ACC_MISS) ? 1 : 0;

    *done = 0;
    while (sectors > 0) {
        Phys ph;
        hwm_geometry_map(g, lba, &ph);
        uint32_t n = (uint32_t)MIN(sectors, (uint64_t)(ph.lbas - ph.sector));
        uint64_t per_ns = (uint64_t)g->rpm * ph.spt;
        hwm_ns pos = hwm_geometry_position_ns(g, *arm, &ph, write);
        hwm_ns arrive = t + pos;
        if (data_in) {
            /* the first track waits for the data the link still brings */
            hwm_ns fed = fed_start(g, &ph, sectors, data_in);
            if (fed > arrive) {
                mt->transfer_ns += fed - arrive;
                arrive = fed;
            }
            data_in = 0;
        }
        uint32_t first = ph.slot;     /* where reading starts */
        uint32_t j = 0;               /* its index within the chunk */

        arm->cyl = ph.cyl;
        arm->head = ph.head;
        if ((how & ACC_ZERO_LATENCY) && !miss) {
            uint32_t k = hwm_geometry_next_slot(g, arrive, ph.spt);
            uint32_t off = (k + ph.spt - ph.slot) % ph.spt;
            if (off < n) {
                first = k;
                j = off;
            }
        }
        hwm_ns wait = hwm_geometry_wait_ns(g, arrive, first, ph.spt, miss);
        hwm_ns start = arrive + wait;
        uint64_t past = ticks_past(g, start, first, ph.spt);
        g_assert(past < per_ns);
        hwm_ns xfer = (hwm_ns)ceil_div((uint64_t)n * PHASE_REV - past, per_ns);
        hwm_ns end = start + xfer;
        if (j > 0) {
            /* read sectors j.. to the chunk's end, pass the gap, read the
             * ones before j: back at `first` one revolution later */
            end = start + (hwm_ns)ceil_div(PHASE_REV * ph.spt - past, per_ns);
            xfer = MIN(xfer, end - start);
        }
        if (end > stop) {
            /* whole sectors read by `stop` (a read-ahead; never
             * zero-latency), exactly: boundary i is at start - past/per_ns
             * + i * PHASE_REV / per_ns */
            uint64_t got = 0;
            if (stop >= start) {
                got = ((uint64_t)(stop - start) * per_ns + past) / PHASE_REV;
            }
            *done += MIN(got, (uint64_t)n);
            return stop;
        }
        if (hs) {
            stream_chunk(&ph, lba, n, j, start, past, per_ns, hs);
        }
        mt->seek_ns += pos;
        mt->rotate_ns += wait + (end - start - xfer);
        mt->transfer_ns += xfer;
        miss = 0;
        t = end;
        lba += n;
        sectors -= n;
        *done += n;
    }
    return t;
}

hwm_ns hwm_geometry_access(const Geometry *g, ArmPos *arm, hwm_ns t,
                           uint64_t lba, uint64_t sectors, unsigned how,
                           MediaTime *mt)
{
    uint64_t done;
    return walk(g, arm, t, lba, sectors, how, HWM_NEVER, 0, &done, mt, NULL);
}

hwm_ns hwm_geometry_write_fed(const Geometry *g, ArmPos *arm, hwm_ns t,
                              uint64_t lba, uint64_t sectors, unsigned how,
                              hwm_ns data_in, MediaTime *mt)
{
    uint64_t done;
    return walk(g, arm, t, lba, sectors, how, HWM_NEVER, data_in, &done, mt,
                NULL);
}

hwm_ns hwm_geometry_read_streamed(const Geometry *g, ArmPos *arm, hwm_ns t,
                                  uint64_t lba, uint64_t sectors, unsigned how,
                                  MediaTime *mt, HostStream *hs)
{
    uint64_t done;
    return walk(g, arm, t, lba, sectors, how, HWM_NEVER, 0, &done, mt, hs);
}

uint64_t hwm_geometry_sectors_by(const Geometry *g, ArmPos *arm, hwm_ns t,
                                 uint64_t lba, uint64_t sectors, hwm_ns stop)
{
    MediaTime mt = { 0 };
    uint64_t done;
    walk(g, arm, t, lba, sectors, 0, stop, 0, &done, &mt, NULL);
    return done;
}
