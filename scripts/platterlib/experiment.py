"""Experiment matrices: which cells an experiment has, how each cell is run
(a guest run under QEMU and a platter-sim prediction), and the cell results.

A cell is one kernel variant on one device front end with one profile and
one workload.  Its result holds only what the guest and the model computed
in virtual time, so running a cell twice gives identical results; host
timing is kept apart, in the cell's "host" field.
"""
import base64
import gzip
import json
import os
import re
import shlex
import signal
import stat
import subprocess
import threading
import time

from . import accounting
from . import cli
from . import fiojob
from . import fioout
from . import gate
from . import kernelspec
from . import latency
from . import strictjson

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
EXPERIMENTS = os.path.join(ROOT, "scripts", "experiments")
REPORT_VERSION = 1
IMAGE_BYTES = 200 << 30

# What a kernel declares about its I/O path: the sim's policy follows from
# these and from what the device advertises, never from a kernel's name.
# A variant declares them in guest-tests/kernel/variants; an experiment's
# "kernels" (or compare's --base-declares/--patched-declares) maps a kernel
# to the behaviours it declares, replacing a variant's own.  A kernel that
# declares an empty list behaves as the pinned kernel does; a tree:,
# patches: or bzimage: kernel that declares nothing gets no sim prediction
# (platter cannot know what a user's kernel does).
KERNEL_DECLARES = {
    "dsync_fua_no_flush":
        "an O_DSYNC direct write is not followed by generic_write_sync()'s flush "
        "(its REQ_FUA made it durable: fops v2 1/2)",
    "dsync_fua_native_only":
        "O_DSYNC direct writes carry REQ_FUA only when the device advertises FUA, "
        "else one flush after the write (fops v2 2/2)",
    "dsync_no_flush_without_fua":
        "an O_DSYNC direct write that went out without REQ_FUA is not followed by a "
        "flush either (fops-broken, on purpose: the write stays in the volatile cache)",
    "fsync_flush_share":
        "fsync skips its cache flush when a flush submitted after its write "
        "completed has finished (xfs series 2/2; platter-sim --flush-share)",
}

# File systems a workload can run on, and the kernel option each needs:
# platter.config builds it in, or guest-tests/kernel/fs-FS.config does for
# a kernel asked for with fs=FS, which every cell on that file system gets
# (cell_kernel); a file system neither builds in is refused when the spec
# is loaded.
FILESYSTEMS = {"none": None, "xfs": "CONFIG_XFS_FS", "ext4": "CONFIG_EXT4_FS",
               "btrfs": "CONFIG_BTRFS_FS"}
KERNEL_CONFIG = os.path.join(ROOT, "guest-tests", "kernel", "platter.config")
# guest tests that take the target options (--fs, --mkfs-arg, --mount-opts;
# guest-tests/initramfs/lib/target.sh), with their default file system
FS_TESTS = {"fio": "xfs", "fsync-append": "xfs", "exec": "none"}
# the platter-sim workload that predicts a guest test, when there is one
SIM_DEFAULT = {"dsync": "dsync"}


bad = cli.bad


# an experiment, a campaign or a report; far above any real one, but a
# bound: json.load reads the whole file
JSON_MAX_BYTES = 64 << 20


def read_json(path, what):
    """A JSON document from a regular file, or one clear error line.  A
    FIFO or a device is refused before it is opened (opening a FIFO blocks
    until a writer comes, /dev/zero never ends)."""
    try:
        st = os.stat(path)
        if stat.S_ISDIR(st.st_mode):
            bad(path, f"is a directory, not {what} (a JSON file)")
        if not stat.S_ISREG(st.st_mode):
            bad(path, f"not a regular file, not {what} (a JSON file)")
        if st.st_size > JSON_MAX_BYTES:
            bad(path, f"{st.st_size} bytes: too large for {what}, at most {JSON_MAX_BYTES}")
        with open(path, "rb") as f:
            text = f.read(JSON_MAX_BYTES + 1)
    except OSError as e:
        bad(path, f"cannot read: {e.strerror}")
    try:
        return strictjson.loads(text)
    except strictjson.Invalid as e:
        bad(path, f"not valid JSON for platter: {e}")


def load_spec(directory, name_or_path, what):
    """A JSON spec by path or by name in directory; returns (spec, path)."""
    path = name_or_path
    if not os.path.exists(path) and "/" not in path:
        path = os.path.join(directory, name_or_path + ".json")
    if not os.path.exists(path):
        names = sorted(f[:-5] for f in os.listdir(directory) if f.endswith(".json"))
        raise cli.BadInput(f"platter: no {what} '{name_or_path}' (known: {', '.join(names)}; "
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


# a name becomes part of a cell id and of file names (NAME_MAX is 255 for
# the whole id and its suffixes): 64 characters each leave room for four
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_+-]{0,63}")


def check_name(v, where):
    if not isinstance(v, str) or not NAME.fullmatch(v):
        bad(where, f"{v!r:.60} is not a name (1 to 64 letters, digits, '_', '+', '-')")
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


variants = kernelspec.variants


def check_kernel(v, where, base_dir="", known=None):
    """A kernel spec (kernelspec.py: a variant, tree:, patches:, bzimage:),
    checked and resolved; returns it parsed."""
    try:
        return kernelspec.parse(v, base_dir, known)
    except kernelspec.Error as e:
        bad(where, str(e))


