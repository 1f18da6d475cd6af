#!/usr/bin/env python3
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
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import tap  # noqa: E402

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
def tables(drives, misses=None, fitted=None, unsourced=None):
    saved = V.DRIVES, V.EXPECTED_MISSES, V.FITTED, V.UNSOURCED
    V.DRIVES, V.EXPECTED_MISSES, V.FITTED = drives, misses or {}, fitted or {}
    V.UNSOURCED = searched_rest(drives) if unsourced is None else unsourced
    try:
        V.check_tables()
        yield
    finally:
        V.DRIVES, V.EXPECTED_MISSES, V.FITTED, V.UNSOURCED = saved


def run(sim):
    rows, notes = V.evaluate(sim, list(V.DRIVES))
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
    with tables(one_test(kind="cached-randwrite")):
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
                           (one_test(kind="cached-randwrite"), {("fake", "rr"): "m"}),
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


def expect_refused(drives, misses, unsourced=None):
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), tables(drives, misses,
                                                     unsourced=unsourced):
            pass
    except SystemExit as e:
        assert e.code == 2 and err.getvalue().count("\n") == 1, err.getvalue()
    else:
        raise AssertionError(f"accepted {drives} {misses} {unsourced}")


def check_shipped_tables():
    V.check_tables()


tap.run([("verdicts", lambda tmp: check_verdicts()),
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
         ("shipped tables are consistent", lambda tmp: check_shipped_tables())],
        with_tmpdir=True)
