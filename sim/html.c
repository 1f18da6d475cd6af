/*
 * platter-sim --html: the record as JSON inside a page template.  Every
 * place on the media comes from the model (hwm_device_locate()), so the
 * page never guesses the geometry: it only interpolates between the
 * instants the record gives.
 */
#include <inttypes.h>
#include <string.h>

#include "html.h"

#define REV_RPM_NS 60000000000ull   /* one revolution, ns x rpm */

/* A JSON string that is safe inside <script>: '<' escaped. */
static void json_str(GString *s, const char *v)
{
    g_string_append_c(s, '"');
    for (const unsigned char *c = (const unsigned char *)v; *c; c++) {
        if (*c == '"' || *c == '\\') {
            g_string_append_printf(s, "\\%c", *c);
        } else if (*c < 0x20 || *c == '<' || *c == '>' || *c == '&') {
            g_string_append_printf(s, "\\u%04x", *c);
        } else {
            g_string_append_c(s, (char)*c);
        }
    }
    g_string_append_c(s, '"');
}

/* The first offset of each recording zone, by bisection on the zone
 * hwm_device_locate() reports: [first cylinder, sectors per track]. */
static void append_zones(GString *s, const HwmDevice *dev,
                         const HwmLocation *first)
{
    uint64_t sectors = hwm_device_capacity_bytes(dev) / HWM_SECTOR_BYTES;
    uint64_t lo = 0;
    HwmLocation at;

    g_string_append(s, "\"zones\":[");
    for (uint32_t z = 0; z < first->zones; z++) {
        /* the first sector of zone z lies in [lo, sectors) */
        uint64_t a = lo, b = sectors - 1;
        while (a < b) {
            uint64_t mid = a + (b - a) / 2;
            hwm_device_locate(dev, mid * HWM_SECTOR_BYTES, &at);
            if (at.zone >= z) {
                b = mid;
            } else {
                a = mid + 1;
            }
        }
        hwm_device_locate(dev, a * HWM_SECTOR_BYTES, &at);
        g_string_append_printf(s, "%s[%u,%u]", z ? "," : "", at.cylinder,
                               at.sectors_per_track);
        lo = a;
    }
    g_string_append(s, "],");
}

/* Where `offset` is, as the columns "cyl","head","sector","spt","angle",
 * "unit" (flash: only the die means anything). */
static void append_place(GString *s, const HwmDevice *dev, uint64_t offset)
{
    HwmLocation at = { 0 };
    hwm_device_locate(dev, offset, &at);
    g_string_append_printf(s, ",%u,%u,%u,%u,%u,%u", at.cylinder, at.head,
                           at.sector, at.sectors_per_track, at.angle_mdeg,
                           at.unit);
}

