"""Stand-ins for the heavy parts of a guest cell, shared by the tests that
drive platter without building anything (test-platter.py, the signals
family of test-properties.py): cache entries under this checkout's keys,
and a QEMU that runs until it is killed."""
import os
import subprocess

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

# answers run-guest's probes, then runs as a guest does (with a child of its
# own in a process group of its own, which a kill of run-guest's group
# misses) until it is killed; each start appends "PID CHILD" to $STAND_IN_PIDS
QEMU = """#!/bin/sh
case "$*" in *help*) exit 0 ;; esac
/usr/bin/python3 -c 'import os, time; os.setpgid(0, 0); time.sleep(600)' &
echo "$$ $!" >> "$STAND_IN_PIDS"
exec sleep 600
"""


def key(script, *args):
    """The cache key scripts/SCRIPT would look up."""
    return subprocess.run([os.path.join(ROOT, "scripts", script), *args, "--print-key"],
                          capture_output=True, text=True, check=True).stdout.strip()


def fake_cache(cache, variants=("base", "fops")):
    """Cache entries, under this checkout's keys, for the kernels and the
    initramfs: compare's builds find them and build nothing."""
    for v in variants:
        d = os.path.join(cache, "kernel", "out", f"{v}-{key('build-kernel', v)}")
        os.makedirs(d)
        for name, text in (("bzImage", "fake\n"), ("config", "CONFIG_BLOCK=y\n"),
                           ("info", f"variant={v}\n")):
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
    for args in ((), ("--fio",)):
        d = os.path.join(cache, "initramfs", key("build-initramfs", *args))
        os.makedirs(d)
        open(os.path.join(d, "initramfs.cpio"), "w").close()


def write_qemu(path):
    with open(path, "w") as f:
        f.write(QEMU)
    os.chmod(path, 0o755)
    return path


def finish(p, timeout_s, why):
    """p's (stdout, stderr) once it ends; killed and AssertionError(why)
    if it has not ended within timeout_s (a stop that did not stop), with
    what p's threads were waiting in and the end of its stderr."""
    try:
        return p.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        waits = []
        for tid in sorted(os.listdir(f"/proc/{p.pid}/task")) if alive(p.pid) else []:
            try:
                with open(f"/proc/{p.pid}/task/{tid}/wchan") as f:
                    waits.append(f.read().strip() or "-")
            except OSError:
                pass
        p.kill()
        _, err = p.communicate()
        tail = err.decode(errors="replace")[-400:] if err else ""
        raise AssertionError(f"{why} (its threads waiting in {waits}; stderr ends {tail!r})")


def kill_left(pids):
    """Of pids, those still running, killed (so a failing check leaves
    nothing behind either)."""
    left = [int(q) for q in pids if alive(int(q))]
    for q in left:
        try:
            os.kill(q, 9)
        except ProcessLookupError:
            pass
    return left


def alive(pid):
    """pid runs (a zombie does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return False
