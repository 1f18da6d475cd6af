"""platter cache: list, export and import the build cache.

What a guest run needs from $PLATTER_CACHE (default ~/.cache/platter):

  qemu/<key>/                 scripts/build-qemu's install (.complete marks it)
  kernel/out/<label>-<key>/   scripts/build-kernel's bzImage, config, info,
                              System.map:
                              every variant's, and with --kernel SPEC a
                              tree: or patches: kernel's (its label as in
                              cell ids, its revision resolved to the commit)
  initramfs/<key>/            scripts/build-initramfs's initramfs.cpio

Each key is a hash of the entry's inputs.  This module never computes one:
it asks the build scripts (--print-key, --print-inputs), so a key here is
the key a build would look up.  Not moved: downloaded sources, build trees
(kernel/tree/, qemu/work-*), ccache; a build that needs them makes them.

An archive is a compressed tar: manifest.json first, then the entries'
regular files.  Import takes nothing on trust: the manifest's keys must be
the current checkout's (a tree: or patches: kernel's only when the import
names it with --kernel: its key is computed from the importer's own tree
and patch files), every member must be a regular file the manifest
names, at a path built from kind, name and key (never from the archive),
with the size and sha256 the manifest gives; everything is extracted to a
staging directory inside the cache and verified before any entry is renamed
into place, and a complete entry is never overwritten.  QEMU's firmware
links are made again on this host (build-qemu --link-firmware).
"""
import concurrent.futures
import datetime
import fcntl
import gzip
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zlib
import lzma

from . import child, cli, kernelspec, paths, strictjson
from .paths import cache_root, file_head, sha256_file

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SCRIPTS = os.path.join(ROOT, "scripts")
MANIFEST = "manifest.json"
MANIFEST_MAX = 16 << 20
VERSION = 1
KEY = re.compile(r"[0-9a-f]{16}")
SHA256 = re.compile(r"[0-9a-f]{64}")
PART = re.compile(r"[A-Za-z0-9][A-Za-z0-9._,+-]{0,127}")
FORMATS = ((".tar.zst", "zst"), (".tzst", "zst"), (".tar.xz", "xz"), (".txz", "xz"),
           (".tar.gz", "gz"), (".tgz", "gz"))
# Packages whose versions the builds depend on (recorded, not checked:
# the keys cover what matters)
HOST_PACKAGES = ("seabios", "qemu-system-data", "gcc", "libc6", "busybox-static", "xfsprogs")


class Refused(Exception):
    """One line saying why: the command ends with it, status 1."""


def short(text, n=100):
    """A name from an archive, safe for one line."""
    return repr(text if len(text) <= n else text[:n] + "...")


# ---- the entries of the current checkout -----------------------------------

class Entry:
    """One cache entry the current checkout would use."""
    REQUIRED = {"qemu": ("bin/qemu-system-x86_64",), "kernel": ("bzImage", "info"),
                "initramfs": ("initramfs.cpio",)}

    def __init__(self, kind, name, command, spec=None):
        self.kind, self.name, self.command, self.spec = kind, name, command, spec
        self.key = run_script(command + ["--print-key"]).strip()
        if not KEY.fullmatch(self.key):
            raise Refused(f"scripts/{' '.join(command)} --print-key printed "
                          f"{short(self.key)}, not a key")
        self.inputs = run_script(command + ["--print-inputs"]).splitlines()

    @property
    def path(self):
        """Relative to the cache root, as the build scripts lay it out."""
        if self.kind == "qemu":
            return f"qemu/{self.key}"
        if self.kind == "kernel":
            return f"kernel/out/{self.name}-{self.key}"
        return f"initramfs/{self.key}"

    def lock(self, root):
        """The lock the build script takes while it writes this entry."""
        if self.kind == "qemu":
            return os.path.join(root, "qemu", ".lock")
        if self.kind == "kernel":
            return os.path.join(root, "kernel", "tree", f".lock-{self.name}-{self.key}")
        return os.path.join(root, "initramfs", ".lock")

    def complete(self, d):
        """Whether directory d holds a finished entry (as the build script
        would decide before building)."""
        need = list(self.REQUIRED[self.kind]) + ([".complete"] if self.kind == "qemu" else [])
        return all(os.path.isfile(os.path.join(d, f)) for f in need)

    def recipe(self):
        return "scripts/" + " ".join(self.command + ["--print-key"])


