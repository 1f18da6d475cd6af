#!/usr/bin/python3
"""scripts/platter checks that need no guest (sim-only cells); prints TAP.
usage: test-platter.py PLATTER_SIM"""
import contextlib, json, os, re, shutil, signal, subprocess, sys, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from platterlib import devicespec, expspec, matrix, paths, tap  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import standin  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
PLATTER = os.path.join(ROOT, "scripts", "platter")
SIM = sys.argv[1]


def compare(out, *extra):
    p = subprocess.run([PLATTER, "compare", "seed-fops", "--sim-only", "--sim", SIM,
                        "--runtime", "1", "--out", out, *extra],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == out, p.stdout
    with open(os.path.join(out, "report.json")) as f:
        return json.load(f), p.stderr


def test_deterministic_and_shape(tmp):
    a, progress = compare(os.path.join(tmp, "a"))
    b, _ = compare(os.path.join(tmp, "b"))
    assert a["version"] == 1 and len(a["cells"]) == 12
    assert json.dumps(a["cells"], sort_keys=True) == json.dumps(b["cells"], sort_keys=True)
    assert "[12/12]" in progress
    by = {c["id"]: c for c in a["cells"]}
    # the mechanism made visible: flushes per I/O by kernel and front end
    # (the last operation, cut off by the runtime, adds a little)
    fl = lambda cid: round(by[cid]["sim"]["summary"]["per_io"]["flushes"], 1)
    assert fl("seq.st20000nm007d.nvme.base") == 1.0
    assert fl("seq.st20000nm007d.nvme.fops") == 0.0
    assert fl("seq.st20000nm007d.virtio-blk.fops") == 1.0
    assert fl("seq.st20000nm007d.virtio-blk.base") == 2.0
    md = open(os.path.join(tmp, "a", "report.md")).read()
    assert "## seq on st20000nm007d, nvme" in md and "iops.svg" in md
    assert os.path.exists(os.path.join(tmp, "a", "iops.svg"))


def test_shard_and_merge(tmp):
    parts = []
    for k in (1, 2, 3):
        out = os.path.join(tmp, f"s{k}")
        doc, _ = compare(out, "--shard", f"{k}/3")
        assert len(doc["cells"]) == 4
        parts.append(out)
    whole, _ = compare(os.path.join(tmp, "whole"))
    p = subprocess.run([PLATTER, "merge", "--out", os.path.join(tmp, "m"), *parts],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    merged = json.load(open(os.path.join(tmp, "m", "report.json")))
    assert json.dumps(merged["cells"], sort_keys=True) == json.dumps(whole["cells"], sort_keys=True)
    p = subprocess.run([PLATTER, "merge", "--out", os.path.join(tmp, "bad"), parts[0], parts[0]],
                       capture_output=True, text=True)
    assert p.returncode != 0 and "more than one part" in p.stderr


def test_vcpus_and_flush_queues(tmp):
    # seed-xfs runs a 16-vCPU guest (a virtio-blk queue per vCPU) and
    # predicts it with as many blk-flush queues; seed-fops keeps one vCPU
    for name, smp in (("seed-xfs", "16"), ("seed-fops", None)):
        for cell in matrix.cells(expspec.load(name)):
            g = matrix.guest_command(cell, 1)
            s = matrix.sim_command(cell, 1, SIM)
            assert (g[g.index("--smp") + 1] if "--smp" in g else None) == smp, g
            if "--workload" in s and s[s.index("--workload") + 1] == "fsync-append":
                assert s[s.index("--flush-queues") + 1] == (smp or "1"), s
    doc = json.loads(subprocess.run([PLATTER, "compare", "seed-xfs", "--sim-only", "--sim", SIM,
                                     "--runtime", "1", "--out", os.path.join(tmp, "x")],
                                    capture_output=True, text=True, check=True).stdout and
                     open(os.path.join(tmp, "x", "report.json")).read())
    iops = {c["variant"]: c["sim"]["summary"]["iops"] for c in doc["cells"]}
    assert iops["xfs"] > 3 * iops["base"], iops


def test_commands_do_not_name_the_checkout(tmp):
    # a report's rerun lines must work from any checkout, so results
    # committed from one tree read the same as results made in another
    for cell in matrix.cells(expspec.load("seed-fops")):
        line = matrix.rerun_command(cell, 1)
        assert paths.ROOT not in line and '"$OLDPWD/scripts/run-guest"' in line, line
    subprocess.run([PLATTER, "compare", "seed-fops", "--sim-only", "--sim", SIM, "--runtime", "1",
                    "--cells", "seq*", "--out", os.path.join(tmp, "c")],
                   capture_output=True, text=True, check=True)
    for name in ("report.json", "report.md"):
        text = open(os.path.join(tmp, "c", name)).read()
        assert paths.ROOT not in text, name


def test_guest_command_at_the_bounds(tmp):
    # the largest runtime, vCPUs and ipns an experiment may ask for give a
    # run-guest command that run-guest accepts (its --timeout was past
    # run-guest's 9999999 s: every guest cell failed after the checks)
    cell = matrix.cells(expspec.load("seed-fops"))[0]
    cell = dict(cell, device=dict(cell["device"], smp=32, ipns=99))
    cmd = matrix.guest_command(cell, 100000)
    assert cmd[0].endswith("run-guest"), cmd
    p = subprocess.run([os.path.join(ROOT, "scripts", "run-guest"), "--check", *cmd[1:]],
                       capture_output=True, text=True, cwd=tmp)
    assert p.returncode == 0, (cmd, p.stderr)


def test_device_cpu_profile(tmp):
    # a device's CPU profile (a shipped name, or a file beside the
    # experiment) reaches run-guest as --cpu, which accepts it, and its
    # ipns grows the hang guard; a bad one is refused when the spec loads
    spec = json.load(open(os.path.join(expspec.EXPERIMENTS, "seed-fops.json")))
    with open(os.path.join(tmp, "mine.cpu"), "w") as f:
        f.write("ipns = 3  # assumed\nclock_mhz = 3000\nio_cycles = 3000  # a VM exit\n")
    path = os.path.join(tmp, "exp.json")
    for cpu, want, ipns in (("skylake-sp-kvm", "skylake-sp-kvm", 3),
                            ("mine.cpu", os.path.join(tmp, "mine.cpu"), 3)):
        with open(path, "w") as f:
            json.dump(dict(spec, devices=[{"frontend": "nvme", "cpu": cpu}]), f)
        cell = matrix.cells(expspec.load(path))[0]
        cmd = matrix.guest_command(cell, 10)
        assert cmd[cmd.index("--cpu") + 1] == want and "--ipns" not in cmd, cmd
        assert matrix.cell_timeout_s(cell, 10) == 1800 + 12 * ipns * 10, cmd
        p = subprocess.run([os.path.join(ROOT, "scripts", "run-guest"), "--check", *cmd[1:]],
                           capture_output=True, text=True, cwd="/")
        assert p.returncode == 0, (cmd, p.stderr)
    with open(os.path.join(tmp, "bad.cpu"), "w") as f:
        f.write("ipns = 0\n")
    for dev, needle in (({"frontend": "nvme", "cpu": "no-such"}, "no such profile"),
                        ({"frontend": "nvme", "cpu": "bad.cpu"}, "bad.cpu"),
                        ({"frontend": "nvme", "cpu": "plain", "ipns": 2}, "cpu and ipns"),
                        ({"frontend": "nvme", "cpu": 3}, "device cpu=3")):
        with open(path, "w") as f:
            json.dump(dict(spec, devices=[dev]), f)
        p = subprocess.run([PLATTER, "compare", path, "--sim-only", "--sim", SIM],
                           capture_output=True, text=True)
        assert p.returncode == 2 and needle in p.stderr and p.stderr.count("\n") == 1, \
            (dev, p.stderr)


def test_report_names_the_guest_machine(tmp):
    # each section says what guest machine its cells ran on, the CPU
    # profile included; a sim-only cell has none to name
    from platterlib import report
    run = {"smp": "8", "icount": "shift=0,sleep=off,ipns=3,charge-io=2400",
           "cpu": "skylake-sp-kvm", "cpu_sha256": "0123456789abcdef"}
    line = report._machine({"guest": {"raw": {"run": run}}})[0]
    assert "8 vCPU(s)" in line and "`skylake-sp-kvm` (sha256 0123456789abcdef)" in line and \
        "ipns=3,charge-io=2400" in line, line
    del run["cpu"]
    assert "no CPU profile" in report._machine({"guest": {"raw": {"run": run}}})[0]
    assert report._machine({"guest": None, "sim": {}}) == []


def test_bad_input(tmp):
    for args, needle in ((["compare", "no-such"], "no experiment 'no-such'"),
                         (["compare", "seed-fops", "--sim-only", "--shard", "4/3"], "--shard"),
                         (["compare", "seed-fops", "--sim-only", "--cells", "zzz*"], "no cells")):
        p = subprocess.run([PLATTER, *args, "--sim", SIM] if args[0] == "compare" else [PLATTER, *args],
                           capture_output=True, text=True)
        assert p.returncode != 0 and needle in p.stderr, (args, p.stderr)
    spec = json.load(open(os.path.join(os.path.dirname(PLATTER), "experiments", "seed-xfs.json")))
    for dev, needle in (({"frontend": "virtio-blk", "smpp": 16}, "device key 'smpp'"),
                        ({"frontend": "virtio-blk", "ipns": 0}, "device ipns=0"),
                        ({"frontend": "virtio-blk", "smp": True}, "device smp=True"),
                        ({"frontend": "virtio-blk", "smp": 16.0}, "device smp=16.0"),
                        ({"smp": 2}, "needs a 'frontend'")):
        path = os.path.join(tmp, "bad-device.json")
        with open(path, "w") as f:
            json.dump(dict(spec, devices=[dev]), f)
        p = subprocess.run([PLATTER, "compare", path, "--sim-only", "--sim", SIM],
                           capture_output=True, text=True)
        assert p.returncode != 0 and needle in p.stderr, (dev, p.stderr)


def test_report_and_merge_carry_the_spec(tmp):
    # an experiment file outside scripts/experiments: report and merge
    # read its spec from report.json, not by name
    spec = json.load(open(os.path.join(expspec.EXPERIMENTS, "seed-fops.json")))
    spec.update(name="elsewhere", devices=[{"frontend": "nvme"}])
    path = os.path.join(tmp, "elsewhere.json")
    with open(path, "w") as f:
        json.dump(spec, f)
    parts = []
    for k in (1, 2):
        out = os.path.join(tmp, f"p{k}")
        subprocess.run([PLATTER, "compare", path, "--sim-only", "--sim", SIM, "--runtime", "0.1",
                        "--shard", f"{k}/2", "--out", out], capture_output=True, check=True)
        parts.append(out)
    os.remove(path)
    doc = json.load(open(os.path.join(parts[0], "report.json")))
    # the spec as given, with what each variant declares filled in
    spec["kernels"] = {"base": [], "fops": ["dsync_fua_no_flush", "dsync_fua_native_only"]}
    assert doc["spec"] == spec, doc["spec"]
    for args in (["report", parts[0]], ["merge", "--out", os.path.join(tmp, "m"), *parts]):
        p = subprocess.run([PLATTER, *args], capture_output=True, text=True)
        # nothing on stderr but merge's closing summary
        assert p.returncode == 0 and (p.stderr == "" if args[0] == "report" else
                                      p.stderr.startswith("\nelsewhere: sim IOPS")), \
            (args, p.stderr)
    merged = json.load(open(os.path.join(tmp, "m", "report.json")))
    assert sorted(c["id"] for c in merged["cells"]) == sorted(
        c["id"] for c in matrix.cells(spec)) and merged["spec"] == spec


def test_merge_of_a_cells_subset(tmp):
    # parts of a --cells run merge when every selected cell is there
    parts = []
    for k in (1, 2):
        out = os.path.join(tmp, f"p{k}")
        compare(out, "--cells", "seq.*", "--shard", f"{k}/2")
        parts.append(out)
    p = subprocess.run([PLATTER, "merge", "--out", os.path.join(tmp, "m"), *parts],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    p = subprocess.run([PLATTER, "merge", "--out", os.path.join(tmp, "m2"), parts[0]],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "cells in no part: seq." in p.stderr, p.stderr


def test_compare_leaves_nothing_behind(tmp):
    # a guest cell makes a sparse 200 GiB image and run-guest a work
    # directory: both go, also when the guest fails (here at once: no QEMU)
    scratch = os.path.join(tmp, "scratch")
    os.mkdir(scratch)
    standin.fake_cache(os.path.join(tmp, "cache"))
    env = dict(os.environ, TMPDIR=scratch, PLATTER_QEMU="/nonexistent/qemu",
               PLATTER_CACHE=os.path.join(tmp, "cache"))
    p = subprocess.run([PLATTER, "compare", "seed-fops", "--sim", SIM, "--runtime", "0.1",
                        "--cells", "seq.*.nvme.*", "--out", os.path.join(tmp, "o")],
                       capture_output=True, text=True, env=env)
    assert p.returncode == 125 and "2 cell(s) failed" in p.stderr, p.stderr
    doc = json.load(open(os.path.join(tmp, "o", "report.json")))
    assert all("not executable" in c["guest"]["error"] for c in doc["cells"]), doc["cells"]
    assert os.listdir(scratch) == [], os.listdir(scratch)
    # each guest cell has its folder in the report (cells/ID/), and a rerun
    # into the same report replaces it (cells/ and jobs/ were "files no
    # report writes", and the rerun was refused)
    assert sorted(os.listdir(os.path.join(tmp, "o", "cells"))) == \
        sorted(c["id"] for c in doc["cells"]), os.listdir(os.path.join(tmp, "o"))
    os.makedirs(os.path.join(tmp, "o", "jobs", "w"))
    p = subprocess.run([PLATTER, "compare", "seed-fops", "--sim", SIM, "--runtime", "0.1",
                        "--cells", "seq.*.nvme.base", "--out", os.path.join(tmp, "o")],
                       capture_output=True, text=True, env=env)
    assert p.returncode == 125 and "1 cell(s) failed" in p.stderr, p.stderr
    assert os.listdir(os.path.join(tmp, "o", "cells")) == ["seq.st20000nm007d.nvme.base"]
    assert not os.path.exists(os.path.join(tmp, "o", "jobs")), os.listdir(os.path.join(tmp, "o"))


def stop_signals_at(ignored=()):
    """A preexec_fn: the stopping signals at their default disposition
    (a terminal's foreground job), those in `ignored` ignored (nohup's
    SIGHUP).  A test run in the background (`&`) inherits SIGINT ignored."""
    def preexec():
        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(s, signal.SIG_IGN if s in ignored else signal.SIG_DFL)
    return preexec


def interrupted_compare(tmp, name, signals, extra=(), argv=None, gap_s=0.2, ignored=()):
    """compare (or argv, a command with --out OUT that starts two guests at
    once) with a stand-in QEMU, stopped by signals gap_s apart once both
    guests run: (the finished process, the stand-ins' pids, its out dir,
    its scratch dir).  `ignored`: signals ignored when it starts."""
    scratch = os.path.join(tmp, name + "-scratch")
    os.mkdir(scratch)
    cache = os.path.join(tmp, name + "-cache")
    standin.fake_cache(cache)
    qemu = standin.write_qemu(os.path.join(tmp, name + "-qemu"))
    pids = os.path.join(tmp, name + "-pids")
    env = dict(os.environ, TMPDIR=scratch, PLATTER_QEMU=qemu, PLATTER_CACHE=cache,
               STAND_IN_PIDS=pids)
    out = os.path.join(tmp, name + "-out")
    argv = argv or [PLATTER, "compare", "seed-fops", "--sim", SIM, "--runtime", "0.1",
                    "--cells", "seq.*.nvme.*", "--parallel", "2"]
    p = subprocess.Popen([*argv, "--out", out, *extra],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                         preexec_fn=stop_signals_at(ignored))
    t0 = time.monotonic()
    while not (os.path.exists(pids) and len(open(pids).read().split()) == 4):
        assert p.poll() is None and time.monotonic() - t0 < 120, p.communicate()
        time.sleep(0.1)
    t0 = time.monotonic()
    for sig in signals:
        p.send_signal(sig)
        time.sleep(gap_s)
    stdout, stderr = p.communicate(timeout=60)
    took = time.monotonic() - t0
    return p.returncode, stdout, stderr, took, [int(x) for x in open(pids).read().split()], \
        out, scratch


def test_signal_stops_everything(tmp):
    # issue 39: Ctrl-C on compare was ignored once, then a traceback, and
    # run-guest and QEMU ran on to their 30-minute limit; the results
    # folder was left empty and the sparse images in /tmp
    for name, signals, status in (("int", [signal.SIGINT], 130),
                                  ("term", [signal.SIGTERM], 143),
                                  ("twice", [signal.SIGINT, signal.SIGINT], 130)):
        rc, stdout, stderr, took, pids, out, scratch = interrupted_compare(tmp, name, signals)
        assert rc == status, (name, rc, stderr[-3000:])
        assert "Traceback" not in stderr and \
            stderr.strip().splitlines()[-1].startswith("platter: stopped by SIG"), stderr
        assert stdout == "", stdout
        assert took < 30, f"{name}: {took:.1f} s to stop"
        left = standin.kill_left(pids)
        assert not left, (name, left)
        assert not os.path.exists(out), (name, os.listdir(out))
        assert os.listdir(scratch) == [], (name, os.listdir(scratch))


def test_signals_until_it_ends(tmp):
    # a second Ctrl-C that came while Python shut down, after the stop was
    # done, found SIGINT back at its default and killed platter (status -2
    # for 130): CI failed on it.  A SIGINT every 5 ms until platter ends
    scratch = os.path.join(tmp, "scratch")
    os.mkdir(scratch)
    cache = os.path.join(tmp, "cache")
    standin.fake_cache(cache)
    qemu = standin.write_qemu(os.path.join(tmp, "qemu"))
    pids = os.path.join(tmp, "pids")
    env = dict(os.environ, TMPDIR=scratch, PLATTER_QEMU=qemu, PLATTER_CACHE=cache,
               STAND_IN_PIDS=pids)
    for k in range(3):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(pids)
        p = subprocess.Popen([PLATTER, "compare", "seed-fops", "--sim", SIM, "--runtime", "0.1",
                              "--cells", "seq.*.nvme.base", "--out", os.path.join(tmp, f"o{k}")],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                             preexec_fn=stop_signals_at())
        t0 = time.monotonic()
        while not (os.path.exists(pids) and open(pids).read().split()):
            assert p.poll() is None and time.monotonic() - t0 < 120, p.communicate()
            time.sleep(0.05)
        while p.poll() is None and time.monotonic() - t0 < 180:
            with contextlib.suppress(ProcessLookupError):
                p.send_signal(signal.SIGINT)
            time.sleep(0.005)
        _, stderr = p.communicate(timeout=60)
        standin.kill_left([int(x) for x in open(pids).read().split()])
        assert p.returncode == 130, (k, p.returncode, stderr[-2000:])


def test_signal_ignored_at_start_stays_ignored(tmp):
    # issue 39: a signal ignored when platter starts (nohup's SIGHUP; SIGINT
    # of a job a script started with `&`) stays ignored, as it does for
    # any Unix program: nohup'd, a hangup must not stop a long compare.
    # The signals family ran with SIGHUP and SIGINT so ignored (its harness
    # was nohup'd in the background) and took it for a hang; it now gives
    # each command the default dispositions
    rc, stdout, stderr, took, pids, out, scratch = interrupted_compare(
        tmp, "nohup", [signal.SIGHUP, signal.SIGINT, signal.SIGTERM], gap_s=1.5,
        ignored=(signal.SIGHUP, signal.SIGINT))
    assert rc == 143, (rc, stderr[-3000:])
    assert took >= 3, f"stopped {took:.1f} s after the ignored SIGHUP: not by the SIGTERM"
    assert stderr.strip().splitlines()[-1].startswith("platter: stopped by SIGTERM"), \
        stderr[-1000:]
    assert not standin.kill_left(pids)


def test_second_signal_leaves_no_work_dir(tmp):
    # issue 39 (signals family): SIGTERM, then SIGINT 2 ms later, on a
    # powercut: the second signal's SIGKILL caught run-guest removing its
    # work directory, and platter-run.* folders (each with a sparse image)
    # were left in TMPDIR; children now keep theirs in a folder platter
    # removes once they have ended
    for name, argv in (("pc", [PLATTER, "powercut", "fops-nvme", "--cuts", "4",
                               "--parallel", "2"]),
                       ("cmp", None)):
        # (two signals that arrive together are taken in the order of their
        # numbers: SIGINT's 130 is as right as SIGTERM's 143)
        for i in range(3):
            rc, _, stderr, _, pids, out, scratch = interrupted_compare(
                tmp, f"{name}{i}", [signal.SIGTERM, signal.SIGINT], argv=argv, gap_s=0.002)
            assert rc in (130, 143), (name, rc, stderr[-2000:])
            assert not standin.kill_left(pids), name
            assert os.listdir(scratch) == [], (name, i, os.listdir(scratch))


STOP_WHILE_STARTING = r"""
import os, signal, subprocess, sys, tempfile
sys.path.insert(0, sys.argv[1])
from platterlib import child
where, pids = sys.argv[2], sys.argv[3]
real_mkdtemp, real_popen = tempfile.mkdtemp, subprocess.Popen

def mkdtemp(**kw):
    d = real_mkdtemp(**kw)
    if where == "mkdtemp":
        os.kill(os.getpid(), signal.SIGTERM)
    return d

class Popen(real_popen):
    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        with open(pids, "a") as f:
            f.write(f"{self.pid}\n")
        if where == "popen":
            os.kill(os.getpid(), signal.SIGTERM)

tempfile.mkdtemp, subprocess.Popen = mkdtemp, Popen
child.stop_on_signals()
try:
    # (not holding the test's pipes: it would wait for the sleep to end)
    child.wait(child.spawn(["sleep", "30"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL))
    sys.exit(0)
except child.Interrupted as e:
    sys.exit(e.status)
"""


def test_signal_while_spawning(tmp):
    # issue 39 (signals family, about 1 run in 15): SIGTERM while platter
    # made the children's folder left it behind, empty, and one while
    # Popen returned left that child running untracked.  The signal comes
    # here from inside each call, every time
    for where in ("popen", "mkdtemp"):
        scratch = os.path.join(tmp, "spawn-" + where)
        os.mkdir(scratch)
        pids = os.path.join(tmp, "spawn-" + where + ".pids")
        p = subprocess.run([sys.executable, "-c", STOP_WHILE_STARTING,
                            os.path.join(ROOT, "scripts"), where, pids],
                           capture_output=True, text=True, timeout=60,
                           env=dict(os.environ, TMPDIR=scratch))
        assert p.returncode == 143, (where, p.returncode, p.stderr[-2000:])
        started = open(pids).read().split() if os.path.exists(pids) else []
        assert not standin.kill_left(started), where
        assert os.listdir(scratch) == [], (where, os.listdir(scratch))


STOP_IN_TEMP_DIR = r"""
import os, shutil, signal, sys, tempfile
sys.path.insert(0, sys.argv[1])
from platterlib import child
where = sys.argv[2]
real_mkdtemp, real_rmtree = tempfile.mkdtemp, shutil.rmtree

def mkdtemp(**kw):
    d = real_mkdtemp(**kw)
    if where == "make":
        os.kill(os.getpid(), signal.SIGTERM)
    return d

def rmtree(path, **kw):
    if where == "remove":
        os.kill(os.getpid(), signal.SIGTERM)
    real_rmtree(path, **kw)

tempfile.mkdtemp, shutil.rmtree = mkdtemp, rmtree
child.stop_on_signals()
try:
    with child.temp_dir("platter-apply-") as d:
        open(os.path.join(d, "f"), "w").close()
        if where == "inside":
            os.kill(os.getpid(), signal.SIGTERM)
    sys.exit(0)
except child.Interrupted as e:
    sys.exit(e.status)
"""


def test_signal_in_temp_dir(tmp):
    # issue 39 (signals family, 30-minute run of b2f61d1): a SIGHUP on
    # compare --sim-only while a patch series was checked left
    # platter-apply-* in TMPDIR (tempfile.TemporaryDirectory: a stop between
    # its making and its tracking, or inside its removal).  The signal comes
    # from inside each step here, every time
    for where in ("make", "inside", "remove"):
        scratch = os.path.join(tmp, "tempdir-" + where)
        os.mkdir(scratch)
        p = subprocess.run([sys.executable, "-c", STOP_IN_TEMP_DIR,
                            os.path.join(ROOT, "scripts"), where],
                           capture_output=True, text=True, timeout=60,
                           env=dict(os.environ, TMPDIR=scratch))
        assert p.returncode == 143 and "Traceback" not in p.stderr, \
            (where, p.returncode, p.stderr[-1500:])
        assert os.listdir(scratch) == [], (where, os.listdir(scratch))


def test_workloads_description(tmp):
    # issue 40: a user's fio job in place of the experiment's workloads
    # kept its "O_DSYNC 4 KiB direct writes" description in the report
    job = os.path.join(tmp, "mine.fio")
    with open(job, "w") as f:
        f.write("[w]\nrw=randwrite\nbs=4k\nsize=64m\n")
    out = os.path.join(tmp, "wl")
    p = subprocess.run([PLATTER, "compare", "seed-fops", "--sim-only", "--sim", SIM,
                        "--workloads", job, "--fs", "ext4", "--runtime", "0.05",
                        "--cells", "*.nvme.*", "--out", out], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr[-2000:]
    md = open(os.path.join(out, "report.md")).read().splitlines()
    assert "O_DSYNC" not in md[2] and job in md[2], md[:4]
    # the experiment's own workloads by name keep its description
    out2 = os.path.join(tmp, "wl2")
    subprocess.run([PLATTER, "compare", "seed-fops", "--sim-only", "--sim", SIM,
                    "--workloads", "seq", "--runtime", "0.05", "--cells", "*.nvme.*",
                    "--out", out2], capture_output=True, text=True, check=True)
    assert "O_DSYNC" in open(os.path.join(out2, "report.md")).read().splitlines()[2]


def test_signal_while_starting(tmp):
    # issue 39 (signals family): Ctrl-C while platter imported its modules
    # gave a KeyboardInterrupt traceback.  The signal comes, every time, from
    # inside platter's first import (a module of that name earlier on
    # PYTHONPATH sends it, then loads the real one)
    d = os.path.join(tmp, "early")
    os.mkdir(d)
    with open(os.path.join(d, "argparse.py"), "w") as f:
        f.write("import os, signal, sys\n"
                "os.kill(os.getpid(), signal.SIGINT)\n"
                "sys.path.remove(os.path.dirname(__file__))\n"
                "del sys.modules['argparse']\n"
                "import argparse\n")
    p = subprocess.run([PLATTER, "list"], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=d))
    assert p.returncode == -signal.SIGINT, (p.returncode, p.stderr[-2000:])
    assert "Traceback" not in p.stderr and p.stdout == "", p.stderr[-2000:]


def test_ended_child_is_not_running(tmp):
    # issue 39 (signals family): a child platter had not waited for yet (a
    # build a signal interrupted) is a zombie until platter exits; counted
    # as running, it held the reap after a stop for its whole grace and
    # kept the children's temporary folder
    from platterlib import child
    p = child.spawn(["true"])
    t0 = time.monotonic()
    while open(f"/proc/{p.pid}/stat").read().split(") ", 1)[1][0] != "Z":
        assert time.monotonic() - t0 < 10
        time.sleep(0.01)
    assert child.CHILDREN.kill_all(0) == 0
    child.CHILDREN.tmp_root = os.path.join(tmp, "children")
    os.mkdir(child.CHILDREN.tmp_root)
    child.CHILDREN.remove_tmp_root()
    assert not os.path.exists(os.path.join(tmp, "children"))
    child.wait(p)


def test_signal_stops_helpers(tmp):
    # issue 39 (signals family): the short helpers platter runs (run-guest
    # --check on every cell, git on a kernel tree, build-kernel --print-key)
    # were plain subprocess.run children: a signal killed the helper itself
    # but what it had started ran on (run-guest --check's profile check, a
    # platter-sim).  Here that platter-sim is a stand-in that waits
    pids = os.path.join(tmp, "sim.pids")
    sim = os.path.join(tmp, "sim")
    with open(sim, "w") as f:
        f.write("#!/bin/sh\n"
                "if grep -q driveopts /proc/$PPID/cmdline; then\n"
                f"    echo $$ >> {pids}; exec sleep 60\n"
                f"fi\nexec {os.path.abspath(SIM)} \"$@\"\n")
    os.chmod(sim, 0o755)
    cache = os.path.join(tmp, "cache")
    standin.fake_cache(cache)
    env = dict(os.environ, PLATTER_SIM=sim, PLATTER_CACHE=cache, PLATTER_QEMU="/nonexistent")
    # one signal; and a second at once, whose SIGKILL leaves the helper no
    # time to stop what it started (its children are in its session)
    for sigs in ([signal.SIGINT], [signal.SIGTERM, signal.SIGINT]):
        if os.path.exists(pids):
            os.unlink(pids)
        p = subprocess.Popen([PLATTER, "compare", "seed-fops", "--sim", sim, "--runtime",
                              "0.01", "--cells", "seq.*.nvme.*", "--out",
                              os.path.join(tmp, "o")],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                             preexec_fn=stop_signals_at())
        t0 = time.monotonic()
        while not os.path.exists(pids):
            assert p.poll() is None and time.monotonic() - t0 < 60, p.communicate()
            time.sleep(0.02)
        for sig in sigs:
            p.send_signal(sig)
        _, err = p.communicate(timeout=60)
        assert p.returncode in (130, 143), (p.returncode, err[-2000:])
        time.sleep(0.5)     # what a SIGKILL missed runs on: give it a moment to show
        left = standin.kill_left(open(pids).read().split())
        assert not left, (sigs, left)


def test_helper_children_in_its_session(tmp):
    # issue 39 (signals family): a helper platter runs (run-guest --check's
    # driveopts) started its platter-sim in a session of its own; SIGTERM
    # and SIGINT at once make platter SIGKILL the helper's session before
    # the helper can stop that child, which ran on.  A module run as a
    # program (child.run_main) keeps its children in its own session
    code = ("import os, sys; sys.path.insert(0, sys.argv[1]); from platterlib import child\n"
            "def main(argv):\n"
            "    p = child.spawn(['sleep', '5'])\n"
            "    print(os.getsid(p.pid) == os.getsid(0)); p.kill(); child.wait(p)\n"
            "    return 0\n"
            "sys.exit(child.run_main(main, []))\n")
    p = subprocess.run([sys.executable, "-c", code, os.path.join(ROOT, "scripts")],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and p.stdout.strip() == "True", (p.returncode, p.stdout, p.stderr)


def test_signal_reaching_a_worker_thread(tmp):
    # issue 39 (signals family): a stopping signal the kernel hands to a
    # worker thread only sets Python's flag; the main thread, blocked on a
    # child (or a future) without a timeout, never ran the handler, and a
    # compare ran on with SIGTERM and SIGINT both ignored.  Here the main
    # thread blocks SIGUSR1, so the kernel must give it to the worker
    import threading
    from platterlib import child

    class Stop(Exception):
        pass

    def handler(signum, frame):
        raise Stop()
    old = signal.signal(signal.SIGUSR1, handler)
    worker = threading.Thread(target=time.sleep, args=(3,))
    worker.start()
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR1])
    try:
        for what in ("wait", "future"):
            p = child.spawn(["sleep", "8"])
            pool = __import__("concurrent.futures").futures.ThreadPoolExecutor(1)
            fut = pool.submit(time.sleep, 8)
            threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGUSR1)).start()
            t0 = time.monotonic()
            try:
                if what == "wait":
                    child.wait(p)
                else:
                    next(child.as_completed([fut]))
                raise AssertionError(f"{what}: the signal was not taken")
            except Stop:
                took = time.monotonic() - t0
            assert took < 5, f"{what}: the handler ran {took:.1f} s later"
            p.kill()
            child.wait(p)
            pool.shutdown(wait=False, cancel_futures=True)
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGUSR1])
        signal.signal(signal.SIGUSR1, old)
        worker.join()


