/* platter-sim's report: what every workload's has; a workload adds its own
 * lines and fields through its WorkloadOps hooks. */
#include <string.h>

#include "report.h"

static const struct {
    const char *name;
    uint32_t per_million;
} pcts[] = {
    { "p50", 500000 }, { "p90", 900000 }, { "p99", 990000 },
    { "p99.9", 999000 }, { "p99.99", 999900 },
};

static const char *const op_names[SIM_OP_TYPES] = {
    [HWM_OP_READ] = "read", [HWM_OP_WRITE] = "write",
    [HWM_OP_FLUSH] = "flush", [HWM_OP_DISCARD] = "discard" };

static double iops(const SimResult *r)
{
    return r->runtime_ns ? (double)r->ios * 1e9 / (double)r->runtime_ns : 0;
}

/* One HwmStats field's value, read through HWM_STATS_FIELDS. */
typedef struct {
    const char *name;
    uint64_t value;
    bool is_signed;
} StatValue;

#define STAT_COUNT(name, type, unit, help) + 1
enum { STAT_FIELDS = 0 HWM_STATS_FIELDS(STAT_COUNT) };
#undef STAT_COUNT

static void stat_values(const HwmStats *s, StatValue out[STAT_FIELDS])
{
    size_t i = 0;
#define STAT_VALUE(n, type, unit, help) \
    out[i++] = (StatValue){ #n, (uint64_t)s->n, \
                            _Generic(s->n, int64_t: true, default: false) };
    HWM_STATS_FIELDS(STAT_VALUE)
#undef STAT_VALUE
}

static void stat_print(FILE *f, const StatValue *v)
{
    if (v->is_signed) {
        fprintf(f, "%" G_GINT64_FORMAT, (int64_t)v->value);
    } else {
        fprintf(f, "%" G_GUINT64_FORMAT, v->value);
    }
}

/* Every counter as NAME=VALUE, wrapped under "  device:". */
static void device_human(FILE *f, const HwmStats *s)
{
    StatValue v[STAT_FIELDS];
    int col = fprintf(f, "  device:");

    stat_values(s, v);
    for (size_t i = 0; i < STAT_FIELDS; i++) {
        int w = snprintf(NULL, 0, " %s=%" G_GUINT64_FORMAT, v[i].name,
                         v[i].value);
        if (col + w > 78) {
            fputc('\n', f);
            col = fprintf(f, "         ");
        }
        fprintf(f, " %s=", v[i].name);
        stat_print(f, &v[i]);
        col += w;
    }
    fputc('\n', f);
}

/*
 * HwmStats fields the JSON "device" object (version 1) names otherwise or
 * leaves out; every other field is in it under its own name, in list order.
 */
static const struct {
    const char *field;
    const char *key;          /* NULL: not in "device" */
} device_json_keys[] = {
    { "power_cuts", NULL },   /* "replay" has them, as the sim counted */
    { "lost_bytes", NULL },
    { "dirty_bytes", "dirty_bytes_at_end" },
    { "dirty_extents", NULL },
};

static const char *device_json_key(const char *field)
{
    for (size_t i = 0; i < G_N_ELEMENTS(device_json_keys); i++) {
        if (!strcmp(device_json_keys[i].field, field)) {
            return device_json_keys[i].key;
        }
    }
    return field;
}

static void device_json(FILE *f, uint64_t commands, const HwmStats *s)
{
    StatValue v[STAT_FIELDS];

    stat_values(s, v);
    fprintf(f, "{\"commands\": %" G_GUINT64_FORMAT, commands);
    for (size_t i = 0; i < STAT_FIELDS; i++) {
        const char *key = device_json_key(v[i].name);
        if (key) {
            fprintf(f, ", \"%s\": ", key);
            stat_print(f, &v[i]);
        }
    }
    fputc('}', f);
}

