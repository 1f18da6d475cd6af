/*
 * hw-model unit tests: the read path (readcache.c): segment hits and read-ahead joins, the
 * read-ahead stopped by a command or at the track's end, data streamed to
 * the host, overheads by kind, zero-latency reads and segments shared
 * with dirty data.
 * GLib test framework, TAP with --tap; the helpers are model-test.h's.
 */
#include <string.h>

#include "drive.h"
#include "model-test.h"

/* seek_profile with a buffer and the read-path keys in `extra` */
static HwmDevice *read_device(const char *extra, HwmTristate wce,
                              HwmProfile **pp)
{
    g_autofree char *text = g_strconcat(seek_profile, "cache_mb = 8\n",
                                        extra, NULL);
    *pp = parse(text);
    return device(*pp, wce, HWM_POLICY_PROFILE);
}

static HwmEvent read_at(HwmDevice *d, hwm_ns t, uint64_t off, uint64_t len)
{
    static uint64_t tag;
    submit(d, t, ++tag, HWM_OP_READ, 0, off, len);
    return next_completion(d);
}

static HwmStats stats_of(HwmDevice *d)
{
    HwmStats st;
    hwm_stats(d, &st);
    return st;
}

/* 1e9 * 60 / 7200 / 2000 ns per sector, exactly, as a fraction */
#define SEEK_PROFILE_SECTORS_NS(n) ((hwm_ns)(n) * 60000000000ll / 7200 / 2000)

static void test_read_hit_and_join(void)
{
    g_autoptr(HwmProfile) p = NULL;
    g_autoptr(HwmDevice) d = read_device("", HWM_OFF, &p);

    HwmEvent a = read_at(d, 0, 0, 65536);
    g_assert_false(a.cache_hit);
    /* the same data again: from its segment, no media */
    HwmEvent b = read_at(d, a.time_ns, 0, 65536);
    g_assert_true(b.cache_hit);
    g_assert_cmpint(b.t.seek_ns + b.t.rotate_ns, ==, 0);
    /* the next 64 KiB: the read-ahead is on its way there; it ends 128
     * sectors after the first read's media end, to the ns */
    HwmEvent c = read_at(d, b.time_ns, 65536, 65536);
    g_assert_true(c.read_ahead);
    hwm_ns x = (65536ll * 1000000000ll + 599999999) / 600000000;
    hwm_ns want = a.time_ns - x + SEEK_PROFILE_SECTORS_NS(128) + x;
    g_assert_cmpint(c.time_ns, >=, want - 1);
    g_assert_cmpint(c.time_ns, <=, want + 1);
    HwmStats st = stats_of(d);
    g_assert_cmpuint(st.read_segment_hits, ==, 1);
    g_assert_cmpuint(st.cache_read_hits, ==, 1);
    g_assert_cmpuint(st.read_ahead_joins, ==, 1);
}

/* A far read right after a read: with abandon it goes at once, exactly as
 * with no read-ahead; without, it waits for the read-ahead to end. */
static void test_read_ahead_abandon(void)
{
    const char *extra[] = { "read_ahead = off\n", "read_ahead_abandon = yes\n",
                            "read_ahead_abandon = no\n" };
    hwm_ns done[3];
    HwmStats st[3];

    for (int i = 0; i < 3; i++) {
        g_autoptr(HwmProfile) p = NULL;
        g_autoptr(HwmDevice) d = read_device(extra[i], HWM_OFF, &p);
        HwmEvent a = read_at(d, 0, 0, 4096);
        done[i] = read_at(d, a.time_ns, 200ull << 20, 4096).time_ns;
        st[i] = stats_of(d);
    }
    g_assert_cmpint(done[1], ==, done[0]);
    g_assert_cmpint(done[2], >, done[0]);
    g_assert_cmpuint(st[0].read_ahead_stops, ==, 0);
    g_assert_cmpuint(st[1].read_ahead_stops, ==, 1);
    g_assert_cmpuint(st[2].read_ahead_stops, ==, 0);
    /* 1 MiB segment ahead of the 4 KiB read, all of it without abandon */
    g_assert_cmpuint(st[2].read_ahead_bytes, ==, 1 << 20);
    g_assert_cmpuint(st[1].read_ahead_bytes, <, 1 << 20);
}

