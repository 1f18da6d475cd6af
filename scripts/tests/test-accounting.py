#!/usr/bin/python3
"""A cell's time accounting on the host: QEMU's accounting lines (in the
format qemu-patches 0010 and the hddmodel driver print at exit) read into
the result's "accounting", the measured window, the steady-state flag,
the resource that bound the cell, fio's per-interval IOPS log (made here
by the host's own fio, the Debian fio the guest runs) and the experiment
keys that shape a cell's phases (warmup_s, iops_log_ms, mem, timeout_s).
Prints TAP.  usage: test-accounting.py [FIO]"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from platterlib import tap, accounting, cellrun, cellsummary, expspec, fioout, matrix, paths, report  # noqa: E402

FIO = sys.argv[1] if len(sys.argv) > 1 else None
LIB = os.path.join(paths.ROOT, "scripts", "platterlib")

# Two vCPUs over 2 s of virtual time at ipns 2: vCPU 0 ran 1.8 s of the
# last second (all of it), vCPU 1 spun 0.5 s of it; one drive, busy for
# 0.95 s of the last second.  Samples every 0.5 s.
QEMU_TEXT = "\n".join([
    "some other line QEMU printed",
    "icount-vcpu cpu=0 clock_ns=2000000000 insns=3000000000 run_ns=1500000000 "
    "spun_insns=0 spun_ns=0 halted_ns=500000000 irqs=1000 ipis=10",
    "icount-vcpu cpu=1 clock_ns=2000000000 insns=200000000 run_ns=100000000 "
    "spun_insns=1000000000 spun_ns=500000000 halted_ns=1400000000 irqs=300 ipis=40",
    "icount-vcpu-samples cpus=2 0:0:0:0:0 500000000:500000000:0:100000000:0 "
    "1000000000:1000000000:0:200000000:0 1500000000:2000000000:0:200000000:500000000 "
    "2000000000:3000000000:0:200000000:1000000000",
    "hddmodel-accounting node=platter0 clock_ns=2000000000 front_busy_ns=1000000000 "
    "front_depth_ns=3000000000 front_max=8 model_busy_ns=1000000000 "
    "model_depth_ns=2000000000 model_max=4 submitted=2000 submit_wait_ns=2000000 "
    "submit_wait_max_ns=50000 completed=2000 complete_delay_ns=0 "
    "complete_delay_max_ns=0 reads=0 writes=2000",
    "hddmodel-samples node=platter0 0:0:0:0:0:0 500000000:0:0:0:0:0 "
    "1000000000:50000000:100000000:50000000:100000000:100 "
    "1500000000:525000000:1575000000:525000000:1050000000:1050",
    ""])


def tap_tmp(fn):
    with tempfile.TemporaryDirectory() as tmp:
        fn(tmp)


def acct():
    return accounting.from_qemu(QEMU_TEXT)


def check_from_qemu():
    a = acct()
    assert a["version"] == 1 and len(a["vcpus"]) == 2, a
    assert a["vcpus"][1]["spun_insns"] == 1000000000 and a["vcpus"][0]["ipis"] == 10
    assert a["vcpu_samples"]["cpus"] == 2 and len(a["vcpu_samples"]["samples"]) == 5
    d = a["devices"][0]
    assert d["node"] == "platter0" and d["model_max"] == 4 and d["writes"] == 2000, d
    assert len(d["samples"]) == 4 and d["samples"][3][5] == 1050
    # a generated node name ("#block187", a count that varies between runs)
    # becomes the drive's position; its samples stay with it
    g = accounting.from_qemu(QEMU_TEXT.replace("node=platter0", "node=#block187"))
    assert g["devices"][0]["node"] == "drive0" and g["devices"][0]["samples"] == d["samples"], \
        g["devices"][0]
    assert accounting.from_qemu("qemu: nothing of ours\n") is None
    # the totals end at the last sample: QEMU's exit came 20 instructions
    # later in one run of a cell than in another (poweroff), the samples
    # did not
    late = QEMU_TEXT.replace("clock_ns=2000000000 insns=3000000000 run_ns=1500000000",
                             "clock_ns=2000000010 insns=3000000020 run_ns=1500000010")
    b = accounting.from_qemu(late)
    assert b["vcpus"] == a["vcpus"], (b["vcpus"], a["vcpus"])
    assert a["vcpus"][0]["clock_ns"] == 2000000000 and a["vcpus"][0]["run_ns"] == 1500000000


def check_counts_at_last_sample():
    """A QEMU that samples interrupts and IPIs (per=...): the totals take
    them from the last sample, not from the exit line (an IPI among the
    host-dependent last instructions made two runs of one 8-vCPU cell
    differ by one), and the samples keep clock, insns and spun only."""
    def four(w):   # the old samples with IRQS:IPIS after each vCPU's pair
        v = w.split(":")
        return ":".join([v[0]] + [x for c in range(2) for x in v[1 + 2 * c:3 + 2 * c]
                                  + [str(100 + c + int(v[0]) // 10**9), str(7 * c)]])
    lines = QEMU_TEXT.split("\n")
    i = next(n for n, ln in enumerate(lines) if ln.startswith("icount-vcpu-samples"))
    words = lines[i].split()
    lines[i] = " ".join(words[:2] + ["per=insns,spun,irqs,ipis"] + [four(w) for w in words[2:]])
    a = accounting.from_qemu("\n".join(lines))
    old = acct()
    assert a["vcpu_samples"] == old["vcpu_samples"], a["vcpu_samples"]
    # exit lines say irqs 1000/300, ipis 10/40; the last sample 102/103, 0/7
    assert [(v["irqs"], v["ipis"]) for v in a["vcpus"]] == [(102, 0), (103, 7)], a["vcpus"]
    assert [(v["irqs"], v["ipis"]) for v in old["vcpus"]] == [(1000, 10), (300, 40)]
    for bad in ("icount-vcpu-samples cpus=2 per=insns,spun,irqs,ipis 1:2:3:4:5",
                "icount-vcpu-samples cpus=1 per=irqs,insns 1:2:3"):
        try:
            accounting.from_qemu(bad)
        except accounting.Malformed:
            continue
        raise AssertionError(f"accepted: {bad}")


# One vCPU at ipns 2 with a CPU profile's charges (run-guest --cpu): over
# 2 s it ran 2e9 instructions (1 s) and was charged 4e8 (0.2 s): 1000
# interrupts of 200000 instructions and 2e8 of atomics; samples carry the
# charged instructions and the events per kind (per=...,charged,...).  In the last second: 1.2e9 run (0.6 s),
# 2e8 charged (0.1 s).  QEMU exited 30 instructions after the last sample.
QEMU_CHARGED = "\n".join([
    "icount-vcpu cpu=0 clock_ns=2000000015 insns=2000000030 run_ns=1000000015 "
    "spun_insns=0 spun_ns=0 halted_ns=800000000 irqs=1000 ipis=0 "
    "charged_insns=400000000 charged_ns=200000000 owed_insns=0 "
    "irq_charges=1000 irq_charged_insns=200000000 exception_charges=0 "
    "exception_charged_insns=0 syscall_charges=0 syscall_charged_insns=0 "
    "io_charges=0 io_charged_insns=0 atomic_charges=2000000 "
    "atomic_charged_insns=200000000 ipi_charges=0 ipi_charged_insns=0",
    "icount-vcpu-samples cpus=1 per=insns,spun,irqs,ipis,charged,irq_charges,"
    "exception_charges,syscall_charges,io_charges,atomic_charges,ipi_charges "
    "0:0:0:0:0:0:0:0:0:0:0:0 "
    "1000000000:800000000:0:500:0:200000000:500:0:0:0:1000000:0 "
    "2000000000:2000000000:0:1000:0:400000000:1000:0:0:0:2000000:0",
    ""])


def check_charged():
    """A run with charges: the keys per kind, samples of three values per
    vCPU, totals ending at the last sample, and the window's charged
    share, which counts as busy."""
    a = accounting.from_qemu(QEMU_CHARGED)
    v = a["vcpus"][0]
    assert a["vcpu_samples"].get("charged") is True, a["vcpu_samples"]
    assert v["insns"] == 2000000000 and v["run_ns"] == 1000000000, v
    assert v["charged_insns"] == 400000000 and v["charged_ns"] == 200000000, v
    assert v["halted_ns"] == 800000000 and v["irq_charges"] == 1000, v
    assert v["atomic_charged_insns"] == 200000000 and "owed_insns" not in v, v
    s = accounting.summary(a, 1)
    r = s["vcpus"][0]
    assert (r["executing"], r["charged"], r["halted"]) == (0.6, 0.1, 0.3), r
    assert r["charges"]["irq"] == {"events": 1000, "ns": 100000000}, r["charges"]
    assert r["charges"]["atomic"]["ns"] == 100000000, r["charges"]
    md = "\n".join(accounting.markdown("c", s))
    assert "| charged | halted |" in md and "| 10.0% |" in md, md
    assert "irq 1,000 / 100.000 ms" in md, md
    # a run without charges keeps its old form: no charged column or key
    old = accounting.summary(acct(), 1)
    assert "charged" not in old["vcpus"][0], old["vcpus"][0]
    assert "charged" not in "\n".join(accounting.markdown("c", old))
    # charged time is busy time: 0.6 + 0.1 of the window is not 0.9
    assert accounting.bound_by([{"executing": 0.8, "spun": 0, "charged": 0.15}], []) == "vCPUs"


# With a CPU profile's transfer_cycles (qemu-patches 0019): the coherence
# totals and the lines that moved most
QEMU_COHERENCE = QEMU_CHARGED + "\n".join([
    "icount-coherence lines=27703 transfers=1003840 evictions=3",
    "icount-coherence-line rank=1 paddr=0x3f45a380 vaddr=0x4d5380 pc=0xffffffff81001010 "
    "cpus=0xff transfers=981603 waited_insns=1069089698",
    "icount-coherence-line rank=2 paddr=0x3e0a1fc0 vaddr=0xffff88803e0a1fc0 "
    "pc=0xffffffff81000ff0 cpus=0x5 transfers=1474 waited_insns=209357", ""])


def check_coherence(tmp):
    """The coherence lines: totals, each hot line's fields with its vCPUs
    as a list, named by the kernel's System.map, carried to the summary and
    shown in the report; a line without its fields is refused."""
    a = accounting.from_qemu(QEMU_COHERENCE)
    c = a["coherence"]
    assert (c["lines"], c["transfers"], c["evictions"]) == (27703, 1003840, 3), c
    top = c["lines_top"]
    assert [t["rank"] for t in top] == [1, 2] and top[0]["cpus"] == list(range(8)), top
    assert top[1]["cpus"] == [0, 2] and top[1]["waited_insns"] == 209357, top
    smap = os.path.join(tmp, "System.map")
    with open(smap, "w") as f:
        f.write("ffffffff81000000 T _stext\nffffffff81000fe0 T down_write\n"
                "ffffffff81001000 T up_write\nffffffff81002000 T _etext\n")
    from platterlib import guestprofile
    accounting.name_lines(c, guestprofile.Symbols(smap))
    assert [t["symbol"] for t in top] == ["up_write+0x10", "down_write+0x10"], top
    user = {"lines_top": [dict(top[0], pc=0x401ccb)]}
    accounting.name_lines(user, guestprofile.Symbols(smap))
    assert user["lines_top"][0]["symbol"] == "[user] 0x401ccb", user
    md = "\n".join(accounting.markdown("c", accounting.summary(a, 1)))
    assert "1,003,840 transfers between vCPUs" in md and "| up_write+0x10 | 0,1,2,3,4,5,6,7 |" in md, md
    assert "coherence" not in accounting.summary(acct(), 1)
    for bad in ("icount-coherence-line rank=1 paddr=0x1",
                "icount-coherence lines=1 transfers=2\nicount-coherence-line rank=1",
                "icount-coherence lines=1",
                "icount-coherence lines=1 transfers=2 evictions=0\n"
                "icount-coherence-line rank=1 paddr=zz vaddr=0 pc=0 cpus=1 transfers=1 "
                "waited_insns=1"):
        try:
            accounting.from_qemu(bad)
        except accounting.Malformed:
            continue
        raise AssertionError(f"accepted: {bad}")


def check_malformed():
    for text in ("icount-vcpu cpu=0 clock_ns=x", "icount-vcpu cpu",
                 "icount-vcpu-samples cpus=2 1:2:3",
                 "icount-vcpu-samples cpus=1 per=insns,spun,irqs,ipis,charged 1:2:3:4",
                 "icount-vcpu-samples cpus=1 charged=x 1:2:3:4",
                 "hddmodel-samples node=a 1:2"):
        try:
            accounting.from_qemu(text)
        except accounting.Malformed:
            continue
        raise AssertionError(f"accepted: {text}")


def check_command_line(tmp):
    """run-guest's way in: the JSON on stdout, nothing without lines, one
    error line for a bad one."""
    def run(text):
        path = os.path.join(tmp, "qemu.out")
        with open(path, "w") as f:
            f.write(text)
        # as run-guest runs it: python3 -m platterlib.accounting
        return subprocess.run([sys.executable, "-m", "platterlib.accounting", "from-qemu", path],
                              capture_output=True, text=True,
                              env=dict(os.environ, PYTHONPATH=os.path.dirname(LIB)))
    p = run(QEMU_TEXT)
    assert p.returncode == 0 and json.loads(p.stdout) == acct(), p
    p = run("nothing\n")
    assert p.returncode == 0 and p.stdout == "", p
    p = run("icount-vcpu cpu=zero\n")
    assert p.returncode == 1 and p.stdout == "" and len(p.stderr.splitlines()) == 1, p


def check_window():
    """The last second: vCPU 0 executed all of it, vCPU 1 spun half of it;
    the drive was busy 0.95 of it (the last sample at or before its start
    to exit)."""
    s = accounting.summary(acct(), 1)
    assert s["window_s"] == 1 and s["clock_s"] == 2, s
    v0, v1 = s["vcpus"]
    assert v0["executing"] == 1.0 and v0["spun"] == 0 and v0["halted"] == 0, v0
    assert v1["executing"] == 0 and v1["spun"] == 0.5 and v1["halted"] == 0.5, v1
    assert v0["insns"] == 2000000000, v0
    d = s["devices"][0]
    assert d["busy"] == 0.95 and d["model_depth_mean"] == 1.9, d
    assert d["iops"] == 1900 and d["submit_wait_us"] == 1.0, d
    # over the whole run instead: vCPU 0 executed 1.5 of 2 s
    s = accounting.summary(acct(), None)
    assert s["vcpus"][0]["executing"] == 0.75, s["vcpus"][0]


def check_bound():
    busy = [{"executing": 0.95, "spun": 0.0}]
    idle = [{"executing": 0.2, "spun": 0.1}]
    assert accounting.bound_by(busy, [{"busy": 0.5}]) == "vCPUs"
    assert accounting.bound_by(idle, [{"busy": 0.97}]) == "device"
    assert accounting.bound_by(idle, [{"busy": 0.5}]) == "neither"
    assert accounting.bound_by(busy, [{"busy": 0.99}]) == "device"
    # the fixture: the drive busy 0.95 of the window, the vCPUs 0.75
    assert accounting.summary(acct(), 1)["bound_by"] == "device"


def check_steady():
    flat = [(t / 10, 1000 + (t % 2)) for t in range(1, 11)]
    rising = [(t / 10, 1000 if t <= 5 else 1200) for t in range(1, 11)]
    assert accounting.steadiness(flat) == (True, -0.0002), accounting.steadiness(flat)
    ok, change = accounting.steadiness(rising)
    assert ok is False and change == 0.2, (ok, change)
    assert accounting.steadiness(flat[:3]) == (None, None)
    # from the drive's completions when there is no fio log: 100 in the
    # first 0.5 s of the fixture's window, 950 in the next
    s = accounting.summary(acct(), 1)
    assert s["throughput"]["source"] == "the drive's completions", s["throughput"]
    assert s["steady"] is None, s
    md = "\n".join(accounting.markdown("c", s))
    assert "bound by **device**" in md and "steadiness unknown" in md, md
    s["steady"], s["steady_change"] = False, 0.2
    md = "\n".join(accounting.markdown("c", s))
    assert "**not steady** (last half +20.0% against the first, bound ±10%)" in md, md


def check_fio_log(tmp):
    """fio's own per-interval IOPS logs (two jobs) summed per interval."""
    if not FIO:
        raise AssertionError("no fio given (the meson test passes the host's)")
    job = os.path.join(tmp, "job.fio")
    with open(job, "w") as f:
        f.write("[global]\nioengine=psync\nrw=write\nbs=4k\nsize=64m\ntime_based=1\n"
                "runtime=1\nrate_iops=500\n[a]\n[b]\n")
    out = subprocess.run([FIO, "--output-format=json", f"--directory={tmp}",
                          f"--write_iops_log={tmp}/platter", "--log_avg_msec=100", job],
                         check=True, capture_output=True, text=True).stdout
    ios = sum(j["write"]["total_ios"] for j in json.loads(out)["jobs"])
    text = ""
    for n in (1, 2):
        with open(f"{tmp}/platter_iops.{n}.log") as f:
            text += f"# platter_iops.{n}.log\n" + f.read()
    series = accounting.iops_series(text, 100)
    assert len(series) >= 8, series
    # the intervals' IOPS over 0.1 s each add up to what fio counted (its
    # rate follows host time, loaded or not: no figure is fixed)
    logged = sum(v for _, v in series) * 0.1
    assert abs(logged - ios) <= 0.25 * ios, (series, ios)
    try:
        accounting.iops_series("12, x, 1, 4096, 0\n", 100)
        raise AssertionError("a bad log line was accepted")
    except accounting.Malformed:
        pass


