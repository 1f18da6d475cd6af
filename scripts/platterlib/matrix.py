"""Experiment matrices: which cells an experiment has, in a fixed order
(the order decides sharding), and the command lines that run a cell: the
guest run (scripts/run-guest) and the platter-sim prediction next to it.

A cell is one kernel on one device front end with one profile and one
workload."""
import os
import shlex

from . import cli
from . import clients
from . import devicespec
from . import expspec
from . import kernelspec
from . import paths
from .paths import ROOT


IMAGE_BYTES = 200 << 30


# the platter-sim workload that predicts a guest test, when there is one
SIM_DEFAULT = {"dsync": "dsync"}


def workload_kind(wl):
    return next((k for k in ("fio", "script", "client") if k in wl), "test")


def workload_fs(wl):
    """The file system a workload runs on ('none': the raw device), or
    None for a guest test that takes no target options."""
    if workload_kind(wl) != "test" or any(k in wl for k in expspec.TARGET_KEYS):
        return wl.get("fs", expspec.default_fs(wl))
    return None


def cell_kernel(spec, wl, where, dev=None):
    """The kernel spec a cell runs: with fs=FS when its workload's file
    system comes from a fragment (btrfs), net=NET when its client needs
    sockets (pgbench), and frontend=FE when its device's front end does
    (sata), so the kernel builds them in."""
    fs = workload_fs(wl)
    try:
        spec = kernelspec.with_fs(spec, fs) if fs else spec
        for option, name in clients.CLIENTS[wl["client"]].kernel if "client" in wl else ():
            spec = kernelspec.with_fragment(spec, option, name, f"{wl['client']} client")
        return kernelspec.with_frontend(spec, dev["frontend"]) if dev else spec
    except kernelspec.Error as e:
        expspec.bad(where, str(e))


# the default matrix's devices a `--devices` list must name to get: sata
# cells need their own kernels (frontend=sata), so only those who ask
# build them
ON_REQUEST_DEVICES = [{"frontend": "sata"}, {"frontend": "sata", "libata_fua": "1"}]


def default_matrix(base, patched, declares=None, devices=None, others=()):
    """The matrix `platter compare --base K --patched K` runs without an
    experiment file: O_DSYNC 4 KiB direct writes, sequential and random,
    on the st20000nm007d profile behind each front end (NVMe and scsi-hd
    with native FUA, virtio-blk without; sata and sata-libata-fua when
    devices, the --devices names, asks for them).  declares: {kernel:
    behaviours} (--base-declares/--patched-declares); others: more kernels,
    each judged against base as patched is (--kernels).  Paths in the specs
    start at the current directory."""
    spec = {"name": "compare",
            "description": f"{base} against {patched}: O_DSYNC 4 KiB direct writes on the "
                           "modeled ST20000NM007D behind each front end",
            "pairs": [[base, k] for k in (patched, *others)],
            "devices": [{"frontend": "nvme"}, {"frontend": "scsi-hd", "dpofua": "on"},
                        {"frontend": "virtio-blk"}],
            "profiles": ["st20000nm007d"],
            "workloads": [{"name": "seq", "test": "dsync", "args": ["--pattern", "seq"]},
                          {"name": "rand", "test": "dsync",
                           "args": ["--pattern", "rand", "--span", "100G"]}],
            "runtime": 10}
    spec["devices"] += [d for d in ON_REQUEST_DEVICES
                        if devicespec.device_name(d) in (devices or ())]
    if declares:
        spec["kernels"] = declares
    return expspec.check_experiment(spec, "--base/--patched", base_dir=os.getcwd())


def select_devices(exp, names):
    """The experiment with only the devices named (cell ids' device names)."""
    have = {devicespec.device_name(d): d for d in exp["devices"]}
    for n in names:
        if n not in have:
            expspec.bad("--devices", f"no device '{n}' in '{exp['name']}' "
                                     f"(it has {', '.join(have)})")
    out = expspec.Spec(exp, devices=[d for n, d in have.items() if n in names])
    out.base_dir, out.kernels = exp.base_dir, exp.kernels
    return out


def profile_arg(prof, base_dir):
    """A profile as the drive and the sim are given it: a shipped name, or
    the file's full path (a guest cell runs in its own directory)."""
    if prof in expspec.profile_names() or base_dir is None:
        return prof
    return expspec.host_path(prof, base_dir)


