"""Ready workloads from real clients: programs nobody here wrote, from
Debian's packages, run in the guest as they are, each with a parser whose
headline rate the report and the gate use.

An experiment names one as {"name": "pg", "client": "pg_test_fsync",
"fs": "xfs"} (or `--workloads client:NAME`).  The cell is a script cell
(the guest's exec test) whose script this module writes for the cell's
runtime and whose packages it names; the script's stdout is the client's
own output, which the client's parser turns into the cell's summary:
"iops" is the headline rate (in the client's unit), "lat_us.avg" its
time per operation where the client gives one, and "client" every figure
it printed.  Nothing reads the host at run time: the packages are packed
into the guest once per content (programs.py).

One entry per client in CLIENTS: its packages, the script for a runtime,
its figures and the parser.  A client runs about the cell's runtime
(pg_test_fsync and dbench in whole seconds, rounded up; fs_mark whole runs
of 100 files until the runtime has passed).
"""
import math
import re
import shlex
from dataclasses import dataclass
from typing import Callable

from . import pgtestfsync


class ParseError(Exception):
    pass


@dataclass(frozen=True)
class Client:
    name: str
    help: str
    packages: tuple          # platter exec --package values
    unit: str                # the headline's unit
    figures: tuple           # what "headline" may name; the first is the default
    per_op: bool             # the headline counts operations: 1 / rate is the
                             # time one takes (lat_us.avg)
    script: Callable         # (runtime_s, settings) -> the guest script's text
    parse: Callable          # stdout -> {figure: rate}, plus "ops" (how many
                             # the headline counted) or "seconds" (how long
                             # each rate was measured)
    kernel: tuple = ()       # (fragment option, name): what its kernel needs
                             # built in (kernelspec.with_fragment)
    settings: str = ""       # what the workload's "settings" set ("": none)


def whole_secs(runtime_s):
    """A runtime as the whole seconds a client's own option takes (dbench -t,
    sysbench --time, pgbench -T): rounded up, at least 1."""
    return max(1, math.ceil(runtime_s))


def deadline_loop(runtime_s, command):
    """Shell lines that run COMMAND again and again until the cell's
    runtime has passed (the guest's clock is virtual: /proc/uptime is
    deterministic), a whole run each time: a run is never cut short, so
    every line it printed is whole."""
    return (f"end=$(awk -v r={runtime_s!r} '{{ print $1 + r }}' /proc/uptime)\n"
            "i=0\n"
            "while awk -v e=\"$end\" '{ exit !($1 < e) }' /proc/uptime; do\n"
            f"    {command} || exit\n"
            "    i=$((i + 1))\n"
            "done\n")


# ---- pg_test_fsync: PostgreSQL's commit-method test --------------------------

PG_METHODS = ("fdatasync", "open_datasync", "fsync", "open_sync")
# the first section's lines that run (fsync_writethrough is n/a on Linux)
PG_TESTS = 4


def pg_secs(runtime_s):
    """pg_test_fsync's -s (whole seconds per method) for a runtime: the
    section measured runs its methods one after another."""
    return whole_secs(runtime_s / PG_TESTS)


def pg_script(runtime_s, _settings):
    return (
        "# pg_test_fsync's first section, 'one 8kB write' (each method for -s\n"
        "# seconds): the program goes on to other sections, which are stopped\n"
        "out=/tmp/pg_test_fsync.out\n"
        f"{pgtestfsync.PROGRAM} -s {pg_secs(runtime_s)} -f ./pg_test_fsync.data >$out 2>&1 &\n"
        "pid=$!\n"
        "while kill -0 $pid 2>/dev/null &&\n"
        "        ! grep -q '^Compare file sync methods using two' $out; do\n"
        "    sleep 0.05\n"
        "done\n"
        "kill $pid 2>/dev/null\n"
        "wait $pid\n"
        "cat $out\n")


PG_SECONDS = re.compile(r"^(\d+) seconds? per test", re.M)


def pg_parse(text):
    try:
        one = pgtestfsync.parse(text).get(pgtestfsync.ONE_WRITE) or {}
    except pgtestfsync.ParseError as e:
        raise ParseError(str(e))
    out = {m: one[m] for m in PG_METHODS if one.get(m)}
    if "fdatasync" not in out:
        raise ParseError("no 'fdatasync N ops/sec' line under 'Compare file sync methods "
                         "using one 8kB write'")
    m = PG_SECONDS.search(text)
    if m:
        out["seconds"] = int(m.group(1))
    return out


