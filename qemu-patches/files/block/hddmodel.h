/*
 * hddmodel: what the driver's files share.  The request path
 * (hddmodel.c), the image (hddmodel-image.c), power (hddmodel-power.c),
 * open and close (hddmodel-open.c), the trace (hddmodel-trace.c), the crash
 * journal (hddmodel-crash.c), the map of cached write data
 * (hddmodel-map.c) and the QMP commands
 * (hddmodel-qmp.c); hddmodel.c's head comment says what each owns.
 *
 * Copyright (C) 2026 the platter authors.
 *
 * This work is licensed under the terms of the GNU GPL, version 2 or later.
 * See the COPYING file in the top-level directory.
 */

#ifndef BLOCK_HDDMODEL_H
#define BLOCK_HDDMODEL_H

#include "qemu/coroutine.h"
#include "qemu/queue.h"
#include "qemu/timer.h"
#include "block/block_int.h"
#include "qapi/qapi-types-block-core.h"
#include "system/runstate.h"
#include "hwm/hwm.h"

/* ---- the data of cached writes, by byte range (hddmodel-map.c) ---------- */

typedef struct HddMap HddMap;

/* Called on each piece of data as it leaves the map. */
typedef void HddMapFn(uint64_t offset, uint64_t length, const uint8_t *data,
                      void *opaque);

HddMap *hdd_map_new(void);
void hdd_map_free(HddMap *map);
/* Take ownership of data (at least length bytes) for [offset, +length). */
void hdd_map_put(HddMap *map, uint64_t offset, uint64_t length, uint8_t *data);
/* Remove [offset, +length), handing each piece to fn (if set) first. */
void hdd_map_cut(HddMap *map, uint64_t offset, uint64_t length,
                 HddMapFn *fn, void *opaque);
/* Remove everything, handing each piece to fn (if set) first. */
void hdd_map_clear(HddMap *map, HddMapFn *fn, void *opaque);
/*
 * Hand fn everything the map holds, extents that continue each other
 * joined into one piece (a sequential stream becomes one write); the map
 * is left as it is.
 */
void hdd_map_foreach_run(HddMap *map, HddMapFn *fn, void *opaque);
/* Copy what the map holds of [offset, +length) over buf. */
void hdd_map_overlay(HddMap *map, uint64_t offset, uint64_t length,
                     uint8_t *buf);
uint64_t hdd_map_bytes(const HddMap *map);
uint64_t hdd_map_extents(const HddMap *map);

/* ---- where the drive's virtual time went (hddmodel-qmp.c) -------------- */

/* A queue's occupancy over virtual time. */
typedef struct HddOccupancy {
    uint32_t depth;             /* now */
    uint32_t max;
    hwm_ns since;               /* when depth last changed */
    hwm_ns busy_ns;             /* time with depth > 0 */
    uint64_t depth_ns;          /* depth integrated over time */
} HddOccupancy;

/*
 * Observations only: nothing here changes what the guest sees.  The front
 * end's queue is every timed request the driver holds (from its arrival,
 * in the guest's doorbell access, to its completion), the model's the
 * commands it holds.  When a request is done, the front end raises the
 * guest's interrupt.
 */
typedef struct HddAcct {
    HddOccupancy front;
    HddOccupancy model;
    uint64_t submitted;         /* commands handed to the model */
    hwm_ns submit_wait_ns;      /* their arrival -> model, summed */
    hwm_ns submit_wait_max_ns;
    uint64_t completed;         /* the model's completions */
    hwm_ns complete_delay_ns;   /* model completion -> request done, summed */
    hwm_ns complete_delay_max_ns;
    /*
     * Over time: at the first change of a queue's depth past the next
     * multiple of sample_every_ns (no timer of its own: deadlines move a
     * guest's SMP schedule), the clock, both queues' busy_ns and depth_ns,
     * and completed; at most HDD_ACCT_SAMPLES_MAX samples, then every
     * other one goes and the interval doubles.
     */
    GArray *samples;            /* uint64_t, HDD_ACCT_SAMPLE_WIDTH each */
    hwm_ns sample_every_ns;
    hwm_ns sample_next_ns;
    bool reported;              /* printed (hdd_acct_print): once */
} HddAcct;

#define HDD_ACCT_SAMPLES_MAX 256
#define HDD_ACCT_SAMPLE_WIDTH 6

void hdd_acct_depth(HddAcct *a, HddOccupancy *o, hwm_ns now, int delta);
void hdd_acct_wait(uint64_t *n, hwm_ns *sum, hwm_ns *max, hwm_ns from,
                   hwm_ns to);

/* ---- the driver ---------------------------------------------------------- */

