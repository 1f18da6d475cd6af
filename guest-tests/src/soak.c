#include "soak.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "record.h"

#define SOAK_F_DIRTY 1u         /* acknowledged, in the dirty list */
#define SOAK_F_DISCARDED 2u     /* discarded since its last write */

/* Losses described on stderr per slice; all are counted. */
#define SOAK_LOSSES_SHOWN 10

int soak_slice_init(struct soak_slice *s, uint64_t run, uint32_t job,
                    uint64_t base_bytes, uint64_t sectors)
{
    *s = (struct soak_slice){ .run = run, .job = job, .base_bytes = base_bytes,
                              .sectors = sectors, .next_seq = 1 };
    s->last = calloc(sectors, sizeof(*s->last));
    s->floor = calloc(sectors, sizeof(*s->floor));
    s->flags = calloc(sectors, sizeof(*s->flags));
    s->dirty = calloc(sectors, sizeof(*s->dirty));
    if (!s->last || !s->floor || !s->flags || !s->dirty) {
        soak_slice_free(s);
        return -1;
    }
    return 0;
}

void soak_slice_free(struct soak_slice *s)
{
    free(s->last);
    free(s->floor);
    free(s->flags);
    free(s->dirty);
    s->last = s->floor = s->dirty = NULL;
    s->flags = NULL;
}

uint64_t soak_write_begin(struct soak_slice *s, uint64_t i, uint64_t n,
                          uint8_t *buf)
{
    struct record_id id = { .run = s->run, .seq = s->next_seq++, .job = s->job,
                            .offset = s->base_bytes + i * SOAK_SECTOR_BYTES };

    record_fill(buf, n * SOAK_SECTOR_BYTES, &id);
    /* issued: from now on the sector may hold it, even if it fails */
    for (uint64_t k = i; k < i + n; k++) {
        s->last[k] = id.seq;
        s->flags[k] &= (uint8_t)~SOAK_F_DISCARDED;
    }
    return id.seq;
}

void soak_write_done(struct soak_slice *s, uint64_t i, uint64_t n, int durable)
{
    for (uint64_t k = i; k < i + n; k++) {
        if (durable) {
            s->floor[k] = s->last[k];
            s->flags[k] &= (uint8_t)~SOAK_F_DIRTY;
        } else if (!(s->flags[k] & SOAK_F_DIRTY)) {
            s->flags[k] |= SOAK_F_DIRTY;
            s->dirty[s->ndirty++] = k;
        }
    }
    s->n.writes++;
    s->n.dsync_writes += durable != 0;
}

void soak_flush_done(struct soak_slice *s, int covers)
{
    s->n.flushes++;
    if (!covers)
        return;
    for (uint64_t d = 0; d < s->ndirty; d++) {
        uint64_t k = s->dirty[d];

        /* a sector discarded or O_DSYNC-written since left the list's
         * meaning: its flag is clear */
        if (s->flags[k] & SOAK_F_DIRTY) {
            s->floor[k] = s->last[k];
            s->flags[k] &= (uint8_t)~SOAK_F_DIRTY;
        }
    }
    s->ndirty = 0;
}

void soak_discard(struct soak_slice *s, uint64_t i, uint64_t n)
{
    for (uint64_t k = i; k < i + n; k++) {
        s->floor[k] = 0;
        s->flags[k] = SOAK_F_DISCARDED;
    }
    s->n.discards++;
}

/* The write a sector holds: 1 and *seq (0 for zeros), or 0 if it is not
 * one of this job's writes of this very sector. */
static int held_write(const struct soak_slice *s, uint64_t k,
                      const uint8_t *sector, uint64_t *seq)
{
    struct record_id id;
    uint32_t index;

    switch (record_read_sector(sector, &id, &index)) {
    case RECORD_EMPTY:
        *seq = 0;
        return 1;
    case RECORD_INTACT:
        *seq = id.seq;
        return id.run == s->run && id.job == s->job && id.seq &&
               id.offset + (uint64_t)index * SOAK_SECTOR_BYTES ==
               s->base_bytes + k * SOAK_SECTOR_BYTES;
    case RECORD_DAMAGED:
        break;
    }
    return 0;
}

static void show_loss(struct soak_slice *s, uint64_t k, int valid,
                      uint64_t seq, int after_cut)
{
    if (s->n.losses > SOAK_LOSSES_SHOWN)
        return;
    fprintf(stderr, "soak: LOSS job %" PRIu32 " sector %" PRIu64 " (%s): ",
            s->job, (s->base_bytes / SOAK_SECTOR_BYTES) + k,
            after_cut ? "after a power cut" : "read");
    if (valid)
        fprintf(stderr, "holds write %" PRIu64, seq);
    else
        fprintf(stderr, "holds no write of this job to this sector");
    fprintf(stderr, ", must hold %s %" PRIu64 " (last issued %" PRIu64 ")%s\n",
            after_cut ? "at least" : "exactly",
            after_cut ? s->floor[k] : s->last[k], s->last[k],
            s->n.losses == SOAK_LOSSES_SHOWN ? "; no more shown" : "");
}

uint64_t soak_check(struct soak_slice *s, uint64_t i, uint64_t n,
                    const uint8_t *buf, int after_cut)
{
    uint64_t bad = 0;

    for (uint64_t k = i; k < i + n; k++) {
        const uint8_t *sector = buf + (k - i) * SOAK_SECTOR_BYTES;
        uint64_t seq = 0;
        int valid = held_write(s, k, sector, &seq), good;

        if (!after_cut) {
            good = valid && (s->flags[k] & SOAK_F_DISCARDED ?
                             seq <= s->last[k] : seq == s->last[k]);
        } else {
            good = valid && seq >= s->floor[k] && seq <= s->last[k];
            if (s->last[k] != s->floor[k]) {
                s->n.at_risk++;
                s->n.kept += good && seq == s->last[k];
                s->n.volatile_lost += good && seq < s->last[k];
            }
        }
        if (!good) {
            bad++;
            s->n.losses++;
            show_loss(s, k, valid, seq, after_cut);
        }
        if (after_cut) {
            /* the cache came back empty: this is on the media.  A bad
             * sector is taken as it is, so one loss is reported once. */
            s->last[k] = s->floor[k] = valid ? seq : s->last[k];
            s->flags[k] = 0;
        }
    }
    if (after_cut) {
        s->n.cut_sectors += n;
    } else {
        s->n.read_sectors += n;
    }
    return bad;
}

void soak_cut_checked(struct soak_slice *s)
{
    s->ndirty = 0;
}
