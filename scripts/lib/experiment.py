"""Experiment matrices: which cells an experiment has, how each cell is run
(a guest run under QEMU and a platter-sim prediction), and the cell results.

A cell is one kernel variant on one device front end with one profile and
one workload.  Its result holds only what the guest and the model computed
in virtual time, so running a cell twice gives identical results; host
timing is kept apart, in the cell's "host" field.
"""
import json
import os
import shlex
import signal
import subprocess
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
EXPERIMENTS = os.path.join(ROOT, "scripts", "experiments")
REPORT_VERSION = 1
IMAGE_BYTES = 200 << 30

# Does the front end advertise native FUA to the guest?
def frontend_fua(dev):
    if dev["frontend"] == "nvme":
        return True
    if dev["frontend"] == "scsi-hd":
        return dev.get("dpofua", "on") == "on"
    return False  # virtio-blk has no FUA


def drive_opts(profile, fua, image="disk.img"):
    """The modeled drive as run-guest --drive-opts: write cache on, FUA as
    the front end advertises it."""
    return (f"driver=hddmodel,profile={profile},fua={'on' if fua else 'off'},"
            f"write-cache=on,file={image}")


def has_fops(variant):
    return variant in ("fops", "all")


def has_xfs(variant):
    return variant in ("xfs", "all")


def sim_policy(variant, fua):
    """The commands an O_DSYNC direct write becomes (see README, --policy)."""
    if fua:
        return "fua" if has_fops(variant) else "fua+flush"
    return "write+flush" if has_fops(variant) else "fua-emulated"


def load_spec(directory, name_or_path, what, keys):
    """A JSON spec by path or by name in directory, with its required keys;
    returns (spec, path)."""
    path = name_or_path
    if not os.path.exists(path):
        path = os.path.join(directory, name_or_path + ".json")
    if not os.path.exists(path):
        names = sorted(f[:-5] for f in os.listdir(directory) if f.endswith(".json"))
        raise SystemExit(f"platter: no {what} '{name_or_path}' (known: {', '.join(names)})")
    with open(path) as f:
        try:
            spec = json.load(f)
        except json.JSONDecodeError as e:
            raise SystemExit(f"platter: {path}: not valid JSON: {e}")
    for key in keys:
        if key not in spec:
            raise SystemExit(f"platter: {path}: missing key '{key}'")
    return spec, path


DEVICE_KEYS = {"frontend": ("nvme", "scsi-hd", "virtio-blk"), "dpofua": ("on", "off"),
               "smp": range(1, 33), "ipns": range(1, 100)}
DEVICE_TYPES = {"frontend": str, "dpofua": str, "smp": int, "ipns": int}


def check_devices(devices, path):
    """Each device entry: known keys (a typo would silently change the
    machine), values run-guest accepts."""
    for dev in devices:
        if not isinstance(dev, dict) or "frontend" not in dev:
            raise SystemExit(f"platter: {path}: a device needs a 'frontend': {dev!r}")
        for key, val in dev.items():
            if key not in DEVICE_KEYS:
                raise SystemExit(f"platter: {path}: device key '{key}' is not one of "
                                 f"{', '.join(DEVICE_KEYS)}")
            if type(val) is not DEVICE_TYPES[key] or val not in DEVICE_KEYS[key]:
                raise SystemExit(f"platter: {path}: device {key}={val!r} is out of range")


def load(name_or_path):
    spec, path = load_spec(EXPERIMENTS, name_or_path, "experiment",
                           ("name", "pairs", "devices", "profiles", "workloads"))
    check_devices(spec["devices"], path)
    return spec


def device_name(dev):
    if dev["frontend"] == "scsi-hd":
        return f"scsi-hd-dpofua-{dev.get('dpofua', 'on')}"
    return dev["frontend"]


def cells(exp):
    """Every cell, in a fixed order; the order decides sharding."""
    out = []
    variants = []
    for pair in exp["pairs"]:
        for v in pair:
            if v not in variants:
                variants.append(v)
    for wl in exp["workloads"]:
        for prof in exp["profiles"]:
            for dev in exp["devices"]:
                for v in variants:
                    cid = f"{wl['name']}.{prof}.{device_name(dev)}.{v}"
                    out.append({"id": cid, "variant": v, "device": dev,
                                "profile": prof, "workload": wl})
    return out


