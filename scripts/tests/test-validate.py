#!/usr/bin/python3
"""scripts/validate's verdicts against a stand-in platter-sim; prints TAP.

The stand-in prints a --dump-profile and fio JSON reports whose figures
the test sets, so each check knows the model value and can assert the
verdict and whether the run fails: a miss and an expected miss that now
passes must fail the run, a listed miss and a passing test must not, and
a profile key that is neither a data-sheet figure nor in FITTED must.
Every drive needs a row for every test kind: a measured test, or an
UNSOURCED entry saying what was searched, shown without a model run.
"""
import contextlib
import importlib.machinery
import importlib.util
import io
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from platterlib import disksimtrace  # noqa: E402
from platterlib import tap  # noqa: E402

loader = importlib.machinery.SourceFileLoader(
    "validate", os.path.join(HERE, "..", "validate"))
spec = importlib.util.spec_from_loader("validate", loader)
V = importlib.util.module_from_spec(spec)
loader.exec_module(V)

CAPACITY = 1 << 40
FAKE_SIM = f"""#!{sys.executable}
import json, os, sys
args = sys.argv[1:]
with open(os.environ["FAKE_LOG"], "a") as f:
    f.write(json.dumps(args) + "\\n")
if "--dump-profile" in args:
    print("# profile fake")
    print("capacity_bytes = {CAPACITY}    # bytes [given, line 2]")
    print("rpm = 7200    # spindle speed [given, line 3]")
    print("heads = 4    # data surfaces [derived: heads-from-density]")
    for k in os.environ.get("FAKE_GIVEN", "").split():
        print(k + " = 1    # a key [given, line 9]")
    sys.exit(0)
lat = float(os.environ["FAKE_LAT_MS"])
if "replay" in args:
    # every request completes FAKE_LAT_MS after its submit
    with open(args[args.index("--trace") + 1]) as f, \
            open(args[args.index("--trace-out") + 1], "w") as out:
        for line in f:
            if not line.startswith("#"):
                w = line.split()
                out.write(f"{{w[0]}} {{w[1]}} {{w[2]}} {{w[3]}} - # done="
                          f"{{int(w[0]) + int(lat * 1e6)}}\\n")
    sys.exit(0)
flushes = 0 if "--fsync" not in args else 3
print(json.dumps(dict(lat_ns=dict(avg=lat * 1e6), iops=1e3 / lat, ios=100,
                      runtime_ns=int(100 * lat * 1e6),
                      lat_by_op_ns=dict(flush=dict(count=flushes,
                                                   avg=40 * lat * 1e6)),
                      end=dict(last_completion_ns=int(100 * lat * 1e6),
                               drain_ns=0))))
"""


def setup(tmp, lat_ms, given=""):
    sim = os.path.join(tmp, "fake-sim")
    with open(sim, "w") as f:
        f.write(FAKE_SIM)
    os.chmod(sim, 0o755)
    log = os.path.join(tmp, "log")
    os.environ.update(FAKE_LOG=log, FAKE_LAT_MS=str(lat_ms), FAKE_GIVEN=given)
    return sim, log


def one_test(**extra):
    t = dict(id="rr", kind="qd1-randread", measured=10.0, unit="ms",
             source="a page", conditions="QD1 over the whole drive",
             fio=dict(rw="randread", bs="4K", iodepth=1, runtime=1),
             metric="lat_ms")
    t.update(extra)
    return {"fake": dict(name="Fake", drive_class="test", tests=[t])}


def searched_rest(drives):
    """An UNSOURCED entry for every kind a drive has no test of."""
    return {drive: {k: "searched somewhere" for k in V.KINDS
                    if k not in {t["kind"] for t in d["tests"]}}
            for drive, d in drives.items()}


