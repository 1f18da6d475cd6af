"""fio's --output-format=json+ output, read with Python's json: the stats
of every job (or group, with group_reporting) for read, write, trim and
sync, and one summary for a cell.

A cell's summary is the stat its workload names (fio_stat): "io" (read,
write and trim together: IOPS summed over jobs, latency percentiles from
their merged completion-latency bins), one of "read", "write", "trim", or
"sync" (the fsync/fdatasync calls: their count over the job's runtime and
their latency bins).
"""
import json

from . import latency

DIRS = ("read", "write", "trim")
STATS = ("io",) + DIRS + ("sync",)


class Malformed(ValueError):
    pass


def parse(text):
    """The JSON document in fio's output file.  fio may print notes before
    it (e.g. about iodepth and sync engines): the document starts at the
    first line that opens an object."""
    start = 0 if text.startswith("{") else text.find("\n{") + 1
    if not text.strip() or (start == 0 and not text.startswith("{")):
        raise Malformed("no JSON object in fio's output")
    try:
        doc = json.loads(text[start:])
    except json.JSONDecodeError as e:
        raise Malformed(f"fio's output is not JSON: {e}")
    if not isinstance(doc, dict) or not isinstance(doc.get("jobs"), list):
        raise Malformed("fio's output has no 'jobs' list")
    return doc


def ran_ms(job):
    """How long a job (or a group of jobs) ran, in ms: the longest of its
    read, write and trim runtimes, which fio keeps as the longest over a
    group's jobs.  Its job_runtime is the sum over a group's jobs
    (group_reporting: 32 jobs of 0.5 s say 16000), so it counts only for a
    job that did no I/O."""
    dirs = [(job.get(d) or {}).get("runtime", 0) for d in DIRS]
    ms = max((v for v in dirs if type(v) is int), default=0)
    if ms:
        return ms
    ms = job.get("job_runtime", 0)
    return ms if type(ms) is int else 0


def overran(doc, asked_s):
    """Why the jobs ran longer than the runtime fio was given, or None.  A
    job may end sooner (its size written) but not later: a runtime that
    fio misread (a plain 0.3 is 0, no limit) shows here.  Jobs that set
    their own runtime are not held to asked_s.  The margin is one second or
    half the runtime, whichever is more: fio checks its clock between I/Os,
    and the I/Os in flight at the deadline (a queue behind a cache flush)
    still complete."""
    if "runtime" in (doc.get("global options") or {}) and \
            not str(doc["global options"]["runtime"]).endswith("us"):
        return None   # the job file's [global] runtime= won
    longest = 0
    for job in doc.get("jobs", []):
        if not isinstance(job, dict) or "runtime" in (job.get("job options") or {}):
            continue
        longest = max(longest, ran_ms(job))
    if longest > (asked_s + max(asked_s / 2, 1)) * 1000:
        return (f"fio ran {longest} ms, not the {asked_s} s asked for "
                "(a runtime fio did not honour: the figures are not the cell's)")
    return None


def _lat(stat, key):
    """(histogram, mean_ns, N) of a fio latency object."""
    lat = stat.get(key) or {}
    return (latency.from_fio_bins(lat.get("bins")), lat.get("mean", 0.0),
            int(lat.get("N", 0)))


def direction(job, name):
    """One job's stats for read, write, trim or sync, or None when it did
    none of those."""
    st = job.get(name) or {}
    ios = int(st.get("total_ios", 0))
    if not ios:
        return None
    if name == "sync":
        hist, mean, n = _lat(st, "lat_ns")
        runtime_ms = max(int((job.get(d) or {}).get("runtime", 0)) for d in DIRS) or \
            int(job.get("job_runtime", 0))
        iops = ios * 1000 / runtime_ms if runtime_ms else None
        bw = None
    else:
        hist, mean, n = _lat(st, "clat_ns")
        runtime_ms, iops, bw = int(st.get("runtime", 0)), st.get("iops"), st.get("bw_bytes")
    return {"ios": ios, "iops": iops, "bw_bytes": bw, "runtime_ms": runtime_ms,
            "hist": hist, "mean_ns": mean, "n": n}


