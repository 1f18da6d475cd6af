#!/usr/bin/python3
"""platter-sim end-to-end checks; prints TAP.  usage: test-sim.py PLATTER_SIM"""
import json, os, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from platterlib import tap  # noqa: E402

SIM = sys.argv[1]


def sim(*args, ok=True):
    p = subprocess.run([SIM, *args], capture_output=True, text=True)
    if ok and p.returncode != 0:
        raise AssertionError(f"exit {p.returncode}: {p.stderr.strip()}")
    return p



def json_contract():
    d = json.loads(sim("--profile", "st20000nm007d", "--policy", "fua", "--runtime", "1", "--json").stdout)
    for k in ("version", "profile", "workload", "policy", "ios", "runtime_ns", "iops", "lat_ns", "host"):
        assert k in d, f"missing {k}"
    for k in ("avg", "p50", "p99", "p99.9"):
        assert k in d["lat_ns"], f"missing lat_ns.{k}"
    assert d["version"] == 1 and d["workload"] == "dsync" and d["policy"] == "fua"
    assert d["ios"] > 1000 and d["runtime_ns"] == 1_000_000_000
    assert d["lat_ns"]["p50"] <= d["lat_ns"]["p99"] <= d["lat_ns"]["p99.9"]


def deterministic():
    args = ("--profile", "st20000nm007d", "--policy", "fua", "--pattern", "rand", "--runtime", "2", "--json")
    a, b = (json.loads(sim(*args).stdout) for _ in range(2))
    a.pop("host"); b.pop("host")
    assert a == b, "two identical runs differ"
    c = json.loads(sim(*args, "--seed", "2").stdout)
    c.pop("host")
    assert c != a, "a different seed gave the same run"


def policies_commands():
    # the mechanism: commands per O_DSYNC write, per policy
    want = {"fua+flush": (1, 1), "fua": (1, 0), "write+flush": (0, 1), "fua-emulated": (0, 2)}
    for pol, (fua, fl) in want.items():
        extra = ["--fua", "off"] if fua == 0 else []
        d = json.loads(sim("--profile", "generic-7200", "--policy", pol, "--runtime", "0.5", "--json", *extra).stdout)
        dev = d["device"]
        n = dev["writes"]
        assert n > 0
        assert dev["fua_writes"] == fua * n, f"{pol}: fua_writes {dev['fua_writes']} for {n} writes"
        assert abs(dev["flushes"] - fl * n) <= fl, f"{pol}: flushes {dev['flushes']} for {n} writes"
    # a write-through device: the block layer strips FLUSH and FUA, so every
    # policy sends the same plain writes
    for pol in want:
        p = sim("--profile", "generic-7200", "--write-cache", "off", "--policy", pol,
                "--runtime", "0.2", "--json")
        d = json.loads(p.stdout)
        dev = d["device"]
        assert d["policy"] == "write" and "strips FLUSH and FUA" in p.stderr, (pol, p.stderr)
        assert dev["writes"] > 0 and dev["fua_writes"] == 0 and dev["flushes"] == 0, (pol, dev)


def flush_sharing():
    base = ("--profile", "990pro", "--workload", "fsync-append", "--jobs", "16", "--runtime", "1", "--json")
    a = json.loads(sim(*base).stdout)
    b = json.loads(sim(*base, "--flush-share").stdout)
    assert a["flushes"]["skipped"] == 0
    assert b["flushes"]["skipped"] > b["flushes"]["issued"]
    assert b["iops"] > 2 * a["iops"], (a["iops"], b["iops"])


def xfs_log_shadow():
    base = ("--profile", "990pro", "--fua", "off", "--workload", "fsync-append", "--jobs", "16",
            "--xfs-log", "--runtime", "2", "--json")
    a = json.loads(sim(*base).stdout)
    b = json.loads(sim(*base, "--flush-share").stdout)
    # base: the log's pre and post flushes plus an own flush from every fsync
    # whose log force did not write the iclog
    assert a["flushes"]["skipped"] == 0 and a["flushes"]["issued"] > a["ios"]
    # the series: own flushes skipped, the log's flushes shared by the batch
    assert b["flushes"]["skipped"] > 0.8 * b["ios"], b["flushes"]
    assert b["iops"] > 3 * a["iops"], (a["iops"], b["iops"])


