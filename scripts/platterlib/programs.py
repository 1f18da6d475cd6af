"""Host programs and Debian packages for the guest: one cpio, appended to
the initramfs by run-guest --guest-cpio.

  --with PATH               a host program (an ELF, or a script whose
                            interpreter the guest has), in the guest as
                            /usr/bin/NAME
  --package NAME[:P,...]    a Debian package of this host's distribution
                            (apt-get download), or FILE.deb[:P,...]; with :P,...
                            only the programs P (base names) of it, else
                            every file but its documentation

Each ELF comes with its shared-library closure as ldd finds it (the
package's own library folders first), at the paths the dynamic loader
looks at (SYSTEM_DIRS: never replaced).  The cpio is made once per content (fixed owner, modes and
mtimes, sorted) and kept in $PLATTER_CACHE/programs/KEY/, the .deb files in
$PLATTER_CACHE/packages/ by name and version: the same inputs give the same
bytes, and nothing on the host is read once the guest runs.
"""
import fcntl
import hashlib
import os
import re
import shutil
import stat
import subprocess
import tempfile

from . import child, cli, paths

FORMAT = 1
MTIME = 1767225600          # run-guest's --guest-file cpio uses the same
CPIO_MAX = 384 << 20        # the guest holds the cpio and its files in RAM
NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]*")
PACKAGE = re.compile(r"([a-z0-9][a-z0-9+.-]+)(?:=([A-Za-z0-9.+~:-]+))?")
# what a package's files are for people, not programs
SKIP_DIRS = ("usr/share/doc/", "usr/share/man/", "usr/share/locale/",
             "usr/share/lintian/", "usr/share/info/")
ELF_MAGIC = b"\x7fELF"


def split_package(spec):
    """(a package name or .deb file, the programs named after ':' or None)
    of a --package value: NAME[=VERSION][:P,...] or FILE.deb[:P,...]."""
    at = spec.rfind(".deb:")
    if at >= 0:
        return spec[:at + 4], spec[at + 5:]
    if spec.endswith(".deb") or ":" not in spec:
        return spec, None
    name, progs = spec.split(":", 1)
    return name, progs


def bad(why):
    raise cli.BadInput(f"platter: {why}")


# Folders every initramfs has (build-initramfs), as a folder or, /usr/lib
# without fio, as a link to /lib: the cpio names none of them, since the
# kernel replaces an entry of another type (a link by a folder) when it
# unpacks one; what goes under them is made through whatever is there
SYSTEM_DIRS = {"bin", "sbin", "lib", "lib64", "etc", "usr", "usr/bin", "usr/sbin", "usr/lib"}


def guest_path(path):
    """A package or library path as the cpio holds it."""
    return path.lstrip("/")


def is_elf(path):
    return paths.file_head(path, 4, lambda why: bad(f"{path}: {why}")) == ELF_MAGIC


def closure(prog, lib_dirs):
    """The shared libraries ldd finds for the ELF prog (host paths, the
    loader's included), searching lib_dirs first; a library it cannot
    find is an error naming it."""
    env = dict(os.environ, LC_ALL="C")
    env.pop("LD_PRELOAD", None)
    if lib_dirs:
        env["LD_LIBRARY_PATH"] = ":".join(lib_dirs)
    ran = child.run_plain(["ldd", prog], capture_output=True, env=env)
    out = (ran.stdout or b"").decode("utf-8", "replace")
    err = (ran.stderr or b"").decode("utf-8", "replace")
    if ran.returncode != 0:
        if "not a dynamic executable" in out + err:
            return []       # static: nothing to bring
        bad(f"{prog}: ldd cannot read it: {(err or out).strip().splitlines()[-1:]}")
    libs, missing = [], []
    for ln in out.splitlines():
        m = re.match(r"\s*(\S+) => (\S+) \(0x", ln)
        if m:
            libs.append(m.group(2))
        elif re.match(r"\s*(\S+) => not found", ln):
            missing.append(ln.split()[0])
        else:
            m = re.match(r"\s*(/\S+) \(0x", ln)
            if m:
                libs.append(m.group(1))
    if missing:
        bad(f"{prog} needs {', '.join(missing)}, which neither this host nor the "
            "packages given have (add the package that holds it: --package NAME)")
    return libs


# ---- Debian packages --------------------------------------------------------