# ---- fs_mark: files created, written and fsynced -----------------------------

FSMARK_LINE = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\d+)\s+([\d.]+)\s+(\d+)\s*$")
FSMARK_FILES = 100          # files per run (-n), 4 KiB each, fsync per file


def fsmark_script(runtime_s, _settings):
    return ("# fs_mark runs of 100 files of 4 KiB, each fsynced (-S 1), until\n"
            "# the runtime has passed\n" +
            deadline_loop(runtime_s, f"fs_mark -d ./fsmark.$i -s 4096 -n {FSMARK_FILES} "
                                     "-L 1 -S 1 -t 1"))


def fsmark_parse(text):
    """files/s over every run: the files over the runs' times added up
    (each line is one run's count and rate)."""
    files = secs = 0.0
    before = 0              # a run's Count is cumulative over its loops
    for ln in text.splitlines():
        if ln.lstrip().startswith("FSUse%"):
            before = 0
        m = FSMARK_LINE.match(ln)
        if m:
            count, rate = int(m.group(2)), float(m.group(4))
            n, before = count - before, count
            if rate <= 0 or n <= 0:
                raise ParseError(f"fs_mark line {ln.strip()!r:.80}: no files or a rate of 0")
            files += n
            secs += n / rate
    if not files:
        raise ParseError("no fs_mark result line (FSUse% Count Size Files/sec App Overhead)")
    return {"files_per_s": files / secs, "ops": files}


# ---- dbench: a file server's load (its client.txt) ---------------------------

DBENCH_LINE = re.compile(r"^Throughput ([\d.]+) MB/sec\s+(\d+) clients?\s+(\d+) procs?"
                         r"\s+max_latency=([\d.]+) ms")
DBENCH_LOADFILE = "/usr/share/dbench/client.txt"


def dbench_script(runtime_s, _settings):
    return ("# dbench 4.0, one client replaying its client.txt load (no warm-up)\n"
            f"exec dbench -c {DBENCH_LOADFILE} -t {whole_secs(runtime_s)} -D . 1\n")


DBENCH_OP = re.compile(r"^\s*([A-Z][A-Za-z]+)\s+(\d+)\s+[\d.]+\s+[\d.]+\s*$")


def dbench_parse(text):
    """MB/s from its closing line; the operations from its table."""
    ops = sum(int(m.group(2)) for m in map(DBENCH_OP.match, text.splitlines()) if m)
    for ln in text.splitlines():
        m = DBENCH_LINE.match(ln.strip())
        if m:
            return {"mb_per_s": float(m.group(1)), "max_latency_ms": float(m.group(4)),
                    "ops": ops or None}
    raise ParseError("no 'Throughput N MB/sec' line")


# ---- sysbench fileio: random writes to a set of files ------------------------

SYSBENCH_FILES = "--file-num=16 --file-total-size=64M"
SYSBENCH_FIGURES = (("writes_per_s", r"writes/s:"), ("fsyncs_per_s", r"fsyncs/s:"),
                    ("reads_per_s", r"reads/s:"), ("written_mib_per_s", r"written, MiB/s:"))


def sysbench_script(runtime_s, _settings):
    # --rand-seed: its default, 0, seeds from the clock, and the run would
    # write other blocks each time
    return ("# sysbench 1.0 fileio: 16 files of 4 MiB made (unmeasured), then\n"
            "# random 16 KiB writes to them with an fsync every 100 (its defaults)\n"
            f"sysbench fileio {SYSBENCH_FILES} prepare >/tmp/sysbench-prepare.log 2>&1 || "
            "{ cat /tmp/sysbench-prepare.log >&2; exit 1; }\n"
            f"exec sysbench fileio {SYSBENCH_FILES} --file-test-mode=rndwr --rand-seed=1 "
            f"--threads=1 --events=0 --time={whole_secs(runtime_s)} run\n")


def sysbench_parse(text):
    out = {}
    for name, label in SYSBENCH_FIGURES:
        m = re.search(rf"^\s*{label}\s+([\d.]+)\s*$", text, re.M)
        if m:
            out[name] = float(m.group(1))
    secs = re.search(r"^\s*total time:\s+([\d.]+)s\s*$", text, re.M)
    if "writes_per_s" not in out or not secs:
        raise ParseError("no 'writes/s: N' and 'total time: Ns' lines (sysbench fileio's "
                         "'File operations' and 'General statistics')")
    out["seconds"] = float(secs.group(1))
    return out


