#!/usr/bin/python3
"""Property-based hostile input (issue 27), with Debian's python3-hypothesis:
inputs generated from the real files (a shipped experiment, campaign,
report, profile, trace, a cache archive) by mutation, and argument vectors
from each command's own options.  For every input, the command:
  - ends with a status from the documented table (0, 1, 2, 125), never by
    a signal, and never prints a Python traceback;
  - on a failure prints one line on stderr, or (compare, whose cells
    report their own lines) ends with one error line;
  - ends within TIME_BOUND_S (inputs here are at most a few KB), within
    MEM_BOUND_MB of address space (resource.setrlimit in the child: a
    MemoryError or a failed allocation is a finding);
  - writes nothing outside its output folder (the scratch folder holds
    only the input and the output folder afterwards).
usage: test-properties.py PLATTER_SIM [--long] [--target NAME] [--examples N]
                                      [--minutes M]
Default: a fixed number of examples per target, derandomized (the same
inputs every run, for CI).  --long: random inputs, 2000 per target unless
--examples; --minutes M (with --long): batches of --examples inputs (100
unless given), each with fresh random inputs, until a target has run M
minutes; the long run is documented in docs/hardening.md.  Prints TAP; the
inputs and wall time per target go to stderr."""
import argparse
import contextlib
import io
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

try:
    from hypothesis import HealthCheck, given, settings, strategies as st
except ImportError:
    sys.exit("test-properties: needs Debian's python3-hypothesis (scripts/setup-host)")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from platterlib import tap  # noqa: E402
from platterlib import clients as platter_clients  # noqa: E402
sys.path.insert(0, HERE)
import families  # noqa: E402
import dixtrac_sample  # noqa: E402

ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
PLATTER = os.path.join(ROOT, "scripts", "platter")
RUN_GUEST = os.path.join(ROOT, "scripts", "run-guest")
PROFILE_IMPORT = os.path.join(ROOT, "scripts", "profile-import")
STATUSES = (0, 1, 2, 125)
TIME_BOUND_S = 60
MEM_BOUND_MB = 2048

ap = argparse.ArgumentParser()
ap.add_argument("sim")
ap.add_argument("--long", action="store_true")
ap.add_argument("--target")
ap.add_argument("--examples", type=int)
ap.add_argument("--minutes", type=float)
A = ap.parse_args()
if A.minutes and not A.long:
    ap.error("--minutes needs --long (random inputs)")
SIM = os.path.abspath(A.sim)
EXAMPLES = A.examples or (100 if A.minutes else 2000 if A.long else 12)
SETTINGS = settings(max_examples=EXAMPLES, derandomize=not A.long, deadline=None,
                    database=None, suppress_health_check=list(HealthCheck))
COUNT = {}


def limits():
    resource.setrlimit(resource.RLIMIT_AS, (MEM_BOUND_MB << 20, MEM_BOUND_MB << 20))


def check_run(name, argv, scratch, keep, one_line=True, statuses=STATUSES):
    """Run argv in scratch; the properties above.  keep: the names scratch
    may hold afterwards (the inputs and the output folder); statuses: those
    it may end with."""
    COUNT[name] = COUNT.get(name, 0) + 1
    env = dict(os.environ, PLATTER_CACHE=os.path.join(scratch, "out", "cache"),
               PLATTER_QEMU="/nonexistent/qemu-system-x86_64", LC_ALL="C",
               TMPDIR=os.path.join(scratch, "out"))
    os.makedirs(os.path.join(scratch, "out"), exist_ok=True)
    try:
        p = subprocess.run(argv, cwd=scratch, env=env, capture_output=True, text=True,
                           errors="replace", stdin=subprocess.DEVNULL,
                           timeout=TIME_BOUND_S, preexec_fn=limits)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"no end within {TIME_BOUND_S} s: {argv!r:.300}")
    what = f"{argv!r:.300}: exit {p.returncode}, stderr {p.stderr[-500:]!r}"
    assert p.returncode >= 0, f"killed by signal {-p.returncode}; {what}"
    assert "Traceback" not in p.stderr and "MemoryError" not in p.stderr, what
    assert p.returncode in statuses, what
    # lines end at '\n' only: str.splitlines would also split at a vertical
    # tab or a form feed, which a message must not hold either (checked)
    lines = [ln for ln in p.stderr.split("\n") if ln.strip()]
    assert not any(c in p.stderr for c in "\v\f\r\x1b"), f"a control character; {what}"
    if p.returncode != 0:
        assert lines, f"no error line; {what}"
        if one_line:
            assert len(lines) == 1, f"want one stderr line; {what}"
    stray = sorted(set(os.listdir(scratch)) - set(keep) - {"out"})
    assert not stray, f"wrote outside its output folder: {stray}; {what}"