def flush_queues():
    # the guest's blk-flush: one hardware queue merges every fsync's flush
    # into one FLUSH per cycle, so base xfs sends far fewer and the series
    # gains little; with a queue per job nothing merges (= no queues)
    base = ("--profile", "990pro", "--fua", "off", "--workload", "fsync-append", "--jobs", "16",
            "--xfs-log", "--runtime", "1", "--json")
    none = json.loads(sim(*base).stdout)
    one = json.loads(sim(*base, "--flush-queues", "1").stdout)
    per_job = json.loads(sim(*base, "--flush-queues", "16").stdout)
    assert one["flushes"]["issued"] > 2 * one["device"]["flushes"], one
    assert one["iops"] > 2 * none["iops"], (none["iops"], one["iops"])
    none.pop("host"); per_job.pop("host")
    assert none["iops"] == per_job["iops"] and none["device"] == per_job["device"]
    shared = json.loads(sim(*base, "--flush-queues", "1", "--flush-share").stdout)
    assert shared["iops"] < 1.6 * one["iops"], (one["iops"], shared["iops"])
    p = sim(*base, "--flush-queues", "-1", ok=False)
    assert p.returncode != 0 and "--flush-queues" in p.stderr


def replay_native_and_blkparse():
    with tempfile.TemporaryDirectory() as tmp:
        nat = os.path.join(tmp, "t.trace")
        with open(nat, "w") as f:
            f.write("# platter-trace v1\n0 W 0 4096 -\n1000 W 4096 4096 FUA\n2000 F 0 0 -  # flush\n"
                    "3000 R 0 4096 -\n4000 W 8192 4096 -\n20000000 R 8192 4096 -\n")
        d = json.loads(sim("--profile", "generic-7200", "--workload", "replay", "--trace", nat, "--json").stdout)
        dev = d["device"]
        assert d["ios"] == 6 and dev["fua_writes"] == 1 and dev["flushes"] == 1, dev
        assert dev["reads"] == 2 and dev["cache_read_hits"] == 1, dev  # only the unflushed one
        blk = os.path.join(tmp, "t.blk")
        with open(blk, "w") as f:
            f.write("  8,0    0        1     0.000000000  4242  Q  WS 2048 + 8 [fio]\n"
                    "  8,0    0        2     0.000001000  4242  G  WS 2048 + 8 [fio]\n"
                    "  8,0    0        3     0.000100000  4242  Q FWFS 4096 + 8 [fio]\n"
                    "  8,0    0        4     0.000200000  4242  Q  FN [kworker]\n"
                    "  8,0    0        5     0.000300000  4242  Q  R 2048 + 8 [fio]\n"
                    "CPU0 (8,0):\n Reads Queued: 1\n")
        d = json.loads(sim("--profile", "generic-7200", "--workload", "replay", "--trace", blk, "--json").stdout)
        dev = d["device"]
        assert (dev["writes"], dev["fua_writes"], dev["flushes"], dev["reads"]) == (2, 1, 2, 1), dev
        assert dev["cache_read_hits"] == 0  # the FN flush wrote it home first


def trace_round_trip():
    # what the sim (or the QEMU driver) records replays to identical times
    with tempfile.TemporaryDirectory() as tmp:
        for args in (("--profile", "st20000nm007d", "--policy", "fua", "--pattern", "rand", "--jobs", "4"),
                     ("--profile", "990pro", "--fua", "off", "--workload", "fsync-append", "--jobs", "8", "--xfs-log")):
            tr = os.path.join(tmp, "t")
            rec = json.loads(sim(*args, "--runtime", "0.5", "--trace-out", tr, "--json").stdout)
            prof = args[1]
            extra = ["--fua", "off"] if "--fua" in args else []
            # the header the QEMU driver writes too: the device as the host saw it
            v, dev = open(tr).read().splitlines()[:2]
            assert v == "# platter-trace v1", v
            keys = dict(kv.split("=") for kv in dev[2:].split())
            assert list(keys) == ["profile", "capacity", "fua", "write-cache", "queue-depth"], dev
            assert (keys["profile"], keys["fua"], keys["write-cache"], keys["queue-depth"]) == \
                (prof, str(int(rec["fua"])), str(int(rec["write_cache"])), str(rec["queue_depth"])), dev
            assert int(keys["capacity"]) % 512 == 0 and int(keys["capacity"]) >= rec["span"], dev
            # replayed on the device it was not recorded on, it does not verify
            other = ["--queue-depth", "3"] if "--fua" in args else ["--fua", "off"]
            p = sim("--profile", prof, *other, "--workload", "replay", "--trace", tr, "--verify", ok=False)
            assert p.returncode == 2 and "recorded on another device" in p.stderr and not p.stdout, p.stderr
            d = json.loads(sim("--profile", prof, *extra, "--workload", "replay", "--trace", tr,
                               "--verify", "--json").stdout)
            assert d["replay"]["checked"] > 100 and d["replay"]["mismatches"] == 0, d["replay"]
            lines = open(tr).read().splitlines()
            # lines are in completion order; move one completion 1 ns
            i = next(k for k, l in enumerate(lines) if "done=" in l)
            head, done = lines[i].rsplit("done=", 1)
            lines[i] = head + "done=" + str(int(done) + 1)
            open(tr, "w").write("\n".join(lines) + "\n")
            p = sim("--profile", prof, *extra, "--workload", "replay", "--trace", tr, "--verify",
                    "--json", ok=False)
            assert p.returncode != 0 and "1 of" in p.stderr, p.stderr


