"""Experiment specs: reading one (a JSON file by name or path), and checking
every field, type and bound, before anything is built or runs; a bad one is
one line naming the file, the field and what is allowed.  Also what names a
cell id is made of (a profile's label, the profile axis) and the shared
checks the power-cut campaigns' and soak's specs use."""
import os
import re
import stat

from . import child
from . import cli
from . import cpuprofile
from . import devicespec
from . import fiojob
from . import fioout
from . import gate
from . import kernelspec
from . import paths
from . import clients
from . import programs
from . import strictjson
from .paths import ROOT


EXPERIMENTS = os.path.join(ROOT, "scripts", "experiments")


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


_CACHE_OK = {}


def check_write_cache(prof, where, base_dir=""):
    """A drive with its write cache on needs a profile with a write cache:
    the model's own check (a platter-sim run of 1 ns with --write-cache on makes
    the device).  Issue 39: write cache on with `ideal` was accepted; the
    sim ran write-through and the guest's drive refused it when QEMU
    started.  Without a built platter-sim the drive checks it itself."""
    if base_dir is None:
        return   # a spec read back from a report: not run
    path = prof if prof in profile_names() else host_path(prof, base_dir)
    sim = paths.find_sim()
    if not sim or not os.access(sim, os.X_OK):
        return
    if path not in _CACHE_OK:
        ran = child.sim(sim, ["--profile", path, "--write-cache", "on", "--runtime",
                             "0.000000001", "--json"],
                        timeout=60)
        _CACHE_OK[path] = None if not ran.why else \
            (ran.err.strip().splitlines() or [ran.why])[-1].removeprefix("platter-sim: ")
    if _CACHE_OK[path]:
        bad(where, f"write cache on with profile {prof}: {_CACHE_OK[path][:200]} "
                   "(give the device write_cache off, or a profile with a cache)")


def check_profile_file(path, where):
    """A profile file's contents, read by the model's own parser (the
    built platter-sim's --dump-profile) when the spec is loaded: '/etc/passwd'
    once passed, and every cell, cut or build went on to fail.  Without a
    built platter-sim the file is checked where it is used."""
    sim = paths.find_sim()
    if not sim or not os.access(sim, os.X_OK):
        return
    ran = child.sim(sim, ["--profile", path, "--dump-profile"], timeout=60)
    if ran.why and ran.status is None:
        bad(where, f"cannot check the profile {path}: {ran.why}")
    if ran.why:
        why = (ran.err.strip().splitlines() or ["not a profile"])[-1]
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
    "cpu": (str, None, "a CPU profile: a name in scripts/cpus (plain, skylake-sp-kvm, "
                       "alderlake-baremetal) or a .cpu file, relative to the experiment file "
                       "(run-guest --cpu); it sets ipns, so not with ipns"),
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


def cpu_arg(spec, base_dir):
    """A CPU profile as run-guest --cpu takes it: a shipped name, or the
    file's full path (relative paths start at the experiment file)."""
    if cpuprofile.is_file_spec(spec) and base_dir is not None:
        return host_path(spec, base_dir)
    return spec


def check_cpu(dev, path, base_dir):
    """A device's CPU profile: one that loads (a bad one is the profile
    parser's own one-line error), and no ipns beside it."""
    if "ipns" in dev:
        raise cli.BadInput(f"platter: {path}: device cpu and ipns: give one (a CPU profile "
                           "sets ipns)")
    if base_dir is None:
        return
    try:
        cpuprofile.resolve(cpu_arg(dev["cpu"], base_dir))
    except cpuprofile.BadProfile as e:
        raise cli.BadInput(f"platter: {path}: device cpu: {e}")


def device_ipns(dev):
    """The device's guest instructions per virtual ns: its CPU profile's,
    else ipns (default 1)."""
    if "cpu" in dev:
        try:
            return cpuprofile.load(dev["cpu"])[2]["ipns"]
        except cpuprofile.BadProfile:
            return 1
    return dev.get("ipns", 1)