def kernel_run_spec(k):
    """The spec run-guest and build-kernel are given: absolute paths, and a
    tree's revision as the commit it resolved to when the spec was loaded
    (the run measures one commit even if the branch moves meanwhile)."""
    if k["kind"] == "variant" or not k.get("resolved"):
        return k["spec"]
    if k["kind"] == "bzimage":
        return f"bzimage:{k['path']}"
    if k["kind"] == "tree":
        text = f"tree:{k['path']}@{k['commit']}"
    else:
        text = f"patches:{k['path']}"
        if "base" in k:
            text += "@" + kernel_run_spec(k["base"])
    return text + (f",config={k['config']}" if "config" in k else "") + \
        (f",fs={k['fs']}" if "fs" in k else "")


def kernel_labels(pairs, where):
    """{spec: label} for the kernels of an experiment's pairs; two specs
    with one label (their cell ids would collide) are refused."""
    labels = {}
    for pair in pairs:
        for v in pair:
            labels[v] = kernelspec.label(v)
    seen = {}
    for v, lab in labels.items():
        if lab in seen:
            bad(where, f"kernels '{seen[lab]}' and '{v}' both go by '{lab}' in cell ids "
                       "(name the trees or revisions apart)")
        seen[lab] = v
    return labels


def guest_tests():
    return sorted(os.listdir(os.path.join(ROOT, "guest-tests", "initramfs", "tests")))


def profile_names():
    return sorted(f[:-8] for f in os.listdir(os.path.join(ROOT, "hw-model", "profiles"))
                  if f.endswith(".profile"))


def check_profile(v, where, base_dir=""):
    """A profile shipped in hw-model/profiles or a profile file (relative
    to base_dir; None: a spec read back from a report, not run, whose
    files may be elsewhere)."""
    names = profile_names()
    if not isinstance(v, str) or re.search(r"[,\s]", v) or v not in names and \
            base_dir is not None and not os.path.isfile(host_path(v, base_dir)):
        bad(where, f"{v!r:.60} is not a profile ({', '.join(names)}, or a file path "
                   "without commas or spaces)")
    if v not in names and base_dir is not None:
        check_profile_file(host_path(v, base_dir), where)
    return v