void report_human(FILE *f, const SimParams *p, const SimResult *r,
                  const ReportInfo *in)
{
    const Histogram *h = &r->lat;
    double bw = r->runtime_ns ? (double)r->bytes * 1e9 / r->runtime_ns : 0;

    fprintf(f, "%s: profile=%s", in->workload, in->profile);
    if (in->policy) {
        fprintf(f, " policy=%s", in->policy);
    }
    if (in->pattern) {
        fprintf(f, " pattern=%s", in->pattern);
    }
    fprintf(f, " bs=%" G_GUINT64_FORMAT " jobs=%u write_cache=%s fua=%s qd=%u\n",
            p->bs_bytes, p->jobs, in->write_cache ? "on" : "off",
            in->fua ? "native" : "absent", in->queue_depth);
    fprintf(f, "  ios=%" G_GUINT64_FORMAT ", runtime=%.3fs, IOPS=%.1f, "
            "BW=%.2fMB/s\n", r->ios, r->runtime_ns / 1e9, iops(r), bw / 1e6);
    fprintf(f, "  lat (usec): min=%.1f, max=%.1f, avg=%.1f, stdev=%.1f\n",
            h->count ? h->min_ns / 1e3 : 0.0, h->max_ns / 1e3,
            hist_mean(h) / 1e3, hist_stdev(h) / 1e3);
    fprintf(f, "  lat percentiles (usec):");
    for (size_t i = 0; i < G_N_ELEMENTS(pcts); i++) {
        fprintf(f, " %s=%.1f", pcts[i].name,
                hist_percentile(h, pcts[i].per_million) / 1e3);
    }
    fprintf(f, "\n");
    if (p->ops->report_human) {
        p->ops->report_human(f, p, r);
    }
    const HwmBreakdown *b = &r->dev_time;
    double total = (double)(b->queue_ns + b->overhead_ns + b->seek_ns +
                            b->rotate_ns + b->transfer_ns + b->destage_ns);
    total = total > 0 ? total : 1;
    fprintf(f, "  device time over %" G_GUINT64_FORMAT " commands: "
            "queue %.1f%%, overhead %.1f%%, seek %.1f%%, rotation %.1f%%, "
            "transfer %.1f%%, waiting for write-back %.1f%%\n", r->commands,
            100 * b->queue_ns / total, 100 * b->overhead_ns / total,
            100 * b->seek_ns / total, 100 * b->rotate_ns / total,
            100 * b->transfer_ns / total, 100 * b->destage_ns / total);
    device_human(f, &r->stats);
    for (size_t i = 0; i < SIM_OP_TYPES; i++) {
        const Histogram *o = &r->lat_op[i];
        if (o->count == 0) {
            continue;
        }
        fprintf(f, "  %s lat from device submit (usec): n=%" G_GUINT64_FORMAT
                ", min=%.1f, avg=%.1f, p99=%.1f, max=%.1f\n", op_names[i],
                o->count, o->min_ns / 1e3, hist_mean(o) / 1e3,
                hist_percentile(o, 990000) / 1e3, o->max_ns / 1e3);
    }
    fprintf(f, "  host queue wait (usec): avg=%.1f, max=%.1f; last completion "
            "at %.6fs, drain after it %.6fs\n", hist_mean(&r->host_wait) / 1e3,
            r->host_wait.max_ns / 1e3, r->last_completion_ns / 1e9,
            r->drain_ns / 1e9);
}

static void json_breakdown(FILE *f, const HwmBreakdown *b)
{
    fprintf(f, "{\"queue\": %" G_GINT64_FORMAT ", \"overhead\": %"
            G_GINT64_FORMAT ", \"seek\": %" G_GINT64_FORMAT ", \"rotate\": %"
            G_GINT64_FORMAT ", \"transfer\": %" G_GINT64_FORMAT
            ", \"destage_wait\": %" G_GINT64_FORMAT "}", b->queue_ns,
            b->overhead_ns, b->seek_ns, b->rotate_ns, b->transfer_ns,
            b->destage_ns);
}

/* a latency histogram's summary, as lat_ns */
static void json_lat(FILE *f, const Histogram *h)
{
    fprintf(f, "{\"count\": %" G_GUINT64_FORMAT ", \"min\": %"
            G_GUINT64_FORMAT ", \"max\": %" G_GUINT64_FORMAT ", \"avg\": %"
            G_GUINT64_FORMAT ", \"stdev\": %" G_GUINT64_FORMAT, h->count,
            h->count ? h->min_ns : 0, h->max_ns, hist_mean(h), hist_stdev(h));
    for (size_t i = 0; i < G_N_ELEMENTS(pcts); i++) {
        fprintf(f, ", \"%s\": %" G_GUINT64_FORMAT, pcts[i].name,
                hist_percentile(h, pcts[i].per_million));
    }
    fputc('}', f);
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            fprintf(f, "\\%c", c);
        } else if (c < 0x20) {
            fprintf(f, "\\u%04x", c);
        } else {
            fputc(c, f);
        }
    }
    fputc('"', f);
}

