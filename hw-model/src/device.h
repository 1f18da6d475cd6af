/*
 * What the device's files share (private to hw-model): the command, the
 * media unit, the internal timer and the device itself, and the calls
 * between the files.
 *
 *   device.c        the request lifecycle: a command from hwm_submit()
 *                   through admission, controller overhead, buffer hits,
 *                   cache room and flushes to its completion event; the
 *                   timer heap and the event loop (kick, run_until)
 *   device-units.c  the media units: what an idle unit starts next (host
 *                   command, write-back, read-ahead) and what happens when
 *                   its operation ends
 *   device-setup.c  a device from a profile and a config, the power cut,
 *                   teardown, and the read-only queries (hwm_stats, ...)
 *
 * A command's state (CmdState) changes only in device.c, but CS_RUNNING
 * (device-units.c starts it on a unit) and CS_MEDIA (dev_media_q_push()).
 */
#ifndef HWM_DEVICE_H
#define HWM_DEVICE_H

#include "media.h"
#include "profile.h"
#include "readcache.h"

typedef enum {
    EV_READY,       /* a command's overhead (and data-in transfer) is done */
    EV_DONE,        /* a command completes */
    EV_UNIT,        /* a media unit finished its operation */
    EV_WAKE,        /* idle write-back may start */
} TimerKind;

typedef struct {
    hwm_ns t;
    uint64_t order;
    TimerKind kind;
    uint32_t unit;
    uint64_t gen;           /* EV_UNIT: the unit's gen when armed; a
                               re-armed or stopped operation's old timer
                               is stale and ignored */
    struct Cmd *cmd;
} Timer;

typedef enum {
    CS_NEW,         /* queued, not yet taken by the controller */
    CS_PREP,        /* controller overhead running */
    CS_ROOM,        /* write waiting for cache room (or for a write-back of
                       the same sectors to finish) */
    CS_MEDIA,       /* waiting for a media unit */
    CS_RUNNING,     /* on a media unit */
    CS_FLUSH,       /* flush in progress */
    CS_FINISHING,   /* completion scheduled */
} CmdState;

typedef struct Cmd {
    HwmRequest req;
    uint64_t lba, sectors;
    hwm_ns submit_ns, ready_ns, start_ns;
    hwm_ns data_in_ns;      /* WRITE to the media that positions while its
                               data comes in: when the data is all in */
    HwmBreakdown t;
    CmdState state;
    uint64_t flush_cut;     /* FLUSH: acknowledgements it must cover */
    bool reserved;          /* holds a cache reservation */
    bool hit, durable;
    bool cached;            /* WRITE: acknowledged from the write cache */
    bool committing;    /* programmed in place, waiting for the commit:
                           still a running write until it completes */
    bool read_ahead;        /* READ: rode on the read-ahead in progress */
    bool completion_charged; /* its completion overhead is in its time */
    hwm_ns host_done;       /* READ from the media: when its data has
                               reached the host (HostStream) */
    uint32_t write_misses;  /* see HwmEvent */
    GList link;             /* in HwmDevice.cmds */
} Cmd;

typedef enum {
    OP_IDLE, OP_HOST, OP_LOG, OP_DESTAGE, OP_COMMIT,
    OP_READAHEAD,   /* readcache.c: reading past a read into a segment */
} OpKind;

typedef struct {
    OpKind op;
    hwm_ns busy_until;
    uint64_t gen;           /* bumped each time its timer is armed */
    Cmd *cmd;
    Extent *ext;
    GPtrArray *batch;       /* flash: the extents the write-back of `ext`
                               carries with it in one program (media.h
                               write_unit_sectors); NULL until needed */
    ArmPos arm;
} Unit;

/*
 * A set of media units (parallel_units <= 4096 = 64 x 64) as a two-level
 * bitmap: the next member at or after a unit in O(1), so a flash device
 * finds the units that can start something without walking all of them.
 */
#define UNITSET_MAX UNITS_MAX
typedef struct {
    uint64_t top;               /* bit i: word i is not empty */
    uint64_t w[UNITSET_MAX / 64];
} UnitSet;

static inline void unitset_add(UnitSet *s, uint32_t u)
{
    s->w[u / 64] |= 1ull << (u % 64);
    s->top |= 1ull << (u / 64);
}

static inline void unitset_del(UnitSet *s, uint32_t u)
{
    s->w[u / 64] &= ~(1ull << (u % 64));
    if (!s->w[u / 64]) {
        s->top &= ~(1ull << (u / 64));
    }
}

/* The lowest member >= u, or UNIT_NONE. */
static inline uint32_t unitset_next(const UnitSet *s, uint32_t u)
{
    if (u >= UNITSET_MAX) {
        return UNIT_NONE;
    }
    uint64_t rest = s->w[u / 64] & (~0ull << (u % 64));
    if (rest) {
        return u / 64 * 64 + (uint32_t)__builtin_ctzll(rest);
    }
    uint32_t word = u / 64 + 1;
    uint64_t words = word < 64 ? s->top & (~0ull << word) : 0;
    if (!words) {
        return UNIT_NONE;
    }
    word = (uint32_t)__builtin_ctzll(words);
    return word * 64 + (uint32_t)__builtin_ctzll(s->w[word]);
}

struct HwmDevice {
    HwmProfile prof;            /* copy; name/source owned */
    Media media;                /* the mechanics (media-hdd.c, -flash.c) */
    Cache cache;
    ReadCache rc;               /* read segments and read-ahead (rotating) */

