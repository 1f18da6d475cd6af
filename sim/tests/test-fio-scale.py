#!/usr/bin/python3
"""The sim's fio workload on many in-flight slots, against a CPU-time bound
(issue 27: fio_next_wake scanned every slot at every step, so 4096 jobs of
iodepth 64 took 94 s; with the slot heap it is a few seconds).  CPU time
of the child, not wall time: the bound holds on a loaded machine.  Prints
TAP.  usage: test-fio-scale.py PLATTER_SIM"""
import json
import os
import resource
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "scripts"))
from platterlib import tap  # noqa: E402

SIM = sys.argv[1]
# 262144 slots; about 3 s of CPU with the heap, minutes with the scan
CASE = ["--profile", "990pro", "--workload", "fio", "--rw", "randread", "--numjobs", "4096",
        "--iodepth", "64", "--runtime", "0.01", "--json"]
CPU_BOUND_S = 30


def cpu_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def test_many_slots():
    t0 = cpu_children()
    try:
        p = subprocess.run([SIM, *CASE], capture_output=True, text=True,
                           timeout=CPU_BOUND_S * 20)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"no result in {CPU_BOUND_S * 20} s")
    cpu = cpu_children() - t0
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["ios"] > 262144 and doc["jobs"] == 4096, (doc["ios"], doc["jobs"])
    assert cpu < CPU_BOUND_S, f"{cpu:.1f} s of CPU, bound {CPU_BOUND_S} s"
    print(f"# {' '.join(CASE)}: {cpu:.2f} s of CPU, {doc['ios']} I/Os")


tap.run([("fio workload, 4096 jobs x iodepth 64, within the CPU bound", test_many_slots)])
