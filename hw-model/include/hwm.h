/*
 * hw-model: a deterministic, host-clocked model of a storage device.
 *
 * The model owns no clock, does no I/O and keeps no global state.  The host
 * supplies the time of every call; the same calls at the same times give the
 * same results, bit for bit.  All times are absolute integer nanoseconds on
 * the host's clock (QEMU_CLOCK_VIRTUAL, or platter-sim's event loop).
 *
 * Driving it:
 *
 *     hwm_submit(dev, now, &req, &err);        // queue a command
 *     t = hwm_next_event(dev);                 // when something happens next
 *     n = hwm_advance(dev, t, ev, cap);        // run to t, collect events
 *
 * hwm_advance() returns these events in time order:
 *   HWM_EV_COMPLETE  a command finished (the host may complete it now);
 *   HWM_EV_DURABLE   a range the host saw acknowledged earlier as volatile
 *                    (a cached write) has reached non-volatile storage.
 *   HWM_EV_HOME      only with HwmConfig.home_events: a range the host saw
 *                    acknowledged as durable (a protected buffer's FUA
 *                    write, a media-cache log's) reached its home on the
 *                    media and left the cache.  Nothing for the host's
 *                    data; an observer sees the write-back and the room
 *                    it frees, which DURABLE events alone leave out.
 * A host that keeps real data (the QEMU driver) keeps the data of cached
 * writes in memory from their completion until the matching DURABLE event,
 * and writes it to its image then; a completion with `durable` set means the
 * write was durable when acknowledged.  That keeps the image equal to the
 * modeled media at every instant, which is what a power cut exposes.
 *
 * DURABLE(range) always means "the newest acknowledged data of this range
 * is on non-volatile storage": a write, FUA write or discard that overlaps
 * data being written back waits until that write-back is over, so the host
 * never has newer data for a range whose older version the event reports.
 * Within one instant, events come in the order they happened: a DURABLE
 * before the completion of a write that waited for it.
 *
 * Private symbols of the library all start with hwm_ too, so it links into
 * a larger program (QEMU) without clashes.
 *
 * Copyright (C) 2026 the platter authors.  GPL-2.0-or-later.
 */
#ifndef HWM_H
#define HWM_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "platter-decimal.h"
#include "platter-splitmix64.h"

G_BEGIN_DECLS

typedef int64_t hwm_ns;                 /* absolute time, nanoseconds */
#define HWM_NEVER INT64_MAX             /* next_event(): nothing pending */
/*
 * The latest time a host may give (about 146 years).  The model adds the
 * time its commands take to the times it is given; the half of the int64
 * range above this leaves those sums room that no real queue of work comes
 * near, so they never overflow.  hwm_submit() refuses a later time
 * (HWM_ERROR_TIME); hwm_advance() and hwm_power_cut() expect times up to it.
 */
#define HWM_TIME_MAX (INT64_MAX / 2)
#define HWM_SECTOR_BYTES 512u           /* request granularity */

#define HWM_ERROR hwm_error_quark()
GQuark hwm_error_quark(void);

typedef enum {
    HWM_ERROR_PROFILE,      /* a profile file or value is wrong */
    HWM_ERROR_INVALID,      /* a request or option is malformed */
    HWM_ERROR_RANGE,        /* a request reaches past the end of the device */
    HWM_ERROR_QUEUE_FULL,   /* more commands than queue_depth outstanding */
    HWM_ERROR_TIME,         /* the host's clock went backwards, or past
                               HWM_TIME_MAX */
} HwmErrorCode;

/* ---- profiles ---------------------------------------------------------- */

typedef struct HwmProfile HwmProfile;

/* A profile is a page of text: a longer file is refused, not read. */
#define HWM_PROFILE_MAX_BYTES (1024 * 1024)

/*
 * Load a profile from a file.  `name_or_path` containing a '/' or ending in
 * ".profile" is a path; otherwise it is looked up as NAME in `search_dir`
 * (may be NULL: then only paths work).  Errors name file, line and key.
 */
HwmProfile *hwm_profile_load(const char *name_or_path, const char *search_dir,
                             GError **errp);
