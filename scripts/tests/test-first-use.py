#!/usr/bin/python3
"""README's first use, in a fresh clone: prints TAP.
usage: test-first-use.py [--runtime S] [--keep DIR]

Clones the checkout (its HEAD) into a temporary directory and runs there,
line by line, the block under README.md's "First use" heading, as a new user
would, with --runtime S (default 1) for the README's --runtime.  The
builds go to the cache the caller's environment names ($PLATTER_CACHE,
default ~/.cache/platter; .ci/run sets /var/cache/platter): on a fresh CI runner it is empty, so this is
the cold first use, and the guest steps after it find the cache warm.

Checked: every line exits 0; the compare prints its report directory, whose
report.json holds every cell of the experiment, each with a guest result
and a sim prediction and no error; apt-get (a logging wrapper first on
PATH) installs nothing during the compare and is not run at all once the
cells fan out, nor by anything a cell started; QEMU, each kernel and the
initramfs are each built (or found) exactly once, before the first cell,
and no cache entry the cells use is written after that.  The time of each
line and each build step goes to the TAP output, for the cold-path table in
docs/performance.md.
"""
import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from platterlib import expspec  # noqa: E402
from platterlib import matrix  # noqa: E402
from platterlib import paths  # noqa: E402
from platterlib import tap  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
HEADING = "### First use"

ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
ap.add_argument("--runtime", default="1", help="virtual seconds per cell (default 1)")
ap.add_argument("--keep", metavar="DIR", help="clone into DIR (must not exist) and keep it")
args = ap.parse_args()


def readme_block():
    """The command lines of the indented block after README's heading."""
    with open(os.path.join(ROOT, "README.md")) as f:
        text = f.read()
    at = text.find("\n" + HEADING)
    assert at >= 0, f"README.md has no '{HEADING}' heading"
    lines, started = [], False
    for ln in text[at + 1:].splitlines()[1:]:
        if ln.startswith("#"):
            break
        if ln.startswith("    "):
            started = True
            cmd = ln.split(" #", 1)[0].strip()
            if cmd:
                lines.append(cmd)
        elif started and ln.strip():
            break
    assert lines, f"README.md: no command block under '{HEADING}'"
    return lines


APT_SHIM = """#!/bin/sh
# first-use test: log who runs apt-get, then run the real one
chain= p=$PPID
while [ -n "$p" ] && [ "$p" -gt 1 ] 2>/dev/null; do
    chain="$chain | $(tr '\\0\\t\\n' '   ' < /proc/$p/cmdline 2>/dev/null | cut -c1-160)"
    p=$(sed -n 's/^PPid:[[:space:]]*//p' /proc/$p/status 2>/dev/null)
done
# one record per line: a caller's 'sh -c' script may hold tabs and newlines
args=$(printf '%s' "$*" | tr '\\t\\n' '  ')
printf '%s\\t%s\\t%s\\n' "$(date +%s.%N)" "$args" "$chain" >> {log}
exec {real} "$@"
"""


def shims(d, log):
    """apt-get and apt wrappers in d that log every call (args, the calling
    process chain) to log."""
    os.makedirs(d)
    for name in ("apt-get", "apt"):
        real = shutil.which(name)
        if not real:
            continue
        p = os.path.join(d, name)
        with open(p, "w") as f:
            f.write(APT_SHIM.replace("{log}", shlex.quote(log)).replace("{real}", real))
        os.chmod(p, 0o755)


def apt_calls(log):
    """The logged calls: [time, args, caller chain] each."""
    if not os.path.exists(log):
        return []
    with open(log) as f:
        calls = [ln.rstrip("\n").split("\t") for ln in f if ln.strip()]
    bad = [c for c in calls if len(c) != 3]
    assert not bad, f"{log}: records without 3 tab-separated fields: {bad[:3]}"
    return calls


