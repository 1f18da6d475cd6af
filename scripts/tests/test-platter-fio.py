#!/usr/bin/python3
"""fio jobs from anywhere, on the host: job files checked before a guest
starts, and fio's json+ output (made here by the host's own fio on a file,
the same Debian fio the guest runs) read with Python's json into the stats
the report shows.  Prints TAP.  usage: test-platter-fio.py FIO PLATTER_SIM"""
import base64
import gzip
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from platterlib import tap  # noqa: E402
from platterlib import cellrun  # noqa: E402
from platterlib import cellsummary  # noqa: E402
from platterlib import expspec  # noqa: E402
from platterlib import fiojob  # noqa: E402
from platterlib import fioout  # noqa: E402
from platterlib import latency  # noqa: E402
from platterlib import matrix  # noqa: E402
from platterlib import paths  # noqa: E402

FIO, SIM = sys.argv[1], sys.argv[2]
ROOT = paths.ROOT
PLATTER = os.path.join(ROOT, "scripts", "platter")

# Two job sections of different rw modes, fsync in one: nothing platter
# writes for itself, and no path of its own (platter adds --directory).
JOB = """; a user's job: random writes with fsync, and random reads
[global]
ioengine=psync
bs=4k
size=2m
direct=0

[writer]
rw=randwrite
fsync=8

[reader]
rw=randread
"""


