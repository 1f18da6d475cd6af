"""platter doctor: is this host ready, and what would the first guest run
still have to build?  One line a check; status 0 when platter-sim runs
(sim-only work), 125 when something it needs is missing.

Checks: the OS (Debian 12, as setup-host handles), meson and the host's
packages (scripts/lib/host.sh, the list setup-host installs), platter-sim,
the build cache (writable, its free space against a cold build's), and
which of this checkout's cache entries are there, with the cold-path time
of the rest (docs/performance.md)."""
import os
import re
import shutil
import subprocess

from . import cache
from . import paths

HOST_SH = os.path.join(paths.ROOT, "scripts", "lib", "host.sh")
SEABIOS = "/usr/share/seabios/bios-256k.bin"     # what run-guest gives QEMU
# What a cold build writes into the cache and its wall time on 2 idle
# cores, per entry kind: (bytes or None when not measured, seconds).
# Bytes measured with du in /var/cache/platter on 2026-12-02 (README.md,
# "Disk space"): QEMU's Debian source 39 MB, its build tree 0.49 GB part-way
# through a build (a lower bound) and its install 66 MB (docs/performance.md);
# the kernel's .deb 160 MB and extracted pinned source 1.8 GB.  A kernel's
# build tree hard-links that source; its objects were not measured yet.
# Seconds from the cold .ci/run on 0daa910 (docs/performance.md): QEMU with
# the source download beside it 240 s, base's bzImage 703 s; a variant 25 s
# and the initramfs 4 s from the cold run before it.
COLD = {
    "qemu": (0.6e9, 240),
    "kernel-source": (1.96e9, 0),
    "kernel": (None, 703),
    "kernel-variant": (None, 25),
    "initramfs": (None, 4),
}


def host_lists():
    """(os id, os version, os name, {group: [package]}) from host.sh."""
    with open(HOST_SH) as f:
        val = {m.group(1): m.group(3) if m.group(3) is not None else m.group(4)
               for m in re.finditer(r'^(host_\w+)=("([^"]*)"|(\S+))', f.read(), re.M)}
    return (val["host_os_id"], val["host_os_version"], val["host_os_name"],
            {"build": val["host_pkgs"].split(), "backports": val["host_backports"].split(),
             "guest": val["host_guest_pkgs"].split()})


def firmware():
    """(the SeaBIOS release in SEABIOS as a tuple or None, the release
    host.sh asks for): host.sh's own reader, so there is one."""
    with open(HOST_SH) as f:
        m = re.search(r"^host_seabios_min=(\S+)", f.read(), re.M)
    want = tuple(map(int, m.group(1).split("."))) if m else None
    p = subprocess.run(["sh", "-c", '. "$1"; seabios_version "$2"', "sh", HOST_SH, SEABIOS],
                       capture_output=True, text=True)
    have = p.stdout.strip()
    return (tuple(map(int, have.split("."))) if re.fullmatch(r"\d+\.\d+\.\d+", have) else None,
            want)


def os_release():
    f = os.environ.get("PLATTER_OS_RELEASE", "/etc/os-release")
    try:
        text = open(f).read()
    except OSError:
        return {}
    return {k: v.strip('"') for k, v in re.findall(r"^([A-Z_]+)=(.*)$", text, re.M)}


def missing_packages(pkgs):
    if not shutil.which("dpkg-query"):
        return list(pkgs)
    p = subprocess.run(["dpkg-query", "-W", "-f", "${Package} ${db:Status-Abbrev}\n", *pkgs],
                       capture_output=True, text=True)
    ok = {ln.split()[0] for ln in p.stdout.splitlines() if ln.split()[1:2] == ["ii"]}
    return [x for x in pkgs if x not in ok]


def writable_dir(path):
    """(writable, the directory that exists on the way to path)."""
    d = os.path.abspath(path)
    while not os.path.lexists(d):
        d = os.path.dirname(d)
    return os.path.isdir(d) and os.access(d, os.W_OK | os.X_OK), d


def gb(n):
    return f"{n / 1e9:.1f} GB"


