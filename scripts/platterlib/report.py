"""Experiment reports: report.json (versioned), report.md and SVG plots.

The plots are plain SVG written here, so a report needs nothing beyond the
Python standard library.  Latency is drawn as a percentile plot, as fio's
and HdrHistogram's are: latency on a log axis against 1/(1-p) on a log
axis, so 90%, 99%, 99.9% ... are equally spaced and the tail is visible.
"""
import html
import math
import os

from . import accounting
from . import expspec
from . import outfile
from . import summary
from .summary import fmt, pair_rows

# report.json's version
REPORT_VERSION = 1

METRICS = (("iops", "IOPS"), ("avg", "avg (us)"), ("p50", "p50 (us)"),
           ("p99", "p99 (us)"), ("p99.9", "p99.9 (us)"))
NO_SIM = "no sim prediction"
COLOURS = ("#1f77b4", "#d62728", "#aec7e8", "#ff9896")
FONT_PX = 12
CHAR_PX = 6.6   # a sans-serif character at 12 px, for laying out labels



def _machine(cell):
    """The guest machine a section's cells ran on, as their run names it:
    vCPUs, icount options and the CPU profile (none for a sim-only cell)."""
    raw = ((cell or {}).get("guest") or {}).get("raw")
    run = raw.get("run") if isinstance(raw, dict) else None
    if not isinstance(run, dict):
        return []
    cpu = (f"CPU profile `{run['cpu']}` (sha256 {run.get('cpu_sha256', '?')})"
           if run.get("cpu") else "no CPU profile (every instruction one, nothing charged)")
    return [f"guest machine: {run.get('smp', '1')} vCPU(s), icount `{run.get('icount', '?')}`, "
            f"{cpu}", ""]

def metric(summary, key):
    if not summary:
        return None
    return summary.get("iops") if key == "iops" else (summary.get("lat_us") or {}).get(key)


def change(a, b):
    """b against a in percent, as a mail about a patch says it."""
    if a in (None, 0) or b is None:
        return "-"
    return f"{100.0 * (b - a) / a:+.1f}%"


def _summ(cell, side):
    return cell.get(side, {}).get("summary") if cell else None


def _no_sim(cell):
    return bool(cell and (cell.get("sim") or {}).get("no_prediction"))


# ---- SVG ------------------------------------------------------------------

def _svg(w, h, body):
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0f}" height="{h:.0f}" '
            f'font-family="sans-serif" font-size="{FONT_PX}">\n'
            f'<rect width="{w:.0f}" height="{h:.0f}" fill="white"/>\n{body}</svg>\n')


def _text(x, y, s, anchor="start", extra=""):
    return (f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}"{extra}>'
            f'{html.escape(s)}</text>')


def log_ticks(lo, hi):
    """Decade ticks covering [lo, hi], with 2 and 5 between them when the
    range is short enough for their labels to fit."""
    a, b = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    steps = (1, 2, 5) if b - a <= 3 else (1,)
    return [m * 10 ** e for e in range(a, b + 1) for m in steps
            if lo <= m * 10 ** e <= hi * 1.0001] or [lo, hi]


def _legend(names, x0, y0, width):
    """Legend entries in rows that fit width: (svg, height used)."""
    out, x, y = [], x0, y0
    for name, colour in names:
        w = 22 + CHAR_PX * len(name) + 16
        if x > x0 and x + w > x0 + width:
            x, y = x0, y + 16
        out.append(f'<rect x="{x:.1f}" y="{y - 10:.1f}" width="14" height="4" '
                   f'fill="{colour}"/>' + _text(x + 20, y, name))
        x += w
    return "\n".join(out), y - y0 + 16


def bar_chart(title, labels, series, path):
    """series: [(name, colour, [value or None per label])]; log scale.
    Labels are turned 45 degrees and the plot is as tall as the longest
    needs, so none runs into the legend or the next one."""
    vals = [v for _, _, vs in series for v in vs if v]
    if not vals:
        return False
    slot = 90
    w = max(640, 120 + slot * len(labels))
    left, top, ph = 70, 40, 230
    label_px = max(CHAR_PX * len(lab) for lab in labels) * 0.71 + 14
    legend, legend_h = _legend([(n, c) for n, c, _ in series], left, 0, w - left - 20)
    h = top + ph + label_px + legend_h + 20
    lo = 10 ** math.floor(math.log10(min(vals)))
    hi = 10 ** math.ceil(math.log10(max(vals)))
    span = math.log10(hi) - math.log10(lo) or 1

    def y(v):
        return top + ph - ph * (math.log10(v) - math.log10(lo)) / span
    out = [_text(w / 2, 20, title, "middle", ' font-size="14"')]
    for d in log_ticks(lo, hi):
        out.append(f'<line x1="{left}" x2="{w - 20}" y1="{y(d):.1f}" y2="{y(d):.1f}" '
                   f'stroke="#ddd"/>' + _text(left - 5, y(d) + 4, f"{d:g}", "end"))
    bw = 70 / max(len(series), 1)
    for i, lab in enumerate(labels):
        x0 = left + 15 + i * slot
        for k, (_, colour, vs) in enumerate(series):
            v = vs[i]
            if v:
                out.append(f'<rect x="{x0 + k * bw:.1f}" y="{y(v):.1f}" width="{bw - 2:.1f}" '
                           f'height="{top + ph - y(v):.1f}" fill="{colour}"/>')
        out.append(f'<text transform="translate({x0 + 35:.1f},{top + ph + 14:.1f}) rotate(45)" '
                   f'font-size="{FONT_PX}">{html.escape(lab)}</text>')
    out.append(f'<g transform="translate(0,{top + ph + label_px + 14:.1f})">{legend}</g>')
    outfile.write_text(path, _svg(w, h, "\n".join(out)))
    return True


