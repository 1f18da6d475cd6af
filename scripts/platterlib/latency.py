"""Latency histograms as the guest reports them: {value_ns: count}.

Two sources give the same shape: fio's json+ completion-latency bins
("bins": {"<ns>": count}, each key the value fio reports for its bucket)
and the guest programs' "lat_hist_ns" ([[ns, count], ...], each ns the
largest sample in a log-linear bucket, see guest-tests/src/stats.h).
Percentiles are nearest rank over the bins, as fio computes its own.
"""
import math


def merge(*hists):
    out = {}
    for h in hists:
        for ns, n in h.items():
            out[ns] = out.get(ns, 0) + n
    return out


def from_pairs(pairs):
    """[[ns, count], ...] (a guest program's lat_hist_ns) as a histogram."""
    out = {}
    for ns, n in pairs or ():
        out[int(ns)] = out.get(int(ns), 0) + int(n)
    return out


def from_fio_bins(bins):
    return {int(k): int(v) for k, v in (bins or {}).items()}


def count(h):
    return sum(h.values())


def percentile(h, p):
    """Nearest rank: the smallest value with at least p% of the samples at
    or below it (p in (0, 100]); None for an empty histogram."""
    n = count(h)
    if not n:
        return None
    rank = max(1, math.ceil(p / 100 * n - 1e-9))
    seen = 0
    for ns in sorted(h):
        seen += h[ns]
        if seen >= rank:
            return ns
    return max(h)


def cdf(h):
    """[(fraction at or below, us)] at every bin, ascending."""
    n, seen, out = count(h), 0, []
    for ns in sorted(h):
        seen += h[ns]
        out.append((seen / n, ns / 1000))
    return out


def thin(points, max_points=400):
    """A CDF with at most about max_points points that draws the same
    curve: a point is kept when it moves the curve visibly on log axes
    (latency, and 1/(1-p) for the tail), the last always."""
    if len(points) <= max_points:
        return list(points)
    out, last = [], None
    step = 6 / max_points   # six decades of either axis at most
    for i, (frac, us) in enumerate(points):
        x = -math.log10(max(1 - frac, 1e-9))
        y = math.log10(max(us, 1e-9))
        if last is None or i == len(points) - 1 or \
                abs(x - last[0]) >= step or abs(y - last[1]) >= step:
            out.append((frac, us))
            last = (x, y)
    return out
