#!/usr/bin/python3
"""Every argument of a guest dsync test reaches the sim's prediction, or
the cell says why there is none (issue 27: --offset and --seed were
dropped, and the sim column showed the offset-0 figure).  Runs compare
--sim-only on a real platter-sim.  Prints TAP.
usage: test-sim-args.py PLATTER_SIM"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from platterlib import tap, expspec, paths  # noqa: E402

SIM = os.path.abspath(sys.argv[1])
PLATTER = os.path.join(paths.ROOT, "scripts", "platter")


def compare(tmp, args):
    spec = json.load(open(os.path.join(expspec.EXPERIMENTS, "seed-fops.json")))
    spec["workloads"] = [{"name": "w", "test": "dsync", "args": args}]
    spec.pop("seed")
    path = os.path.join(tmp, "spec.json")
    with open(path, "w") as f:
        json.dump(spec, f)
    out = os.path.join(tmp, "out")
    p = subprocess.run([PLATTER, "compare", path, "--sim-only", "--sim", SIM, "--runtime",
                        "0.2", "--cells", "*.nvme.base", "--out", out],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    with open(os.path.join(out, "report.json")) as f:
        return json.load(f)["cells"][0]["sim"]


def test_offset_and_seed_reach_the_sim(tmp):
    args = ["--pattern", "rand", "--span", "100G", "--offset", "18000G", "--seed", "7"]
    sim = compare(tmp, args)
    assert "--offset 18000G" in sim["command"] and "--seed 7" in sim["command"], sim["command"]
    direct = subprocess.run([SIM, "--profile", "st20000nm007d", "--runtime", "0.2", "--json",
                             "--policy", "fua+flush", *args], capture_output=True, text=True)
    # the figure is the sim's at that offset and seed, not the offset-0 one
    assert sim["raw"]["iops"] == json.loads(direct.stdout)["iops"], \
        (sim["raw"]["iops"], direct.stdout[:200])


def test_ios_has_no_prediction(tmp):
    sim = compare(tmp, ["--pattern", "seq", "--ios", "100"])
    assert sim["raw"] is None and "--ios" in sim.get("no_prediction", ""), sim


tap.run([("--offset and --seed reach the sim", test_offset_and_seed_reach_the_sim),
         ("--ios: no prediction, and why", test_ios_has_no_prediction)], with_tmpdir=True)