def explain_timeline():
    p = sim("--profile", "st20000nm007d", "--policy", "fua+flush", "--runtime", "0.1", "--explain", "4")
    header = next(l for l in p.stdout.splitlines() if l.startswith("#")).split()
    lines = [l for l in p.stdout.splitlines() if l[:1].isdigit()]
    assert len(lines) == 4, p.stdout
    flush = dict(zip(header, lines[3].split()))
    assert flush["op"] == "FLUSH"
    # the flush after a sequential FUA write waits most of a revolution
    assert float(flush["rotate_us"]) > 7000, flush
    # every part of the latency has a column: they add up to done - submit
    parts = sum(float(flush[k]) for k in ("queue_us", "ovhd_us", "seek_us",
                                          "rotate_us", "xfer_us", "wb_wait_us"))
    total = float(flush["done_us"]) - float(flush["submit_us"])
    assert abs(parts - total) < 0.01, (parts, total, flush)


def explain_rows(text):
    header = next(l for l in text.splitlines() if l.startswith("#")).split()
    return [dict(zip(header, l.split())) for l in text.splitlines() if l[:1].isdigit()]


def trace_rows(path):
    # (submit_ns, op, done_ns) in completion order, as --trace-out writes them
    rows = []
    for l in open(path):
        if l.startswith("#") or "done=" not in l:
            continue
        f = l.split()
        rows.append((int(f[0]), f[1], int(l.rsplit("done=", 1)[1].split()[0])))
    return rows


def fio_qd1_randread():
    # QD1 random reads: each read's latency from the device's submit is the
    # model's service time for it, as --explain itemizes it
    for prof in ("generic-7200", "st20000nm007d", "990pro"):
        p = sim("--profile", prof, "--workload", "fio", "--rw", "randread", "--size", "10G",
                "--runtime", "0.3", "--explain", "100000", "--json")
        d = json.loads(p.stdout)
        rows = explain_rows(p.stderr)
        rd = d["lat_by_op_ns"]["read"]
        assert d["ops"] == {"read": d["ios"], "write": 0, "flush": 0, "discard": 0}, d["ops"]
        assert rd["count"] == len(rows) == d["ios"] > 20, (rd["count"], len(rows), d["ios"])
        service = [round(float(r["done_us"]) * 1000) - round(float(r["submit_us"]) * 1000) for r in rows]
        assert rd["min"] == min(service) and rd["max"] == max(service), (prof, rd, min(service), max(service))
        assert rd["avg"] == sum(service) // len(service), (prof, rd["avg"], sum(service) / len(service))
        for r, sv in zip(rows, service):
            parts = sum(round(float(r[k]) * 1000) for k in ("queue_us", "ovhd_us", "seek_us", "rotate_us",
                                                             "xfer_us", "wb_wait_us"))
            assert abs(parts - sv) <= 6, (prof, r)  # each part rounded to 1 ns
        # one at a time: nothing waits in the host queue, nothing in the device's
        assert d["host_queue_ns"]["max"] == 0 and d["device_time_ns"]["queue"] == 0
        assert d["lat_ns"]["avg"] == rd["avg"]
        # closed loop: the next read is submitted when the last one completes
        for a, b in zip(rows, rows[1:]):
            assert a["done_us"] == b["submit_us"], (a, b)
        assert d["runtime_ns"] == d["end"]["last_completion_ns"] == round(float(rows[-1]["done_us"]) * 1000)