STUBBORN_CHILD = """import os, sys, time
sys.path.insert(0, sys.argv[1])
from platterlib import child
child.stop_on_signals()
try:
    with child.pool(1) as ex:
        fut = ex.submit(child.run, ["sh", "-c", "trap '' TERM; echo up; sleep 120"])
        print("started", flush=True)
        next(child.as_completed([fut]))
except child.Interrupted as e:
    sys.exit(e.status)
"""


def test_stop_kills_a_stubborn_child(tmp):
    # issue 39 (signals family: a compare that did not end within 40 s of
    # one SIGHUP): after a stop, the pool waits for its running items, and
    # the interpreter joins its worker threads before the atexit reap that
    # sends SIGKILL, so a child that ignored the SIGTERM held platter until
    # it ended.  SIGKILL now follows STOP_GRACE_S after the stop whatever
    # the main thread waits for
    from platterlib import child
    # (SIGHUP at its default: a test run under nohup, as a CI run started
    # in the background was, passes it on ignored, and platter keeps it so)
    p = subprocess.Popen([sys.executable, "-c", STUBBORN_CHILD, os.path.join(ROOT, "scripts")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=stop_signals_at())
    assert p.stdout.readline().strip() == "started"
    time.sleep(0.5)
    t0 = time.monotonic()
    p.send_signal(signal.SIGHUP)
    try:
        _, err = p.communicate(timeout=child.STOP_GRACE_S + 15)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        raise AssertionError("still running 25 s after the stop")
    took = time.monotonic() - t0
    assert p.returncode == 129, (p.returncode, err[-1000:])
    assert took < child.STOP_GRACE_S + 5, took


def test_signal_to_run_guest_alone(tmp):
    # issue 39 (signals family): a SIGTERM or SIGINT sent to run-guest's pid
    # alone (`platter run` execs it; a supervisor's kill) waited for QEMU to
    # end, up to its 30-minute limit: bash runs a trap only once the
    # foreground command has ended.  QEMU now runs in a session of its own,
    # waited for in the background, and the trap stops all of it
    scratch = os.path.join(tmp, "scratch")
    os.mkdir(scratch)
    cache = os.path.join(tmp, "cache")
    standin.fake_cache(cache)
    pids = os.path.join(tmp, "pids")
    env = dict(os.environ, TMPDIR=scratch, PLATTER_CACHE=cache, STAND_IN_PIDS=pids,
               PLATTER_QEMU=standin.write_qemu(os.path.join(tmp, "qemu")))
    for sig in (signal.SIGTERM, signal.SIGINT):
        if os.path.exists(pids):
            os.unlink(pids)
        p = subprocess.Popen([PLATTER, "run", "--kernel", "fops", "--device", "nvme", "dsync",
                              "--", "--runtime", "0.1"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=env,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        t0 = time.monotonic()
        while not (os.path.exists(pids) and len(open(pids).read().split()) == 2):
            assert p.poll() is None and time.monotonic() - t0 < 60, p.communicate()
            time.sleep(0.05)
        p.send_signal(sig)
        _, err = standin.finish(p, 30, f"{sig.name}: run-guest still running 30 s later")
        assert p.returncode == 128 + sig, (p.returncode, err[-1500:])
        assert err.strip().splitlines()[-1].startswith(f"run-guest: stopped by {sig.name}"), err
        left = standin.kill_left(open(pids).read().split())
        assert not left, (sig.name, left)
        assert os.listdir(scratch) == [], (sig.name, os.listdir(scratch))


def test_version_takes_no_index_lock(tmp):
    # issue 39: `git describe --dirty` writes the refreshed index under
    # .git/index.lock (--no-optional-locks or not); a stop that killed it,
    # at platter's start or in a cache export, left the lock in the user's
    # checkout and the next git commit refused.  platter's version and the
    # cache's commit never run it: a logging git on PATH shows each call
    os.makedirs(os.path.join(tmp, "bin"))
    log = os.path.join(tmp, "git.log")
    real = shutil.which("git")
    with open(os.path.join(tmp, "bin", "git"), "w") as f:
        f.write(f'#!/bin/sh\necho "$*" >> {log}\nexec {real} "$@"\n')
    os.chmod(os.path.join(tmp, "bin", "git"), 0o755)
    env = dict(os.environ, PATH=os.path.join(tmp, "bin") + ":" + os.environ["PATH"])
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from platterlib import cache, paths\n"
            "print(paths.version(), cache.git_commit())\n")
    p = subprocess.run([sys.executable, "-c", code, os.path.join(ROOT, "scripts")],
                       capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 0 and "unknown" not in p.stdout, (p.stdout, p.stderr)
    calls = open(log).read().splitlines()
    assert calls and not [c for c in calls if "describe" in c and "--dirty" in c], calls


def test_sim_from_the_environment(tmp):
    # issue 39: `meson test -C _build` failed two suites, platter looking
    # for build/sim/platter-sim in the checkout; meson test now names its
    # own build's in $PLATTER_SIM, which platter takes before build/
    fake = os.path.join(tmp, "stand-in-sim")
    with open(fake, "w") as f:
        f.write("#!/bin/sh\necho \"stand-in $*\"\n")
    os.chmod(fake, 0o755)
    p = subprocess.run([PLATTER, "sim", "--version"], capture_output=True, text=True,
                       env=dict(os.environ, PLATTER_SIM=fake))
    assert p.returncode == 0 and p.stdout == "stand-in --version\n", (p.stdout, p.stderr)


def test_junit_never_replaces_a_file(tmp):
    # issue 39: --junit overwrote the --sim binary, scripts/platter, a
    # profile and the report's SVGs; a --junit that could not be written
    # (a folder, a missing parent) was found after every cell had run
    import shutil
    sim = shutil.copy(SIM, os.path.join(tmp, "sim-copy"))
    script = shutil.copy(PLATTER, os.path.join(tmp, "platter-copy"))
    os.mkdir(os.path.join(tmp, "folder"))
    before = {f: open(f, "rb").read() for f in (sim, script)}
    for junit, why in ((sim, "exists and is not a file this output writes"),
                       (script, "exists and is not a file this output writes"),
                       (os.path.join(tmp, "folder"), "not a regular file"),
                       (os.path.join(tmp, "nope", "j.xml"), "no folder"),
                       ("", "an empty path")):
        out = os.path.join(tmp, "o")
        p = subprocess.run([PLATTER, "compare", "seed-fops", "--sim-only", "--sim", sim,
                            "--runtime", "0.05", "--cells", "seq.*.nvme.*", "--gate", "iops:-1%",
                            "--out", out, "--junit", junit], capture_output=True, text=True)
        assert p.returncode == 2 and why in p.stderr and \
            len(p.stderr.strip().splitlines()) == 1, (junit, p.returncode, p.stderr)
        assert not os.path.exists(os.path.join(out, "report.json")), junit
    assert before == {f: open(f, "rb").read() for f in (sim, script)}
    # its own earlier JUnit file is replaced, as before
    j = os.path.join(tmp, "j.xml")
    for _ in range(2):
        p = subprocess.run([PLATTER, "compare", "seed-fops", "--sim-only", "--sim", sim,
                            "--runtime", "0.05", "--cells", "seq.*.nvme.*", "--gate", "iops:-1%",
                            "--out", os.path.join(tmp, "o2"), "--junit", j],
                           capture_output=True, text=True)
        assert p.returncode in (0, 1) and open(j).read().startswith("<?xml"), p.stderr


def test_report_writes_no_link_and_stays_readable(tmp):
    # issue 39: `platter report` and `gate` followed symlinks in a report
    # folder (a downloaded CI artifact can aim anywhere) and wrote through
    # them; report and merge rewrote a compact 20.7 MB report.json as
    # 62 MB of indented JSON, past what they read back
    out = os.path.join(tmp, "r")
    p = subprocess.run([PLATTER, "compare", "seed-fops", "--sim-only", "--sim", SIM,
                        "--runtime", "0.05", "--cells", "seq.*.nvme.*", "--out", out],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    victim = os.path.join(tmp, "victim")
    with open(victim, "w") as f:
        f.write("not yours\n")
    for name in ("report.md", "iops.svg", "junit.xml"):
        path = os.path.join(out, name)
        if os.path.exists(path):
            os.unlink(path)
        os.symlink(victim, path)
    for cmd in (["report", out], ["gate", out, "--gate", "iops:-1%"]):
        p = subprocess.run([PLATTER, *cmd], capture_output=True, text=True)
        assert p.returncode in (0, 1) and "Traceback" not in p.stderr, (cmd, p.stderr)
        assert open(victim).read() == "not yours\n", cmd
    assert not os.path.islink(os.path.join(out, "report.md"))
    # a report.json padded past outfile's indent limit is written compact
    doc = json.load(open(os.path.join(out, "report.json")))
    doc["description"] = "x" * (9 << 20)
    with open(os.path.join(out, "report.json"), "w") as f:
        json.dump(doc, f, separators=(",", ":"))
    p = subprocess.run([PLATTER, "report", out], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    size = os.path.getsize(os.path.join(out, "report.json"))
    assert size < (9 << 20) + (1 << 20), size
    p = subprocess.run([PLATTER, "report", out], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr


def test_builds_before_cells(tmp):
    # compare builds each kernel and the initramfs once, before any cell:
    # a build that fails stops it with one line, and no cell runs
    env = dict(os.environ, PLATTER_QEMU="/nonexistent/qemu",
               PLATTER_CACHE=os.path.join(tmp, "empty-cache-file"))
    open(env["PLATTER_CACHE"], "w").close()   # not a directory: every build fails
    p = subprocess.run([PLATTER, "compare", "seed-fops", "--sim", SIM, "--runtime", "0.1",
                        "--cells", "seq.*.nvme.*", "--parallel", "2", "--out", os.path.join(tmp, "o")],
                       capture_output=True, text=True, env=env)
    assert p.returncode == 125, p.stderr   # a build failed: infrastructure
    assert "platter: [build 1/3] kernel base ..." in p.stderr, p.stderr
    assert p.stderr.strip().splitlines()[-1].startswith(
        "platter: building the kernel base failed"), p.stderr
    assert not os.path.exists(os.path.join(tmp, "o", "report.json"))
    # with the cache holding them, every step is ready and the cells run
    standin.fake_cache(os.path.join(tmp, "cache"))
    env["PLATTER_CACHE"] = os.path.join(tmp, "cache")
    p = subprocess.run([PLATTER, "compare", "seed-fops", "--sim", SIM, "--runtime", "0.1",
                        "--cells", "seq.*.nvme.*", "--parallel", "2", "--out", os.path.join(tmp, "o")],
                       capture_output=True, text=True, env=env)
    steps = [ln for ln in p.stderr.splitlines() if ": ready (" in ln]
    assert [ln.split("] ")[1].split(":")[0] for ln in steps] == \
        ["kernel base", "kernel fops", "initramfs"], p.stderr
    first_cell = p.stderr.index("[1/2]")
    assert all(p.stderr.index(ln) < first_cell for ln in steps), p.stderr


def spec_file(tmp, name, **changes):
    spec = json.load(open(os.path.join(expspec.EXPERIMENTS, "seed-fops.json")))
    spec.update(changes)
    if "seed" in spec and "workloads" in changes:   # its figures of the workloads kept
        names = {w["name"] for w in spec["workloads"]}
        spec["seed"] = dict(spec["seed"], cells={w: c for w, c in spec["seed"]["cells"].items()
                                                 if w in names})
    path = os.path.join(tmp, name + ".json")
    with open(path, "w") as f:
        json.dump(spec, f)
    return path


def run(*args):
    return subprocess.run([PLATTER, *args], capture_output=True, text=True)


def test_policy_from_declarations(tmp):
    # The sim's policy follows from what the kernels declare and what the
    # device shows the guest, whatever the kernels are called: a kernel
    # that declares an empty list is predicted as the pinned kernel, even
    # a variant that declares more of its own (the sim column of a custom
    # pair showed base numbers for both before, or fops numbers for
    # anything called fops).
    both = ["dsync_fua_no_flush", "dsync_fua_native_only"]
    # (no seed figures: seed-fops's are of base and fops, not of this pair)
    path = spec_file(tmp, "decl", pairs=[["fops", "all"]], kernels={"fops": [], "all": both},
                     seed={"cells": {}},
                     devices=[{"frontend": "nvme"},
                              {"frontend": "nvme", "name": "nvme-nofua", "fua": "off"},
                              {"frontend": "virtio-blk", "write_cache": "off", "name": "wt"},
                              {"frontend": "nvme", "write_cache": "off", "name": "nvme-wt"},
                              {"frontend": "scsi-hd", "dpofua": "off",
                               "frontend_props": {"physical_block_size": 4096}, "queue_depth": 4}],
                     workloads=[{"name": "seq", "test": "dsync", "args": ["--pattern", "seq"]}])
    exp = expspec.load(path)
    policy = {}
    for cell in matrix.cells(exp):
        cmd = matrix.sim_command(cell, 1, SIM)
        policy[cell["id"].split(".", 2)[2]] = cmd[cmd.index("--policy") + 1]
    assert policy == {"nvme.fops": "fua+flush", "nvme.all": "fua",
                      # the guest sends FUA; QEMU writes + flushes for a drive without
                      "nvme-nofua.fops": "fua-emulated", "nvme-nofua.all": "write+flush",
                      "wt.fops": "write", "wt.all": "write",
                      # no volatile write cache reported: no FUA, no flush
                      "nvme-wt.fops": "write", "nvme-wt.all": "write",
                      "scsi-hd-dpofua-off.fops": "fua-emulated",
                      "scsi-hd-dpofua-off.all": "write+flush"}, policy
    g = {c["id"]: matrix.guest_command(c, 1) for c in matrix.cells(exp)}
    wt = g["seq.st20000nm007d.wt.all"]
    # one value for the front end and the drive
    assert wt[wt.index("--write-cache") + 1] == "off" and \
        "write-cache=off" in wt[wt.index("--drive-opts") + 1], wt
    assert wt[wt.index("--expect") + 1] == "fua:0,write_cache:write_through", wt
    nw = g["seq.st20000nm007d.nvme-wt.all"]
    assert nw[nw.index("--write-cache") + 1] == "off" and \
        "write-cache=off" in nw[nw.index("--drive-opts") + 1] and \
        nw[nw.index("--expect") + 1] == "fua:0,write_cache:write_through", nw
    p = subprocess.run([nw[0], "--check", *nw[1:]], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    nf = g["seq.st20000nm007d.nvme-nofua.all"]
    assert "fua=off" in nf[nf.index("--drive-opts") + 1] and \
        nf[nf.index("--expect") + 1] == "fua:1,write_cache:write_back", nf
    sd = g["seq.st20000nm007d.scsi-hd-dpofua-off.all"]
    assert sd[sd.index("--frontend-opts") + 1] == "physical_block_size=4096" and \
        "queue-depth=4," in sd[sd.index("--drive-opts") + 1], sd
    sc = matrix.sim_command(next(c for c in matrix.cells(exp)
                                 if c["device"].get("queue_depth")), 1, SIM)
    assert sc[sc.index("--queue-depth") + 1] == "4", sc
    p = subprocess.run([sd[0], "--check", *sd[1:]], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    # and the sim's counters follow: no flush on the write-through drive,
    # one per write for the emulated FUA
    out = os.path.join(tmp, "o")
    p = run("compare", path, "--sim-only", "--sim", SIM, "--runtime", "0.5", "--out", out)
    assert p.returncode == 0, p.stderr
    by = {c["id"]: c["sim"]["summary"]["per_io"] for c in
          json.load(open(os.path.join(out, "report.json")))["cells"]}
    assert round(by["seq.st20000nm007d.wt.all"]["flushes"], 1) == 0.0, by
    assert by["seq.st20000nm007d.nvme-wt.fops"]["flushes"] == 0.0 and \
        by["seq.st20000nm007d.nvme-wt.fops"]["fua_writes"] == 0.0, by
    assert round(by["seq.st20000nm007d.nvme-nofua.all"]["flushes"], 1) == 1.0, by
    assert round(by["seq.st20000nm007d.nvme-nofua.fops"]["flushes"], 1) == 2.0, by


def test_campaign_paths_from_its_directory(tmp):
    # a campaign's kernel and profile files are found beside it, wherever
    # platter runs (they were looked up from the current directory)
    from platterlib import powercut
    d = os.path.join(tmp, "mine")
    os.makedirs(d)
    with open(os.path.join(d, "my.profile"), "w") as f:
        f.write(open(os.path.join(paths.ROOT, "hw-model", "profiles",
                                  "generic-7200.profile")).read())
    with open(os.path.join(d, "new.patch"), "w") as f:
        f.write("--- /dev/null\n+++ b/platter-test.c\n@@ -0,0 +1 @@\n+int c;\n")
    spec = json.load(open(os.path.join(powercut.CAMPAIGNS, "fops-nvme.json")))
    spec.update(name="mine", variant="patches:new.patch", profile="my.profile")
    path = os.path.join(d, "mine.json")
    with open(path, "w") as f:
        json.dump(spec, f)
    cwd = os.getcwd()
    os.chdir(tmp)
    try:
        c = powercut.load("mine/mine.json")
    finally:
        os.chdir(cwd)
    cmd = powercut.write_command(c, 7)
    assert cmd[cmd.index("--kernel") + 1] == f"patches:{d}/new.patch", cmd
    assert f"profile={d}/my.profile," in cmd[cmd.index("--drive-opts") + 1], cmd
    assert powercut.rerun_command(c, 7) == f"scripts/platter powercut {path} --seeds 7"
    assert powercut.rerun_command(powercut.load("fops-nvme"), 7) == \
        "scripts/platter powercut fops-nvme --seeds 7"
    p = subprocess.run([cmd[0], "--check", *cmd[1:]], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr


def test_campaign_report_of_given_seeds(tmp):
    # a report of cuts run with --seeds said "campaign seed None" and told
    # to rerun them with "--seed None", which platter refuses
    from platterlib import powercut
    doc = json.load(open(os.path.join(paths.ROOT, "docs", "results", "powercut",
                                      "xfs-virtio-blk", "seeds-29-44", "report.json")))
    doc["meta"]["seed"] = None
    md = powercut.markdown(doc)
    assert "None" not in md, md
    seeds = ",".join(str(r["seed"]) for r in doc["cuts"])
    assert f"`scripts/platter powercut xfs-virtio-blk --seeds {seeds}`" in md, md
    doc["meta"]["seed"] = 3
    md = powercut.markdown(doc)
    assert "campaign seed 3;" in md and f"--cuts {len(doc['cuts'])} --seed 3`" in md, md


def test_soak_record_names_no_checkout(tmp):
    # a soak's record showed run-guest by its absolute path in the checkout
    # it ran from, and the committed records named that machine's checkout
    import types
    from platterlib import soak
    a = types.SimpleNamespace(kernel="fops", frontend="scsi-hd", profile="st20000nm007d",
                              cut_every_ms=1000, seed=1, scsi_retries=None, cpu=None, jobs=4,
                              slice_kib=512, stride_mib=1024, requests=10, max_sectors=8,
                              timeout=100, expect="no-loss")
    cmd = soak.recorded_command(a)
    assert cmd.startswith("scripts/run-guest ") and paths.ROOT not in cmd, cmd


def test_campaign_merge(tmp):
    # a campaign run in parts (--seeds) merges into one record
    src = os.path.join(paths.ROOT, "docs", "results", "powercut", "xfs-virtio-blk")
    a, b = os.path.join(src, "seeds-29-44"), os.path.join(src, "seeds-45-60")
    out = os.path.join(tmp, "merged")
    p = run("powercut", "xfs-virtio-blk", "--merge", a, "--merge", b, "--out", out)
    assert p.returncode == 0, p.stderr
    doc = json.load(open(os.path.join(out, "report.json")))
    parts = [json.load(open(os.path.join(d, "report.json"))) for d in (a, b)]
    assert doc["summary"]["cuts"] == 32, doc["summary"]
    assert doc["summary"]["acked_writes_checked"] == \
        sum(x["summary"]["acked_writes_checked"] for x in parts)
    assert [r["seed"] for r in doc["cuts"]] == \
        [r["seed"] for x in parts for r in x["cuts"]]
    assert "Merged from 2 parts" in open(os.path.join(out, "report.md")).read()
    # the same cut in two parts, the output onto a part, another campaign
    for args, err in [(["--merge", a, "--merge", a], "a cut in two parts"),
                      (["--merge", a, "--merge", b, "--out", a], "never overwrites"),
                      (["--merge", a, "--seeds", "5"], "--merge takes one campaign")]:
        argv = ["powercut", "xfs-virtio-blk", *args]
        if "--out" not in args:
            argv += ["--out", os.path.join(tmp, "x")]
        p = run(*argv)
        assert p.returncode == 2 and err in p.stderr, (args, p.returncode, p.stderr)
    p = run("powercut", "fops-nvme", "--merge", a, "--out", os.path.join(tmp, "y"))
    assert p.returncode == 2 and "not a report of campaign 'fops-nvme'" in p.stderr, p.stderr
    # a cut that could not run in one part counts once, as its rerun ran
    err = os.path.join(tmp, "with-error")
    os.makedirs(err)
    bad = json.load(open(os.path.join(a, "report.json")))
    bad["cuts"][0] = {"seed": bad["cuts"][0]["seed"], "verdict": "error",
                      "workload": bad["cuts"][0]["workload"], "error": "killed"}
    with open(os.path.join(err, "report.json"), "w") as f:
        json.dump(bad, f)
    rerun = os.path.join(tmp, "rerun")
    os.makedirs(rerun)
    one = json.load(open(os.path.join(a, "report.json")))
    one["cuts"] = one["cuts"][:1]
    with open(os.path.join(rerun, "report.json"), "w") as f:
        json.dump(one, f)
    out = os.path.join(tmp, "merged2")
    p = run("powercut", "xfs-virtio-blk", "--merge", err, "--merge", rerun, "--out", out)
    assert p.returncode == 0, p.stderr
    doc = json.load(open(os.path.join(out, "report.json")))
    assert doc["summary"]["errors"] == 0 and doc["summary"]["cuts"] == 16, doc["summary"]
    assert doc["meta"]["errors_rerun"] == [one["cuts"][0]["seed"]], doc["meta"]


def test_list_kinds(tmp):
    # issue 40: `platter list profiles|cpus|kernels|experiments|clients`, each
    # from the files platter runs with (a new profile or CPU file shows up)
    def run(*args):
        p = subprocess.run([PLATTER, "list", *args], capture_output=True, text=True)
        assert p.returncode == 0 and p.stderr == "", (args, p)
        return p.stdout
    prof = run("profiles")
    names = sorted(f[:-8] for f in os.listdir(os.path.join(ROOT, "hw-model", "profiles"))
                   if f.endswith(".profile"))
    assert [ln.split()[0] for ln in prof.splitlines()] == names, prof
    assert re.search(r"^st20000nm007d +hdd 7200 rpm +20000\.6 GB  \S", prof, re.M), prof
    assert re.search(r"^990pro +flash +2000\.4 GB  Samsung", prof, re.M), prof
    cpus = run("cpus")
    assert re.search(r"^skylake-sp-kvm +skylake-sp-kvm: ", cpus, re.M), cpus
    assert run("kernels").split()[:3] == ["base", "fops", "xfs"]
    assert run() == run("experiments") and "seed-fops " in run()
    comp = subprocess.run([PLATTER, "completion", "bash"], capture_output=True,
                          text=True).stdout
    assert 'list) words="experiments profiles cpus kernels clients"' in comp, comp
    assert run("clients").split()[0] == "pg_test_fsync"


def test_closed_pipe_is_silent(tmp):
    # `platter list | head -1`: a reader that went away ends platter by
    # SIGPIPE without a word, as it ends cat (it printed "cannot write the
    # output to stdout: Broken pipe" and exited 1)
    import signal
    r, w = os.pipe()
    os.close(r)
    try:
        p = subprocess.run([PLATTER, "list"], stdout=w, stderr=subprocess.PIPE, text=True)
    finally:
        os.close(w)
    assert p.returncode == -signal.SIGPIPE and p.stderr == "", (p.returncode, p.stderr)
    # the helpers run-guest reads with $(python3 -m platterlib.X ...): a
    # stop that killed run-guest first gave a BrokenPipeError traceback
    # on the user's terminal (signals family, SIGTERM+SIGINT on `run`)
    for argv in (["cli", "size", "4K", "KMGT", ""], ["kernelspec", "parse", "base"],
                 ["driveopts", "check", "driver=hddmodel,profile=ideal"],
                 ["cpuprofile", "resolve", "skylake-sp-kvm"]):
        r, w = os.pipe()
        os.close(r)
        try:
            p = subprocess.run([sys.executable, "-m", "platterlib." + argv[0], *argv[1:]],
                               stdout=w, stderr=subprocess.PIPE, text=True,
                               env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "scripts")))
        finally:
            os.close(w)
        assert p.returncode in (-signal.SIGPIPE, 0, 2) and "Traceback" not in p.stderr, \
            (argv, p.returncode, p.stderr[-800:])
    # and the Python the shell scripts run inline: a cache key's hash
    # (build-initramfs, build-kernel: SIGTERM on `exec` during its build)
    r, w = os.pipe()
    os.close(r)
    try:
        p = subprocess.run(["sh", "-c", '. "$1/scripts/lib/guest-common.sh"; hash_listing "$1/README.md" x',
                            os.path.join(ROOT, "scripts", "run-guest"), ROOT],
                           stdout=w, stderr=subprocess.PIPE, text=True)
    finally:
        os.close(w)
    assert "Traceback" not in p.stderr, p.stderr[-800:]
    with open("/dev/full", "w") as full:   # a full disk is still an error line
        p = subprocess.run([PLATTER, "list"], stdout=full, stderr=subprocess.PIPE, text=True)
    assert p.returncode == 125 and p.stderr == \
        "platter: cannot write the output to stdout: No space left on device\n", p.stderr


def text_boxes(path):
    """(width, height, [(x0, x1, y, text)]) of an SVG's unrotated texts,
    each as wide as report lays it out (CHAR_PX a character)."""
    import xml.etree.ElementTree as ET
    from platterlib import report
    root = ET.parse(path).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    boxes = []

    def walk(node, dy):
        for child in node:
            m = re.fullmatch(r"translate\(0,([0-9.]+)\)", child.get("transform", ""))
            if child.tag == ns + "g":
                walk(child, dy + float(m.group(1)) if m else dy)
            elif child.tag == ns + "text" and "x" in child.attrib and \
                    "rotate" not in child.get("transform", ""):
                x, y, wd = float(child.get("x")), float(child.get("y")) + dy, \
                    report.CHAR_PX * len(child.text)
                x0 = {"middle": x - wd / 2, "end": x - wd}.get(child.get("text-anchor"), x)
                boxes.append((x0, x0 + wd, y, child.text))
    walk(root, 0)
    return float(root.get("width")), float(root.get("height")), boxes


def test_percentile_plot_labels(tmp):
    # the percentile plot: latency on a log axis (decades), the percentile
    # axis to the tail the samples resolve, and no label past the picture
    # or over another (a 99.999% label ran 3 px past the right edge)
    from platterlib import report
    many = [(i / 100000, 100 + i / 100) for i in range(1, 100000, 37)]
    for tail, pts in (("99.99%", many), ("99.9%", [(0.5, 130), (0.999, 569), (1.0, 900)]),
                      ("99.999%", [(0.5, 100), (0.99999, 300), (1.0, 400)])):
        path = os.path.join(tmp, "p.svg")
        assert report.percentile_chart("t", [("base (guest)", "#000", pts),
                                             ("fops (sim)", "#111", [(0.5, 120), (1.0, 140)])],
                                       path)
        w, h, boxes = text_boxes(path)
        texts = [t for _, _, _, t in boxes]
        assert texts[texts.index("0%"):texts.index(tail) + 1] == \
            ["0%", "90%", "99%", "99.9%", "99.99%", "99.999%"][:texts.index(tail) -
                                                              texts.index("0%") + 1]
        assert "100" in texts and "1000" in texts, texts
        for x0, x1, y, t in boxes:
            assert 0 <= x0 and x1 <= w and 0 < y <= h, (t, x0, x1, y, w, h)
        rows = {}
        for x0, x1, y, t in boxes:
            rows.setdefault(round(y), []).append((x0, x1, t))
        for row in rows.values():
            row.sort()
            for (a0, a1, at), (b0, b1, bt) in zip(row, row[1:]):
                assert a1 <= b0, (at, bt, a1, b0)


def test_gate(tmp):
    # patched against base: fops only gains on seed-fops, so a -2% IOPS
    # bound passes; swapping the pair makes base the "patched" kernel and
    # every FUA cell regresses: exit 1, one verdict line per cell, JUnit
    out = os.path.join(tmp, "ok")
    p = run("compare", "seed-fops", "--sim-only", "--sim", SIM, "--runtime", "0.5",
            "--out", out, "--gate", "iops:-2%,p99:+5%")
    assert p.returncode == 0, p.stderr
    lines = [ln for ln in p.stderr.splitlines() if ln.startswith(("PASS ", "FAIL "))]
    assert len(lines) == 6 and all(ln.startswith("PASS ") for ln in lines), lines
    import xml.etree.ElementTree as ET
    ts = ET.parse(os.path.join(out, "junit.xml")).getroot()
    assert ts.get("tests") == "6" and ts.get("failures") == "0", ET.tostring(ts)
    swapped = spec_file(tmp, "swapped", pairs=[["fops", "base"]],
                        kernels={"fops": ["dsync_fua_no_flush", "dsync_fua_native_only"]})
    p = run("compare", swapped, "--sim-only", "--sim", SIM, "--runtime", "0.5",
            "--out", os.path.join(tmp, "bad"), "--gate", "iops:-2%",
            "--junit", os.path.join(tmp, "j.xml"), "--tap", os.path.join(tmp, "v.tap"))
    assert p.returncode == 1, p.stderr
    fails = [ln for ln in p.stderr.splitlines() if ln.startswith("FAIL ")]
    # --tap: the same verdicts as TAP, a test point per cell, its checks after it
    tap = open(os.path.join(tmp, "v.tap")).read().splitlines()
    assert tap[:2] == ["TAP version 13", "1..6"], tap
    points = [ln for ln in tap if ln.startswith(("ok ", "not ok "))]
    assert [ln.startswith("not ok") for ln in points].count(True) == len(fails) == 4, tap
    first_bad = tap.index(next(ln for ln in points if ln.startswith("not ok")))
    assert "BEYOND THE BOUND" in tap[first_bad + 1] and tap[first_bad + 1].startswith("# "), tap
    # without a rule there is nothing to write
    p = run("compare", swapped, "--sim-only", "--sim", SIM, "--runtime", "0.5",
            "--out", os.path.join(tmp, "none"), "--tap", os.path.join(tmp, "w.tap"))
    assert p.returncode == 2 and "--tap needs a rule" in p.stderr, p.stderr
    # nor onto the JUnit file
    j = os.path.join(tmp, "j2.xml")
    p = run("compare", swapped, "--sim-only", "--sim", SIM, "--runtime", "0.5", "--gate",
            "iops:-2%", "--out", os.path.join(tmp, "none"), "--junit", j, "--tap", j)
    assert p.returncode == 2 and "--tap" in p.stderr and "is also --junit" in p.stderr, p.stderr
    # virtio-blk has no FUA: there fops keeps a flush per write and only
    # drops the emulated FUA's (base is 1.3% slower: inside the bound)
    assert len(fails) == 4 and all(".virtio-blk." not in ln for ln in fails), p.stderr
    assert "BEYOND THE BOUND" in fails[0] and "iops" in fails[0], fails
    ts = ET.parse(os.path.join(tmp, "j.xml")).getroot()
    assert ts.get("failures") == "4", ET.tostring(ts)
    # a bound of 0% fails any change in its direction: runs are deterministic
    p = run("gate", out, "--gate", "p50:+0%", "--baseline", out)
    assert p.returncode == 0 and "12 passed, 0 failed" in p.stderr, p.stderr


def test_gate_expect_and_baseline(tmp):
    # an expect block gates without --gate; --baseline judges every cell
    # against the saved report: a drive that lost its native FUA shows
    # where FUA mattered
    base_out = os.path.join(tmp, "base")
    p = run("compare", "seed-fops", "--sim-only", "--sim", SIM, "--runtime", "0.5",
            "--cells", "seq.*", "--out", base_out)
    assert p.returncode == 0, p.stderr
    nofua = spec_file(tmp, "nofua", devices=[{"frontend": "nvme", "fua": "off"},
                                             {"frontend": "scsi-hd", "dpofua": "on"},
                                             {"frontend": "virtio-blk"}],
                      expect={"iops": "-2%"},
                      kernels={"fops": ["dsync_fua_no_flush", "dsync_fua_native_only"]})
    p = run("compare", nofua, "--sim-only", "--sim", SIM, "--runtime", "0.5", "--cells",
            "seq.*", "--out", os.path.join(tmp, "n"), "--baseline", base_out)
    assert p.returncode == 1, p.stderr
    fails = sorted(ln.split()[1] for ln in p.stderr.splitlines() if ln.startswith("FAIL "))
    # fops loses its FUA-only write (a flush per write again); base's
    # second flush finds nothing dirty and costs nothing
    assert fails == ["seq.st20000nm007d.nvme.fops"], p.stderr
    # merged shards are judged like the whole
    parts = []
    for k in (1, 2):
        parts.append(os.path.join(tmp, f"p{k}"))
        assert run("compare", nofua, "--sim-only", "--sim", SIM, "--runtime", "0.5",
                   "--cells", "seq.*", "--shard", f"{k}/2", "--out", parts[-1]).returncode == 0
    p = run("merge", "--out", os.path.join(tmp, "m"), *parts, "--baseline", base_out)
    assert p.returncode == 1 and sorted(
        ln.split()[1] for ln in p.stderr.splitlines() if ln.startswith("FAIL ")) == fails


def test_progress_line_without_figures(tmp):
    # a guest result without an average latency must not end the run
    # after every cell ran (it raised TypeError in the progress line)
    import importlib.machinery
    import importlib.util
    loader = importlib.machinery.SourceFileLoader("platter_cli", PLATTER)
    spec = importlib.util.spec_from_loader("platter_cli", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    line = mod.cell_line({"id": "c", "guest": {"summary": {"iops": None, "lat_us": {}}},
                          "sim": {"summary": {"iops": 5.0, "lat_us": {"avg": 2.0}}}})
    assert line == "c: guest - IOPS avg - us; sim 5.0 IOPS avg 2.0 us", line


def test_exit_status_table(tmp):
    # docs/guide.md, "Exit codes": each status from its own cause, so CI
    # and `git bisect run` tell a regression from bad input or a broken host
    cells = ("--sim-only", "--runtime", "0.1", "--cells", "seq.*.nvme.*")
    p = run("compare", "seed-fops", "--sim", SIM, *cells, "--out", os.path.join(tmp, "0"),
            "--gate", "iops:-2%")
    assert p.returncode == 0 and "1 passed, 0 failed" in p.stderr, p.stderr
    swapped = spec_file(tmp, "swapped", pairs=[["fops", "base"]],
                        kernels={"fops": ["dsync_fua_no_flush", "dsync_fua_native_only"]})
    p = run("compare", swapped, "--sim", SIM, *cells, "--out", os.path.join(tmp, "1"),
            "--gate", "iops:-2%")
    assert p.returncode == 1 and "0 passed, 1 failed" in p.stderr, p.stderr
    p = run("compare", spec_file(tmp, "bad", runtime=-1), "--sim", SIM, *cells)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and \
        "runtime: -1 is not a duration" in p.stderr, p.stderr
    # a platter-sim that fails: no cell has a figure, nothing was judged
    p = run("compare", "seed-fops", "--sim", "/bin/false", *cells,
            "--out", os.path.join(tmp, "125"), "--gate", "iops:-2%")
    assert p.returncode == 125 and "2 cell(s) failed" in p.stderr, p.stderr


def test_output_hygiene(tmp):
    out = os.path.join(tmp, "o")
    sim = ("--sim-only", "--sim", os.path.abspath(SIM), "--runtime", "0.1")
    p = run("compare", "seed-fops", *sim, "--out", out, "--gate", "iops:-2%")
    assert p.returncode == 0, p.stderr
    assert "junit.xml" in os.listdir(out) and len(glob_svg(out)) == 7, os.listdir(out)
    # a rerun of a subset replaces the whole report: no stale plot or verdicts
    p = run("compare", "seed-fops", *sim, "--out", out, "--cells", "seq.*.nvme.*")
    assert p.returncode == 0, p.stderr
    assert sorted(os.listdir(out)) == ["cdf-seq-st20000nm007d-nvme.svg", "iops.svg",
                                      "report.json", "report.md"], os.listdir(out)
    # another spec's report, or a folder of other files: refused, untouched
    p = run("compare", "seed-xfs", *sim, "--out", out)
    assert p.returncode == 2 and "holds a report of another spec ('seed-fops')" in p.stderr, \
        p.stderr
    other = os.path.join(tmp, "other")
    os.makedirs(other)
    open(os.path.join(other, "notes.txt"), "w").close()
    p = run("compare", "seed-fops", *sim, "--out", other)
    assert p.returncode == 2 and "not empty and not a report directory" in p.stderr, p.stderr
    assert os.listdir(other) == ["notes.txt"]
    # the default folder: under the working directory, never an earlier run's
    cwd = os.path.join(tmp, "cwd")
    os.makedirs(cwd)
    for want in ("results/seed-fops", "results/seed-fops-2"):
        p = subprocess.run([PLATTER, "compare", "seed-fops", *sim, "--cells", "seq.*.nvme.*"],
                           capture_output=True, text=True, cwd=cwd)
        assert p.returncode == 0 and p.stdout == want + "\n", (p.stdout, p.stderr)
    # a baseline of another runtime judges nothing
    p = run("compare", "seed-fops", "--sim-only", "--sim", SIM, "--runtime", "0.2",
            "--out", os.path.join(tmp, "b"), "--baseline", out, "--gate", "iops:-2%")
    assert p.returncode == 2 and "runtime_s 0.1 there, 0.2 here: not comparable" in p.stderr, \
        p.stderr
    assert not os.path.exists(os.path.join(tmp, "b"))
    # nor one whose workload of the same name ran something else
    bs8k = spec_file(tmp, "bs8k", workloads=[
        {"name": "seq", "test": "dsync", "args": ["--pattern", "seq", "--bs", "8192"]}])
    p = run("compare", bs8k, *sim, "--cells", "seq.*.nvme.*", "--out", os.path.join(tmp, "b"),
            "--baseline", out, "--gate", "iops:-2%")
    assert p.returncode == 2 and "cell seq.st20000nm007d.nvme.base ran another workload " \
        "there" in p.stderr, p.stderr


def test_headline(tmp):
    # compare ends with the summary (stderr; stdout keeps the folder alone)
    # and report.md opens with it; a sim-only report has no guest columns
    out = os.path.join(tmp, "h")
    p = run("compare", "seed-fops", "--sim-only", "--sim", SIM, "--runtime", "1", "--out", out,
            "--gate", "iops:-2%")
    assert p.returncode == 0 and p.stdout == out + "\n", p.stdout
    tail = p.stderr.splitlines()[-10:-1]
    assert tail[0] == "" and tail[1].startswith("seed-fops: sim IOPS, 1 s per cell, platter "), tail
    assert tail[2].split() == ["cell", "base", "fops", "change", "verdict"], tail
    assert tail[6].split() == ["seq.st20000nm007d.nvme", "119.0", "7,528", "+6226.1%", "PASS"], tail
    assert all(len(ln) <= 72 for ln in tail), tail
    assert p.stderr.splitlines()[-1].startswith("platter: gate: 6 passed, 0 failed"), p.stderr
    md = open(os.path.join(out, "report.md")).read().splitlines()
    first_table = next(i for i, ln in enumerate(md) if ln.startswith("|"))
    assert md[first_table] == "| cell | base | patched | sim IOPS base | patched | change | " \
        "verdict |", md[first_table]
    assert "| seq.st20000nm007d.nvme | base | fops | 119.0 | 7,528 | +6226.1% | PASS |" in md
    assert "(guest)" not in "\n".join(md)
    assert "| platter | " in "\n".join(md) and not any(ln.startswith("- versions") for ln in md)


def test_bisect_driver(tmp):
    # the search itself on a real git tree of 7 commits after GOOD, with
    # stand-in cells instead of kernels: commit 4 halves the IOPS, commit 5
    # "does not build" (skipped, as git bisect run skips 125)
    import argparse
    from platterlib import bisect, cli as pcli
    tree = os.path.join(tmp, "t")
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@t")
    os.makedirs(os.path.join(tree, "scripts", "kconfig"))
    open(os.path.join(tree, "scripts", "kconfig", "merge_config.sh"), "w").close()
    subprocess.run(["git", "init", "-q", tree], check=True)
    subprocess.run(["git", "-C", tree, "add", "-A"], check=True)
    for i in range(8):
        subprocess.run(["git", "-C", tree, "commit", "-q", "--allow-empty", "-m", f"c{i}"],
                       check=True, env=env)
    revs = subprocess.run(["git", "-C", tree, "rev-list", "--reverse", "HEAD"],
                          capture_output=True, text=True).stdout.split()
    iops = {r: (50.0 if i >= 4 else 100.0) for i, r in enumerate(revs)}
    tried = []

    def spec_for(good, rev):
        return matrix.default_matrix(f"tree:{tree}@{good}", f"tree:{tree}@{rev}")

    def run_rev(cells):
        rev = cells[0]["kernel"].rsplit("@", 1)[1]
        tried.append(revs.index(rev))
        if revs.index(rev) == 5:
            return pcli.InfraError("platter: building the kernel failed")
        # records as run_cell makes them: workload and device by name
        return [dict(c, workload=c["workload"]["name"], device=devicespec.device_name(c["device"]),
                     sim={"summary": {"iops": iops[rev]}}, runtime_s=1) for c in cells]

    out = os.path.join(tmp, "out")
    os.makedirs(out)
    a = argparse.Namespace(tree=tree, good=revs[0], bad="HEAD", gate="iops:-2%", out=out)
    import contextlib, io
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = bisect.run(a, spec_for, run_rev)
    doc = json.load(open(os.path.join(out, "bisect.json")))
    assert status == 0 and doc["first_bad"]["commit"] == revs[4], (status, doc)
    assert doc["first_bad"]["subject"] == "c4" and doc["first_bad"]["parent"] == revs[3]
    # good first, then BAD, then the middle; 5 skipped, its neighbour 4 tried
    assert tried == [0, 7, 3, 5, 4], tried
    verdicts = {revs.index(s["commit"]): s["verdict"] for s in doc["steps"]}
    assert verdicts == {7: "bad", 3: "good", 5: "skip", 4: "bad"}, verdicts
    f = doc["first_bad"]["figures"]
    assert list(f["first_bad"].values())[0] == 50.0 and list(f["parent"].values())[0] == 100.0
    assert "first bad commit: " + revs[4][:12] + " c4" in err.getvalue(), err.getvalue()
    assert bisect.Search(8).next() == 3


def test_kernels_side_by_side(tmp):
    # --kernels A,B,C: B and C each judged against A, one summary row a cell
    out = os.path.join(tmp, "k")
    p = run("compare", "--kernels", "base,fops,fops-broken", "--sim-only", "--sim", SIM,
            "--runtime", "0.5", "--devices", "virtio-blk", "--out", out)
    assert p.returncode == 0, p.stderr
    doc = json.load(open(os.path.join(out, "report.json")))
    assert doc["spec"]["pairs"] == [["base", "fops"], ["base", "fops-broken"]], doc["spec"]
    tail = p.stderr.splitlines()[-3:]
    assert tail[0].split() == ["cell", "base", "fops", "change", "fops-broken", "change",
                               "verdict"], tail
    # virtio-blk has no FUA: fops keeps the flush, fops-broken drops it
    row = tail[2].split()
    assert row[0] == "seq.st20000nm007d.virtio-blk" and row[3] == "+0.0%" and \
        row[5].startswith("+") and row[5] != "+0.0%", row
    p = run("compare", "--kernels", "base", "--sim-only", "--sim", SIM)
    assert p.returncode == 2 and "is not two or more comma-separated kernels" in p.stderr


def glob_svg(d):
    return [n for n in os.listdir(d) if n.endswith(".svg")]


def test_doctor(tmp):
    # what a new user is told: the OS it does not handle, by name; a cache
    # it cannot write; each of this checkout's entries, missing in an empty
    # cache, with the time to build it
    osr = os.path.join(tmp, "os-release")
    with open(osr, "w") as f:
        f.write('PRETTY_NAME="Ubuntu 24.04 LTS"\nID=ubuntu\nVERSION_ID="24.04"\n')
    env = dict(os.environ, PLATTER_OS_RELEASE=osr, PLATTER_CACHE=os.path.join(osr, "cache"))
    p = subprocess.run([PLATTER, "doctor"], capture_output=True, text=True, env=env)
    lines = p.stdout.splitlines()
    # a FAIL line fails the command (issue 39: FAIL with status 0)
    assert p.returncode == 125 and p.stderr == "", (p.returncode, p.stderr)
    assert lines[0].startswith("warn  OS: Ubuntu 24.04 LTS: not Debian 12"), lines
    assert any(ln == f"FAIL  build cache: {osr}/cache (from $PLATTER_CACHE; the rule: "
               "$PLATTER_CACHE, else $XDG_CACHE_HOME/platter, else ~/.cache/platter; "
               f"{osr} is not a writable directory: set PLATTER_CACHE)" for ln in lines), lines
    assert any(ln.startswith("warn  to build kernel base: about ") for ln in lines), lines
    env = dict(os.environ, PLATTER_CACHE=os.path.join(tmp, "c"))
    p = subprocess.run([PLATTER, "doctor"], capture_output=True, text=True, env=env)
    assert any(ln.startswith("ok    build cache: " + os.path.join(tmp, "c") + " (from $PLATTER_CACHE;")
               and ln.endswith("; writable)") for ln in p.stdout.splitlines()), p.stdout
    # where things live, in README's and the guide's words: the rule's step
    # that gave the cache (platter sets $PLATTER_CACHE for its scripts, so
    # doctor must name what it was given), the results, the installed files
    env = {k: v for k, v in os.environ.items() if k not in ("PLATTER_CACHE", "XDG_CACHE_HOME")}
    env["HOME"] = tmp
    p = subprocess.run([PLATTER, "doctor"], capture_output=True, text=True, env=env, cwd=tmp)
    lines = p.stdout.splitlines()
    assert any(ln.startswith(f"ok    build cache: {tmp}/.cache/platter (from ~/.cache/platter;")
               for ln in lines), lines
    assert any(ln.startswith(f"ok    results: results/NAME under the working directory ({tmp})")
               for ln in lines), lines
    assert any(ln.startswith("ok    installed files: ") for ln in lines), lines
    assert (p.returncode == 0) == ("\nFAIL " not in "\n" + p.stdout), (p.returncode, p.stdout)


def test_firmware_version(tmp):
    # the SeaBIOS release run-guest and doctor read from a firmware image:
    # Debian's and upstream's version strings, and an image without one;
    # 1.16.2 (bookworm's) is below what a sata guest needs (host.sh)
    host_sh = os.path.join(ROOT, "scripts", "lib", "host.sh")
    cases = [(b"\0SeaBIOS (version %s)\0\x011.16.2-debian-1.16.2-1\0x", "1.16.2", False),
             (b"junk 1.2\0rel-1.16.3-0-g1e1da7a9\0", "1.16.3", True),
             (b"\x7f1.17.0-debian-1.17.0-1\0", "1.17.0", True),
             (b"no version here 1.16\0" * 50, "", False)]
    for i, (data, want, new_enough) in enumerate(cases):
        img = os.path.join(tmp, f"bios-{i}.bin")
        with open(img, "wb") as f:
            f.write(data)
        p = subprocess.run(["bash", "-c", 'set -euo pipefail; . "$1"; v=$(seabios_version "$2"); '
                            'echo "$v"; version_at_least "$v" "$host_seabios_min" && echo new || echo old',
                            "sh", host_sh, img], capture_output=True, text=True)
        assert p.returncode == 0 and p.stdout.split("\n")[:2] == [want, "new" if new_enough else "old"], \
            (data[:40], p.returncode, p.stdout, p.stderr)
    p = subprocess.run([PLATTER, "doctor"], capture_output=True, text=True)
    assert any(ln.startswith(("ok    firmware: SeaBIOS ", "warn  firmware: "))
               for ln in p.stdout.splitlines()), p.stdout


def test_help_names_every_frontend(tmp):
    # the overview's flag vocabulary lists the front ends the specs take
    # (it once left out sata, added after it was written)
    p = run("--help")
    assert p.returncode == 0, p.stderr
    line = next((ln for ln in p.stdout.splitlines() if "--frontend" in ln), "")
    for fe in expspec.DEVICE_KEYS["frontend"][1]:
        assert fe in line.split("--frontend", 1)[1], f"--help's '{line}' lacks {fe}"


tap.run([("deterministic report, flushes per I/O", test_deterministic_and_shape),
         ("shard and merge", test_shard_and_merge),
         ("vCPUs and blk-flush queues", test_vcpus_and_flush_queues),
         ("recorded commands name no checkout path", test_commands_do_not_name_the_checkout),
         ("guest command at the largest runtime, vCPUs and ipns", test_guest_command_at_the_bounds),
         ("a device's CPU profile: run-guest --cpu, refused when bad", test_device_cpu_profile),
         ("the report names the guest machine and its CPU profile",
          test_report_names_the_guest_machine),
         ("bad input", test_bad_input),
         ("report and merge carry the experiment spec", test_report_and_merge_carry_the_spec),
         ("merge of a --cells subset", test_merge_of_a_cells_subset),
         ("compare leaves no work directory or image; a rerun replaces cells/ and jobs/",
          test_compare_leaves_nothing_behind),
         ("compare builds kernels and initramfs once, before the cells", test_builds_before_cells),
         ("$PLATTER_SIM is the platter-sim platter runs", test_sim_from_the_environment),
         ("report and gate replace a link, never write through it; a large report stays "
          "readable", test_report_writes_no_link_and_stays_readable),
         ("--junit never replaces another file, and is checked before the cells",
          test_junit_never_replaces_a_file),
         ("SIGINT, SIGTERM or two SIGINTs stop compare and all it started",
          test_signal_stops_everything),
         ("SIGINTs until it ends: still status 130", test_signals_until_it_ends),
         ("a signal while platter starts: no traceback", test_signal_while_starting),
         ("a user's job file replaces the experiment's description",
          test_workloads_description),
         ("a signal while a child starts leaves neither it nor its folder",
          test_signal_while_spawning),
         ("a child that ended is not counted as running", test_ended_child_is_not_running),
         ("a signal stops platter's short helpers too", test_signal_stops_helpers),
         ("a signal while a temporary folder is made or removed leaves none",
          test_signal_in_temp_dir),
         ("a signal the kernel gives a worker thread is taken", test_signal_reaching_a_worker_thread),
         ("a stop SIGKILLs a child that ignores SIGTERM after its grace", test_stop_kills_a_stubborn_child),
         ("a helper's children stay in its session", test_helper_children_in_its_session),
         ("platter's version takes no .git/index.lock", test_version_takes_no_index_lock),
         ("a signal to run-guest alone stops QEMU", test_signal_to_run_guest_alone),
         ("a second signal during the children's cleanup leaves no work dir",
          test_second_signal_leaves_no_work_dir),
         ("a signal ignored at start (nohup) stays ignored",
          test_signal_ignored_at_start_stays_ignored),
         ("sim policy from the kernels' declarations and the device", test_policy_from_declarations),
         ("a campaign's relative paths start at its file", test_campaign_paths_from_its_directory),
         ("a report of --seeds cuts says how to rerun them", test_campaign_report_of_given_seeds),
         ("a campaign run in parts merges into one record", test_campaign_merge),
         ("a soak's record names no checkout", test_soak_record_names_no_checkout),
         ("a closed pipe ends platter silently", test_closed_pipe_is_silent),
         ("platter list profiles, cpus, kernels, experiments, clients", test_list_kinds),
         ("percentile plot: log axes, labels inside and apart", test_percentile_plot_labels),
         ("the gate: patched against base, one verdict per cell, JUnit", test_gate),
         ("the gate: expect block, --baseline, merged shards", test_gate_expect_and_baseline),
         ("progress line without figures", test_progress_line_without_figures),
         ("exit status 0, 1, 2 and 125, each from its cause", test_exit_status_table),
         ("platter doctor", test_doctor),
         ("the firmware's SeaBIOS release", test_firmware_version),
         ("--out: a rerun replaces its report, nothing else is overwritten", test_output_hygiene),
         ("the headline: compare's last lines, report.md's first table", test_headline),
         ("bisect: the search, skips and the result, on stand-in cells", test_bisect_driver),
         ("--kernels: three kernels side by side", test_kernels_side_by_side),
         ("--help names every front end", test_help_names_every_frontend)],
        with_tmpdir=True)