/* A read that misses streams to the host as its sectors come off the
 * media: behind a 150 MB/s link (below the 123 MB/s media rate of a
 * track, but 7 ms for 1 MiB) a 1 MiB read ends one sector's link time
 * after its media read, not 7 ms after,
 * and a second read that rides on the read-ahead likewise.  Timed against
 * the same reads behind a 1 TB/s link, where the media read is all. */
static void test_read_streams_to_host(void)
{
    /* 512 B at 150 MB/s: 3413.3 ns, rounded up */
    hwm_ns sector_link = (512ll * 1000000000ll + 149999999) / 150000000;
    HwmEvent e[2][2];

    for (int slow = 0; slow < 2; slow++) {
        g_autoptr(HwmProfile) p = NULL;
        g_autoptr(HwmDevice) d = read_device(slow ? "interface_mb_s = 150\n"
                                                  : "interface_mb_s = 1000000\n",
                                             HWM_OFF, &p);
        e[slow][0] = read_at(d, 0, 0, 1 << 20);
        /* the next MiB: the read-ahead is under way when it comes */
        e[slow][1] = read_at(d, e[slow][0].time_ns, 1 << 20, 1 << 20);
        g_assert_false(e[slow][0].read_ahead);
        g_assert_true(e[slow][1].read_ahead);
    }
    for (int k = 0; k < 2; k++) {
        /* fast: done = media end + 1 ns (512 B at 1 TB/s, rounded up); the
         * read-ahead runs on the same media times either way */
        hwm_ns media_end = e[0][k].time_ns - 1;
        g_assert_cmpint(e[1][k].time_ns, ==, media_end + sector_link);
        /* the columns add up: the transfer is the media's plus what the
         * media read did not hide */
        HwmBreakdown b = e[1][k].t;
        g_assert_cmpint(b.overhead_ns + b.seek_ns + b.rotate_ns +
                        b.transfer_ns + b.destage_ns + b.queue_ns, ==,
                        e[1][k].time_ns - e[1][k].submit_ns);
    }
    g_assert_cmpint(e[1][0].t.transfer_ns, ==,
                    e[0][0].t.transfer_ns - 1 + sector_link);
}

/* Reads of `readers` closed-loop sequential 4 KiB readers completed in
 * 100 ms: of the same data (fio's numjobs over one region; apart = 0), or
 * each `apart` bytes after the one before (offset_increment), on seek_profile
 * with the read-path keys in `extra`; `hits` gets the reads the buffer
 * served (segment hits and read-ahead joins). */
static uint64_t streams_done(int readers, uint64_t apart, const char *extra,
                             uint64_t *hits)
{
    g_autoptr(HwmProfile) p = NULL;
    g_autoptr(HwmDevice) d = read_device(extra, HWM_OFF, &p);
    uint64_t next[8] = { 0 }, done = 0, tag = 0;

    for (int j = 0; j < readers; j++) {
        next[j] = apart * (uint64_t)j;
        submit(d, 0, (tag++ << 3) | (uint64_t)j, HWM_OP_READ, 0, next[j], 4096);
    }
    for (;;) {
        HwmEvent e = next_completion(d);
        if (e.time_ns > 100 * MS) {
            HwmStats st = stats_of(d);
            *hits = st.read_segment_hits + st.read_ahead_joins;
            return done;
        }
        done++;
        uint64_t j = e.tag & 7;
        next[j] += 4096;
        submit(d, e.time_ns, (tag++ << 3) | j, HWM_OP_READ, 0, next[j], 4096);
    }
}

/* Several streams at once, 200 MiB apart (a backup's readers; fio's
 * offset_increment).  A drive that abandons its read-ahead for the next
 * command (read_ahead_abandon = yes, every profile shipped: DIXtrac's
 * "Minimum read-ahead" is 0 blocks on DiskSim's ten drives) never reads
 * ahead while another stream's read waits, so each read pays a seek and
 * a rotation.  One that finishes its read-ahead first (no) serves each
 * stream from its segment.  Was (issue 38): `no` started no read-ahead
 * while a command waited either, so its streams collapsed the same way
 * (every read a media read, no hits). */
