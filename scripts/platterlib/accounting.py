"""Where a guest cell's virtual time went, and which phase it measured.

platter's QEMU prints its accounting on stderr at exit (qemu-patches 0010
for the vCPUs, the hddmodel driver for each drive; neither changes what
the guest sees):

    icount-vcpu cpu=N clock_ns=.. insns=.. run_ns=.. spun_insns=..
        spun_ns=.. halted_ns=.. irqs=.. ipis=..
        [charged_insns=.. charged_ns=.. owed_insns=..
         KIND_charges=.. KIND_charged_insns=.. for each charge KIND]
    icount-vcpu-samples cpus=N per=insns,spun,irqs,ipis[,charged,
        KIND_charges...] CLOCK:INSNS:SPUN:IRQS:IPIS[:CHARGED:EVENTS per
        KIND][:INSNS:...]... ...
        (a QEMU before that: no per=, CLOCK:INSNS:SPUN[:INSNS:SPUN]...)
    icount-coherence lines=N transfers=N evictions=N
    icount-coherence-line rank=R paddr=0x.. vaddr=0x.. pc=0x.. cpus=0x..
        transfers=N waited_insns=N   (the lines that moved most, with a
        CPU profile's transfer_cycles: qemu-patches 0019)
    hddmodel-accounting node=NAME clock_ns=.. front_busy_ns=.. ... (and
        every counter of the model)
    hddmodel-samples node=NAME CLOCK:FRONT_BUSY_NS:FRONT_DEPTH_NS:
        MODEL_BUSY_NS:MODEL_DEPTH_NS:COMPLETED ...

run-guest turns them into the result's "accounting" (from_qemu, the
command line below).  summary() reads it for the measured window, the
last runtime_s of virtual time before the guest finished (the workload
is the last thing a guest test runs; its unmount and report are in the
window too, and short): per vCPU the share executing, spinning (PAUSE
turns lockstep time counted as run), charged (the events a CPU
profile charges: run-guest --cpu) and halted; per drive busy time,
queue occupancy at the front end and in the model, and the delays in
and out; throughput over time (fio's per-interval IOPS log when the cell
asked for one, else the drive's completions per sample interval); a
steady-state flag; and the resource that bound the cell.

usage: accounting.py from-qemu QEMU-STDERR-FILE [SYSTEM-MAP]
    prints the "accounting" JSON object (version 1) on stdout, or nothing
    when the file has no accounting lines (stock QEMU); with the guest
    kernel's System.map, each hot cache line's instruction gets its symbol
"""
from fractions import Fraction
import html
import json
import sys

from . import cli, cpuprofile, guestprofile

VERSION = 1
# "not steady": the mean throughput of the window's last half differs from
# its first half's by more than this fraction of the first half's
STEADY_BOUND = 0.10
# a resource bound the cell when it was busy at least this share of the
# window: the drive when it held a command, the vCPUs when they executed or
# spun (mean over the vCPUs)
BOUND_BUSY = 0.90
VCPU_KEYS = ("clock_ns", "insns", "run_ns", "spun_insns", "spun_ns", "halted_ns",
             "irqs", "ipis")
# what QEMU charges for events a CPU profile prices (qemu-patches: icount
# charge-KIND; only in runs with a charge above 0)
CHARGE_KINDS = cpuprofile.KINDS
CHARGE_KEYS = ("charged_insns", "charged_ns", "owed_insns") + tuple(
    f"{k}_{w}" for k in CHARGE_KINDS for w in ("charges", "charged_insns"))
# an icount-coherence-line's fields (hexadecimal where they start 0x)
COHERENCE_LINE_KEYS = ("rank", "paddr", "vaddr", "pc", "cpus", "transfers", "waited_insns")
DEVICE_SAMPLE_KEYS = ("clock_ns", "front_busy_ns", "front_depth_ns", "model_busy_ns",
                      "model_depth_ns", "completed")

from . import cli


class Malformed(ValueError):
    pass


def _fields(words, where):
    out = {}
    for w in words:
        k, sep, v = w.partition("=")
        if not sep:
            raise Malformed(f"{where}: '{w:.40}' is not KEY=VALUE")
        out[k] = v
    return out


def _ints(d, where, skip=()):
    try:
        return {k: (v if k in skip else int(v)) for k, v in d.items()}
    except ValueError:
        raise Malformed(f"{where}: a value is not an integer")


