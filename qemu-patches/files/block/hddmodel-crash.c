/*
 * hddmodel: crash-journal=FILE, what a power loss for good may have left.
 *
 * A drive with a volatile cache promises only this: a FUA write is on the
 * media when it completes, and every write that completed before a flush
 * was received is on the media when that flush completes.  Of the other
 * writes, any part may have reached the media before the power went, in
 * any order.  The model writes its cache back in one order, so its cut is
 * one of those crash states; the journal holds what the host needs to
 * build every other one (platter powercut --states):
 *
 *   writes    each write acknowledged since the durable point (the last
 *             point every earlier write is durable): its place in the
 *             order of acknowledgements, range, data and whether it was
 *             durable (FUA, or no write cache) when acknowledged
 *   destages  the model's write-backs since then, in order, each with the
 *             number of writes acknowledged before it (its data is the
 *             newest such write's), so the model's own order can be
 *             replayed a prefix at a time
 *   before    the media as of the durable point, over every byte a
 *             journalled write covers
 *
 * A state is `before`, then the durable writes and a chosen subset of the
 * others, in the order of acknowledgement (a newer write's bytes over an
 * older one's).  Nothing here changes what the guest sees; the journal
 * costs host memory only (at most HDD_CRASH_MAX_BYTES, then it stops and
 * says so, as it does after a write it cannot place: one while the VM is
 * stopped) and one image read per acknowledged write.
 *
 * The file: one line of JSON (format "platter-crash-journal", version 1,
 * offsets and lengths in bytes, data_at an offset into what follows), a
 * newline, then the data.  Written when the power is lost for good
 * (power-cut-ns, power-cut-request), to FILE.tmp and renamed.
 *
 * Owns s->crash and req->acked_before.  Makes no state transitions.
 *
 * Copyright (C) 2026 the platter authors.
 *
 * This work is licensed under the terms of the GNU GPL, version 2 or later.
 * See the COPYING file in the top-level directory.
 */

#include "qemu/osdep.h"
#include "qemu/error-report.h"
#include "qapi/error.h"
#include "block/block-io.h"
#include "block/block_int.h"

#include "hddmodel.h"

/* data the journal holds at most (writes and `before`), bytes: 256 MiB */
#define HDD_CRASH_MAX_BYTES (256 * 1024 * 1024)

typedef struct HddCrashWrite {
    uint64_t seq;               /* place in the order of acknowledgement */
    uint64_t offset;            /* bytes */
    uint64_t length;            /* bytes */
    bool durable;               /* FUA or write-through when acknowledged */
    uint8_t *data;              /* length bytes */
} HddCrashWrite;

typedef struct HddCrashDestage {
    uint64_t offset;            /* bytes */
    uint64_t length;            /* bytes */
    uint64_t after_seq;         /* writes acknowledged before it */
} HddCrashDestage;

struct HddCrash {
    char *path;
    GArray *writes;             /* HddCrashWrite, in seq order */
    GArray *destages;           /* HddCrashDestage, in the model's order */
    HddMap *before;             /* the media as of the durable point */
    uint64_t acked;             /* writes acknowledged so far */
    uint64_t durable_seq;       /* writes up to this one are durable */
    uint64_t write_bytes;       /* data held in writes */
    const char *gave_up;        /* why the journal stopped, or NULL */
};

static void hdd_crash_write_free(gpointer p)
{
    g_free(((HddCrashWrite *)p)->data);
}

/* Forget the journal: everything up to now is durable or gone. */
static void hdd_crash_reset(HddCrash *c)
{
    g_array_set_size(c->writes, 0);
    g_array_set_size(c->destages, 0);
    hdd_map_clear(c->before, NULL, NULL);
    c->write_bytes = 0;
    c->durable_seq = c->acked;
}

/*
 * `before` keeps only the bytes under the writes still in doubt: in a run
 * that always has a write in flight the journal never empties, and the
 * bytes of every write since the run began would pile up.
 */
static void hdd_crash_prune(HddCrash *c)
{
    HddMap *keep = hdd_map_new();
    unsigned i;

    for (i = 0; i < c->writes->len; i++) {
        HddCrashWrite *w = &g_array_index(c->writes, HddCrashWrite, i);
        uint8_t *buf = g_malloc(w->length);

        /* (`before` covers every byte of a journalled write) */
        hdd_map_overlay(c->before, w->offset, w->length, buf);
        hdd_map_put(keep, w->offset, w->length, buf);
    }
    hdd_map_free(c->before);
    c->before = keep;
}

