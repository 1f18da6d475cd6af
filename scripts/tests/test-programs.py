#!/usr/bin/python3
"""platterlib/programs: host programs and Debian packages packed for the
guest (platter exec --with/--package, run-guest --guest-cpio), read back
from the cpio: what goes in, where, the same bytes twice, and the inputs
refused with one line naming them.  No guest, no network: the package is
a .deb made here with dpkg-deb."""
import os
import shutil
import stat
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from platterlib import cli, programs, tap  # noqa: E402

RUN_GUEST = os.path.join(HERE, "..", "run-guest")


def read_cpio(path):
    """[(name, mode, mtime, data)] of a newc cpio, up to its trailer."""
    with open(path, "rb") as f:
        blob = f.read()
    out, at = [], 0
    while True:
        hdr = blob[at:at + 110]
        assert hdr[:6] == b"070701", f"{path}: bad magic at {at}"
        field = [int(hdr[6 + 8 * i:14 + 8 * i], 16) for i in range(13)]
        mode, mtime, size, namesize = field[1], field[5], field[6], field[11]
        at += 110
        name = blob[at:at + namesize - 1].decode()
        at += namesize
        at += -at % 4
        data = blob[at:at + size]
        at += size
        at += -at % 4
        if name == "TRAILER!!!":
            return out
        out.append((name, mode, mtime, data))


def env_cache(tmp):
    os.environ["PLATTER_CACHE"] = os.path.join(tmp, "cache")


def refused(fn, *want):
    try:
        fn()
    except cli.BadInput as e:
        for w in want:
            assert w in str(e), f"{w!r} not in {str(e)!r}"
        assert "\n" not in str(e), str(e)
        return
    raise AssertionError(f"accepted, expected an error naming {want}")


def host_elf(tmp):
    """A host ELF: its closure, where it goes, folders first, fixed times."""
    env_cache(tmp)
    prog = shutil.which("env")
    cpio = programs.bundle([prog])
    entries = read_cpio(cpio)
    names = [e[0] for e in entries]
    assert "usr/bin/env" in names, names
    assert any(n.endswith("/libc.so.6") for n in names), names
    assert any("ld-linux" in n for n in names), names
    # no entry for a folder the initramfs has: the kernel would replace
    # /usr/lib, a link to /lib in the guest without fio, by a folder
    assert not set(names) & programs.SYSTEM_DIRS, names
    for i, (name, mode, mtime, data) in enumerate(entries):
        assert mtime == programs.MTIME, (name, mtime)
        parent = name.rpartition("/")[0]
        assert not parent or parent in programs.SYSTEM_DIRS or parent in names[:i], \
            f"{name} before its folder"
    with open(prog, "rb") as f:
        assert dict((e[0], e[3]) for e in entries)["usr/bin/env"] == f.read()
    # the same inputs: the same file, and the same bytes from an empty cache
    assert programs.bundle([prog]) == cpio
    with open(cpio, "rb") as f:
        first = f.read()
    os.environ["PLATTER_CACHE"] = os.path.join(tmp, "cache2")
    with open(programs.bundle([prog]), "rb") as f:
        assert f.read() == first, "a second pack differs"


def bad_programs(tmp):
    env_cache(tmp)
    text = os.path.join(tmp, "notes.txt")
    with open(text, "w") as f:
        f.write("hello\n")
    os.chmod(text, 0o755)
    script = os.path.join(tmp, "go.sh")
    with open(script, "w") as f:
        f.write("#!/bin/sh\necho hi\n")
    os.chmod(script, 0o755)
    names = [e[0] for e in read_cpio(programs.bundle([script]))]
    assert names == ["usr/bin/go.sh"], names
    refused(lambda: programs.bundle([text]), text, "neither an ELF")
    refused(lambda: programs.bundle([tmp]), tmp, "not an executable regular file")
    refused(lambda: programs.bundle([os.path.join(tmp, "nosuch")]), "nosuch")
    os.makedirs(os.path.join(tmp, "b"))
    other = os.path.join(tmp, "b", "go.sh")
    shutil.copy(script, other)
    refused(lambda: programs.bundle([script, other]), "a second program named 'go.sh'")
    odd = os.path.join(tmp, "a b")
    shutil.copy(script, odd)
    refused(lambda: programs.bundle([odd]), "'a b'", "letters, digits")
    refused(lambda: programs.bundle([], ["Not A Package"]), "expected NAME[=VERSION]")
    refused(lambda: programs.bundle([], ["pkg:"]), "NAME:PROGRAM")
    refused(lambda: programs.bundle([], [os.path.join(tmp, "none.deb")]), "no such file")
    refused(lambda: programs.bundle([], [text + ".deb"]), "no such file")
    fake = os.path.join(tmp, "fake.deb")
    shutil.copy(text, fake)
    refused(lambda: programs.bundle([], [fake]), fake, "dpkg-deb can unpack")