def check_profile_file(path, where):
    """A profile file's contents, read by the model's own parser (the
    built platter-sim's --dump-profile) when the spec is loaded: '/etc/passwd'
    once passed, and every cell, cut or build went on to fail.  Without a
    built platter-sim the file is checked where it is used."""
    sim = os.path.join(ROOT, "build", "sim", "platter-sim")
    if not os.access(sim, os.X_OK):
        return
    try:
        p = subprocess.run([sim, "--profile", path, "--dump-profile"], capture_output=True,
                           text=True, errors="replace", timeout=60,
                           stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as e:
        bad(where, f"cannot check the profile {path}: {e}")
    if p.returncode != 0:
        why = (p.stderr.strip().splitlines() or ["not a profile"])[-1]
        bad(where, f"{path} is not a usable profile: {why[:300]}")


# Every key a device entry takes, in one table: (type, allowed values, help).
# None as allowed: checked by the key's own rule below.
DEVICE_KEYS = {
    "name": (str, None, "the device in cell ids (default: the front end; scsi-hd-dpofua-on|off; "
                        "sata, sata-libata-fua, sata-dpofua-off)"),
    "frontend": (str, ("nvme", "scsi-hd", "virtio-blk", "sata"),
                 "the guest's controller (sata: ide-hd on q35's AHCI, through libata)"),
    "dpofua": (str, ("on", "off"), "scsi-hd and sata: the front end advertises FUA (scsi-hd "
                                   "dpofua, ide-hd fua; default on)"),
    "libata_fua": (str, ("0", "1"), "sata only: the guest's libata.fua (default: the kernel's, "
                                    "0 in Linux 7.3.4, when libata ignores the FUA the drive "
                                    "advertises)"),
    "smp": (int, range(1, 33), "guest vCPUs (default 1)"),
    "ipns": (int, range(1, 100), "guest instructions per virtual ns per vCPU (default 1)"),
    "mem": (str, None, "guest memory, a size in M or G such as 4G (default 1G; "
                       "run-guest --mem)"),
    "profile": (str, None, "the drive profile, a name or a file (default: each of 'profiles')"),
    "write_cache": (str, ("on", "off"), "the drive's volatile write cache, and the front end's "
                                        "write-cache property with it (default on)"),
    "fua": (str, ("on", "off"), "the drive's native FUA (default: as the front end advertises "
                                "it); without it QEMU sends a FUA write as write + flush"),
    "queue_depth": (int, range(1, 65537), "commands the drive holds at once (default: the "
                                          "profile's)"),
    "frontend_props": (dict, None, "more -device properties of the front end, e.g. "
                                   "{\"num-queues\": 2}"),
}
# front-end properties run-guest sets itself (from the keys above)
RESERVED_PROPS = ("drive", "serial", "write-cache", "dpofua", "fua", "bus", "id", "ioeventfd",
                  "rotation_rate", "nsid", "uuid", "eui64", "nguid")
PROP = re.compile(r"[a-z][a-z0-9_.-]*")
PROP_VALUE = re.compile(r"[A-Za-z0-9_.:-]+")
MEM = re.compile(r"[1-9][0-9]{0,6}[MG]")


def _allowed(allowed):
    return (", ".join(allowed) if isinstance(allowed, tuple) else
            f"an integer in [{allowed.start}, {allowed.stop - 1}]")


def check_frontend_props(props, where):
    for k, v in props.items():
        if not PROP.fullmatch(k):
            bad(where, f"frontend_props: {k!r:.60} is not a property name")
        if k in RESERVED_PROPS:
            bad(where, f"frontend_props: '{k}' is set by platter (see the device keys "
                       "frontend, dpofua, write_cache)")
        if type(v) not in (str, int) or not PROP_VALUE.fullmatch(str(v)):
            bad(where, f"frontend_props: {k}={v!r:.60} is not a value (letters, digits, "
                       "'_', '.', ':', '-')")


def check_devices(devices, path, base_dir=""):
    """Each device entry: known keys (a typo would silently change the
    machine), values run-guest accepts, combinations the front end can
    show the guest."""
    for dev in devices:
        if not isinstance(dev, dict) or "frontend" not in dev:
            raise cli.BadInput(f"platter: {path}: a device needs a 'frontend': {dev!r}")
        for key, val in dev.items():
            if key not in DEVICE_KEYS:
                raise cli.BadInput(f"platter: {path}: device key '{key}' is not one of "
                                   f"{', '.join(DEVICE_KEYS)}")
            typ, allowed, _ = DEVICE_KEYS[key]
            if type(val) is not typ or allowed is not None and val not in allowed:
                why = _allowed(allowed) if allowed is not None else f"a {typ.__name__}"
                raise cli.BadInput(f"platter: {path}: device {key}={val!r:.60} is out of range "
                                   f"({why})")
        if "name" in dev:
            check_name(dev["name"], f"{path}: device name")
        if "profile" in dev:
            check_profile(dev["profile"], f"{path}: device profile", base_dir)
        if "frontend_props" in dev:
            check_frontend_props(dev["frontend_props"], f"{path}: device")
        if "mem" in dev and not MEM.fullmatch(dev["mem"]):
            raise cli.BadInput(f"platter: {path}: device mem={dev['mem']!r:.60} is not a size "
                               "in M or G such as 512M or 4G")
        if "dpofua" in dev and dev["frontend"] not in ("scsi-hd", "sata"):
            raise cli.BadInput(f"platter: {path}: device dpofua applies to scsi-hd and sata "
                               f"only, not {dev['frontend']}")
        if "libata_fua" in dev and dev["frontend"] != "sata":
            raise cli.BadInput(f"platter: {path}: device libata_fua applies to sata only, "
                               f"not {dev['frontend']}")


def write_cache(dev):
    return dev.get("write_cache", "on") == "on"


def frontend_fua(dev):
    """Does the front end advertise FUA when the drive has a write cache?
    (Linux: NVMe does with a volatile write cache, which platter's QEMU
    reports exactly when the drive has one (qemu-patches 0008); scsi-hd
    per DPOFUA; sata when the drive advertises it (ide-hd fua, qemu-patches
    0010) and libata.fua=1 lets libata use it; virtio-blk never.)"""
    if dev["frontend"] == "nvme":
        return True
    if dev["frontend"] == "scsi-hd":
        return dev.get("dpofua", "on") == "on"
    if dev["frontend"] == "sata":
        return dev.get("dpofua", "on") == "on" and dev.get("libata_fua", "0") == "1"
    return False


def guest_fua(dev):
    """FUA as the guest kernel sees it (queue/fua): only with a write cache."""
    return write_cache(dev) and frontend_fua(dev)


def drive_fua(dev):
    """The modeled drive's native FUA: the device's own 'fua', else what
    the front end advertises."""
    return dev.get("fua", "on" if frontend_fua(dev) else "off") == "on"


def drive_opts(profile, fua, image="disk.img", write_cache=True, queue_depth=None):
    """The modeled drive as run-guest --drive-opts."""
    qd = f",queue-depth={queue_depth}" if queue_depth else ""
    return (f"driver=hddmodel,profile={profile},fua={'on' if fua else 'off'},"
            f"write-cache={'on' if write_cache else 'off'}{qd},file={image}")


def device_drive_opts(dev, profile):
    return drive_opts(profile, drive_fua(dev), write_cache=write_cache(dev),
                      queue_depth=dev.get("queue_depth"))


def device_expect(dev):
    """What the guest must see on the test device (run-guest --expect)."""
    return (f"fua:{1 if guest_fua(dev) else 0},"
            f"write_cache:{'write_back' if write_cache(dev) else 'write_through'}")


def dsync_policy(declares, dev):
    """The commands an O_DSYNC direct write reaches the drive as, from
    what the kernel declares and what the device advertises (README,
    --policy).  The kernel sets REQ_FUA (unless it declares
    dsync_fua_native_only and the device has no FUA) and follows the write
    with generic_write_sync()'s flush (unless it declares
    dsync_fua_no_flush and the write carried REQ_FUA, or
    dsync_no_flush_without_fua and it did not); blk-flush turns
    REQ_FUA into a post-flush on a device without FUA, and QEMU's block
    layer does the same for a drive without native FUA."""
    if not write_cache(dev):
        return "write"   # no write cache: FUA and flushes are dropped
    fua_bit = guest_fua(dev) or "dsync_fua_native_only" not in declares
    sync_flush = ("dsync_fua_no_flush" not in declares if fua_bit else
                  "dsync_no_flush_without_fua" not in declares)
    if not fua_bit and not sync_flush:
        return "write"
    if fua_bit and guest_fua(dev) and drive_fua(dev):
        return "fua+flush" if sync_flush else "fua"
    # the write, and a flush for the emulated FUA or the sync (or both)
    return "fua-emulated" if fua_bit and sync_flush else "write+flush"


SIM_WORKLOADS = ("dsync", "fsync-append", "replay", "fio")


# platter-sim options a prediction takes from the cell itself (the device,
# the profile, what the kernel declares, the run): in sim_args they would
# be dropped or contradict the guest
SIM_DERIVED = {"--profile": "the cell's profile", "--workload": "sim_workload",
               "--fua": "the device's fua", "--write-cache": "the device's write_cache",
               "--queue-depth": "the device's queue_depth",
               "--policy": "what the kernel declares ('kernels', guest-tests/kernel/variants)",
               "--flush-share": "what the kernel declares (fsync_flush_share)",
               "--flush-queues": "the device's smp", "--runtime": "the run's runtime",
               "--json": "platter"}


# platter-sim options that write a file: every cell would write the same
# one, wherever its path points (outside --out too)
SIM_OUTPUTS = ("--trace-out", "--timeline")


def check_sim_args(v, where):
    check_list(v, where, check_str, nonempty=False, unique=False)
    if v and not v[0].startswith("--"):
        bad(where, f"must start with an option (--NAME), not {v[0]!r:.60}")
    for opt in v:
        if opt.split("=", 1)[0] in SIM_DERIVED:
            name = opt.split("=", 1)[0]
            bad(where, f"{name} comes from {SIM_DERIVED[name]}, not sim_args")
        if opt.split("=", 1)[0] in SIM_OUTPUTS:
            bad(where, f"{opt.split('=', 1)[0]} writes a file: not in sim_args (every cell "
                       "would write the same one; run platter-sim itself for it)")
    return v


def fs_built_in(fs):
    """Can a guest kernel have the file system: platter.config builds it
    in, or an fs-FS.config fragment does (kernelspec.with_fs)?"""
    sym = FILESYSTEMS[fs]
    if sym is None or fs in kernelspec.fs_fragments():
        return True
    with open(KERNEL_CONFIG) as f:
        return any(line.strip() == f"{sym}=y" for line in f)


def check_fs(wl, w, default):
    """A workload's target: fs, mkfs_opts, mount_opts."""
    fs = choices(f"{w}.fs", wl.get("fs", default), tuple(FILESYSTEMS))
    if not fs_built_in(fs):
        bad(f"{w}.fs", f"'{fs}' needs {FILESYSTEMS[fs]}=y, which neither the guest kernel "
                       f"config ({os.path.relpath(KERNEL_CONFIG, ROOT)}) nor a "
                       f"guest-tests/kernel/fs-{fs}.config sets")
    check_list(wl.get("mkfs_opts", []), f"{w}.mkfs_opts", check_arg, nonempty=False,
               unique=False)
    if "mount_opts" in wl:
        check_arg(wl["mount_opts"], f"{w}.mount_opts")
    if fs == "none" and ("mkfs_opts" in wl or "mount_opts" in wl):
        bad(w, "mkfs_opts and mount_opts need a file system (fs xfs, ext4 or btrfs)")
    return fs


def host_path(v, base_dir):
    return os.path.normpath(os.path.join(base_dir, v))


def workload_kind(wl):
    return next((k for k in ("fio", "script") if k in wl), "test")


def workload_fs(wl):
    """The file system a workload runs on ('none': the raw device), or
    None for a guest test that takes no target options."""
    if workload_kind(wl) != "test" or any(k in wl for k in TARGET_KEYS):
        return wl.get("fs", FS_TESTS.get(wl.get("test"), "none"))
    return None


def cell_kernel(spec, wl, where, dev=None):
    """The kernel spec a cell runs: with fs=FS when its workload's file
    system comes from a fragment (btrfs), and frontend=FE when its device's
    front end does (sata), so the kernel builds them in."""
    fs = workload_fs(wl)
    try:
        spec = kernelspec.with_fs(spec, fs) if fs else spec
        return kernelspec.with_frontend(spec, dev["frontend"]) if dev else spec
    except kernelspec.Error as e:
        bad(where, str(e))


# the keys each kind of workload takes besides 'name' and its own
WORKLOAD_KEYS = {
    "test": ("args", "sim_workload", "sim_args"),
    "fio": ("fs", "mkfs_opts", "mount_opts", "fio_stat", "warmup_s", "iops_log_ms",
            "sim_workload", "sim_args"),
    "script": ("fs", "mkfs_opts", "mount_opts"),
}
TARGET_KEYS = ("fs", "mkfs_opts", "mount_opts")
# a fio workload's phases, in virtual time: a warm-up fio runs before its
# figures start (its ramp_time), and fio's per-interval IOPS log, which
# the report plots and judges steadiness by (fio then does a little more
# work per I/O, so a cell with it differs from one without)
FIO_PHASE_KEYS = ("warmup_s", "iops_log_ms")
IOPS_LOG_MS_MAX = 60000


def check_workload(wl, w, tests, base_dir):
    """One workload: a guest test, a fio job file or a script.  Files are
    checked when base_dir (where relative paths start) is given; a spec
    read back from a report is not run, and its files may be elsewhere."""
    all_keys = ("test", "fio", "script") + tuple(dict.fromkeys(
        k for ks in WORKLOAD_KEYS.values() for k in ks + TARGET_KEYS))
    check_keys(wl, w, ("name",), all_keys)
    check_name(wl["name"], f"{w}.name")
    kinds = [k for k in ("test", "fio", "script") if k in wl]
    if len(kinds) != 1:
        bad(w, "needs one of 'test' (a guest test), 'fio' (a fio job file) or 'script' "
               "(a script run in the guest)")
    kind = kinds[0]
    allowed = WORKLOAD_KEYS[kind]
    if kind == "test":
        choices(f"{w}.test", wl["test"], [t for t in tests if t != "exec"])
        if wl["test"] in FS_TESTS:
            allowed += TARGET_KEYS
        if wl["test"] == "fio":
            allowed += ("fio_stat",) + FIO_PHASE_KEYS
    for key in wl:
        if key not in allowed + ("name", kind):
            bad(w, f"'{key}' does not apply to this workload (it takes "
                   f"{', '.join(allowed)})")
    fs = None
    if kind != "test" or any(k in wl for k in TARGET_KEYS):
        fs = check_fs(wl, w, FS_TESTS.get(wl.get("test"), "none"))
        if wl.get("test") == "fsync-append" and fs == "none":
            bad(f"{w}.fs", "fsync-append appends to files: it needs a file system")
    if "fio_stat" in wl:
        choices(f"{w}.fio_stat", wl["fio_stat"], fioout.STATS)
    if "warmup_s" in wl and not cli.valid_runtime(wl["warmup_s"]):
        bad(f"{w}.warmup_s", f"{wl['warmup_s']!r:.60} is not a duration (seconds, above 0 "
                             f"and at most {cli.RUNTIME_MAX_S})")
    if "iops_log_ms" in wl and (type(wl["iops_log_ms"]) is not int or
                                not 1 <= wl["iops_log_ms"] <= IOPS_LOG_MS_MAX):
        bad(f"{w}.iops_log_ms", f"{wl['iops_log_ms']!r:.60} is not an interval in whole ms "
                                f"(1..{IOPS_LOG_MS_MAX})")
    if kind != "test":
        check_str(wl[kind], f"{w}.{kind}")
        if base_dir is not None:
            path = host_path(wl[kind], base_dir)
            if kind == "fio":
                fiojob.check(path, fs, f"{w}.fio")
            elif not os.path.isfile(path) or not os.access(path, os.R_OK):
                bad(f"{w}.script", f"'{wl['script']}': not a readable file")
    args = check_list(wl.get("args", []), f"{w}.args", check_arg, nonempty=False,
                      unique=False)
    # the options the sim prediction takes from the guest's arguments
    for opt in ("--pattern", "--span", "--bs"):
        if opt in args and (args[-1] == opt or args[args.index(opt) + 1][:2] == "--"):
            bad(f"{w}.args", f"{opt} needs a value")
    if "sim_workload" in wl:
        choices(f"{w}.sim_workload", wl["sim_workload"], SIM_WORKLOADS)
    check_sim_args(wl.get("sim_args", []), f"{w}.sim_args")


def check_experiment(spec, where, base_dir=None):
    """Every field of an experiment, type and bounds, before anything runs.
    Returns it as a Spec that remembers base_dir."""
    check_keys(spec, where, ("name", "pairs", "devices", "workloads"),
               ("description", "runtime", "seed", "profiles", "kernels", "expect",
                "timeout_s"))
    check_name(spec["name"], f"{where}: name")
    check_str(spec.get("description", ""), f"{where}: description")
    known = variants()
    resolved = {}

    def kernel(v, w):
        check_str(v, w)
        resolved[v] = check_kernel(v, w, base_dir, known)

    def pair(p, w):
        check_list(p, w, kernel)
        if len(p) != 2:
            bad(w, f"a pair is [BASE, PATCHED], not {p!r:.60}")
    check_list(spec["pairs"], f"{where}: pairs", pair)
    kernel_labels(spec["pairs"], f"{where}: pairs")
    kernels = spec.get("kernels", {})
    check_keys(kernels, f"{where}: kernels", (), tuple(v for p in spec["pairs"] for v in p))
    for k, declares in kernels.items():
        check_declares(declares, f"{where}: kernels.{k}")
    check_list(spec["devices"], f"{where}: devices")
    check_devices(spec["devices"], where, base_dir)
    names = [device_name(d) for d in spec["devices"]]
    for i, n in enumerate(names):
        if n in names[:i]:
            bad(f"{where}: devices[{i}]", f"a second '{n}' device (cell ids name the "
                                          "device: give each entry its own 'name')")
    if "profiles" in spec:
        check_list(spec["profiles"], f"{where}: profiles",
                   lambda v, w: check_profile(v, w, base_dir))
    elif any("profile" not in d for d in spec["devices"]):
        bad(where, "missing key 'profiles' (a device without its own 'profile' runs on "
                   "each of them)")
    labels = [profile_label(p) for p in profile_axis(spec)]
    for i, n in enumerate(labels):
        if n in labels[:i]:
            bad(f"{where}: profiles", f"two profiles named '{n}' (cell ids name a "
                                      "profile file by its name without .profile)")
    tests = guest_tests()
    check_list(spec["workloads"], f"{where}: workloads",
               lambda wl, w: check_workload(wl, w, tests, base_dir))
    wnames = [wl["name"] for wl in spec["workloads"]]
    for i, n in enumerate(wnames):
        if n in wnames[:i]:
            bad(f"{where}: workloads[{i}].name", f"'{n}' names two workloads")
    if "runtime" in spec and not cli.valid_runtime(spec["runtime"]):
        bad(f"{where}: runtime", f"{spec['runtime']!r:.60} is not a duration (seconds, "
                                 f"above 0 and at most {cli.RUNTIME_MAX_S})")
    if "seed" in spec:
        check_seed(spec["seed"], f"{where}: seed", wnames,
                   list(dict.fromkeys(v for pair in spec["pairs"] for v in pair)))
    if "timeout_s" in spec and (type(spec["timeout_s"]) is not int or
                                not 1 <= spec["timeout_s"] <= RUN_GUEST_TIMEOUT_MAX_S):
        bad(f"{where}: timeout_s", f"{spec['timeout_s']!r:.60} is not whole host seconds "
                                   f"(1..{RUN_GUEST_TIMEOUT_MAX_S})")
    if "expect" in spec:
        gate.check_expect(spec["expect"], f"{where}: expect")
    out = Spec(spec)
    out.base_dir = base_dir
    out.kernels = {v: kernel_run_spec(k) for v, k in resolved.items()}
    # what each kernel declares, as the report records it: its entry in
    # "kernels", else a variant's own (guest-tests/kernel/variants); a
    # kernel in neither declares nothing and gets no sim prediction
    declared = dict(kernels)
    for v, k in resolved.items():
        if v not in declared and k["kind"] == "variant":
            declared[v] = kernelspec.variant_declares(k["name"])
    if declared:
        out["kernels"] = {v: declared[v] for v in resolved if v in declared}
    return out


def check_declares(declares, where):
    """A kernel's declared behaviours: names from KERNEL_DECLARES."""
    return check_list(declares, where, lambda d, w: choices(w, d, tuple(KERNEL_DECLARES)),
                      nonempty=False)


class Spec(dict):
    """An experiment spec; base_dir is where its relative file paths start
    (None for a spec read back from a report); kernels maps each kernel of
    its pairs to the spec run-guest is given.  Its "kernels" holds what
    each kernel declares, a variant's own filled in."""
    base_dir = None
    kernels = {}


def check_seed(seed, where, workloads, variants):
    """The published figures a report shows beside its cells: of the
    experiment's own workloads and kernels (an unknown name would never
    be shown)."""
    check_keys(seed, where, ("cells",), ("source", "frontend"))
    check_str(seed.get("source", ""), f"{where}.source")
    check_str(seed.get("frontend", ""), f"{where}.frontend")
    check_keys(seed["cells"], f"{where}.cells", (), tuple(workloads))
    for wl, by in seed["cells"].items():
        check_keys(by, f"{where}.cells.{wl}", (), tuple(variants))
        for variant, figures in by.items():
            w = f"{where}.cells.{wl}.{variant}"
            check_keys(figures, w, (), ("iops", "avg", "p50", "p99", "p99.9"))
            for k, v in figures.items():
                if type(v) not in (int, float) or not v >= 0 or v == float("inf"):
                    bad(f"{w}.{k}", f"{v!r:.60} is not a non-negative number")


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
    spec["devices"] += [d for d in ON_REQUEST_DEVICES if device_name(d) in (devices or ())]
    if declares:
        spec["kernels"] = declares
    return check_experiment(spec, "--base/--patched", base_dir=os.getcwd())


def select_devices(exp, names):
    """The experiment with only the devices named (cell ids' device names)."""
    have = {device_name(d): d for d in exp["devices"]}
    for n in names:
        if n not in have:
            bad("--devices", f"no device '{n}' in '{exp['name']}' (it has {', '.join(have)})")
    out = Spec(exp, devices=[d for n, d in have.items() if n in names])
    out.base_dir, out.kernels = exp.base_dir, exp.kernels
    return out


def load(name_or_path):
    spec, path = load_spec(EXPERIMENTS, name_or_path, "experiment")
    return check_experiment(spec, path, base_dir=os.path.dirname(os.path.abspath(path)))


def device_name(dev):
    if "name" in dev:
        return dev["name"]
    if dev["frontend"] == "scsi-hd":
        return f"scsi-hd-dpofua-{dev.get('dpofua', 'on')}"
    if dev["frontend"] == "sata":
        return "sata" + ("-dpofua-off" if dev.get("dpofua", "on") == "off" else "") + \
            ("-libata-fua" if dev.get("libata_fua") == "1" else "")
    return dev["frontend"]


def profile_axis(exp):
    """The profiles in cell order: the experiment's, then the devices' own."""
    out = list(exp.get("profiles", []))
    for dev in exp["devices"]:
        if "profile" in dev and dev["profile"] not in out:
            out.append(dev["profile"])
    return out


def profile_label(prof):
    """A profile in cell ids: its name, or a file's name without .profile."""
    base = os.path.basename(prof)
    return base[:-8] if base.endswith(".profile") else base


def profile_arg(prof, base_dir):
    """A profile as the drive and the sim are given it: a shipped name, or
    the file's full path (a guest cell runs in its own directory)."""
    if prof in profile_names() or base_dir is None:
        return prof
    return host_path(prof, base_dir)


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
        host_file = (host_path(wl[kind], base_dir) if kind != "test" and base_dir
                     else None)
        for prof in profile_axis(exp):
            for dev in exp["devices"]:
                if dev.get("profile", prof) != prof or \
                        "profile" not in dev and prof not in exp.get("profiles", []):
                    continue
                for v in variants:
                    label = kernelspec.label(v)
                    cid = f"{wl['name']}.{profile_label(prof)}.{device_name(dev)}.{label}"
                    kernel = cell_kernel(getattr(exp, "kernels", {}).get(v, v), wl, cid, dev)
                    out.append({"id": cid, "variant": label, "kernel": kernel, "device": dev,
                                "profile": profile_label(prof),
                                "profile_arg": profile_arg(prof, base_dir),
                                "workload": wl, "host_file": host_file,
                                "declares": exp.get("kernels", {}).get(v),
                                "timeout_s": exp.get("timeout_s")})
    return out


def guest_test(wl):
    return {"fio": "fio", "script": "exec"}.get(workload_kind(wl)) or wl["test"]


def guest_args(wl):
    """The guest test's arguments (before --runtime)."""
    kind = workload_kind(wl)
    args = list(wl.get("args", []))
    if kind == "fio":
        args += ["--job-file", os.path.basename(wl["fio"])]
    elif kind == "script":
        args += ["--script", os.path.basename(wl["script"])]
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


def guest_command(cell, runtime):
    """The run-guest command, run in a directory holding disk.img (relative,
    so the command and the result do not depend on where it ran)."""
    dev, wl = cell["device"], cell["workload"]
    cmd = run_guest_prefix(cell["kernel"], dev, device_drive_opts(dev, cell["profile_arg"])) + [
        "--expect", device_expect(dev),
        "--timeout", str(cell_timeout_s(cell, runtime))]
    if cell.get("host_file"):
        cmd += ["--guest-file", cell["host_file"]]
    return cmd + [guest_test(wl), "--", *guest_args(wl), "--runtime", str(runtime)]


RUN_GUEST_TIMEOUT_MAX_S = 9999999  # run-guest --timeout: 1..9999999


def guest_timeout_s(dev, runtime):
    """A hang guard for one guest cell, in host seconds.  Host time grows
    with the instructions the guest runs per virtual second: ipns per busy
    vCPU, each vCPU a CPU of its own in virtual time.  Measured here
    (docs/performance.md), 16 vCPUs all busy at ipns 1 cost about 75 host s
    per virtual s alone; 12 s per busy vCPU and ipns allows 2.5x that, for
    two cells sharing two cores.  At most what run-guest --timeout takes:
    with 32 vCPUs at ipns 99 the formula passes it from 263 virtual s on."""
    return min(RUN_GUEST_TIMEOUT_MAX_S,
               int(1800 + 12 * dev.get("smp", 1) * dev.get("ipns", 1) * runtime))


def cell_timeout_s(cell, runtime):
    """A cell's hang guard: the experiment's timeout_s, else
    guest_timeout_s for its virtual time, the workload's warm-up
    included."""
    if cell.get("timeout_s"):
        return cell["timeout_s"]
    return guest_timeout_s(cell["device"], runtime + cell["workload"].get("warmup_s", 0))


def run_guest_prefix(kernel, dev, drive):
    """scripts/run-guest with a kernel (a spec), a front end and a drive;
    the caller appends options, the test and its arguments."""
    cmd = [os.path.join(ROOT, "scripts", "run-guest"), "--kernel",
           kernelspec.with_frontend(kernel, dev["frontend"]),
           "--device", dev["frontend"], "--drive-opts", drive]
    if dev["frontend"] in ("scsi-hd", "sata"):
        cmd += ["--dpofua", dev.get("dpofua", "on")]
    if "libata_fua" in dev:
        cmd += ["--kernel-arg", f"libata.fua={dev['libata_fua']}"]
    if not write_cache(dev):
        cmd += ["--write-cache", "off"]
    if dev.get("frontend_props"):
        cmd += ["--frontend-opts", ",".join(f"{k}={v}" for k, v in
                                            sorted(dev["frontend_props"].items()))]
    if dev.get("smp", 1) != 1:
        cmd += ["--smp", str(dev["smp"])]
    if dev.get("ipns", 1) != 1:
        cmd += ["--ipns", str(dev["ipns"])]
    if "mem" in dev:
        cmd += ["--mem", dev["mem"]]
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
        raise cli.BadInput(f"{prog}: cell {cell_id}: {why}")


def from_root(cmd):
    """cmd with paths inside the checkout made relative to its root, so a
    recorded command does not depend on where the checkout was."""
    return [os.path.relpath(a, ROOT) if os.path.isabs(a) and
            os.path.commonpath([a, ROOT]) == ROOT else a for a in cmd]


def rerun_command(cell, runtime):
    """A shell line, run from the repository root, that reruns a guest cell
    with a fresh image in a new temporary directory."""
    full = guest_command(cell, runtime)
    cmd = from_root(full)
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
                      "script": "a script: platter-sim has no equivalent"}.get(
            workload_kind(wl), f"platter-sim has no equivalent of the guest test "
                               f"'{wl.get('test')}'")
    if kind == "fsync-append" and not write_cache(dev):
        return None, "platter-sim's fsync-append needs a write cache"
    fua = drive_fua(dev)
    cmd = [sim, "--profile", cell["profile_arg"], "--workload", kind,
           "--fua", "on" if fua else "off", "--runtime", str(runtime), "--json"]
    if not write_cache(dev):
        cmd += ["--write-cache", "off"]
    if "queue_depth" in dev:
        cmd += ["--queue-depth", str(dev["queue_depth"])]
    if kind == "dsync":
        cmd += ["--policy", dsync_policy(cell["declares"], dev)]
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