@contextlib.contextmanager
def tables(drives, misses=None, fitted=None, unsourced=None, extracted=None):
    saved = (V.DRIVES, V.EXPECTED_MISSES, V.FITTED, V.UNSOURCED, V.EXTRACTED,
             V.ASSUMED)
    V.DRIVES, V.EXPECTED_MISSES, V.FITTED = drives, misses or {}, fitted or {}
    V.EXTRACTED, V.ASSUMED = extracted or {}, {}
    V.UNSOURCED = searched_rest(drives) if unsourced is None else unsourced
    try:
        V.check_tables()
        yield
    finally:
        (V.DRIVES, V.EXPECTED_MISSES, V.FITTED, V.UNSOURCED, V.EXTRACTED,
         V.ASSUMED) = saved


def run(sim, disksim=None):
    with tempfile.TemporaryDirectory() as tmp:
        rows, notes = V.evaluate(sim, list(V.DRIVES), disksim, tmp)
    return rows, V.failures(rows, notes)


def check_verdicts():
    assert V.verdict(0.10, 0.05, None) == "ok"
    assert V.verdict(0.10, -0.11, None) == "MISS"
    assert V.verdict(0.10, -0.11, "mechanism") == "expected miss"
    assert V.verdict(0.10, 0.02, "mechanism") == "UNEXPECTED PASS"
    assert V.verdict(None, 3.0, None) == "-"


def check_within_target(tmp):
    sim, _ = setup(tmp, 10.5)
    with tables(one_test()):
        rows, bad = run(sim)
    assert rows[0]["verdict"] == "ok" and abs(rows[0]["error"] - 0.05) < 1e-9, rows
    assert bad == [], bad


def check_unsourced_rows(tmp):
    sim, log = setup(tmp, 10.0)
    with tables(one_test()):
        rows, bad = run(sim)
    rest = [r for r in rows if r["test"] != "rr"]
    assert [r["kind"] for r in rest] == [k for k in V.KINDS if k != "qd1-randread"], rest
    assert all(r["verdict"] == V.NO_SOURCE and r["measured"] is None
               and r["model"] is None and r["searched"] for r in rest), rest
    assert bad == [], bad
    # one fio run, for the measured test; the unsourced rows run nothing
    calls = [json.loads(x) for x in open(log)]
    assert sum("--workload" in c for c in calls) == 1, calls
    md = V.table(rows, True)
    assert sum(V.NO_SOURCE in line and "| - | - | - |" in line
               for line in md) == len(rest), md


def check_miss_fails(tmp):
    sim, _ = setup(tmp, 12.0)
    with tables(one_test()):
        rows, bad = run(sim)
    assert rows[0]["verdict"] == "MISS", rows
    assert len(bad) == 1 and "MISS" in bad[0], bad


def check_expected_miss_passes(tmp):
    sim, _ = setup(tmp, 12.0)
    with tables(one_test(), misses={("fake", "rr"): "a mechanism"}):
        rows, bad = run(sim)
    assert rows[0]["verdict"] == "expected miss" and bad == [], (rows, bad)


def check_expected_miss_that_passes_fails(tmp):
    sim, _ = setup(tmp, 10.2)
    with tables(one_test(), misses={("fake", "rr"): "a mechanism"}):
        rows, bad = run(sim)
    assert rows[0]["verdict"] == "UNEXPECTED PASS", rows
    assert len(bad) == 1 and "UNEXPECTED PASS" in bad[0], bad


def check_report_only(tmp):
    sim, _ = setup(tmp, 30.0)
    with tables(one_test(kind="qd1-randwrite")):
        rows, bad = run(sim)
    assert rows[0]["verdict"] == "-" and rows[0]["target"] is None and bad == []


def check_stray_key_fails(tmp):
    sim, _ = setup(tmp, 10.0, given="cache_segments")
    with tables(one_test()):
        _, bad = run(sim)
    assert len(bad) == 1 and "cache_segments" in bad[0], bad
    with tables(one_test(), fitted={"fake": {"cache_segments": "a fit"}}):
        _, bad = run(sim)
    assert bad == [], bad