# the guest's target library, stubbed: the host's fio runs in a directory
TARGET_STUB = """
target_fs=none
target_option() { return 1; }
target_up() { TARGET=/mnt; }
target_down() { :; }
target_device_json() { printf '{}'; }
target_params_json() { printf '"fs":"none"'; }
gz_b64() { gzip -c < "$1" | base64 | tr -d '\\n'; }
"""


def check_guest_fio_test(tmp):
    """The guest's fio test (guest-tests/initramfs/tests/fio) run on the
    host with the host's fio, its target stubbed and its paths moved into
    a directory: --ramp-ms and --iops-log-ms reach fio, and the jobs' IOPS
    logs come back in the result, which decodes and sums per interval."""
    if not FIO:
        raise AssertionError("no fio given (the meson test passes the host's)")
    src = os.path.join(paths.ROOT, "guest-tests", "initramfs", "tests", "fio")
    with open(src) as f:
        script = f.read()
    for d in ("lib", "in", "tmp", "mnt", "bin"):
        os.makedirs(os.path.join(tmp, d))
    with open(os.path.join(tmp, "lib", "target.sh"), "w") as f:
        f.write(TARGET_STUB)
    # the guest's own helpers, as the initramfs has them
    for helper in ("fiotime.sh",):
        with open(os.path.join(paths.ROOT, "guest-tests", "initramfs", "lib", helper)) as f, \
                open(os.path.join(tmp, "lib", helper), "w") as g:
            g.write(f.read())
    with open(os.path.join(tmp, "in", "job.fio"), "w") as f:
        f.write("[global]\nioengine=psync\nrw=write\nbs=4k\nsize=16m\ntime_based=1\n"
                "rate_iops=200\n[a]\n[b]\n")
    os.symlink(FIO, os.path.join(tmp, "bin", "fio"))
    script = (script.replace("/tmp/", f"{tmp}/tmp/").replace("/platter/lib/", f"{tmp}/lib/")
              .replace("/platter/in", f"{tmp}/in")
              .replace("--directory=/mnt", f"--directory={tmp}/mnt"))
    path = os.path.join(tmp, "fio-test")
    with open(path, "w") as f:
        f.write(script)
    env = dict(os.environ, PATH=f"{tmp}/bin:" + os.environ["PATH"])
    p = subprocess.run(["sh", path, "--job-file", "job.fio", "--runtime", "1",
                        "--ramp-ms", "200", "--iops-log-ms", "100"],
                       capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr[-800:]
    res, err = cellrun.decode_guest(json.loads(p.stdout))
    assert err is None and "iops_log" in res, (err, sorted(res))
    assert res["iops_log"].count("# platter_iops.") == 2, res["iops_log"][:200]
    # what the log says the jobs did, against fio's own count (the host's
    # fio keeps its rate on host time, loaded or not: no figure is fixed)
    series = accounting.iops_series(res["iops_log"], 100)
    ios = sum(j["write"]["total_ios"] for j in res["fio"]["jobs"])
    logged = sum(v for _, v in series) * 0.1
    # (at least 4 intervals of the 10: on a loaded host fio's log merges
    # some, and a CI run beside a cold build once logged 6)
    assert len(series) >= 4 and abs(logged - ios) <= 0.25 * ios, (series, ios)
    opts = res["fio"].get("global options", {})
    assert opts.get("ramp_time") == "200ms" and opts.get("log_avg_msec") == "100", opts
    bad = subprocess.run(["sh", path, "--job-file", "job.fio", "--iops-log-ms", "1s"],
                         capture_output=True, text=True, env=env)
    assert bad.returncode == 2 and "whole milliseconds" in bad.stderr, bad


def check_summarize():
    """A guest result with accounting: the cell's summary carries it, and
    the report's section shows it."""
    res = {"test": "dsync", "ios": 10, "iops": 10.0, "runtime_ns": 1000000000,
           "lat_us": {"avg": 1.0}, "accounting": acct()}
    s = cellsummary.summarize(res)
    assert s["accounting"]["window_s"] == 1 and s["accounting"]["bound_by"] == "device", s
    # issue 40's cpu_per_io: the window's instructions over the I/Os (vCPU
    # 0 ran 2e9 in the last second, vCPU 1 only spun), and the time the
    # vCPUs executed (vCPU 0 all of that second)
    assert s["cpu_per_io"] == {"insns": 2e8, "us": 1e5}, s["cpu_per_io"]
    from platterlib import gate
    more = dict(res, accounting=accounting.from_qemu(QEMU_TEXT.replace(
        "2000000000:3000000000:0:200000000:1000000000",
        "2000000000:3100000000:0:200000000:1000000000")))
    v = gate.judge_one("w.p.d.fops", {"guest": {"summary": cellsummary.summarize(more)}},
                       {"guest": {"summary": s}}, gate.parse("iops:-1%,cpu_per_io:+2%"), "base")
    assert not v["passed"] and "cpu_per_io 2e+08 -> 2.1e+08 (+5.00%" in v["checks"][1], v
    bad = cellsummary.summarize(dict(res, accounting={"vcpus": [{"clock_ns": 1}]}))
    assert "does not read" in bad["accounting"]["error"] and "cpu_per_io" not in bad, bad
    # issue 39: saved samples of the wrong width were an IndexError in
    # report, gate, merge and --baseline; now the accounting's error
    import copy
    for change in (lambda vs: vs["samples"][-1].pop(),
                   lambda vs: vs.update(charged=True),
                   lambda vs: vs["samples"].append("x"),
                   lambda vs: vs.update(cpus="2")):
        a = acct()
        change(a["vcpu_samples"])
        s = cellsummary.summarize(copy.deepcopy(dict(res, accounting=a)))
        assert "vcpu_samples" in s["accounting"].get("error", ""), s["accounting"]


def check_fua_per_io():
    """FUA writes per I/O are measured, not '-' (issue 25): a guest
    program's and a fio test's come from the drive's counters, QEMU's in
    the accounting or those counted from the drive's trace (the guest's
    --trace count first, when it has one); with no drive, or two, there
    is no figure."""
    def fua(n):
        a = acct()
        a["devices"][0].update(writes=2000, fua_writes=n)
        return a
    res = {"test": "dsync", "ios": 1000, "iops": 10.0, "runtime_ns": 1000000000,
           "lat_us": {"avg": 1.0}, "device": {"stat_delta": {"flushes": 0}},
           "accounting": fua(500)}
    assert cellsummary.summarize(res)["per_io"]["fua_writes"] == 0.5, cellsummary.summarize(res)
    assert cellsummary.summarize(dict(res, trace={"write_fua": 1000}))["per_io"]["fua_writes"] == 1.0
    # QEMU's counters do not reach the accounting: the drive's trace's
    bare = {k: v for k, v in res.items() if k != "accounting"}
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "drive.trace")
        with open(trace, "w") as f:
            f.write("# platter-trace v1\n# profile=x capacity=1 fua=1 write-cache=1 queue-depth=1\n"
                    "0 W 0 4096 FUA # done=5\n6 F 0 0 - # done=9\n10 W 4096 4096 - # done=12\n"
                    "13 R 0 4096 - # done=20\n")
        counts = cellsummary.drive_trace_counts(trace)
    assert counts == {"writes": 2, "fua_writes": 1, "flushes": 1}, counts
    s = cellsummary.summarize(dict(bare, ios=2, drive=counts))
    assert s["per_io"]["fua_writes"] == 0.5, s["per_io"]
    two = fua(500)
    two["devices"].append(dict(two["devices"][0], node="other"))
    for a in (two, None):
        s = cellsummary.summarize(dict(res, accounting=a) if a else
                                  {k: v for k, v in res.items() if k != "accounting"})
        assert s["per_io"]["fua_writes"] is None, s["per_io"]
    if not FIO:
        raise AssertionError("no fio given (the meson test passes the host's)")
    out = subprocess.run([FIO, "--output-format=json+", "--name=j", "--ioengine=null",
                          "--size=4m", "--bs=4k", "--rw=write"],
                         check=True, capture_output=True, text=True).stdout
    fres = {"test": "fio", "fio": fioout.parse(out), "accounting": fua(1024)}
    s = cellsummary.summarize(fres, {"fio_stat": "write"})
    assert s["ios"] == 1024 and s["per_io"]["fua_writes"] == 1.0, (s["ios"], s["per_io"])