def fio_offset_increment():
    # fio's offset_increment: job j reads its own region, j x N after
    # --offset, sequentially from its start (a backup's readers); without
    # it every job reads the same region
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "t.trace")
        for rw in ("read", "randread"):
            d = json.loads(sim("--profile", "generic-7200", "--workload", "fio", "--rw", rw,
                               "--numjobs", "3", "--size", "1m", "--offset", "4k",
                               "--offset-increment", "1g", "--runtime", "0.02",
                               "--trace-out", path, "--json").stdout)
            assert d["fio"]["offset_increment"] == 1 << 30, d["fio"]
            offs = [int(l.split()[2]) for l in open(path) if not l.startswith("#")]
            jobs = {(o - 4096) >> 30 for o in offs}
            assert jobs == {0, 1, 2}, (rw, sorted(jobs))
            assert all(((o - 4096) & ((1 << 30) - 1)) < 1 << 20 for o in offs), rw
            if rw == "read":
                # each job starts at its region's start, then the next block
                firsts = sorted(offs)[:1] + [min(o for o in offs if o >= 4096 + (j << 30))
                                             for j in (1, 2)]
                assert firsts == [4096 + (j << 30) for j in range(3)], firsts
        d = json.loads(sim("--profile", "generic-7200", "--workload", "fio", "--numjobs", "2",
                           "--size", "1m", "--runtime", "0.01", "--json").stdout)
        assert d["fio"]["offset_increment"] == 0, d["fio"]


def fio_randrw_mix():
    for mix in (70, 20):
        d = json.loads(sim("--profile", "990pro", "--workload", "fio", "--rw", "randrw", "--rwmixread", str(mix),
                           "--iodepth", "4", "--size", "1G", "--runtime", "0.5", "--json").stdout)
        r, w = d["ops"]["read"], d["ops"]["write"]
        assert r + w == d["ios"] > 5000 and d["device"]["reads"] == r and d["device"]["writes"] == w, d["ops"]
        assert abs(r / (r + w) - mix / 100) < 0.02, (mix, r, w)
    a = json.loads(sim("--profile", "990pro", "--workload", "fio", "--rw", "randrw", "--size", "1G",
                       "--runtime", "0.2", "--seed", "5", "--json").stdout)
    b = json.loads(sim("--profile", "990pro", "--workload", "fio", "--rw", "randrw", "--size", "1G",
                       "--runtime", "0.2", "--seed", "5", "--json").stdout)
    a.pop("host"); b.pop("host")
    assert a == b and a["fio"]["rwmixread"] == 50 and a["fio"]["seed"] == 5


def fio_iodepth_in_flight():
    # each job keeps --iodepth I/Os in flight: at every submission, exactly
    # numjobs x iodepth are out (the host queue holds what the device cannot)
    with tempfile.TemporaryDirectory() as tmp:
        for qd_dev, depth, jobs in (("32", 8, 1), ("4", 4, 3)):
            tr = os.path.join(tmp, "t")
            d = json.loads(sim("--profile", "generic-7200", "--workload", "fio", "--rw", "randread",
                               "--iodepth", str(depth), "--numjobs", str(jobs), "--queue-depth", qd_dev,
                               "--size", "100G", "--runtime", "0.5", "--trace-out", tr, "--json").stdout)
            rows = trace_rows(tr)
            assert len(rows) == d["ios"] > 50
            want = depth * jobs
            at_device = min(want, int(qd_dev))
            for t in sorted({s for s, _, _ in rows}):
                n = sum(1 for s, _, e in rows if s <= t < e)
                if t < 400_000_000:
                    assert n == at_device, (depth, jobs, t, n)
            if want > int(qd_dev):
                assert d["host_queue_ns"]["avg"] > 0 and d["lat_ns"]["avg"] > d["lat_by_op_ns"]["read"]["avg"]
            else:
                assert d["host_queue_ns"]["max"] == 0


def fio_fsync_counts():
    with tempfile.TemporaryDirectory() as tmp:
        tr = os.path.join(tmp, "t")
        for n in (1, 4, 7):
            d = json.loads(sim("--profile", "st20000nm007d", "--workload", "fio", "--rw", "write", "--fsync", str(n),
                               "--iodepth", "4", "--size", "4M", "--trace-out", tr, "--json").stdout)
            writes = 1024
            assert d["ops"]["write"] == d["ios"] == writes, d["ops"]
            assert d["flushes"]["issued"] == d["ops"]["flush"] == d["device"]["flushes"] == writes // n, (n, d["ops"])
            # a FLUSH goes out when the job's I/Os are in, and nothing is
            # issued while it is out
            rows = sorted(trace_rows(tr))
            for s, op, e in rows:
                if op == "F":
                    assert all(e2 <= s or s2 >= e for s2, op2, e2 in rows if op2 == "W"), (n, s, e)
            # the cache drains after the last completion: reported apart
            assert d["runtime_ns"] == d["end"]["last_completion_ns"]
        # write-through: the block layer completes the flushes unsent
        p = sim("--profile", "generic-7200", "--write-cache", "off", "--workload", "fio", "--rw", "randwrite",
                "--fsync", "2", "--size", "1M", "--json")
        d = json.loads(p.stdout)
        assert "flushes without sending" in p.stderr
        assert d["flushes"] == {"issued": 0, "skipped": 128} and d["device"]["flushes"] == 0, d["flushes"]