def check_positions_span_the_device(tmp):
    sim, log = setup(tmp, 10.0)
    t = dict(fio=dict(rw="read", bs="64K", size="64M", runtime=1), positions=5,
             metric="mb_s", kind="seq-read", unit="MB/s", measured=6.5536)
    with tables(one_test(**t)):
        rows, _ = run(sim)
    calls = [json.loads(x) for x in open(log)]
    offs = [int(c[c.index("--offset") + 1]) for c in calls if "--offset" in c]
    assert len(offs) == 5 and offs[0] == 0, offs
    assert offs[-1] == CAPACITY - (64 << 20), offs
    assert all(o % (64 << 10) == 0 for o in offs) and offs == sorted(offs), offs
    # 100 I/Os of 64 KiB in 1 ms of virtual time each: 6.5536 MB/s
    assert abs(rows[0]["model"] - 6.5536) < 1e-3, rows


def check_flush_after_n(tmp):
    sim, log = setup(tmp, 10.0)
    t = dict(kind="flush-after-n", metric="flush_ms", measured=400.0,
             fio=dict(rw="randwrite", bs="4K", iodepth=1, fsync=64, runtime=1))
    with tables(one_test(**t)):
        rows, bad = run(sim)
    call = [json.loads(x) for x in open(log)][-1]
    assert call[call.index("--fsync") + 1] == "64", call
    # the flush histogram's mean (40 x 10 ms), not the all-op mean (10 ms)
    assert abs(rows[0]["model"] - 400.0) < 1e-9 and rows[0]["verdict"] == "ok", rows
    assert bad == [], bad


def check_bad_tables():
    for drives, misses in ((one_test(kind="nosuch"), {}),
                           (one_test(), {("fake", "nosuch"): "m"}),
                           (one_test(kind="qd1-randwrite"), {("fake", "rr"): "m"}),
                           (one_test(source=""), {}),
                           (one_test(kind="flush-after-n"), {}),
                           (one_test(metric="flush_ms"), {})):
        expect_refused(drives, misses)
    rest = searched_rest(one_test())["fake"]
    # a kind with neither a test nor an UNSOURCED entry; one with both; an
    # entry that says nothing of the search; one for an unknown drive;
    # one for an unknown kind
    for unsourced in ({"fake": {k: v for k, v in rest.items()
                                if k != "flush-after-n"}},
                      {"fake": dict(rest, **{"qd1-randread": "x"})},
                      {"fake": dict(rest, **{"flush-after-n": ""})},
                      {"fake": rest, "other": {"seq-read": "x"}},
                      {"fake": dict(rest, nosuch="x")}):
        expect_refused(one_test(), {}, unsourced)


def expect_refused(drives, misses, unsourced=None, extracted=None):
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), tables(drives, misses,
                                                     unsourced=unsourced,
                                                     extracted=extracted):
            pass
    except SystemExit as e:
        assert e.code == 2 and err.getvalue().count("\n") == 1, err.getvalue()
    else:
        raise AssertionError(f"accepted {drives} {misses} {unsourced}")


# A DiskSim validation trace as valid/*.trace writes it (made up here: the
# real ones are data this repository does not ship).
DISKSIM_LINES = ["R Hit    1000   4    663.000499  45421.999500\n",
                 "W Hit    1004   8    607.50000  34200.00000\n",
                 "\n",
                 "R Hit    2000  16   6657.00000  64047.00000\n"]


def check_disksim_convert():
    r = disksimtrace.read(DISKSIM_LINES, "t")
    # arrival i+1 = arrival i + service i + idle i, in whole ns
    assert [x[3] for x in r] == [0, 663000 + 45422000,
                                 663000 + 45422000 + 607500 + 34200000], r
    assert [x[4] - x[3] for x in r] == [663000, 607500, 6657000], r
    assert [(x[0], x[1], x[2]) for x in r] == [("R", 512000, 2048),
                                                ("W", 514048, 4096),
                                                ("R", 1024000, 8192)], r
    text = "".join(disksimtrace.platter_lines(r, "t"))
    lines = text.splitlines()
    assert lines[0] == "# platter-trace v1", lines
    assert lines[2] == "0 R 512000 2048 - # done=663000", lines
    assert lines[3] == "46085000 W 514048 4096 - # done=46692500", lines