# ---- sqlite3: one-row transactions in its default journal mode -------------

SQLITE_BATCH = 25           # transactions per sqlite3 run (a run is whole: one
                            # on a 7200 rpm drive takes about 0.8 s)
SQLITE_LINE = re.compile(r"^platter sqlite3: (\d+) transactions in ([\d.]+) s$", re.M)


def sqlite_script(runtime_s, _settings):
    txn = "BEGIN; INSERT INTO t(v) VALUES (zeroblob(100)); COMMIT;"
    return ("# sqlite3 (its rollback journal, synchronous=FULL: the defaults):\n"
            f"# runs of {SQLITE_BATCH} transactions that insert one 100-byte row each,\n"
            "# until the runtime has passed; the guest's clock times them\n"
            "sqlite3 -batch ./t.db 'CREATE TABLE t(id INTEGER PRIMARY KEY, v BLOB);' || exit\n"
            f"batch() {{ n=0; while [ $n -lt {SQLITE_BATCH} ]; do echo '{txn}'; "
            "n=$((n + 1)); done; }\n"
            "start=$(awk '{ print $1 }' /proc/uptime)\n" +
            deadline_loop(runtime_s, "batch | sqlite3 -batch -bail ./t.db") +
            "awk -v s=\"$start\" -v n=$((i * " + str(SQLITE_BATCH) + ")) "
            "'{ printf \"platter sqlite3: %d transactions in %.2f s\\n\", n, $1 - s }' "
            "/proc/uptime\n")


def sqlite_parse(text):
    m = SQLITE_LINE.search(text)
    if not m or not int(m.group(1)) or not float(m.group(2)):
        raise ParseError("no 'platter sqlite3: N transactions in S s' line with N and S "
                         "above 0")
    n, secs = int(m.group(1)), float(m.group(2))
    return {"tps": n / secs, "ops": n}


# ---- pgbench: PostgreSQL's server in the guest, TPC-B-like transactions ------

PG_BIN = "/usr/lib/postgresql/15/bin"
PG_UID = 70                 # the server refuses to run as root
PGBENCH_SCALE = 1           # pgbench -i -s: 100,000 accounts (16 MB)
# a setting's name and value as postgres -c takes them, with nothing a
# shell or the server's command line would split or expand
SETTING_NAME = re.compile(r"[a-z][a-z0-9_.]{0,62}")
SETTING_VALUE = re.compile(r"[A-Za-z0-9_.:+-]{1,64}")


def pgbench_script(runtime_s, settings):
    server = " ".join(["-c listen_addresses= -k /tmp"] +
                      [f"-c {k}={v}" for k, v in sorted(settings.items())])
    return (
        "# PostgreSQL 15's server with its data on the file system under test,\n"
        "# and pgbench's TPC-B-like transactions against it from one client\n"
        "# over an AF_UNIX socket.  Set up unmeasured: initdb --no-sync, the\n"
        f"# load (pgbench -i -s {PGBENCH_SCALE}); measured: pgbench -T\n"
        f"bin={PG_BIN}\n"
        "data=$PWD/pgdata\n"
        f"grep -qs '^postgres:' /etc/passwd || echo 'postgres:x:{PG_UID}:{PG_UID}::/tmp:/bin/sh' "
        ">>/etc/passwd\n"
        f"grep -qs '^postgres:' /etc/group || echo 'postgres:x:{PG_UID}:' >>/etc/group\n"
        f"mkdir -p \"$data\" && chown {PG_UID}:{PG_UID} \"$data\" && chmod 700 \"$data\" || exit\n"
        "pg() { su -s /bin/sh postgres -c \"$*\"; }\n"
        "log() { echo \"platter: $1 failed:\" >&2; cat \"$2\" >&2; exit 1; }\n"
        "pg \"$bin/initdb -D $data -A trust -E UTF8 --locale=C --no-sync -U postgres\" "
        ">/tmp/initdb.log 2>&1 || log initdb /tmp/initdb.log\n"
        f"pg \"$bin/pg_ctl -D $data -l /tmp/postgres.log -o '{server}' -w start\" "
        ">/tmp/pg_ctl.log 2>&1 || log 'the server start' /tmp/postgres.log\n"
        f"pg \"$bin/pgbench -h /tmp -U postgres -i -s {PGBENCH_SCALE} -q postgres\" "
        ">/tmp/pgbench-i.log 2>&1 || log 'pgbench -i' /tmp/pgbench-i.log\n"
        f"pg \"$bin/pgbench -h /tmp -U postgres -T {whole_secs(runtime_s)} -c 1 postgres\" "
        "2>&1 || log pgbench /tmp/postgres.log\n"
        "pg \"$bin/pg_ctl -D $data -m fast -w stop\" >/dev/null 2>&1\n")