def _samples(words, width, where):
    out = []
    for w in words:
        try:
            s = [int(x) for x in w.split(":")]
        except ValueError:
            raise Malformed(f"{where}: sample '{w:.40}' is not integers")
        if len(s) != width:
            raise Malformed(f"{where}: sample '{w:.40}' has {len(s)} values, not {width}")
        out.append(s)
    return out


def from_qemu(text):
    """The accounting object from QEMU's stderr, or None without any."""
    vcpus, devices, vsamples, dsamples, vsample_last = [], [], None, {}, {}
    coherence = None
    for line in text.splitlines():
        words = line.split()
        if not words:
            continue
        kind = words[0]
        if kind == "icount-vcpu":
            v = _ints(_fields(words[1:], kind), kind)
            vcpus.append({"cpu": v.get("cpu")} | {k: v.get(k) for k in VCPU_KEYS}
                         | {k: v[k] for k in CHARGE_KEYS if k in v})
        elif kind == "icount-vcpu-samples":
            nhead = 2 if len(words) > 2 and words[2].startswith("per=") else 1
            head = _fields(words[1:1 + nhead], kind)
            n = _ints({"cpus": head.get("cpus", "0")}, kind)["cpus"]
            per = head.get("per", "insns,spun").split(",")
            if per[:2] != ["insns", "spun"]:
                raise Malformed(f"{kind}: per={head['per']:.40} does not start with insns,spun")
            raw = _samples(words[1 + nhead:], 1 + len(per) * n, kind)
            # the samples keep clock, insns, spun and (with charges) charged
            # per vCPU; the other counts are read at the last sample
            # (_end_at_sample)
            keep = [per.index(f) for f in ("insns", "spun", "charged") if f in per]
            last = {f: raw[-1][1 + i::len(per)] for i, f in enumerate(per)} if raw else {}
            vsamples = {"cpus": n, "samples": [
                [s[0]] + [s[1 + c * len(per) + j] for c in range(n) for j in keep]
                for s in raw]}
            if "charged" in per:
                vsamples["charged"] = True
            vsample_last = last
        elif kind == "icount-coherence":
            coherence = _ints(_fields(words[1:], kind), kind) | {"lines_top": []}
            for k in ("lines", "transfers", "evictions"):
                if k not in coherence:
                    raise Malformed(f"{kind}: no {k}=")
        elif kind == "icount-coherence-line":
            if coherence is None:
                raise Malformed(f"{kind} before icount-coherence")
            f = _fields(words[1:], kind)
            try:
                line = {k: int(f[k], 0) for k in COHERENCE_LINE_KEYS}
            except (KeyError, ValueError):
                raise Malformed(f"{kind}: expected {'= '.join(COHERENCE_LINE_KEYS)}=, "
                                f"got '{' '.join(words[1:]):.80}'")
            line["cpus"] = [c for c in range(64) if line["cpus"] >> c & 1]
            coherence["lines_top"].append(line)
        elif kind == "hddmodel-accounting":
            devices.append(_ints(_fields(words[1:], kind), kind, skip=("node",)))
        elif kind == "hddmodel-samples":
            node = _fields(words[1:2], kind).get("node")
            dsamples[node] = _samples(words[2:], len(DEVICE_SAMPLE_KEYS), kind)
    if not vcpus and not devices:
        return None
    for i, d in enumerate(devices):
        d["samples"] = dsamples.get(d["node"], [])
        # QEMU's generated node names ("#block187") count every block node
        # made so far, and the count varied between two runs of one cell:
        # a generated name becomes the drive's position
        if str(d["node"]).startswith("#"):
            d["node"] = f"drive{i}"
    if vsamples and vsamples["samples"] and vsamples["cpus"] == len(vcpus):
        _end_at_sample(vcpus, vsamples, vsample_last)
    out = {"version": VERSION, "vcpus": vcpus,
           "vcpu_samples": vsamples or {"cpus": len(vcpus), "samples": []},
           "devices": devices}
    if coherence is not None:
        out["coherence"] = coherence
    return out


def name_lines(coherence, symbols):
    """Each hot line's instruction by the kernel's symbols (a
    guestprofile.Symbols): "symbol+0xOFFSET"."""
    for line in coherence["lines_top"]:
        if line["pc"] < 1 << 47:
            # a user program's instruction: System.map does not know it
            line["symbol"] = f"[user] 0x{line['pc']:x}"
            continue
        name = symbols.name(line["pc"])
        start = symbols.start(line["pc"])
        line["symbol"] = name if start is None else f"{name}+0x{line['pc'] - start:x}"