static void test_streams_apart(void)
{
    uint64_t hits, one = streams_done(1, 0, "read_ahead_abandon = no\n", &hits);

    for (int n = 2; n <= 4; n++) {
        uint64_t keep = streams_done(n, 200ull << 20, "read_ahead_abandon = no\n",
                                     &hits);
        /* each stream's reads but its first come from its segment */
        g_assert_cmpuint(hits, >=, keep * 9 / 10);
        g_assert_cmpuint(keep, >=, one * 9 / 10);
        uint64_t drop = streams_done(n, 200ull << 20, "read_ahead_abandon = yes\n",
                                     &hits);
        /* every read from the media */
        g_assert_cmpuint(hits, ==, 0);
        g_assert_cmpuint(keep, >, drop * 4);
    }
}

/* readers of one region (streams_done with apart 0) */
static uint64_t readers_done(int readers)
{
    uint64_t hits;
    return streams_done(readers, 0, "", &hits);
}

/* Several readers of one sequential stream: a read that queued behind a
 * read of the same sectors is served from the buffer once they are in, and
 * the read-ahead still runs, so each reader goes at a lone reader's pace.
 * Was (issue 38): past two readers every read waited for the media a
 * revolution later (357 IOPS for three on every rotating profile, against
 * 14,064 for two). */
static void test_readers_of_one_stream(void)
{
    uint64_t one = readers_done(1);
    g_assert_cmpuint(one, >, 100);
    for (int n = 2; n <= 4; n++) {
        uint64_t all = readers_done(n);
        g_assert_cmpuint(all, >=, one * (uint64_t)n * 9 / 10);
        g_assert_cmpuint(all, <=, one * (uint64_t)n + (uint64_t)n);
    }
}

/* Controller overhead by kind: hit or miss, after a read or a write
 * (DiskSim's eight; profile.h).  Each command runs alone on an idle drive,
 * so the overhead column is the kind's figure; an after-write key not
 * given takes its after-read key's value. */
static void test_overhead_by_kind(void)
{
    g_autoptr(HwmProfile) p = NULL;
    g_autoptr(HwmDevice) d = read_device(
        "read_hit_overhead_us = 11\nread_miss_overhead_us = 13\n"
        "write_hit_overhead_us = 17\nwrite_miss_overhead_us = 19\n"
        "read_hit_after_write_overhead_us = 23\n"
        "read_miss_after_write_overhead_us = 29\n"
        "write_hit_after_write_overhead_us = 31\n", HWM_ON, &p);
    static const struct {
        HwmOp op;
        uint32_t flags;
        uint64_t off;
        hwm_ns overhead_us;
    } seq[] = {
        { HWM_OP_WRITE, 0, 0, 17 },             /* first: as after a read */
        { HWM_OP_WRITE, 0, 4096, 31 },          /* into the cache */
        { HWM_OP_READ, 0, 0, 23 },              /* from the write cache */
        { HWM_OP_READ, 0, 1 << 30, 13 },        /* from the media */
        { HWM_OP_READ, 0, (1 << 30) + 4096, 11 },   /* read-ahead's */
        { HWM_OP_WRITE, HWM_REQ_FUA, 1 << 20, 19 }, /* in place */
        { HWM_OP_WRITE, HWM_REQ_FUA, 2 << 20, 19 }, /* after a write: none
                                                   given, as after a read */
        { HWM_OP_READ, 0, 3u << 30, 29 },
        { HWM_OP_FLUSH, 0, 0, 0 },             /* command_overhead_us */
    };
    hwm_ns t = 0;

    for (size_t i = 0; i < G_N_ELEMENTS(seq); i++) {
        bool flush = seq[i].op == HWM_OP_FLUSH;
        submit(d, t, i, seq[i].op, seq[i].flags, flush ? 0 : seq[i].off,
               flush ? 0 : 4096);
        HwmEvent e = next_completion(d);
        g_assert_cmpint(e.t.overhead_ns, ==, seq[i].overhead_us * 1000);
        t = e.time_ns + 50 * MS;                /* the read-ahead is done */
    }
}

