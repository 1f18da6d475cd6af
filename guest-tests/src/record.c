#include "record.h"

#include <string.h>

#include "prng.h"

#define RECORD_MAGIC 0x2d72657474616c70ULL  /* "platter-" as stored (little-endian) */
#define HEADER_BYTES 40
#define SUM_AT (RECORD_SECTOR_BYTES - 8)

static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* FNV-1a, 64 bit: any single changed byte changes the sum. */
static uint64_t checksum(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ULL;
    return h;
}

static void fill_sector(uint8_t *s, const struct record_id *id, uint32_t index)
{
    struct prng r;

    put64(s, RECORD_MAGIC);
    put64(s + 8, id->run);
    put64(s + 16, id->seq);
    put64(s + 24, id->offset);
    put64(s + 32, (uint64_t)id->job << 32 | index);
    /* Payload that differs per sector, so a misplaced copy is caught by
     * the header and a torn one by the sum. */
    prng_seed(&r, id->run ^ id->seq * 0x9e3779b97f4a7c15ULL ^ id->offset ^ index);
    for (int at = HEADER_BYTES; at < SUM_AT; at += 8)
        put64(s + at, prng_next(&r));
    put64(s + SUM_AT, checksum(s, SUM_AT));
}

void record_fill(uint8_t *buf, uint64_t len, const struct record_id *id)
{
    for (uint64_t at = 0; at + RECORD_SECTOR_BYTES <= len; at += RECORD_SECTOR_BYTES)
        fill_sector(buf + at, id, (uint32_t)(at / RECORD_SECTOR_BYTES));
}

enum record_state record_read_sector(const uint8_t *s, struct record_id *id,
                                     uint32_t *index)
{
    static const uint8_t zero[RECORD_SECTOR_BYTES];

    if (!memcmp(s, zero, sizeof(zero)))
        return RECORD_EMPTY;
    if (get64(s) != RECORD_MAGIC || get64(s + SUM_AT) != checksum(s, SUM_AT))
        return RECORD_DAMAGED;
    id->run = get64(s + 8);
    id->seq = get64(s + 16);
    id->offset = get64(s + 24);
    id->job = (uint32_t)(get64(s + 32) >> 32);
    *index = (uint32_t)get64(s + 32);
    return RECORD_INTACT;
}