def sample_width(vs):
    """Values per vCPU in a vcpu_samples sample: instructions and spun
    instructions, and when the run charged events the charged instructions."""
    return 3 if vs.get("charged") else 2


def check_samples(vs):
    """vcpu_samples as a saved report holds them: each sample is a clock and
    sample_width() integers per vCPU.  Malformed names the first that is
    not (issue 39: a short sample, or "charged" with 2 values per vCPU,
    was an IndexError in report, gate, merge and --baseline)."""
    if not isinstance(vs, dict):
        raise Malformed("vcpu_samples is not an object")
    cpus, samples = vs.get("cpus", 0), vs.get("samples", [])
    if type(cpus) is not int or cpus < 0 or not isinstance(samples, list):
        raise Malformed("vcpu_samples: cpus is not a count or samples not a list")
    want = 1 + sample_width(vs) * cpus
    for n, smp in enumerate(samples):
        if not isinstance(smp, list) or len(smp) != want or \
                not all(type(x) is int for x in smp):
            raise Malformed(f"vcpu_samples: sample {n} is not {want} integers "
                            f"(a clock and {sample_width(vs)} per vCPU for {cpus} vCPUs)")


def sample_of(vs, s, i):
    """(instructions, spun, charged) of vCPU i in sample s."""
    w = sample_width(vs)
    return s[1 + w * i], s[2 + w * i], (s[3 + w * i] if w > 2 else 0)


def _end_at_sample(vcpus, vs, counts):
    """The vCPUs' totals as of the last sample.  QEMU prints its totals at
    exit, and the guest's way out (poweroff) lets a host-dependent few
    instructions run after its last act (20 in two runs of one cell): the
    samples are taken where the guest's execution alone decides, so the
    accounting ends at the last one and is the same every run.  counts:
    the other per-vCPU counts of the last sample by name (irqs, ipis: an
    IPI among those last instructions made two runs of an 8-vCPU cell
    differ by one; the events charged per kind)."""
    last = vs["samples"][-1]
    for i, v in enumerate(vcpus):
        insns, spun, charged = sample_of(vs, last, i)
        # ns per instruction of this vCPU's clock: 1 / ipns, whole (run_ns
        # is the floor of insns / ipns)
        per = Fraction(1, max(round(v["insns"] / v["run_ns"]), 1)) if v["run_ns"] \
            else Fraction(1)
        v.update(clock_ns=last[0], insns=insns, run_ns=int(insns * per),
                 spun_insns=spun, spun_ns=int(spun * per))
        if "charged_insns" in v:
            v.update(charged_insns=charged, charged_ns=int(charged * per))
            # what was still owed at exit is not known at the sample
            v.pop("owed_insns", None)
            # per kind: the events at the sample, times the kind's charge
            # (fixed for the run)
            for k in CHARGE_KINDS:
                if f"{k}_charges" in counts:
                    each = (v[f"{k}_charged_insns"] // v[f"{k}_charges"]
                            if v.get(f"{k}_charges") else 0)
                    n = counts[f"{k}_charges"][i]
                    v[f"{k}_charges"], v[f"{k}_charged_insns"] = n, n * each
        v["halted_ns"] = max(v["clock_ns"] - v["run_ns"] - v["spun_ns"]
                             - v.get("charged_ns", 0), 0)
        # interrupts and IPIs too, where the samples carry them
        for k in ("irqs", "ipis"):
            if k in counts:
                v[k] = counts[k][i]


# ---- the measured window ---------------------------------------------------

def _at(samples, t):
    """The last sample at or before t (the first if none is)."""
    best = samples[0]
    for s in samples:
        if s[0] <= t:
            best = s
        else:
            break
    return best


# the throughput series' source when it is fio's own IOPS log
FIO_SOURCE = "fio's IOPS log"


def iops_series(log_text, interval_ms):
    """fio's per-job IOPS logs ("# FILE" before each job's lines "TIME_MS,
    IOPS, DIR, BS, OFFSET[, PRIO]") summed over the jobs per interval:
    [(end of interval in s, IOPS)]."""
    buckets = {}
    for line in log_text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split(",")]
        try:
            t, v = int(parts[0]), int(parts[1])
        except (ValueError, IndexError):
            raise Malformed(f"fio IOPS log: '{line:.40}' is not 'TIME, IOPS, ...'")
        k = max(1, round(t / interval_ms))
        buckets[k] = buckets.get(k, 0) + v
    return [(k * interval_ms / 1000, buckets[k]) for k in sorted(buckets)]