def check_disksim_bad_lines(tmp):
    for line, word in (("R Hit 1 4 663\n", "6"),
                       ("X Hit 1 4 663 1\n", "operation"),
                       ("R Hit -1 4 663 1\n", "blkno"),
                       ("R Hit 1 0 663 1\n", "blocks"),
                       ("R Hit 1 4 0.0000001 1\n", "service_us is 0 (to the ns)"),
                       ("R Hit 1 4 0 1\n", "service_us is 0"),
                       ("R Hit 1 4 663 nan\n", "next_interarrival_us")):
        try:
            disksimtrace.read(["R Hit 1 4 1 1\n", line], "f.trace")
        except disksimtrace.TraceError as e:
            assert str(e).startswith("f.trace, line 2: ") and word in str(e), e
        else:
            raise AssertionError(f"accepted {line!r}")
    try:
        disksimtrace.read(["\n"], "e.trace")
    except disksimtrace.TraceError as e:
        assert "no request" in str(e), e
    else:
        raise AssertionError("accepted an empty trace")
    bad = os.path.join(tmp, "bad.trace")
    with open(bad, "w") as f:
        f.write("R Hit 1 4 663 1\nR Hit 1 4\n")
    p = subprocess.run([sys.executable, os.path.join(HERE, "..", "disksim-trace"),
                        bad], capture_output=True, text=True)
    assert p.returncode == 2 and p.stdout == "" and \
        p.stderr.count("\n") == 1 and "line 2" in p.stderr, p


def check_demerit():
    p = [("R", 1000000, 1000000), ("R", 3000000, 3000000), ("W", 2000000, 2000000)]
    assert V.demerit_ms(p) == 0
    # a model 0.5 ms slower on every request: the CDFs 0.5 ms apart
    assert abs(V.demerit_ms([(o, m, m + 500000) for o, m, _ in p]) - 0.5) < 1e-12
    # the same times given to other requests: the distributions are equal
    assert V.demerit_ms([("R", 1, 3), ("R", 3, 1)]) == 0


def trace_drive(measured_read, **extra):
    tests = V.trace_tests("t.trace", measured_read, 0.6075, 2.6425, "a note")
    return {"fake": dict(name="Fake", drive_class="test", tests=tests, **extra)}


def check_trace_rows(tmp):
    sim, _ = setup(tmp, 2.0)
    with open(os.path.join(tmp, "t.trace"), "w") as f:
        f.writelines(DISKSIM_LINES)
    with tables(trace_drive(3.66)):
        rows, bad = run(sim, tmp)
    got = {r["test"]: r for r in rows}
    # reads measured (0.663 + 6.657) / 2 = 3.66 ms, modelled 2 ms
    r = got["trace-read-mean"]
    assert r["verdict"] == "MISS" and abs(r["model"] - 2.0) < 1e-9, r
    assert len(bad) == 1 and "trace-read-mean" in bad[0], bad
    w = got["trace-write-mean"]
    assert w["verdict"] == "-" and abs(w["model"] - 2.0) < 1e-9, w
    d = got["trace-demerit"]
    sq = ((2 - .663) ** 2 + (2 - .6075) ** 2 + (6.657 - 2) ** 2) / 3
    assert abs(d["model"] - sq ** 0.5) < 1e-3 and d["verdict"] == "-", d
    assert abs(d["error"] - d["model"] / 2.6425) < 1e-3, d
    # a trace that is not the one the table was made from: refused
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), tables(trace_drive(3.0)):
            run(sim, tmp)
    except SystemExit as e:
        assert e.code == 2 and "another trace" in err.getvalue(), err.getvalue()
    else:
        raise AssertionError("accepted a trace whose mean is not the table's")


