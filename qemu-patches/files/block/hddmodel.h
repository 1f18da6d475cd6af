/*
 * hddmodel: what the driver (hddmodel.c), its map of cached write data
 * (hddmodel-map.c) and its QMP commands (hddmodel-qmp.c) share.
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
 * commands it holds.
 */
typedef struct HddAcct {
    HddOccupancy front;
    HddOccupancy model;
    uint64_t submitted;         /* commands handed to the model */
    hwm_ns submit_wait_ns;      /* their arrival -> model, summed */
    hwm_ns submit_wait_max_ns;
    uint64_t completed;         /* the model's completions */
    hwm_ns complete_delay_ns;   /* model completion -> request finished
                                 * (the front end raises its interrupt
                                 * then), summed */
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
} HddAcct;

#define HDD_ACCT_SAMPLES_MAX 256
#define HDD_ACCT_SAMPLE_WIDTH 6

void hdd_acct_depth(HddAcct *a, HddOccupancy *o, hwm_ns now, int delta);
void hdd_acct_wait(uint64_t *n, hwm_ns *sum, hwm_ns *max, hwm_ns from,
                   hwm_ns to);

/* ---- the driver (hddmodel.c) ------------------------------------------- */

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
} BDRVHddState;

/* What a power cut destroyed. */
typedef struct HddCutReport {
    hwm_ns clock_ns;            /* when */
    GArray *lost;               /* HwmExtent: acknowledged, never on media */
    uint64_t lost_bytes;
    uint64_t cached_bytes;      /* write data the driver dropped */
    uint64_t dropped;           /* requests that failed */
} HddCutReport;

/* The node's driver state, or NULL if it is not an hddmodel node. */
BDRVHddState *hdd_state(BlockDriverState *bs);
/*
 * Cut the power now (hddmodel-power-cut: it comes back at once).  Fills
 * *rep (free rep->lost with g_array_unref()); false with errp set if the
 * node cannot be cut now.
 */
bool hdd_cut_power(BDRVHddState *s, HddCutReport *rep, Error **errp);

#endif
