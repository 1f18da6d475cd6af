/*
 * platter-sim --timeline: device commands as bars on a virtual-time axis,
 * the platter's angle under the head below them, as hand-written SVG.
 * Times stay integer ns until a pixel is printed.  Every text is
 * monospace, so its width is known before it is placed: labels that would
 * not fit or would overlap another are left out, never drawn over it.
 */
#define _POSIX_C_SOURCE 200809L /* fchmod, umask */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "html.h"
#include "outfile.h"
#include "timeline.h"
#include "units.h"

#define NS_PER_S 1000000000ull
#define REV_RPM_NS 60000000000ull   /* one revolution, ns x rpm */
#define MDEG_TURN 360000u

/* The layout, pixels.  A character of a font of size F is CHAR_EM x F
 * wide (monospace). */
#define SVG_W 1100
#define MARGIN 10
#define PLOT_X0 240.0
#define PLOT_X1 1040.0
#define PLOT_W (PLOT_X1 - PLOT_X0)
#define HEAD_H 34                   /* title and subtitle */
#define LINE_H 15
#define ROW_H 18
#define BAR_H 12
#define STRIP_H 120
#define GAP 26
#define FONT 11
#define SMALL 10
#define TITLE 14
#define CHAR_EM 0.6
#define TICK_MIN_PX 70              /* between neighbouring time ticks */
#define TEXT_PAD 4
#define MAX_DURABLE 20000u          /* write-back markers kept at most */

static const struct {
    const char *name;       /* SVG class */
    const char *label;      /* legend and tooltip */
    const char *color;
    size_t offset;          /* in HwmBreakdown */
} parts[] = {
    { "queue", "queue", "#b3b3b3", offsetof(HwmBreakdown, queue_ns) },
    { "overhead", "overhead", "#8da0cb", offsetof(HwmBreakdown, overhead_ns) },
    { "seek", "seek", "#e78ac3", offsetof(HwmBreakdown, seek_ns) },
    { "rotate", "rotation", "#fc8d62", offsetof(HwmBreakdown, rotate_ns) },
    { "transfer", "transfer", "#66c2a5", offsetof(HwmBreakdown, transfer_ns) },
    { "destage", "write-back wait", "#ffd92f",
      offsetof(HwmBreakdown, destage_ns) },
};

typedef TimelineRow Row;


struct Timeline {
    OutFile svg, html;      /* path NULL: not asked for */
    char *command;
    char *question, *notice;    /* the page's words, or NULL */
    uint32_t count;
    hwm_ns from_ns;
    uint64_t completed;     /* commands the run has completed */
    GArray *rows;           /* Row, completion order */
    GArray *others;         /* hwm_ns[2], submit and done, of commands not
                               among the rows that may be in the drive
                               during their window (the page counts them in
                               the queue) */
    hwm_ns rows_end;        /* the rows' last completion, once they are in */
    GArray *durable;        /* HwmEvent of write-backs: DURABLE events, and
                               HOME events (--html asks for them) */
    bool durable_full;      /* more came than MAX_DURABLE */
};

/* What the picture covers and where its parts go. */
typedef struct {
    hwm_ns t0, t1, span_ns;
    double rows_y, strip_y, strip_h, axis_y;
    GPtrArray *boxes;       /* placed texts (double[4]: x0 y0 x1 y1) */
} Layout;

char *timeline_command_line(int argc, char **argv)
{
    g_autofree char *base = g_path_get_basename(argc > 0 ? argv[0] :
                                                "platter-sim");
    GString *s = g_string_new(base);

    static const char *const outputs[] = { "--timeline", "--html",
                                           "--html-question", "--html-notice" };

    for (int i = 1; i < argc; i++) {
        bool output = false;
        for (size_t k = 0; k < G_N_ELEMENTS(outputs) && !output; k++) {
            size_t len = strlen(outputs[k]);
            if (!strcmp(argv[i], outputs[k])) {
                i++;
                output = true;
            } else if (!strncmp(argv[i], outputs[k], len) && argv[i][len] == '=') {
                output = true;
            }
        }
        if (output) {
            continue;
        }
        bool plain = argv[i][0] != '\0';
        for (const char *c = argv[i]; *c; c++) {
            plain = plain && (g_ascii_isalnum(*c) || strchr("_@%+=:,./-", *c));
        }
        g_autofree char *q = plain ? g_strdup(argv[i]) : g_shell_quote(argv[i]);
        g_string_append_printf(s, " %s", q);
    }
    return g_string_free(s, FALSE);
}

