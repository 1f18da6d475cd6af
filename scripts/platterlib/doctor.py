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
# Disk a cold build writes into the cache, per entry kind, in bytes, and
# its wall time on 2 cores: measured on the cold .ci/run of
# docs/performance.md ("The cold path") and in /var/cache/platter
# (du, README.md "Disk space"); a kernel's figure is base's (a variant
# is an incremental copy of base's tree)
COLD = {
    "qemu": (600e6, 242),        # source 39 MB, build tree 493 MB, install 66 MB
    "kernel-source": (2.0e9, 30),  # the .deb 160 MB, the extracted source 1.8 GB
    "kernel": (1.2e9, 900),      # base: config 26 s, bzImage 874 s
    "kernel-variant": (1.2e9, 25),
    "initramfs": (50e6, 4),
}


def host_lists():
    """(os id, os version, os name, {group: [package]}) from host.sh."""
    with open(HOST_SH) as f:
        val = {m.group(1): m.group(3) if m.group(3) is not None else m.group(4)
               for m in re.finditer(r'^(host_\w+)=("([^"]*)"|(\S+))', f.read(), re.M)}
    return (val["host_os_id"], val["host_os_version"], val["host_os_name"],
            {"build": val["host_pkgs"].split(), "backports": val["host_backports"].split(),
             "guest": val["host_guest_pkgs"].split()})


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
    sim = paths.find_sim()
    say(bool(sim), "platter-sim", sim or "not built (meson setup build && ninja -C build)")
    fatal |= not sim
    root = paths.cache_root()
    ok, base = writable_dir(root)
    say(ok, "cache", f"{root} ({'writable' if ok else f'{base} is not a writable directory: set PLATTER_CACHE'})")
    entries = []
    try:
        entries = cache.current_entries()
    except cache.Refused as e:
        say(None, "cache entries", str(e))
    todo_bytes = todo_s = 0
    have_source = os.path.isdir(os.path.join(root, "kernel", "src"))
    for e in entries:
        d = os.path.join(root, e.path)
        if e.complete(d):
            say(True, f"cached {e.kind} {e.name}", e.path)
            continue
        kind = e.kind if e.kind != "kernel" or e.name == "base" else "kernel-variant"
        size, secs = COLD[kind]
        if e.kind == "kernel" and not have_source:
            size, secs = size + COLD["kernel-source"][0], secs + COLD["kernel-source"][1]
            have_source = True
        todo_bytes += size
        todo_s += secs
        say(None, f"to build {e.kind} {e.name}", f"about {secs} s on 2 cores, {gb(size)}")
    free = shutil.disk_usage(base if os.path.isdir(base) else os.path.dirname(base)).free
    say(free >= todo_bytes, "disk", f"{gb(free)} free at {base}; the builds above need about "
                                    f"{gb(todo_bytes)} ({todo_s // 60} min on 2 cores)")
    print("\n".join(lines))
    return 125 if fatal else 0