@contextlib.contextmanager
def scratch():
    """A fresh scratch folder for one input, removed afterwards."""
    d = tempfile.mkdtemp(prefix="platter-prop-")
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


def write(d, name, data):
    path = os.path.join(d, name)
    with open(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)
    return path


# JSON values a hostile spec holds: every type, huge and odd numbers,
# long and odd strings, nesting
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(10 ** 30), max_value=10 ** 30),
    st.floats(allow_nan=False, allow_infinity=False), st.sampled_from(
        [0, -1, 1 << 63, 1 << 64, 1e308, 0.3, 100001, "", "-200%", "/etc/passwd",
         "../../x", "x" * 300, "--trace-out", "seq", "nvme", "base", "skylake-sp-kvm",
         "plain", "x.cpu", "/etc/passwd.cpu"]),
    st.text(max_size=40))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=12), inner, max_size=4)),
    max_leaves=12)


def paths(doc, prefix=()):
    """Every key path into a JSON document."""
    out = [prefix]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += paths(v, prefix + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += paths(v, prefix + (i,))
    return out


def mutated(doc, draw):
    """doc with one to three values replaced (or keys removed)."""
    doc = json.loads(json.dumps(doc))
    all_paths = [p for p in paths(doc) if p]
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(all_paths))
        node = doc
        try:
            for k in path[:-1]:
                node = node[k]
            if draw(st.booleans()) and isinstance(node, dict):
                node.pop(path[-1], None)
            else:
                node[path[-1]] = draw(VALUES)
        except (KeyError, IndexError, TypeError):
            pass
    return doc


def text_mutations(text):
    """A file's text, cut, with lines doubled, dropped or replaced."""
    @st.composite
    def make(draw):
        lines = text.splitlines(True)
        for _ in range(draw(st.integers(1, 4))):
            i = draw(st.integers(0, max(len(lines) - 1, 0)))
            how = draw(st.sampled_from(["drop", "dup", "replace", "cut", "junk"]))
            if not lines:
                lines = [""]
            if how == "drop":
                lines.pop(i)
            elif how == "dup":
                lines.insert(i, lines[i])
            elif how == "replace":
                lines[i] = draw(st.text(max_size=60)) + "\n"
            elif how == "cut":
                lines = lines[:i]
            else:
                lines[i] = lines[i].rstrip("\n") + draw(st.sampled_from(
                    ["0" * 30, " 1e999", "=", " # x", "\0", "-1", " nan", "\xff"])) + "\n"
        return "".join(lines)
    return make()


def load(rel):
    with open(os.path.join(ROOT, rel)) as f:
        return f.read()


SEED_FOPS = json.loads(load("scripts/experiments/seed-fops.json"))
# the same with a device's CPU profile (the "cpu" key), for the mutations to reach it
SEED_FOPS_CPU = json.loads(json.dumps(SEED_FOPS))
SEED_FOPS_CPU["devices"][0]["cpu"] = "skylake-sp-kvm"
CAMPAIGN = json.loads(load("scripts/campaigns/fops-nvme.json"))
RAW_JSON = st.one_of(st.text(max_size=200), st.sampled_from([
    "[" * 5000 + "]" * 5000, '{"a": 1, "a": 2}', "1" * 5000, "1e999", "NaN", "-Infinity"]))