# a cell's JSON result (a guest's carries fio's gzipped output): far below
CHILD_OUTPUT_MAX = 64 << 20


def run_json(cmd, timeout, cwd=None, last_line=False, env=None, ok_status=(0,)):
    """Run cmd; (its JSON stdout, or with last_line the JSON on its last
    line, None) or (None, why).  An exit status outside ok_status is an
    error.  On timeout the whole process group goes (run-guest's builds and
    QEMU with it)."""
    try:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             cwd=cwd, start_new_session=True, env=env)
    except OSError as e:
        return None, f"cannot run {cmd[0]}: {e.strerror}"
    # read without bound, a child that prints 3 GB made compare grow to
    # 8.6 GB: stdout is kept up to CHILD_OUTPUT_MAX (the child is killed
    # past it), stderr's last 64 KiB
    got = {"out": bytearray(), "err": bytearray(), "over": False}

    def drain(stream, key, keep_tail):
        for block in iter(lambda: stream.read(1 << 16), b""):
            buf = got[key]
            buf += block
            if keep_tail:
                del buf[:-(64 << 10)]
            elif len(buf) > CHILD_OUTPUT_MAX and not got["over"]:
                got["over"] = True
                os.killpg(p.pid, signal.SIGKILL)
                buf.clear()
            elif got["over"]:
                buf.clear()

    readers = [threading.Thread(target=drain, args=(p.stdout, "out", False), daemon=True),
               threading.Thread(target=drain, args=(p.stderr, "err", True), daemon=True)]
    for r in readers:
        r.start()
    try:
        p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        return None, f"no result after {timeout} s (killed): {shlex.join(cmd[:3])} ..."
    finally:
        for r in readers:
            r.join()
    if got["over"]:
        return None, (f"more than {CHILD_OUTPUT_MAX} bytes on stdout (killed): "
                      f"{shlex.join(cmd[:3])} ...")
    out, err = bytes(got["out"]), bytes(got["err"])
    out = out.decode("utf-8", "replace")
    if p.returncode not in ok_status:
        tail = "\n".join(err.decode("utf-8", "replace").strip().splitlines()[-6:])
        return None, f"exit {p.returncode}: {tail}"
    try:
        return strictjson.loads(out.strip().splitlines()[-1] if last_line else out), None
    except (strictjson.Invalid, IndexError) as e:
        return None, f"bad JSON on stdout: {e}"