def build_probe(tmp):
    """A library and a program that needs it (gcc)."""
    src = os.path.join(tmp, "src")
    os.makedirs(src)
    with open(os.path.join(src, "lib.c"), "w") as f:
        f.write("int platter_probe(void) { return 7; }\n")
    with open(os.path.join(src, "main.c"), "w") as f:
        f.write("int platter_probe(void);\nint main(void) { return platter_probe(); }\n")
    lib = os.path.join(src, "libplatterprobe.so")
    subprocess.run(["cc", "-shared", "-fPIC", "-o", lib, os.path.join(src, "lib.c")],
                   check=True)
    prog = os.path.join(src, "probe")
    subprocess.run(["cc", "-o", prog, os.path.join(src, "main.c"), "-L", src,
                    "-lplatterprobe"], check=True)
    return lib, prog


def missing_library(tmp):
    """A library neither the host nor a package has is named."""
    env_cache(tmp)
    lib, prog = build_probe(tmp)
    os.unlink(lib)
    refused(lambda: programs.bundle([prog]), prog, "libplatterprobe.so",
            "--package NAME")


def deb_package(tmp):
    """A .deb: its files at their paths (usr/lib under the guest's /lib),
    its documentation left out, its own library found for its program;
    :PROGRAM takes only that program and what it needs."""
    env_cache(tmp)
    lib, prog = build_probe(tmp)
    root = os.path.join(tmp, "pkg")
    for d in ("DEBIAN", "usr/bin", "usr/lib/x86_64-linux-gnu", "usr/share/doc/probe",
              "usr/share/probe"):
        os.makedirs(os.path.join(root, d))
    with open(os.path.join(root, "DEBIAN", "control"), "w") as f:
        f.write("Package: platter-probe\nVersion: 1.0\nArchitecture: amd64\n"
                "Maintainer: platter <platter@example.org>\nDescription: a probe\n")
    shutil.copy(prog, os.path.join(root, "usr/bin/probe"))
    shutil.copy(prog, os.path.join(root, "usr/bin/probe2"))
    shutil.copy(lib, os.path.join(root, "usr/lib/x86_64-linux-gnu/libplatterprobe.so"))
    for rel in ("usr/share/doc/probe/README", "usr/share/probe/data"):
        with open(os.path.join(root, rel), "w") as f:
            f.write("x\n")
    deb = os.path.join(tmp, "probe.deb")
    subprocess.run(["dpkg-deb", "--root-owner-group", "-b", root, deb], check=True,
                   stdout=subprocess.DEVNULL)
    os.unlink(lib)      # the package's own copy must be the one found
    names = [e[0] for e in read_cpio(programs.bundle([], [deb]))]
    for want in ("usr/bin/probe", "usr/bin/probe2", "usr/share/probe/data",
                 "usr/lib/x86_64-linux-gnu/libplatterprobe.so"):
        assert want in names, (want, names)
    assert not [n for n in names if "doc" in n.split("/")], names
    entries = read_cpio(programs.bundle([], [f"{deb}:probe"]))
    names = [e[0] for e in entries]
    assert "usr/bin/probe" in names and "usr/bin/probe2" not in names, names
    assert "usr/share/probe/data" not in names, names
    assert "usr/lib/x86_64-linux-gnu/libplatterprobe.so" in names, names
    modes = {e[0]: e[1] for e in entries}
    assert stat.S_IMODE(modes["usr/bin/probe"]) == 0o755, oct(modes["usr/bin/probe"])
    refused(lambda: programs.bundle([], [f"{deb}:nosuch"]), "no program named nosuch")


def split_package(tmp):
    """--package values: a name, a version, a .deb file, each with or
    without its programs."""
    cases = {"postgresql-15": ("postgresql-15", None),
             "postgresql-15:pg_test_fsync": ("postgresql-15", "pg_test_fsync"),
             "fio=3.33-3:fio,a": ("fio=3.33-3", "fio,a"),
             "/x/y.deb": ("/x/y.deb", None), "d:1/y.deb:p": ("d:1/y.deb", "p"),
             "pkg:": ("pkg", "")}
    for spec, want in cases.items():
        assert programs.split_package(spec) == want, (spec, programs.split_package(spec))


def run_guest_cpio(tmp):
    """run-guest --check refuses a --guest-cpio that is not a newc cpio."""
    text = os.path.join(tmp, "x.cpio")
    with open(text, "w") as f:
        f.write("not a cpio\n")
    for arg, want in ((text, "not a newc cpio"), (tmp, "not a readable regular file")):
        p = subprocess.run([RUN_GUEST, "--check", "--guest-cpio", arg, "hello"],
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 2 and want in p.stderr, (p.returncode, p.stderr)


tap.run([("a host ELF: its libraries, where they go, the same bytes twice", host_elf),
         ("scripts taken; non-programs, folders, clashes and bad packages refused", bad_programs),
         ("a library nobody has is named", missing_library),
         ("a .deb package: its paths, its own library, :PROGRAM", deb_package),
         ("--package values split into package and programs", split_package),
         ("run-guest --guest-cpio: not a cpio refused", run_guest_cpio)],
        with_tmpdir=True)