/*
 * Option names for strong_runtime_opts and error messages; what each
 * option is (type, meaning) is the schema's, BlockdevOptionsHddModel.
 */
#define HDD_OPT_PROFILE     "profile"
#define HDD_OPT_PROFILE_DIR "profile-dir"
#define HDD_OPT_FUA         "fua"
#define HDD_OPT_WCE         "write-cache"
#define HDD_OPT_QD          "queue-depth"
#define HDD_OPT_POLICY      "policy"
#define HDD_OPT_CUT_NS      "power-cut-ns"
#define HDD_OPT_CUT_REQUEST "power-cut-request"
#define HDD_OPT_CUT_EVERY   "power-cut-every-ns"
#define HDD_OPT_CUT_SEED    "power-cut-seed"
#define HDD_OPT_CRASH_JOURNAL "crash-journal"

typedef struct HddReq {
    Coroutine *co;
    HwmRequest hr;
    QEMUIOVector *qiov;         /* READ: where the data goes */
    uint8_t *buf;               /* WRITE: the data, copied at submission */
    int ret;
    bool submitted;             /* handed to the model (else: host queue) */
    uint64_t trace_seq;         /* trace=FILE: its place in the line order */
    bool done;
    hwm_ns arrive_ns;           /* when it reached the driver */
    uint64_t acked_before;      /* FLUSH: writes acked when the model took it */
    QTAILQ_ENTRY(HddReq) next;
} HddReq;

/*
 * What the driver is doing.  Requests reach the model only in IDLE; while
 * events are delivered they wait in the host queue; once the power has
 * failed they fail.  The transitions (hdd_set_state() asserts them):
 *
 *   IDLE -> DELIVERING -> IDLE     the timer: events up to the clock
 *   IDLE -> FAST_FORWARD -> IDLE   the clock is stalled (VM stopped,
 *                                  drain): the model runs on its own
 *                                  until no request is left
 *   IDLE -> CUT -> IDLE            hddmodel-power-cut: power comes back
 *   IDLE -> CUT -> DOWN -> IDLE    power-cut-every-ns: power comes back
 *                                  HDD_DOWN_NS after the first command
 *                                  that found the drive off
 *   IDLE -> WRITE_OUT -> IDLE      durable data goes to the image: the VM
 *                                  stops
 *   IDLE, DELIVERING,              a scheduled power loss: the cut runs
 *   FAST_FORWARD,                  at once, from a BH (in a request's
 *   WRITE_OUT -> CUT -> OFF        coroutine) or when the delivery or
 *                                  write-out under way ends
 *   IDLE, DOWN -> OFF              close: a clean shutdown
 *   DOWN -> CUT -> OFF             a scheduled power loss while down
 *
 * Only the main loop delivers, so no delivery starts inside another: the
 * timer and the BHs start one from IDLE only, and a BH run by the nested
 * poll of the driver's own image I/O finds the state taken.
 */
typedef enum HddState {
    HDD_IDLE,
    HDD_DELIVERING,
    HDD_FAST_FORWARD,
    HDD_WRITE_OUT,
    HDD_CUT,                    /* power lost; the cut pending or running */
    HDD_OFF,                    /* no power: every request fails */
    HDD_DOWN,                   /* no power for now: every request fails */
} HddState;

/*
 * Durable data (on the modelled media) reaches the image in batches, not
 * one synchronous image write per durable write: when the batch holds
 * this many bytes or extents, when a delivery of the model's events finds
 * its oldest data this old in model time, and whenever the image must
 * equal the media (the VM stops, the power is cut, the node closes).  A
 * QEMU killed outright (SIGKILL) leaves the image without the batch.
 * The age is checked in deliveries, not on a timer of its own: a timer
 * would be one more virtual-clock deadline, and deadlines end icount's
 * lockstep rounds, so image housekeeping would move the guest's SMP
 * schedule; on the host clock it made the write-outs fall at points of
 * the guest's execution that host timing chose.
 */
#define HDD_UNWRITTEN_MAX_BYTES     (1024 * 1024)
#define HDD_UNWRITTEN_MAX_EXTENTS   256
#define HDD_UNWRITTEN_MAX_NS        50000000