Timeline *timeline_open(const char *path, const char *html,
                        const char *count, const char *from,
                        const char *command, const TimelineLesson *lesson,
                        GError **errp)
{
    static const UnitsSpec spec_count = { NULL, 1, 1, TIMELINE_MAX_COMMANDS,
                                          false };
    static const UnitsSpec spec_from = { "s", NS_PER_S, 0, HWM_TIME_MAX,
                                         false };
    uint64_t n = TIMELINE_DEFAULT_COMMANDS, from_ns = 0;

    if (lesson && (lesson->question || lesson->notice) && !html) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID,
                    "--html-%s needs --html FILE.html",
                    lesson->question ? "question" : "notice");
        return NULL;
    }
    if (!path && !html) {
        g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID,
                    "--timeline-%s needs --timeline FILE.svg or --html "
                    "FILE.html", count ? "count" : "from");
        return NULL;
    }
    if ((count && !units_parse("--timeline-count", count, &spec_count, &n,
                               errp)) ||
        (from && !units_parse("--timeline-from", from, &spec_from, &from_ns,
                              errp))) {
        return NULL;
    }
    g_autoptr(Timeline) tl = g_new0(Timeline, 1);
    tl->svg.fd = tl->html.fd = -1;
    tl->command = g_strdup(command ? command : "");
    tl->question = g_strdup(lesson ? lesson->question : NULL);
    tl->notice = g_strdup(lesson ? lesson->notice : NULL);
    tl->count = (uint32_t)n;
    tl->from_ns = (hwm_ns)from_ns;
    tl->rows = g_array_new(FALSE, FALSE, sizeof(Row));
    tl->others = g_array_new(FALSE, FALSE, sizeof(hwm_ns[2]));
    tl->durable = g_array_new(FALSE, FALSE, sizeof(HwmEvent));
    if ((path && !outfile_open(&tl->svg, "--timeline", path, errp)) ||
        (html && !outfile_open(&tl->html, "--html", html, errp))) {
        return NULL;
    }
    return g_steal_pointer(&tl);
}

void timeline_event(Timeline *tl, const HwmEvent *e)
{
    /* once the rows are in, nothing later is drawn */
    bool full = tl->rows->len >= tl->count;

    if (e->kind == HWM_EV_COMPLETE) {
        tl->completed++;
        if (!full && e->submit_ns >= tl->from_ns) {
            Row r = { .n = tl->completed, .e = *e };
            g_array_append_val(tl->rows, r);
            tl->rows_end = MAX(tl->rows_end, e->time_ns);
        } else if (e->time_ns > tl->from_ns &&
                   (!full || e->submit_ns < tl->rows_end)) {
            /* submitted before the window, or in it and done after its
             * rows: in the drive beside them */
            hwm_ns span[2] = { e->submit_ns, e->time_ns };
            g_array_append_val(tl->others, span);
        }
    } else if (!full && e->time_ns >= tl->from_ns) {
        if (tl->durable->len < MAX_DURABLE) {
            g_array_append_val(tl->durable, *e);
        } else {
            tl->durable_full = true;
        }
    }
}

/* ---- text --------------------------------------------------------------- */

static double text_w(const char *s, int size)
{
    return (double)g_utf8_strlen(s, -1) * size * CHAR_EM;
}

/* `v` in `unit` with `decimals` places, rounded to the nearest. */
static void append_fixed(GString *s, uint64_t v, uint64_t unit, int decimals)
{
    uint64_t p10 = 1;
    for (int i = 0; i < decimals; i++) {
        p10 *= 10;
    }
    uint64_t q = unit / p10;
    uint64_t r = (v + q / 2) / q;
    g_string_append_printf(s, "%" PRIu64, r / p10);
    if (decimals > 0) {
        g_string_append_printf(s, ".%0*" PRIu64, decimals, r % p10);
    }
}

/* A duration as a person reads it: "116.0 us", "8.20 ms". */
static char *fmt_dur(hwm_ns ns)
{
    GString *s = g_string_new(NULL);
    uint64_t v = (uint64_t)ns;

    if (v < 1000) {
        g_string_append_printf(s, "%" PRIu64 " ns", v);
    } else if (v < 999950) {
        append_fixed(s, v, 1000, 1);
        g_string_append(s, " us");
    } else if (v < 999995000) {
        append_fixed(s, v, 1000000, 2);
        g_string_append(s, " ms");
    } else {
        append_fixed(s, v, NS_PER_S, 3);
        g_string_append(s, " s");
    }
    return g_string_free(s, FALSE);
}

