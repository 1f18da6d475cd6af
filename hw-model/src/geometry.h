/*
 * Rotating-media mechanics: zoned recording, LBA layout with skew, the seek
 * curve and rotational position.  Pure functions of the geometry and the
 * time the host supplies; integer nanoseconds throughout.
 */
#ifndef HWM_GEOMETRY_H
#define HWM_GEOMETRY_H

#include "profile.h"

/* Rotation is tracked in "phase units": one revolution is PHASE_REV units,
 * so phase(t) = (t * rpm) mod PHASE_REV exactly, with t in ns.
 *
 * Sector boundaries are exact too: on a track of spt sectors, angles are
 * compared in ticks, PHASE_REV * spt to the revolution, so a sector is
 * PHASE_REV ticks, a nanosecond rpm * spt ticks and boundary k sits at
 * k * PHASE_REV.  A boundary passes at a fractional nanosecond; the model
 * times every event at the whole nanosecond at or after its exact instant
 * (the ceiling), and an access starting at time t may start at a boundary
 * that passed less than 1 ns before t.  So an access that ends at a
 * boundary ends at exactly the time the next contiguous access can start
 * there: no rounding ever costs a stream a revolution. */
#define PHASE_REV 60000000000ull

typedef struct {
    uint64_t first_lba;        /* first 512-byte sector of the zone */
    uint64_t sectors;          /* sectors the zone holds */
    uint32_t first_cyl;
    uint32_t cylinders;
    uint32_t spt;              /* sectors per track */
    uint32_t head_skew;        /* sectors a head switch shifts the start */
    uint32_t cyl_skew;         /* sectors a cylinder switch shifts it */
    uint32_t front;            /* sectors before the first LBA */
    uint32_t first_slot;       /* where the zone's sector 0 begins */
    uint32_t lbas_per_track;   /* spt less the spares at a track's end */
} Zone;

typedef struct {
    uint32_t rpm;
    uint32_t heads;
    uint32_t cylinders;
    HwmLayout layout;
    uint32_t band;             /* serpentine band, cylinders */
    uint32_t nzones;
    Zone *zones;
    uint64_t total_sectors;

    /* seek curve (Ruemmler & Wilkes): a + b*sqrt(d) up to `boundary`
     * cylinders, c + e*d beyond; stored as the three points it passes
     * through: track-to-track, the anchor at the boundary (solved so the
     * mean over random seeks is seek_avg_ms, geometry.c) and full stroke */
    uint64_t t2t_ns, anchor_ns, full_ns;
    uint32_t boundary_cyl;
    uint64_t sqrt_boundary;    /* isqrt(boundary << 20) */
    uint64_t write_settle_ns;
    uint64_t head_switch_ns;
    const HwmSeekPoint *seek_points;  /* a measured curve (the profile's
                                         `seek` rows), or NULL */
    uint32_t n_seek_points;
    hwm_ns *short_seek_ns;     /* seek_ns for distances < SHORT_SEEKS: the
                                  write-back search asks for these often */
} Geometry;

#define SHORT_SEEKS 16384u

typedef struct {
    uint32_t cyl;
    uint32_t head;
    uint32_t spt;
    uint32_t lbas;             /* LBAs the track holds: spt less its
                                  spares */
    uint32_t sector;           /* index within the track, LBA order */
    uint32_t slot;             /* angular position where it begins, in
                                  sectors from the track's index (skewed) */
    uint32_t zone;
} Phys;

/* Where the arm is and which way it last wrote. */
typedef struct {
    uint32_t cyl;
    uint32_t head;
} ArmPos;

/* Timing of one media access, by component. */
typedef struct {
    hwm_ns seek_ns;
    hwm_ns rotate_ns;
    hwm_ns transfer_ns;
} MediaTime;

bool hwm_geometry_init(Geometry *g, const HwmProfile *p, GError **errp);
void hwm_geometry_free(Geometry *g);

void hwm_geometry_map(const Geometry *g, uint64_t lba, Phys *out);
hwm_ns hwm_geometry_seek_ns(const Geometry *g, uint32_t distance);
hwm_ns hwm_geometry_rev_ns(const Geometry *g);   /* rounded up */
uint64_t hwm_geometry_phase(const Geometry *g, hwm_ns t);
/* Time from `t` until the head can start at the boundary before `slot` on
 * a track of `spt` sectors, `revs` more revolutions later (0: the first
 * time it can). */
hwm_ns hwm_geometry_wait_ns(const Geometry *g, hwm_ns t, uint32_t slot,
                            uint32_t spt, uint32_t revs);