def spec_text(base):
    @st.composite
    def make(draw):
        if draw(st.integers(0, 4)) == 0:
            return draw(RAW_JSON)
        return json.dumps(mutated(base, draw))
    return make()


@SETTINGS
@given(st.one_of(spec_text(SEED_FOPS), spec_text(SEED_FOPS_CPU)))
def experiment_spec(text):
    with scratch() as d:
        spec = write(d, "spec.json", text)
        check_run("experiment spec", [PLATTER, "compare", spec, "--sim-only", "--sim", SIM,
                                      "--runtime", "0.01", "--cells", "seq.*.nvme.*",
                                      "--out", os.path.join(d, "out", "r")],
                  d, ["spec.json"], one_line=False)


@SETTINGS
@given(spec_text(CAMPAIGN))
def campaign_spec(text):
    with scratch() as d:
        spec = write(d, "c.json", text)
        check_run("campaign spec", [PLATTER, "powercut", spec, "--out",
                                    os.path.join(d, "out", "r")], d, ["c.json"],
                  one_line=False)   # a line per cut that ran


REPORT = None


def base_report():
    global REPORT
    if REPORT is None:
        d = tempfile.mkdtemp(prefix="platter-prop-report-")
        subprocess.run([PLATTER, "compare", "seed-fops", "--sim-only", "--sim", SIM,
                        "--runtime", "0.02", "--out", d], check=True, capture_output=True)
        with open(os.path.join(d, "report.json")) as f:
            REPORT = json.load(f)
        shutil.rmtree(d)
    return REPORT


@st.composite
def report_text(draw):
    if draw(st.integers(0, 5)) == 0:
        return draw(RAW_JSON)
    return json.dumps(mutated(base_report(), draw))


@SETTINGS
@given(report_text(), st.sampled_from(["report", "gate", "merge"]))
def report_json(text, command):
    with scratch() as d:
        os.makedirs(os.path.join(d, "rep"))
        write(d, "rep/report.json", text)
        rep = os.path.join(d, "rep")
        argv = {"report": [PLATTER, "report", rep],
                "gate": [PLATTER, "gate", rep, "--gate", "iops:-1%"],
                "merge": [PLATTER, "merge", "--out", os.path.join(d, "out", "m"), rep]}[command]
        check_run(f"report.json ({command})", argv, d, ["rep"], one_line=command != "gate")


XFS_PARTS = os.path.join(ROOT, "docs", "results", "powercut", "xfs-virtio-blk")
XFS_PART = json.loads(load("docs/results/powercut/xfs-virtio-blk/seeds-29-44/report.json"))


@st.composite
def part_text(draw):
    if draw(st.integers(0, 5)) == 0:
        return draw(RAW_JSON)
    return json.dumps(mutated(XFS_PART, draw))


@SETTINGS
@given(part_text())
def powercut_parts(text):
    """platter powercut --merge: a generated part beside a committed one."""
    with scratch() as d:
        os.makedirs(os.path.join(d, "part"))
        write(d, "part/report.json", text)
        check_run("powercut --merge", [PLATTER, "powercut", "xfs-virtio-blk",
                                       "--merge", os.path.join(d, "part"),
                                       "--merge", os.path.join(XFS_PARTS, "seeds-45-60"),
                                       "--out", os.path.join(d, "out", "m")], d, ["part"],
                  one_line=False)   # a merged report's summary line


@SETTINGS
@given(st.one_of(RAW_JSON, st.builds(json.dumps, VALUES), st.builds(
    lambda v, e: json.dumps({"version": v, "entries": e}), VALUES, VALUES)),
    st.lists(st.tuples(st.sampled_from(["qemu/x/bin/qemu-system-x86_64", "/abs", "../up",
                                        "kernel/base-0/bzImage", "a" * 200]),
                       st.integers(0, 4096)), max_size=3))