def unpack(b64):
    """A guest file sent as gzip + base64 (guest-tests/initramfs/lib/target.sh)."""
    return gzip.decompress(base64.b64decode(b64, validate=True))


def decode_guest(res):
    """The guest's result with its transported files decoded: fio's output
    parsed into "fio", a script's stdout and stderr as text.  Returns
    (result, None) or (None, why)."""
    try:
        if "fio_json_gz_b64" in res:
            res["fio"] = fioout.parse(unpack(res.pop("fio_json_gz_b64")).decode("utf-8"))
        if "iops_log_gz_b64" in res:
            res["iops_log"] = unpack(res.pop("iops_log_gz_b64")).decode("utf-8", "replace")
        for stream in ("stdout", "stderr"):
            if f"{stream}_gz_b64" in res:
                res[stream] = unpack(res.pop(f"{stream}_gz_b64")).decode("utf-8", "replace")
    except (ValueError, OSError, EOFError, UnicodeDecodeError) as e:
        return None, f"the guest's result does not decode: {e}"
    return res, None


def program_cdf(res):
    """A guest program's latency CDF from its histogram (lat_hist_ns)."""
    hist = latency.from_pairs(res.get("lat_hist_ns"))
    return [[frac, us] for frac, us in latency.thin(latency.cdf(hist))] if hist else []


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
        fs = fioout.summary(res["fio"], (workload or {}).get("fio_stat", "io"))
        delta = res.get("device", {}).get("stat_delta", {})
        ios = max(fs["ios"], 1)
        counters = {"writes": None, "fua_writes": None, "flushes": delta.get("flushes")}
        cdf = [[frac, us] for frac, us in latency.thin(fs["cdf"])]
        out = {"ios": fs["ios"], "iops": fs["iops"], "lat_us": fs["lat_us"],
               "jobs": fioout.table(res["fio"])}
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
        counters = {"writes": data_writes, "flushes": delta.get("flushes"),
                    "fua_writes": trace.get("write_fua")}
        cdf = program_cdf(res) or res.get("lat_cdf_us", [])
        out = {"ios": res.get("ios"), "iops": res.get("iops"), "lat_us": lat}
    out["per_io"] = {k: (round(v / ios, 3) if isinstance(v, (int, float)) else None)
                     for k, v in counters.items()}
    out["cdf_us"] = cdf
    if "accounting" in res:  # a guest run on platter's QEMU
        out["accounting"] = accounting_summary(res, workload)
    check_figures(out)
    return out


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
        figure(f"cdf_us[{i}]", point[0])
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