static void test_read_ahead_track(void)
{
    g_autoptr(HwmProfile) p = NULL;
    g_autoptr(HwmDevice) d = read_device("read_ahead = track\n", HWM_OFF, &p);
    HwmEvent ev;

    read_at(d, 0, 100 * 512, 8 * 512);
    while (hwm_next_event(d) != HWM_NEVER) {
        hwm_advance(d, hwm_next_event(d), &ev, 1);
    }
    /* to the end of the 2000-sector track, no further */
    g_assert_cmpuint(stats_of(d).read_ahead_bytes, ==, (2000 - 108) * 512);
}

/* Read-on-arrival: a whole track takes one revolution from the first
 * sector boundary after the head arrives; reading in order waits for the
 * track's first sector first.  The link is fast (1 TB/s), so what the
 * media read leaves of the host transfer is at most `x`. */
static void test_zero_latency_read(void)
{
    hwm_ns rev = 60000000000ll / 7200;
    hwm_ns x = 1024000ll * 1000000000ll / 1000000000000ll;
    uint64_t track = 10ull * 4 * 2000 * 512;    /* cylinder 10, head 0 */
    hwm_ns longest[2] = { 0, 0 };

    for (int zl = 0; zl < 2; zl++) {
        g_autoptr(HwmProfile) p = NULL;
        g_autoptr(HwmDevice) d = read_device(zl ? "zero_latency_read = yes\n"
                                                  "interface_mb_s = 1000000\n"
                                                : "zero_latency_read = no\n"
                                                  "interface_mb_s = 1000000\n",
                                             HWM_OFF, &p);
        hwm_ns t = 0;
        for (int i = 0; i < 20; i++) {
            read_at(d, t, 0, 4096);   /* move away: the next read seeks */
            HwmEvent e = read_at(d, t + 40 * MS + i * 777777, track, 1024000);
            hwm_ns spin = e.t.rotate_ns + e.t.transfer_ns;
            if (zl) {
                /* at most the rest of the sector it arrives in more */
                g_assert_cmpint(spin, >=, rev - 1);
                g_assert_cmpint(spin, <=,
                                rev + SEEK_PROFILE_SECTORS_NS(1) + 1 + x);
            } else {
                g_assert_cmpint(spin, >=, rev - 1);
            }
            longest[zl] = MAX(longest[zl], spin);
            t = e.time_ns + 10 * MS;
        }
    }
    g_assert_cmpint(longest[0], >, rev + rev / 2);
}

/* Shared segments give way to dirty data; a buffer of their own does not. */
static void test_read_segments_shared(void)
{
    for (int shared = 0; shared < 2; shared++) {
        g_autoptr(HwmProfile) p = NULL;
        g_autofree char *extra = g_strdup_printf(
            "read_segments = 2\n"
            "read_segments_shared = %s\ncache_high_water_pct = 100\n"
            "idle_destage_delay_ms = 1000000\n", shared ? "yes" : "no");
        g_autoptr(HwmDevice) d = read_device(extra, HWM_ON, &p);
        HwmEvent a = read_at(d, 0, 0, 65536);
        g_assert_true(read_at(d, a.time_ns, 0, 65536).cache_hit);
        /* fill the 8 MiB buffer with dirty data */
        submit(d, a.time_ns + MS, 99, HWM_OP_WRITE, 0, 100ull << 20, 8 << 20);
        HwmEvent w = next_completion(d);
        g_assert_false(w.durable);
        /* the segment is a ring the read-ahead filled past the first
         * read: its second 64 KiB is still there, unless evicted */
        g_assert_cmpint(read_at(d, w.time_ns, 65536, 65536).cache_hit, ==,
                        !shared);
    }
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/read/segment-hit-and-join", test_read_hit_and_join);
    g_test_add_func("/read/read-ahead-abandon", test_read_ahead_abandon);
    g_test_add_func("/read/read-ahead-track", test_read_ahead_track);
    g_test_add_func("/read/streams-to-host", test_read_streams_to_host);
    g_test_add_func("/device/overhead-by-kind", test_overhead_by_kind);
    g_test_add_func("/read/zero-latency", test_zero_latency_read);
    g_test_add_func("/read/segments-shared", test_read_segments_shared);
    g_test_add_func("/read/readers-of-one-stream", test_readers_of_one_stream);
    g_test_add_func("/read/streams-apart", test_streams_apart);
    return g_test_run();
}