def cache_archive(manifest, members):
    with scratch() as d:
        arc = os.path.join(d, "a.tar.gz")
        with tarfile.open(arc, "w:gz") as t:
            for name, data in [("manifest.json", manifest.encode())] + \
                    [(n, bytes(size)) for n, size in members]:
                info = tarfile.TarInfo(name)
                info.size = len(data)
                t.addfile(info, io.BytesIO(data))
        check_run("cache archive", [PLATTER, "cache", "import", arc], d, ["a.tar.gz"])


@SETTINGS
@given(text_mutations(load("hw-model/profiles/st20000nm007d.profile")))
def profile(text):
    with scratch() as d:
        prof = write(d, "p.profile", text)
        check_run("profile", [SIM, "--profile", prof, "--runtime", "0.01", "--json"],
                  d, ["p.profile"])


@SETTINGS
@given(st.sampled_from(sorted(dixtrac_sample.FILES)),
       st.data())
def dixtrac_files(which, data):
    # one of a DIXtrac extraction's three files mutated: profile-import
    # refuses it with one line, or writes a profile platter-sim loads or
    # refuses with one line
    text = data.draw(text_mutations(dixtrac_sample.FILES[which]))
    with scratch() as d:
        for name, body in dixtrac_sample.FILES.items():
            write(d, name, text if name == which else body)
        names = list(dixtrac_sample.FILES) + ["p.profile"]
        check_run("dixtrac", [PROFILE_IMPORT, "sample.diskspecs", "-o", "p.profile"], d,
                  names)
        if os.path.exists(os.path.join(d, "p.profile")):
            check_run("dixtrac profile", [SIM, "--profile", "./p.profile", "--dump-profile"],
                      d, names)


TRACE = ("# platter-trace v1\n0 W 0 4096 -\n1000 W 4096 4096 F\n2000 FLUSH\n"
         "3000 R 0 4096 -\n# power-cut at=5000\n")


@SETTINGS
@given(text_mutations(TRACE))
def trace(text):
    with scratch() as d:
        tr = write(d, "t.trace", text)
        check_run("trace", [SIM, "--profile", "st20000nm007d", "--workload", "replay",
                            "--trace", tr, "--json"], d, ["t.trace"])


WORDS = st.sampled_from(["--runtime", "0.3", "1e400", "-1", "nan", "--sim-only", "--sim",
                         "--out", "out/x", "--junit", "--gate", "iops:-2%", "--cells", "*",
                         "--shard", "1/2", "-j", "0", "--workloads", "--devices", "nvme",
                         "seed-fops", "--base", "--patched", "base", "fops", "--baseline",
                         "--fs", "xfs", "", "x" * 300, "--", "=", "--help"])


@SETTINGS
@given(st.sampled_from(["compare", "merge", "gate", "report", "list", "cache", "bogus"]),
       st.lists(WORDS, max_size=8))
def platter_argv(command, words):
    with scratch() as d:
        argv = [PLATTER, command] + [SIM if w == "--sim" else w for w in words]
        if command == "compare" and "--sim-only" not in words:
            argv += ["--sim-only", "--sim", SIM, "--cells", "seq.*.nvme.*", "--runtime", "0.01"]
        # without --out, compare writes under results/ in the working
        # directory, its documented default output folder
        check_run("platter argv", argv, d, [] if "--out" in words else ["results"],
                  one_line=command != "compare")


SIM_WORDS = st.sampled_from([
    "--profile", "990pro", "st20000nm007d", "--workload", "fio", "dsync", "replay",
    "fsync-append", "--rw", "randrw", "--numjobs", "4096", "--iodepth", "256", "--runtime",
    "0.001", "1e400", "-1", "--json", "--bs", "4k", "0", "--span", "1G", "--offset", "18000G",
    "--fsync", "3", "--trace", "/dev/null", "--seed", "18446744073709551616", "--explain",
    "--policy", "fua", "--queue-depth", "0", "--dump-profile", "x" * 200, "--pattern", "rand",
    "--html", "p.html", "--timeline", "--explain-format", "narrow", "tall", "--version",
    # streams apart and the page's words: sizes that overflow with 4096
    # jobs, text with markup and quotes
    "--offset-increment", "8589934592G", "3k", "20g", "--size", "64M",
    "--html-question", "--html-notice", "</script><b>\"q\"", "@DATA@"])


