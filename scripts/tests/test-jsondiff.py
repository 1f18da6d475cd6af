#!/usr/bin/python3
"""jsondiff.paths, what a determinism check prints when two runs differ:
no line for equal values, a line naming the path for each difference (up
to the limit), whatever the nesting.  Prints TAP."""
import json
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from platterlib import tap, jsondiff  # noqa: E402


def check_cases():
    a = {"accounting": {"vcpus": [{"insns": 5, "irqs": 2}, {"insns": 7}]}, "iops": 1.5,
         "run": {"cpu": "plain"}}
    b = json.loads(json.dumps(a))
    assert jsondiff.paths(a, b) == [], jsondiff.paths(a, b)
    b["accounting"]["vcpus"][1]["insns"] = 8
    b["iops"] = 1
    del b["run"]["cpu"]
    b["extra"] = [1]
    got = jsondiff.paths(a, b)
    assert got == ["accounting.vcpus[1].insns: 7 != 8", "extra: only in the second",
                   "iops: 1.5 != 1", "run.cpu: only in the first"], got
    assert jsondiff.paths([1, 2], [1]) == [": 2 items != 1"]
    assert jsondiff.paths(1, True) == ["(top): 1 != True"]     # 1 == True in Python
    long_a, long_b = "x" * 200, "y" * 200
    line = jsondiff.paths(long_a, long_b)[0]
    assert len(line) < 200 and line.endswith("..."), line


def check_generated():
    """Random nested values, one leaf changed: exactly that leaf's path;
    unchanged: nothing; many changed: no more lines than the limit."""
    rng = random.Random(7)

    def value(depth):
        r = rng.random()
        if depth > 3 or r < 0.4:
            return rng.choice([rng.randint(-5, 5), rng.random(), "s" + str(rng.randint(0, 9)),
                               None, True])
        if r < 0.7:
            return [value(depth + 1) for _ in range(rng.randint(1, 4))]
        return {f"k{i}": value(depth + 1) for i in range(rng.randint(1, 4))}

    def leaves(v, at=""):
        if isinstance(v, dict):
            for k, x in v.items():
                yield from leaves(x, f"{at}.{k}" if at else k)
        elif isinstance(v, list):
            for i, x in enumerate(v):
                yield from leaves(x, f"{at}[{i}]")
        else:
            yield at

    def set_leaf(v, path, new):
        parts = path.replace("[", ".[").split(".")
        for p in parts[:-1]:
            v = v[int(p[1:-1])] if p.startswith("[") else v[p]
        last = parts[-1]
        if last.startswith("["):
            v[int(last[1:-1])] = new
        else:
            v[last] = new

    for _ in range(500):
        a = {"top": value(0)}
        assert jsondiff.paths(a, json.loads(json.dumps(a))) == []
        path = rng.choice(list(leaves(a)))
        b = json.loads(json.dumps(a))
        set_leaf(b, path, "changed-" + str(rng.random()))
        got = jsondiff.paths(a, b)
        assert len(got) == 1 and got[0].startswith(path + ":"), (path, got)
        c = json.loads(json.dumps(a))
        for p in leaves(a):
            set_leaf(c, p, "x")
        assert len(jsondiff.paths(a, c, limit=3)) <= 3


def check_tap_keeps_going():
    """The TAP runner (platterlib.tap, every suite's): a check that meets
    platter's own error (cli.BadInput, a SystemExit) is one 'not ok' and
    the checks after it run; it ended the run, with no line for it.  Each
    failure is repeated, short, before the plan."""
    code = ("import sys; sys.path.insert(0, sys.argv[1])\n"
            "from platterlib import tap, cli\n"
            "tap.run([('a', lambda: cli.bad('w', 'boom')), ('b', lambda: None)])\n")
    p = subprocess.run([sys.executable, "-c", code,
                        os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")],
                       capture_output=True, text=True)
    # the failure again, short, before the plan: a log cut to its head and
    # tail still shows why
    assert p.returncode == 1 and p.stdout.splitlines() == [
        "not ok 1 a", "# BadInput: platter: w: boom", "ok 2 b",
        "# not ok 1 a: BadInput: platter: w: boom", "1..2"], (p.returncode, p.stdout)


tap.run([("hand-written cases", check_cases),
         ("generated nested values", check_generated),
         ("the TAP runner goes on past platter's own error", check_tap_keeps_going)])