void report_json(FILE *f, const SimParams *p, const SimResult *r,
                 const ReportInfo *in)
{
    const Histogram *h = &r->lat;

    fprintf(f, "{\"version\": %d, \"profile\": ", PLATTER_SIM_JSON_VERSION);
    json_string(f, in->profile);
    fprintf(f, ", \"workload\": ");
    json_string(f, in->workload);
    fprintf(f, ", \"policy\": ");
    if (in->policy) {
        json_string(f, in->policy);
    } else {
        fprintf(f, "null");
    }
    fprintf(f, ", \"pattern\": ");
    if (in->pattern) {
        json_string(f, in->pattern);
    } else {
        fprintf(f, "null");
    }
    fprintf(f, ", \"bs\": %" G_GUINT64_FORMAT ", \"span\": %" G_GUINT64_FORMAT
            ", \"jobs\": %u, \"write_cache\": %s, \"fua\": %s, "
            "\"queue_depth\": %u, \"host_cmd_ns\": %" G_GINT64_FORMAT,
            p->bs_bytes, p->span_bytes, p->jobs,
            in->write_cache ? "true" : "false", in->fua ? "true" : "false",
            in->queue_depth, p->host_cmd_ns);
    fprintf(f, ", \"ios\": %" G_GUINT64_FORMAT ", \"runtime_ns\": %"
            G_GINT64_FORMAT ", \"iops\": %.3f, \"bw_bytes_s\": %.0f",
            r->ios, r->runtime_ns, iops(r),
            r->runtime_ns ? (double)r->bytes * 1e9 / r->runtime_ns : 0.0);
    fprintf(f, ", \"lat_ns\": {\"min\": %" G_GUINT64_FORMAT ", \"max\": %"
            G_GUINT64_FORMAT ", \"avg\": %" G_GUINT64_FORMAT ", \"stdev\": %"
            G_GUINT64_FORMAT, h->count ? h->min_ns : 0, h->max_ns,
            hist_mean(h), hist_stdev(h));
    for (size_t i = 0; i < G_N_ELEMENTS(pcts); i++) {
        fprintf(f, ", \"%s\": %" G_GUINT64_FORMAT, pcts[i].name,
                hist_percentile(h, pcts[i].per_million));
    }
    /* the latency distribution, for CDF plots */
    static const uint32_t cdf[] = { 1000, 10000, 50000, 100000, 200000, 300000,
                                    400000, 500000, 600000, 700000, 800000,
                                    900000, 950000, 990000, 995000, 999000,
                                    999900, 1000000 };
    fprintf(f, "}, \"lat_cdf_ns\": [");
    for (size_t i = 0; i < G_N_ELEMENTS(cdf); i++) {
        fprintf(f, "%s[%u.%06u, %" G_GUINT64_FORMAT "]", i ? ", " : "",
                cdf[i] / 1000000, cdf[i] % 1000000,
                hist_percentile(h, cdf[i]));
    }
    fprintf(f, "], \"device_time_ns\": ");
    json_breakdown(f, &r->dev_time);
    fprintf(f, ", \"flushes\": {\"issued\": %" G_GUINT64_FORMAT
            ", \"skipped\": %" G_GUINT64_FORMAT "}", r->flushes_issued,
            r->flushes_skipped);
    fprintf(f, ", \"device\": ");
    device_json(f, r->commands, &r->stats);
    if (p->ops->report_json) {
        p->ops->report_json(f, p, r, JSON_AFTER_DEVICE);
    }
    /* added in version 1 (fields after "replay", before "host"): every
     * device command by op type, its latency from the device's submit, the
     * host queue's wait apart, and where the run's completions ended */
    fprintf(f, ", \"ops\": {");
    for (size_t i = 0; i < SIM_OP_TYPES; i++) {
        fprintf(f, "%s\"%s\": %" G_GUINT64_FORMAT, i ? ", " : "",
                op_names[i], r->lat_op[i].count);
    }
    fprintf(f, "}, \"lat_by_op_ns\": {");
    for (size_t i = 0; i < SIM_OP_TYPES; i++) {
        fprintf(f, "%s\"%s\": ", i ? ", " : "", op_names[i]);
        json_lat(f, &r->lat_op[i]);
    }
    fprintf(f, "}, \"host_queue_ns\": ");
    json_lat(f, &r->host_wait);
    fprintf(f, ", \"end\": {\"last_completion_ns\": %" G_GINT64_FORMAT
            ", \"drain_ns\": %" G_GINT64_FORMAT "}", r->last_completion_ns,
            r->drain_ns);
    if (p->ops->report_json) {
        p->ops->report_json(f, p, r, JSON_AFTER_END);
    }
    fprintf(f, ", \"host\": {\"cpu_ns\": %" G_GUINT64_FORMAT "}}\n",
            in->host_cpu_ns);
}
