"""Experiment reports: report.json (versioned), report.md and SVG plots.

The plots are plain SVG written here, so a report needs nothing beyond the
Python standard library.
"""
import html
import json
import os

from experiment import REPORT_VERSION

METRICS = (("iops", "IOPS"), ("avg", "avg (us)"), ("p50", "p50 (us)"),
           ("p99", "p99 (us)"), ("p99.9", "p99.9 (us)"))


def metric(summary, key):
    if not summary:
        return None
    return summary["iops"] if key == "iops" else summary["lat_us"].get(key)


def fmt(v):
    if v is None:
        return "-"
    return f"{v:.1f}" if isinstance(v, float) and v < 1000 else f"{v:,.0f}"


def ratio(a, b):
    if a in (None, 0) or b is None:
        return "-"
    return f"{b / a:.2f}x"


def pair_rows(exp, cells):
    """(workload, profile, device, baseline cell, patched cell) per pair."""
    by = {(c["workload"], c["profile"], c["device"], c["variant"]): c for c in cells}
    keys = sorted({(c["workload"], c["profile"], c["device"]) for c in cells})
    for wl, prof, dev in keys:
        for base, patched in exp["pairs"]:
            b, p = by.get((wl, prof, dev, base)), by.get((wl, prof, dev, patched))
            if b or p:
                yield wl, prof, dev, b, p


def _summ(cell, side):
    return cell.get(side, {}).get("summary") if cell else None


# ---- SVG ------------------------------------------------------------------

def _svg(w, h, body):
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
            f'font-family="sans-serif" font-size="12">\n'
            f'<rect width="{w}" height="{h}" fill="white"/>\n{body}</svg>\n')


def bar_chart(title, labels, series, path):
    """series: [(name, colour, [value or None per label])]; log scale."""
    import math
    w, h, left, bottom, top = max(640, 120 + 90 * len(labels)), 380, 70, 110, 40
    vals = [v for _, _, vs in series for v in vs if v]
    if not vals:
        return False
    lo = 10 ** math.floor(math.log10(min(vals)))
    hi = 10 ** math.ceil(math.log10(max(vals)))
    span = math.log10(hi) - math.log10(lo) or 1
    ph = h - bottom - top

    def y(v):
        return top + ph - ph * (math.log10(v) - math.log10(lo)) / span
    out = [f'<text x="{w / 2}" y="20" text-anchor="middle" font-size="14">'
           f'{html.escape(title)}</text>']
    d = lo
    while d <= hi * 1.0001:
        out.append(f'<line x1="{left}" x2="{w - 20}" y1="{y(d):.1f}" y2="{y(d):.1f}" '
                   f'stroke="#ddd"/><text x="{left - 5}" y="{y(d) + 4:.1f}" '
                   f'text-anchor="end">{d:g}</text>')
        d *= 10
    bw = 70 / max(len(series), 1)
    for i, lab in enumerate(labels):
        x0 = left + 15 + i * 90
        for k, (_, colour, vs) in enumerate(series):
            v = vs[i]
            if v:
                out.append(f'<rect x="{x0 + k * bw:.1f}" y="{y(v):.1f}" width="{bw - 2:.1f}" '
                           f'height="{top + ph - y(v):.1f}" fill="{colour}"/>')
        out.append(f'<text transform="translate({x0 + 35},{h - bottom + 12}) rotate(35)" '
                   f'font-size="10">{html.escape(lab)}</text>')
    for k, (name, colour, _) in enumerate(series):
        out.append(f'<rect x="{left + 10 + k * 130}" y="{h - 22}" width="12" height="12" '
                   f'fill="{colour}"/><text x="{left + 26 + k * 130}" y="{h - 12}">'
                   f'{html.escape(name)}</text>')
    with open(path, "w") as f:
        f.write(_svg(w, h, "\n".join(out)))
    return True


def cdf_chart(title, curves, path):
    """curves: [(name, colour, [(latency_us, fraction)])]; log x axis."""
    import math
    pts = [p for _, _, c in curves for p in c if p[0]]
    if not pts:
        return False
    w, h, left, bottom, top, right = 560, 340, 60, 50, 40, 20
    lo = 10 ** math.floor(math.log10(min(p[0] for p in pts)))
    hi = 10 ** math.ceil(math.log10(max(p[0] for p in pts)))
    span = math.log10(hi) - math.log10(lo) or 1
    pw, ph = w - left - right, h - top - bottom

    def xy(lat, frac):
        return (left + pw * (math.log10(lat) - math.log10(lo)) / span,
                top + ph * (1 - frac))
    out = [f'<text x="{w / 2}" y="20" text-anchor="middle" font-size="14">'
           f'{html.escape(title)}</text>',
           f'<text x="{w / 2}" y="{h - 8}" text-anchor="middle">latency (us)</text>']
    d = lo
    while d <= hi * 1.0001:
        x, _ = xy(d, 0)
        out.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top}" y2="{top + ph}" stroke="#ddd"/>'
                   f'<text x="{x:.1f}" y="{top + ph + 15}" text-anchor="middle">{d:g}</text>')
        d *= 10
    for f in (0, 0.5, 0.9, 1):
        _, yy = xy(lo, f)
        out.append(f'<text x="{left - 5}" y="{yy + 4:.1f}" text-anchor="end">{f:g}</text>')
    for k, (name, colour, c) in enumerate(curves):
        c = [p for p in c if p[0]]
        if not c:
            continue
        path_d = " ".join(("M" if i == 0 else "L") + "%.1f,%.1f" % xy(*p) for i, p in enumerate(c))
        out.append(f'<path d="{path_d}" fill="none" stroke="{colour}" stroke-width="2"/>')
        out.append(f'<text x="{left + 10}" y="{top + 14 + 14 * k}" fill="{colour}">'
                   f'{html.escape(name)}</text>')
    with open(path, "w") as f:
        f.write(_svg(w, h, "\n".join(out)))
    return True