def check_report(tmp):
    res = {"test": "dsync", "ios": 10, "iops": 10.0, "runtime_ns": 1000000000,
           "lat_us": {"avg": 1.0}, "accounting": acct()}
    cell = {"id": "w.p.d.base", "variant": "base", "guest": {"summary": cellsummary.summarize(res)}}
    s = cell["guest"]["summary"]["accounting"]
    s["throughput"]["series"] = [[0.1, 5.0], [0.2, 6.0]]
    md = report.accounting_section((cell, None), "w", "time-w", tmp)
    text = "\n".join(md)
    assert "| 1 | 0.0% | 50.0% | 50.0% |" in text, text
    assert "![throughput over time](time-w.svg)" in text, text
    with open(os.path.join(tmp, "time-w.svg")) as f:
        svg = f.read()
    assert "<path" in svg
    # issue 40: the y axis says what it counts: the drive's completions
    # are commands (a FLUSH is one), fio's log its I/Os
    assert s["throughput"]["source"] == "the drive's completions", s["throughput"]
    assert ">drive commands per s</text>" in svg, svg[:1500]
    s["throughput"]["source"] = accounting.FIO_SOURCE
    report.accounting_section((cell, None), "w", "time-w", tmp)
    with open(os.path.join(tmp, "time-w.svg")) as f:
        assert ">I/Os per s</text>" in f.read()