@SETTINGS
@given(st.lists(SIM_WORDS, max_size=10))
def sim_argv(words):
    with scratch() as d:
        # a bounded run: a short default runtime unless the words give one
        argv = [SIM] + words + ([] if "--runtime" in words else ["--runtime", "0.001"])
        check_run("platter-sim argv", argv, d, [])


GUEST_WORDS = st.sampled_from([
    "--kernel", "base", "fops", "nope", "--device", "nvme", "virtio-blk", "sata",
    "--drive-opts", "driver=hddmodel,profile=st20000nm007d,file=IMG", "driver=x", "dsync",
    "fio", "exec", "--", "--pattern", "rand", "--runtime", "0.3", "-1", "--smp", "0", "16",
    "--timeout", "1e400", "x" * 300, "",
    # this stop's options: the guest profile, kernel arguments, FUA on sata
    "--profile-guest", "--profile-guest=5", "--profile-guest=100003", "--profile-dir",
    "--profile-stacks", "on", "maybe", "--kernel-arg", "libata.fua=1", "--dpofua", "off",
    "--mem", "4G", "1T", "--image-size", "--chain-rounds", "off", "--quantum"])


@SETTINGS
@given(st.lists(GUEST_WORDS, max_size=10))
def run_guest_check(words):
    with scratch() as d:
        check_run("run-guest --check", [RUN_GUEST, "--check"] + words, d, [])


BENCH_LOCK = os.path.join(ROOT, "scripts", "bench-lock-regression")
BENCH_WORDS = st.sampled_from([
    "--cpu", "plain", "skylake-sp-kvm", "nope", "--smp", "8", "0", "-3", "--runtime", "0.3",
    "nan", "inf", "-1", "1e400", "--tolerance", "10", "0", "--profile", "990pro",
    "--json", "out.json", "x" * 300, "", "--bogus"])


@SETTINGS
@given(st.lists(BENCH_WORDS, max_size=10))
def bench_lock_argv(words):
    """bench-lock-regression's options: every value through its parser and
    checks (a final --smp 1 keeps any input from starting guests: each
    ends with status 2 and one line, or --help's 0)."""
    with scratch() as d:
        check_run("bench-lock-regression", [BENCH_LOCK] + words + ["--smp", "1"], d,
                  ["out.json"])


HOST_SH = os.path.join(ROOT, "scripts", "lib", "host.sh")


@SETTINGS
@given(st.one_of(st.binary(max_size=4096),
                 st.lists(st.sampled_from([b"\0", b"1.16.3", b"rel-", b"-debian-", b"1.", b"9",
                                           b"~bpo12+1", b"\n", b"SeaBIOS (version %s)",
                                           b"\xff"]), max_size=40).map(b"".join)))
def firmware_version(data):
    """host.sh's seabios_version (what run-guest and doctor read a firmware
    image with): any bytes give status 0, no stderr, and a release
    (digits.digits.digits) or nothing, also under pipefail."""
    COUNT["seabios_version"] = COUNT.get("seabios_version", 0) + 1
    with scratch() as d:
        img = os.path.join(d, "bios.bin")
        with open(img, "wb") as f:
            f.write(data)
        p = subprocess.run(["bash", "-c", 'set -euo pipefail; . "$1"; seabios_version "$2"',
                            "sh", HOST_SH, img], capture_output=True, text=True,
                           errors="replace", timeout=TIME_BOUND_S)
    what = f"{data[:80]!r}: exit {p.returncode}, {p.stdout!r}, {p.stderr!r}"
    assert p.returncode == 0 and p.stderr == "", what
    out = p.stdout.strip()
    assert out == "" or re.fullmatch(r"\d+\.\d+\.\d+", out), what