static bool overlaps(const Layout *l, const double *b)
{
    for (guint i = 0; i < l->boxes->len; i++) {
        const double *o = g_ptr_array_index(l->boxes, i);
        if (b[0] < o[2] && o[0] < b[2] && b[1] < o[3] && o[1] < b[3]) {
            return true;
        }
    }
    return false;
}

/*
 * Text at (x, y) (the baseline; `anchor`: start, middle or end), unless it
 * would overlap text already placed, or leave [xmin, xmax] when xmax > 0.
 * Returns whether it was drawn.
 */
static bool text(GString *s, Layout *l, double x, double y, int size,
                 const char *anchor, const char *attrs, const char *str,
                 double xmin, double xmax)
{
    double w = text_w(str, size);
    double x0 = !strcmp(anchor, "middle") ? x - w / 2 :
                !strcmp(anchor, "end") ? x - w : x;
    double *b = g_new(double, 4);

    b[0] = x0;
    b[1] = y - size;
    b[2] = x0 + w;
    b[3] = y + size * 0.25;
    if ((xmax > 0 && (b[0] < xmin || b[2] > xmax)) || overlaps(l, b)) {
        g_free(b);
        return false;
    }
    g_ptr_array_add(l->boxes, b);
    g_autofree char *esc = g_markup_escape_text(str, -1);
    g_string_append_printf(s, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"%d\" "
                           "text-anchor=\"%s\"%s%s>%s</text>\n", x, y, size,
                           anchor, attrs ? " " : "", attrs ? attrs : "", esc);
    return true;
}

/* Lines of running text, wrapped to the picture's width; returns the y
 * after them. */
static double paragraph(GString *s, Layout *l, double y, int size,
                        const char *str)
{
    size_t width = (size_t)((SVG_W - 2 * MARGIN) / (size * CHAR_EM));
    g_auto(GStrv) words = g_strsplit(str, " ", -1);
    g_autoptr(GString) line = g_string_new(NULL);

    for (char **w = words; ; w++) {
        if (*w && (line->len == 0 ||
                   g_utf8_strlen(line->str, -1) + 1 +
                   g_utf8_strlen(*w, -1) <= (glong)width)) {
            g_string_append_printf(line, "%s%s", line->len ? " " : "", *w);
            continue;
        }
        if (line->len > 0) {
            text(s, l, MARGIN, y, size, "start", NULL, line->str, 0, 0);
            y += size + 4;
            g_string_truncate(line, 0);
        }
        if (!*w) {
            return y;
        }
        w--;                    /* the word starts the next line */
    }
}

/* ---- time axis ---------------------------------------------------------- */

typedef struct {
    hwm_ns step_ns;
    uint64_t unit_ns;       /* what one shown unit is */
    const char *unit;
    int decimals;
} Ticks;

static char *tick_label(hwm_ns t, const Ticks *tk)
{
    GString *s = g_string_new(NULL);
    append_fixed(s, (uint64_t)t, tk->unit_ns, tk->decimals);
    return g_string_free(s, FALSE);
}

static double xpx(const Layout *l, hwm_ns t)
{
    return PLOT_X0 + (double)(t - l->t0) * PLOT_W / (double)l->span_ns;
}

/* The smallest 1-2-5 step whose labels, in the unit that suits it, keep
 * TICK_MIN_PX apart and do not touch. */
static Ticks choose_ticks(const Layout *l)
{
    static const hwm_ns mant[] = { 1, 2, 5 };

    for (hwm_ns p10 = 1; ; p10 *= 10) {
        for (size_t i = 0; i < G_N_ELEMENTS(mant); i++) {
            Ticks tk = { .step_ns = mant[i] * p10 };
            tk.unit_ns = tk.step_ns >= 100000000 ? NS_PER_S :
                         tk.step_ns >= 100000 ? 1000000 :
                         tk.step_ns >= 100 ? 1000 : 1;
            tk.unit = tk.unit_ns == NS_PER_S ? "s" :
                      tk.unit_ns == 1000000 ? "ms" :
                      tk.unit_ns == 1000 ? "us" : "ns";
            for (uint64_t q = tk.unit_ns; tk.step_ns % (hwm_ns)q; q /= 10) {
                tk.decimals++;
            }
            /* the latest tick has the widest label */
            g_autofree char *widest = tick_label(l->t1 / tk.step_ns *
                                                 tk.step_ns, &tk);
            double px = (double)tk.step_ns * PLOT_W / (double)l->span_ns;
            if (px >= MAX(TICK_MIN_PX, text_w(widest, FONT) + 2 * TEXT_PAD)) {
                return tk;
            }
        }
    }
}