/* Parse profile text; `source` names it in error messages. */
HwmProfile *hwm_profile_parse(const char *text, gsize len, const char *source,
                              GError **errp);
void hwm_profile_free(HwmProfile *p);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(HwmProfile, hwm_profile_free)

const char *hwm_profile_name(const HwmProfile *p);
/* Where the profile was read from: the file's path (a NAME resolved in the
 * search dir), or the `source` given to hwm_profile_parse. */
const char *hwm_profile_source(const HwmProfile *p);
uint64_t hwm_profile_capacity_bytes(const HwmProfile *p);
/* One line per key with its effective value, as a profile file would hold
 * it (for --dump-profile and result records).  Each line's comment ends
 * with where the value came from: [given, line N], [derived: RULE] or
 * [default]; an optional data-sheet figure not given is a comment line
 * ending [unset].  Caller frees. */
char *hwm_profile_dump(const HwmProfile *p);

/* ---- device ------------------------------------------------------------ */

typedef enum { HWM_POLICY_PROFILE = 0, HWM_POLICY_FIFO, HWM_POLICY_SPTF } HwmPolicy;
typedef enum { HWM_TRISTATE_PROFILE = 0, HWM_ON, HWM_OFF } HwmTristate;

/* Per-device overrides of the profile; zero means "as the profile says". */
typedef struct {
    HwmTristate write_cache;    /* volatile write cache enabled (WCE) */
    HwmTristate fua;            /* native FUA advertised to the host */
    uint32_t queue_depth;       /* commands the device accepts at once */
    HwmPolicy policy;           /* command scheduling */
    bool home_events;           /* also report HWM_EV_HOME (an observer
                                   that draws the cache: a timeline) */
} HwmConfig;

typedef struct HwmDevice HwmDevice;

HwmDevice *hwm_device_new(const HwmProfile *p, const HwmConfig *cfg,
                          GError **errp);
void hwm_device_free(HwmDevice *dev);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(HwmDevice, hwm_device_free)

uint64_t hwm_device_capacity_bytes(const HwmDevice *dev);
bool hwm_device_write_cache(const HwmDevice *dev);  /* WCE after overrides */
bool hwm_device_fua(const HwmDevice *dev);          /* native FUA after overrides */
uint32_t hwm_device_queue_depth(const HwmDevice *dev);
uint64_t hwm_device_cache_bytes(const HwmDevice *dev);  /* write cache size */
/* extents the write cache holds at most (cache_segments), whatever their size */
uint32_t hwm_device_cache_segments(const HwmDevice *dev);
uint32_t hwm_device_rotation_rpm(const HwmDevice *dev);  /* 0: not rotating */
/* The platter's angle under the heads at `t`, in millidegrees past the
 * index, [0, 360000): the rotational position every access is timed
 * against (a pure function of `t` and the rpm).  0 when not rotating. */
uint32_t hwm_device_angle_mdeg(const HwmDevice *dev, hwm_ns t);

/* Where a byte lives on the media, for pictures of the mechanism
 * (platter-sim --html, the angle marks of --timeline). */
typedef struct {
    uint32_t units;             /* media units working at once: actuators
                                   or dies */
    uint32_t unit;              /* flash: the die a read of it runs on */
    /* rotating media (all 0 on flash) */
    uint32_t zone, zones;       /* recording zone, outermost first */
    uint32_t cylinder, cylinders;
    uint32_t head, heads;
    uint32_t sector;            /* within its track, in LBA order */
    uint32_t sectors_per_track;
    uint32_t angle_mdeg;        /* where the sector begins, millidegrees
                                   past the index (skew included): the
                                   angle hwm_device_angle_mdeg() reaches
                                   when it comes under the head */
} HwmLocation;
/* False when `offset` is not below the capacity. */
bool hwm_device_locate(const HwmDevice *dev, uint64_t offset,
                       HwmLocation *out);

/* ---- requests and events ---------------------------------------------- */

