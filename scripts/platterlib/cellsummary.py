"""The figures the report compares, from a cell's guest or platter-sim
result: IOPS, latency percentiles, commands per I/O, the latency CDF and
the time accounting; and the figures a platter-sim JSON report must give.
(summary.py is the run's headline built from these.)"""
from . import accounting
from . import clients
from . import fioout
from . import latency


def program_cdf(res):
    """A guest program's latency CDF from its histogram (lat_hist_ns)."""
    hist = latency.from_pairs(res.get("lat_hist_ns"))
    return [[frac, us] for frac, us in latency.thin(latency.cdf(hist))] if hist else []


def drive_trace_counts(path):
    """The writes, FUA writes and flushes a drive received, from its trace
    (platter-trace v1: `<submit_ns> <R|W|F|D> <offset> <length> <-|FUA>
    ...`): what the front end made of the guest's requests."""
    writes = fua = flushes = 0
    with open(path, errors="replace") as f:
        for line in f:
            w = line.split(maxsplit=5)
            if len(w) >= 5 and not w[0].startswith("#"):
                writes += w[1] == "W"
                fua += w[1] == "W" and w[4] == "FUA"
                flushes += w[1] == "F"
    return {"writes": writes, "fua_writes": fua, "flushes": flushes}


def drive_counters(res):
    """The modeled drive's counters when the run had one hddmodel drive,
    else {}: QEMU's (in the result's accounting, when they reach it), else
    those counted from the drive's trace (the result's "drive").  They
    count the whole run: on the raw device only the workload writes, so
    they are the workload's; on a file system mkfs and mount are in them
    too."""
    if not isinstance(res, dict):
        return {}
    devices = (res.get("accounting") or {}).get("devices")
    if isinstance(devices, list) and len(devices) == 1 and isinstance(devices[0], dict):
        return devices[0]
    return res["drive"] if isinstance(res.get("drive"), dict) else {}


def summarize(res, workload=None):
    """The figures the report compares, from a guest or sim result."""
    if res is None:
        return None
    ios = max(res.get("ios") or 0, 1)
    if "lat_ns" in res:  # platter-sim
        lat = {k: res["lat_ns"][k] / 1000 for k in ("avg", "p50", "p99", "p99.9")}
        dev = res.get("device", {})
        counters = {"writes": dev.get("writes"), "fua_writes": dev.get("fua_writes"),
                    "flushes": dev.get("flushes")}
        cdf = [[frac, ns / 1000] for frac, ns in res.get("lat_cdf_ns", [])]
        out = {"ios": res.get("ios"), "iops": res.get("iops"), "lat_us": lat}
    elif "fio" in res:  # the guest's fio test: fio's own json+
        fs = fioout.summary(res["fio"], (workload or {}).get("fio_stat", "io"),
                            (workload or {}).get("fio_group"))
        delta = res.get("device", {}).get("stat_delta", {})
        ios = max(fs["ios"], 1)
        # FUA writes as the drive received them: the guest has no count
        counters = {"writes": None, "fua_writes": drive_counters(res).get("fua_writes"),
                    "flushes": delta.get("flushes")}
        cdf = [[frac, us] for frac, us in latency.thin(fs["cdf"])]
        out = {"ios": fs["ios"], "iops": fs["iops"], "lat_us": fs["lat_us"],
               "jobs": fioout.table(res["fio"])}
        if "phases" in fs:
            # stonewalled groups, one after another: each with its own rate
            out["phases"] = fs["phases"]
    elif "status" in res and res.get("test") == "exec" and "client" in (workload or {}):
        # a ready client: its own output, parsed (clients.ParseError)
        if res["status"] != 0:
            why = (res.get("stderr") or "").strip().splitlines()[-1:] or ["no stderr"]
            raise clients.ParseError(f"exited {res['status']}: {why[0]:.200}")
        out = clients.summary(workload, res.get("stdout") or "")
        out["status"] = res["status"]
        # the drive's commands per operation (the whole run, mkfs too)
        counters = {k: drive_counters(res).get(k) for k in ("writes", "fua_writes", "flushes")}
        ios = max(out["ios"] or 0, 1)
        cdf = []
    elif "status" in res and res.get("test") == "exec":  # a script
        return {"ios": None, "iops": None, "lat_us": {}, "per_io": {}, "cdf_us": [],
                "status": res["status"]}
    else:  # a guest program (lat_us)
        lat = {k: res.get("lat_us", {}).get(k) for k in ("avg", "p50", "p99", "p99.9")}
        delta = res.get("device", {}).get("stat_delta", {})
        trace = res.get("trace", {})
        bs = res.get("params", {}).get("bs")
        # diskstats counts an empty preflush as a write too: count data
        # writes by sectors
        data_writes = (delta["write_sectors"] * 512 // bs
                       if bs and "write_sectors" in delta else None)
        # FUA writes: the guest's own count with --trace, else the drive's
        counters = {"writes": data_writes, "flushes": delta.get("flushes"),
                    "fua_writes": trace.get("write_fua",
                                            drive_counters(res).get("fua_writes"))}
        cdf = program_cdf(res) or res.get("lat_cdf_us", [])
        out = {"ios": res.get("ios"), "iops": res.get("iops"), "lat_us": lat}
    out["per_io"] = {k: (round(v / ios, 3) if isinstance(v, (int, float)) else None)
                     for k, v in counters.items()}
    out["cdf_us"] = cdf
    if "accounting" in res:  # a guest run on platter's QEMU
        out["accounting"] = accounting_summary(res, workload)
        if "client" not in out:   # (a client's I/Os are its headline's alone)
            cost = cpu_per_io(out["accounting"], out["ios"])
            if cost:
                out["cpu_per_io"] = cost
    check_figures(out)
    return out