/* Grid lines from the bars' top to the strip's bottom, labels under it. */
static void draw_axis(GString *s, Layout *l)
{
    Ticks tk = choose_ticks(l);
    hwm_ns first = (l->t0 + tk.step_ns - 1) / tk.step_ns * tk.step_ns;

    g_string_append(s, "<g class=\"axis\">\n");
    for (hwm_ns t = first; t <= l->t1; t += tk.step_ns) {
        double x = xpx(l, t);
        g_autofree char *lab = tick_label(t, &tk);
        g_autofree char *attrs = g_strdup_printf("class=\"tick\" data-t-ns="
                                                 "\"%" PRId64 "\"", t);
        g_string_append_printf(s, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" "
                               "y2=\"%.2f\" stroke=\"#e0e0e0\"/>\n", x,
                               l->rows_y, x, l->axis_y);
        text(s, l, x, l->axis_y + FONT + 8, FONT, "middle", attrs, lab, 0, 0);
    }
    g_autofree char *title = g_strdup_printf("virtual time since the run "
                                             "began, %s", tk.unit);
    text(s, l, (PLOT_X0 + PLOT_X1) / 2, l->axis_y + 2 * FONT + 14, FONT,
         "middle", "class=\"axis-title\"", title, 0, 0);
    g_string_append(s, "</g>\n");
}

/* ---- the bars ----------------------------------------------------------- */

static hwm_ns part_ns(const HwmEvent *e, size_t i)
{
    return *(const hwm_ns *)((const char *)&e->t + parts[i].offset);
}

/* Only the parts some drawn command has: a legend entry for a colour the
 * picture never shows would send the reader looking for it. */
static void draw_legend(GString *s, Layout *l, const Timeline *tl, double y)
{
    double x = PLOT_X0;

    for (size_t i = 0; i < G_N_ELEMENTS(parts); i++) {
        bool present = false;
        for (guint k = 0; k < tl->rows->len && !present; k++) {
            present = part_ns(&g_array_index(tl->rows, Row, k).e, i) > 0;
        }
        if (!present) {
            continue;
        }
        double w = 14 + text_w(parts[i].label, FONT) + 18;
        g_string_append_printf(s, "<rect x=\"%.2f\" y=\"%.2f\" width=\"10\" "
                               "height=\"10\" fill=\"%s\"/>\n", x, y - 9,
                               parts[i].color);
        text(s, l, x + 14, y, FONT, "start", "class=\"legend\"",
             parts[i].label, 0, 0);
        x += w;
    }
}

