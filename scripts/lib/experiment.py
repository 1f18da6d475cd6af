"""Experiment matrices: which cells an experiment has, how each cell is run
(a guest run under QEMU and a platter-sim prediction), and the cell results.

A cell is one kernel variant on one device front end with one profile and
one workload.  Its result holds only what the guest and the model computed
in virtual time, so running a cell twice gives identical results; host
timing is kept apart, in the cell's "host" field.
"""
import json
import os
import re
import shlex
import signal
import subprocess
import time

import cli

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


def bad(where, why):
    """A spec error: one line naming the file, the field and what is allowed."""
    raise SystemExit(f"platter: {where}: {why}")


def read_json(path, what):
    """A JSON document from a regular file, or one clear error line."""
    if os.path.isdir(path):
        bad(path, f"is a directory, not {what} (a JSON file)")
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as e:
        bad(path, f"cannot read: {e.strerror}")
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        bad(path, f"not valid JSON: {e}")


def load_spec(directory, name_or_path, what):
    """A JSON spec by path or by name in directory; returns (spec, path)."""
    path = name_or_path
    if not os.path.exists(path) and "/" not in path:
        path = os.path.join(directory, name_or_path + ".json")
    if not os.path.exists(path):
        names = sorted(f[:-5] for f in os.listdir(directory) if f.endswith(".json"))
        raise SystemExit(f"platter: no {what} '{name_or_path}' (known: {', '.join(names)}; "
                         "or a path to a JSON file)")
    return read_json(path, f"an {what}" if what[0] in "aeiou" else f"a {what}"), path


def check_keys(obj, where, required, optional=()):
    """obj is an object with every required key and no key it does not know."""
    if not isinstance(obj, dict):
        bad(where, f"must be a JSON object, not {obj!r:.60}")
    for key in required:
        if key not in obj:
            bad(where, f"missing key '{key}'")
    for key in obj:
        if key not in required and key not in optional:
            bad(where, f"unknown key '{key}' (known: {', '.join((*required, *optional))})")


NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_+-]*")


def check_name(v, where):
    if not isinstance(v, str) or not NAME.fullmatch(v):
        bad(where, f"{v!r:.60} is not a name (letters, digits, '_', '+', '-')")
    return v


def check_list(v, where, item=None, nonempty=True, unique=True):
    """v is a list (non-empty, without repeats); item(x, where[i]) checks each."""
    if not isinstance(v, list) or nonempty and not v:
        bad(where, f"must be a {'non-empty ' if nonempty else ''}list, not {v!r:.60}")
    for i, x in enumerate(v):
        if item:
            item(x, f"{where}[{i}]")
        if unique and x in v[:i]:
            bad(f"{where}[{i}]", f"{x!r:.60} appears twice")
    return v


def check_str(v, where):
    if not isinstance(v, str):
        bad(where, f"must be a string, not {v!r:.60}")
    return v


def check_arg(v, where):
    """An argument a guest test gets on the kernel command line."""
    if not isinstance(v, str) or not v or re.search(r'[\s"]', v):
        bad(where, f"{v!r:.60} is not a test argument (a non-empty string "
                   "without spaces or double quotes)")
    return v


def choices(where, v, allowed):
    if v not in allowed:
        bad(where, f"{v!r:.60} is not one of {', '.join(allowed)}")
    return v


