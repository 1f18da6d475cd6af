/* Self-describing records for power-cut checks.  Every 512-byte sector a
 * power-cut workload writes names the write that put it there (run, job,
 * sequence number, offset, index within the write) and carries a checksum,
 * so a verifier can judge each sector on its own after the power came back:
 * intact and from which write, never written, or damaged. */
#ifndef PLATTER_RECORD_H
#define PLATTER_RECORD_H

#include <stdint.h>

#define RECORD_SECTOR_BYTES 512

struct record_id {
    uint64_t run;     /* campaign seed of this run: tells runs apart */
    uint64_t seq;     /* the job's write number, from 0 */
    uint64_t offset;  /* bytes: where the write starts (device or file) */
    uint32_t job;     /* writer thread */
};

enum record_state {
    RECORD_INTACT,    /* a valid sector; *id and *index say whose */
    RECORD_EMPTY,     /* all zero: never written */
    RECORD_DAMAGED,   /* neither: torn, stale garbage, corrupted */
};

/* Fill buf (len: a multiple of RECORD_SECTOR_BYTES) with the write *id. */
void record_fill(uint8_t *buf, uint64_t len, const struct record_id *id);

/* Judge one sector; on RECORD_INTACT set *id and *index (sector number
 * within its write). */
enum record_state record_read_sector(const uint8_t *sector,
                                     struct record_id *id, uint32_t *index);

#endif