static void draw_row(GString *s, Layout *l, const Row *r, double y)
{
    const HwmEvent *e = &r->e;
    const char *op = e->op == HWM_OP_WRITE && (e->flags & HWM_REQ_FUA) ?
                     "W+FUA" : hwm_op_name(e->op);
    g_autofree char *label = e->op == HWM_OP_FLUSH ?
        g_strdup_printf("#%" PRIu64 " %s", r->n, op) :
        g_strdup_printf("#%" PRIu64 " %s %" PRIu64 "+%" PRIu64, r->n, op,
                        e->offset, e->length);
    hwm_ns at = e->submit_ns;
    double top = y + (ROW_H - BAR_H) / 2.0;

    g_string_append_printf(s, "<g class=\"cmd\" data-n=\"%" PRIu64 "\" "
                           "data-op=\"%s\" data-offset=\"%" PRIu64 "\" "
                           "data-length=\"%" PRIu64 "\" data-submit-ns=\"%"
                           PRId64 "\" data-start-ns=\"%" PRId64 "\" "
                           "data-done-ns=\"%" PRId64 "\">\n", r->n, op,
                           e->offset, e->length, e->submit_ns, e->start_ns,
                           e->time_ns);
    if (!text(s, l, PLOT_X0 - 8, top + BAR_H - 2, FONT, "end",
              "class=\"row-label\"", label, MARGIN, PLOT_X0 - 8)) {
        /* too long for the column: the number and op, the rest on hover */
        g_autofree char *shortl = g_strdup_printf("#%" PRIu64 " %s", r->n, op);
        text(s, l, PLOT_X0 - 8, top + BAR_H - 2, FONT, "end",
             "class=\"row-label\"", shortl, MARGIN, PLOT_X0 - 8);
    }
    for (size_t i = 0; i < G_N_ELEMENTS(parts); i++) {
        hwm_ns ns = part_ns(e, i);
        if (ns == 0) {
            continue;
        }
        double x0 = xpx(l, at), x1 = xpx(l, at + ns);
        g_autofree char *d = fmt_dur(ns);
        g_string_append_printf(s, "<rect class=\"%s\" x=\"%.2f\" y=\"%.2f\" "
                               "width=\"%.2f\" height=\"%d\" fill=\"%s\" "
                               "data-ns=\"%" PRId64 "\"><title>%s %s"
                               "</title></rect>\n", parts[i].name, x0, top,
                               x1 - x0, BAR_H, parts[i].color, ns,
                               parts[i].label, d);
        text(s, l, (x0 + x1) / 2, top + BAR_H - 2.5, SMALL, "middle",
             "class=\"part-label\"", d, x0 + TEXT_PAD / 2, x1 - TEXT_PAD / 2);
        at += ns;
    }
    /* the whole command beside its bar, where there is room */
    g_autofree char *total = fmt_dur(e->time_ns - e->submit_ns);
    const char *how = e->cache_hit ? " hit" :
                      e->op != HWM_OP_WRITE ? "" :
                      e->durable ? " durable" : " cached";
    g_autofree char *note = g_strconcat(total, how, NULL);
    double x0 = xpx(l, e->submit_ns), x1 = xpx(l, e->time_ns);
    if (!text(s, l, x1 + TEXT_PAD, top + BAR_H - 2, FONT, "start",
              "class=\"total\"", note, PLOT_X0, SVG_W - MARGIN)) {
        text(s, l, x0 - TEXT_PAD, top + BAR_H - 2, FONT, "end",
             "class=\"total\"", note, PLOT_X0, SVG_W - MARGIN);
    }
    g_string_append(s, "</g>\n");
}

/* ---- the angle strip ---------------------------------------------------- */

static double ypx_angle(const Layout *l, uint32_t mdeg)
{
    return l->strip_y + l->strip_h - (double)mdeg * l->strip_h / MDEG_TURN;
}

/* The angle over the window: at its ends, and either side of every pass of
 * the index (angle 0 at t = k x 60 s / rpm), where it drops from 360 to 0. */
static void draw_sawtooth(GString *s, const Layout *l, const HwmDevice *dev,
                          uint32_t rpm)
{
    g_autoptr(GArray) ts = g_array_new(FALSE, FALSE, sizeof(hwm_ns));
    unsigned __int128 k = (unsigned __int128)l->t0 * rpm / REV_RPM_NS + 1;

    g_array_append_val(ts, l->t0);
    for (;; k++) {
        /* the first whole ns at or after the pass */
        hwm_ns w = (hwm_ns)((k * REV_RPM_NS + rpm - 1) / rpm);
        if (w > l->t1) {
            break;
        }
        hwm_ns before = w - 1;
        if (before > g_array_index(ts, hwm_ns, ts->len - 1)) {
            g_array_append_val(ts, before);
        }
        g_array_append_val(ts, w);
    }
    if (l->t1 > g_array_index(ts, hwm_ns, ts->len - 1)) {
        g_array_append_val(ts, l->t1);
    }
    g_autoptr(GString) pts = g_string_new(NULL);
    g_autoptr(GString) data = g_string_new(NULL);
    for (guint i = 0; i < ts->len; i++) {
        hwm_ns t = g_array_index(ts, hwm_ns, i);
        uint32_t a = hwm_device_angle_mdeg(dev, t);
        g_string_append_printf(pts, "%s%.2f,%.2f", i ? " " : "", xpx(l, t),
                               ypx_angle(l, a));
        g_string_append_printf(data, "%s%" PRId64 ":%u", i ? " " : "", t, a);
    }
    g_string_append_printf(s, "<polyline class=\"angle\" fill=\"none\" "
                           "stroke=\"#1f78b4\" stroke-width=\"1.2\" "
                           "points=\"%s\" data-samples=\"%s\"/>\n", pts->str,
                           data->str);
}

/* A dot where each command completed, its number above or below it when
 * that fits; a triangle on the bottom edge where a write-back made cached
 * data durable (on the line it would hide under the dot of a write that
 * waited for it). */