def guest_command(cell, runtime):
    """The run-guest command, run in a directory holding disk.img (relative,
    so the command and the result do not depend on where it ran)."""
    dev, wl = cell["device"], cell["workload"]
    fua = frontend_fua(dev)
    return run_guest_prefix(cell["variant"], dev, drive_opts(cell["profile"], fua)) + [
        "--expect", f"fua:{1 if fua else 0},write_cache:write_back",
        "--timeout", str(guest_timeout_s(dev, runtime)),
        wl["test"], "--", *wl.get("args", []), "--runtime", str(runtime)]


def guest_timeout_s(dev, runtime):
    """A hang guard for one guest cell, in host seconds.  Host time grows
    with the instructions the guest runs per virtual second: ipns per busy
    vCPU, each vCPU a CPU of its own in virtual time.  Measured here, 16
    busy vCPUs at ipns 1 took about 60 host s per virtual s with two cells
    sharing two cores; allow about 3x that."""
    return int(1800 + 12 * dev.get("smp", 1) * dev.get("ipns", 1) * runtime)


def run_guest_prefix(variant, dev, drive):
    """scripts/run-guest with a kernel variant, a front end and a drive;
    the caller appends options, the test and its arguments."""
    cmd = [os.path.join(ROOT, "scripts", "run-guest"), "--kernel", variant,
           "--device", dev["frontend"], "--drive-opts", drive]
    if dev["frontend"] == "scsi-hd":
        cmd += ["--dpofua", dev.get("dpofua", "on")]
    if dev.get("smp", 1) != 1:
        cmd += ["--smp", str(dev["smp"])]
    if dev.get("ipns", 1) != 1:
        cmd += ["--ipns", str(dev["ipns"])]
    return cmd


def from_root(cmd):
    """cmd with paths inside the checkout made relative to its root, so a
    recorded command does not depend on where the checkout was."""
    return [os.path.relpath(a, ROOT) if os.path.isabs(a) and
            os.path.commonpath([a, ROOT]) == ROOT else a for a in cmd]


def rerun_command(cell, runtime):
    """A shell line, run from the repository root, that reruns a guest cell
    with a fresh image in a new temporary directory."""
    cmd = from_root(guest_command(cell, runtime))
    cmd[0] = "$OLDPWD/" + cmd[0]
    return (f"(cd \"$(mktemp -d)\" && truncate -s {IMAGE_BYTES >> 30}G disk.img && "
            f"PLATTER_QEMU=build \"{cmd[0]}\" {shlex.join(cmd[1:])})")


def sim_command(cell, runtime, sim):
    dev, wl = cell["device"], cell["workload"]
    fua = frontend_fua(dev)
    kind = wl.get("sim_workload", "dsync")
    cmd = [sim, "--profile", cell["profile"], "--workload", kind,
           "--fua", "on" if fua else "off", "--runtime", str(runtime), "--json"]
    if kind == "dsync":
        cmd += ["--policy", sim_policy(cell["variant"], fua)]
        args = wl.get("args", [])
        for opt in ("--pattern", "--span", "--bs"):
            if opt in args:
                cmd += [opt, args[args.index(opt) + 1]]
    elif kind == "fsync-append" and has_xfs(cell["variant"]):
        cmd += ["--flush-share"]
    cmd += extra_options(cmd, wl.get("sim_args", []))
    if kind == "fsync-append":
        # the guest's blk-flush merges flushes per hardware queue, one per vCPU
        cmd += ["--flush-queues", str(dev.get("smp", 1))]
    return cmd


def extra_options(cmd, args):
    """args (options, each with its value if it takes one) whose option is
    not already in cmd."""
    out, i = [], 0
    while i < len(args):
        j = i + 1
        while j < len(args) and not args[j].startswith("--"):
            j += 1
        if args[i] not in cmd:
            out += args[i:j]
        i = j
    return out