def percentile_chart(title, curves, path):
    """curves: [(name, colour, [(fraction, latency_us)])]: latency (log)
    against the percentile on a 1/(1-p) log axis, to the last percentile
    the samples resolve."""
    curves = [(n, c, [(f, us) for f, us in pts if us and us > 0]) for n, c, pts in curves]
    pts = [p for _, _, c in curves for p in c]
    if not pts:
        return False
    # the x range: up to the finest fraction any curve resolves below 1
    tail = max((1 / (1 - f) for f, _ in pts if f < 1), default=10)
    xmax = 10 ** max(1, math.ceil(math.log10(tail) - 1e-9))
    # room on the right for half the last percentile's label
    last = percentile_label(round(math.log10(xmax)))
    w, left, top, ph = 620, 70, 40, 260
    right = max(20, CHAR_PX * len(last) / 2 + 4)
    pw = w - left - right
    lo = 10 ** math.floor(math.log10(min(us for _, us in pts)))
    hi = 10 ** math.ceil(math.log10(max(us for _, us in pts)))
    yspan = math.log10(hi) - math.log10(lo) or 1
    xspan = math.log10(xmax)

    def xy(frac, us):
        x = min(1 / (1 - frac), xmax) if frac < 1 else xmax
        return (left + pw * math.log10(x) / xspan,
                top + ph - ph * (math.log10(us) - math.log10(lo)) / yspan)
    legend, legend_h = _legend([(n, c) for n, c, p in curves if p], left, 0, pw)
    h = top + ph + 48 + legend_h
    out = [_text(w / 2, 20, title, "middle", ' font-size="14"'),
           _text(left + pw / 2, top + ph + 36, "percentile", "middle"),
           _text(16, top + ph / 2, "latency (us)", "middle",
                 f' transform="rotate(-90 16 {top + ph / 2:.1f})"')]
    for e in range(0, round(xspan) + 1):
        x, _ = xy(1 - 10 ** -e, lo)
        label = percentile_label(e)
        out.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top}" y2="{top + ph}" '
                   f'stroke="#ddd"/>' + _text(x, top + ph + 16, label, "middle"))
    for d in log_ticks(lo, hi):
        _, y = xy(0, d)
        out.append(f'<line x1="{left}" x2="{left + pw}" y1="{y:.1f}" y2="{y:.1f}" '
                   f'stroke="#eee"/>' + _text(left - 5, y + 4, f"{d:g}", "end"))
    for name, colour, c in curves:
        if not c:
            continue
        # percentile p is the latency of the first point at or above p:
        # across to each point's fraction at its latency, then up
        steps, prev_f = [], 0.0
        for f, us in c:
            steps += [(prev_f, us), (f, us)]
            prev_f = f
        d = " ".join(("M" if i == 0 else "L") + "%.1f,%.1f" % xy(*p) for i, p in enumerate(steps))
        out.append(f'<path d="{d}" fill="none" stroke="{colour}" stroke-width="2"/>')
    out.append(f'<g transform="translate(0,{top + ph + 58:.1f})">{legend}</g>')
    outfile.write_text(path, _svg(w, h, "\n".join(out)))
    return True


def percentile_label(e):
    """The percentile 1 - 10^-e as an axis label: 0%, 90%, 99%, 99.9%, ..."""
    return "0%" if e == 0 else f"{100 - 100 / 10 ** e:.{max(e - 2, 0)}f}%"


def cdf_points(summary):
    """[(fraction, us)] for a percentile plot: the cell's CDF, or (results
    written before there was one) its three percentiles."""
    if not summary:
        return []
    if summary.get("cdf_us"):
        return [(frac, us) for frac, us in summary["cdf_us"]]
    lat = summary.get("lat_us") or {}
    return [(f, lat[k]) for f, k in ((0.5, "p50"), (0.99, "p99"), (0.999, "p99.9"))
            if lat.get(k)]


