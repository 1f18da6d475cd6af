#!/usr/bin/python3
"""Ready clients (platterlib/clients.py) on the host: their parsers on the
programs' real output (captured from guest runs of Debian's packages) and on
generated text, the experiment checks, the cell each becomes and its
summary.  Prints TAP.  usage: test-clients.py PLATTER_SIM"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from platterlib import tap  # noqa: E402
from platterlib import cellrun  # noqa: E402
from platterlib import cellsummary  # noqa: E402
from platterlib import clients  # noqa: E402
from platterlib import expspec  # noqa: E402
from platterlib import kernelspec  # noqa: E402
from platterlib import matrix  # noqa: E402
from platterlib import paths  # noqa: E402

SIM = sys.argv[1] if len(sys.argv) > 1 else os.path.join(paths.ROOT, "build", "sim",
                                                          "platter-sim")
PLATTER = os.path.join(paths.ROOT, "scripts", "platter")

# pg_test_fsync -s 1 on xfs, NVMe, st20000nm007d, stopped after the first
# section (the client's script)
PG_OUT = """1 second per test
O_DIRECT supported on this platform for open_datasync and open_sync.

Compare file sync methods using one 8kB write:
(in wal_sync_method preference order, except fdatasync is Linux's default)
        open_datasync                      6920.813 ops/sec     144 usecs/op
        fdatasync                           119.103 ops/sec    8396 usecs/op
        fsync                                94.989 ops/sec   10528 usecs/op
        fsync_writethrough                              n/a
        open_sync                            58.513 ops/sec   17090 usecs/op

Compare file sync methods using two 8kB writes:
(in wal_sync_method preference order, except fdatasync is Linux's default)
        open_datasync                 
"""

# fs_mark -n 50 -L 2 -S 1 (generic-7200, xfs): Count is cumulative
FSMARK_HEAD = """
#  fs_mark  -d  /mnt/fsm  -s  4096  -n  50  -L  2  -S  1  -t  1 
#\tVersion 3.3, 1 thread(s) starting at Thu Jan  1 00:00:01 2026
#\tSync method: INBAND FSYNC: fsync() per file in write loop.
#\tApp overhead is time in microseconds spent in the test not doing file writing related system calls.

FSUse%        Count         Size    Files/sec     App Overhead
"""
FSMARK_OUT = FSMARK_HEAD + """     0           50         4096         58.5              678
     0          100         4096         60.0              679
"""

# dbench 4.0 -t 2, one client (generic-7200, xfs), its table cut short
DBENCH_OUT = """dbench version 4.00 - Copyright Andrew Tridgell 1999-2004

Running for 2 seconds with load '/usr/share/dbench/client.txt' and minimum warmup 0 secs
failed to create barrier semaphore 
   1      4299    40.43 MB/sec  execute   1 sec  latency 28.858 ms

 Operation      Count    AvgLat    MaxLat
 ----------------------------------------
 NTCreateX       1360     0.025     5.183
 Close           1024     0.002     0.033
 WriteX          1044     0.095     0.259
 Flush            109    16.276    28.854

Throughput 40.4275 MB/sec  1 clients  1 procs  max_latency=28.858 ms
"""


# sysbench fileio's run (the client's script), 2 s, xfs, NVMe,
# st20000nm007d, base kernel
SYSBENCH_OUT = """sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)

Running the test with following options:
Number of threads: 1
Initializing random number generator from seed (1).


Extra file open flags: (none)
16 files, 4MiB each
64MiB total file size
Block size 16KiB
Number of IO requests: 0
Read/Write ratio for combined random IO test: 1.50
Periodic FSYNC enabled, calling fsync() each 100 requests.
Calling fsync() at the end of test, Enabled.
Using synchronous I/O mode
Doing random write test
Initializing worker threads...

Threads started!


File operations:
    reads/s:                      0.00
    writes/s:                     420.58
    fsyncs/s:                     70.56

Throughput:
    read, MiB/s:                  0.00
    written, MiB/s:               6.57

General statistics:
    total time:                          2.1385s
    total number of events:              1035

Latency (ms):
         min:                                    0.02
         avg:                                    1.94
         max:                                   27.59
         95th percentile:                       16.41
         sum:                                 2005.51

Threads fairness:
    events (avg/stddev):           1035.0000/0.00
    execution time (avg/stddev):   2.0055/0.00

"""


# pgbench -T 2 -c 1 against PostgreSQL 15 in the guest (the client's
# script), xfs, NVMe, st20000nm007d, base+unix
PGBENCH_OUT = """pgbench (15.20 (Debian 15.20-0+deb12u1))
starting vacuum...end.
transaction type: <builtin: TPC-B (sort of)>
scaling factor: 1
query mode: simple
number of clients: 1
number of threads: 1
maximum number of tries: 1
duration: 2 s
number of transactions actually processed: 238
number of failed transactions: 0 (0.000%)
latency average = 8.364 ms
initial connection time = 9.344 ms
tps = 119.554974 (without initial connection time)
"""


def test_parsers(_tmp):
    pg = clients.pg_parse(PG_OUT)
    # "seconds": how long each method ran (its "1 second per test" line),
    # which makes the headline's rate a count of operations
    assert pg == {"fdatasync": 119.103, "open_datasync": 6920.813, "fsync": 94.989,
                  "open_sync": 58.513, "seconds": 1}, pg
    fs = clients.fsmark_parse(FSMARK_OUT)
    # 100 files, 50 at 58.5/s and 50 at 60.0/s: not 150 (the Count is a
    # running total) and not the rates averaged
    assert fs["ops"] == 100, fs
    assert abs(fs["files_per_s"] - 100 / (50 / 58.5 + 50 / 60.0)) < 1e-9, fs
    # two runs (the deadline loop): each one's Count starts again
    two = clients.fsmark_parse(FSMARK_OUT + FSMARK_HEAD + "     0   50   4096   30.0   1\n")
    assert two["ops"] == 150 and abs(two["files_per_s"] - 150 / (50 / 58.5 + 50 / 60 + 50 / 30)) \
        < 1e-9, two
    sb = clients.sysbench_parse(SYSBENCH_OUT)
    # the rates as printed, and how long they were measured (total time)
    assert sb == {"writes_per_s": 420.58, "fsyncs_per_s": 70.56, "reads_per_s": 0.0,
                  "written_mib_per_s": 6.57, "seconds": 2.1385}, sb
    sm = clients.summary({"client": "sysbench"}, SYSBENCH_OUT)
    assert sm["ios"] == round(420.58 * 2.1385) and sm["iops"] == 420.58, sm
    sq = clients.sqlite_parse("platter sqlite3: 100 transactions in 3.25 s\n")
    assert sq == {"tps": 100 / 3.25, "ops": 100}, sq
    pb = clients.pgbench_parse(PGBENCH_OUT)
    assert pb == {"tps": 119.554974, "ops": 238, "latency_avg_ms": 8.364}, pb
    db = clients.dbench_parse(DBENCH_OUT)
    assert db == {"mb_per_s": 40.4275, "max_latency_ms": 28.858, "ops": 1360 + 1024 + 1044 + 109}, db


def test_parsers_refuse(_tmp):
    """Output without the figure is a ParseError naming what is missing,
    and only that, whatever the text (generated)."""
    from hypothesis import given, settings, strategies as st
    for name, text, frag in (
            ("pg_test_fsync", PG_OUT.replace("fdatasync  ", "fdatasyncX "), "fdatasync"),
            ("pg_test_fsync", "1 second per test\n", "ops/sec"),
            ("fsmark", FSMARK_HEAD, "fs_mark result line"),
            ("fsmark", FSMARK_HEAD + "     0   50   4096   0.0   1\n", "rate of 0"),
            ("dbench", DBENCH_OUT.replace("Throughput", "Thruput"), "Throughput"),
            ("sysbench", SYSBENCH_OUT.replace("writes/s", "writes"), "writes/s"),
            ("sysbench", SYSBENCH_OUT.replace("total time", "total"), "total time"),
            ("sqlite3", "platter sqlite3: 0 transactions in 2.00 s\n", "above 0"),
            ("pgbench", PGBENCH_OUT.replace("tps =", "tps:"), "tps = N"),
            ("pgbench", PGBENCH_OUT.replace("failed transactions: 0", "failed transactions: 3"),
             "3 transactions failed"),
            ("sqlite3", "platter sqlite3: 5 transactions in 0.00 s\n", "above 0")):
        try:
            clients.CLIENTS[name].parse(text)
        except clients.ParseError as e:
            assert frag in str(e), (name, str(e))
        else:
            raise AssertionError(f"{name} parsed {text!r:.80}")
    pieces = [ln for t in (PG_OUT, FSMARK_OUT, DBENCH_OUT, SYSBENCH_OUT, PGBENCH_OUT)
              for ln in t.splitlines()]
    line = st.one_of(st.sampled_from(pieces), st.text(max_size=60),
                     st.builds(lambda a, b, c: f"  {a}  {b}  4096  {c}  1",
                               st.integers(-5, 10 ** 6), st.integers(-5, 10 ** 6),
                               st.floats(allow_nan=True, allow_infinity=True)))

    @settings(max_examples=400, deadline=None, derandomize=True)
    @given(st.lists(line, max_size=30), st.sampled_from(list(clients.CLIENTS)))
    def check(lines, name):
        try:
            figures = clients.CLIENTS[name].parse("\n".join(lines))
        except clients.ParseError:
            return
        for k, v in figures.items():
            assert v is None or (type(v) in (int, float) and 0 <= v < float("inf")), (k, v)
    check()


def client_spec(**wl):
    return {"name": "c", "pairs": [["base", "fops"]], "devices": [{"frontend": "nvme"}],
            "profiles": ["st20000nm007d"], "runtime": 1,
            "workloads": [dict({"name": "pg", "client": "pg_test_fsync"}, **wl)]}


def refused(spec, frag):
    try:
        expspec.check_experiment(spec, "t", base_dir=os.getcwd())
    except SystemExit as e:
        assert frag in str(e), (frag, str(e))
    else:
        raise AssertionError(f"accepted {spec['workloads']}")


def test_experiment_checks(_tmp):
    exp = expspec.check_experiment(client_spec(), "t", base_dir=os.getcwd())
    assert matrix.workload_fs(exp["workloads"][0]) == "xfs"      # a client's default
    refused(client_spec(client="nosuch"), "pg_test_fsync, fsmark, dbench, sysbench, sqlite3, pgbench")
    refused(client_spec(headline="files_per_s"), "fdatasync, open_datasync")
    refused(client_spec(fs="none"), "needs a file system")
    refused(client_spec(packages=["x"]), "'packages' does not apply")
    refused(client_spec(client=["pg_test_fsync"]), "is not one of")
    expspec.check_experiment(client_spec(headline="open_datasync", fs="ext4",
                                         mount_opts="noatime"), "t", base_dir=os.getcwd())
    # settings: only for a client that runs a server, and nothing a shell
    # or the server's command line would split
    refused(client_spec(settings={"fsync": "off"}), "runs no server")
    for bad, frag in (({}, "an object of NAME: VALUE"), ([], "an object of NAME: VALUE"),
                      ({"Fsync": "off"}, "not a setting's name"),
                      ({"fsync": "off -c x=y"}, "is not a value"),
                      ({"fsync": "'off'"}, "is not a value"), ({"fsync": True}, "is not a value"),
                      ({"fsync": ""}, "is not a value"), ({"fsync": 1.5}, "is not a value")):
        refused(client_spec(client="pgbench", settings=bad), frag)
    exp = expspec.check_experiment(client_spec(client="pgbench", settings={
        "wal_sync_method": "open_datasync", "max_wal_senders": 0}), "t", base_dir=os.getcwd())
    text = clients.script_text(exp["workloads"][0], 2.5)
    assert "-c max_wal_senders=0 -c wal_sync_method=open_datasync'" in text, text
    assert " -T 3 -c 1 " in text, text
    # pgbench's server listens on an AF_UNIX socket: its cells' kernels
    # are built with net=unix, and no other client's are
    cells = matrix.cells(exp)
    assert [c["kernel"] for c in cells] == ["base,net=unix", "fops,net=unix"], cells
    assert [kernelspec.label(c["kernel"]) for c in cells] == ["base+unix", "fops+unix"], cells
    assert matrix.cells(expspec.check_experiment(client_spec(), "t", base_dir=os.getcwd()))[0][
        "kernel"] == "base"


def test_cell_and_script(tmp):
    exp = expspec.check_experiment(client_spec(), "t", base_dir=os.getcwd())
    cells = matrix.cells(exp)
    assert [c["id"] for c in cells] == ["pg.st20000nm007d.nvme.base",
                                        "pg.st20000nm007d.nvme.fops"], cells
    c = cells[0]
    assert c["packages"] == ["postgresql-15:pg_test_fsync"], c["packages"]
    assert matrix.sim_plan(c, 1, SIM)[0] is None
    cellrun.prepare_jobs(cells, os.path.join(tmp, "jobs"), 9)
    path = os.path.join(tmp, "jobs", "pg", "pg_test_fsync.sh")
    assert c["host_file"] == path, c["host_file"]
    text = open(path).read()
    # 9 s over the section's 4 methods: whole seconds, rounded up
    assert " -s 3 " in text, text
    cmd = matrix.guest_command(c, 9)
    assert cmd[cmd.index("--guest-file") + 1] == path
    assert cmd[cmd.index("exec"):] == ["exec", "--", "--script", "pg_test_fsync.sh", "--fs", "xfs",
                                       "--runtime", "9"], cmd
    assert " -t 1 " in clients.script_text({"client": "dbench"}, 0.3)
    assert "-v r=0.3 " in clients.script_text({"client": "fsmark"}, 0.3)


def guest_result(status, stdout, stderr=""):
    return {"test": "exec", "status": status, "stdout": stdout, "stderr": stderr,
            "params": {"runtime_s": 4}, "drive": {"writes": 480, "fua_writes": 0,
                                                  "flushes": 240}}


def test_summary(_tmp):
    wl = {"name": "pg", "client": "pg_test_fsync", "fs": "xfs"}
    s = cellsummary.summarize(guest_result(0, PG_OUT), wl)
    assert s["iops"] == 119.103 and s["client"]["headline"] == "fdatasync", s
    assert s["lat_us"]["avg"] == round(1e6 / 119.103, 3), s["lat_us"]
    assert s["ios"] == 119 and s["per_io"]["flushes"] == round(240 / 119, 3), s
    s = cellsummary.summarize(guest_result(0, PG_OUT), dict(wl, headline="open_sync"))
    assert s["iops"] == 58.513, s
    two = PG_OUT.replace("1 second per test", "2 seconds per test")
    s = cellsummary.summarize(guest_result(0, two), wl)
    assert s["ios"] == round(2 * 119.103) and "seconds" not in s["client"]["figures"], s
    for res, frag in ((guest_result(1, PG_OUT, "could not open\n"), "exited 1: could not open"),
                      (guest_result(0, "nothing\n"), "ops/sec")):
        try:
            cellsummary.summarize(res, wl)
        except clients.ParseError as e:
            assert frag in str(e), str(e)
        else:
            raise AssertionError(f"summarized {res}")
    # a plain script cell is still judged by its status alone
    assert cellsummary.summarize(guest_result(3, ""), {"name": "s", "script": "x"})["status"] == 3


def test_gate(_tmp):
    """A client cell is judged by its headline (it was passed on its exit
    status alone, as a script is, whatever its figures did)."""
    from platterlib import gate
    wl = {"name": "pg", "client": "pg_test_fsync", "fs": "xfs"}
    base = {"guest": {"summary": cellsummary.summarize(guest_result(0, PG_OUT), wl)}}
    slower = PG_OUT.replace("119.103 ops/sec", "100.000 ops/sec")
    patched = {"guest": {"summary": cellsummary.summarize(guest_result(0, slower), wl)}}
    v = gate.judge_one("pg.x.nvme.fops", patched, base, gate.parse("iops:-2%"), "base")
    assert not v["passed"] and "iops 119.103 -> 100" in v["checks"][0], v
    v = gate.judge_one("pg.x.nvme.fops", base, base, gate.parse("iops:-2%"), "base")
    assert v["passed"], v
    v = gate.judge_one("pg.x.nvme.fops", patched, None, gate.parse("iops:-2%"), "base")
    assert not v["passed"], v


def test_compare_cli(tmp):
    """--workloads client:NAME: one workload per --fs (xfs without one),
    no sim prediction; an unknown client is refused in one line."""
    out = os.path.join(tmp, "r")
    p = subprocess.run([PLATTER, "compare", "seed-fops", "--sim", SIM, "--sim-only",
                        "--workloads", "client:fsmark,client:dbench", "--cells", "*.nvme.*",
                        "--runtime", "1", "--out", out], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    with open(os.path.join(out, "report.json")) as f:
        cells = json.load(f)["cells"]
    assert sorted(c["id"] for c in cells) == [
        "dbench.st20000nm007d.nvme.base", "dbench.st20000nm007d.nvme.fops",
        "fsmark.st20000nm007d.nvme.base", "fsmark.st20000nm007d.nvme.fops"], cells
    assert all(c["sim"]["no_prediction"].startswith("a client program") for c in cells)
    p = subprocess.run([PLATTER, "compare", "seed-fops", "--sim", SIM, "--sim-only",
                        "--workloads", "client:fsmark", "--fs", "ext4,xfs", "--cells",
                        "*.nvme.base", "--runtime", "1", "--out", out + "2"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    with open(os.path.join(out + "2", "report.json")) as f:
        assert sorted(c["workload"] for c in json.load(f)["cells"]) == ["fsmark-ext4",
                                                                      "fsmark-xfs"]
    # a job file before a client: the file on the raw device, the client
    # on xfs (the file's default once reached the client: refused, "needs
    # a file system")
    job = os.path.join(tmp, "w.fio")
    with open(job, "w") as f:
        f.write("[w]\nrw=randwrite\nbs=4k\n")
    p = subprocess.run([PLATTER, "compare", "seed-fops", "--sim", SIM, "--sim-only",
                        "--workloads", f"{job},client:sqlite3", "--cells", "*.nvme.base",
                        "--runtime", "1", "--out", out + "4"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    with open(os.path.join(out + "4", "report.json")) as f:
        wls = {w["name"]: w for w in json.load(f)["spec"]["workloads"]}
    assert (wls["w"]["fs"], wls["sqlite3"]["fs"]) == ("none", "xfs"), wls
    p = subprocess.run([PLATTER, "compare", "seed-fops", "--sim", SIM, "--sim-only",
                        "--workloads", "client:nosuch", "--out", out + "3"],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "is not one of pg_test_fsync, fsmark, dbench" in p.stderr, \
        (p.returncode, p.stderr)
    p = subprocess.run([PLATTER, "list", "clients"], capture_output=True, text=True)
    assert p.returncode == 0 and [ln.split()[0] for ln in p.stdout.splitlines()] == \
        list(clients.CLIENTS), p.stdout


tap.run([("the clients' parsers on their programs' real output", test_parsers),
         ("a client's output without its figure: a ParseError, whatever the text",
          test_parsers_refuse),
         ("an experiment's client workload checked", test_experiment_checks),
         ("a client workload's cells, script and guest command", test_cell_and_script),
         ("a client cell's summary: its headline, or why not", test_summary),
         ("a client cell judged by its headline, not its exit status", test_gate),
         ("compare --workloads client:NAME and platter list clients", test_compare_cli)],
        with_tmpdir=True)