def run_json(cmd, timeout, cwd=None, last_line=False):
    """Run cmd; (its JSON stdout, or with last_line the JSON on its last
    line, None) or (None, why).  On timeout the whole process group goes
    (run-guest's builds and QEMU with it)."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, cwd=cwd, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return None, f"no result after {timeout} s (killed): {shlex.join(cmd[:3])} ..."
    if p.returncode != 0:
        tail = "\n".join(err.strip().splitlines()[-6:])
        return None, f"exit {p.returncode}: {tail}"
    try:
        return json.loads(out.strip().splitlines()[-1] if last_line else out), None
    except (json.JSONDecodeError, IndexError) as e:
        return None, f"bad JSON on stdout: {e}"


def summarize(res):
    """The figures the report compares, from a guest or sim result."""
    if res is None:
        return None
    if "lat_ns" in res:  # platter-sim
        lat = {k: res["lat_ns"][k] / 1000 for k in ("avg", "p50", "p99", "p99.9")}
        dev = res.get("device", {})
        ios = max(res.get("ios", 0), 1)
        counters = {"writes": dev.get("writes"), "fua_writes": dev.get("fua_writes"),
                    "flushes": dev.get("flushes")}
        cdf = [[frac, ns / 1000] for frac, ns in res.get("lat_cdf_ns", [])]
    else:  # guest JSON (lat_us)
        lat = {k: res.get("lat_us", {}).get(k) for k in ("avg", "p50", "p99", "p99.9")}
        delta = res.get("device", {}).get("stat_delta", {})
        trace = res.get("trace", {})
        ios = max(res.get("ios", 0), 1)
        bs = res.get("params", {}).get("bs")
        # diskstats counts an empty preflush as a write too: count data
        # writes by sectors
        data_writes = (delta["write_sectors"] * 512 // bs
                       if bs and "write_sectors" in delta else None)
        counters = {"writes": data_writes, "flushes": delta.get("flushes"),
                    "fua_writes": trace.get("write_fua")}
        cdf = res.get("lat_cdf_us", [])
    per_io = {k: (round(v / ios, 3) if isinstance(v, (int, float)) else None)
              for k, v in counters.items()}
    return {"ios": res.get("ios"), "iops": res.get("iops"), "lat_us": lat,
            "per_io": per_io, "cdf_us": cdf}


def run_cell(cell, runtime, sim, guest=True, workdir=None, timeout=None):
    """Run one cell; returns its result record."""
    rec = {"id": cell["id"], "variant": cell["variant"],
           "device": device_name(cell["device"]), "profile": cell["profile"],
           "workload": cell["workload"]["name"], "runtime_s": runtime,
           "fua": frontend_fua(cell["device"])}
    host = {}
    scmd = sim_command(cell, runtime, sim)
    t0 = time.monotonic()
    sres, serr = run_json(scmd, timeout or 600)
    host["sim_s"] = round(time.monotonic() - t0, 3)
    if sres:
        host["sim_cpu_ns"] = sres.pop("host", {}).get("cpu_ns")
    rec["sim"] = {"summary": summarize(sres), "error": serr, "raw": sres,
                  "command": shlex.join(from_root(scmd))}
    if guest:
        os.makedirs(workdir, exist_ok=True)
        # a fresh sparse image per cell: the guest sees its first 200 GiB,
        # the modeled drive's outer edge
        with open(os.path.join(workdir, "disk.img"), "wb") as img:
            img.truncate(IMAGE_BYTES)
        gcmd = guest_command(cell, runtime)
        t0 = time.monotonic()
        # run-guest's own --timeout covers QEMU; this one also the kernel
        # and initramfs builds a cold cache needs first
        gres, gerr = run_json(gcmd, timeout or guest_timeout_s(cell["device"], runtime) + 7200,
                               cwd=workdir)
        host["guest_s"] = round(time.monotonic() - t0, 3)
        if gres:
            run = gres.get("run", {})
            host["guest_run"] = {k: run.pop(k) for k in list(run)
                                 if k in ("wall_s", "host_s", "elapsed_s", "workdir")}
        rec["guest"] = {"summary": summarize(gres), "error": gerr, "raw": gres,
                        "command": rerun_command(cell, runtime)}
    rec["host"] = host
    return rec