# ---- report -----------------------------------------------------------------

def fio_table(cell):
    """The per-job (or group) fio stats of a cell's guest run."""
    jobs = (_summ(cell, "guest") or {}).get("jobs")
    if not jobs:
        return []
    md = [f"fio, `{cell['id']}`:", "",
          "| job | stat | ios | IOPS | MB/s | avg (us) | p50 | p99 | p99.9 |",
          "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in jobs:
        bw = r["bw_bytes"] / 1e6 if r.get("bw_bytes") is not None else None
        lat = r["lat_us"]
        md.append(f"| {r['job']} | {r['stat']} | {r['ios']:,} | {fmt(r['iops'])} | {fmt(bw)} | "
                  + " | ".join(fmt(lat.get(k)) for k in ("avg", "p50", "p99", "p99.9")) + " |")
    return md + [""]


def script_result(cell):
    """A command test's status and the head of its output."""
    g = cell.get("guest") or {}
    raw, s = g.get("raw") or {}, g.get("summary") or {}
    if "status" not in s:
        return []
    md = [f"script `{cell['id']}`: exit status {s['status']}", ""]
    if "client" in s:
        c = s["client"]
        md[0:0] = [f"client `{cell['id']}`: {c['name']}; IOPS above is its {c['headline']} "
                   f"in {c['unit']}; every figure: " +
                   ", ".join(f"{k} {fmt(v)}" for k, v in c["figures"].items()), ""]
    for stream in ("stdout", "stderr"):
        text = raw.get(stream, "")
        if text:
            lines = text.splitlines()
            md += [f"{stream} ({len(lines)} lines{', first 20' if len(lines) > 20 else ''}):",
                   "", "```", *lines[:20], "```", ""]
    return md


def accounting_section(cells, title, slug, outdir):
    """Each guest cell's time accounting (where its virtual time went,
    the resource that bound it, steady or not) and its throughput over
    time, plotted for the cells together."""
    md, curves, sources = [], [], set()
    for i, c in enumerate(cells):
        s = (_summ(c, "guest") or {})
        if not c or not c.get("guest") or not s:
            continue
        a = s.get("accounting")
        if a and "error" in a:
            md += [f"time accounting, `{c['id']}`: {a['error']}", ""]
            continue
        md += accounting.markdown(c["id"], a)
        if a and a["throughput"]["series"]:
            curves.append((f"{c['variant']} ({a['throughput']['source']})", COLOURS[i],
                           a["throughput"]["series"]))
            sources.add(a["throughput"]["source"])
    # fio's log counts the job's I/Os; the drive's completions count its
    # commands (a FLUSH is one, a merged write one for several I/Os)
    y_label = ("I/Os per s" if sources == {accounting.FIO_SOURCE} else
               "drive commands per s" if accounting.FIO_SOURCE not in sources else
               "per s: I/Os (fio's log) or drive commands")
    if accounting.throughput_chart(f"throughput over time, {title}", curves,
                                   os.path.join(outdir, slug + ".svg"), y_label):
        md += [f"![throughput over time]({slug}.svg)", ""]
    return md


def write(outdir, exp, cells, meta, verdicts=()):
    os.makedirs(outdir, exist_ok=True)
    cells = sorted(cells, key=lambda c: c["id"])
    # the spec travels with the cells: report and merge work on any output
    doc = {"version": REPORT_VERSION, "experiment": exp["name"], "spec": exp,
           "description": exp.get("description", ""), "meta": meta,
           "cells": [{k: v for k, v in c.items() if k != "host"} for c in cells],
           "host": {c["id"]: c.get("host", {}) for c in cells}}
    outfile.write_text(os.path.join(outdir, "report.json"),
                       outfile.json_text(doc, expspec.JSON_MAX_BYTES))

    md = [f"# {exp['name']}", "", exp.get("description", ""), ""]
    md += summary.markdown(exp, cells, verdicts) + [""]
    md += [f"- {k}: {v}" for k, v in sorted(meta.items())
           if k not in ("versions", "job_rewrites")] + [""]
    if meta.get("job_rewrites"):
        md += ["Job file lines rewritten to the test target (the copies the guests ran are "
               "in `jobs/`):", ""]
        md += [f"- {w}: {n}" for w, notes in sorted(meta["job_rewrites"].items())
               for n in notes] + [""]
    md += summary.versions_table(meta.get("versions") or {})
    md += [""]
    declared = exp.get("kernels", {})
    kernels = list(dict.fromkeys(v for pair in exp["pairs"] for v in pair))
    md += [f"- kernel {k} declares: " + (
        (", ".join(declared[k]) or "nothing (the pinned kernel's I/O path)") if k in declared
        else f"nothing platter can know ({NO_SIM})") for k in kernels]
    md += [""]
    labels, bars = [], [[], [], [], []]
    for wl, prof, dev, b, p in pair_rows(exp, cells):
        base, patched = b["variant"] if b else "?", p["variant"] if p else "?"
        no_sim = _no_sim(b) or _no_sim(p)
        # a sim-only report has no guest columns
        sides = ("sim",) if meta.get("sim_only") else ("guest", "sim")
        head = [x for sd in sides for x in (f"{base} ({sd})", f"{patched} ({sd})", "change")]
        md += [f"## {wl} on {prof}, {dev}", ""] + _machine(b or p) + [
               "| | " + " | ".join(head) + " |", "| --- |" + " ---: |" * len(head)]
        for key, name in METRICS:
            cols = []
            for sd in sides:
                vb, vp = metric(_summ(b, sd), key), metric(_summ(p, sd), key)
                cols += ([NO_SIM, NO_SIM, ""] if sd == "sim" and no_sim else
                         [fmt(vb), fmt(vp), change(vb, vp)])
            md.append(f"| {name} | " + " | ".join(cols) + " |")
        for cname in ("writes", "fua_writes", "flushes"):
            cols = []
            for sd in sides:
                vals = [((_summ(c, sd) or {}).get("per_io") or {}).get(cname) for c in (b, p)]
                cols += [fmt(vals[0]), fmt(vals[1]), ""]
            md.append(f"| {cname} per I/O | " + " | ".join(cols) + " |")
        for cname, key in (("guest instructions", "insns"), ("guest CPU us", "us")):
            vals = [((_summ(c, "guest") or {}).get("cpu_per_io") or {}).get(key)
                    for c in (b, p)]
            if "guest" in sides and any(v is not None for v in vals):
                md.append(f"| {cname} per I/O | {fmt(vals[0])} | {fmt(vals[1])} | "
                          f"{change(vals[0], vals[1])} |" + " |" * (len(head) - 3))
        seed = exp.get("seed", {})
        if seed and dev == seed.get("frontend") and wl in seed.get("cells", {}):
            sc = seed["cells"][wl]
            md.append(f"| seed {base} / {patched} | " + " / ".join(
                f"{k} {fmt(sc.get(base, {}).get(k))}->{fmt(sc.get(patched, {}).get(k))}"
                for k in ("iops", "avg", "p50", "p99")
                if k in sc.get(base, {}) or k in sc.get(patched, {})) + " |" * len(head))
        md.append("")
        for c in (b, p):
            if c:
                md += fio_table(c) + script_result(c)
        for c in (b, p):
            if not c:
                continue
            for side in ("guest", "sim"):
                if side not in c:
                    continue
                err = c[side].get("error")
                why = c[side].get("no_prediction")
                md.append(f"- `{c['id']}` {side}: " + (
                    f"**failed**: {err}" if err else f"{NO_SIM} ({why})" if why else
                    f"`{c[side]['command']}`"))
        md.append("")
        labels.append(f"{wl} {dev}")
        for i, (c, side) in enumerate(((b, "guest"), (p, "guest"), (b, "sim"), (p, "sim"))):
            bars[i].append(metric(_summ(c, side), "iops"))
        slug = f"cdf-{wl}-{prof}-{dev}".replace("/", "_")
        curves = [(f"{c['variant']} {side}", COLOURS[i], cdf_points(_summ(c, side)))
                  for i, (c, side) in enumerate(((b, "guest"), (p, "guest"),
                                                 (b, "sim"), (p, "sim"))) if c]
        if percentile_chart(f"latency by percentile, {wl} on {prof}, {dev}", curves,
                            os.path.join(outdir, slug + ".svg")):
            md += [f"![latency by percentile]({slug}.svg)", ""]
        md += accounting_section((b, p), f"{wl} on {prof}, {dev}",
                                 f"time-{wl}-{prof}-{dev}".replace("/", "_"), outdir)
    names = [p for pair in exp["pairs"] for p in pair]
    if bar_chart(f"{exp['name']}: IOPS", labels,
                 [(f"{names[0]} guest", COLOURS[0], bars[0]),
                  (f"{names[1]} guest", COLOURS[1], bars[1]),
                  (f"{names[0]} sim", COLOURS[2], bars[2]),
                  (f"{names[1]} sim", COLOURS[3], bars[3])],
                 os.path.join(outdir, "iops.svg")):
        md += ["![IOPS](iops.svg)", ""]
    outfile.write_text(os.path.join(outdir, "report.md"), "\n".join(md))
    return doc