def check_trace_absent(tmp):
    sim, log = setup(tmp, 2.0)
    with tables(trace_drive(3.66)):
        rows, bad = run(sim, os.path.join(tmp, "nowhere"))
    trace_rows = [r for r in rows if r["kind"] in V.TRACE_KINDS]
    assert len(trace_rows) == 3 and all(
        r["verdict"] == V.NO_TRACE and r["model"] is None and
        "--disksim" in r["searched"] for r in trace_rows), trace_rows
    assert bad == [], bad
    calls = [json.loads(x) for x in open(log)]
    assert not any("replay" in c for c in calls), calls


def check_extracted_keys(tmp):
    sim, _ = setup(tmp, 10.0, given="zones")
    with tables(one_test()):
        _, bad = run(sim)
    assert len(bad) == 1 and "zones" in bad[0], bad
    with tables(one_test(), extracted={"fake": {"zones": "DIXtrac, x.model"}}):
        _, bad = run(sim)
    assert bad == [], bad
    expect_refused(one_test(), {}, None, extracted={"fake": {"zones": ""}})


def check_shipped_tables():
    V.check_tables()


def check_trace_plot(tmp):
    # the measured and the modelled curves, each ending at its slowest
    pairs = [("R", (i + 1) * 1000, (i + 1) * 2000) for i in range(1000)]
    V.plot_trace("d", "Drive", "d.trace", pairs, tmp)
    svg = open(os.path.join(tmp, "d-trace.svg")).read()
    assert svg.count("<path ") == 2 and "platter" in svg and "DiskSim" in svg, svg[:500]
    # times in ns, drawn in us: 1 to 1000 us measured, 2 to 2000 modelled,
    # so the axis runs from the 1 us decade to the 10000 us one
    assert ">10000<" in svg and ">1<" in svg and ">100000<" not in svg, svg[:2000]


def check_profile_against_extraction(tmp):
    # a DiskSim drive's [dx] keys are what profile-import makes of its files
    sys.path.insert(0, HERE)
    import dixtrac_sample
    for name, text in dixtrac_sample.FILES.items():
        with open(os.path.join(tmp, name), "w") as f:
            f.write(text)
    specs = os.path.join(tmp, "sample.diskspecs")
    p = subprocess.run([sys.executable, os.path.join(HERE, "..", "profile-import"), specs],
                       capture_output=True, text=True, check=True)
    prof = os.path.join(tmp, "sample.profile")
    with open(prof, "w") as f:
        f.write(p.stdout)
    assert V.extraction_differs(prof, specs) == []
    with open(prof, "w") as f:
        f.write(p.stdout.replace("\nzones = 3 ", "\nzones = 4 ").replace(
            "\nwrite_cache = no", "\n# write_cache = no").replace(
            "\nzone = 800 1199 400 40 50", "\nzone = 800 1199 400 41 50").replace(
            "\nseek = 1999 20.98", "\n# seek = 1999 20.98"))
    assert V.extraction_differs(prof, specs) == [
        ("zones", "4", "3"), ("write_cache", None, "no"),
        ("zone", "800 1199 400 41 50 0 0 0 0", "800 1199 400 40 50 0 0 0 0"),
        ("seek", None, "1999 20.98")]


PG_OUTPUT = """2 seconds per test
O_DIRECT supported on this platform for open_datasync and open_sync.

Compare file sync methods using one 8kB write:
(in wal_sync_method preference order, except fdatasync is Linux's default)
        open_datasync                       880.071 ops/sec    1136 usecs/op
        fdatasync                           861.502 ops/sec    1161 usecs/op
        fsync                                           n/a*
        fsync_writethrough                              n/a
        open_sync                           430.005 ops/sec    2326 usecs/op

Non-sync'ed 8kB writes:
        write                            296104.530 ops/sec       3 usecs/op
"""


def guest_drive():
    return {"fake": dict(name="Fake", drive_class="test", tests=[
        dict(id=f"pg-{line}", kind="pg_test_fsync", measured=ops, unit="ops/s",
             source="a page", conditions="xfs",
             guest=dict(frontend="nvme", fua="on", write_cache="on", fs="xfs",
                        cpu="skylake-sp-kvm", section=V.pgtestfsync.ONE_WRITE, line=line))
        for line, ops in (("open_datasync", 800.0), ("fdatasync", 600.0))])}