def cells(exp):
    """Every cell, in a fixed order; the order decides sharding."""
    out = []
    variants = []
    for pair in exp["pairs"]:
        for v in pair:
            if v not in variants:
                variants.append(v)
    base_dir = getattr(exp, "base_dir", None)
    for wl in exp["workloads"]:
        kind = workload_kind(wl)
        # (a client's script is written for the run: cellrun.prepare_jobs)
        host_file = (expspec.host_path(wl[kind], base_dir)
                     if kind in ("fio", "script") and base_dir else None)
        for prof in expspec.profile_axis(exp):
            for dev in exp["devices"]:
                if dev.get("profile", prof) != prof or \
                        "profile" not in dev and prof not in exp.get("profiles", []):
                    continue
                for v in variants:
                    label = kernelspec.label(v)
                    cid = (f"{wl['name']}.{expspec.profile_label(prof)}."
                           f"{devicespec.device_name(dev)}.{label}")
                    kernel = cell_kernel(getattr(exp, "kernels", {}).get(v, v), wl, cid, dev)
                    out.append({"id": cid, "variant": label, "kernel": kernel, "device": dev,
                                "profile": expspec.profile_label(prof),
                                "profile_arg": profile_arg(prof, base_dir),
                                "cpu_arg": (expspec.cpu_arg(dev["cpu"], base_dir)
                                            if "cpu" in dev else None),
                                "workload": wl, "host_file": host_file,
                                "programs": [expspec.host_path(x, base_dir) if base_dir
                                             else x for x in wl.get("programs", [])],
                                "packages": ([expspec.deb_path(x, base_dir)
                                              for x in wl.get("packages", [])] +
                                             list(clients.CLIENTS[wl["client"]].packages
                                                  if kind == "client" else [])),
                                "declares": exp.get("kernels", {}).get(v),
                                "timeout_s": exp.get("timeout_s")})
    return out


def guest_test(wl):
    return {"fio": "fio", "script": "exec", "client": "exec"}.get(workload_kind(wl)) or wl["test"]


def guest_args(wl):
    """The guest test's arguments (before --runtime)."""
    kind = workload_kind(wl)
    args = list(wl.get("args", []))
    if kind == "fio":
        args += ["--job-file", os.path.basename(wl["fio"])]
    elif kind == "script":
        args += ["--script", os.path.basename(wl["script"])]
    elif kind == "client":
        args += ["--script", clients.script_name(wl)]
    if "warmup_s" in wl:
        args += ["--ramp-ms", str(max(1, round(wl["warmup_s"] * 1000)))]
    if "iops_log_ms" in wl:
        args += ["--iops-log-ms", str(wl["iops_log_ms"])]
    if workload_fs(wl):
        args += ["--fs", workload_fs(wl)]
        for word in wl.get("mkfs_opts", []):
            args += ["--mkfs-arg", word]
        if "mount_opts" in wl:
            args += ["--mount-opts", wl["mount_opts"]]
    return args


# the drive's trace of every command (hddmodel's trace=FILE), in the
# cell's directory: the FUA writes and flushes the drive received are
# counted from it (cellsummary.drive_trace_counts); QEMU's own per-drive
# counters at exit do not reach its stderr
DRIVE_TRACE = "drive.trace"
# the guest's serial console (run-guest --serial-log), in the same place
CONSOLE_LOG = "console.log"


def guest_command(cell, runtime):
    """The run-guest command, run in a directory holding disk.img (relative,
    so the command and the result do not depend on where it ran)."""
    dev, wl = cell["device"], cell["workload"]
    drive = devicespec.device_drive_opts(dev, cell["profile_arg"]) + f",trace={DRIVE_TRACE}"
    cmd = run_guest_prefix(cell["kernel"], dev, drive, cell.get("cpu_arg")) + [
        "--expect", devicespec.device_expect(dev),
        "--timeout", str(cell_timeout_s(cell, runtime)), "--serial-log", CONSOLE_LOG]
    if cell.get("host_file"):
        cmd += ["--guest-file", cell["host_file"]]
    if cell.get("guest_cpio"):
        cmd += ["--guest-cpio", cell["guest_cpio"]]
    for arg in cell.get("kernel_args", []):
        cmd += ["--kernel-arg", arg]
    return cmd + [guest_test(wl), "--", *guest_args(wl), "--runtime", cli.runtime_text(runtime)]


def guest_timeout_s(dev, runtime):
    """A hang guard for one guest cell, in host seconds.  Host time grows
    with the instructions the guest runs per virtual second: ipns per busy
    vCPU, each vCPU a CPU of its own in virtual time.  Measured here
    (docs/performance.md), 16 vCPUs all busy at ipns 1 cost about 75 host s
    per virtual s alone; 12 s per busy vCPU and ipns allows 2.5x that, for
    two cells sharing two cores.  At most what run-guest --timeout takes:
    with 32 vCPUs at ipns 99 the formula passes it from 263 virtual s on."""
    return min(expspec.RUN_GUEST_TIMEOUT_MAX_S,
               int(1800 + 12 * dev.get("smp", 1) * expspec.device_ipns(dev) * runtime))


def cell_timeout_s(cell, runtime):
    """A cell's hang guard: the experiment's timeout_s, else
    guest_timeout_s for its virtual time, the workload's warm-up
    included."""
    if cell.get("timeout_s"):
        return cell["timeout_s"]
    dev = cell["device"]
    if cell.get("cpu_arg"):
        # (a profile file's path as run-guest takes it, not as written)
        dev = dict(dev, cpu=cell["cpu_arg"])
    return guest_timeout_s(dev, runtime + cell["workload"].get("warmup_s", 0))