def device_series(samples, start):
    """The drive's completions per second between its samples from start
    on: [(end of interval in s, IOPS)]."""
    out = []
    prev = None
    for s in samples:
        if s[0] < start:
            prev = s
            continue
        if prev is not None and s[0] > prev[0]:
            out.append(((s[0] - start) / 1e9, (s[5] - prev[5]) * 1e9 / (s[0] - prev[0])))
        prev = s
    return out


def steadiness(series):
    """(steady, change of the last half's mean against the first half's)
    of a throughput series, or (None, None) when it has fewer than 4
    points."""
    if len(series) < 4:
        return None, None
    half = len(series) // 2
    a = sum(v for _, v in series[:half]) / half
    b = sum(v for _, v in series[-half:]) / half
    if a == 0:
        return (b == 0), None
    change = (b - a) / a
    return abs(change) <= STEADY_BOUND, round(change, 4)


def summary(acct, runtime_s, iops_log=None, iops_log_ms=None):
    """What the report shows of a cell's accounting (None without one)."""
    if not acct or not acct.get("vcpus"):
        return None
    end = max(v["clock_ns"] for v in acct["vcpus"])
    window = min(int(runtime_s * 1e9), end) if runtime_s else end
    start = end - window
    vs = acct.get("vcpu_samples") or {}
    check_samples(vs)
    # from the last sample at or before the window's start to exit
    first = _at(vs["samples"], start) if vs.get("samples") else None
    span = max(end - (first[0] if first else 0), 1)
    vcpus = []
    for i, v in enumerate(acct["vcpus"]):
        # instructions per ns: the ratio of the totals (the clock runs ipns
        # instructions per ns of each vCPU's own time)
        ipns = v["insns"] / v["run_ns"] if v["run_ns"] else 1
        insns0, spun0, charged0 = (sample_of(vs, first, i)
                                   if first and i < vs.get("cpus", 0) else (0, 0, 0))
        run = (v["insns"] - insns0) / ipns
        spun = (v["spun_insns"] - spun0) / ipns
        charged = (v.get("charged_insns", 0) - charged0) / ipns
        row = {"cpu": v["cpu"], "executing": _share(run, span),
               "spun": _share(spun, span),
               "halted": _share(max(span - run - spun - charged, 0), span),
               "insns": v["insns"] - insns0, "irqs": v["irqs"], "ipis": v["ipis"]}
        if "charged_insns" in v:
            # the events a CPU profile charges: their share of the window,
            # and per kind the whole run's events and charged time
            row["charged"] = _share(charged, span)
            row["charges"] = {k: {"events": v.get(f"{k}_charges", 0),
                                  "ns": round(v.get(f"{k}_charged_insns", 0) / ipns)}
                              for k in CHARGE_KINDS}
        vcpus.append(row)
    devices = []
    for d in acct.get("devices") or []:
        last = [d["clock_ns"], d["front_busy_ns"], d["front_depth_ns"], d["model_busy_ns"],
                d["model_depth_ns"], d["completed"]]
        # from the last sample at or before the window's start to exit
        s0 = _at(d["samples"], start) if d.get("samples") else [0] * 6
        s1 = last
        span = max(s1[0] - s0[0], 1)
        devices.append({
            "node": d["node"], "window_s": round(span / 1e9, 6),
            "busy": _share(s1[3] - s0[3], span),
            "front_busy": _share(s1[1] - s0[1], span),
            "front_depth_mean": round((s1[2] - s0[2]) / span, 3), "front_depth_max": d["front_max"],
            "model_depth_mean": round((s1[4] - s0[4]) / span, 3), "model_depth_max": d["model_max"],
            "iops": round((s1[5] - s0[5]) * 1e9 / span, 1),
            "submit_wait_us": _mean_us(d["submit_wait_ns"], d["submitted"]),
            "submit_wait_max_us": d["submit_wait_max_ns"] / 1000,
            "complete_delay_us": _mean_us(d["complete_delay_ns"], d["completed"]),
            "complete_delay_max_us": d["complete_delay_max_ns"] / 1000})
    if iops_log is not None and iops_log_ms:
        series, source = iops_series(iops_log, iops_log_ms), FIO_SOURCE
    elif acct.get("devices") and acct["devices"][0].get("samples"):
        series = device_series(acct["devices"][0]["samples"], start)
        source = "the drive's completions"
    else:
        series, source = [], None
    steady, change = steadiness(series)
    return {"version": VERSION, "window_s": round(window / 1e9, 6),
            "clock_s": round(end / 1e9, 6), "vcpus": vcpus, "devices": devices,
            "throughput": {"source": source, "series": [[round(t, 4), round(v, 1)]
                                                        for t, v in series]},
            "steady": steady, "steady_change": change, "steady_bound": STEADY_BOUND,
            "bound_by": bound_by(vcpus, devices)} | (
                {"coherence": acct["coherence"]} if acct.get("coherence") else {})


