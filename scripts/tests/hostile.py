#!/usr/bin/python3
"""The hostile-input table for the scripts (hostile.tsv); prints TAP.
usage: hostile.py PLATTER_SIM [TABLE]

Each row: expected exit status, a fragment the last line of stderr must
hold, what stdout must hold ('-': nothing; 'DEVFULL': stdout is /dev/full,
where every write fails), and the command, run from the
repository root (shell words, no shell).  A failing row (status not 0) must
print exactly one line on stderr, unless its fragment starts with '...'
(then it is the last of several: a child's own stderr passed through).  No
row may print a Python traceback.

Tokens in the command:
  @SIM@                 the platter-sim under test
  @TMP@                 a fresh empty directory for the row
  @EXP:{JSON}@          scripts/experiments/seed-fops.json with these
                        top-level keys replaced (null: removed), as a file
  @CAMPAIGN:{JSON}@     the same from scripts/campaigns/fops-nvme.json
  @JSON:TEXT@           a file holding TEXT
  @REPORT:{JSON}@       a directory holding a sim-only seed-fops report
                        (0.1 s cells) with these top-level keys replaced
  @REPORTSET:{JSON}@     the same with values set at dotted paths
                        ("cells.0.sim.raw.iops": -5; a number indexes a list)
  @REPORTRAW:TEXT@      a directory whose report.json holds TEXT
  @PART:K/N[:RUNTIME]@  a sim-only seed-fops report of shard K/N
  @TREE@                a git tree that looks like Linux, two commits (the
                        second changes block/fops.c); beside it stale.patch
                        (applies to HEAD~ only), bad.config (line 1 is not
                        a config line) and bzImage (a fake with the header)
  @FIFO@                a FIFO no one writes to (opening it to read blocks)
  @DEEP@                a JSON file of 100000 nested lists (Python's parser
                        recurses); @DEEPREPORT@ a directory with it as
                        report.json
  @FAKESIM:KIND@        an executable standing in for platter-sim: KIND
                        binary (prints bytes that are not UTF-8), negative
                        (an iops of -5), deep (nested JSON), flood (prints
                        without end), fieldless
                        (a JSON report without its figures), listjson
                        (--dump-profile as usual, a JSON list otherwise)

Nothing here may build or boot anything: the environment points
PLATTER_CACHE where nothing can be created and PLATTER_QEMU at no binary,
so a row that got past its check fails fast instead of building.
"""
import concurrent.futures
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from platterlib import tap, tsvtable  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SIM = os.path.abspath(sys.argv[1])
TABLE = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(
    os.path.abspath(__file__)), "hostile.tsv")
ENV = dict(os.environ, PLATTER_CACHE="/proc/platter-hostile-no-cache",
           PLATTER_QEMU="/nonexistent/qemu-system-x86_64", LC_ALL="C")
FAKESIM = {
    "binary": r"printf '\377\376 not text'",
    "fieldless": """echo '{"version": 1}'""",
    "negative": """echo '{"version": 1, "ios": 5, "iops": -5, "lat_ns": {"avg": 1, "p50": 1, "p99": 1, "p99.9": 1}}'""",
    "flood": "exec yes",
    "deep": """python3 -c 'print("[" * 100000 + "]" * 100000)'""",
    "listjson": """case "$*" in *--dump-profile*) echo 'capacity_bytes = 4096  # [given]' ;;
*) echo '[1]' ;; esac""",
}
TOKEN = re.compile(r"@([A-Z]+)(?::(.*?))?@(?=\s|$|/|@|,)")