typedef struct BDRVHddState {
    BlockDriverState *bs;
    HwmProfile *profile;
    HwmDevice *dev;
    QEMUTimer timer;            /* main loop, QEMU_CLOCK_VIRTUAL */
    hwm_ns now;                 /* last time given to the model */
    uint64_t next_tag;
    uint32_t in_model;          /* commands the model holds */
    uint32_t queue_depth;
    QTAILQ_HEAD(, HddReq) reqs; /* every request not yet completed */
    /* answered without the model (drive off, nothing to transfer) */
    QTAILQ_HEAD(, HddReq) answers;
    QEMUTimer answer_timer;     /* QEMU_CLOCK_VIRTUAL: when they complete */
    GHashTable *by_tag;         /* tag -> HddReq, for submitted ones */
    HddMap *map;                /* data the model's cache holds */
    HddMap *unwritten;          /* durable, not yet on the image */
    HddMap *writing;            /* the batch being written, or NULL */
    uint64_t write_outs;        /* batches written (or started) so far */
    CoQueue write_out_done;     /* untimed requests waiting for a batch */
    hwm_ns unwritten_since_ns;  /* model time the batch's oldest data
                                 * became durable */
    VMChangeStateEntry *vm_state; /* the VM's stop writes the batch out */
    HddState state;
    QEMUBH *ff_bh;              /* hdd_fast_forward_bh() */
    QEMUBH *cut_bh;             /* hdd_cut_bh() */
    FILE *trace;                /* trace=FILE */
    GString *trace_text;        /* its next line(s) */
    HwmTraceOrder *trace_order; /* its line order: the model's intake */
    uint64_t queued_total;      /* requests that waited in the host queue */
    QEMUTimer cut_timer;        /* QEMU_CLOCK_VIRTUAL, at cut_at_ns */
    hwm_ns cut_at_ns;           /* power loss for good: when, HWM_NEVER: none */
    uint64_t cut_at_request;    /* power loss at this arrival, 0: none */
    uint64_t arrivals;          /* timed requests seen */
    uint64_t cut_dropped;       /* requests the cut under way failed */
    /* power-cut-every-ns: cuts the power comes back from */
    QEMUTimer cycle_timer;      /* QEMU_CLOCK_VIRTUAL: next cut, power on */
    uint64_t cycle_every_ns;    /* mean gap between cuts, 0: none */
    uint64_t cycle_rng;         /* splitmix64 state, from power-cut-seed */
    hwm_ns cycle_on_ns;         /* DOWN: power back then, HWM_NEVER: when
                                 * the first command finds the drive off */
    uint64_t cycles;            /* such cuts so far */
    HddAcct acct;               /* reported at exit (hddmodel-qmp.c) */
    struct HddCrash *crash;     /* crash-journal=FILE, or NULL */
} BDRVHddState;

/* the node's accounting lines on stderr, once (hddmodel-qmp.c) */
void hdd_acct_print(BlockDriverState *bs, BDRVHddState *s);

/* What a power cut destroyed. */
typedef struct HddCutReport {
    hwm_ns clock_ns;            /* when */
    GArray *lost;               /* HwmExtent: acknowledged, never on media */
    uint64_t lost_bytes;
    uint64_t cached_bytes;      /* write data the driver dropped */
    uint64_t dropped;           /* requests that failed */
} HddCutReport;

/* ---- the request path (hddmodel.c) --------------------------------------- */

/* The node's driver state, or NULL if it is not an hddmodel node. */
BDRVHddState *hdd_state(BlockDriverState *bs);
/* The model's clock: the virtual clock, never backwards (sets s->now). */
hwm_ns hdd_now(BDRVHddState *s);
/* Shutdown was requested: the model's clock has stopped for good. */
bool hdd_guest_gone(void);
/* Move to `to`; asserts it is one of the transitions at HddState. */
void hdd_set_state(BDRVHddState *s, HddState to);
/* Arm the timer for the model's next event (or run the model forward). */
void hdd_schedule(BDRVHddState *s);
/* Hand out the model's events up to `now` (states that deliver only). */
void GRAPH_RDLOCK hdd_deliver(BDRVHddState *s, hwm_ns now);
/* A delivery or write-out is over: to IDLE, or on to a pending cut. */
void GRAPH_RDLOCK hdd_delivered(BDRVHddState *s);
/* Hand waiting requests to the model while it has room. */
void hdd_submit_waiting(BDRVHddState *s);
/* Fail every outstanding request with -EIO (counted in s->cut_dropped). */
void hdd_fail_all(BDRVHddState *s);
/* Complete the requests the driver answered itself. */
void hdd_answer_all(BDRVHddState *s);
/* Timer and BH callbacks (armed by hddmodel-open.c). */
void hdd_timer_cb(void *opaque);
void hdd_answer_timer_cb(void *opaque);
void hdd_fast_forward_bh(void *opaque);

/* ---- the image (hddmodel-image.c) ---------------------------------------- */