def run_cell(cell, runtime, sim, guest=True, workdir=None, timeout=None):
    """Run one cell; returns its result record."""
    dev = cell["device"]
    rec = {"id": cell["id"], "variant": cell["variant"],
           "device": device_name(dev), "profile": cell["profile"],
           "workload": cell["workload"]["name"], "runtime_s": runtime,
           "fua": guest_fua(dev)}
    host = {}
    scmd, why = sim_plan(cell, runtime, sim)
    if scmd:
        t0 = time.monotonic()
        sres, serr = run_json(scmd, timeout or 600)
        host["sim_s"] = round(time.monotonic() - t0, 3)
        lacks = sim_lacks(sres) if serr is None else None
        if lacks:
            sres, serr = None, f"platter-sim's JSON report has no {lacks}"
        if sres:
            host["sim_cpu_ns"] = (sres.pop("host", None) or {}).get("cpu_ns")
        try:
            ssum = summarize(sres)
        except (KeyError, TypeError, AttributeError, ValueError, ZeroDivisionError) as e:
            ssum, sres, serr = None, None, f"platter-sim's JSON report is malformed: {e}"
        rec["sim"] = {"summary": ssum, "error": serr, "raw": sres,
                      "command": shlex.join(from_root(scmd))}
    else:
        rec["sim"] = {"summary": None, "error": None, "raw": None, "command": None,
                      "no_prediction": why}
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
            gres, gerr = run_json(gcmd, timeout or cell_timeout_s(cell, runtime)
                                  + 7200, cwd=workdir, env=dict(os.environ, TMPDIR=workdir))
        host["guest_s"] = round(time.monotonic() - t0, 3)
        if gres:
            run = gres.get("run", {})
            host["guest_run"] = {k: run.pop(k) for k in list(run)
                                 if k in ("wall_s", "host_s", "elapsed_s", "workdir")}
            gres, gerr = decode_guest(gres)
        try:
            gsum = summarize(gres, cell["workload"])
            over = fioout.overran(gres["fio"], runtime) if gres and "fio" in gres else None
            if over:
                gsum, gerr = None, over
        except fioout.Malformed as e:
            gsum, gerr = None, f"fio's output: {e}"
        rec["guest"] = {"summary": gsum, "error": gerr, "raw": gres,
                        "command": rerun_command(cell, runtime)}
    rec["host"] = host
    return rec