def replay_closed_loop():
    # a trace recorded with long gaps: closed loop keeps its order, not its
    # times; each request goes out when the one before completes
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "in")
        with open(src, "w") as f:
            f.write("# platter-trace v1\n")
            ops = []
            for i in range(40):
                op = "RWWF"[i % 4]
                off, ln = (0, 0) if op == "F" else ((i * 7919 % 1000) * 4096 * 256, 4096)
                ops.append(op)
                # recorded out of order in the file: replayed by submit time
                f.write(f"{(40 - i) * 1_000_000_000} {op} {off} {ln} -\n")
        ops.reverse()
        out = os.path.join(tmp, "out")
        d = json.loads(sim("--profile", "generic-7200", "--workload", "replay", "--trace", src, "--closed-loop",
                           "--trace-out", out, "--json").stdout)
        rows = trace_rows(out)
        assert [op for _, op, _ in rows] == ops, rows
        assert rows[0][0] == 0
        for a, b in zip(rows, rows[1:]):
            assert a[2] == b[0], (a, b)
        assert d["closed_loop"] is True and d["iodepth"] == 1 and d["ios"] == 40
        assert d["flushes"]["issued"] == d["ops"]["flush"] == d["device"]["flushes"] == 10
        assert d["runtime_ns"] < 1_000_000_000
        d4 = json.loads(sim("--profile", "generic-7200", "--workload", "replay", "--trace", src, "--closed-loop",
                            "--iodepth", "4", "--trace-out", out, "--json").stdout)
        rows = trace_rows(out)
        by_submit = sorted(rows, key=lambda r: r[0])
        assert [op for _, op, _ in by_submit] == ops
        assert sum(1 for s, _, _ in rows if s == 0) == 4 and d4["iodepth"] == 4
        # open loop: the recorded times, and every flush counted
        o = json.loads(sim("--profile", "generic-7200", "--workload", "replay", "--trace", src, "--json").stdout)
        assert o["closed_loop"] is False and o["flushes"]["issued"] == 10 == o["device"]["flushes"]
        assert o["runtime_ns"] == o["end"]["last_completion_ns"] + o["end"]["drain_ns"] > 40e9


def outputs_spare_a_named_profile():
    """issue 39: --trace-out, --timeline and --html overwrote a profile given
    by NAME (--profile-dir, PLATTER_PROFILE_DIR); only a path was checked."""
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "hw-model",
                       "profiles", "generic-7200.profile")
    with tempfile.TemporaryDirectory() as d:
        mine = os.path.join(d, "mine.profile")
        text = open(src).read()
        with open(mine, "w") as f:
            f.write(text)
        for opt in ("--trace-out", "--timeline", "--html"):
            for how, env in ((["--profile-dir", d], {}), ([], {"PLATTER_PROFILE_DIR": d})):
                p = subprocess.run([SIM, "--profile", "mine", *how, "--runtime", "0.01",
                                    opt, mine], capture_output=True, text=True,
                                   env=dict(os.environ, **env))
                assert p.returncode == 2 and "is the file of --profile mine" in p.stderr, \
                    (opt, how, env, p.returncode, p.stderr)
                assert open(mine).read() == text, (opt, how, env)


tap.run([("outputs never overwrite a profile given by name", outputs_spare_a_named_profile),
         ("json contract", json_contract), ("deterministic", deterministic),
         ("policies map to commands", policies_commands), ("flush sharing", flush_sharing),
         ("xfs log shadow", xfs_log_shadow), ("blk-flush queues", flush_queues),
         ("replay native and blkparse", replay_native_and_blkparse),
         ("trace round trip", trace_round_trip),
         ("explain timeline", explain_timeline),
         ("fio QD1 randread = the model's service", fio_qd1_randread),
         ("fio randrw mix", fio_randrw_mix), ("fio iodepth in flight", fio_iodepth_in_flight),
         ("fio fsync=N", fio_fsync_counts), ("fio offset_increment", fio_offset_increment), ("replay --closed-loop", replay_closed_loop)])