def _lock(d):
    os.makedirs(d, exist_ok=True)
    f = open(os.path.join(d, ".platter-lock"), "w")
    fcntl.flock(f, fcntl.LOCK_EX)
    return f


def candidate(name):
    """The version apt would download of package name (this host's lists)."""
    ran = child.run_plain(["apt-cache", "policy", name], capture_output=True,
                          env=dict(os.environ, LC_ALL="C"))
    text = (ran.stdout or b"").decode("utf-8", "replace")
    m = re.search(r"^\s*Candidate:\s*(\S+)", text, re.M)
    if ran.returncode != 0 or not m or m.group(1) == "(none)":
        bad(f"--package {name}: apt knows no such package here "
            "(apt-get update, or give a .deb file)")
    return m.group(1)


def fetch_deb(spec):
    """The cached .deb of spec (NAME or NAME=VERSION), downloaded with
    apt-get download the first time."""
    m = PACKAGE.fullmatch(spec)
    if not m:
        bad(f"--package '{spec}': expected NAME[=VERSION] (a Debian package name), "
            "or a .deb file")
    name, version = m.group(1), m.group(2) or candidate(m.group(1))
    d = os.path.join(paths.cache_root(), "packages")
    with _lock(d):
        quoted = version.replace(":", "%3a")
        have = [f for f in os.listdir(d)
                if f.startswith(f"{name}_{quoted}_") and f.endswith(".deb")]
        if have:
            return os.path.join(d, sorted(have)[0])
        tmp = tempfile.mkdtemp(prefix="download-", dir=d)
        try:
            ran = child.run_plain(["apt-get", "download", "-q", f"{name}={version}"],
                                  capture_output=True, cwd=tmp)
            got = [f for f in os.listdir(tmp) if f.endswith(".deb")]
            if ran.returncode != 0 or len(got) != 1:
                why = (ran.stderr or b"").decode("utf-8", "replace").strip().splitlines()
                raise cli.InfraError(f"platter: --package {name}={version}: apt-get download "
                                     f"failed: {why[-1] if why else 'no .deb'}")
            os.rename(os.path.join(tmp, got[0]), os.path.join(d, got[0]))
            return os.path.join(d, got[0])
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


def unpack_deb(deb):
    """The package's files, unpacked once into the cache: the folder."""
    sha = paths.sha256_file(deb)[:16]
    d = os.path.join(paths.cache_root(), "packages", "tree-" + sha)
    with _lock(os.path.join(paths.cache_root(), "packages")):
        if not os.path.isdir(d):
            tmp = d + ".tmp"
            shutil.rmtree(tmp, ignore_errors=True)
            os.makedirs(tmp)
            ran = child.run_plain(["dpkg-deb", "-x", deb, tmp], capture_output=True)
            if ran.returncode != 0:
                shutil.rmtree(tmp, ignore_errors=True)
                why = (ran.stderr or b"").decode("utf-8", "replace").strip().splitlines()
                bad(f"--package {deb}: not a Debian package dpkg-deb can unpack"
                    f"{': ' + why[-1] if why else ''}")
            os.rename(tmp, d)
    return d


def package_files(tree, only, spec):
    """{guest path: host file} of an unpacked package: every file but the
    documentation, or with `only` just the programs of those base names."""
    files, found = {}, set()
    for top, dirs, names in os.walk(tree):
        dirs.sort()
        for n in sorted(names):
            host = os.path.join(top, n)
            rel = os.path.relpath(host, tree)
            if rel.startswith(SKIP_DIRS):
                continue
            if only is not None:
                if n not in only or not os.path.isfile(host) or os.path.islink(host) \
                        or not os.access(host, os.X_OK):
                    continue
                found.add(n)
            files[guest_path(rel)] = host
    if only is not None and found != only:
        bad(f"--package {spec}: no program named {', '.join(sorted(only - found))} in it")
    if not files:
        bad(f"--package {spec}: it has no files")
    return files


# ---- the cpio ---------------------------------------------------------------

def _entry(out, name, mode, data, ino):
    hdr = "070701" + "".join(f"{v:08x}" for v in (
        ino, mode, 0, 0, 1, MTIME, len(data), 0, 0, 0, 0, len(name) + 1, 0))
    blob = hdr.encode() + name.encode() + b"\0"
    blob += b"\0" * (-len(blob) % 4)
    out.write(blob + data + b"\0" * (-len(data) % 4))