def jobs(doc):
    """[(job name, groupid, {stat: direction stats})] in fio's order."""
    out = []
    for job in doc["jobs"]:
        if not isinstance(job, dict):
            raise Malformed("a fio job entry is not an object")
        dirs = {d: direction(job, d) for d in DIRS + ("sync",)}
        out.append((str(job.get("jobname", "?")), job.get("groupid", 0),
                    {d: s for d, s in dirs.items() if s}))
    return out


def lat_us(stats):
    """avg and percentiles (us) over several direction stats."""
    hist = latency.merge(*(s["hist"] for s in stats))
    n = sum(s["n"] for s in stats)
    avg = sum(s["mean_ns"] * s["n"] for s in stats) / n / 1000 if n else None
    pct = {k: latency.percentile(hist, p) for k, p in (("p50", 50), ("p99", 99),
                                                       ("p99.9", 99.9))}
    return ({"avg": round(avg, 3) if avg is not None else None,
             **{k: (v / 1000 if v is not None else None) for k, v in pct.items()}},
            hist)


def phases_of(groups):
    """Each reporting group's own figures, in fio's order."""
    phases = []
    for group, stats in groups.items():
        rates = [s["iops"] for s in stats if s["iops"] is not None]
        phases.append({"group": group, "ios": sum(s["ios"] for s in stats),
                       "iops": round(sum(rates), 3) if rates else None,
                       "runtime_ms": max(s["runtime_ms"] for s in stats)})
    return phases


def summary(doc, stat="io", group_job=None):
    """The cell's figures: ios, iops, lat_us, cdf (fraction, us).

    The jobs of one reporting group run together, so their rates add up.
    fio starts a new group at each stonewall, and a job file with several
    groups runs them one after another (a write phase, then a read phase):
    summing their rates counted each phase's I/Os as if the others' time
    were its own (tiobench's four phases showed 30,621 IOPS).  With more
    than one group the headline is every I/O over the groups' times added
    up, each group's time its longest job's, and "phases" gives each
    group's own figures.  group_job (an experiment's "fio_group": a job's
    name) makes the headline that job's group alone: its I/Os, its rate
    and its latency."""
    picked, groups = [], {}
    listed = jobs(doc)
    only = None
    if group_job is not None:
        only = next((g for name, g, _ in listed if name == group_job), None)
        if only is None:
            raise Malformed(f"fio_group '{group_job}': no such job in fio's output")
    for _, group, dirs in listed:
        for d, s in dirs.items():
            if d == stat or (stat == "io" and d in DIRS):
                picked.append(s)
                groups.setdefault(group, []).append(s)
    if only is not None:
        picked = groups.get(only, [])
    lat, hist = lat_us(picked)
    ios = sum(s["ios"] for s in picked)
    out = {"ios": ios, "lat_us": lat, "cdf": latency.cdf(hist)}
    if len(groups) <= 1 or only is not None:
        iops = [s["iops"] for s in picked if s["iops"] is not None]
        out["iops"] = round(sum(iops), 3) if iops else None
        if len(groups) > 1:
            out["phases"] = phases_of(groups)
        return out
    phases = phases_of(groups)
    total_ms = sum(p["runtime_ms"] for p in phases)
    out["iops"] = round(ios * 1000 / total_ms, 3) if total_ms else None
    out["phases"] = phases
    return out


def table(doc):
    """Rows for the report: one per job (or group) and stat it did."""
    rows = []
    for name, group, dirs in jobs(doc):
        for d in DIRS + ("sync",):
            if d in dirs:
                s = dirs[d]
                lat, _ = lat_us([s])
                rows.append({"job": name, "group": group, "stat": d, "ios": s["ios"],
                             "iops": s["iops"], "bw_bytes": s["bw_bytes"], "lat_us": lat})
    return rows