def run_script(argv):
    # a tracked child: a stopping signal stops it with platter (issue 39:
    # an interrupted cache export left build-kernel --print-key running)
    ran = child.run([os.path.join(SCRIPTS, argv[0])] + argv[1:], stdin=subprocess.DEVNULL)
    if ran.why:
        err = (ran.err.strip().splitlines() or [ran.why])[-1]
        raise Refused(f"scripts/{' '.join(argv)} failed: {err}")
    return ran.out


def current_entries(kernels=()):
    """The entries this checkout would use.  Each asks its build script for
    its key and inputs (two script runs, a fraction of a second each): side
    by side, as every cache command starts here."""
    plan = [("qemu", "qemu", ["build-qemu"], None)]
    variants = run_script(["build-kernel", "--list"]).split()
    for v in variants:
        plan.append(("kernel", v, ["build-kernel", v], None))
    for text in kernels:
        if text in variants:
            continue
        spec, label = kernel_spec(text)
        if spec not in [p[3] for p in plan]:
            plan.append(("kernel", label, ["build-kernel", spec], spec))
    plan.append(("initramfs", "initramfs", ["build-initramfs"], None))
    plan.append(("initramfs", "initramfs-fio", ["build-initramfs", "--fio"], None))
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        # map keeps the plan's order and raises the first entry's Refused
        return list(pool.map(lambda p: Entry(*p), plan))


def kernel_spec(text):
    """--kernel SPEC: the spec build-kernel is given for a cell (a tree's
    revision resolved to its commit, absolute paths) and its label: they
    name the cache entry, as build-kernel names it."""
    try:
        k = kernelspec.parse(text, os.getcwd())
    except kernelspec.Error as e:
        raise Refused(f"--kernel: {e}")
    if k["kind"] == "bzimage":
        raise Refused(f"--kernel {short(text)}: a prebuilt bzImage is not in the cache")
    spec = kernelspec.run_spec(k)
    return spec, kernelspec.label(spec)


def cache_dirs(root):
    """Every entry directory in the cache: (relative path, kind)."""
    pats = (("qemu", r"[0-9a-f]{16}", "qemu"), ("kernel/out", r"[A-Za-z0-9._-]+-[0-9a-f]{16}",
            "kernel"), ("initramfs", r"[0-9a-f]{16}", "initramfs"))
    for sub, pat, kind in pats:
        try:
            names = sorted(os.listdir(os.path.join(root, sub)))
        except OSError:
            continue
        for n in names:
            if re.fullmatch(pat, n) and os.path.isdir(os.path.join(root, sub, n)):
                yield f"{sub}/{n}", kind


def du(path):
    total = 0
    for d, _, files in os.walk(path):
        for f in files:
            p = os.path.join(d, f)
            if not os.path.islink(p):
                total += os.path.getsize(p)
    return total


def mb(n):
    return f"{n / 1e6:.1f} MB"


def cmd_list(kernels=()):
    root = cache_root()
    entries = current_entries(kernels)
    print(f"cache {root}, entries for this checkout's inputs:")
    print(f"  {'kind':10} {'name':14} {'key':16}  state")
    for e in entries:
        d = os.path.join(root, e.path)
        state = (f"present  {mb(du(d))}  {e.path}" if e.complete(d) else
                 "incomplete" if os.path.isdir(d) else "missing")
        print(f"  {e.kind:10} {e.name:14} {e.key:16}  {state}")
    mine = {e.path for e in entries}
    others = [(p, k) for p, k in cache_dirs(root) if p not in mine]
    if others:
        print("other entries (older inputs or another checkout's; never exported):")
        for p, k in others:
            print(f"  {k:10} {p}  {mb(du(os.path.join(root, p)))}")
    return 0


# ---- export -----------------------------------------------------------------

def archive_format(path):
    for suffix, fmt in FORMATS:
        if path.endswith(suffix):
            if fmt == "zst" and not shutil.which("zstd"):
                raise ValueError(f"'{path}': zstd is not installed (apt-get install zstd), "
                                 "or name it .tar.xz or .tar.gz")
            return fmt
    raise ValueError(f"'{path}' does not end in .tar.zst, .tar.xz or .tar.gz")