static void draw_markers(GString *s, Layout *l, const Timeline *tl,
                         const HwmDevice *dev)
{
    for (guint i = 0; i < tl->durable->len; i++) {
        const HwmEvent *w = &g_array_index(tl->durable, HwmEvent, i);
        hwm_ns t = w->time_ns;
        if (w->kind != HWM_EV_DURABLE || t < l->t0 || t > l->t1) {
            continue;
        }
        g_string_append_printf(s, "<path class=\"durable\" d=\"M%.2f,%.2f "
                               "l3.5,6 h-7 z\" fill=\"#33a02c\" data-t-ns=\"%"
                               PRId64 "\"/>\n", xpx(l, t),
                               l->strip_y + l->strip_h - 6, t);
    }
    for (guint i = 0; i < tl->rows->len; i++) {
        const Row *r = &g_array_index(tl->rows, Row, i);
        uint32_t a = hwm_device_angle_mdeg(dev, r->e.time_ns);
        double x = xpx(l, r->e.time_ns), y = ypx_angle(l, a);
        g_string_append_printf(s, "<circle class=\"done\" cx=\"%.2f\" "
                               "cy=\"%.2f\" r=\"2.5\" fill=\"#222\" "
                               "data-n=\"%" PRIu64 "\" data-t-ns=\"%" PRId64
                               "\" data-mdeg=\"%u\"/>\n", x, y, r->n,
                               r->e.time_ns, a);
        g_autofree char *n = g_strdup_printf("%" PRIu64, r->n);
        double above = y - 5, below = y + 5 + SMALL;
        if (above - SMALL < l->strip_y ||
            !text(s, l, x, above, SMALL, "middle", "class=\"done-label\"", n,
                  PLOT_X0, PLOT_X1)) {
            if (below <= l->strip_y + l->strip_h) {
                text(s, l, x, below, SMALL, "middle", "class=\"done-label\"",
                     n, PLOT_X0, PLOT_X1);
            }
        }
    }
}

/*
 * The sector each command waits for: a line at the angle where it begins,
 * from the start of the command's rotation part as its bar lays it out to
 * the last time, by that part's end, that the platter's angle reaches it
 * (the parts need not have happened in the bar's order: a flush's
 * write-back may turn while its overhead runs).  A flush of data that was
 * durable when acknowledged (a protected buffer's FUA writes) has no
 * DURABLE event to say what it wrote: its sector is taken to be that of
 * the first such write since the flush before it.
 */
static void draw_targets(GString *s, Layout *l, const Timeline *tl,
                         const HwmDevice *dev)
{
    const HwmEvent *owed = NULL;

    for (guint i = 0; i < tl->rows->len; i++) {
        const Row *r = &g_array_index(tl->rows, Row, i);
        const HwmEvent *e = &r->e, *at = NULL;
        if (e->op == HWM_OP_WRITE && e->durable && e->t.rotate_ns == 0 &&
            e->t.seek_ns == 0 && !owed) {
            owed = e;
        }
        if ((e->op == HWM_OP_READ || e->op == HWM_OP_WRITE) &&
            !e->cache_hit && e->t.rotate_ns > 0) {
            at = e;
        } else if (e->op == HWM_OP_FLUSH) {
            at = e->t.rotate_ns > 0 ? owed : NULL;
            owed = NULL;
        }
        HwmLocation loc;
        if (!at || !hwm_device_locate(dev, at->offset, &loc)) {
            continue;
        }
        hwm_ns from = e->submit_ns + e->t.queue_ns + e->t.overhead_ns +
                      e->t.seek_ns;
        hwm_ns to = from + e->t.rotate_ns;
        uint32_t rpm = hwm_device_rotation_rpm(dev);
        uint32_t past = (hwm_device_angle_mdeg(dev, to) + MDEG_TURN -
                         loc.angle_mdeg) % MDEG_TURN;
        to -= (hwm_ns)((uint64_t)past * (REV_RPM_NS / MDEG_TURN) / rpm);
        to = MAX(to, from);
        double y = ypx_angle(l, loc.angle_mdeg);
        g_string_append_printf(s, "<path class=\"target\" d=\"M%.2f,%.2f "
                               "H%.2f\" stroke=\"#d7301f\" stroke-width=\"2\" "
                               "data-n=\"%" PRIu64 "\" data-mdeg=\"%u\" "
                               "data-from-ns=\"%" PRId64 "\" data-to-ns=\"%"
                               PRId64 "\"/>\n", xpx(l, from), y, xpx(l, to),
                               r->n, loc.angle_mdeg, from, to);
    }
}