# the families of issue 39 (families.py), on this file's harness
FIO_PATHS = ["/dev/sdb", "/dev/nvme0n1", "/data", "/data/f", "/mnt", "/mnt/x", "/mnt/../etc",
             "data", "../up", "a:b", "/tmp/a:/mnt/b", "${FIO_DIR}", "$jobname.$filenum", "",
             "/", "x/../../y"]
FIO_TIMES = ["60", "0", "500ms", "2m", "1h", "1-3", "10:20s", "100us", "7.5", "3q", "-", "",
             "${PLATTER_RUNTIME}", "99999999d"]


@st.composite
def fio_job_text(draw):
    """A job file from fio's own grammar: sections, path keys with values
    off and on the target, time keys in fio's units (and wrong ones),
    stonewalls, inline comments; or a line of anything."""
    lines = []
    for _ in range(draw(st.integers(0, 14))):
        kind = draw(st.integers(0, 6))
        if kind == 0:
            lines.append("[" + draw(st.sampled_from(["global", "a", "b", "job 1", ""])) + "]")
        elif kind == 1:
            lines.append(draw(st.sampled_from(["filename", "directory", "opendir",
                                               "filename_format"])) + "=" +
                         draw(st.sampled_from(FIO_PATHS)))
        elif kind == 2:
            lines.append(draw(st.sampled_from(["runtime", "timeout", "ramp_time",
                                               "startdelay"])) + "=" +
                         draw(st.sampled_from(FIO_TIMES)))
        elif kind == 3:
            lines.append(draw(st.sampled_from(["stonewall", "wait_for_previous", "rw=read",
                                               "; a comment", "bs=4k ; inline", ""])))
        else:
            lines.append(draw(st.text(alphabet="=[];:/$.-_ abc0189\t", max_size=20)))
    return "\n".join(lines)


@SETTINGS
@given(fio_job_text(), st.sampled_from(["ext4", "xfs", "none"]),
       st.sampled_from([0.05, 0.3, 1, 30]))
def fio_job(text, fs, runtime):
    # a user's job file (issue 40): refused in one line naming the file, or
    # checked; its rewrite is a job that needs none, line for line; its
    # duration is a finite number of seconds, and the long check agrees
    # with it
    from platterlib import cli, fiojob
    with scratch() as d:
        path = write(d, "j.fio", text.encode())
        try:
            info = fiojob.check(path, fs, "w")
        except cli.BadInput as e:
            assert "\n" not in str(e) and str(e).startswith("platter: "), str(e)
            return
        new = write(d, "new.fio", fiojob.rewritten(path, info).encode())
        again = fiojob.check(new, fs, "w")
        assert again["rewrites"] == [] and again["jobs"] == info["jobs"], \
            (text, open(new).read(), again["rewrites"])
        assert len(open(new).read().split("\n")) == len(text.split("\n"))
        total, _ = fiojob.duration_s(info, runtime)
        assert 0 <= total < float("inf"), total
        try:
            fiojob.check_long(info, runtime, "w")
            refused = False
        except cli.BadInput:
            refused = True
        assert refused == (total > max(fiojob.LONG_FACTOR * runtime,
                                       runtime + fiojob.LONG_SLACK_S)), (total, runtime)


@SETTINGS
@given(st.one_of(st.sampled_from(list(platter_clients.CLIENTS)), st.text(max_size=12),
                 st.integers(), st.none()),
       st.one_of(st.none(), st.sampled_from(sorted({f for c in platter_clients.CLIENTS.values()
                                                    for f in c.figures})),
                 st.text(max_size=12)),
       st.sampled_from([None, "xfs", "ext4", "none", "zfs"]),
       st.one_of(st.none(), st.sampled_from(["a", "b", "global", ""]), st.text(max_size=8)),
       fio_job_text(), st.sampled_from([0.05, 0.3, 1, 9]), st.text(max_size=200),
       st.one_of(st.none(), st.dictionaries(
           st.one_of(st.sampled_from(["wal_sync_method", "fsync", "a.b"]), st.text(max_size=10)),
           st.one_of(st.sampled_from(["open_datasync", "off", 0, 64]), st.text(max_size=10),
                     st.booleans(), st.floats(allow_nan=True)), max_size=3)))