typedef enum {
    HWM_OP_READ,
    HWM_OP_WRITE,
    HWM_OP_FLUSH,
    HWM_OP_DISCARD,
} HwmOp;

#define HWM_REQ_FUA (1u << 0)   /* WRITE: durable at completion */

typedef struct {
    uint64_t tag;        /* host's cookie, echoed in events */
    HwmOp op;
    uint32_t flags;      /* HWM_REQ_* */
    uint64_t offset;     /* bytes, multiple of HWM_SECTOR_BYTES */
    uint64_t length;     /* bytes, multiple of HWM_SECTOR_BYTES; 0 for FLUSH */
} HwmRequest;

/* Where a command's time went; the parts sum to done - submit. */
typedef struct {
    hwm_ns queue_ns;      /* waiting for the device to take it */
    hwm_ns overhead_ns;   /* controller command processing */
    hwm_ns seek_ns;       /* arm movement, head switch and settle */
    hwm_ns rotate_ns;     /* waiting for the sector to come round */
    hwm_ns transfer_ns;   /* media and interface transfer */
    hwm_ns destage_ns;    /* waiting for cached data to be written back
                             (a FLUSH, or a write waiting for cache room) */
} HwmBreakdown;

typedef enum { HWM_EV_COMPLETE, HWM_EV_DURABLE, HWM_EV_HOME } HwmEventKind;

typedef struct {
    HwmEventKind kind;
    hwm_ns time_ns;       /* when it happened */
    /* HWM_EV_COMPLETE */
    uint64_t tag;
    HwmOp op;
    uint32_t flags;
    hwm_ns submit_ns;
    hwm_ns start_ns;      /* when the device began work on it */
    HwmBreakdown t;
    bool cache_hit;       /* READ served from the cache (write cache or a
                             read segment) without a media access */
    bool durable;         /* WRITE: durable when acknowledged */
    bool cached;          /* WRITE: acknowledged from the write cache (its
                             home write owed: a DURABLE event, or a HOME
                             event if it was durable already) */
    uint32_t write_misses; /* its own media write, or a non-queued FLUSH's
                              write-backs, that missed the sector after a
                              seek, each a revolution inside t.rotate_ns
                              (a command waiting on other write-back sees
                              only destage_ns; HwmStats counts every miss) */
    /* all: the byte range (COMPLETE: the request's; DURABLE: what became
       durable; HOME: what went home) */
    uint64_t offset;
    uint64_t length;
    bool read_ahead;      /* READ: rode on the read-ahead in progress (its
                             wait for the head is in t.transfer_ns) */
} HwmEvent;

/*
 * Queue a command at time `now`.  `now` must not be earlier than the time of
 * any previous call.  On error nothing is queued and the command will never
 * complete: the host completes it with the error itself.
 */
bool hwm_submit(HwmDevice *dev, hwm_ns now, const HwmRequest *req,
                GError **errp);

/* When the host should call hwm_advance() next, or HWM_NEVER when the
 * device is idle and has nothing to report.  Never earlier than the last
 * time the host gave.  It may be the time of an internal step (the end of
 * a command's controller overhead) that reports nothing: advancing to it
 * is harmless and the next call gives the following time. */
hwm_ns hwm_next_event(HwmDevice *dev);

/*
 * Run the device up to `now` and return at most `cap` events with
 * time_ns <= now, oldest first.  Returns how many were stored; when it
 * returns `cap`, call again: more may be ready.
 */
size_t hwm_advance(HwmDevice *dev, hwm_ns now, HwmEvent *ev, size_t cap);

/*
 * Power fails at `now`.  Every queued command is dropped without
 * completion, and every byte that was acknowledged but is not durable is
 * lost.  Returns those ranges (merged, ascending, as HwmExtent) and resets
 * the device to power-on state: the arm, the write-miss draws and the
 * media-cache log as a new device has them, the read segments empty and no
 * read-ahead running, so what comes after a cut does not depend on what the
 * cut dropped.  Caller frees with g_array_unref().
 * Events up to `now` that hwm_advance() has not returned yet happened
 * before the failure and stay queued; a host that keeps data per event
 * (the QEMU driver) drains them with hwm_advance(now) first.
 */