static void draw_strip(GString *s, Layout *l, const Timeline *tl,
                       const HwmDevice *dev)
{
    uint32_t rpm = hwm_device_rotation_rpm(dev);
    double y = l->strip_y;

    g_string_append_printf(s, "<g class=\"strip\" data-rpm=\"%u\">\n", rpm);
    g_string_append_printf(s, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
                           "height=\"%.0f\" fill=\"none\" stroke=\"#999\"/>"
                           "\n", PLOT_X0, y, PLOT_W, l->strip_h);
    text(s, l, PLOT_X0 - 40, y + FONT, FONT, "end", NULL, "platter angle",
         MARGIN, PLOT_X0 - 40);
    text(s, l, PLOT_X0 - 40, y + 2 * FONT + 3, FONT, "end", NULL,
         "under the head", MARGIN, PLOT_X0 - 40);
    for (uint32_t deg = 0; deg <= 360; deg += 90) {
        double gy = ypx_angle(l, deg * 1000);
        g_autofree char *lab = g_strdup_printf("%u\xc2\xb0", deg);
        g_string_append_printf(s, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" "
                               "y2=\"%.2f\" stroke=\"#eee\"/>\n", PLOT_X0, gy,
                               PLOT_X1, gy);
        text(s, l, PLOT_X0 - 6, gy + FONT / 3.0, FONT, "end", NULL, lab,
             MARGIN, PLOT_X0 - 4);
    }
    unsigned __int128 revs = (unsigned __int128)l->span_ns * rpm / REV_RPM_NS;
    if (revs > PLOT_W / 4) {
        g_autofree char *rev = fmt_dur((hwm_ns)((REV_RPM_NS + rpm / 2) / rpm));
        g_autofree char *msg = g_strdup_printf(
            "%" PRIu64 " revolutions (one every %s): too many to draw at this "
            "scale; fewer commands (--timeline-count) narrow the window",
            (uint64_t)revs, rev);
        text(s, l, (PLOT_X0 + PLOT_X1) / 2, y + l->strip_h / 2, FONT,
             "middle", "class=\"too-dense\"", msg, 0, 0);
    } else {
        draw_sawtooth(s, l, dev, rpm);
        draw_targets(s, l, tl, dev);
        draw_markers(s, l, tl, dev);
    }
    g_string_append(s, "</g>\n");
}

/* ---- the picture -------------------------------------------------------- */

static GString *render_svg(const Timeline *tl, const HwmDevice *dev);

bool timeline_render(Timeline *tl, const HwmDevice *dev, GError **errp)
{
    if (tl->rows->len == 0) {
        g_autoptr(GString) from = g_string_new(NULL);
        hwm_append_decimal(from, (uint64_t)tl->from_ns, NS_PER_S);
        g_set_error(errp, HWM_ERROR, HWM_ERROR_INVALID,
                    "%s: no device command was submitted at or after "
                    "--timeline-from %s s (the run completed %" PRIu64 ")",
                    tl->svg.path ? "--timeline" : "--html", from->str,
                    tl->completed);
        return false;
    }
    if (tl->svg.path) {
        tl->svg.text = render_svg(tl, dev);
    }
    if (tl->html.path) {
        HtmlRecord rec = {
            .rows = (const TimelineRow *)(void *)tl->rows->data,
            .nrows = tl->rows->len,
            .durable = (const HwmEvent *)(void *)tl->durable->data,
            .ndurable = tl->durable->len,
            .durable_full = tl->durable_full,
            .others = (const hwm_ns (*)[2])(void *)tl->others->data,
            .nothers = tl->others->len,
            .from_ns = tl->from_ns,
            .command = tl->command,
            .question = tl->question,
            .notice = tl->notice,
        };
        tl->html.text = html_page(&rec, dev);
    }
    return true;
}

