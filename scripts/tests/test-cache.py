#!/usr/bin/python3
"""platter cache list/export/import on fake caches; prints TAP.
usage: test-cache.py

Each cache is a temporary PLATTER_CACHE holding small fake files laid out
like real entries, under the keys the build scripts print (--print-key):
nothing is built, downloaded or booted.
"""
import io
import json
import os
import subprocess
import sys
import tarfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from platterlib import tap  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SCRIPTS = os.path.join(ROOT, "scripts")
PLATTER = os.path.join(SCRIPTS, "platter")


def key(*argv):
    return subprocess.run([os.path.join(SCRIPTS, argv[0]), *argv[1:], "--print-key"],
                          capture_output=True, text=True, check=True).stdout.strip()


def write(path, data, mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    os.chmod(path, mode)


def populate(cache):
    """Fake entries for this checkout (qemu, base and fops kernels, the
    initramfs), one stale QEMU and one unfinished kernel."""
    q = os.path.join(cache, "qemu", key("build-qemu"))
    write(f"{q}/bin/qemu-system-x86_64", b"\x7fELF fake qemu\n" * 100, 0o755)
    write(f"{q}/tests/hddmodel-test", b"\x7fELF fake qtest\n", 0o755)
    write(f"{q}/share/platter/profiles/ideal.profile", b"name = ideal\n")
    write(f"{q}/VERSION", b"qemu-debian-version 1:10.0.13+ds-0+deb13u1\n")
    write(f"{q}/build.log", b"log\n")
    subprocess.run([os.path.join(SCRIPTS, "build-qemu"), "--link-firmware", q], check=True)
    os.symlink("/etc/passwd", f"{q}/share/qemu/not-firmware")   # never exported
    write(f"{q}/.complete", b"")
    for v in ("base", "fops"):
        k = os.path.join(cache, "kernel", "out", f"{v}-{key('build-kernel', v)}")
        write(f"{k}/bzImage", f"fake {v} bzImage\n".encode() * 1000)
        write(f"{k}/config", b"CONFIG_BLOCK=y\n")
        write(f"{k}/info", f"variant={v}\ndebian_source=linux-source-7.3=7.3.4-1~bpo13+1\n"
              .encode())
    # unfinished: no info, so neither complete nor exported
    write(os.path.join(cache, "kernel", "out", f"xfs-{key('build-kernel', 'xfs')}",
                       "bzImage"), b"half\n")
    i = os.path.join(cache, "initramfs", key("build-initramfs"))
    write(f"{i}/initramfs.cpio", b"070701fake cpio\n" * 50)
    write(f"{i}/VERSIONS", b"busybox-static=1\nprograms=meson\n")
    write(os.path.join(cache, "qemu", "0123456789abcdef", "bin", "qemu-system-x86_64"), b"old")
    write(os.path.join(cache, "qemu", "0123456789abcdef", ".complete"), b"")


def platter(cache, *args):
    env = dict(os.environ, PLATTER_CACHE=cache, LC_ALL="C")
    return subprocess.run([PLATTER, *args], capture_output=True, text=True, env=env,
                          stdin=subprocess.DEVNULL, timeout=120)


def ok(p):
    assert p.returncode == 0 and "Traceback" not in p.stderr, (p.returncode, p.stderr)
    return p


def snapshot(cache, skip=("qemu/0123456789abcdef",)):
    """{relative path: ('file', bytes, mode) | ('link', target)} of the
    entry directories (locks and the stale fixture left out)."""
    out = {}
    for top, dirs, files in os.walk(cache):
        dirs.sort()
        for n in dirs + files:
            p = os.path.join(top, n)
            rel = os.path.relpath(p, cache)
            if n.startswith(".lock") or rel.startswith(skip):
                continue
            if os.path.islink(p):
                out[rel] = ("link", os.readlink(p))
            elif os.path.isfile(p):
                out[rel] = ("file", open(p, "rb").read(), os.stat(p).st_mode & 0o777)
    return out


def exported(snap):
    """What an import should reproduce: complete entries of this checkout,
    without the link that is not firmware."""
    return {k: v for k, v in snap.items()
            if not k.startswith("kernel/out/xfs-") and not k.endswith("not-firmware")}


def test_list(tmp):
    a = os.path.join(tmp, "a")
    populate(a)
    out = ok(platter(a, "cache", "list")).stdout
    lines = {ln.split()[1]: ln for ln in out.splitlines() if ln.startswith("  ") and
             len(ln.split()) > 3}
    assert "present" in lines["qemu"] and "present" in lines["base"], out
    assert "missing" in lines["all"] and "incomplete" in lines["xfs"], out
    assert "qemu/0123456789abcdef" in out, out


def test_roundtrip(tmp):
    a, b = os.path.join(tmp, "a"), os.path.join(tmp, "b")
    populate(a)
    arc = os.path.join(tmp, "a.tar.zst")
    p = ok(platter(a, "cache", "export", arc))
    assert p.stdout.strip() == arc, p.stdout
    assert ("not exported: kernel xfs, kernel all, kernel fops-broken, kernel xfs-broken, "
            "initramfs initramfs-fio") in p.stderr, p.stderr
    raw = subprocess.run(["zstd", "-dc", arc], capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(raw)) as t:
        members = t.getmembers()
        assert members[0].name == "manifest.json", members[0].name
        assert all(m.isreg() for m in members), [m.name for m in members if not m.isreg()]
        names = [m.name for m in members]
        man = json.load(t.extractfile(members[0]))
    assert not any("0123456789abcdef" in n or "/xfs-" in n or "share/qemu/" in n
                   or n.endswith(".complete") for n in names), names
    assert man["version"] == 1 and man["platter_commit"], man
    kinds = sorted((e["kind"], e["name"]) for e in man["entries"])
    assert kinds == [("initramfs", "initramfs"), ("kernel", "base"), ("kernel", "fops"),
                     ("qemu", "qemu")], kinds
    for e in man["entries"]:
        assert e["recipe"].startswith("scripts/build-") and e["recipe"].endswith("--print-key")
        assert e["inputs"] and all(len(f["sha256"]) == 64 for f in e["files"].values()), e
    assert [e["debian_source"] for e in man["entries"] if e["kind"] == "qemu"] == \
        ["1:10.0.13+ds-0+deb13u1"], man["entries"]
    ok(platter(b, "cache", "import", arc))
    want = exported(snapshot(a))
    assert snapshot(b) == want, sorted(set(snapshot(b)) ^ set(want))
    assert not [n for n in os.listdir(b) if n.startswith(".import-")]
    # again: the entries are present and kept as they are
    inode = os.stat(os.path.join(b, [k for k in want if k.endswith("bzImage")][0])).st_ino
    p = ok(platter(b, "cache", "import", arc))
    assert p.stderr.count("already in the cache, kept") == 4, p.stderr
    assert os.stat(os.path.join(b, [k for k in want if k.endswith("bzImage")][0])).st_ino == inode
    assert snapshot(b) == want
    assert "present" in ok(platter(b, "cache", "list")).stdout


def test_builds_find_the_import(tmp):
    """After an import, the build scripts answer from it: nothing to
    download, extract or build (a fake proxy makes any download fail)."""
    a, b = os.path.join(tmp, "a"), os.path.join(tmp, "b")
    populate(a)
    arc = os.path.join(tmp, "a.tar.gz")
    ok(platter(a, "cache", "export", arc))
    ok(platter(b, "cache", "import", arc))
    env = dict(os.environ, PLATTER_CACHE=b, http_proxy="http://127.0.0.1:9",
               https_proxy="http://127.0.0.1:9")

    def path(*argv):
        p = subprocess.run([os.path.join(SCRIPTS, argv[0]), *argv[1:]], capture_output=True,
                           text=True, env=env, timeout=60, stdin=subprocess.DEVNULL)
        assert p.returncode == 0 and "cached" in p.stderr, (argv, p.returncode, p.stderr)
        return p.stdout.strip()
    assert path("build-qemu", "--cached-only", "--print-path") == \
        f"{b}/qemu/{key('build-qemu')}/bin/qemu-system-x86_64"
    assert path("build-kernel", "base") == f"{b}/kernel/out/base-{key('build-kernel', 'base')}/bzImage"
    assert path("build-kernel", "--info", "fops") == \
        f"{b}/kernel/out/fops-{key('build-kernel', 'fops')}/info"
    assert path("build-initramfs") == f"{b}/initramfs/{key('build-initramfs')}/initramfs.cpio"
    assert not os.path.exists(os.path.join(b, "kernel", "debs"))
    assert not os.listdir(os.path.join(b, "qemu", "src"))   # nothing downloaded


def test_is_cached(tmp):
    """build-kernel --is-cached answers from the cache alone: platter asks
    it before starting the kernel source's download beside QEMU's build."""
    a = os.path.join(tmp, "a")
    populate(a)
    env = dict(os.environ, PLATTER_CACHE=a, http_proxy="http://127.0.0.1:9")

    def rc(spec):
        return subprocess.run([os.path.join(SCRIPTS, "build-kernel"), "--is-cached", spec],
                              capture_output=True, env=env, timeout=60).returncode
    assert rc("base") == 0 and rc("fops") == 0
    assert rc("xfs") == 1, "an output without info is not complete"
    assert rc("all") == 1
    assert not os.path.exists(os.path.join(a, "kernel", "debs")), "--is-cached downloaded"


def test_lookup_does_not_wait_for_a_build(tmp):
    """A cached QEMU is found while another build holds the build lock
    (a lookup once queued behind someone's --dev-tree build for minutes)."""
    populate(tmp)
    os.makedirs(os.path.join(tmp, "qemu", "src"), exist_ok=True)
    lock = os.path.join(tmp, "qemu", ".lock")
    holder = subprocess.Popen(["flock", lock, "sleep", "60"])
    try:
        p = subprocess.run([os.path.join(SCRIPTS, "build-qemu"), "--print-path"],
                           capture_output=True, text=True, timeout=20,
                           env=dict(os.environ, PLATTER_CACHE=tmp), stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise AssertionError("build-qemu --print-path waited for the build lock")
    finally:
        holder.kill()
        holder.wait()
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == f"{tmp}/qemu/{key('build-qemu')}/bin/qemu-system-x86_64", p.stdout


def test_xz_and_gzip(tmp):
    a = os.path.join(tmp, "a")
    populate(a)
    want = exported(snapshot(a))
    for suffix in ("tar.xz", "tgz"):
        arc, c = os.path.join(tmp, f"a.{suffix}"), os.path.join(tmp, f"c-{suffix}")
        ok(platter(a, "cache", "export", arc))
        ok(platter(c, "cache", "import", arc))
        assert snapshot(c) == want, suffix


def test_nothing_to_export(tmp):
    p = platter(os.path.join(tmp, "empty"), "cache", "export", os.path.join(tmp, "x.tar.gz"))
    assert p.returncode == 2 and "nothing to export" in p.stderr, p.stderr
    assert not os.path.exists(os.path.join(tmp, "x.tar.gz"))


def read_members(arc):
    with tarfile.open(arc) as t:
        return [(m, t.extractfile(m).read() if m.isreg() else None) for m in t.getmembers()]


def write_members(arc, members):
    with tarfile.open(arc, "w:gz", format=tarfile.PAX_FORMAT) as t:
        for m, data in members:
            if data is not None:
                m.size = len(data)
            t.addfile(m, io.BytesIO(data) if data is not None else None)


def set_manifest(members, edit):
    man = json.loads(members[0][1])
    edit(man)
    members[0] = (members[0][0], json.dumps(man).encode())


def tampered(ms):
    i = next(i for i, (m, _) in enumerate(ms) if m.name.endswith("/bzImage"))
    data = bytearray(ms[i][1])
    data[10] ^= 1
    ms[i] = (ms[i][0], bytes(data))


def foreign_key(ms):
    old = key("build-kernel", "base")

    def edit(man):
        for e in man["entries"]:
            if e["name"] == "base":
                e["key"] = "0" * 16
                e["inputs"] = [ln.replace("recipe 3", "recipe 2") for ln in e["inputs"]]
    set_manifest(ms, edit)
    for m, _ in ms:
        m.name = m.name.replace(f"base-{old}", "base-" + "0" * 16)


def foreign_entry(ms):
    set_manifest(ms, lambda man: man["entries"][0].update(name="evil"))


def member(name, data=b"x", kind=tarfile.REGTYPE, link=""):
    m = tarfile.TarInfo(name)
    m.type, m.linkname = kind, link
    return m, (data if kind == tarfile.REGTYPE else None)


def replaced_by(kind, link):
    """The QEMU binary member turned into a link of this kind."""
    def edit(ms):
        i = next(i for i, (m, _) in enumerate(ms) if m.name.endswith("/qemu-system-x86_64"))
        ms[i] = member(ms[i][0].name, kind=kind, link=link)
    return edit


def bad_path_in_manifest(ms):
    def edit(man):
        e = man["entries"][0]
        e["files"]["../../evil"] = dict(next(iter(e["files"].values())))
    set_manifest(ms, edit)


def raw_manifest(text):
    def edit(ms):
        ms[0] = (ms[0][0], text.encode())
    return edit


def oversized_member(ms):
    """bzImage 4 MiB in the archive, its manifest size unchanged: refused
    on the tar header, before the member is staged (was: copied whole)."""
    i = next(i for i, (m, _) in enumerate(ms) if m.name.endswith("/bzImage"))
    ms[i] = (ms[i][0], bytes(4 << 20))


REFUSALS = [
    ("tampered", tampered, "sha256 or size differs from the manifest"),
    ("foreign key", foreign_key, "is not this checkout's key"),
    ("foreign entry", foreign_entry, "is not an entry of this checkout"),
    ("path traversal", lambda ms: ms.insert(1, member("qemu/../../evil")),
     "is a path out of its entry"),
    ("absolute path", lambda ms: ms.append(member("/tmp/platter-evil")), "is an absolute path"),
    ("stray member", lambda ms: ms.append(member("kernel/out/evil")), "is not in the manifest"),
    ("symlink member", replaced_by(tarfile.SYMTYPE, "/etc/passwd"), "is a symlink"),
    ("hard link member", replaced_by(tarfile.LNKTYPE, "manifest.json"), "is a hard link"),
    ("member twice", lambda ms: ms.append(ms[-1]), "appears twice"),
    ("missing member", lambda ms: ms.pop(), "archive ends before"),
    ("manifest not first", lambda ms: ms.append(ms.pop(0)), "is not its first member"),
    ("manifest version", lambda ms: set_manifest(ms, lambda m: m.update(version=2)),
     "manifest version 2, expected 1"),
    ("path in manifest", bad_path_in_manifest, "is not a plain relative path"),
    # issue 27: a RecursionError traceback, a boolean version taken for 1,
    # a repeated key silently won by the last, a member staged whole
    ("deep manifest", raw_manifest("[" * 100000 + "]" * 100000), "nested too deeply"),
    ("manifest version true", lambda ms: set_manifest(ms, lambda m: m.update(version=True)),
     "manifest version true, expected 1"),
    ("manifest key twice", raw_manifest('{"version": 1, "version": 1, "entries": []}'),
     "the key 'version' appears twice"),
    ("member larger than its manifest size", oversized_member,
     "bytes in the archive"),
]


def refused(cache, arc, frag):
    p = platter(cache, "cache", "import", arc)
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 2 and len(lines) == 1 and frag in lines[0] and \
        "Traceback" not in p.stderr, (p.returncode, p.stderr)
    assert snapshot(cache) == {}, sorted(snapshot(cache))
    assert not [n for n in os.listdir(cache) if n.startswith(".import-")] \
        if os.path.isdir(cache) else True
    assert not os.path.exists("/tmp/platter-evil")


def test_refusals(tmp):
    a = os.path.join(tmp, "a")
    populate(a)
    good = os.path.join(tmp, "good.tar.gz")
    ok(platter(a, "cache", "export", good))
    failed = []
    for n, (name, edit, frag) in enumerate(REFUSALS):
        ms = read_members(good)
        edit(ms)
        arc = os.path.join(tmp, f"bad{n}.tar.gz")
        write_members(arc, ms)
        try:
            refused(os.path.join(tmp, f"c{n}"), arc, frag)
        except AssertionError as e:
            failed.append(f"{name}: {e}")
    assert not failed, "; ".join(failed)
    assert not os.path.exists(os.path.join(tmp, "evil"))


def test_truncated_and_not_an_archive(tmp):
    a = os.path.join(tmp, "a")
    populate(a)
    for suffix in ("tar.zst", "tar.xz", "tar.gz"):
        arc = os.path.join(tmp, f"a.{suffix}")
        ok(platter(a, "cache", "export", arc))
        data = open(arc, "rb").read()
        for n, cut in enumerate((len(data) // 2, len(data) - 40)):
            short = os.path.join(tmp, f"short{n}.{suffix}")
            write(short, data[:cut])
            p = platter(os.path.join(tmp, f"t-{suffix}-{n}"), "cache", "import", short)
            lines = p.stderr.strip().splitlines()
            assert p.returncode == 2 and len(lines) == 1 and "Traceback" not in p.stderr \
                and ("truncated" in lines[0] or "archive ends before" in lines[0]), \
                (suffix, cut, p.stderr)
            assert snapshot(os.path.join(tmp, f"t-{suffix}-{n}")) == {}
    refused(os.path.join(tmp, "r"), os.path.join(ROOT, "README.md"),
            "not a platter cache archive")


def test_complete_entry_never_overwritten(tmp):
    a, c = os.path.join(tmp, "a"), os.path.join(tmp, "c")
    populate(a)
    arc = os.path.join(tmp, "a.tar.gz")
    ok(platter(a, "cache", "export", arc))
    mine = os.path.join(c, "kernel", "out", f"base-{key('build-kernel', 'base')}")
    write(f"{mine}/bzImage", b"built here\n")
    write(f"{mine}/info", b"variant=base\n")
    p = ok(platter(c, "cache", "import", arc))
    assert "kernel base" in p.stderr and "already in the cache, kept" in p.stderr, p.stderr
    assert open(f"{mine}/bzImage", "rb").read() == b"built here\n"
    assert not os.path.exists(f"{mine}/config")
    # an unfinished entry in the way: refused before anything is installed
    d = os.path.join(tmp, "d")
    write(os.path.join(d, "initramfs", key("build-initramfs"), "partial"), b"")
    p = platter(d, "cache", "import", arc)
    assert p.returncode == 2 and "is not a complete entry" in p.stderr, p.stderr
    assert not os.path.exists(os.path.join(d, "qemu"))


def linux_tree(tmp):
    """A git tree kernelspec takes for Linux, two commits."""
    t = os.path.join(tmp, "linux")
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")
    write(os.path.join(t, "scripts", "kconfig", "merge_config.sh"), b"#!/bin/sh\n")
    for n, text in enumerate((b"int a;\n", b"int b;\n")):
        write(os.path.join(t, "block", "fops.c"), text)
        for argv in (["init", "-q"], ["add", "-A"], ["commit", "-qm", f"c{n}"])[n > 0:]:
            subprocess.run(["git", "-C", t, *argv], env=env, check=True, capture_output=True)
    return t, subprocess.run(["git", "-C", t, "rev-parse", "HEAD"], capture_output=True,
                             text=True, check=True).stdout.strip()


def test_tree_and_patches_kernels(tmp):
    """--kernel SPEC carries a tree: or patches: kernel's build, keyed like
    the variants: on import the key comes from the importer's own tree and
    patch files (export carried only the variants before)."""
    a, b = os.path.join(tmp, "a"), os.path.join(tmp, "b")
    populate(a)
    t, head = linux_tree(tmp)
    mine = os.path.join(tmp, "mine.patch")
    # a new file: it applies to any source (the caller's cache may hold the pinned one)
    write(mine, b"--- /dev/null\n+++ b/platter-test.c\n@@ -0,0 +1 @@\n+int c;\n")
    runs = {f"tree:{t}@HEAD": (f"tree:{t}@{head}", f"tree-linux-{head[:12]}"),
            f"patches:{mine}": (f"patches:{mine}", "patches-mine-patch")}
    for spec, label in runs.values():
        k = os.path.join(a, "kernel", "out", f"{label}-{key('build-kernel', spec)}")
        write(f"{k}/bzImage", f"fake {label}\n".encode())
        write(f"{k}/info", f"variant={label}\n".encode())
    kernels = [w for s in runs for w in ("--kernel", s)]
    arc = os.path.join(tmp, "a.tar.gz")
    ok(platter(a, "cache", "export", arc, *kernels))
    with tarfile.open(arc) as tf:
        man = json.load(tf.extractfile("manifest.json"))
    specs = sorted(e.get("spec", "") for e in man["entries"] if e["kind"] == "kernel")
    assert specs == ["", "", sorted(r[0] for r in runs.values())[0],
                     sorted(r[0] for r in runs.values())[1]], specs
    # without --kernel: refused, naming the kernel to give, nothing installed
    p = platter(b, "cache", "import", arc)
    assert p.returncode == 2 and "name that kernel here with --kernel SPEC" in p.stderr and \
        p.stderr.count("\n") == 1, p.stderr
    assert snapshot(b) == {}, sorted(snapshot(b))
    ok(platter(b, "cache", "import", arc, *kernels))
    env = dict(os.environ, PLATTER_CACHE=b)
    for spec, label in runs.values():
        p = subprocess.run([os.path.join(SCRIPTS, "build-kernel"), spec], capture_output=True,
                           text=True, env=env, timeout=60, stdin=subprocess.DEVNULL)
        assert p.returncode == 0 and "cached" in p.stderr and p.stdout.strip() == \
            f"{b}/kernel/out/{label}-{key('build-kernel', spec)}/bzImage", (spec, p.stderr)
    # a patch file of that name with other content is another key: refused
    other = os.path.join(tmp, "other")
    write(os.path.join(other, "mine.patch"),
          b"--- /dev/null\n+++ b/platter-test.c\n@@ -0,0 +1 @@\n+int d;\n")
    c = os.path.join(tmp, "c")
    p = platter(c, "cache", "import", arc, "--kernel", f"tree:{t}@HEAD", "--kernel",
                f"patches:{other}/mine.patch")
    assert p.returncode == 2 and "kernel patches-mine-patch: key" in p.stderr and \
        "is not this checkout's key" in p.stderr, p.stderr
    assert snapshot(c) == {}, sorted(snapshot(c))
    img = os.path.join(tmp, "bzImage")
    write(img, b"\0" * 0x202 + b"HdrS" + b"\0" * 64)
    p = platter(c, "cache", "export", arc, "--kernel", f"bzimage:{img}")
    assert p.returncode == 2 and "a prebuilt bzImage is not in the cache" in p.stderr, p.stderr


def test_qemu_key_inputs(tmp):
    """QEMU's key covers the patches and the model's sources, not the notes
    beside them: a docs edit in qemu-patches/ rebuilt QEMU (and, in CI, the
    cold path) for nothing."""
    import shutil
    t = os.path.join(tmp, "tree")
    for d in ("qemu-patches", "hw-model", "scripts"):
        shutil.copytree(os.path.join(ROOT, d), os.path.join(t, d), symlinks=True,
                        ignore=shutil.ignore_patterns("__pycache__"))

    def qkey():
        return subprocess.run([os.path.join(t, "scripts", "build-qemu"), "--print-key"],
                              capture_output=True, text=True, check=True).stdout.strip()
    k0 = qkey()
    assert k0 == key("build-qemu"), (k0, key("build-qemu"))
    with open(os.path.join(t, "qemu-patches", "README.md"), "a") as f:
        f.write("a note\n")
    assert qkey() == k0, "a note in qemu-patches/README.md changed the key"
    series = os.path.join(t, "qemu-patches", "series")
    with open(series, "a") as f:
        f.write("# a comment\n")
    assert qkey() != k0, "qemu-patches/series is a build input"


def fake_qemu_source(src_dir, upstream):
    """A tiny Debian source package named qemu (3.0 quilt, as Debian's is),
    built with dpkg-source -b into SRC_DIR: enough for build-qemu to extract."""
    import shutil
    work = os.path.join(src_dir, "build")
    tree = os.path.join(work, f"qemu-{upstream}")
    write(os.path.join(tree, "VERSION"), b"10.0.99\n")
    subprocess.run(["tar", "-C", work, "-cJf",
                    os.path.join(work, f"qemu_{upstream}.orig.tar.xz"), f"qemu-{upstream}"],
                   check=True)
    write(os.path.join(tree, "debian", "source", "format"), b"3.0 (quilt)\n")
    write(os.path.join(tree, "debian", "control"),
          b"Source: qemu\nMaintainer: t <t@localhost>\n\nPackage: qemu\nArchitecture: any\n"
          b"Description: fake\n fake\n")
    write(os.path.join(tree, "debian", "changelog"),
          f"qemu (1:{upstream}-0) unstable; urgency=medium\n\n  * fake\n\n"
          " -- t <t@localhost>  Mon, 07 Dec 2026 00:00:00 +0000\n".encode())
    write(os.path.join(tree, "debian", "rules"), b"#!/usr/bin/make -f\n", 0o755)
    subprocess.run(["dpkg-source", "-b", f"qemu-{upstream}"], cwd=work, check=True,
                   capture_output=True)
    for f in os.listdir(work):
        if f.startswith("qemu_"):
            shutil.move(os.path.join(work, f), os.path.join(src_dir, f))
    shutil.rmtree(work)


def test_killed_extraction_does_not_stop_the_next_build(tmp):
    """A build killed while dpkg-source extracts leaves its
    qemu_*.orig.tar.*.tmp-extract.* directory in the work tree (dpkg-source
    removes it only when it exits).  The next build removed the tarball copy
    with rm -f, which fails on that directory: every later build failed
    there (found in CI).  It must go on to the series."""
    cache = os.path.join(tmp, "cache")
    upstream = "10.0.99+ds"
    fake_qemu_source(os.path.join(cache, "qemu", "src"), upstream)
    stale = os.path.join(cache, "qemu", "work-1_10.0.99_ds-0",
                         f"qemu_{upstream}.orig.tar.xz.tmp-extract.AbC12")
    write(os.path.join(stale, f"qemu-{upstream}", "VERSION"), b"half\n")
    env = dict(os.environ, PLATTER_CACHE=cache, PLATTER_QEMU_VERSION=f"1:{upstream}-0")
    p = subprocess.run([os.path.join(SCRIPTS, "build-qemu"), "--jobs", "1"], env=env,
                       capture_output=True, text=True, timeout=300)
    assert "cannot remove" not in p.stderr, p.stderr[-2000:]
    # the fake tree is no QEMU: the series' first patch cannot apply, which
    # is as far as this build can go, and past the extraction
    assert p.returncode != 0 and "does not apply" in p.stderr, (p.returncode, p.stderr[-2000:])
    assert not os.path.exists(stale), "the stale extraction directory is still there"


tap.run([(f.__name__, f) for f in (test_list, test_tree_and_patches_kernels, test_roundtrip,
                                    test_builds_find_the_import, test_is_cached,
                                    test_lookup_does_not_wait_for_a_build, test_xz_and_gzip,
                                    test_nothing_to_export, test_refusals,
                                    test_truncated_and_not_an_archive,
                                    test_complete_entry_never_overwritten,
                                    test_qemu_key_inputs,
                                    test_killed_extraction_does_not_stop_the_next_build)],
        with_tmpdir=True)