def run_guest_prefix(kernel, dev, drive, cpu=None):
    """scripts/run-guest with a kernel (a spec), a front end and a drive
    (and the device's CPU profile as run-guest takes it: cpu, else the
    device's as written); the caller appends options, the test and its
    arguments."""
    cmd = [os.path.join(ROOT, "scripts", "run-guest"), "--kernel",
           kernelspec.with_frontend(kernel, dev["frontend"]),
           "--device", dev["frontend"], "--drive-opts", drive]
    if dev["frontend"] in ("scsi-hd", "sata"):
        cmd += ["--dpofua", dev.get("dpofua", "on")]
    if "libata_fua" in dev:
        cmd += ["--kernel-arg", f"libata.fua={dev['libata_fua']}"]
    if not devicespec.write_cache(dev):
        cmd += ["--write-cache", "off"]
    if dev.get("frontend_props"):
        cmd += ["--frontend-opts", ",".join(f"{k}={v}" for k, v in
                                            sorted(dev["frontend_props"].items()))]
    if dev.get("smp", 1) != 1:
        cmd += ["--smp", str(dev["smp"])]
    if dev.get("ipns", 1) != 1:
        cmd += ["--ipns", str(dev["ipns"])]
    if "cpu" in dev:
        cmd += ["--cpu", cpu or dev["cpu"]]
    if "mem" in dev:
        cmd += ["--mem", dev["mem"]]
    return cmd


def rerun_command(cell, runtime):
    """A shell line, run from the repository root, that reruns a guest cell
    with a fresh image in a new temporary directory."""
    full = guest_command(cell, runtime)
    cmd = paths.from_root(full)
    # paths made relative to the root are found from there ($OLDPWD)
    words = [f'"$OLDPWD/{a}"' if a != b and (i == 0 or cmd[i - 1] == "--guest-file")
             else shlex.quote(a) for i, (a, b) in enumerate(zip(cmd, full))]
    return (f"(cd \"$(mktemp -d)\" && truncate -s {IMAGE_BYTES >> 30}G disk.img && "
            f"PLATTER_QEMU=build {' '.join(words)})")


# dsync-write's options (guest-tests/src/pattern.c) that platter-sim's
# dsync takes as they are
DSYNC_SIM_OPTIONS = ("--pattern", "--span", "--bs", "--offset", "--seed")


def sim_plan(cell, runtime, sim):
    """(the platter-sim command that predicts the cell, None), or (None,
    why platter-sim has no prediction for it)."""
    dev, wl = cell["device"], cell["workload"]
    kind = wl.get("sim_workload") or SIM_DEFAULT.get(wl.get("test"))
    if kind and cell.get("declares") is None:
        return None, (f"kernel '{cell['variant']}' declares nothing about its I/O path, so "
                      "platter cannot know what it does (declare it: the experiment's "
                      "\"kernels\", or compare --base-declares/--patched-declares)")
    if not kind:
        return None, {"fio": "a fio job file: platter-sim has no equivalent",
                      "script": "a script: platter-sim has no equivalent",
                      "client": "a client program: platter-sim has no equivalent"}.get(
            workload_kind(wl), f"platter-sim has no equivalent of the guest test "
                               f"'{wl.get('test')}'")
    if kind == "fsync-append" and not devicespec.write_cache(dev):
        return None, "platter-sim's fsync-append needs a write cache"
    fua = devicespec.drive_fua(dev)
    cmd = [sim, "--profile", cell["profile_arg"], "--workload", kind,
           "--fua", "on" if fua else "off", "--runtime", cli.runtime_text(runtime), "--json"]
    if not devicespec.write_cache(dev):
        cmd += ["--write-cache", "off"]
    if "queue_depth" in dev:
        cmd += ["--queue-depth", str(dev["queue_depth"])]
    if kind == "dsync":
        cmd += ["--policy", devicespec.dsync_policy(cell["declares"], dev)]
        args = wl.get("args", [])
        # every dsync-write option reaches the sim, or the cell says why
        # not (issue 27: --offset and --seed were dropped, and the sim
        # column showed the offset-0 figure)
        if "--ios" in args:
            return None, ("the guest's --ios (a count of writes) has no platter-sim "
                          "equivalent: the sim runs for the runtime")
        for opt in DSYNC_SIM_OPTIONS:
            if opt in args:
                cmd += [opt, args[args.index(opt) + 1]]
    elif kind == "fsync-append" and "fsync_flush_share" in cell["declares"]:
        cmd += ["--flush-share"]
    cmd += extra_options(cmd, wl.get("sim_args", []))
    if kind == "fsync-append":
        # the guest's blk-flush merges flushes per hardware queue, one per vCPU
        cmd += ["--flush-queues", str(dev.get("smp", 1))]
    return cmd, None


def sim_command(cell, runtime, sim):
    return sim_plan(cell, runtime, sim)[0]


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
