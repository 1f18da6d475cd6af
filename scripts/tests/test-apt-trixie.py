#!/usr/bin/python3
"""scripts/apt-trixie run side by side: prints TAP.

build-qemu and build-kernel fetch their sources through apt-trixie at the
same time on a cold cache.  Each call writes the private sources.list; when
that write happened before the lock, a later call rewrote the file while an
earlier apt was reading it, and apt then saw no deb-src entry and no
package ("You must put some 'deb-src' URIs").  Here a stand-in apt-cache
(first on PATH, no network) holds the lock for a while and notes whether
sources.list changed under it; several calls start while it runs.
"""
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from platterlib import tap  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

FAKE_APT = r'''#!/usr/bin/env python3
import os, sys, time
src = next(a.split("=", 1)[1] for a in sys.argv if a.startswith("Dir::Etc::SourceList="))
def seen():
    st = os.stat(src)
    with open(src) as f:
        return st.st_ino, st.st_mtime_ns, f.read()
first = seen()
time.sleep(float(os.environ["FAKE_APT_HOLD"]))
last = seen()
ok = first == last and "deb-src" in first[2]
with open(os.environ["FAKE_APT_LOG"], "a") as f:
    f.write(("same" if ok else "changed") + "\n")
'''


def check_side_by_side(tmp):
    bindir = os.path.join(tmp, "bin")
    os.makedirs(bindir)
    for name in ("apt-cache", "apt-get"):
        path = os.path.join(bindir, name)
        with open(path, "w") as f:
            f.write(FAKE_APT)
        os.chmod(path, 0o755)
    log = os.path.join(tmp, "log")
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ["PATH"],
               PLATTER_CACHE=os.path.join(tmp, "cache"), FAKE_APT_HOLD="0.4",
               FAKE_APT_LOG=log)
    procs = []
    for _ in range(4):
        procs.append(subprocess.Popen([os.path.join(ROOT, "scripts", "apt-trixie"),
                                       "policy", "linux-source-7.3"], env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      text=True))
        time.sleep(0.1)   # each starts while an earlier one holds the lock
    for p in procs:
        _, err = p.communicate(timeout=60)
        assert p.returncode == 0, err
    with open(log) as f:
        verdicts = f.read().split()
    assert len(verdicts) == 4, verdicts
    assert verdicts == ["same"] * 4, \
        f"sources.list was rewritten while apt was reading it: {verdicts}"


tap.run([("apt-trixie: sources.list never changes under a running apt",
          check_side_by_side)], with_tmpdir=True)