def pgbench_parse(text):
    """tps without the connection's time, and the transactions behind it."""
    tps = re.search(r"^tps = ([\d.]+) \(without initial connection time\)", text, re.M)
    n = re.search(r"^number of transactions actually processed: (\d+)", text, re.M)
    if not tps or not n:
        raise ParseError("no 'tps = N (without initial connection time)' and 'number of "
                         "transactions actually processed: N' lines")
    out = {"tps": float(tps.group(1)), "ops": int(n.group(1))}
    lat = re.search(r"^latency average = ([\d.]+) ms", text, re.M)
    if lat:
        out["latency_avg_ms"] = float(lat.group(1))
    failed = re.search(r"^number of failed transactions: (\d+)", text, re.M)
    if failed and int(failed.group(1)):
        raise ParseError(f"{failed.group(1)} transactions failed")
    return out


CLIENTS = {c.name: c for c in (
    Client("pg_test_fsync",
           "PostgreSQL's pg_test_fsync (postgresql-15): one 8 kB write and the commit "
           "method's sync, ops/s",
           (f"{pgtestfsync.PACKAGE}:pg_test_fsync",), "ops/s", PG_METHODS, True,
           pg_script, pg_parse),
    Client("fsmark",
           "fs_mark (fsmark): 4 KiB files created, written and fsynced one by one, "
           "files/s",
           ("fsmark",), "files/s", ("files_per_s",), True,
           fsmark_script, fsmark_parse),
    Client("dbench",
           "dbench (dbench): one client replaying its file-server load, MB/s",
           ("dbench", "libpopt0"), "MB/s", ("mb_per_s",), False,
           dbench_script, dbench_parse),
    Client("sysbench",
           "sysbench fileio (sysbench): random 16 KiB writes to 16 files, an fsync "
           "every 100, writes/s",
           ("sysbench", "libluajit-5.1-2", "libmariadb3", "libpq5"), "writes/s",
           tuple(n for n, _ in SYSBENCH_FIGURES), True, sysbench_script, sysbench_parse),
    Client("sqlite3",
           "sqlite3 (sqlite3, libsqlite3-0): one-row transactions in its default "
           "rollback-journal mode, transactions/s",
           ("sqlite3", "libsqlite3-0"), "tps", ("tps",), True, sqlite_script, sqlite_parse),
    Client("pgbench",
           "pgbench (postgresql-15) against PostgreSQL's server in the guest: TPC-B-like "
           "transactions from one client, tps (kernel built with net=unix)",
           ("postgresql-15",), "tps", ("tps",), True,
           pgbench_script, pgbench_parse, kernel=(("net", "unix"),),
           settings="the server's settings, each passed as postgres -c NAME=VALUE "
                    "(e.g. wal_sync_method)"),
)}


def headline(wl):
    """The figure a client workload's cell is judged by."""
    c = CLIENTS[wl["client"]]
    return wl.get("headline", c.figures[0])


def summary(wl, stdout):
    """A client cell's summary from its stdout; raises ParseError."""
    c = CLIENTS[wl["client"]]
    figures = c.parse(stdout)
    name = headline(wl)
    if name not in figures:
        raise ParseError(f"{c.name} printed no {name} figure")
    rate = figures[name]
    seconds = figures.pop("seconds", None)
    ops = figures.pop("ops", rate * seconds if seconds else None)
    lat = {"avg": round(1e6 / rate, 3)} if c.per_op and rate else {}
    return {"ios": round(ops) if ops is not None else None, "iops": rate, "lat_us": lat,
            "client": {"name": c.name, "headline": name, "unit": c.unit,
                       "figures": figures}}


def script_name(wl):
    return f"{wl['client']}.sh"


def script_text(wl, runtime_s):
    c = CLIENTS[wl["client"]]
    return (f"# platter client {c.name}, runtime {runtime_s} s "
            f"(packages: {shlex.join(c.packages)})\n" + c.script(runtime_s, wl.get("settings", {})))
