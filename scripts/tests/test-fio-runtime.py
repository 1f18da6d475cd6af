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


def host_fio(job_text, runtime_s):
    """The host fio's JSON document for a job file, run with the runtime
    as the guest passes it."""
    with tempfile.TemporaryDirectory() as d:
        job = os.path.join(d, "j.fio")
        with open(job, "w") as f:
            f.write(job_text)
        p = subprocess.run([FIO, "--output-format=json", f"--directory={d}",
                            f"--runtime={fio_runtime(runtime_s)}", job],
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        return json.loads(p.stdout[p.stdout.index("{"):])


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
    doc = host_fio("[w]\nioengine=psync\nrw=write\nbs=4k\nsize=64m\ntime_based\n"
                   "rate_iops=1000\n", "0.3")
    ms = doc["jobs"][0]["job_runtime"]
    assert 250 <= ms <= 1000, f"fio ran {ms} ms for a 0.3 s runtime"
    assert fioout.overran(doc, 0.3) is None


def test_group_reporting_is_not_an_overrun():
    """issue 39: with group_reporting fio's job_runtime is the sum over the
    group's jobs (8 jobs of 0.3 s: about 2400 ms), which failed every cell
    of a user's job without its own runtime; the group's write runtime is
    the longest job's."""
    doc = host_fio("[global]\ngroup_reporting\n[w]\nioengine=psync\nrw=write\nbs=4k\n"
                   "size=64m\ntime_based\nrate_iops=200\nnumjobs=8\n", "0.3")
    assert len(doc["jobs"]) == 1 and doc["jobs"][0]["job_runtime"] > 1500, doc["jobs"]
    assert fioout.overran(doc, 0.3) is None, fioout.overran(doc, 0.3)
    # a group that did run long is still reported
    doc["jobs"][0]["write"]["runtime"] = 2500
    assert "fio ran 2500 ms" in (fioout.overran(doc, 0.3) or ""), doc["jobs"][0]["write"]


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


def test_phases_are_not_summed():
    """Two stonewalled phases, 500 then 1000 IOPS for 0.4 s each: the
    headline is every I/O over the 0.8 s (about 750), not the phases'
    rates added up (1500), and each phase has its own figures."""
    doc = host_fio("[global]\nioengine=psync\nbs=4k\nsize=16m\ntime_based\n"
                   "runtime=400ms\n[slow]\nrw=write\nrate_iops=500\n"
                   "[fast]\nstonewall\nrw=write\nrate_iops=1000\n", "10")
    s = fioout.summary(doc)
    assert 650 <= s["iops"] <= 850, s["iops"]
    ph = {p["group"]: p for p in s["phases"]}
    assert len(ph) == 2 and 420 <= ph[0]["iops"] <= 580 and 850 <= ph[1]["iops"] <= 1150, ph
    assert s["ios"] == sum(p["ios"] for p in ph.values())
    # one group: the jobs' rates add up, as before, and no phases
    one = host_fio("[global]\nioengine=psync\nbs=4k\nsize=16m\ntime_based\n"
                   "runtime=400ms\nrw=write\n[a]\nrate_iops=500\n[b]\nrate_iops=500\n", "10")
    s1 = fioout.summary(one)
    assert "phases" not in s1 and 850 <= s1["iops"] <= 1150, s1
    # "fio_group": a job names its group, whose figures alone are the
    # headline (the fast phase's 1000, not the 750 of both); phases stay
    g = fioout.summary(doc, group_job="fast")
    assert 850 <= g["iops"] <= 1150 and g["ios"] == ph[1]["ios"], g
    assert g["phases"] == s["phases"] and g["lat_us"] != s["lat_us"], g
    try:
        fioout.summary(doc, group_job="nosuch")
    except fioout.Malformed as e:
        assert "fio_group 'nosuch': no such job" in str(e), str(e)
    else:
        raise AssertionError("a fio_group that names no job was taken")


tap.run([("fiotime.sh: seconds to whole microseconds, never 0", test_conversion),
         ("host fio stops a time-based job at the converted runtime", test_fio_stops_at_the_runtime),
         ("a run longer than the runtime asked for is reported", test_overrun_reported),
         ("group_reporting: a group's summed job_runtime is no overrun",
          test_group_reporting_is_not_an_overrun),
         ("stonewalled phases: every I/O over their times, not their rates summed; "
          "fio_group picks one", test_phases_are_not_summed)])