def entry_files(d):
    """The regular files of an entry directory: {relative path: info}.
    Links (QEMU's firmware) and the .complete marker are made on import."""
    files = {}
    for top, dirs, names in os.walk(d):
        dirs.sort()
        for n in sorted(names):
            p = os.path.join(top, n)
            rel = os.path.relpath(p, d)
            if os.path.islink(p) or not os.path.isfile(p) or rel == ".complete":
                continue
            files[rel] = {"size": os.path.getsize(p), "sha256": sha256_file(p),
                          "mode": 0o755 if os.access(p, os.X_OK) else 0o644}
    return files


def debian_source(e, d):
    """The Debian source version the entry was built from, from its own files."""
    try:
        if e.kind == "qemu":
            with open(os.path.join(d, "VERSION")) as f:
                return next((ln.split(None, 1)[1].strip() for ln in f
                             if ln.startswith("qemu-debian-version ")), None)
        if e.kind == "kernel":
            with open(os.path.join(d, "info")) as f:
                return next((ln.split("=", 1)[1].strip() for ln in f
                             if ln.startswith("debian_source=")), None)
        with open(os.path.join(d, "VERSIONS")) as f:
            return " ".join(ln.strip() for ln in f if "=" in ln and not ln.startswith("programs="))
    except (OSError, IndexError):
        return None


def host_packages():
    try:
        p = child.run_plain(["dpkg-query", "-W", "-f", "${Package}=${Version}\\n",
                             *HOST_PACKAGES], capture_output=True, text=True)
    except OSError:
        return []
    return sorted(ln for ln in p.stdout.splitlines() if ln and not ln.endswith("="))


def git_commit():
    # a tracked child: a stop ends it with platter
    return paths.git_version(run=child.run_plain, abbrev=12) or "unknown"


class HashingReader:
    """A file read through once, hashed as tar reads it."""

    def __init__(self, f):
        self.f, self.h, self.n = f, hashlib.sha256(), 0

    def read(self, size=-1):
        b = self.f.read(size)
        self.h.update(b)
        self.n += len(b)
        return b


def open_writer(path, fmt):
    """(tarfile, finish): finish() flushes and checks the compressor."""
    out = open(path, "wb")
    if fmt == "zst":
        proc = subprocess.Popen(["zstd", "-q", "-T0", "-c"], stdin=subprocess.PIPE, stdout=out,
                                stderr=subprocess.PIPE)
        tar = tarfile.open(fileobj=proc.stdin, mode="w|", format=tarfile.PAX_FORMAT)

        def finish():
            tar.close()
            proc.stdin.close()
            err = proc.stderr.read().decode(errors="replace").strip()
            if proc.wait() != 0:
                raise Refused(f"zstd failed: {err or proc.returncode}")
            out.close()
        return tar, finish
    tar = tarfile.open(fileobj=out, mode=f"w|{fmt}", format=tarfile.PAX_FORMAT)

    def finish():
        tar.close()
        out.close()
    return tar, finish


def tar_info(name, size, mode, mtime):
    ti = tarfile.TarInfo(name)
    ti.size, ti.mode, ti.mtime = size, mode, int(mtime)
    ti.uid = ti.gid = 0
    ti.uname = ti.gname = "root"
    return ti


