/*
 * platter-sim's engine as its workloads see it, fio's engine shape: the
 * engine (engine.c) owns the virtual clock, the host's request queue and
 * the accounting; a workload is one file with one WorkloadOps table
 * (workload.h) and its own state, and talks to the engine only through the
 * sim_* helpers below.  The engine calls a workload only through its table.
 */
#ifndef PLATTER_ENGINE_H
#define PLATTER_ENGINE_H

#include "workload.h"

struct Sim {
    HwmDevice *dev;
    const SimParams *p;
    SimResult *r;
    void *wl;                     /* the workload's state */
    hwm_ns now;                   /* the event loop's current time */
    uint64_t explained;
    /* the host's request queue in front of the device, as the kernel's
     * block layer holds requests while the device's queue is full */
    GQueue host_q;                /* HostReq, FIFO */
    uint32_t outstanding;         /* commands at the device */
    /* the device's tag of a command is its number in the order the device
     * got them */
    GHashTable *at_device;        /* &HostReq.seq -> HostReq, not completed */
    uint64_t submitted;           /* commands the device got */
    HwmTraceOrder *order;         /* --trace-out's line order, or NULL */
    hwm_ns last_event;            /* the latest event the host was given */
};

/* Queue a command from the workload (tag: its own numbering) at `t`; it
 * goes to the device as soon as the device's queue has room. */
bool sim_submit(Sim *s, hwm_ns t, uint64_t tag, HwmOp op, uint32_t flags,
                uint64_t off, uint64_t len, GError **errp);
/* Put a request in the host queue without handing it on (a trace request:
 * `line` names it in errors); its host-queue wait counts from `queued`. */
void sim_enqueue(Sim *s, hwm_ns queued, const HwmRequest *req, uint32_t line);
/* Hand the host queue to the device while it has room. */
bool sim_host_drain(Sim *s, hwm_ns t, GError **errp);
/* Run the device to `t`, giving every completion to the workload. */
bool sim_deliver(Sim *s, hwm_ns t, GError **errp);
/* Cut the power at `at`: what was queued or in flight is gone. */
void sim_power_cut(Sim *s, hwm_ns at);
/* A user-visible operation of `bytes` from `start` to `end`: counted in
 * ios, bytes and the latency histogram. */
void sim_record_op(Sim *s, hwm_ns start, hwm_ns end, uint64_t bytes);
/* The next sequential offset of a job whose share of the span starts at
 * `base` (`*next`: bytes into it; the span's blocks shared by p->jobs). */
uint64_t sim_seq_offset(const SimParams *p, uint64_t base, uint64_t *next);
/* `s`'s index in `names` (n of them), or -1 */
int sim_name_index(const char *const *names, size_t n, const char *s);
/* --span must give each of the jobs a block (dsync, fsync-append). */
bool sim_check_span_jobs(const SimParams *p, GError **errp);
/* The span (--offset + `span_opt`, "span" or "size") must end on the
 * device. */
bool sim_check_region(const SimParams *p, const HwmDevice *dev,
                      const char *span_opt, GError **errp);

#endif