def main():
    lines, fatal = [], False

    def say(ok, what, detail):
        # a FAIL line is a failed check: the status says so (issue 39: a
        # FAIL with status 0)
        nonlocal fatal
        fatal |= ok is False
        lines.append(f"{'ok  ' if ok else 'FAIL' if ok is False else 'warn'}  {what}: {detail}")

    os_id, os_ver, os_name, pkgs = host_lists()
    rel = os_release()
    name = rel.get("PRETTY_NAME") or f"{rel.get('ID', 'unknown')} {rel.get('VERSION_ID', '')}"
    if rel.get("ID") == os_id and rel.get("VERSION_ID") == os_ver:
        say(True, "OS", name)
    else:
        say(None, "OS", f"{name}: not {os_name}, which setup-host handles; install meson "
                        f">= 1.5 and the packages below by hand")
    meson = shutil.which("meson")
    mv = subprocess.run([meson, "--version"], capture_output=True, text=True).stdout.strip() \
        if meson else ""
    good = bool(re.match(r"(\d+)\.(\d+)", mv)) and \
        tuple(map(int, re.match(r"(\d+)\.(\d+)", mv).groups())) >= (1, 5)
    say(good, "meson", f"{mv} (>= 1.5)" if mv else "not installed (>= 1.5: scripts/setup-host)")
    fatal |= not good
    for group, need in (("build", pkgs["build"]), ("guest runs", pkgs["guest"])):
        miss = missing_packages(need)
        say(not miss if group == "build" else (True if not miss else None),
            f"packages for {group}",
            f"all {len(need)} installed" if not miss else
            f"missing {' '.join(miss)} (scripts/setup-host{' --guest' if group != 'build' else ''})")
        fatal |= group == "build" and bool(miss)
    fw, fw_min = firmware()
    if not fw:
        say(None, "firmware", f"no SeaBIOS found at {SEABIOS} (scripts/setup-host --guest)")
    elif fw_min and fw < fw_min:
        # only a guest with a disk on AHCI hangs in it: a warning
        say(None, "firmware", f"SeaBIOS {'.'.join(map(str, fw))} in {SEABIOS} is older than "
                              f"{'.'.join(map(str, fw_min))}: a guest with a disk on AHCI "
                              "(--device sata) hangs in it; scripts/setup-host --guest "
                              "installs bookworm-backports'")
    else:
        say(True, "firmware", f"SeaBIOS {'.'.join(map(str, fw))} in {SEABIOS}")
    sim = paths.find_sim()
    say(bool(sim), "platter-sim", sim or "not built (meson setup build && ninja -C build)")
    fatal |= not sim
    root, why = paths.cache_root_and_why()
    why = paths.CACHE_ORIGIN.get("why", why)
    ok, base = writable_dir(root)
    say(ok, "build cache", f"{root} (from {why}; the rule: {paths.CACHE_RULE}; "
        f"{'writable' if ok else f'{base} is not a writable directory: set PLATTER_CACHE'})")
    say(True, "results", f"results/NAME under the working directory ({os.getcwd()}), "
        "then results/NAME-2, ..., never over an earlier run; --out DIR chooses")
    inst = paths.installed()
    say(True, "installed files", f"{paths.ROOT} (an installed tree, {inst.get('version', '?')})"
        if inst else f"none: this is the checkout {paths.ROOT} (meson install puts them "
        "under PREFIX/share/platter)")
    entries = []
    try:
        entries = cache.current_entries()
    except cache.Refused as e:
        say(None, "cache entries", str(e))
    todo_bytes = todo_s = 0
    unmeasured = False
    have_source = os.path.isdir(os.path.join(root, "kernel", "src"))
    for e in entries:
        d = os.path.join(root, e.path)
        if e.complete(d):
            say(True, f"cached {e.kind} {e.name}", e.path)
            continue
        kind = e.kind if e.kind != "kernel" or e.name == "base" else "kernel-variant"
        size, secs = COLD[kind]
        if e.kind == "kernel" and not have_source:
            todo_bytes += COLD["kernel-source"][0]
            have_source = True
        todo_bytes += size or 0
        unmeasured |= size is None
        todo_s += secs
        say(None, f"to build {e.kind} {e.name}",
            f"about {secs} s on 2 idle cores" + (f", {gb(size)}" if size else ""))
    free = shutil.disk_usage(base if os.path.isdir(base) else os.path.dirname(base)).free
    say(free >= todo_bytes, "disk",
        f"{gb(free)} free at {base}; the builds above need at least {gb(todo_bytes)}"
        + (" (kernel objects not counted: not measured yet)" if unmeasured else "")
        + f", about {todo_s // 60} min on 2 idle cores")
    print("\n".join(lines))
    return 125 if fatal else 0
