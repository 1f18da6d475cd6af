#!/usr/bin/env python3
"""Guest cells end to end (needs the patched QEMU and a guest kernel, both
built and cached by the scripts): one short seed-fops cell per kernel run
twice gives byte-identical results, and the mechanism shows in the guest's
own counters.  Prints TAP.  usage: test-platter-guest.py PLATTER_SIM"""
import json, os, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import tap  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
SIM = sys.argv[1]


def compare(out):
    p = subprocess.run([os.path.join(ROOT, "scripts", "platter"), "compare", "seed-fops",
                        "--sim", SIM, "--runtime", "1", "--cells", "seq.*.nvme.*",
                        "-j", "2", "--out", out], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr[-2000:]
    with open(os.path.join(out, "report.json")) as f:
        return json.load(f)


def deterministic_guest_cells(tmp):
    a = compare(os.path.join(tmp, "a"))
    b = compare(os.path.join(tmp, "b"))
    ca = json.dumps(a["cells"], sort_keys=True)
    assert ca == json.dumps(b["cells"], sort_keys=True), "two runs of the same cells differ"
    by = {c["id"]: c for c in a["cells"]}
    base = by["seq.st20000nm007d.nvme.base"]["guest"]["summary"]
    fops = by["seq.st20000nm007d.nvme.fops"]["guest"]["summary"]
    # the fops series removes the flush after each FUA O_DSYNC write
    assert round(base["per_io"]["flushes"], 1) == 1.0, base["per_io"]
    assert fops["per_io"]["flushes"] == 0.0, fops["per_io"]
    assert fops["iops"] > 20 * base["iops"], (base["iops"], fops["iops"])


tap.run([("seed-fops nvme cells: deterministic, one flush per write removed",
          deterministic_guest_cells)], with_tmpdir=True)
