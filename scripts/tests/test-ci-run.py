#!/usr/bin/python3
"""`.ci/run`'s lanes, on stand-in steps; prints TAP.
usage: test-ci-run.py

A copy of .ci/run whose lane functions run stand-in steps (true, false,
sleep) and whose run is only lanes: a failed step fails its lane and the
run, naming the lane, while the other lane runs to its end; an exit
before the lanes are joined stops every lane and all they started; an
unknown lane is refused with status 2.  Nothing is built or booted.
"""
import glob
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from platterlib import tap  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
RUN_MARK = "# ---- the run ----"


def stand_in(tmp, kernels, qemu, run):
    """tmp/.ci/run: .ci/run with these lane bodies and this run."""
    with open(os.path.join(ROOT, ".ci", "run")) as f:
        text = f.read()
    assert RUN_MARK in text, f".ci/run has no '{RUN_MARK}' line"
    for name, body in (("kernels", kernels), ("qemu", qemu)):
        text, n = re.subn(r"\n%s\(\) \{\n.*?\n\}\n" % name,
                          "\n%s() {\n%s\n}\n" % (name, body), text, flags=re.S)
        assert n == 1, f".ci/run has no lane function {name}()"
    text = text.split(RUN_MARK)[0] + RUN_MARK + "\n" + run
    os.makedirs(os.path.join(tmp, ".ci"))
    path = os.path.join(tmp, ".ci", "run")
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o755)
    return path


def run(path, tmp):
    env = dict(os.environ, TMPDIR=tmp)
    return subprocess.run([path], capture_output=True, text=True, env=env, timeout=60)


def ci_logs():
    return set(glob.glob("/tmp/platter-ci.*"))


def a_failed_lane_fails_the_run(tmp):
    before = ci_logs()
    p = run(stand_in(tmp, "    step k1 true\n    step k2 false\n    step k3 true",
                     "    step q1 sleep 1\n    step q2 true",
                     "lane kernels\nlane qemu\njoin kernels\njoin qemu\nverdict\n"),
            tmp)
    assert p.returncode == 1, (p.returncode, p.stdout, p.stderr)
    assert ".ci/run: FAILED: kernels" in p.stderr, p.stderr
    assert "== k2: started" in p.stdout and "== k3:" not in p.stdout, p.stdout
    assert "== q2: passed" in p.stdout and "lane qemu: passed" in p.stdout, p.stdout
    assert ci_logs() <= before, "the lanes' log folder is left behind"


def an_early_exit_stops_the_lanes(tmp):
    mark = f"{os.getpid()}{int(time.time())}"
    sleeper = f"    step s sh -c 'sleep 300; : {mark}'"
    p = run(stand_in(tmp, sleeper, sleeper, "lane kernels\nlane qemu\nfalse\n"), tmp)
    assert p.returncode == 1, (p.returncode, p.stderr)
    time.sleep(0.5)
    left = subprocess.run(["pgrep", "-f", mark], capture_output=True, text=True).stdout.split()
    for pid in left:
        subprocess.run(["kill", pid])
    assert not left, f"processes of a lane outlived .ci/run: {left}"


def an_unknown_lane_is_refused(tmp):
    p = subprocess.run([os.path.join(ROOT, ".ci", "run"), "--lane", "bogus"],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 2 and "no lane 'bogus'" in p.stderr, (p.returncode, p.stderr)


tap.run([("a failed step fails its lane and the run; the other lane ends",
          a_failed_lane_fails_the_run),
         ("an exit before the join stops every lane and what it started",
          an_early_exit_stops_the_lanes),
         ("an unknown lane: status 2", an_unknown_lane_is_refused)], with_tmpdir=True)