typedef struct {
    uint64_t offset;     /* bytes */
    uint64_t length;     /* bytes */
} HwmExtent;
GArray *hwm_power_cut(HwmDevice *dev, hwm_ns now);

/* Ranges acknowledged but not yet durable, without cutting power. */
GArray *hwm_volatile_extents(const HwmDevice *dev);

/* ---- platter-trace: the request trace format --------------------------- */

/*
 * A text trace of the commands a device completed, written by platter-sim
 * --trace-out and the QEMU driver's trace=FILE, and replayed by platter-sim
 * --workload replay:
 *
 *     # platter-trace v1
 *     # profile=NAME capacity=BYTES fua=0|1 write-cache=0|1 queue-depth=N
 *     <submit_ns> <R|W|F|D> <offset_bytes> <length_bytes> <-|FUA> # done=<ns>
 *     # power-cut at=<ns> lost=<bytes>
 *
 * The first line names the format and its version, the second the device
 * the trace was recorded on (after the overrides: the FUA, write cache and
 * queue depth the host saw).  Request lines come in the order the device
 * got the commands (HwmTraceOrder below), not the order they completed.
 * These functions only format and parse; the host does the I/O.
 */
#define HWM_TRACE_MAGIC "platter-trace"
#define HWM_TRACE_VERSION 1

typedef struct {
    const char *profile;        /* the profile's name */
    uint64_t capacity_bytes;
    bool fua;                   /* native FUA advertised */
    bool write_cache;           /* volatile write cache enabled */
    uint32_t queue_depth;
} HwmTraceDevice;

/* The device `dev`, made from `p`, as a trace header describes it. */
HwmTraceDevice hwm_trace_device(const HwmProfile *p, const HwmDevice *dev);
/* The two header lines. */
void hwm_trace_append_header(GString *s, const HwmTraceDevice *d);
/* A HWM_EV_COMPLETE event's request line. */
void hwm_trace_append_request(GString *s, const HwmEvent *e);
void hwm_trace_append_power_cut(GString *s, hwm_ns at, uint64_t lost_bytes);
/* A request line's op ("R") and flags ("-", "FUA") fields. */
bool hwm_trace_parse_op(const char *text, HwmOp *op);
bool hwm_trace_parse_flags(const char *text, uint32_t *flags);
/*
 * Parse the device line's text after "# " in place: `text` is cut into its
 * keys and out->profile points into it.  Each key is optional (a trace
 * platter-sim wrote before the driver's header was shared gives only
 * profile); `*given` gets a bit per key given, for hwm_trace_device_diff().
 * An unknown, repeated or bad key is an error naming it.
 */
bool hwm_trace_parse_device(char *text, HwmTraceDevice *out, uint32_t *given,
                            GError **errp);
/* Where a parsed trace device (its `given` keys) and `dev` differ, as
 * "write-cache=1 (this device: 0), ...", or NULL.  Caller frees. */
char *hwm_trace_device_diff(const HwmTraceDevice *trace, uint32_t given,
                            const HwmTraceDevice *dev);

/*
 * The order a recorder writes request lines in.  A replay submits the
 * lines of one instant in file order, and commands of one instant need
 * not commute (overlapping writes, a FUA write and a write it overlaps),
 * so a trace lists commands in the order the device got them: a completed
 * command's line waits until every command the device got before it has
 * completed, or was dropped by a power cut.
 */
typedef struct HwmTraceOrder HwmTraceOrder;

HwmTraceOrder *hwm_trace_order_new(void);
void hwm_trace_order_free(HwmTraceOrder *o);
/* The device took a command: its number, 0, 1, ... in that order. */
uint64_t hwm_trace_order_submitted(HwmTraceOrder *o);
/* Command `seq` completed with `e`: append to `s` every line now due. */
void hwm_trace_order_completed(HwmTraceOrder *o, uint64_t seq,
                               const HwmEvent *e, GString *s);
/* A power cut dropped every command not completed: append the lines of
 * those completed, then the cut's line. */