def cpu_per_io(acc, ios):
    """What the guest's CPUs did per I/O over the measured window: every
    vCPU's instructions, and its time executing (charged events included),
    over the cell's I/Os; None without both.  A patch that adds work per
    I/O shows here when the drive hides it from the IOPS."""
    vcpus = acc.get("vcpus") if isinstance(acc, dict) else None
    if not vcpus or not ios or not acc.get("window_s"):
        return None
    insns = sum(v["insns"] for v in vcpus)
    busy_us = sum(v["executing"] for v in vcpus) * acc["window_s"] * 1e6
    return {"insns": round(insns / ios, 1), "us": round(busy_us / ios, 3)}


def accounting_summary(res, workload):
    """The cell's time accounting over its measured window (the guest's
    runtime), with fio's IOPS log when the workload asked for one."""
    try:
        runtime = (res.get("params", {}).get("runtime_s") or
                   (res.get("runtime_ns") or 0) / 1e9 or None)
        return accounting.summary(res["accounting"], runtime, res.get("iops_log"),
                                  (workload or {}).get("iops_log_ms"))
    except (accounting.Malformed, KeyError, TypeError, ValueError) as e:
        return {"error": f"the accounting does not read: {e}"}


def check_figures(summary):
    """Every figure of a summary is a number >= 0 (or absent): a saved or a
    child's report with an iops of -5 or "abc" is refused here, by name,
    not met later by the arithmetic of a gate or a table (ValueError)."""
    def figure(name, v):
        if v is not None and (type(v) not in (int, float) or not 0 <= v < 1e300):
            raise ValueError(f"{name} is {v!r:.40}, not a number >= 0")
    figure("ios", summary["ios"])
    figure("iops", summary["iops"])
    for group in ("lat_us", "per_io"):
        for k, v in summary[group].items():
            figure(f"{group}.{k}", v)
    for i, point in enumerate(summary["cdf_us"]):
        if not isinstance(point, (list, tuple)) or len(point) != 2:
            raise ValueError(f"cdf_us[{i}] is {point!r:.40}, not a pair")
        # a point's fraction is never absent: the plot's axis is 1/(1-f)
        if type(point[0]) not in (int, float) or not 0 <= point[0] <= 1:
            raise ValueError(f"cdf_us[{i}] is {point[0]!r:.40}, not a fraction in [0, 1]")
        figure(f"cdf_us[{i}]", point[1])


# the figures a platter-sim JSON report must give (summarize reads them)
SIM_FIGURES = ("ios", "iops", "lat_ns.avg", "lat_ns.p50", "lat_ns.p99", "lat_ns.p99.9")


def sim_lacks(res):
    """The first figure a platter-sim JSON report lacks (as a number),
    named for an error line, or None."""
    if not isinstance(res, dict):
        return "object (it is not a JSON object)"
    for name in SIM_FIGURES:
        v = res
        for part in name.split(".", 1):
            v = v.get(part) if isinstance(v, dict) else None
        if type(v) not in (int, float) or not 0 <= v < 1e300:
            return f"'{name}' (as a number >= 0)"
    return None