def _share(part, whole):
    return round(min(max(part / whole, 0.0), 1.0), 4) if whole else None


def _mean_us(total_ns, n):
    return round(total_ns / n / 1000, 3) if n else None


def bound_by(vcpus, devices):
    """"device" when the drive held a command BOUND_BUSY of the window,
    "vCPUs" when the vCPUs executed, spun or were charged that much (mean
    over them), the busier of the two when both did, else "neither" (a cell
    waiting on something else: a lock it sleeps on, a timer, too few I/Os
    in flight)."""
    cpu = (sum(v["executing"] + v["spun"] + v.get("charged", 0) for v in vcpus)
           / len(vcpus)) if vcpus else 0
    dev = max((d["busy"] or 0 for d in devices), default=0)
    if max(cpu, dev) < BOUND_BUSY:
        return "neither"
    return "device" if dev >= cpu else "vCPUs"


# ---- the report ------------------------------------------------------------

def _pct(v):
    return "-" if v is None else f"{100 * v:.1f}%"


def _num(v):
    return "-" if v is None else f"{v:,.3f}".rstrip("0").rstrip(".") if isinstance(v, float) \
        else f"{v:,}"


def markdown(cell_id, s):
    """The report's lines for one cell's accounting summary."""
    if not s:
        return [f"time accounting, `{cell_id}`: none (a QEMU without platter's accounting)",
                ""]
    st = ("steady" if s["steady"] else "**not steady**" if s["steady"] is False
          else "steadiness unknown (fewer than 4 intervals)")
    if s["steady_change"] is not None:
        st += (f" (last half {100 * s['steady_change']:+.1f}% against the first, "
               f"bound ±{100 * s['steady_bound']:.0f}%)")
    src = s["throughput"]["source"]
    md = [f"time accounting, `{cell_id}`: the last {s['window_s']:g} s of "
          f"{s['clock_s']:g} s of virtual time; bound by **{s['bound_by']}**; {st}"
          + (f", from {src}" if src else ""), "",
          "| vCPU | executing | spun | halted | instructions | interrupts (whole run) "
          "| IPIs (whole run) |",
          "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    charged = any("charged" in v for v in s["vcpus"])
    if charged:
        md[-2] = md[-2].replace("| halted |", "| charged | halted |")
        md[-1] += " ---: |"
    for v in s["vcpus"]:
        ch = f"{_pct(v['charged'])} | " if charged else ""
        md.append(f"| {v['cpu']} | {_pct(v['executing'])} | {_pct(v['spun'])} | {ch}"
                  f"{_pct(v['halted'])} | {v['insns']:,} | {v['irqs']:,} | {v['ipis']:,} |")
    if charged:
        parts = []
        for k in CHARGE_KINDS:
            n = sum(v["charges"].get(k, {}).get("events", 0) for v in s["vcpus"])
            ns = sum(v["charges"].get(k, {}).get("ns", 0) for v in s["vcpus"])
            parts.append(f"{k} {n:,} / {ns / 1e6:,.3f} ms")
        md += ["", "charged by the CPU profile over the whole run (events / virtual "
               "time): " + "; ".join(parts)]
    coh = s.get("coherence")
    if coh:
        md += ["", f"cache lines (whole run): {coh['transfers']:,} transfers between vCPUs, "
               f"{coh['lines']:,} lines held, {coh['evictions']:,} evicted; the lines that "
               "moved most:", "",
               "| line (guest physical) | instruction | vCPUs | transfers | waited (instructions) |",
               "| --- | --- | --- | ---: | ---: |"]
        for line in coh["lines_top"]:
            md.append(f"| 0x{line['paddr']:x} | {line.get('symbol') or hex(line['pc'])} | "
                      f"{','.join(map(str, line['cpus']))} | {line['transfers']:,} | "
                      f"{line['waited_insns']:,} |")
    if s["devices"]:
        md += ["", "| drive | busy | idle | front-end queue mean / max | model queue mean / max "
               "| arrival -> model mean / max (us) | completion -> front end mean / max (us) "
               "| IOPS at the drive |",
               "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
        for d in s["devices"]:
            idle = None if d["busy"] is None else 1 - d["busy"]
            md.append(f"| {d['node']} | {_pct(d['busy'])} | {_pct(idle)} | "
                      f"{_num(d['front_depth_mean'])} / {d['front_depth_max']} | "
                      f"{_num(d['model_depth_mean'])} / {d['model_depth_max']} | "
                      f"{_num(d['submit_wait_us'])} / {_num(d['submit_wait_max_us'])} | "
                      f"{_num(d['complete_delay_us'])} / {_num(d['complete_delay_max_us'])} | "
                      f"{_num(d['iops'])} |")
    return md + [""]


def throughput_chart(title, curves, path, y_label):
    """curves: [(name, colour, [(s, per s)])]: throughput against virtual
    time, linear axes from 0, the y axis named y_label (its unit).  False
    (nothing written) without points."""
    pts = [p for _, _, c in curves for p in c]
    if not pts:
        return False
    w, h, left, top, pw, ph = 620, 340, 80, 40, 510, 230
    tmax = max(t for t, _ in pts) or 1
    vmax = max(v for _, v in pts) or 1

    def xy(t, v):
        return left + pw * t / tmax, top + ph - ph * v / vmax
    out = [f'<text x="{w / 2:.1f}" y="20" text-anchor="middle" font-size="14">'
           f'{html.escape(title)}</text>',
           f'<text x="{left + pw / 2:.1f}" y="{top + ph + 34:.1f}" text-anchor="middle">'
           'virtual time in the window (s)</text>',
           f'<text x="14" y="{top + ph / 2:.1f}" text-anchor="middle" '
           f'transform="rotate(-90 14 {top + ph / 2:.1f})">{html.escape(y_label)}</text>']
    for i in range(5):
        v = vmax * i / 4
        _, y = xy(0, v)
        out.append(f'<line x1="{left}" x2="{left + pw}" y1="{y:.1f}" y2="{y:.1f}" '
                   f'stroke="#ddd"/><text x="{left - 5}" y="{y + 4:.1f}" text-anchor="end">'
                   f'{v:,.0f}</text>')
        x, _ = xy(tmax * i / 4, 0)
        out.append(f'<text x="{x:.1f}" y="{top + ph + 16:.1f}" text-anchor="middle">'
                   f'{tmax * i / 4:.3g}</text>')
    y = top + ph + 56
    for k, (name, colour, c) in enumerate(curves):
        if c:
            d = " ".join(("M" if j == 0 else "L") + "%.1f,%.1f" % xy(*p)
                         for j, p in enumerate(c))
            out.append(f'<path d="{d}" fill="none" stroke="{colour}" stroke-width="2"/>')
        out.append(f'<rect x="{left + 200 * k}" y="{y - 10}" width="14" height="4" '
                   f'fill="{colour}"/><text x="{left + 200 * k + 20}" y="{y}">'
                   f'{html.escape(name)}</text>')
    with open(path, "w") as f:
        f.write(f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
                f'font-family="sans-serif" font-size="12">\n'
                f'<rect width="{w}" height="{h}" fill="white"/>\n' + "\n".join(out) + "</svg>\n")
    return True


def main(argv):
    if len(argv) not in (3, 4) or argv[1] != "from-qemu":
        print("usage: accounting.py from-qemu QEMU-STDERR-FILE [SYSTEM-MAP]", file=sys.stderr)
        return 2
    try:
        with open(argv[2], "rb") as f:
            acct = from_qemu(f.read().decode("utf-8", "replace"))
        if acct and acct.get("coherence") and len(argv) == 4:
            name_lines(acct["coherence"], guestprofile.Symbols(argv[3]))
    except OSError as e:
        print(f"accounting.py: {e.filename}: {e.strerror}", file=sys.stderr)
        return 2
    except guestprofile.Malformed as e:
        print(f"accounting.py: {e}", file=sys.stderr)
        return 2
    except Malformed as e:
        print(f"accounting.py: {argv[2]}: {e}", file=sys.stderr)
        return 1
    if acct:
        print(json.dumps(acct, separators=(",", ":")))
    return 0


if __name__ == "__main__":
    cli.run(lambda: main(sys.argv), "platterlib.accounting")
