#!/usr/bin/python3
"""A cell's runtime as fio reads it (issue 27): fio 3.33 reads a plain
--runtime=0.3 as 0 s, no limit, so the guest's fio test passes it in
microseconds (guest-tests/initramfs/lib/fiotime.sh, run here by the host's
sh with the host's fio, the same Debian fio the guest has); and a fio
result that ran past the runtime asked for is reported (fioout.overran).
Prints TAP.  usage: test-fio-runtime.py FIO"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from platterlib import tap, fioout  # noqa: E402

FIO = sys.argv[1]
ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
FIOTIME = os.path.join(ROOT, "guest-tests", "initramfs", "lib", "fiotime.sh")


def fio_runtime(seconds):
    p = subprocess.run(["sh", "-c", f'. "{FIOTIME}" && fio_runtime "$1"', "sh", seconds],
                       capture_output=True, text=True, check=True)
    return p.stdout.strip()


def test_conversion():
    cases = {"0.3": "300000us", "10": "10000000us", "1.5": "1500000us", "0.05": "50000us",
             "007.080": "7080000us", "100000": "100000000000us",
             "0.000000001": "1us", "0.0000015": "2us", "0.000001": "1us"}
    got = {s: fio_runtime(s) for s in cases}
    assert got == cases, got


def test_fio_stops_at_the_runtime():
    """A time-based job of 0.3 s whose size would take far longer: with
    the converted runtime fio stops near 0.3 s (with --runtime=0.3 it
    wrote the whole size)."""
    with tempfile.TemporaryDirectory() as d:
        job = os.path.join(d, "j.fio")
        with open(job, "w") as f:
            f.write("[w]\nioengine=psync\nrw=write\nbs=4k\nsize=64m\ntime_based\n"
                    "rate_iops=1000\n")
        p = subprocess.run([FIO, "--output-format=json", f"--directory={d}",
                            f"--runtime={fio_runtime('0.3')}", job],
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        doc = json.loads(p.stdout[p.stdout.index("{"):])
        ms = doc["jobs"][0]["job_runtime"]
        assert 250 <= ms <= 1000, f"fio ran {ms} ms for a 0.3 s runtime"
        assert fioout.overran(doc, 0.3) is None


def test_overrun_reported():
    doc = {"global options": {"runtime": "300000us"},
           "jobs": [{"job options": {"rw": "write"}, "job_runtime": 2500}]}
    why = fioout.overran(doc, 0.3)
    assert why and "fio ran 2500 ms, not the 0.3 s asked for" in why, why
    doc["jobs"][0]["job_runtime"] = 1200
    assert fioout.overran(doc, 0.3) is None
    doc["jobs"][0]["job options"]["runtime"] = "5"   # the job's own runtime
    doc["jobs"][0]["job_runtime"] = 5000
    assert fioout.overran(doc, 0.3) is None


tap.run([("fiotime.sh: seconds to whole microseconds, never 0", test_conversion),
         ("host fio stops a time-based job at the converted runtime", test_fio_stops_at_the_runtime),
         ("a run longer than the runtime asked for is reported", test_overrun_reported)])
