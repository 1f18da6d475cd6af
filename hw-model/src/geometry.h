/*
 * Rotating-media mechanics: zoned recording, LBA layout with skew, the seek
 * curve and rotational position.  Pure functions of the geometry and the
 * time the host supplies; integer nanoseconds throughout.
 */
#ifndef HWM_GEOMETRY_H
#define HWM_GEOMETRY_H

#include "profile.h"

/* Rotation is tracked in "phase units": one revolution is PHASE_REV units,
 * so phase(t) = (t * rpm) mod PHASE_REV exactly, with t in ns. */
#define PHASE_REV 60000000000ull

typedef struct {
    uint64_t first_lba;        /* first 512-byte sector of the zone */
    uint64_t sectors;          /* sectors the zone holds */
    uint32_t first_cyl;
    uint32_t cylinders;
    uint32_t spt;              /* sectors per track */
    uint32_t head_skew;        /* sectors a head switch shifts the start */
    uint32_t cyl_skew;         /* sectors a cylinder switch shifts it */
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
     * cylinders, c + e*d beyond; stored as the three spec points it
     * passes through */
    uint64_t t2t_ns, avg_ns, full_ns;
    uint32_t boundary_cyl;
    uint64_t sqrt_boundary;    /* isqrt(boundary << 20) */
    uint64_t write_settle_ns;
    uint64_t head_switch_ns;
    hwm_ns *short_seek_ns;     /* seek_ns for distances < SHORT_SEEKS: the
                                  write-back search asks for these often */
} Geometry;

#define SHORT_SEEKS 16384u

typedef struct {
    uint32_t cyl;
    uint32_t head;
    uint32_t spt;
    uint32_t sector;           /* index within the track, LBA order */
    uint64_t start_phase;      /* angle where this sector begins */
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
hwm_ns hwm_geometry_wait_ns(const Geometry *g, uint64_t from_phase,
                        uint64_t to_phase);
hwm_ns hwm_geometry_xfer_ns(const Geometry *g, uint32_t sectors, uint32_t spt);

/* Arm movement from `from` to `to` (seek or head switch, plus write settle
 * when writing). */
hwm_ns hwm_geometry_position_ns(const Geometry *g, ArmPos from, const Phys *to,
                            bool write);

/*
 * Access `sectors` sectors from `lba` starting at time `t` with the arm at
 * `*arm`.  Follows the data across tracks and zones.  Returns the end time,
 * fills the components, moves `*arm`.
 */
hwm_ns hwm_geometry_access(const Geometry *g, ArmPos *arm, hwm_ns t,
                           uint64_t lba,
                       uint64_t sectors, bool write, MediaTime *mt);

/* Positioning time only (seek + rotation to the first sector). */
hwm_ns hwm_geometry_access_cost(const Geometry *g, ArmPos arm, hwm_ns t,
                            uint64_t lba, bool write);

#endif