def cmd_export(path, kernels=()):
    fmt = archive_format(path)
    root = cache_root()
    out_dir = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(out_dir) or not os.access(out_dir, os.W_OK | os.X_OK):
        raise Refused(f"cannot write {path}: {out_dir} is not a writable directory")
    entries = current_entries(kernels)
    present = [e for e in entries if e.complete(os.path.join(root, e.path))]
    if not present:
        raise Refused(f"nothing to export: {root} holds no build for this checkout's inputs "
                      "(see platter cache list)")
    manifest = {"version": VERSION, "platter_commit": git_commit(),
                "created": datetime.datetime.now(datetime.timezone.utc).strftime(
                    "%Y-%m-%dT%H:%M:%SZ"),
                "debian_packages": host_packages(), "entries": []}
    for e in present:
        d = os.path.join(root, e.path)
        manifest["entries"].append({
            "kind": e.kind, "name": e.name, "key": e.key, "recipe": e.recipe(),
            "inputs": e.inputs, "debian_source": debian_source(e, d),
            "files": entry_files(d), **({"spec": e.spec} if e.spec else {})})
    blob = json.dumps(manifest, indent=1, sort_keys=True).encode() + b"\n"
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        tar, finish = open_writer(tmp, fmt)
        tar.addfile(tar_info(MANIFEST, len(blob), 0o644, time.time()), io.BytesIO(blob))
        for m in manifest["entries"]:
            e = next(x for x in present if x.kind == m["kind"] and x.name == m["name"])
            for rel, info in m["files"].items():
                p = os.path.join(root, e.path, rel)
                with open(p, "rb") as f:
                    st = os.fstat(f.fileno())
                    if st.st_size != info["size"]:
                        raise Refused(f"{p} changed while exporting (a build running?)")
                    r = HashingReader(f)
                    tar.addfile(tar_info(f"{e.path}/{rel}", info["size"], info["mode"],
                                         st.st_mtime), r)
                    if r.h.hexdigest() != info["sha256"]:
                        raise Refused(f"{p} changed while exporting (a build running?)")
        finish()
        os.replace(tmp, path)
    except OSError as e:
        raise Refused(f"cannot write {path}: {e.strerror or e}")
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    for m in manifest["entries"]:
        size = sum(f["size"] for f in m["files"].values())
        print(f"platter: exported {m['kind']} {m['name']} {m['key']} ({mb(size)})",
              file=sys.stderr)
    missing = [f"{e.kind} {e.name}" for e in entries if e not in present]
    if missing:
        print(f"platter: not in the cache, not exported: {', '.join(missing)}", file=sys.stderr)
    print(path)
    return 0


# ---- import -----------------------------------------------------------------

def compression(path):
    """zst, xz or gz, from the file's first bytes; Refused otherwise."""
    head = file_head(path, 6, lambda why: Refused(f"{path}: {why}"))
    if head[:4] == b"\x28\xb5\x2f\xfd":
        if not shutil.which("zstd"):
            raise Refused(f"{path} is zstd-compressed and zstd is not installed "
                          "(apt-get install zstd)")
        return "zst"
    if head == b"\xfd7zXZ\x00":
        return "xz"
    if head[:2] == b"\x1f\x8b":
        return "gz"
    raise Refused(f"{path}: not a platter cache archive (not zstd, xz or gzip compressed)")