static void append_record(GString *s, const HtmlRecord *rec,
                          const HwmDevice *dev)
{
    HwmLocation dev_at = { 0 };
    uint32_t rpm = hwm_device_rotation_rpm(dev);

    hwm_device_locate(dev, 0, &dev_at);
    g_string_append_printf(s, "{\"v\":%d,\"command\":", HTML_RECORD_VERSION);
    json_str(s, rec->command);
    /* the page's words: null where not given */
    const char *words[][2] = { { "question", rec->question },
                               { "notice", rec->notice } };
    for (size_t i = 0; i < G_N_ELEMENTS(words); i++) {
        g_string_append_printf(s, ",\"%s\":", words[i][0]);
        if (words[i][1]) {
            json_str(s, words[i][1]);
        } else {
            g_string_append(s, "null");
        }
    }
    g_string_append_printf(s, ",\"rpm\":%u,\"rev_ns\":%" PRIu64 ","
                           "\"capacity\":%" PRIu64 ",\"queue_depth\":%u,"
                           "\"write_cache\":%s,\"fua\":%s,"
                           "\"cache_bytes\":%" PRIu64 ",\"cache_segments\":%u,"
                           "\"units\":%u,"
                           "\"cylinders\":%u,\"heads\":%u,\"from_ns\":%"
                           PRId64 ",\"durable_full\":%s,", rpm,
                           (uint64_t)(rpm ? (REV_RPM_NS + rpm - 1) / rpm : 0),
                           hwm_device_capacity_bytes(dev),
                           hwm_device_queue_depth(dev),
                           hwm_device_write_cache(dev) ? "true" : "false",
                           hwm_device_fua(dev) ? "true" : "false",
                           hwm_device_cache_bytes(dev),
                           hwm_device_cache_segments(dev), dev_at.units,
                           dev_at.cylinders, dev_at.heads, rec->from_ns,
                           rec->durable_full ? "true" : "false");
    append_zones(s, dev, &dev_at);
    g_string_append(s, "\"cmd_cols\":[\"n\",\"op\",\"fua\",\"offset\","
                    "\"length\",\"submit\",\"start\",\"done\",\"queue\","
                    "\"overhead\",\"seek\",\"rotate\",\"transfer\","
                    "\"destage\",\"hit\",\"durable\",\"read_ahead\","
                    "\"misses\",\"cached\",\"cyl\",\"head\",\"sector\","
                    "\"spt\",\"angle\",\"unit\"],\"cmds\":[\n");
    for (guint i = 0; i < rec->nrows; i++) {
        const HwmEvent *e = &rec->rows[i].e;
        g_string_append_printf(s, "%s[%" PRIu64 ",\"%s\",%d,%" PRIu64 ",%"
                               PRIu64 ",%" PRId64 ",%" PRId64 ",%" PRId64
                               ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%"
                               PRId64 ",%" PRId64 ",%" PRId64 ",%d,%d,%d,%u,%d",
                               i ? ",\n" : "", rec->rows[i].n,
                               hwm_op_name(e->op),
                               (e->flags & HWM_REQ_FUA) != 0, e->offset,
                               e->length, e->submit_ns, e->start_ns,
                               e->time_ns, e->t.queue_ns, e->t.overhead_ns,
                               e->t.seek_ns, e->t.rotate_ns, e->t.transfer_ns,
                               e->t.destage_ns, e->cache_hit, e->durable,
                               e->read_ahead, e->write_misses, e->cached);
        append_place(s, dev, e->offset);
        g_string_append_c(s, ']');
    }
    /* the other commands in the drive during the rows' window (the queue
     * depth the drive holds, not only the window's own commands) */
    hwm_ns t0 = HWM_NEVER, t1 = 0;
    for (guint i = 0; i < rec->nrows; i++) {
        t0 = MIN(t0, rec->rows[i].e.submit_ns);
        t1 = MAX(t1, rec->rows[i].e.time_ns);
    }
    g_string_append(s, "],\n\"others\":[");
    for (guint i = 0, n = 0; i < rec->nothers; i++) {
        if (rec->others[i][0] < t1 && rec->others[i][1] > t0) {
            g_string_append_printf(s, "%s[%" PRId64 ",%" PRId64 "]",
                                   n++ ? "," : "", rec->others[i][0],
                                   rec->others[i][1]);
        }
    }
    /* home: 1 for data durable before (a protected buffer's): it only
     * leaves the cache */
    g_string_append(s, "],\n\"wb_cols\":[\"time\",\"offset\",\"length\","
                    "\"home\",\"cyl\",\"head\",\"sector\",\"spt\",\"angle\","
                    "\"unit\"],\"wb\":[\n");
    for (guint i = 0; i < rec->ndurable; i++) {
        const HwmEvent *e = &rec->durable[i];
        g_string_append_printf(s, "%s[%" PRId64 ",%" PRIu64 ",%" PRIu64 ",%d",
                               i ? ",\n" : "", e->time_ns, e->offset,
                               e->length, e->kind == HWM_EV_HOME);
        append_place(s, dev, e->offset);
        g_string_append_c(s, ']');
    }
    g_string_append(s, "]}");
}

/* The template with each mark replaced by its text.  Only the template is
 * searched, so a mark inside a replacement (a command line may hold any
 * text) stays as it is. */
GString *html_page(const HtmlRecord *rec, const HwmDevice *dev)
{
    g_autoptr(GString) data = g_string_new(NULL);
    g_autofree char *title = g_markup_escape_text(rec->command, -1);
    const struct {
        const char *mark, *text;
    } fills[] = {
        { "@TITLE@", title },
        { "/*@CSS@*/", html_asset_css },
        { "@DATA@", NULL },
        { "/*@JS@*/", html_asset_js },
    };
    GString *page = g_string_new(NULL);
    const char *at = html_asset_page;

    append_record(data, rec, dev);
    for (size_t i = 0; i < G_N_ELEMENTS(fills); i++) {
        const char *m = strstr(at, fills[i].mark);
        g_assert(m);    /* the template is ours: a missing mark is a bug */
        g_string_append_len(page, at, m - at);
        g_string_append(page, fills[i].text ? fills[i].text : data->str);
        at = m + strlen(fills[i].mark);
    }
    g_string_append(page, at);
    return page;
}