def check_devices(devices, path, base_dir=""):
    """Each device entry: known keys (a typo would silently change the
    machine), values run-guest accepts, combinations the front end can
    show the guest."""
    for dev in devices:
        if not isinstance(dev, dict) or "frontend" not in dev:
            raise cli.BadInput(f"platter: {path}: a device needs a 'frontend': {dev!r:.80}")
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
        if "cpu" in dev:
            check_cpu(dev, path, base_dir)
        if "frontend_props" in dev:
            check_frontend_props(dev["frontend_props"], f"{path}: device")
        if "mem" in dev and not cli.size_bytes(dev["mem"], "MG", bare=None, max_digits=7):
            raise cli.BadInput(f"platter: {path}: device mem={dev['mem']!r:.60} is not a size "
                               "in M or G such as 512M or 4G")
        if "dpofua" in dev and dev["frontend"] not in ("scsi-hd", "sata"):
            raise cli.BadInput(f"platter: {path}: device dpofua applies to scsi-hd and sata "
                               f"only, not {dev['frontend']}")
        if "libata_fua" in dev and dev["frontend"] != "sata":
            raise cli.BadInput(f"platter: {path}: device libata_fua applies to sata only, "
                               f"not {dev['frontend']}")


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
SIM_OUTPUTS = ("--trace-out", "--timeline", "--html")
# options that make platter-sim do something other than a cell's run, or
# run another profile than the cell names (issue 39: each failed every cell
# with 125, or gave the sim column another drive)
SIM_NOT_A_RUN = {"--dump-profile": "prints the profile and runs nothing",
                 "--verify": "checks a replay against its own trace",
                 "--explain": "prints a table instead of the report",
                 "--explain-format": "goes with --explain",
                 "--timeline-count": "goes with --timeline, a file output",
                 "--timeline-from": "goes with --timeline, a file output",
                 "--profile-dir": "the cell's profile is the one the experiment names",
                 "--version": "prints the version and runs nothing"}
# dsync-write's options that an experiment's args may give (--dev and
# --runtime are the cell's); each takes a value (guest-tests/src/pattern.h)
DSYNC_ARGS = ("--pattern", "--span", "--bs", "--offset", "--seed", "--ios")


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
        if opt.split("=", 1)[0] in SIM_NOT_A_RUN:
            name = opt.split("=", 1)[0]
            bad(where, f"{name} {SIM_NOT_A_RUN[name]}: not in sim_args")
    opts = [o.split("=", 1)[0] for o in v if o.startswith("--")]
    twice = sorted({o for o in opts if opts.count(o) > 1})
    if twice:
        bad(where, f"{twice[0]} given twice (the sim would take one of them)")
    return v


def check_dsync_args(args, where):
    """dsync-write's arguments as the guest and the sim both take them: each
    option of DSYNC_ARGS once, with its value as the next word (issue 39: a
    repeated --pattern ran seq in the sim and rand in the guest; --pattern=rand
    and stray words passed here and the sim dropped them); --seed only with
    --pattern rand (platter-sim refuses it otherwise)."""
    seen = {}
    i = 0
    while i < len(args):
        opt = args[i]
        if opt not in DSYNC_ARGS:
            bad(where, f"{opt!r:.60} is not an option of dsync-write "
                       f"({', '.join(DSYNC_ARGS)}, each with its value as the next word)")
        if opt in seen:
            bad(where, f"{opt} given twice")
        if i + 1 >= len(args) or args[i + 1].startswith("--"):
            bad(where, f"{opt} needs a value")
        seen[opt] = args[i + 1]
        i += 2
    if "--pattern" in seen and seen["--pattern"] not in ("seq", "rand"):
        bad(where, f"--pattern {seen['--pattern']!r:.40}: seq or rand")
    if "--seed" in seen and seen.get("--pattern") != "rand":
        bad(where, "--seed picks random offsets: it needs --pattern rand")
    return args


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


def default_fs(wl):
    """A workload's file system when it names none: a client's xfs, a
    guest test's own, else the raw device."""
    return "xfs" if "client" in wl else FS_TESTS.get(wl.get("test"), "none")