def check_pg_test_fsync_parse():
    got = V.pgtestfsync.parse(PG_OUTPUT)
    one = got[V.pgtestfsync.ONE_WRITE]
    assert one == {"open_datasync": 880.071, "fdatasync": 861.502, "fsync": None,
                   "fsync_writethrough": None, "open_sync": 430.005}, one
    assert got["Non-sync'ed 8kB writes"] == {"write": 296104.53}, got
    for bad in ("", "no figures here\n", "Compare x:\n        open_sync  n/a\n"):
        try:
            V.pgtestfsync.parse(bad)
        except V.pgtestfsync.ParseError:
            continue
        raise AssertionError(f"parsed {bad!r}")


def check_guest_rows(tmp):
    # without --guest: a row each, counted neither way, nothing run; with
    # it: one run per drive and setup, each line against its figure
    sim, _ = setup(tmp, 10.0)
    runs = []
    saved = V.guest_run

    def fake_run(drive, g):
        runs.append((drive, g["line"]))
        return V.pgtestfsync.parse(PG_OUTPUT)
    V.guest_run = fake_run
    try:
        with tables(guest_drive()):
            with tempfile.TemporaryDirectory() as t2:
                rows, notes = V.evaluate(sim, ["fake"], None, t2)
            pg = [r for r in rows if r["kind"] == "pg_test_fsync"]
            assert [r["verdict"] for r in pg] == [V.NO_GUEST] * 2, pg
            assert V.failures(rows, notes) == [] and runs == [], runs
            with tempfile.TemporaryDirectory() as t2:
                rows, notes = V.evaluate(sim, ["fake"], None, t2, guest=True)
            pg = {r["test"]: r for r in rows if r["kind"] == "pg_test_fsync"}
            assert len(runs) == 1, runs
            assert pg["pg-open_datasync"]["model"] == 880.071 and \
                pg["pg-open_datasync"]["verdict"] == "ok", pg
            assert pg["pg-fdatasync"]["verdict"] == "MISS", pg
            assert any("pg-fdatasync" in f for f in V.failures(rows, notes))
    finally:
        V.guest_run = saved


tap.run([("verdicts", lambda tmp: check_verdicts()),
         ("pg_test_fsync's output parsed; none refused", lambda tmp: check_pg_test_fsync_parse()),
         ("guest rows: not run without --guest, one run with it", check_guest_rows),
         ("within target: ok", check_within_target),
         ("unsourced kinds: a row each, nothing run", check_unsourced_rows),
         ("miss fails the run", check_miss_fails),
         ("listed miss passes", check_expected_miss_passes),
         ("listed miss that passes fails the run", check_expected_miss_that_passes_fails),
         ("no target: reported only", check_report_only),
         ("a key no data sheet gives must be in FITTED", check_stray_key_fails),
         ("positions cover the device", check_positions_span_the_device),
         ("flush after N: the FLUSH mean, fsync passed", check_flush_after_n),
         ("bad tables: one line, status 2", lambda tmp: check_bad_tables()),
         ("DiskSim trace: arrivals, completions, bytes", lambda tmp: check_disksim_convert()),
         ("DiskSim trace: a bad line is one error naming it", check_disksim_bad_lines),
         ("demerit: RMS distance of the CDFs", lambda tmp: check_demerit()),
         ("trace rows: model per request, verdicts", check_trace_rows),
         ("trace absent: rows say so, nothing run", check_trace_absent),
         ("an extracted key needs its source in EXTRACTED", check_extracted_keys),
         ("shipped tables are consistent", lambda tmp: check_shipped_tables()),
         ("a DiskSim drive's profile is profile-import's", check_profile_against_extraction),
         ("a trace's plot: the drive's curve and platter's", check_trace_plot)],
        with_tmpdir=True)