def open_reader(path):
    """(tarfile in stream mode, finish, process): finish() reads to the end
    of the compressed stream and checks it."""
    fmt = compression(path)
    f = open(path, "rb")
    if fmt == "zst":
        proc = subprocess.Popen(["zstd", "-q", "-d", "-c"], stdin=f, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        f.close()

        def finish():
            while proc.stdout.read(1 << 20):
                pass
            err = proc.stderr.read().decode(errors="replace").strip().splitlines()
            if proc.wait() != 0:
                raise Refused(f"{path}: truncated or corrupt archive "
                              f"(zstd: {err[-1] if err else proc.returncode})")
        return tarfile.open(fileobj=proc.stdout, mode="r|"), finish, proc
    z = lzma.open(f) if fmt == "xz" else gzip.open(f)

    def finish_plain():
        # to the end of the compressed stream: its check and a truncation
        # after the tar's last member show only there
        while z.read(1 << 20):
            pass
        f.close()
    return tarfile.open(fileobj=z, mode="r|"), finish_plain, None


def check_manifest(m, current, where):
    """The manifest's entries, each matched with the current checkout's:
    [(Entry, files)].  Refused on any doubt."""
    # (True == 1 in Python: a version must be an integer, not a boolean)
    if not isinstance(m, dict) or type(m.get("version")) is not int \
            or m.get("version") != VERSION:
        v = m.get("version") if isinstance(m, dict) else None
        raise Refused(f"{where}: manifest version {short(json.dumps(v), 20)[1:-1]}, "
                      f"expected {VERSION}")
    if not isinstance(m.get("entries"), list) or not m["entries"]:
        raise Refused(f"{where}: manifest has no entries")
    by = {(e.kind, e.name): e for e in current}
    out, seen = [], set()
    for i, me in enumerate(m["entries"]):
        w = f"{where}: entries[{i}]"
        if not isinstance(me, dict) or not all(isinstance(me.get(k), str)
                                               for k in ("kind", "name", "key")):
            raise Refused(f"{w}: needs kind, name and key strings")
        kind, name, key = me["kind"], me["name"], me["key"]
        e = by.get((kind, name))
        if e is None and kind == "kernel" and isinstance(me.get("spec"), str):
            raise Refused(f"{w}: kernel {short(name)} was built from "
                          f"{short(me['spec'], 160)}: name that kernel here with --kernel "
                          "SPEC (its key is checked against your tree or patches); "
                          "nothing imported")
        if e is None:
            raise Refused(f"{w}: {short(kind)} {short(name)} is not an entry of this "
                          "checkout (foreign cache), nothing imported")
        if (kind, name) in seen:
            raise Refused(f"{w}: {kind} {name} appears twice")
        seen.add((kind, name))
        if key != e.key:
            theirs = me.get("inputs") if isinstance(me.get("inputs"), list) else []
            differ = [ln for ln in e.inputs if ln not in theirs] if theirs else []
            hint = (f"; this checkout's inputs not in the archive's: {short('; '.join(differ), 160)}"
                    if differ else "")
            raise Refused(f"{kind} {name}: key {short(key, 20)} is not this checkout's key "
                          f"{e.key} (stale or foreign cache){hint}; nothing imported")
        files = me.get("files")
        if not isinstance(files, dict):
            raise Refused(f"{w}: files must be an object")
        for rel, info in files.items():
            parts = rel.split("/")
            if not all(PART.fullmatch(p) for p in parts) or rel == ".complete" or len(parts) > 8:
                raise Refused(f"{w}: file {short(rel)} is not a plain relative path")
            if (not isinstance(info, dict) or not isinstance(info.get("sha256"), str)
                    or not SHA256.fullmatch(info["sha256"])
                    or type(info.get("size")) is not int or info["size"] < 0
                    or info.get("mode") not in (0o644, 0o755)):
                raise Refused(f"{w}: file {short(rel)}: needs sha256, size and mode 0644 or 0755")
        lacking = [f for f in Entry.REQUIRED[kind] if f not in files]
        if lacking:
            raise Refused(f"{w}: {kind} {name} has no {lacking[0]}")
        out.append((e, files))
    return out


def write_member(tar, m, dest, info):
    """Copy member m to dest (a new file), checking size and sha256."""
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    src = tar.extractfile(m)
    h, n = hashlib.sha256(), 0
    fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, info["mode"])
    with os.fdopen(fd, "wb") as out:
        for block in iter(lambda: src.read(1 << 20), b""):
            h.update(block)
            n += len(block)
            out.write(block)
    os.chmod(dest, info["mode"])
    os.utime(dest, (m.mtime, m.mtime))
    return h.hexdigest(), n