/*
 * The durable point moves past the writes up to `seq` (a flush made them
 * durable) and then past each durable write that follows: their data
 * joins `before`, and the write-backs of it leave the journal.
 */
static void hdd_crash_settle(HddCrash *c, uint64_t seq)
{
    unsigned n = 0, d = 0;

    for (; n < c->writes->len; n++) {
        HddCrashWrite *w = &g_array_index(c->writes, HddCrashWrite, n);

        if (w->seq > seq && !w->durable) {
            break;
        }
        hdd_map_put(c->before, w->offset, w->length, w->data);
        w->data = NULL;         /* (the map has it) */
        c->write_bytes -= w->length;
        c->durable_seq = w->seq;
    }
    c->durable_seq = MAX(c->durable_seq, MIN(seq, c->acked));
    if (n == c->writes->len) {
        /* nothing is in doubt */
        hdd_crash_reset(c);
        return;
    }
    if (n) {
        g_array_remove_range(c->writes, 0, n);
        hdd_crash_prune(c);
    }
    while (d < c->destages->len &&
           g_array_index(c->destages, HddCrashDestage, d).after_seq <=
           c->durable_seq) {
        d++;
    }
    g_array_remove_range(c->destages, 0, d);
}

bool hdd_crash_open(BDRVHddState *s, const char *path, Error **errp)
{
    HddCrash *c;
    int fd;

    /* fail at open, not at the cut: the file's directory must take it */
    fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
        error_setg_errno(errp, errno, "hddmodel: crash journal '%s'", path);
        return false;
    }
    close(fd);
    c = g_new0(HddCrash, 1);
    c->path = g_strdup(path);
    c->writes = g_array_new(false, false, sizeof(HddCrashWrite));
    g_array_set_clear_func(c->writes, hdd_crash_write_free);
    c->destages = g_array_new(false, false, sizeof(HddCrashDestage));
    c->before = hdd_map_new();
    s->crash = c;
    return true;
}

void hdd_crash_free(BDRVHddState *s)
{
    HddCrash *c = s->crash;

    if (c) {
        g_array_unref(c->writes);
        g_array_unref(c->destages);
        hdd_map_free(c->before);
        g_free(c->path);
        g_free(c);
        s->crash = NULL;
    }
}

/*
 * The journal stops for good: a state built from what it has would be
 * wrong.  The cut's file says why.
 */
static void hdd_crash_give_up(BDRVHddState *s, const char *why)
{
    HddCrash *c = s->crash;

    if (c && !c->gave_up) {
        warn_report("hddmodel: %s: the crash journal stops: %s",
                    bdrv_get_node_name(s->bs), why);
        hdd_crash_reset(c);
        c->gave_up = why;
    }
}

void hdd_crash_untimed_write(BDRVHddState *s)
{
    if (s->crash && s->crash->writes->len) {
        hdd_crash_give_up(s, "a write while the VM was stopped");
    }
}

void GRAPH_RDLOCK hdd_crash_acked(BDRVHddState *s, HddReq *req, bool durable)
{
    HddCrash *c = s->crash;
    uint64_t off = req->hr.offset, len = req->hr.length;
    HddCrashWrite w;
    uint8_t *media;
    int ret;

    if (!c || c->gave_up) {
        return;
    }
    c->acked++;
    if (durable && !c->writes->len) {
        /* nothing before it is in doubt, nor is it */
        c->durable_seq = c->acked;
        return;
    }
    if (c->write_bytes + hdd_map_bytes(c->before) + 2 * len >
        HDD_CRASH_MAX_BYTES) {
        hdd_crash_give_up(s, "more than 256 MiB of writes in doubt");
        return;
    }
    /*
     * `before` gains what the media holds under this write now, except
     * where it already has the bytes: those changed since the durable
     * point (by an earlier journalled write), and it keeps what they were.
     * Where it has none, nothing journalled touched them, so the media
     * still holds what it held at the durable point.
     */
    media = g_malloc(len);
    ret = bdrv_pread(s->bs->file, off, len, media, 0);
    if (ret < 0) {
        g_free(media);
        hdd_crash_give_up(s, "an image read failed");
        return;
    }
    hdd_media_overlay(s, off, len, media);
    hdd_map_overlay(c->before, off, len, media);
    hdd_map_put(c->before, off, len, media);
    w = (HddCrashWrite) {
        .seq = c->acked,
        .offset = off,
        .length = len,
        .durable = durable,
        .data = g_memdup2(req->buf, len),
    };
    g_array_append_val(c->writes, w);
    c->write_bytes += len;
}