def host_path(v, base_dir):
    return os.path.normpath(os.path.join(base_dir, v))


def check_client_settings(c, settings, where):
    """A client's "settings": {NAME: VALUE} for a client that runs a server."""
    if not c.settings:
        bad(where, f"{c.name} runs no server: it takes no settings")
    if not isinstance(settings, dict) or not settings:
        bad(where, f"{c.settings}: an object of NAME: VALUE, not {settings!r:.60}")
    for k, v in settings.items():
        if not clients.SETTING_NAME.fullmatch(k):
            bad(where, f"{k!r:.60} is not a setting's name (lower-case letters, digits, _ and .)")
        if isinstance(v, bool) or not isinstance(v, (str, int)) or \
                not clients.SETTING_VALUE.fullmatch(str(v)):
            bad(f"{where}.{k}", f"{v!r:.60} is not a value: a number or a word of letters, "
                                "digits and _ . : + - (at most 64)")


# the keys each kind of workload takes besides 'name' and its own
WORKLOAD_KEYS = {
    "test": ("args", "sim_workload", "sim_args"),
    "fio": ("fs", "mkfs_opts", "mount_opts", "fio_stat", "fio_group", "warmup_s",
            "iops_log_ms", "sim_workload", "sim_args"),
    "script": ("fs", "mkfs_opts", "mount_opts", "programs", "packages"),
    "client": ("fs", "mkfs_opts", "mount_opts", "headline", "settings"),
}
WORKLOAD_KINDS = tuple(WORKLOAD_KEYS)
TARGET_KEYS = ("fs", "mkfs_opts", "mount_opts")


# a fio workload's phases, in virtual time: a warm-up fio runs before its
# figures start (its ramp_time), and fio's per-interval IOPS log, which
# the report plots and judges steadiness by (fio then does a little more
# work per I/O, so a cell with it differs from one without)
FIO_PHASE_KEYS = ("warmup_s", "iops_log_ms")
IOPS_LOG_MS_MAX = 60000


def deb_path(spec, base_dir):
    """A --package value with its .deb file's path made from base_dir (a
    package name as it is)."""
    what, progs = programs.split_package(spec)
    if not base_dir or not what.endswith(".deb"):
        return spec
    return host_path(what, base_dir) + ("" if progs is None else ":" + progs)


def check_programs(wl, w, base_dir):
    """A script workload's "programs" (host programs, relative to the
    experiment file) and "packages" (Debian package names, NAME:PROG,...,
    or .deb files): platter exec's --with and --package.  The files are
    checked when base_dir is given; what they need, when the cell's guest
    is packed (platterlib/programs.py)."""
    def program(v, where):
        check_str(v, where)
        if base_dir is not None:
            path = host_path(v, base_dir)
            if not os.path.isfile(path) or not os.access(path, os.R_OK | os.X_OK):
                bad(where, f"'{v:.100}': not an executable file")

    def package(v, where):
        check_str(v, where)
        what, progs = programs.split_package(v)
        if progs is not None and not all(programs.NAME.fullmatch(x)
                                         for x in progs.split(",")):
            bad(where, f"{v!r:.100}: after ':', program names separated by ','")
        if what.endswith(".deb"):
            if base_dir is not None and not os.path.isfile(host_path(what, base_dir)):
                bad(where, f"'{what:.100}': no such file")
        elif not programs.PACKAGE.fullmatch(what):
            bad(where, f"{v!r:.100} is not NAME[=VERSION][:PROGRAM,...] (a Debian package) "
                       "or FILE.deb[:PROGRAM,...]")
    if "programs" in wl:
        check_list(wl["programs"], f"{w}.programs", program)
    if "packages" in wl:
        check_list(wl["packages"], f"{w}.packages", package)