/* The first slot on a track of `spt` sectors the head can start at from
 * time `t` on: the index order of what it reaches next. */
uint32_t hwm_geometry_next_slot(const Geometry *g, hwm_ns t, uint32_t spt);
/* Duration of `sectors` sectors under the head, rounded up (for accesses
 * not tied to a rotational position: the media-cache log). */
hwm_ns hwm_geometry_xfer_ns(const Geometry *g, uint32_t sectors, uint32_t spt);

/* Arm movement from `from` to `to` (seek or head switch, plus write settle
 * when writing). */
hwm_ns hwm_geometry_position_ns(const Geometry *g, ArmPos from, const Phys *to,
                            bool write);

/* How an access runs (hwm_geometry_access's `how`). */
#define ACC_WRITE        (1u << 0)  /* write settle after positioning */
#define ACC_MISS         (1u << 1)  /* off-track write inhibit: the first
                                       sector is missed once and written
                                       a revolution later */
#define ACC_ZERO_LATENCY (1u << 2)  /* read-on-arrival: on each track, read
                                       from the first requested sector to
                                       come round, then the ones before it */

/*
 * Access `sectors` sectors from `lba` starting at time `t` with the arm at
 * `*arm`.  Follows the data across tracks and zones.  Returns the end time,
 * adds the components to `*mt`, moves `*arm`.
 */
hwm_ns hwm_geometry_access(const Geometry *g, ArmPos *arm, hwm_ns t,
                           uint64_t lba, uint64_t sectors, unsigned how,
                           MediaTime *mt);

/*
 * A read's data goes to the host as it comes off the media (SCSI
 * disconnect/reconnect; ATA and SATA fill the host from the segment as
 * sectors arrive): in LBA order, at the link's rate, a sector once it and
 * every sector before it are in the buffer.  The host's data is
 * [from_lba, end_lba) of what the walk reads (sectors before from_lba are
 * in already); `done` holds the earliest the transfer can end (when the
 * host is ready for data, plus the whole transfer) and gets when its last
 * byte reaches the host.
 */
typedef struct {
    uint64_t from_lba, end_lba;
    uint64_t link_bytes_per_s;
    uint64_t reconnect_lba;    /* the drive sends nothing before this
                                  sector is in (a reconnect ratio), then
                                  all of it; from_lba: at once */
    hwm_ns done;
} HostStream;

/* Link time of `bytes`, rounded up.  128 bits: bytes * 10^9 passes 2^64
 * from 18.4 GB on; the quotient stays below 2^62 ns up to 4.6 PB at the
 * slowest link a profile allows (1 MB/s). */
static inline hwm_ns hwm_link_ns(uint64_t bytes_per_s, uint64_t bytes)
{
    return (hwm_ns)(((unsigned __int128)bytes * 1000000000u +
                     bytes_per_s - 1) / bytes_per_s);
}

/* hwm_geometry_access() for a read whose data streams to the host (`hs`). */
hwm_ns hwm_geometry_read_streamed(const Geometry *g, ArmPos *arm, hwm_ns t,
                                  uint64_t lba, uint64_t sectors, unsigned how,
                                  MediaTime *mt, HostStream *hs);

/*
 * A read of up to `sectors` sectors from `lba`, begun at time `t` with the
 * arm at `*arm`, that stops at `stop`: how many whole sectors are read by
 * then.  `*arm` is left where the head is.  The read-ahead uses it to know
 * how far it got when a command interrupts it.
 */
uint64_t hwm_geometry_sectors_by(const Geometry *g, ArmPos *arm, hwm_ns t,
                                 uint64_t lba, uint64_t sectors, hwm_ns stop);

/* A write whose data is still coming in over the link: all of it is in
 * at `data_in` (0: in already).  The head may not write a sector before it
 * has arrived; the data comes at least as fast as the medium takes it or
 * it does not, so the write begins no earlier than `data_in` less the
 * time the medium takes for the whole write, and the wait is the link's
 * (transfer_ns). */
hwm_ns hwm_geometry_write_fed(const Geometry *g, ArmPos *arm, hwm_ns t,
                              uint64_t lba, uint64_t sectors, unsigned how,
                              hwm_ns data_in, MediaTime *mt);

/* Positioning time only (seek + rotation to the first sector), for a
 * write also the wait for its data (hwm_geometry_write_fed()). */
hwm_ns hwm_geometry_access_cost(const Geometry *g, ArmPos arm, hwm_ns t,
                                uint64_t lba, uint64_t sectors, bool write,
                                hwm_ns data_in);

#endif