class Lock:
    def __init__(self, path):
        self.path = path

    def __enter__(self):
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        self.f = open(self.path, "a")
        try:
            fcntl.flock(self.f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print(f"platter: waiting for the build holding {self.path}", file=sys.stderr)
            fcntl.flock(self.f, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        self.f.close()


def cmd_import(path, kernels=()):
    if not os.path.isfile(path):
        # name what it is (issue 39: a FIFO or a folder was "no such archive file")
        raise Refused(f"{path}: " + ("not a regular file (an archive is one)"
                                     if os.path.lexists(path) else "no such archive file"))
    compression(path)
    root = cache_root()
    current = current_entries(kernels)
    try:
        os.makedirs(root, exist_ok=True)
        staging = tempfile.mkdtemp(prefix=".import-", dir=root)
    except OSError as e:
        raise Refused(f"cannot write in the cache {root}: {e.strerror or e}")
    try:
        todo = extract_verified(path, current, staging, root)
        for e in todo:
            install(e, staging, root)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return 0


def extract_verified(path, current, staging, root):
    """Read the whole archive into staging, checking everything; the
    entries to install."""
    proc = None
    try:
        tar, finish, proc = open_reader(path)
        first = tar.next()
        if first is None or first.name != MANIFEST or not first.isreg() \
                or first.size > MANIFEST_MAX:
            raise Refused(f"{path}: not a platter cache archive ({MANIFEST} is not "
                          "its first member)")
        try:
            manifest = strictjson.loads(tar.extractfile(first).read())
        except ValueError as e:
            raise Refused(f"{path}: {MANIFEST} is not valid JSON ({e})")
        entries = check_manifest(manifest, current, path)
        expected = {f"{e.path}/{rel}": (e, info) for e, files in entries
                    for rel, info in files.items()}
        skip = {e.path for e, _ in entries if e.complete(os.path.join(root, e.path))}
        seen = set()
        while True:
            m = tar.next()   # (iterating the TarFile would start over)
            if m is None:
                break
            name = m.name
            if name not in expected:
                why = ("an absolute path" if name.startswith("/") else
                       "a path out of its entry" if ".." in name.split("/") else
                       "not in the manifest")
                raise Refused(f"{path}: member {short(name)} is {why}; nothing imported")
            if not m.isreg():
                what = ("a symlink" if m.issym() else "a hard link" if m.islnk() else
                        "a directory" if m.isdir() else "a FIFO" if m.isfifo() else
                        "a device" if m.isdev() else "of another kind")
                raise Refused(f"{path}: member {short(name)} is {what}, not a regular file; "
                              "nothing imported")
            if name in seen:
                raise Refused(f"{path}: member {short(name)} appears twice; nothing imported")
            seen.add(name)
            e, info = expected[name]
            # the tar header gives the member's size: a member larger than
            # the manifest says is refused before a byte of it is staged
            if m.size != info["size"]:
                raise Refused(f"{path}: {name}: {m.size} bytes in the archive, {info['size']} "
                              "in the manifest (tampered or corrupt); nothing imported")
            if e.path in skip:
                dest = os.path.join(staging, ".skipped")
                if os.path.exists(dest):
                    os.unlink(dest)
            else:
                dest = os.path.join(staging, name)
            digest, size = write_member(tar, m, dest, info)
            if size != info["size"] or digest != info["sha256"]:
                raise Refused(f"{path}: {name}: sha256 or size differs from the manifest "
                              "(tampered or corrupt); nothing imported")
        finish()
    except (tarfile.TarError, EOFError, zlib.error, lzma.LZMAError, gzip.BadGzipFile) as e:
        if proc:
            proc.kill()
        raise Refused(f"{path}: truncated or corrupt archive ({e}); nothing imported")
    except OSError as e:
        if proc:
            proc.kill()
        raise Refused(f"cannot extract {path} into {staging}: {e.strerror or e}")
    missing = sorted(set(expected) - seen)
    if missing:
        raise Refused(f"{path}: archive ends before {short(missing[0])} "
                      f"({len(missing)} file(s) missing: truncated?); nothing imported")
    todo = []
    for e, _ in entries:
        d = os.path.join(root, e.path)
        if e.path in skip:
            print(f"platter: {e.kind} {e.name} {e.key}: already in the cache, kept",
                  file=sys.stderr)
        elif os.path.lexists(d) and not e.complete(d):
            raise Refused(f"{d} exists but is not a complete entry (a build interrupted?): "
                          "remove it and import again; nothing imported")
        else:
            todo.append(e)
    return todo


def install(e, staging, root):
    """Rename one verified entry into place, under the build script's lock."""
    src, dest = os.path.join(staging, e.path), os.path.join(root, e.path)
    if e.kind == "qemu":
        run_script(["build-qemu", "--link-firmware", src])
        open(os.path.join(src, ".complete"), "w").close()
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    with Lock(e.lock(root)):
        if os.path.lexists(dest):
            print(f"platter: {e.kind} {e.name} {e.key}: built meanwhile, kept", file=sys.stderr)
            return
        os.rename(src, dest)
    print(f"platter: imported {e.kind} {e.name} {e.key}: {dest}", file=sys.stderr)


def main(action, path=None, kernels=()):
    try:
        if action == "list":
            return cmd_list(kernels)
        if action == "export":
            return cmd_export(path, kernels)
        return cmd_import(path, kernels)
    except Refused as e:
        raise cli.BadInput(f"platter: cache {action}: {e}")