def run_fio(tmp, job_text, *extra):
    job = os.path.join(tmp, "user.fio")
    with open(job, "w") as f:
        f.write(job_text)
    out = os.path.join(tmp, "fio.json")
    p = subprocess.run([FIO, "--eta=never", "--output-format=json+", f"--output={out}",
                        f"--directory={tmp}", "--runtime=5", *extra, job],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    with open(out) as f:
        return job, f.read()


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def refused(path, fs, needle):
    try:
        fiojob.check(path, fs, "w")
    except SystemExit as e:
        assert needle in str(e), str(e)
        assert "\n" not in str(e)
        return
    raise AssertionError(f"{path} on {fs} was accepted")


def test_job_checks(tmp):
    ok = fiojob.check(write(os.path.join(tmp, "a.fio"), JOB), "ext4", "w")
    assert {k: ok[k] for k in ("jobs", "sets_runtime")} == \
        {"jobs": ["writer", "reader"], "sets_runtime": False}, ok
    # names inside the test file system stay allowed
    fiojob.check(write(os.path.join(tmp, "b.fio"),
                       "[x]\nfilename=data:more\nrw=read\n[y]\ndirectory=/mnt\n"
                       "filename=/mnt/sub/f\nruntime=3\n"), "xfs", "w")
    # paths off the test target: rewritten onto it, a note each, the line
    # kept as a comment (fio's examples name /dev/sdX and /data)
    for text, fs, now, needle in (
            ("[x]\nfilename=/dev/sda\n", "none", None,
             "r.fio:2: 'filename=/dev/sda' removed (on the raw device platter passes"),
            ("[x]\ndirectory=/tmp\n", "xfs", None, "'directory=/tmp' removed"),
            ("[x]\ndirectory=/mnt/../tmp\n", "ext4", None, "removed"),
            ("[x]\nfilename=/tmp/f\n", "ext4", "filename=f", "became 'filename=f'"),
            ("[x]\nfilename=../f:g\n", "ext4", "filename=f:g", "became 'filename=f:g'"),
            ("[x]\nfilename=/dev/sdb\n", "xfs", None, "a device: fio makes the job's files"),
            ("[x]\nopendir=/srv\n", "ext4", "opendir=/mnt", "became 'opendir=/mnt'"),
            ("[x]\ndirectory=/mnt\n", "none", None, "a raw-device job has no directory")):
        path = write(os.path.join(tmp, "r.fio"), text)
        info = fiojob.check(path, fs, "w")
        assert [r["now"] for r in info["rewrites"]] == [now] and \
            needle in info["rewrites"][0]["note"], info["rewrites"]
        new = write(os.path.join(tmp, "new.fio"), fiojob.rewritten(path, info))
        lines = open(new).read().split("\n")
        assert len(lines) == len(text.split("\n")) and "; platter: was" in lines[1], lines
        assert fiojob.check(new, fs, "w")["rewrites"] == [], open(new).read()
    for text, fs, needle in (
            ("[x]\nfilename=${HOME}/f\n", "ext4", "from the environment cannot be checked"),
            ("[global]\nbs=4k\n", "none", "no job section"),
            ("bs=4k\n[x]\n", "none", "b.fio:1: 'bs=4k' comes before any [section]"),
            ("[x]\ninclude other.fio\n", "none", "b.fio:2: 'include'"),
            ("[x]\nread_iolog=trace.log\n", "none", "reads a file the guest does not have")):
        refused(write(os.path.join(tmp, "b.fio"), text), fs, needle)
    refused(os.path.join(tmp, "missing.fio"), "none", "no such file")
    with open(os.path.join(tmp, "bin.fio"), "wb") as f:
        f.write(b"[x]\n\xff\xfe\n")
    refused(os.path.join(tmp, "bin.fio"), "none", "not UTF-8")


def test_fio_group_checked(tmp):
    """An experiment's "fio_group" names a job of its file, or is refused
    naming the jobs there are."""
    write(os.path.join(tmp, "two.fio"), "[w]\nrw=write\n[r]\nstonewall\nrw=read\n")
    spec = {"name": "g", "pairs": [["base", "fops"]], "devices": [{"frontend": "nvme"}],
            "profiles": ["st20000nm007d"],
            "workloads": [{"name": "two", "fio": "two.fio", "fs": "ext4", "fio_group": "r"}]}
    expspec.check_experiment(spec, "g", base_dir=tmp)
    spec["workloads"][0]["fio_group"] = "x"
    try:
        expspec.check_experiment(spec, "g", base_dir=tmp)
    except SystemExit as e:
        assert "workloads[0].fio_group: 'x' is not a job of two.fio (w, r)" in str(e), str(e)
    else:
        raise AssertionError("a fio_group that is no job was taken")


FIO_EXAMPLES = "/usr/share/doc/fio/examples"


def test_fio_examples(tmp):
    """Every job of Debian's fio-examples checked before boot: the counts
    docs/guide.md gives (as they are, rewritten, refused; on ext4 and the
    raw device; long at 0.3 s) are what fiojob makes of the files."""
    import glob
    import re
    files = sorted(glob.glob(os.path.join(FIO_EXAMPLES, "*.fio")))
    assert files, f"no {FIO_EXAMPLES}/*.fio: apt-get install fio-examples (scripts/setup-host --guest)"
    guide = " ".join(open(os.path.join(ROOT, "docs", "guide.md")).read().split())
    m = re.search(r"of (\d+) job files, on ext4 (\d+) run as they are, (\d+) run with lines "
                  r"rewritten and (\d+) are refused \(`\$\{FIO_DIR\}` paths\); on the raw device "
                  r"(\d+) run as they are, (\d+) rewritten, (\d+) refused; and (\d+) need "
                  r"`--allow-long` in a 0.3 s cell", guide)
    assert m, "docs/guide.md no longer gives the fio-examples counts"
    want = [int(x) for x in m.groups()]
    got = [len(files)]
    long_ = set()
    for fs in ("ext4", "none"):
        n = {"as is": 0, "rewritten": 0, "refused": 0}
        for f in files:
            try:
                info = fiojob.check(f, fs, os.path.basename(f))
            except SystemExit as e:
                # refused before boot, naming the file and its line
                assert f"{f}:" in str(e) and "FIO_DIR" in str(e), str(e)
                n["refused"] += 1
                continue
            n["rewritten" if info["rewrites"] else "as is"] += 1
            try:
                fiojob.check_long(info, 0.3, os.path.basename(f))
            except SystemExit:
                long_.add(f)
            if info["rewrites"]:
                # the copy the guest runs needs no rewrite, and keeps the lines
                copy = os.path.join(tmp, f"{fs}-{os.path.basename(f)}")
                with open(copy, "w") as out:
                    out.write(fiojob.rewritten(f, info))
                assert not fiojob.check(copy, fs, copy)["rewrites"], copy
                assert len(open(copy).read().splitlines()) == len(open(f).read().splitlines())
        got += [n["as is"], n["rewritten"], n["refused"]]
    got.append(len(long_))
    assert got == want, f"fio-examples: counted {got}, the guide says {want}"


def test_job_time(tmp):
    """A job's own times: fio's units, timeout= as runtime=, [global]
    values inherited, stonewalled groups one after another (tiobench's four
    phases of timeout=60 are 240 s), the cell's runtime for a job that sets
    none; far past the cell's runtime it is refused naming the line."""
    assert [fiojob.seconds(v) for v in ("60", "500ms", "2m", "1-3s", "100us", "x", "5q")] == \
        [60, 0.5, 120, 3, 100e-6, None, None]
    tio = write(os.path.join(tmp, "tio.fio"),
                "[global]\nsize=512m\ntimeout=60\nnumjobs=4\n[f1]\nrw=write\n"
                "[f2]\nstonewall\nrw=randwrite\n[f3]\nstonewall\nrw=read\n"
                "[f4]\nstonewall\nrw=randread\n")
    info = fiojob.check(tio, "ext4", "w")
    assert info["sets_runtime"] and len(info["timing"]) == 4, info
    assert fiojob.duration_s(info, 0.3) == (240, f"{tio}:3"), fiojob.duration_s(info, 0.3)
    try:
        fiojob.check_long(info, 0.3, "w")
    except SystemExit as e:
        assert f"{tio}:3: the job runs up to 240 virtual s" in str(e) and \
            "--allow-long" in str(e), str(e)
    else:
        raise AssertionError("a 240 s job in a 0.3 s cell was not refused")
    # two jobs together: the longer one; a job without times: the cell's
    two = write(os.path.join(tmp, "two.fio"),
                "[a]\nrw=read\nruntime=2\nramp_time=500ms\n[b]\nrw=write\nstartdelay=1\n")
    assert fiojob.duration_s(fiojob.check(two, "ext4", "w"), 1)[0] == 2.5
    fiojob.check_long(fiojob.check(two, "ext4", "w"), 1, "w")   # 2.5 s: not far past
    plain = fiojob.check(write(os.path.join(tmp, "plain.fio"), JOB), "ext4", "w")
    assert fiojob.duration_s(plain, 7) == (7, None)


def test_output_stats(tmp):
    _, text = run_fio(tmp, JOB)
    doc = fioout.parse(text)
    raw = json.loads(text)
    jobs = fioout.jobs(doc)
    assert [j[0] for j in jobs] == ["writer", "reader"], jobs
    writer, reader = jobs[0][2], jobs[1][2]
    assert set(writer) == {"write", "sync"} and set(reader) == {"read"}, (writer, reader)
    w = raw["jobs"][0]["write"]
    assert writer["write"]["ios"] == w["total_ios"] == 512
    # fsync=8: one fsync per 8 writes (fio counts 63 of the 64)
    nsync = raw["jobs"][0]["sync"]["total_ios"]
    assert writer["sync"]["ios"] == nsync and 63 <= nsync <= 64, (writer["sync"], nsync)
    # percentiles from the bins are fio's own (nearest rank over the same bins)
    for stat, dirs, key in (("write", writer, "clat_ns"), ("read", reader, "clat_ns")):
        mine = fioout.lat_us([dirs[stat]])[0]
        j = raw["jobs"][0 if stat == "write" else 1][stat][key]
        for k, p in (("p50", "50.000000"), ("p99", "99.000000"), ("p99.9", "99.900000")):
            assert mine[k] == j["percentile"][p] / 1000, (stat, k, mine, j["percentile"])
        assert abs(mine["avg"] - j["mean"] / 1000) < 1e-3, (mine, j["mean"])
    sync = fioout.lat_us([writer["sync"]])[0]
    assert sync["p99"] == raw["jobs"][0]["sync"]["lat_ns"]["percentile"]["99.000000"] / 1000
    # a cell's summary: the stat its workload names
    s_io = fioout.summary(doc, "io")
    assert s_io["ios"] == 1024 and abs(s_io["iops"] - (w["iops"] + raw["jobs"][1]["read"]["iops"])) < 1e-3
    s_sync = fioout.summary(doc, "sync")
    assert s_sync["ios"] == nsync and s_sync["lat_us"]["p50"] == sync["p50"]
    assert s_io["cdf"][-1][0] == 1.0 and all(a[1] <= b[1] for a, b in zip(s_io["cdf"], s_io["cdf"][1:]))
    rows = fioout.table(doc)
    assert [(r["job"], r["stat"]) for r in rows] == [("writer", "write"), ("writer", "sync"),
                                                     ("reader", "read")], rows


def test_group_reporting_and_notes(tmp):
    # group_reporting: one entry for the group; notes before the JSON are skipped
    _, text = run_fio(tmp, JOB.replace("[global]", "[global]\ngroup_reporting=1\nnumjobs=2"))
    doc = fioout.parse("note: both iodepth >= 1 and synchronous I/O engine are selected\n" + text)
    jobs = fioout.jobs(doc)
    assert len(jobs) == 1 and set(jobs[0][2]) == {"read", "write", "sync"}, jobs
    assert jobs[0][2]["write"]["ios"] == 1024 and jobs[0][2]["read"]["ios"] == 1024
    for bad_text in ("", "fio: no such file\n", "{\"jobs\": 5}", "{\"jobs\": [1]}"):
        try:
            fioout.jobs(fioout.parse(bad_text))
        except fioout.Malformed:
            continue
        raise AssertionError(f"{bad_text!r} was read as fio output")


def test_guest_transport(tmp):
    # what the guest's fio test sends (gzip + base64 in one JSON string)
    # comes back as fio's own document, and summarizes per the workload
    _, text = run_fio(tmp, JOB)
    res = {"version": 1, "test": "fio", "device": {"stat_delta": {"flushes": 70}},
           "fio_json_gz_b64": base64.b64encode(gzip.compress(text.encode())).decode()}
    res, err = cellrun.decode_guest(res)
    assert err is None and "fio_json_gz_b64" not in res and res["fio"] == json.loads(text)
    s = cellsummary.summarize(res, {"name": "w", "fio": "user.fio", "fio_stat": "write"})
    assert s["ios"] == 512 and s["per_io"]["flushes"] == round(70 / 512, 3), s
    assert [j["stat"] for j in s["jobs"]] == ["write", "sync", "read"]
    bad, err = cellrun.decode_guest({"fio_json_gz_b64": "not base64!"})
    assert bad is None and "does not decode" in err, err


def test_bench_guest_reads_fio(tmp):
    # bench-guest's jobs16 figures from the guest's fio result as it comes
    # now (fio's json+ in fio_json_gz_b64, no top-level ios): the shipped
    # xfs-fsync job, run by the host's fio, 2 jobs for 1 s.  bench-guest
    # read res["ios"] and stopped with a KeyError traceback at its first
    # jobs16 run.
    import importlib.machinery
    import importlib.util
    job = os.path.join(ROOT, "guest-tests", "fio", "xfs-fsync.fio")
    out = os.path.join(tmp, "fio.json")
    subprocess.run([FIO, "--eta=never", "--output-format=json+", f"--output={out}",
                    f"--directory={tmp}", job], check=True, capture_output=True,
                   env=dict(os.environ, PLATTER_RUNTIME="1", PLATTER_JOBS="2"))
    with open(out) as f:
        text = f.read()
    res, err = cellrun.decode_guest(
        {"version": 1, "test": "fio", "device": {"stat_delta": {"flushes": 3}},
         "fio_json_gz_b64": base64.b64encode(gzip.compress(text.encode())).decode()})
    assert err is None, err
    loader = importlib.machinery.SourceFileLoader(
        "bench_guest", os.path.join(ROOT, "scripts", "bench-guest"))
    bench = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name, loader))
    loader.exec_module(bench)
    raw = json.loads(text)["jobs"]
    syncs = sum(j["sync"]["total_ios"] for j in raw)
    runtime_ns = max(j["write"]["runtime"] for j in raw) * 1_000_000
    assert syncs > 0 and 900_000_000 <= runtime_ns <= 1_100_000_000, (syncs, runtime_ns)
    assert bench.guest_figures(res) == ((syncs, runtime_ns), None), bench.guest_figures(res)
    none, why = bench.guest_figures({"version": 1, "test": "fio", "fio": {"jobs": []}})
    assert none is None and why == "fio's output has no job that fsynced", why


