#!/usr/bin/python3
"""The installed platter runs a user's own fio job in a guest (issue 39):
meson install into a temporary DESTDIR, then from a folder outside the
checkout, through PATH, one compare cell of a job file that a user
brings unmodified: group_reporting over several jobs and no runtime= of
its own.  Before, the installed tree could not build its initramfs (exit
125) and such a job failed every cell ("fio ran 16084 ms, not the 0.5 s
asked for").  QEMU and the kernel come from the cache; the installed
tree's initramfs is built here (about a minute cold).  Prints TAP.
usage: test-installed-guest.py BUILD_DIR"""
import json, os, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from platterlib import tap  # noqa: E402
import destdir  # noqa: E402

BUILD = os.path.abspath(sys.argv[1])
ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

JOB = """; a user's job, as it comes: no runtime=, no directory=
[global]
ioengine=psync
direct=1
bs=4k
rw=randwrite
size=8m
time_based
group_reporting

[writers]
numjobs=4
"""


def installed(tmp):
    """The DESTDIR install in tmp and the environment that uses it (the
    CI cache kept, so QEMU and the kernel are found, not built)."""
    bindir, env = destdir.install(BUILD, os.path.join(tmp, "dest"))
    real = os.path.realpath(os.path.join(bindir, "platter"))
    assert not real.startswith(ROOT + os.sep), real
    return env


def test_fio_cell_from_the_prefix(tmp):
    env = installed(tmp)
    work = os.path.join(tmp, "work")
    os.makedirs(work)
    with open(os.path.join(work, "mine.fio"), "w") as f:
        f.write(JOB)
    p = subprocess.run(["platter", "compare", "seed-fops", "--workloads", "mine.fio",
                        "--fs", "ext4", "--cells", "*.nvme.base", "--runtime", "0.3",
                        "--out", "res"], capture_output=True, text=True, env=env, cwd=work,
                       timeout=1800)
    assert p.returncode == 0, p.stderr[-3000:]
    doc = json.load(open(os.path.join(work, "res", "report.json")))
    assert [c["id"] for c in doc["cells"]] == ["mine.st20000nm007d.nvme.base"], doc["cells"]
    guest = doc["cells"][0]["guest"]
    assert guest["error"] is None and guest["summary"]["iops"] > 0, guest["error"]
    # fio reported the four jobs as one group, whose job_runtime is their sum
    jobs = guest["raw"]["fio"]["jobs"]
    assert len(jobs) == 1 and jobs[0]["job_runtime"] > 4 * 250, \
        [(j.get("jobname"), j.get("job_runtime")) for j in jobs]


tap.run([("an installed platter runs a user's group_reporting fio job in a guest",
          test_fio_cell_from_the_prefix)], with_tmpdir=True)