/* The batch goes to the image now; 0, or how a write of it failed. */
int GRAPH_RDLOCK hdd_write_out(BDRVHddState *s);
/* ...only if it is full or old (HDD_UNWRITTEN_MAX_*). */
int GRAPH_RDLOCK hdd_write_out_if_due(BDRVHddState *s);
/* The batch, then the cache's data, to the image: a clean shutdown. */
int GRAPH_RDLOCK hdd_write_out_everything(BDRVHddState *s);
/* The model says [offset, +length) is on the media now. */
int GRAPH_RDLOCK hdd_destage(BDRVHddState *s, uint64_t offset,
                             uint64_t length);
/* Over buf (image data for [offset, +length)): durable data not on it yet. */
void hdd_media_overlay(BDRVHddState *s, uint64_t offset, uint64_t length,
                       uint8_t *buf);
/* A completed READ's data: image, under what the drive holds. */
int GRAPH_RDLOCK hdd_read_data(BDRVHddState *s, HddReq *req);
/* A completed WRITE's data: to the cache's map, or durable to the batch. */
int GRAPH_RDLOCK hdd_write_data(BDRVHddState *s, HddReq *req, bool durable);
/* I/O while the VM is not running: at once, durable, without the model. */
int coroutine_fn GRAPH_RDLOCK
hdd_co_untimed(BDRVHddState *s, HwmOp op, int64_t offset, int64_t bytes,
               QEMUIOVector *qiov);
/* The VM stops: the batch goes to the image (a VMChangeStateHandler). */
void hdd_vm_state_change(void *opaque, bool running, RunState state);

/* ---- power (hddmodel-power.c) -------------------------------------------- */

/*
 * Cut the power now (hddmodel-power-cut: it comes back at once).  Fills
 * *rep (free rep->lost with g_array_unref()); false with errp set if the
 * node cannot be cut now.
 */
bool hdd_cut_power(BDRVHddState *s, HddCutReport *rep, Error **errp);
/* The scheduled power loss at `at`: for good; the guest stops. */
void GRAPH_RDLOCK hdd_lose_power(BDRVHddState *s, hwm_ns at);
/* The pending cut of that power loss (state CUT, ends OFF). */
void GRAPH_RDLOCK hdd_cut_for_good(BDRVHddState *s);
/* A command found the drive DOWN: the first starts its way back. */
void hdd_cycle_found_off(BDRVHddState *s);
/* The power-cut-* options; arms their timers.  False with errp set. */
bool hdd_parse_cut(BDRVHddState *s, const BlockdevOptionsHddModel *o,
                   Error **errp);
/* Timer and BH callbacks (armed by hddmodel-open.c). */
void hdd_cut_timer_cb(void *opaque);
void hdd_cycle_timer_cb(void *opaque);
void hdd_cut_bh(void *opaque);

/* ---- crash-journal=FILE (hddmodel-crash.c) ------------------------------- */

typedef struct HddCrash HddCrash;

/* Set up the journal (s->crash); false with errp set if FILE cannot be made. */
bool hdd_crash_open(BDRVHddState *s, const char *path, Error **errp);
void hdd_crash_free(BDRVHddState *s);
/* A WRITE completes (before its data goes to the map or the batch). */
void GRAPH_RDLOCK hdd_crash_acked(BDRVHddState *s, HddReq *req, bool durable);
/* The model takes a FLUSH, and completes it. */
void hdd_crash_flush_submitted(BDRVHddState *s, HddReq *req);
void hdd_crash_flushed(BDRVHddState *s, HddReq *req);
/* The model wrote [offset, +length) back from its cache. */
void hdd_crash_destaged(BDRVHddState *s, uint64_t offset, uint64_t length);
/* A write that bypassed the model (the VM stopped): the journal stops. */
void hdd_crash_untimed_write(BDRVHddState *s);
/* The power is cut (the image equals the media): the file if for good. */
void hdd_crash_cut(BDRVHddState *s, bool for_good);

/* ---- open and close (hddmodel-open.c) ------------------------------------ */

int hdd_open(BlockDriverState *bs, QDict *options, int flags, Error **errp);
void GRAPH_UNLOCKED hdd_close(BlockDriverState *bs);

/* ---- trace=FILE (hddmodel-trace.c) --------------------------------------- */

/* Open the trace file (a regular file only) and write its header. */
bool hdd_open_trace(BDRVHddState *s, const char *path, Error **errp);
/* The completed command's line, after those the model took before it. */
void hdd_trace_line(BDRVHddState *s, HddReq *req, const HwmEvent *ev);
/* A power cut's line. */
void hdd_trace_power_cut(BDRVHddState *s, uint64_t lost_bytes);
/* Close it; an error writing it is reported. */
void hdd_close_trace(BDRVHddState *s);

#endif