def apt_log_records(tmp):
    """A caller whose command line holds a newline and a tab (CI's own
    'sh -c' scripts do) still logs one record per apt-get call."""
    log = os.path.join(tmp, "apt-calls.log")
    shims(os.path.join(tmp, "shim"), log)
    assert os.path.exists(os.path.join(tmp, "shim", "apt-get")), "no apt-get on PATH"
    script = "true\n\tapt-get --version >/dev/null\n"
    subprocess.run(["sh", "-c", script, "two\nlines"], check=True,
                   env=dict(os.environ, PATH=os.path.join(tmp, "shim") + os.pathsep
                            + os.environ["PATH"]))
    calls = apt_calls(log)
    assert len(calls) == 1 and calls[0][1] == "--version", calls
    assert "apt-get --version" in calls[0][2], calls


BUILD_START = re.compile(r"^platter: \[build (\d+)/(\d+)\] (.+) \.\.\.$")
BUILD_READY = re.compile(r"^platter: \[build (\d+)/(\d+)\] (.+): ready \(([\d.]+) s\)$")
# a cell's result line, "[3/12] CELL-ID: ..."; not a build's ninja line,
# "[3/23] Compiling C object ..." (a cold initramfs build prints those)
CELL_DONE = re.compile(r"^\[(\d+)/(\d+)\] [\w.+-]+: ")
assert CELL_DONE.match("[1/12] seq.st20000nm007d.nvme.base: guest 119.9 IOPS")
assert not CELL_DONE.match("[1/23] Compiling C object guest-tests/blk-soak.p/x.c.o")