void hwm_trace_order_power_cut(HwmTraceOrder *o, hwm_ns at,
                               uint64_t lost_bytes, GString *s);

/* ---- counters ---------------------------------------------------------- */

/*
 * The device's counters, defined once: X(NAME, C type, unit, help) per
 * field, in struct order.  The struct below, platter-sim's text and JSON
 * reports and the QEMU driver's QMP copy all expand this list, so a field
 * added here reaches every one of them, and a consumer that copies into a
 * struct of its own (the driver's QAPI type) fails to compile until it has
 * the field:
 *
 *     #define COPY(name, type, unit, help) info->name = st.name;
 *     HWM_STATS_FIELDS(COPY)
 *
 * Units: "count", "bytes" or "ns"; a field's name ends in its unit
 * ("_bytes", "_ns") unless it is a count.  Totals since the device was
 * created, except the two marked "now".  Add new fields at the end:
 * platter-sim's JSON keeps this order.  (A table: `duplicates` pairs its
 * rows by shape; they are data, one row per counter.)
 */
#define HWM_STATS_FIELDS(X) \
    X(reads, uint64_t, "count", "READ commands completed") \
    X(writes, uint64_t, "count", "WRITE commands completed, FUA or not") \
    X(fua_writes, uint64_t, "count", "of writes: with FUA") \
    X(flushes, uint64_t, "count", "FLUSH commands completed") \
    X(discards, uint64_t, "count", "DISCARD commands completed") \
    X(read_bytes, uint64_t, "bytes", "bytes READ commands asked for") \
    X(write_bytes, uint64_t, "bytes", "bytes WRITE commands carried") \
    X(cache_read_hits, uint64_t, "count", \
      "reads with no media access of their own") \
    X(destages, uint64_t, "count", "write-backs of cached data to the media") \
    X(destage_bytes, uint64_t, "bytes", "bytes written back") \
    X(media_ops, uint64_t, "count", "positioning operations of the arm/dies") \
    X(write_misses, uint64_t, "count", \
      "post-seek writes off-track inhibit aborted") \
    X(seek_ns, hwm_ns, "ns", "media time spent seeking") \
    X(rotate_ns, hwm_ns, "ns", "media time waiting for rotation") \
    X(transfer_ns, hwm_ns, "ns", "media time transferring") \
    X(power_cuts, uint64_t, "count", "power cuts") \
    X(lost_bytes, uint64_t, "bytes", \
      "acknowledged bytes power cuts lost") \
    X(dirty_bytes, uint64_t, "bytes", "now: bytes in the write cache") \
    X(dirty_extents, uint64_t, "count", "now: extents in the write cache") \
    X(read_segment_hits, uint64_t, "count", \
      "of cache_read_hits: from a read segment") \
    X(read_ahead_joins, uint64_t, "count", "reads that rode on a read-ahead") \
    X(read_ahead_bytes, uint64_t, "bytes", \
      "bytes read ahead, in read-aheads that ended") \
    X(read_ahead_stops, uint64_t, "count", "read-aheads a command cut short")

typedef struct {
#define HWM_STATS_MEMBER(name, type, unit, help) type name;
    HWM_STATS_FIELDS(HWM_STATS_MEMBER)
#undef HWM_STATS_MEMBER
} HwmStats;

void hwm_stats(const HwmDevice *dev, HwmStats *out);

const char *hwm_op_name(HwmOp op);

/*
 * Read a whole regular file of at most `max_bytes` into a NUL-terminated
 * buffer (caller frees).  A FIFO, device, directory or socket is refused
 * without reading from it (a FIFO with no writer would block for ever,
 * /dev/zero never ends), and so is a longer file.  Errors name the path.
 * Profiles and platter-sim's traces share it.
 */
bool hwm_read_file(const char *path, gsize max_bytes, char **text, gsize *len,
                   GError **errp);
/* The inverse of hwm_parse_decimal (platter-decimal.h): append value / scale exactly ("8.25"). */
void hwm_append_decimal(GString *s, uint64_t value, uint64_t scale);

G_END_DECLS

#endif /* HWM_H */