def spec(**extra):
    wl = {"name": "w", "test": "fio"}
    wl.update(extra.pop("workload", {}))
    dev = {"frontend": "nvme"}
    dev.update(extra.pop("device", {}))
    return dict({"name": "e", "pairs": [["base", "fops"]], "devices": [dev],
                 "profiles": ["990pro"], "workloads": [wl]}, **extra)


def refused(s, words):
    try:
        expspec.check_experiment(s, "x.json", base_dir=None)
    except SystemExit as e:
        msg = str(e)
        assert all(w in msg for w in words) and "\n" not in msg, msg
        return
    raise AssertionError(f"accepted: {s}")


def check_keys():
    """warmup_s and iops_log_ms reach the guest's fio as milliseconds, mem
    reaches run-guest, timeout_s replaces the computed guard; bad values
    are one line naming the key."""
    exp = expspec.check_experiment(
        spec(workload={"warmup_s": 2.5, "iops_log_ms": 100}, device={"mem": "4G", "smp": 8},
             timeout_s=5000, runtime=1), "x.json", base_dir=None)
    cell = matrix.cells(exp)[0]
    cmd = matrix.guest_command(cell, 1)
    tail = cmd[cmd.index("--"):]
    assert tail[tail.index("--ramp-ms") + 1] == "2500", tail
    assert tail[tail.index("--iops-log-ms") + 1] == "100", tail
    assert cmd[cmd.index("--mem") + 1] == "4G" and cmd[cmd.index("--timeout") + 1] == "5000"
    # without timeout_s: the guard grows with smp x ipns and the warm-up
    cell["timeout_s"] = None
    assert matrix.cell_timeout_s(cell, 1) == matrix.guest_timeout_s(
        cell["device"], 3.5) == 1800 + 12 * 8 * 3.5 // 1
    refused(spec(workload={"warmup_s": 0}), ["warmup_s", "duration"])
    refused(spec(workload={"iops_log_ms": "100"}), ["iops_log_ms", "whole ms"])
    refused(spec(workload={"iops_log_ms": 0}), ["iops_log_ms"])
    refused(spec(device={"mem": "4T"}), ["mem", "512M or 4G"])
    for mem in ("01M", "0G", "4", "12345678M", "1.5G"):   # cli.size_bytes
        refused(spec(device={"mem": mem}), ["mem", "512M or 4G"])
    expspec.check_experiment(spec(device={"mem": "9999999M"}), "t")
    refused(spec(timeout_s=0), ["timeout_s", "whole host seconds"])
    refused(spec(workload={"test": "dsync", "warmup_s": 1}), ["warmup_s", "does not apply"])


tap.run([("QEMU's accounting lines read", check_from_qemu),
         ("interrupts and IPIs end at the last sample", check_counts_at_last_sample),
         ("a run with a CPU profile's charges (run-guest --cpu)", check_charged),
         ("a malformed line is refused", check_malformed),
         ("cache-line transfers: totals and the hottest lines, named",
          lambda: tap_tmp(check_coherence)),
         ("accounting.py from-qemu (run-guest's way in)",
          lambda: tap_tmp(check_command_line)),
         ("the measured window: shares per vCPU and of the drive", check_window),
         ("the resource that bound the cell", check_bound),
         ("steady and not steady", check_steady),
         ("fio's per-interval IOPS log", lambda: tap_tmp(check_fio_log)),
         ("the guest's fio test: warm-up and IOPS log reach fio and come back",
          lambda: tap_tmp(check_guest_fio_test)),
         ("a cell's summary carries its accounting", check_summarize),
         ("FUA writes per I/O from the drive's counters", check_fua_per_io),
         ("the report's accounting section and plot", lambda: tap_tmp(check_report)),
         ("experiment keys: warmup_s, iops_log_ms, mem, timeout_s", check_keys)])