class Fixtures:
    def __init__(self, tmp):
        self.tmp, self.n, self.parts, self.tree = tmp, 0, {}, None

    def fresh(self):
        self.n += 1
        d = os.path.join(self.tmp, f"f{self.n}")
        os.makedirs(d)
        return d

    def text_file(self, text, name="spec.json"):
        path = os.path.join(self.fresh(), name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def patched(self, base, changes):
        with open(os.path.join(ROOT, base)) as f:
            doc = json.load(f)
        for k, v in json.loads(changes).items():
            if v is None:
                doc.pop(k, None)
            else:
                doc[k] = v
        return doc

    def part(self, arg):
        if arg not in self.parts:
            shard, _, runtime = arg.partition(":")
            out = os.path.join(self.fresh(), "part")
            cmd = [os.path.join(ROOT, "scripts", "platter"), "compare", "seed-fops",
                   "--sim-only", "--sim", SIM, "--runtime", runtime or "0.1", "--out", out]
            if shard != "all":
                cmd += ["--shard", shard]
            subprocess.run(cmd, check=True, capture_output=True, env=ENV)
            self.parts[arg] = out
        return self.parts[arg]

    def git_tree(self):
        if self.tree is None:
            d = self.fresh()
            t = os.path.join(d, "linux")
            env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
                       GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")
            files = {"linux/scripts/kconfig/merge_config.sh": "#!/bin/sh\n",
                     "linux/block/fops.c": "int a;\nint b;\nint c;\n",
                     "stale.patch": "--- a/block/fops.c\n+++ b/block/fops.c\n"
                                    "@@ -1,3 +1,3 @@\n int a;\n-int b;\n+int bb;\n int c;\n",
                     "bad.config": "XFS=y\n",
                     "bzImage": "\0" * 0x202 + "HdrS" + "\0" * 64}
            for name, text in files.items():
                os.makedirs(os.path.dirname(os.path.join(d, name)), exist_ok=True)
                with open(os.path.join(d, name), "w") as f:
                    f.write(text)
            for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "one"]):
                subprocess.run(["git", "-C", t, *cmd], check=True, env=env, capture_output=True)
            with open(os.path.join(t, "block", "fops.c"), "w") as f:
                f.write("int a;\nint B;\nint c;\n")
            subprocess.run(["git", "-C", t, "commit", "-qam", "two"], check=True, env=env,
                           capture_output=True)
            self.tree = t
        return self.tree

    def report(self, text):
        d = self.fresh()
        with open(os.path.join(d, "report.json"), "w") as f:
            f.write(text)
        return d

    def expand(self, word):
        def one(m):
            kind, arg = m.group(1), m.group(2)
            if kind == "SIM":
                return SIM
            if kind == "TMP":
                return self.fresh()
            if kind == "EXP":
                return self.text_file(json.dumps(self.patched(
                    "scripts/experiments/seed-fops.json", arg)))
            if kind == "CAMPAIGN":
                return self.text_file(json.dumps(self.patched(
                    "scripts/campaigns/fops-nvme.json", arg)))
            if kind == "JSON":
                return self.text_file(arg)
            if kind == "REPORT":
                base = os.path.join(self.part("all"), "report.json")
                doc = self.patched(base, arg)
                return self.report(json.dumps(doc))
            if kind == "REPORTSET":
                with open(os.path.join(self.part("all"), "report.json")) as f:
                    doc = json.load(f)
                for path, v in json.loads(arg).items():
                    *parents, last = [int(k) if k.isdigit() else k for k in path.split(".")]
                    node = doc
                    for k in parents:
                        node = node[k]
                    node[last] = v
                return self.report(json.dumps(doc))
            if kind == "REPORTRAW":
                return self.report(arg)
            if kind == "TREE":
                return self.git_tree()
            if kind == "PART":
                return self.part(arg)
            if kind == "FAKESIM":
                path = os.path.join(self.fresh(), "fake-sim")
                with open(path, "w") as f:
                    f.write("#!/bin/sh\n" + FAKESIM[arg] + "\n")
                os.chmod(path, 0o755)
                return path
            if kind in ("DEEP", "DEEPREPORT"):
                text = "[" * 100000 + "]" * 100000
                return self.text_file(text) if kind == "DEEP" else self.report(text)
            if kind == "FIFO":
                path = os.path.join(self.fresh(), "fifo.json")
                os.mkfifo(path)
                return path
            raise ValueError(f"unknown token @{kind}@")
        return TOKEN.sub(one, word)


def rows():
    for n, cols in tsvtable.rows(TABLE, 4):
        yield n, int(cols[0]), cols[1], cols[2], cols[3]


# a hang detector, not a speed test: compare --build-only checks every
# cell (run-guest --check, about 1.3 s each) before its build fails, 15 s
# idle, and it passed 60 s beside a cold CI's builds
ROW_TIMEOUT_S = 300


def start(pool, fix, out_frag, command):
    """The row's command, its fixtures made here (one thread), run in the pool."""
    argv = [fix.expand(w) for w in shlex.split(command)]

    def run():
        with open("/dev/full", "w") as full:
            return subprocess.run(argv, cwd=ROOT, env=ENV, text=True,
                                  stdout=full if out_frag == "DEVFULL" else subprocess.PIPE,
                                  stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                  timeout=ROW_TIMEOUT_S)
    return pool.submit(run)


def check(started, status, err_frag, out_frag):
    if isinstance(started, Exception):
        raise started
    p = started.result()
    if out_frag == "DEVFULL":
        p.stdout, out_frag = "", "-"
    what = f"exit {p.returncode}, stdout {p.stdout[-300:]!r}, stderr {p.stderr[-600:]!r}"
    assert "Traceback" not in p.stderr, what
    assert p.returncode == status, f"want exit {status}; {what}"
    lines = p.stderr.strip("\n").split("\n") if p.stderr.strip() else []
    several = err_frag.startswith("...")
    frag = err_frag[3:] if several else err_frag
    if status != 0:
        assert lines, f"no error line; {what}"
        assert several or len(lines) == 1, f"want one stderr line; {what}"
        assert frag in lines[-1], f"want {frag!r} in the last stderr line; {what}"
    elif frag:
        assert frag in p.stderr, f"want {frag!r} on stderr; {what}"
    if out_frag == "-":
        assert p.stdout == "", f"want nothing on stdout; {what}"
    else:
        assert out_frag in p.stdout, f"want {out_frag!r} on stdout; {what}"


def main():
    tmp = tempfile.mkdtemp(prefix="platter-hostile-")
    try:
        fix = Fixtures(tmp)
        # the rows are independent: their commands run side by side, one
        # per core (a row is mostly process start-up), checked in order
        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            checks = []
            for n, s, e, o, cmd in rows():
                try:
                    started = start(pool, fix, o, cmd)
                except Exception as ex:  # a fixture that cannot be made fails its row
                    started = ex
                checks.append((f"{TABLE.rsplit('/', 1)[-1]}:{n}: {cmd}",
                               lambda st=started, s=s, e=e, o=o: check(st, s, e, o)))
            tap.run(checks)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


main()