static GString *render_svg(const Timeline *tl, const HwmDevice *dev)
{
    Layout l = { .t0 = HWM_TIME_MAX, .t1 = 0,
                 .boxes = g_ptr_array_new_with_free_func(g_free) };
    for (guint i = 0; i < tl->rows->len; i++) {
        const HwmEvent *e = &g_array_index(tl->rows, Row, i).e;
        l.t0 = MIN(l.t0, e->submit_ns);
        l.t1 = MAX(l.t1, e->time_ns);
    }
    l.span_ns = MAX(l.t1 - l.t0, 1);
    uint64_t first = g_array_index(tl->rows, Row, 0).n;
    uint64_t last = g_array_index(tl->rows, Row, tl->rows->len - 1).n;
    uint32_t rpm = hwm_device_rotation_rpm(dev);
    g_autoptr(GString) body = g_string_new(NULL);

    text(body, &l, MARGIN, 20, TITLE, "start", "font-weight=\"bold\"",
         "platter-sim timeline: where each device command's time went", 0, 0);
    double y = paragraph(body, &l, 20 + LINE_H + 2, FONT, tl->command);
    g_autofree char *what = g_strdup_printf(
        "device commands #%" PRIu64 "-#%" PRIu64 " in completion order "
        "(--explain's numbers)%s; write cache %s, FUA %s, queue depth %u",
        first, last, tl->from_ns ? ", from the first submitted at or after "
        "--timeline-from" : "",
        hwm_device_write_cache(dev) ? "on" : "off",
        hwm_device_fua(dev) ? "native" : "absent",
        hwm_device_queue_depth(dev));
    y = paragraph(body, &l, y, FONT, what);
    draw_legend(body, &l, tl, y + 10);
    l.rows_y = y + 10 + GAP / 2.0;
    l.strip_y = l.rows_y + (double)tl->rows->len * ROW_H + GAP;
    /* flash has no platter: no strip */
    l.strip_h = rpm > 0 ? STRIP_H : 0;
    l.axis_y = l.strip_y + l.strip_h;

    draw_axis(body, &l);
    for (guint i = 0; i < tl->rows->len; i++) {
        draw_row(body, &l, &g_array_index(tl->rows, Row, i),
                 l.rows_y + (double)i * ROW_H);
    }
    if (rpm > 0) {
        draw_strip(body, &l, tl, dev);
    }

    y = l.axis_y + 2 * FONT + 14 + LINE_H + 4;
    y = paragraph(body, &l, y, FONT,
                  "Each bar is one command from its submit to its completion, "
                  "split into the parts --explain lists, in that order and each "
                  "as long as the model says; within a command they need not "
                  "have happened in that order (a write's wait for cache room "
                  "comes after its transfer into the buffer, a flush's "
                  "write-backs interleave their seeks, rotations and "
                  "transfers). Gaps between bars are host time.");
    if (rpm > 0) {
        g_autofree char *rev = fmt_dur((hwm_ns)((REV_RPM_NS + rpm / 2) / rpm));
        g_autofree char *angle = g_strdup_printf(
            "The strip: the angle of the platter under the head, %u rpm, one "
            "revolution every %s. A dot is where a command completed (its "
            "number beside it), a triangle on its bottom edge where a "
            "write-back made cached data durable%s.", rpm, rev, tl->durable_full ?
            " (only the first 20000 of them)" : "");
        y = paragraph(body, &l, y, FONT, angle);
        y = paragraph(body, &l, y, FONT,
                      "A red line is a command waiting for its sector: "
                      "from the end of its seek, at the angle where the "
                      "sector begins, to when the platter's angle reaches "
                      "it (a flush: the sector of the durable write it "
                      "sends home).");
    } else {
        y = paragraph(body, &l, y, FONT,
                      "Flash: no platter turns under a head, so there is no "
                      "angle to show; the bars are the whole story.");
    }
    double height = y + MARGIN;

    GString *svg = g_string_new(NULL);
    g_string_append_printf(svg, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
                           "\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
                           "version=\"1.1\" width=\"%d\" height=\"%.0f\" "
                           "viewBox=\"0 0 %d %.0f\" font-family=\"monospace\" "
                           "data-platter-timeline=\"1\" data-t0-ns=\"%" PRId64
                           "\" data-t1-ns=\"%" PRId64 "\">\n"
                           "<rect width=\"100%%\" height=\"100%%\" "
                           "fill=\"white\"/>\n", SVG_W, height, SVG_W, height,
                           l.t0, l.t1);
    g_string_append(svg, body->str);
    g_string_append(svg, "</svg>\n");
    g_ptr_array_free(l.boxes, TRUE);
    return svg;
}

bool timeline_commit(Timeline *tl, GError **errp)
{
    return (!tl->svg.path || outfile_commit(&tl->svg, errp)) &&
           (!tl->html.path || outfile_commit(&tl->html, errp));
}

void timeline_free(Timeline *tl)
{
    if (!tl) {
        return;
    }
    outfile_free(&tl->svg);
    outfile_free(&tl->html);
    g_free(tl->command);
    g_free(tl->question);
    g_free(tl->notice);
    g_array_unref(tl->rows);
    g_array_unref(tl->others);
    g_array_unref(tl->durable);
    g_free(tl);
}