def run_compare(cmd, clone, env, log):
    """Run the compare line, streaming its stderr: (status, stdout, stderr
    lines, apt calls logged when the last build was ready, the time the
    cells fanned out)."""
    p = subprocess.Popen(["sh", "-c", cmd], cwd=clone, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    err, apt_at_fanout, fanout = [], None, None
    for ln in p.stderr:
        ln = ln.rstrip("\n")
        err.append(ln)
        print(f"# {ln}", file=sys.stderr, flush=True)
        m = BUILD_READY.match(ln)
        if m and m.group(1) == m.group(2):
            apt_at_fanout, fanout = len(apt_calls(log)), time.time()
    out = p.stdout.read()
    return p.wait(), out, err, apt_at_fanout, fanout


def entry_paths(clone, env):
    """The cache entries this clone's cells use: {name: marker file}."""
    cache = env.get("PLATTER_CACHE") or paths.cache_root()

    def key(*argv):
        return subprocess.run([os.path.join(clone, "scripts", argv[0]), *argv[1:],
                               "--print-key"], capture_output=True, text=True, env=env,
                              check=True).stdout.strip()
    out = {"qemu": os.path.join(cache, "qemu", key("build-qemu"), ".complete"),
           "initramfs": os.path.join(cache, "initramfs", key("build-initramfs"),
                                     "initramfs.cpio")}
    for v in ("base", "fops"):
        out[f"kernel {v}"] = os.path.join(cache, "kernel", "out",
                                          f"{v}-{key('build-kernel', v)}", "info")
    return out


def first_use(tmp):
    clone = args.keep or os.path.join(tmp, "clone")
    head = subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()
    subprocess.run(["git", "clone", "-q", "--no-checkout", ROOT, clone], check=True)
    subprocess.run(["git", "-C", clone, "checkout", "-q", "--detach", head], check=True)
    log = os.path.join(tmp, "apt-calls.log")
    shims(os.path.join(tmp, "shim"), log)
    env = dict(os.environ, PATH=os.path.join(tmp, "shim") + os.pathsep + os.environ["PATH"])
    env.pop("PLATTER_QEMU", None)   # the clone's own QEMU, as a user gets it
    lines = readme_block()
    compares = [ln for ln in lines if ln.startswith("scripts/platter compare ")]
    assert len(compares) == 1 and re.search(r"(^| )--parallel 2( |$)", compares[0]), \
        f"README's first-use block needs one 'scripts/platter compare ... --parallel 2' line: {lines}"
    exp_name = shlex.split(compares[0])[2]
    for ln in lines:
        cmd = re.sub(r"--runtime \S+", f"--runtime {args.runtime}", ln)
        t0 = time.monotonic()
        if ln in compares:
            apt_before = len(apt_calls(log))
            status, out, err, apt_at_fanout, fanout = run_compare(cmd, clone, env, log)
        else:
            p = subprocess.run(["sh", "-c", cmd], cwd=clone, env=env, capture_output=True,
                               text=True, stdin=subprocess.DEVNULL)
            status, out, err = p.returncode, p.stdout, p.stderr.splitlines()
        print(f"# first use: {cmd}: exit {status}, {time.monotonic() - t0:.1f} s")
        assert status == 0, f"'{cmd}' exited {status}: {' / '.join(err[-15:])}"
    # the report: every cell of the experiment, each passed
    # (a relative path, the default under the working directory, is the clone's)
    report_dir = os.path.join(clone, out.strip().splitlines()[-1]) if out.strip() else ""
    path = os.path.join(report_dir, "report.json")
    assert os.path.isfile(path), f"compare printed {out!r}: no report.json there"
    with open(path) as f:
        doc = json.load(f)
    want = sorted(c["id"] for c in matrix.cells(expspec.load(exp_name)))
    got = sorted(c["id"] for c in doc["cells"])
    assert got == want, f"report cells {got} != the experiment's {want}"
    bad = [c["id"] for c in doc["cells"]
           if c["sim"]["error"] or not c["sim"]["summary"] or not c.get("guest")
           or c["guest"]["error"] or not c["guest"]["summary"]]
    assert not bad, f"cells without a guest result and a sim prediction: {bad}"
    assert os.path.isfile(os.path.join(report_dir, "report.md")), "no report.md"
    # apt-get: nothing installed by the compare, nothing run once the cells
    # started or by anything a cell started
    calls = apt_calls(log)
    during = calls[apt_before:]
    installs = [c for c in during if re.search(r"(^| )install( |$)", c[1])]
    assert not installs, f"apt-get install during the compare: {installs}"
    assert apt_at_fanout is not None, "compare printed no final '[build N/N] ...: ready' line"
    late = calls[apt_at_fanout:]
    assert not late, f"apt-get ran after the cells fanned out: {late}"
    in_cells = [c for c in calls if "run-guest" in c[2]]
    assert not in_cells, f"apt-get run under a cell's run-guest: {in_cells}"
    # each shared build once, before the first cell
    first_cell = next((i for i, ln in enumerate(err) if CELL_DONE.match(ln)), len(err))
    qemu = [i for i, ln in enumerate(err) if ln.startswith("platter: resolving the patched QEMU")]
    assert len(qemu) == 1 and qemu[0] < first_cell, f"QEMU resolved at stderr lines {qemu}"
    starts = [BUILD_START.match(ln).group(3) for ln in err if BUILD_START.match(ln)]
    ready = {}
    for i, ln in enumerate(err):
        m = BUILD_READY.match(ln)
        if m:
            assert i < first_cell, f"'{ln}' after the first cell"
            ready.setdefault(m.group(3), []).append(float(m.group(4)))
    for what in ("kernel base", "kernel fops", "initramfs"):
        assert starts.count(what) == 1 and len(ready.get(what, [])) == 1, \
            f"build '{what}': started {starts.count(what)} times, ready {ready.get(what)}"
        print(f"# build {what}: {ready[what][0]:.1f} s")
    for what, marker in entry_paths(clone, env).items():
        assert os.path.exists(marker), f"{what}: {marker} missing after the run"
        assert os.path.getmtime(marker) <= fanout, \
            f"{what}: {marker} written after the cells fanned out"
    print(f"# {len(got)} cells passed; apt-get calls: {len(calls)} "
          f"({len(during)} during the compare, all before the fan out)")


tap.run([("the apt-get log: one record per call, callers' newlines and tabs folded",
          apt_log_records),
         ("first use: README's commands in a fresh clone, --parallel 2", first_use)],
        with_tmpdir=True)
