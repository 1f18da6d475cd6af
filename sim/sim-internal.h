/*
 * platter-sim's host side, shared by the workload files: jobs, the event
 * loop's state, and the helpers workloads use to talk to the device.
 */
#ifndef PLATTER_SIM_INTERNAL_H
#define PLATTER_SIM_INTERNAL_H

#include "workload.h"

/* fsync-append: where a job is in its operation */
typedef enum {
    FS_START,       /* due to start the next append */
    FS_ENTERING,    /* in the write syscall, before the bio goes out */
    FS_WRITING,     /* data write outstanding */
    FS_SYNC,        /* write done: fsync decides what to do */
    FS_IN_LOG,      /* waiting for the log write that covers it */
    FS_AFTER_LOG,   /* log force returned: its own flush, or not */
    FS_FLUSHING,    /* its own flush outstanding */
    FS_JOINED,      /* waiting for another job's flush to complete */
} FsPhase;

typedef struct {
    uint32_t step;            /* dsync: command index within the write */
    bool entering;            /* dsync: in the syscall, before submission */
    FsPhase phase;            /* fsync-append */
    hwm_ns op_start;
    hwm_ns wake;              /* HWM_NEVER while a command is outstanding */
    uint64_t next;            /* sequential position, bytes from its base */
    uint64_t base;
    uint64_t rng;
    uint64_t flush_snap;      /* flushes submitted when its write completed */
    uint64_t flush_no;        /* the number of its own flush */
    uint64_t joined;          /* waiting for this flush number, or 0 */
    bool log_flushed;         /* its log force wrote the iclog itself */
    bool done;
} Job;

/* The xfs log as fsync sees it: one iclog write at a time; fsyncs that
 * arrive meanwhile go in the next one (group commit). */
typedef enum { LOG_IDLE, LOG_PREFLUSH, LOG_WRITE, LOG_POSTFLUSH } LogPhase;

typedef struct {
    LogPhase phase;
    GArray *batch;            /* job indices the write in flight covers */
    GArray *next;             /* jobs waiting for the next write */
    uint64_t flush_no;        /* the preflush's number */
    uint64_t offset;          /* next log block */
} XfsLog;

#define LOG_TAG (1ull << 40)  /* device tag of log commands */

/* The guest's blk-flush on one hardware queue (--flush-queues): one FLUSH
 * at a time; flush requests arriving meanwhile wait and are all completed by
 * the next FLUSH (block/blk-flush.c, blk_kick_flush()). */
typedef struct {
    bool busy;                /* this queue's FLUSH is at the device */
    GArray *running;          /* tags (job index or LOG_TAG) it completes */
    GArray *pending;          /* tags waiting for the next FLUSH */
} FlushQueue;

#define FLUSHQ_TAG (1ull << 41)  /* device tag of queue q's FLUSH: + q */

typedef struct {
    HwmDevice *dev;
    const SimParams *p;
    SimResult *r;
    Job *jobs;
    uint64_t flush_submitted;     /* flush numbering (xfs_buftarg_flush_start) */
    uint64_t flush_completed_max; /* highest completed (bt_flush_completed) */
    XfsLog log;
    FlushQueue *fq;               /* p->flush_queues of them */
    uint64_t explained;
    /* the host's request queue in front of the device, as the kernel's
     * block layer holds requests while the device's queue is full */
    GQueue host_q;                /* HostReq, FIFO */
    uint32_t outstanding;         /* commands at the device */
    hwm_ns last_event;            /* the latest event the host was given */
    /* replay */
    guint next_trace;
    bool *completed;              /* per trace request */
} Sim;

bool sim_submit(Sim *s, hwm_ns t, uint64_t tag, HwmOp op, uint32_t flags,
                uint64_t off, uint64_t len, GError **errp);
uint64_t sim_job_offset(Sim *s, Job *j);
void sim_finish_op(Sim *s, Job *j, hwm_ns end);

/* fsync-append (fsync.c) */
void fsync_init(Sim *s);
void fsync_destroy(Sim *s);
bool fsync_step(Sim *s, uint32_t ji, hwm_ns t, GError **errp);
bool fsync_completed(Sim *s, const HwmEvent *e, GError **errp);

#endif