    bool wce, fua;
    bool home_events;           /* HwmConfig.home_events */
    uint32_t queue_depth;
    HwmPolicy policy;
    uint32_t queue_window;      /* commands sptf compares (UINT32_MAX: all) */
    uint32_t writeback_window;  /* extents write-back compares (UINT32_MAX:
                                   all) */
    uint64_t writeback_next;    /* the sector after the last write-back:
                                   where an elevator goes on from */
    uint64_t cache_sectors;     /* what write data may fill */
    uint64_t buffer_sectors;    /* the whole buffer (shared read segments) */
    uint64_t high_water_sectors;
    uint32_t high_water_extents;
    uint64_t destage_max_sectors;

    GArray *timers;             /* binary heap of Timer */
    uint64_t timer_order;
    GArray *out;                /* HwmEvent ready for the host */
    guint out_head;

    GQueue cmds;                /* outstanding, arrival order */
    GList *admit_from;          /* the first CS_NEW command in cmds, or
                                   NULL: admission is in order, so those
                                   not yet admitted are a tail of cmds */
    GQueue room_wait;           /* Cmd*, FIFO */
    GPtrArray *media_q;         /* Cmd* waiting for a unit */
    GPtrArray *flushes;         /* queued flushes in progress */
    Cmd *nq_flush;              /* the non-queued flush in progress */

    Unit *units;
    uint32_t nunits;
    UnitSet idle;               /* units with op == OP_IDLE */
    UnitSet reads_idle;         /* idle units with a read of theirs waiting
                                   in media_q (flash reads go to the die
                                   that holds the data) */
    uint32_t *reads_waiting;    /* per unit: such reads in media_q */
    GPtrArray *running_writes;  /* Cmd* of host writes on a unit: write-back
                                   on another unit must not overtake them */

    hwm_ns now;                 /* latest time the host gave */
    hwm_ns instant;             /* time of the step being processed */
    hwm_ns last_busy;           /* last arrival or completion */
    hwm_ns wake_at;             /* armed EV_WAKE, or HWM_NEVER */
    /* the host link carries one transfer at a time each way (write data
     * in, read data out, as PCIe and SAS lanes do): when each is free */
    hwm_ns link_in_free, link_out_free;
    hwm_ns commit_free;         /* queued flushes' metadata commits are
                                   serial: the next may start then */
    bool after_write;           /* the last read or write to complete was
                                   a write: the overheads it selects */
    uint64_t ack_seq;
    uint64_t reserved_sectors;
    uint32_t reserved_extents;
    struct {                    /* the state when room last ran out */
        const struct Cmd *cmd;
        uint64_t generation;
        uint64_t reserved;
    } room_fail;

    HwmStats st;
};

/* ---- device.c: the request lifecycle ------------------------------------ */

/* Queue an internal event at `t` (EV_UNIT: use dev_arm_unit()). */
void dev_timer_push(HwmDevice *d, hwm_ns t, TimerKind kind, Cmd *cmd,
                    uint32_t unit);
/* Unit `u` is busy until `t`: (re-)arm its one live timer. */
void dev_arm_unit(HwmDevice *d, uint32_t u, hwm_ns t);
/* Queue an event for the host (hwm_advance() hands it out). */
void dev_emit(HwmDevice *d, const HwmEvent *ev);
/* Time to move `bytes` over the host interface. */
hwm_ns dev_iface_ns(const HwmDevice *d, uint64_t bytes);
/* A read's data would reach the host at `done`, having held the link for
 * its last dev_iface_ns(): later while the link carries earlier data. */
hwm_ns dev_link_out(HwmDevice *d, hwm_ns done, uint64_t bytes);
/* Complete `c` at `t`. */
void dev_complete_at(HwmDevice *d, Cmd *c, hwm_ns t);
/* `t` plus the completion overhead of c's kind (read or write), which is
 * added to c's overhead: when the host sees a command done at t. */
hwm_ns dev_completion(const HwmDevice *d, Cmd *c, hwm_ns t);
/* Give back a write's cache reservation, if it holds one. */
void dev_unreserve(HwmDevice *d, Cmd *c);
/* A FUA write that goes to the media-cache log. */
bool dev_is_log_write(const HwmDevice *d, const Cmd *c);
/* Read segments the buffer holds now (shared ones give way to writes). */
uint32_t dev_read_segments_now(const HwmDevice *d);
/* Process every internal event up to `now`. */
void dev_run_until(HwmDevice *d, hwm_ns now);

/* ---- device-units.c: the media units ------------------------------------ */

/* Every change of a unit's op goes through here, to keep the sets. */
void dev_unit_set_op(HwmDevice *d, uint32_t u, OpKind op);
/* Room waiter `c` waits for a write-back of its sectors to end. */
bool dev_waits_for_busy(const HwmDevice *d, const Cmd *c);
/* `c` waits for a media unit. */
void dev_media_q_push(HwmDevice *d, Cmd *c);
/* Serve read `c` from the buffer (write cache, read segment, read-ahead
 * under way) if it holds the data at `t`: true when it did. */
bool dev_read_from_buffer(HwmDevice *d, Cmd *c, hwm_ns t);
/* A write programmed in place at `t` that must be durable when it
 * completes (FUA, or the write cache off) waits for the commit, as a
 * flush does: without it a power cut loses the mapping that finds the new
 * data.  Returns when it may complete. */
hwm_ns dev_durable_write_done(HwmDevice *d, struct Cmd *c, hwm_ns t);
/* A read-ahead in progress gives way to commands that want the media. */
void dev_yield_read_ahead(HwmDevice *d, hwm_ns t);
/* Every idle unit takes what it can. */
void dev_start_units(HwmDevice *d, hwm_ns t);
/* Unit `u`'s operation ends at `t`. */
void dev_on_unit_done(HwmDevice *d, uint32_t u, hwm_ns t);

#endif