def cdf_points(summary):
    if not summary:
        return []
    if summary.get("cdf_us"):
        return [(us, frac) for frac, us in summary["cdf_us"]]
    lat = summary["lat_us"]
    return [(lat.get("p50"), 0.5), (lat.get("p99"), 0.99), (lat.get("p99.9"), 0.999)]


# ---- report -----------------------------------------------------------------

def write(outdir, exp, cells, meta):
    os.makedirs(outdir, exist_ok=True)
    cells = sorted(cells, key=lambda c: c["id"])
    # the spec travels with the cells: report and merge work on any output
    doc = {"version": REPORT_VERSION, "experiment": exp["name"], "spec": exp,
           "description": exp.get("description", ""), "meta": meta,
           "cells": [{k: v for k, v in c.items() if k != "host"} for c in cells],
           "host": {c["id"]: c.get("host", {}) for c in cells}}
    with open(os.path.join(outdir, "report.json"), "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")

    md = [f"# {exp['name']}", "", exp.get("description", ""), ""]
    md += [f"- {k}: {v}" for k, v in sorted(meta.items())] + [""]
    labels, series_b, series_p, series_bs, series_ps = [], [], [], [], []
    for wl, prof, dev, b, p in pair_rows(exp, cells):
        base, patched = b["variant"] if b else "?", p["variant"] if p else "?"
        md += [f"## {wl} on {prof}, {dev}", "",
               f"| | {base} (guest) | {patched} (guest) | ratio | {base} (sim) | "
               f"{patched} (sim) | ratio |", "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
        for key, name in METRICS:
            gb, gp = metric(_summ(b, "guest"), key), metric(_summ(p, "guest"), key)
            sb, sp = metric(_summ(b, "sim"), key), metric(_summ(p, "sim"), key)
            md.append(f"| {name} | {fmt(gb)} | {fmt(gp)} | {ratio(gb, gp)} | {fmt(sb)} | "
                      f"{fmt(sp)} | {ratio(sb, sp)} |")
        for cname in ("writes", "fua_writes", "flushes"):
            vals = []
            for c in (b, p):
                for side in ("guest", "sim"):
                    s = _summ(c, side)
                    vals.append(s["per_io"].get(cname) if s else None)
            md.append(f"| {cname} per I/O | {fmt(vals[0])} | {fmt(vals[2])} | | "
                      f"{fmt(vals[1])} | {fmt(vals[3])} | |")
        seed = exp.get("seed", {})
        if seed and dev == seed.get("frontend") and wl in seed.get("cells", {}):
            sc = seed["cells"][wl]
            md.append(f"| seed {base} / {patched} | " + " / ".join(
                f"{k} {fmt(sc.get(base, {}).get(k))}->{fmt(sc.get(patched, {}).get(k))}"
                for k in ("iops", "avg", "p50", "p99")
                if k in sc.get(base, {}) or k in sc.get(patched, {})) + " | | | | | |")
        md.append("")
        for c in (b, p):
            if not c:
                continue
            for side in ("guest", "sim"):
                if side in c:
                    err = c[side].get("error")
                    md.append(f"- `{c['id']}` {side}: " + (f"**failed**: {err}" if err else
                              f"`{c[side]['command']}`"))
        md.append("")
        label = f"{wl} {dev}"
        labels.append(label)
        series_b.append(metric(_summ(b, "guest"), "iops"))
        series_p.append(metric(_summ(p, "guest"), "iops"))
        series_bs.append(metric(_summ(b, "sim"), "iops"))
        series_ps.append(metric(_summ(p, "sim"), "iops"))
        slug = f"cdf-{wl}-{prof}-{dev}".replace("/", "_")
        curves = [(f"{base} guest", "#1f77b4", cdf_points(_summ(b, "guest"))),
                  (f"{patched} guest", "#d62728", cdf_points(_summ(p, "guest"))),
                  (f"{base} sim", "#aec7e8", cdf_points(_summ(b, "sim"))),
                  (f"{patched} sim", "#ff9896", cdf_points(_summ(p, "sim")))]
        if cdf_chart(f"latency, {wl} on {prof}, {dev}", curves,
                     os.path.join(outdir, slug + ".svg")):
            md += [f"![latency CDF]({slug}.svg)", ""]
    names = [p for pair in exp["pairs"] for p in pair]
    if bar_chart(f"{exp['name']}: IOPS", labels,
                 [(f"{names[0]} guest", "#1f77b4", series_b),
                  (f"{names[1]} guest", "#d62728", series_p),
                  (f"{names[0]} sim", "#aec7e8", series_bs),
                  (f"{names[1]} sim", "#ff9896", series_ps)],
                 os.path.join(outdir, "iops.svg")):
        md += ["![IOPS](iops.svg)", ""]
    with open(os.path.join(outdir, "report.md"), "w") as f:
        f.write("\n".join(md))
    return doc