def client_and_group(client, headline, fs, group, job, runtime, stdout, server_settings):
    # issue 40's client workloads and "fio_group": refused in one line, or
    # cells whose script is written for the runtime and whose summary of
    # any output is the headline or a ParseError
    from platterlib import cellrun, cellsummary, cli, clients, expspec, matrix
    with scratch() as d:
        write(d, "j.fio", job.encode())
        wls = [{"name": "c", "client": client}, {"name": "f", "fio": "j.fio"}]
        for key, v in (("headline", headline), ("fs", fs), ("settings", server_settings)):
            if v is not None:
                wls[0][key] = v
        if group is not None:
            wls[1]["fio_group"] = group
        for wl in wls:
            spec = {"name": "p", "pairs": [["base", "fops"]], "devices": [{"frontend": "nvme"}],
                    "profiles": ["st20000nm007d"], "workloads": [wl]}
            try:
                exp = expspec.check_experiment(spec, "p", base_dir=d)
            except cli.BadInput as e:
                assert "\n" not in str(e) and str(e).startswith("platter: "), str(e)
                continue
            cells = matrix.cells(exp)
            cellrun.prepare_jobs(cells, os.path.join(d, "jobs"), runtime)
            if "client" not in wl:
                assert group is None or group in fiojob_sections(d), (group, job)
                continue
            assert os.path.isfile(cells[0]["host_file"]) and matrix.workload_fs(wl) != "none"
            # a setting reaches the server's command line as one word
            # (-c NAME=VALUE inside the script's single quotes)
            text = open(cells[0]["host_file"]).read()
            for k, v in (server_settings or {}).items():
                assert f" -c {k}={v}" in text and "'" not in f"{k}{v}", (k, v)
            res = {"test": "exec", "status": 0, "stdout": stdout, "params": {}}
            try:
                sm = cellsummary.summarize(res, exp["workloads"][0])
            except clients.ParseError:
                continue
            assert sm["iops"] is not None and sm["client"]["headline"] == \
                clients.headline(exp["workloads"][0]), sm


def fiojob_sections(d):
    from platterlib import fiojob
    return fiojob.check(os.path.join(d, "j.fio"), "xfs", "j")["jobs"]


HARNESS = argparse.Namespace(ROOT=ROOT, PLATTER=PLATTER, RUN_GUEST=RUN_GUEST, SIM=SIM,
                             SETTINGS=SETTINGS, COUNT=COUNT, STATUSES=STATUSES,
                             TIME_BOUND_S=TIME_BOUND_S, check_run=check_run, scratch=scratch,
                             base_report=base_report)
TARGETS = [experiment_spec, campaign_spec, report_json, powercut_parts, cache_archive,
           profile, trace, dixtrac_files, fio_job, client_and_group,
           platter_argv, sim_argv, run_guest_check, bench_lock_argv, firmware_version] + \
    families.targets(HARNESS)


def counted(target):
    """target (in batches until --minutes have passed), then how many
    inputs it ran and its wall time on stderr (tap.run exits)."""
    def run():
        before = dict(COUNT)
        t0 = time.monotonic()
        try:
            target()
            while A.minutes and time.monotonic() - t0 < A.minutes * 60:
                target()
        finally:
            wall = time.monotonic() - t0
            for name, n in sorted(COUNT.items()):
                if n != before.get(name):
                    print(f"{target.__name__}: {name}: {n - before.get(name, 0)} generated "
                          f"inputs in {wall:.0f} s", file=sys.stderr)
    return run


def main():
    chosen = [t for t in TARGETS if not A.target or t.__name__ == A.target]
    tap.run([(t.__name__, counted(t)) for t in chosen])


main()