void hdd_crash_flush_submitted(BDRVHddState *s, HddReq *req)
{
    if (s->crash) {
        req->acked_before = s->crash->acked;
    }
}

void hdd_crash_flushed(BDRVHddState *s, HddReq *req)
{
    HddCrash *c = s->crash;

    if (c && !c->gave_up && req->acked_before > c->durable_seq) {
        hdd_crash_settle(c, req->acked_before);
    }
}

void hdd_crash_destaged(BDRVHddState *s, uint64_t offset, uint64_t length)
{
    HddCrash *c = s->crash;
    HddCrashDestage d = { offset, length, 0 };

    if (!c || c->gave_up || !c->writes->len) {
        return;
    }
    d.after_seq = c->acked;
    g_array_append_val(c->destages, d);
}

typedef struct HddCrashDump {
    GString *json;
    GByteArray *data;
    bool first;
} HddCrashDump;

static void hdd_crash_dump_before(uint64_t offset, uint64_t length,
                                  const uint8_t *data, void *opaque)
{
    HddCrashDump *d = opaque;

    g_string_append_printf(d->json, "%s[%" PRIu64 ",%" PRIu64 ",%u]",
                           d->first ? "" : ",", offset, length, d->data->len);
    g_byte_array_append(d->data, data, length);
    d->first = false;
}

/* The journal to its file, then forgotten: the power is gone. */
void hdd_crash_cut(BDRVHddState *s, bool for_good)
{
    HddCrash *c = s->crash;
    HddCrashDump d = { g_string_new(NULL), g_byte_array_new(), true };
    g_autofree char *tmp = NULL;
    unsigned i;
    bool ok;
    FILE *f;

    if (!c || !for_good) {
        goto out;
    }
    g_string_append_printf(d.json, "{\"format\":\"platter-crash-journal\","
                           "\"version\":1,\"node\":\"%s\",\"clock_ns\":%"
                           PRId64 ",\"sector_bytes\":%u,\"acked\":%" PRIu64
                           ",\"durable_seq\":%" PRIu64 ",\"complete\":%s,"
                           "\"gave_up\":\"%s\",\"writes\":[",
                           bdrv_get_node_name(s->bs), s->now,
                           HWM_SECTOR_BYTES, c->acked, c->durable_seq,
                           c->gave_up ? "false" : "true",
                           c->gave_up ? c->gave_up : "");
    for (i = 0; i < c->writes->len; i++) {
        HddCrashWrite *w = &g_array_index(c->writes, HddCrashWrite, i);

        g_string_append_printf(d.json, "%s[%" PRIu64 ",%" PRIu64 ",%" PRIu64
                               ",%d,%u]", i ? "," : "", w->seq, w->offset,
                               w->length, w->durable, d.data->len);
        g_byte_array_append(d.data, w->data, w->length);
    }
    g_string_append(d.json, "],\"destages\":[");
    for (i = 0; i < c->destages->len; i++) {
        HddCrashDestage *x = &g_array_index(c->destages, HddCrashDestage, i);

        g_string_append_printf(d.json, "%s[%" PRIu64 ",%" PRIu64 ",%" PRIu64
                               "]", i ? "," : "", x->offset, x->length,
                               x->after_seq);
    }
    g_string_append(d.json, "],\"before\":[");
    hdd_map_foreach_run(c->before, hdd_crash_dump_before, &d);
    g_string_append_printf(d.json, "],\"data_bytes\":%u}\n", d.data->len);

    tmp = g_strdup_printf("%s.tmp", c->path);
    f = fopen(tmp, "wb");
    ok = f && fwrite(d.json->str, 1, d.json->len, f) == d.json->len &&
         fwrite(d.data->data, 1, d.data->len, f) == d.data->len;
    if (f && fclose(f) != 0) {
        ok = false;
    }
    if (!ok || rename(tmp, c->path) != 0) {
        error_report("hddmodel: %s: cannot write the crash journal '%s': %s",
                     bdrv_get_node_name(s->bs), c->path, strerror(errno));
        unlink(tmp);
    }
out:
    if (c) {
        hdd_crash_reset(c);
    }
    g_string_free(d.json, true);
    g_byte_array_unref(d.data);
}