def check_workload(wl, w, tests, base_dir):
    """One workload: a guest test, a fio job file or a script.  Files are
    checked when base_dir (where relative paths start) is given; a spec
    read back from a report is not run, and its files may be elsewhere."""
    all_keys = WORKLOAD_KINDS + tuple(dict.fromkeys(
        k for ks in WORKLOAD_KEYS.values() for k in ks + TARGET_KEYS))
    check_keys(wl, w, ("name",), all_keys)
    check_name(wl["name"], f"{w}.name")
    kinds = [k for k in WORKLOAD_KINDS if k in wl]
    if len(kinds) != 1:
        bad(w, "needs one of 'test' (a guest test), 'fio' (a fio job file), 'script' "
               "(a script run in the guest) or 'client' (a ready client: "
               f"{', '.join(clients.CLIENTS)})")
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
        fs = check_fs(wl, w, default_fs(wl))
        if "client" in wl and fs == "none":
            bad(f"{w}.fs", f"{wl['client']} works on files: it needs a file system "
                           "(xfs, ext4 or btrfs)")
        if wl.get("test") == "fsync-append" and fs == "none":
            bad(f"{w}.fs", "fsync-append appends to files: it needs a file system")
    if "fio_stat" in wl:
        choices(f"{w}.fio_stat", wl["fio_stat"], fioout.STATS)
    if "fio_group" in wl:
        check_str(wl["fio_group"], f"{w}.fio_group")
    if "warmup_s" in wl and not cli.valid_runtime(wl["warmup_s"]):
        bad(f"{w}.warmup_s", f"{wl['warmup_s']!r:.60} is not a duration (seconds, above 0 "
                             f"and at most {cli.RUNTIME_MAX_S})")
    if "iops_log_ms" in wl and (type(wl["iops_log_ms"]) is not int or
                                not 1 <= wl["iops_log_ms"] <= IOPS_LOG_MS_MAX):
        bad(f"{w}.iops_log_ms", f"{wl['iops_log_ms']!r:.60} is not an interval in whole ms "
                                f"(1..{IOPS_LOG_MS_MAX})")
    if kind == "client":
        c = clients.CLIENTS[choices(f"{w}.client", wl["client"], tuple(clients.CLIENTS))]
        if "headline" in wl:
            choices(f"{w}.headline", wl["headline"], c.figures)
        if "settings" in wl:
            check_client_settings(c, wl["settings"], f"{w}.settings")
    elif kind != "test":
        check_str(wl[kind], f"{w}.{kind}")
        if base_dir is not None:
            path = host_path(wl[kind], base_dir)
            if kind == "fio":
                info = fiojob.check(path, fs, f"{w}.fio")
                if "fio_group" in wl and wl["fio_group"] not in info["jobs"]:
                    bad(f"{w}.fio_group", f"{wl['fio_group']!r:.60} is not a job of "
                                          f"{wl['fio']} ({', '.join(info['jobs'])})")
            elif not os.path.isfile(path) or not os.access(path, os.R_OK):
                bad(f"{w}.script", f"'{wl['script']}': not a readable file")
    check_programs(wl, w, base_dir)
    args = check_list(wl.get("args", []), f"{w}.args", check_arg, nonempty=False,
                      unique=False)
    # the options the sim prediction takes from the guest's arguments
    for opt in ("--pattern", "--span", "--bs"):
        if opt in args and (args[-1] == opt or args[args.index(opt) + 1][:2] == "--"):
            bad(f"{w}.args", f"{opt} needs a value")
    if wl.get("test") == "dsync":
        check_dsync_args(args, f"{w}.args")
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
    names = [devicespec.device_name(d) for d in spec["devices"]]
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
    for i, dev in enumerate(spec["devices"]):
        if devicespec.write_cache(dev):
            for prof in ([dev["profile"]] if "profile" in dev else spec["profiles"]):
                check_write_cache(prof, f"{where}: devices[{i}]", base_dir)
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
    out.kernels = {v: kernelspec.run_spec(k) for v, k in resolved.items()}
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


def load(name_or_path):
    spec, path = load_spec(EXPERIMENTS, name_or_path, "experiment")
    return check_experiment(spec, path, base_dir=os.path.dirname(os.path.abspath(path)))


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


RUN_GUEST_TIMEOUT_MAX_S = 9999999  # run-guest --timeout: 1..9999999