def variants():
    """Kernel variant names: scripts/build-kernel --list reads
    guest-tests/kernel/variants, the one place that defines them."""
    p = subprocess.run([os.path.join(ROOT, "scripts", "build-kernel"), "--list"],
                       stdout=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise SystemExit("platter: scripts/build-kernel --list failed")
    return p.stdout.split()


def check_variant(v, where, known):
    check_str(v, where)
    return choices(where, v, known)


def guest_tests():
    return sorted(os.listdir(os.path.join(ROOT, "guest-tests", "initramfs", "tests")))


def check_profile(v, where):
    """A profile shipped in hw-model/profiles or a profile file."""
    names = sorted(f[:-8] for f in os.listdir(os.path.join(ROOT, "hw-model", "profiles"))
                   if f.endswith(".profile"))
    if not isinstance(v, str) or (v not in names and not os.path.isfile(v)) or \
            re.search(r"[,\s]", v):
        bad(where, f"{v!r:.60} is not a profile ({', '.join(names)}, or a file path "
                   "without commas or spaces)")
    return v


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
                allowed = DEVICE_KEYS[key]
                allowed = (", ".join(allowed) if isinstance(allowed, tuple) else
                           f"an integer in [{allowed.start}, {allowed.stop - 1}]")
                raise SystemExit(f"platter: {path}: device {key}={val!r} is out of range "
                                 f"({allowed})")
        if "dpofua" in dev and dev["frontend"] != "scsi-hd":
            raise SystemExit(f"platter: {path}: device dpofua applies to scsi-hd only, "
                             f"not {dev['frontend']}")


SIM_WORKLOADS = ("dsync", "fsync-append", "replay")


def check_sim_args(v, where):
    check_list(v, where, check_str, nonempty=False, unique=False)
    if v and not v[0].startswith("--"):
        bad(where, f"must start with an option (--NAME), not {v[0]!r:.60}")
    return v


def check_experiment(spec, where):
    """Every field of an experiment, type and bounds, before anything runs."""
    check_keys(spec, where, ("name", "pairs", "devices", "profiles", "workloads"),
               ("description", "runtime", "seed"))
    check_name(spec["name"], f"{where}: name")
    check_str(spec.get("description", ""), f"{where}: description")
    known = variants()

    def pair(p, w):
        check_list(p, w, lambda v, w: check_variant(v, w, known))
        if len(p) != 2:
            bad(w, f"a pair is [BASE, PATCHED], not {p!r:.60}")
    check_list(spec["pairs"], f"{where}: pairs", pair)
    check_list(spec["devices"], f"{where}: devices")
    check_devices(spec["devices"], where)
    names = [device_name(d) for d in spec["devices"]]
    for i, n in enumerate(names):
        if n in names[:i]:
            bad(f"{where}: devices[{i}]", f"a second '{n}' device (cell ids name the "
                                          "front end; one device entry per front end)")
    check_list(spec["profiles"], f"{where}: profiles", check_profile)
    tests = guest_tests()

    def workload(wl, w):
        check_keys(wl, w, ("name", "test"), ("args", "sim_workload", "sim_args"))
        check_name(wl["name"], f"{w}.name")
        choices(f"{w}.test", wl["test"], tests)
        args = check_list(wl.get("args", []), f"{w}.args", check_arg, nonempty=False,
                          unique=False)
        # the options the sim prediction takes from the guest's arguments
        for opt in ("--pattern", "--span", "--bs"):
            if opt in args and (args[-1] == opt or args[args.index(opt) + 1][:2] == "--"):
                bad(f"{w}.args", f"{opt} needs a value")
        choices(f"{w}.sim_workload", wl.get("sim_workload", "dsync"), SIM_WORKLOADS)
        check_sim_args(wl.get("sim_args", []), f"{w}.sim_args")
    check_list(spec["workloads"], f"{where}: workloads", workload)
    wnames = [wl["name"] for wl in spec["workloads"]]
    for i, n in enumerate(wnames):
        if n in wnames[:i]:
            bad(f"{where}: workloads[{i}].name", f"'{n}' names two workloads")
    if "runtime" in spec and not cli.valid_runtime(spec["runtime"]):
        bad(f"{where}: runtime", f"{spec['runtime']!r:.60} is not a duration (seconds, "
                                 f"above 0 and at most {cli.RUNTIME_MAX_S})")
    if "seed" in spec:
        check_seed(spec["seed"], f"{where}: seed")
    return spec


def check_seed(seed, where):
    """The published figures a report shows beside its cells."""
    check_keys(seed, where, ("cells",), ("source", "frontend"))
    check_str(seed.get("source", ""), f"{where}.source")
    check_str(seed.get("frontend", ""), f"{where}.frontend")
    check_keys(seed["cells"], f"{where}.cells", (), tuple(seed["cells"]))
    for wl, by in seed["cells"].items():
        check_keys(by, f"{where}.cells.{wl}", (), tuple(by))
        for variant, figures in by.items():
            w = f"{where}.cells.{wl}.{variant}"
            check_keys(figures, w, (), ("iops", "avg", "p50", "p99", "p99.9"))
            for k, v in figures.items():
                if type(v) not in (int, float) or not v >= 0 or v == float("inf"):
                    bad(f"{w}.{k}", f"{v!r:.60} is not a non-negative number")


def load(name_or_path):
    spec, path = load_spec(EXPERIMENTS, name_or_path, "experiment")
    return check_experiment(spec, path)


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
    vCPU, each vCPU a CPU of its own in virtual time.  Measured here
    (docs/performance.md), 16 vCPUs all busy at ipns 1 cost about 75 host s
    per virtual s alone; 12 s per busy vCPU and ipns allows 2.5x that, for
    two cells sharing two cores."""
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


def check_guest_commands(cells, runtime):
    """run-guest --check on every cell's command: anything run-guest would
    refuse is refused now, before a build or a cell runs."""
    for cell in cells:
        check_command(cell["id"], guest_command(cell, runtime))


def check_command(cell_id, cmd, prog="platter"):
    """run-guest --check on one command; one error line naming the cell."""
    p = subprocess.run([cmd[0], "--check", *cmd[1:]], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        why = (p.stderr.strip().splitlines() or [f"exit {p.returncode}"])[-1]
        raise SystemExit(f"{prog}: cell {cell_id}: {why}")


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


def run_json(cmd, timeout, cwd=None, last_line=False, env=None):
    """Run cmd; (its JSON stdout, or with last_line the JSON on its last
    line, None) or (None, why).  On timeout the whole process group goes
    (run-guest's builds and QEMU with it)."""
    try:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, cwd=cwd, start_new_session=True, env=env)
    except OSError as e:
        return None, f"cannot run {cmd[0]}: {e.strerror}"
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
        gcmd = guest_command(cell, runtime)
        t0 = time.monotonic()
        try:
            os.makedirs(workdir, exist_ok=True)
            # a fresh sparse image per cell: the guest sees its first
            # 200 GiB, the modeled drive's outer edge
            with open(os.path.join(workdir, "disk.img"), "wb") as img:
                img.truncate(IMAGE_BYTES)
        except OSError as e:
            gres, gerr = None, f"cannot make the cell's image in {workdir}: {e.strerror}"
        else:
            # run-guest's own --timeout covers QEMU; this one also the
            # kernel and initramfs builds a cold cache needs first.  Its
            # work directory goes in the cell's, which the caller removes
            # even when a timeout killed run-guest before its cleanup.
            gres, gerr = run_json(gcmd, timeout or guest_timeout_s(cell["device"], runtime)
                                  + 7200, cwd=workdir, env=dict(os.environ, TMPDIR=workdir))
        host["guest_s"] = round(time.monotonic() - t0, 3)
        if gres:
            run = gres.get("run", {})
            host["guest_run"] = {k: run.pop(k) for k in list(run)
                                 if k in ("wall_s", "host_s", "elapsed_s", "workdir")}
        rec["guest"] = {"summary": summarize(gres), "error": gerr, "raw": gres,
                        "command": rerun_command(cell, runtime)}
    rec["host"] = host
    return rec
