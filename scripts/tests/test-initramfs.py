#!/usr/bin/python3
"""build-initramfs: one cache key, one initramfs; prints TAP.
usage: test-initramfs.py

The guest programs in the initramfs set the guest's instruction counts,
so its virtual time: an initramfs built under one key must be the same
bytes whatever state the build cache was in.  Builds a copy of this
checkout's tracked files twice, into an empty cache and into one holding
a guest build dir configured before a program existed (a checkout
updated since), and compares the images.  A cache like the second once
made build-initramfs fall back to compiling with cc directly: other
flags, other programs, the same key.  Needs what setup-host installs
(meson, gcc, busybox-static, the mkfs tools, cpio).
"""
import hashlib
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from platterlib import tap  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
# a program the stale build dir does not know
NEW_PROG = "'blk-soak' : [[], [thread_dep]],\n"


def copy_tree(dst):
    files = subprocess.run(["git", "-C", ROOT, "ls-files", "-z", "--cached", "--others",
                            "--exclude-standard"], capture_output=True,
                           check=True).stdout.decode().split("\0")
    for f in filter(None, files):
        src = os.path.join(ROOT, f)
        if os.path.isfile(src):
            os.makedirs(os.path.dirname(os.path.join(dst, f)), exist_ok=True)
            shutil.copy2(src, os.path.join(dst, f))


def build(tree, cache, *args):
    p = subprocess.run([os.path.join(tree, "scripts", "build-initramfs"), *args],
                       env=dict(os.environ, PLATTER_CACHE=cache), capture_output=True,
                       text=True, stdin=subprocess.DEVNULL)
    if p.returncode:
        raise AssertionError(f"build-initramfs {' '.join(args)} failed: {p.stderr[-2000:]}")
    return p.stdout.strip(), p.stderr


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def stale_guest_dir(tree, cache):
    """A guest build dir as an older checkout, without NEW_PROG, left it."""
    mesonbuild = os.path.join(tree, "guest-tests", "meson.build")
    with open(mesonbuild) as f:
        text = f.read()
    assert NEW_PROG in text, f"{NEW_PROG.strip()} is not in guest-tests/meson.build"
    mbuild = os.path.join(cache, "guest-meson-" +
                          hashlib.sha256(tree.encode()).hexdigest()[:16])
    try:
        with open(mesonbuild, "w") as f:
            f.write(text.replace(NEW_PROG, ""))
        subprocess.run(["meson", "setup", mbuild, tree], capture_output=True, check=True)
    finally:
        with open(mesonbuild, "w") as f:
            f.write(text)
    assert os.path.isfile(os.path.join(mbuild, "build.ninja"))


def test_one_key_one_image(tmp):
    tree = os.path.join(tmp, "tree")
    copy_tree(tree)
    fresh, err = build(tree, os.path.join(tmp, "fresh"))
    assert "unbound variable" not in err, f"build-initramfs: {err[-1000:]}"
    stale_cache = os.path.join(tmp, "stale")
    stale_guest_dir(tree, stale_cache)
    again, err = build(tree, stale_cache)
    assert "warning" not in err and "unbound variable" not in err, \
        f"build-initramfs warned: {err[-1000:]}"
    assert os.path.basename(os.path.dirname(fresh)) == os.path.basename(os.path.dirname(again)), \
        "the two builds have different keys"
    assert sha256(fresh) == sha256(again), \
        "the same key gave two initramfs images (a stale guest build dir)"
    # the project's meson.build sets the programs' flags: it is in the key
    key = build(tree, stale_cache, "--print-key")[0]
    with open(os.path.join(tree, "meson.build"), "a") as f:
        f.write("# another line\n")
    assert build(tree, stale_cache, "--print-key")[0] != key, \
        "the key does not cover the project's meson.build"


tap.run([(f.__name__, f) for f in (test_one_key_one_image,)], with_tmpdir=True)