def test_histogram_math(_tmp):
    h = latency.from_pairs([[1000, 1], [2000, 2], [3000, 96], [9000, 1]])
    assert latency.count(h) == 100
    assert latency.percentile(h, 50) == 3000 and latency.percentile(h, 1) == 1000
    assert latency.percentile(h, 99) == 3000 and latency.percentile(h, 99.01) == 9000
    assert latency.cdf(h) == [(0.01, 1.0), (0.03, 2.0), (0.99, 3.0), (1.0, 9.0)]
    many = [(i / 5000, 10 + i * 0.01) for i in range(1, 5001)]
    thin = latency.thin(many, 200)
    assert len(thin) <= 2 * 200 + 1 and thin[-1] == many[-1], len(thin)


def test_compare_with_a_job_file(tmp):
    # compare --workloads takes a job file by host path, any rw mode;
    # the sim has no equivalent and the report says so
    job = write(os.path.join(tmp, "mine.fio"), JOB)
    out = os.path.join(tmp, "o")
    p = subprocess.run([PLATTER, "compare", "seed-fops", "--sim-only", "--sim", SIM,
                        "--runtime", "0.1", "--cells", "*.nvme.*", "--workloads",
                        f"seq,{job}", "--fs", "ext4", "--out", out],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    doc = json.load(open(os.path.join(out, "report.json")))
    ids = sorted(c["id"] for c in doc["cells"])
    assert ids == ["mine.st20000nm007d.nvme.base", "mine.st20000nm007d.nvme.fops",
                   "seq.st20000nm007d.nvme.base", "seq.st20000nm007d.nvme.fops"], ids
    mine = next(c for c in doc["cells"] if c["id"].startswith("mine."))
    assert mine["sim"]["no_prediction"].startswith("a fio job file"), mine["sim"]
    md = open(os.path.join(out, "report.md")).read()
    assert "no sim prediction" in md, md
    # the spec in the report names the job as given, relative to the experiment
    wl = next(w for w in doc["spec"]["workloads"] if w["name"] == "mine")
    assert wl["fs"] == "ext4" and os.path.normpath(os.path.join(
        expspec.EXPERIMENTS, wl["fio"])) == job, wl
    cell = next(c for c in matrix.cells(expspec.load("seed-fops"))
                if c["id"] == "seq.st20000nm007d.nvme.base")
    spec = expspec.check_experiment(doc["spec"], "r", base_dir=expspec.EXPERIMENTS)
    c = next(c for c in matrix.cells(spec) if c["id"] == "mine.st20000nm007d.nvme.base")
    cmd = matrix.guest_command(c, 1)
    assert cmd[cmd.index("--guest-file") + 1] == job
    assert cmd[cmd.index("fio") + 1:] == ["--", "--job-file", "mine.fio", "--fs", "ext4",
                                          "--runtime", "1"], cmd
    # a job naming a folder off the target (fio's aio-read example):
    # prepare_jobs writes the rewritten copy the cell then sends; a cell
    # sent without it is refused before run-guest
    data_job = write(os.path.join(tmp, "aio.fio"), "[global]\ndirectory=/data1\n[f]\nrw=read\n")
    bare = {k: v for k, v in doc["spec"].items() if k not in ("seed", "expect")}
    spec = expspec.check_experiment(dict(bare, workloads=[
        {"name": "aio", "fio": data_job, "fs": "ext4"}]), "r", base_dir=tmp)
    c0 = next(c for c in matrix.cells(spec) if c["id"] == "aio.st20000nm007d.nvme.base")
    try:
        cellrun.check_guest_commands([dict(c0)], 1)
    except SystemExit as e:
        assert "'directory=/data1' removed" in str(e) and "not rewritten" in str(e), str(e)
    else:
        raise AssertionError("a job off the target went to run-guest unrewritten")
    cellrun.prepare_jobs([c0], os.path.join(tmp, "jobs"), 1)
    assert c0["host_file"] == os.path.join(tmp, "jobs", "aio", "aio.fio"), c0["host_file"]
    assert c0["job_rewrites"] and "'directory=/data1' removed" in c0["job_rewrites"][0]
    assert "; platter: was 'directory=/data1'" in open(c0["host_file"]).read()
    # a guest run of a job whose own runtime= is far past the cell's:
    # refused before anything builds or runs, unless --allow-long
    long_job = write(os.path.join(tmp, "long.fio"), "[r]\nrw=randread\nruntime=900\n")
    p = subprocess.run([PLATTER, "compare", "seed-fops", "--sim", SIM, "--runtime", "0.3",
                        "--cells", "*.nvme.base", "--workloads", long_job, "--fs", "ext4",
                        "--out", os.path.join(tmp, "o2")], capture_output=True, text=True)
    assert p.returncode == 2 and f"{long_job}:3: the job runs up to 900 virtual s" in p.stderr \
        and "--allow-long" in p.stderr, (p.returncode, p.stderr)
    assert not os.path.exists(os.path.join(tmp, "o2")), os.listdir(tmp)
    assert "--guest-file" not in matrix.guest_command(cell, 1)


tap.run([("fio job files: paths kept on the test target", test_job_checks),
         ("a job's own times, and a job far past the cell's runtime refused", test_job_time),
         ("fio's own examples (fio-examples): the guide's counts", test_fio_examples),
         ("fio_group names a job of the file", test_fio_group_checked),
         ("fio json+ output: per-job read, write and sync stats from the bins",
          test_output_stats),
         ("fio json+ output: group_reporting, notes before the JSON, malformed output",
          test_group_reporting_and_notes),
         ("the guest's fio result decodes and summarizes", test_guest_transport),
         ("bench-guest reads the guest's fio result: fsyncs and runtime", test_bench_guest_reads_fio),
         ("latency histograms: percentiles and CDFs", test_histogram_math),
         ("compare --workloads with a job file: no sim prediction", test_compare_with_a_job_file)],
        with_tmpdir=True)