def write_cpio(path, files):
    """A newc cpio of files ({guest path: (mode, bytes or link target)}),
    with every parent folder but the system's before what it holds."""
    dirs = set()
    for p in files:
        parts = p.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            dirs.add("/".join(parts[:i]))
    entries = {d: (stat.S_IFDIR | 0o755, b"") for d in dirs - SYSTEM_DIRS}
    entries.update(files)
    with open(path, "wb") as out:
        for ino, name in enumerate(sorted(entries), 1):
            mode, data = entries[name]
            _entry(out, name, mode, data, ino)
        _entry(out, "TRAILER!!!", 0, b"", 0)


def _content(host):
    """(mode, bytes) for a host file: a link inside a package stays a link,
    anything else is read through."""
    st = os.stat(host)
    if not stat.S_ISREG(st.st_mode):
        bad(f"{host}: not a regular file")
    with open(host, "rb") as f:
        data = f.read()
    return (stat.S_IFREG | (0o755 if st.st_mode & 0o111 else 0o644)), data


def bundle(withs=(), packages=()):
    """The cached cpio holding the programs and packages (None when there
    are none)."""
    if not withs and not packages:
        return None
    files, lib_dirs, elves, trees = {}, [], [], []
    for spec in packages:
        tree_spec, progs = split_package(spec)
        only = None
        if progs is not None:
            only = set(progs.split(","))
            bad_names = [p for p in only if not NAME.fullmatch(p)]
            if bad_names or not progs:
                bad(f"--package '{spec}': expected NAME:PROGRAM[,PROGRAM...]")
        if tree_spec.endswith(".deb"):
            if not os.path.isfile(tree_spec):
                bad(f"--package '{tree_spec}': no such file")
            deb = tree_spec
        else:
            deb = fetch_deb(tree_spec)
        tree = unpack_deb(deb)
        trees.append(tree)
        for top, dirs, names in os.walk(tree):
            if any(n.endswith(".so") or ".so." in n for n in names):
                lib_dirs.append(top)
        for g, host in package_files(tree, only, spec).items():
            if os.path.islink(host):
                files[g] = (stat.S_IFLNK | 0o777, os.readlink(host).encode())
                continue
            files[g] = _content(host)
            if is_elf(host) and os.access(host, os.X_OK):
                elves.append(host)
    names = set()
    for prog in withs:
        n = os.path.basename(prog)
        if not os.path.isfile(prog) or not os.access(prog, os.R_OK | os.X_OK):
            bad(f"--with '{prog}': not an executable regular file")
        if not NAME.fullmatch(n):
            bad(f"--with '{prog}': its name '{n}' is not letters, digits and . _ + -")
        if n in names:
            bad(f"--with '{prog}': a second program named '{n}'")
        names.add(n)
        head = paths.file_head(prog, 4, lambda why: bad(f"--with '{prog}': {why}"))
        if head != ELF_MAGIC and not head.startswith(b"#!"):
            bad(f"--with '{prog}': neither an ELF program nor a script ('#!')")
        files[f"usr/bin/{n}"] = _content(prog)
        if head == ELF_MAGIC:
            elves.append(prog)
    for prog in elves:
        for lib in closure(prog, lib_dirs):
            # a package's own library goes where the package puts it
            tree = next((t for t in trees if lib.startswith(t + os.sep)), None)
            g = guest_path(os.path.relpath(lib, tree) if tree else lib)
            if g not in files:
                files[g] = _content(lib)
    return _store(files)


def _store(files):
    h = hashlib.sha256(f"platter-programs {FORMAT}\n".encode())
    for name in sorted(files):
        mode, data = files[name]
        h.update(f"{name}\0{mode:o}\0{len(data)}\0".encode())
        h.update(hashlib.sha256(data).digest())
    key = h.hexdigest()[:16]
    d = os.path.join(paths.cache_root(), "programs", key)
    out = os.path.join(d, "programs.cpio")
    if os.path.isfile(out):
        return out
    size = sum(len(v[1]) for v in files.values())
    if size > CPIO_MAX:
        bad(f"--with/--package: {size >> 20} MiB of files, more than the guest takes "
            f"({CPIO_MAX >> 20} MiB; name the programs: --package NAME:PROGRAM)")
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".programs-", dir=d)
    os.close(fd)
    try:
        write_cpio(tmp, files)
        os.rename(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return out
