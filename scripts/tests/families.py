"""The generator families of issue 39 (docs/hardening.md, "Hostile input
III"): inputs that are each fine inside their format and hostile where
formats meet.  test-properties.py runs them beside its per-format targets,
with the same --long and --minutes; targets(h) takes its harness (check_run,
scratch, the settings and paths) and returns the four targets:

  outputs       every output option of a command pointed at an input of the
                same run, at special files (FIFO, folder, device, symlinks
                in and out, /proc) and at the run's other outputs: the run
                refuses or writes, and every input, every special file and
                everything outside the run is as it was
  signals       long commands stopped by SIGINT, SIGTERM or SIGHUP (once or
                twice) at a random point: no process, image, temporary file,
                empty or partial output left, status 128 + the signal
  interactions  every option given twice means its last value (or the
                repeat is refused), and a value given both in a spec, or
                the environment, and on the command line means the
                command line's
  numbers       values that are valid as written and invalid once rounded
                to the unit the program keeps (ns, bytes, a count): refused
                with status 2 naming the option, or run with the exact
                value"""
import decimal
import hashlib
import json
import os
import re
import select
import shutil
import signal
import stat
import subprocess
import sys
import tarfile
import threading
import time
import uuid

from hypothesis import assume, given, strategies as st

import standin

PROFILE = "hw-model/profiles/st20000nm007d.profile"
TRACE = "# platter-trace v1\n0 W 0 4096 -\n1000 W 4096 4096 F\n2000 FLUSH\n3000 R 0 4096 -\n"


def snapshot(root):
    """Everything under root: path -> (kind, sha256 or link target); a
    FIFO or device is never opened."""
    out = {}
    for d, dirs, files in os.walk(root):
        for name in dirs + files:
            p = os.path.join(d, name)
            st_ = os.lstat(p)
            if stat.S_ISLNK(st_.st_mode):
                out[p] = ("link", os.readlink(p))
            elif stat.S_ISREG(st_.st_mode):
                with open(p, "rb") as f:
                    out[p] = ("file", hashlib.sha256(f.read()).hexdigest())
            elif stat.S_ISDIR(st_.st_mode):
                out[p] = ("dir", None)
            else:
                out[p] = (oct(stat.S_IFMT(st_.st_mode)), st_.st_rdev)
    return out


class Drain:
    """A reader on a FIFO, as a user's pipe would be: what a writer sends is
    read and dropped, so a command that writes to it does not block."""

    def __init__(self, path):
        self.fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        self.stop = False
        self.t = threading.Thread(target=self.run, daemon=True)
        self.t.start()

    def run(self):
        while not self.stop:
            r, _, _ = select.select([self.fd], [], [], 0.1)
            if r:
                try:
                    if not os.read(self.fd, 1 << 16):
                        time.sleep(0.05)   # no writer yet, or it closed
                except BlockingIOError:
                    pass

    def close(self):
        self.stop = True
        self.t.join()
        os.close(self.fd)


# --- outputs ---------------------------------------------------------------
#
# A run: its inputs (name -> how to make it in the scratch folder), its
# output options (option -> (kind, default path)) and its argv from the
# outputs' paths.  Paths are relative to the scratch folder, the command's
# working directory.

def _copy(rel):
    return lambda h, path: shutil.copyfile(os.path.join(h.ROOT, rel), path)


def _sim_copy(h, path):
    shutil.copyfile(h.SIM, path)
    os.chmod(path, 0o755)


def _text(text):
    def make(h, path):
        with open(path, "w") as f:
            f.write(text)
    return make


def _spec(h, path):
    with open(os.path.join(h.ROOT, "scripts", "experiments", "seed-fops.json")) as f:
        doc = json.load(f)
    doc["profiles"] = ["in/p.profile"]
    with open(path, "w") as f:
        json.dump(doc, f)


def _report_dir(h, path):
    os.makedirs(path)
    with open(os.path.join(path, "report.json"), "w") as f:
        json.dump(h.base_report(), f)


def _part_dir(h, path):
    shutil.copytree(os.path.join(h.ROOT, "docs", "results", "powercut", "xfs-virtio-blk",
                                 "seeds-29-44"), path)


def _profile_dir(h, path):
    os.makedirs(path)
    _copy(PROFILE)(h, os.path.join(path, "mine.profile"))


SIM_OUTPUTS = {"--trace-out": ("file", "out/t.trace"), "--timeline": ("file", "out/t.svg"),
               "--html": ("file", "out/t.html")}
RUNS = {
    "compare": dict(
        inputs={"in/spec.json": _spec, "in/sim": _sim_copy, "in/p.profile": _copy(PROFILE)},
        outputs={"--out": ("dir", "out/r"), "--junit": ("file", "out/j.xml")},
        argv=lambda h, o: [h.PLATTER, "compare", "in/spec.json", "--sim-only", "--sim",
                           "in/sim", "--runtime", "0.01", "--cells", "seq.*.nvme.*",
                           "--gate", "iops:-90%", "--out", o["--out"], "--junit", o["--junit"]]),
    "gate": dict(
        inputs={"in/rep": _report_dir},
        outputs={"--junit": ("file", "out/j.xml")},
        argv=lambda h, o: [h.PLATTER, "gate", "in/rep", "--gate", "iops:-90%",
                           "--junit", o["--junit"]]),
    "merge": dict(
        inputs={"in/rep": _report_dir},
        outputs={"--out": ("dir", "out/m")},
        argv=lambda h, o: [h.PLATTER, "merge", "--out", o["--out"], "in/rep"]),
    "report": dict(
        # its outputs are the folder's own files: report.md beside the input
        inputs={"in/rep": _report_dir},
        outputs={"report.md": ("file", "in/rep/report.md")},
        argv=lambda h, o: [h.PLATTER, "report", "in/rep"], fixed=True),
    "powercut --merge": dict(
        inputs={"in/part": _part_dir},
        outputs={"--out": ("dir", "out/pc")},
        argv=lambda h, o: [h.PLATTER, "powercut", "xfs-virtio-blk", "--merge", "in/part",
                           "--out", o["--out"]]),
    "sim replay": dict(
        inputs={"in/sim": _sim_copy, "in/p.profile": _copy(PROFILE), "in/t.trace": _text(TRACE)},
        outputs=SIM_OUTPUTS,
        argv=lambda h, o: ["in/sim", "--profile", "in/p.profile", "--workload", "replay",
                           "--trace", "in/t.trace", "--json"] + [
                               w for k in SIM_OUTPUTS for w in (k, o[k])]),
    "sim profile by name": dict(
        inputs={"in/sim": _sim_copy, "in/pd": _profile_dir},
        outputs=SIM_OUTPUTS,
        argv=lambda h, o: ["in/sim", "--profile", "mine", "--profile-dir", "in/pd",
                           "--runtime", "0.01", "--json"] + [
                               w for k in SIM_OUTPUTS for w in (k, o[k])]),
    "run-guest --check": dict(
        inputs={"in/bzImage": _text("fake\n")},
        outputs={"--serial-log": ("file", "out/serial.log")},
        argv=lambda h, o: [h.RUN_GUEST, "--check", "--kernel", "bzimage:in/bzImage",
                           "--serial-log", o["--serial-log"], "dsync"]),
}


def _inputs_of(run):
    """The input files a run reads (a folder input: the files in it)."""
    return sorted(RUNS[run]["inputs"])


TARGET_KINDS = ["input", "fifo", "folder", "device", "link to input", "link outside",
                "dangling link outside", "proc", "no parent", "another output",
                "file of the output folder"]


def _make_target(h, d, outside, run, option, kind, draw):
    """The path the option is pointed at (relative to d), made as kind;
    None when kind does not apply to this run."""
    r = RUNS[run]
    ins = _inputs_of(run)
    if r.get("fixed"):
        # an output whose path the command decides: the special file is
        # made there, in the folder platter owns, which it may replace
        if kind in ("input", "another output", "file of the output folder", "proc",
                    "no parent"):
            return None
        path = r["outputs"][option][1]
    else:
        path = "target"
    if kind == "input":
        return draw(st.sampled_from(ins + [i + "/report.json" for i in ins if i.endswith(
            ("rep", "part"))]))
    if kind == "another output":
        others = [r["outputs"][k][1] for k in r["outputs"] if k != option]
        return draw(st.sampled_from(others)) if others else None
    if kind == "file of the output folder":
        dirs = [r["outputs"][k][1] for k in r["outputs"] if r["outputs"][k][0] == "dir"]
        if not dirs or r["outputs"][option][0] == "dir":
            return None
        return os.path.join(dirs[0], draw(st.sampled_from(["report.json", "report.md",
                                                           "junit.xml"])))
    if kind == "proc":
        return draw(st.sampled_from(["/proc/self/status", "/proc/version", "/proc"]))
    if kind == "no parent":
        return "nosuch/dir/x"
    full = os.path.join(d, path)
    if kind == "fifo":
        os.mkfifo(full)
    elif kind == "folder":
        os.mkdir(full)
        with open(os.path.join(full, "keep"), "w") as f:
            f.write("a file of the folder\n")
    elif kind == "device":
        os.mknod(full, 0o644 | stat.S_IFCHR, os.makedev(1, 3))   # a null device
    elif kind == "link to input":
        os.symlink(os.path.join(d, draw(st.sampled_from(ins))), full)
    elif kind == "link outside":
        os.symlink(os.path.join(outside, "victim"), full)
    elif kind == "dangling link outside":
        os.symlink(os.path.join(outside, "nosuch"), full)
    return path


@st.composite
def output_case(draw):
    run = draw(st.sampled_from(sorted(RUNS)))
    option = draw(st.sampled_from(sorted(RUNS[run]["outputs"])))
    kind = draw(st.sampled_from(TARGET_KINDS))
    return run, option, kind, draw


def _check_outputs(h, case):
    run, option, kind, draw = case
    r = RUNS[run]
    with h.scratch() as d, h.scratch() as outside:
        with open(os.path.join(outside, "victim"), "w") as f:
            f.write("a file outside the run\n")
        os.makedirs(os.path.join(d, "in"))
        for name, make in r["inputs"].items():
            make(h, os.path.join(d, name))
        paths = {k: v[1] for k, v in r["outputs"].items()}
        target = _make_target(h, d, outside, run, option, kind, draw)
        if target is None:
            return
        paths[option] = target
        before_in = snapshot(os.path.join(d, "in"))
        before_out = snapshot(outside)
        special = {} if r.get("fixed") else {
            p: v for p, v in snapshot(d).items()
            if os.path.basename(p) == "target" and v[0] not in ("file", "link")}
        drain = Drain(os.path.join(d, target)) if kind == "fifo" else None
        try:
            h.check_run(f"outputs: {run} {option} at {kind}", r["argv"](h, paths), d,
                        ["in", "target", "nosuch"], one_line=run not in (
                            "compare", "powercut --merge"))
        finally:
            if drain:
                drain.close()
        what = f"{run}: {option} {target!r} ({kind})"
        after_in = snapshot(os.path.join(d, "in"))
        if r.get("fixed"):
            # report rewrites its folder's report.md, SVGs and report.json
            # (the same document): the input is its report.json's content
            rep = os.path.join(d, "in", "rep", "report.json")
            with open(rep) as f:
                assert json.load(f) == h.base_report(), f"report.json changed: {run}"
            before_in = after_in = None
        assert after_in == before_in, f"an input changed: {what}: " + \
            str({p for p in set(before_in) | set(after_in) if before_in.get(p) != after_in.get(p)})
        assert snapshot(outside) == before_out, f"wrote outside the run: {what}"
        now = snapshot(d)
        for p, v in special.items():
            assert now.get(p) == v, f"a {kind} was replaced ({now.get(p)}): {what}"


# --- signals ---------------------------------------------------------------

def _long_commands(h, d):
    """name -> (argv, extra environment, the output it may leave)."""
    sim_only = [h.PLATTER, "compare", "seed-fops", "--sim-only", "--sim", h.SIM]
    return {
        "compare --sim-only": (sim_only + ["--runtime", "20", "--parallel", "2", "--out",
                                           "out/r"], {}, "out/r"),
        "compare (stand-in guests)": ([h.PLATTER, "compare", "seed-fops", "--sim", h.SIM,
                                       "--runtime", "0.1", "--cells", "seq.*.nvme.*",
                                       "--parallel", "2", "--out", "out/g"], {}, "out/g"),
        "run (stand-in guest)": ([h.PLATTER, "run", "--kernel", "fops", "--device", "nvme",
                                  "dsync", "--", "--runtime", "0.1"], {}, None),
        "exec (stand-in guest)": ([h.PLATTER, "exec", "--kernel", "fops", "script.sh"], {},
                                  None),
        "powercut (stand-in guests)": ([h.PLATTER, "powercut", "fops-nvme", "--cuts", "4",
                                        "--parallel", "2", "--out", "out/pc"], {}, "out/pc"),
        "sim": ([h.PLATTER, "sim", "--profile", "st20000nm007d", "--runtime", "100000",
                 "--json"], {}, None),
        "cache export": ([h.PLATTER, "cache", "export", "out/c.tar.gz"], {}, "out/c.tar.gz"),
    }


SIGNAL_SETS = [(signal.SIGINT,), (signal.SIGTERM,), (signal.SIGHUP,),
               (signal.SIGINT, signal.SIGINT), (signal.SIGTERM, signal.SIGINT)]


def _tagged(tag):
    """Processes whose environment carries tag (everything the command
    started inherits it, whichever session or group it moved to)."""
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if tag.encode() in f.read() and standin.alive(int(pid)):
                    out.append(int(pid))
        except OSError:
            pass
    return out


def _wait_for_handlers(p, limit_s=20):
    """Until p catches SIGTERM (platter's handlers are in place), runs
    another program than Python, or has ended."""
    end = time.monotonic() + limit_s
    while p.poll() is None and time.monotonic() < end:
        try:
            if "python" not in os.readlink(f"/proc/{p.pid}/exe"):
                return
            with open(f"/proc/{p.pid}/status") as f:
                caught = int(re.search(r"^SigCgt:\s*([0-9a-f]+)", f.read(), re.M).group(1), 16)
        except (OSError, AttributeError):
            return
        if caught & (1 << (signal.SIGTERM - 1)):
            return
        time.sleep(0.002)


LEFT_GRACE_S = 3


def _default_stop_signals():
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_DFL)


def _cmdline(pid):
    """pid's command line, its first 120 bytes, or ''."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(bytes(1), b" ")[:120].decode(errors="replace")
    except OSError:
        return ""


def _listing(folder, most=12):
    """What folder holds, a path each (relative), at most `most`."""
    out = []
    for d, dirs, files in os.walk(folder):
        for n in sorted(dirs + files):
            out.append(os.path.relpath(os.path.join(d, n), folder))
    return out[:most]


def _check_signals(h, name, sigs, delay_s, gap_s):
    h.COUNT["signals"] = h.COUNT.get("signals", 0) + 1
    with h.scratch() as d:
        cache = os.path.join(d, "cache")
        standin.fake_cache(cache)
        # a bzImage of some size, so an export takes long enough to interrupt
        with open(os.path.join(cache, "kernel", "out", os.listdir(
                os.path.join(cache, "kernel", "out"))[0], "bzImage"), "wb") as f:
            f.write(os.urandom(24 << 20))
        tmp = os.path.join(d, "tmp")
        os.makedirs(tmp)
        os.makedirs(os.path.join(d, "out"))
        with open(os.path.join(d, "script.sh"), "w") as f:
            f.write("#!/bin/sh\nsleep 600\n")
        tag = "PLATTER_PROP_TAG=" + uuid.uuid4().hex
        argv, extra, output = _long_commands(h, d)[name]
        env = dict(os.environ, TMPDIR=tmp, PLATTER_CACHE=cache, LC_ALL="C",
                   PLATTER_QEMU=standin.write_qemu(os.path.join(d, "qemu")),
                   STAND_IN_PIDS=os.path.join(d, "pids"), **extra)
        env[tag.split("=")[0]] = tag.split("=")[1]
        # the signals at their default disposition, as a terminal's
        # foreground job has them: a harness started in the background (`&`,
        # nohup) ignores SIGINT (and SIGHUP), its children inherit that, and
        # platter keeps a signal ignored at its start ignored, by design
        # (test-platter.py), so the family found 'no end within 40 s' of
        # those two (the 30-minute runs of 1d5417f and ab361f7)
        p = subprocess.Popen(argv, cwd=d, env=env, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             preexec_fn=_default_stop_signals)
        # the delay counts from when platter handles signals: before that
        # (the interpreter compiling the script) a signal ends any Python
        # program with a traceback at its line 0 (docs/hardening.md)
        _wait_for_handlers(p)
        time.sleep(delay_s)
        if p.poll() is not None:
            # one that ended before the signal (a cache export on a fast
            # host) tested nothing: the input does not count
            p.communicate()
            assume(False)
        for s in sigs:
            if p.poll() is None:
                p.send_signal(s)
            time.sleep(gap_s)
        out, err = standin.finish(p, 40, f"{name}: no end within 40 s of "
                                  f"{'+'.join(s.name for s in sigs)} after {delay_s:.2f} s "
                                  f"(the second {gap_s:.2f} s later)")
        err = err.decode(errors="replace")
        what = f"{name}, {'+'.join(s.name for s in sigs)} after {delay_s:.2f} s: " \
               f"exit {p.returncode}, stderr {err[-600:]!r}"
        # a short helper (git describe) that a worker thread started just
        # before the stop may end a moment after platter: a grace of
        # LEFT_GRACE_S; what the stop missed runs far longer (a guest, 600 s)
        end = time.monotonic() + LEFT_GRACE_S
        while _tagged(tag.split("=")[1]) and time.monotonic() < end:
            time.sleep(0.05)
        tagged = _tagged(tag.split("=")[1])
        named = [f"{pid} {_cmdline(pid)}" for pid in tagged]
        left = standin.kill_left(tagged)
        assert not left, f"processes left {named}: {what}"
        assert "Traceback" not in err, what
        # signals that arrive together are handled in the order of their
        # numbers (Python's, as the kernel's): any of them may be the one
        # that stops the command
        first = sigs[0]
        for s in sigs:
            if p.returncode in (128 + s, -s) and s != first:
                first = s
        assert p.returncode in (128 + first, -first) + h.STATUSES, what
        assert os.listdir(tmp) == [], f"left in TMPDIR {_listing(tmp)}: {what}"
        stopped = p.returncode in (128 + first, -first)
        full = os.path.join(d, output) if output else None
        if stopped and full and os.path.isdir(full):
            # an output folder goes when it is empty; what it keeps is whole
            assert os.listdir(full), f"an empty {output} left: {what}"
            rep = os.path.join(full, "report.json")
            if os.path.exists(rep):
                with open(rep) as f:
                    json.load(f)
        elif stopped and full and os.path.exists(full):
            # an archive is there whole or not at all
            with tarfile.open(full) as t:
                t.getmembers()
        stray = [n for n in os.listdir(os.path.join(d, "out")) if n.startswith(".")]
        assert not stray, f"temporary files left {stray}: {what}"
        if p.returncode == 128 + first and name != "sim":
            last = err.strip().splitlines()[-1]
            assert last.startswith(("platter: stopped by SIG", "run-guest: stopped by SIG")), \
                what


# --- interactions ----------------------------------------------------------
#
# Each option of platter-sim with two values it takes; a new option without
# an entry here fails the family, so every option is covered.

SIM_VALUES = {
    "--profile": ("generic-7200", "st20000nm007d"), "--workload": ("dsync", "fio"),
    "--pattern": ("seq", "rand"), "--policy": ("fua", "write+flush"),
    "--bs": ("8K", "4K"), "--span": ("1G", "10G"), "--offset": ("0", "1M"),
    "--runtime": ("0.02", "0.01"), "--jobs": ("2", "1"), "--host-us": ("5", "10"),
    "--write-cache": ("off", "on"), "--fua": ("off", "on"), "--queue-depth": ("4", "8"),
    "--queue-policy": ("fifo", "sptf"), "--seed": ("7", "1"), "--rw": ("read", "randwrite"),
    "--rwmixread": ("30", "70"), "--iodepth": ("4", "2"), "--numjobs": ("3", "2"),
    "--size": ("64M", "128M"), "--fsync": ("4", "2"), "--thinktime": ("100", "0"),
    "--flush-queues": ("2", "1"), "--explain": ("2", "3"),
    "--explain-format": ("wide", "narrow"), "--timeline-count": ("5", "7"),
    "--timeline-from": ("0", "0.001"), "--offset-increment": ("1G", "2G"),
    "--html-question": ("why?", "how?"), "--html-notice": ("this", "that"),
}
# options that are no value (flags), outputs (the outputs family's) and
# those that end the run before a workload
SIM_NOT_VALUED = {"--help", "--version", "--dump-profile", "--flush-share", "--xfs-log",
                  "--verify", "--closed-loop", "--json", "--trace", "--trace-out",
                  "--timeline", "--html", "--profile-dir"}


def sim_options(sim):
    out = subprocess.run([sim, "--help"], capture_output=True, text=True).stdout
    return sorted(set(re.findall(r"^\s+(--[a-z-]+)", out, re.M)))


def _sim(h, argv, env=None):
    p = subprocess.run([h.SIM] + argv, capture_output=True, text=True, timeout=h.TIME_BOUND_S,
                       env=env)
    out = p.stdout
    if p.returncode == 0 and "--json" in argv:
        doc = json.loads(out)
        doc.pop("host", None)
        out = json.dumps(doc, sort_keys=True)
    return p.returncode, out, p.stderr


def _context(option):
    """A run in which option matters (fio's options with --workload fio)."""
    fio = {"--rw", "--rwmixread", "--iodepth", "--numjobs", "--size", "--fsync", "--thinktime"}
    if option in fio:
        return ["--workload", "fio", "--rw", "randrw", "--span", "1G"]
    if option in ("--flush-queues",):
        return ["--workload", "fsync-append", "--jobs", "2"]
    if option == "--offset-increment":
        return ["--workload", "fio", "--numjobs", "2", "--size", "64M"]
    if option.startswith("--timeline-"):
        return ["--timeline", "out/t.svg"]
    if option.startswith("--html-"):
        return ["--html", "out/t.html"]
    if option == "--explain-format":
        return ["--explain", "3"]
    return []


@st.composite
def repeated_sim(draw):
    option = draw(st.sampled_from(sorted(SIM_VALUES)))
    a, b = SIM_VALUES[option]
    first, last = draw(st.sampled_from([(a, b), (b, a), (a, a)]))
    spelled = draw(st.sampled_from(["space", "equals"]))
    return option, first, last, spelled


def _check_repeat(h, case):
    option, first, last, spelled = case
    h.COUNT["interactions"] = h.COUNT.get("interactions", 0) + 1

    def give(v):
        return [f"{option}={v}"] if spelled == "equals" else [option, v]
    with h.scratch() as d:
        os.makedirs(os.path.join(d, "out"))
        base = ["--profile", "st20000nm007d", "--runtime", "0.01", "--json"] + \
            _context(option)
        cwd = os.getcwd()
        os.chdir(d)
        try:
            twice = _sim(h, base + give(first) + give(last))
            os.rename("out", "out1") if os.path.exists("out/t.svg") else None
            os.makedirs("out", exist_ok=True)
            once = _sim(h, base + give(last))
        finally:
            os.chdir(cwd)
    what = f"{option} {first} then {last}: {twice[0]} {twice[2][-300:]!r} / " \
           f"{once[0]} {once[2][-300:]!r}"
    if twice[0] == 2 and once[0] != 2:
        assert option in twice[2], f"a refusal that does not name the option: {what}"
        return
    assert twice[:2] == once[:2], f"a repeated option is not its last value: {what}"


def _check_sim_covered(h):
    missing = [o for o in sim_options(h.SIM) if o not in SIM_VALUES and
               o not in SIM_NOT_VALUED]
    assert not missing, f"platter-sim options the interactions family has no values for: " \
        f"{missing} (scripts/tests/families.py SIM_VALUES)"


@st.composite
def spec_and_cli(draw):
    """(what, spec change, command-line words, the spec that means the same
    without them)"""
    which = draw(st.sampled_from(["runtime", "profile dir", "sim"]))
    if which == "runtime":
        a, b = draw(st.sampled_from([(60, "0.01"), (0.02, "0.01"), (0.01, "0.02")]))
        return which, {"runtime": a}, ["--runtime", b], {"runtime": float(b)}, {}
    if which == "profile dir":
        return which, None, ["--profile-dir", "pd2"], None, {"PLATTER_PROFILE_DIR": "pd1"}
    return which, None, ["--sim", "SIM"], None, {"PLATTER_SIM": "/nonexistent/platter-sim"}


def _report_cells(d, out):
    with open(os.path.join(d, out, "report.json")) as f:
        doc = json.load(f)
    return json.dumps([{k: v for k, v in c.items() if k not in ("wall_s", "host")}
                       for c in doc["cells"]], sort_keys=True)


def _check_spec_and_cli(h, case):
    which, change, words, same, env_extra = case
    h.COUNT["interactions"] = h.COUNT.get("interactions", 0) + 1
    with h.scratch() as d:
        if which == "profile dir":
            # the option beats the environment: pd1's "mine" is fast, pd2's slow
            for pd, rpm in (("pd1", "15000"), ("pd2", "5400")):
                os.makedirs(os.path.join(d, pd))
                with open(os.path.join(h.ROOT, PROFILE)) as f:
                    text = f.read()
                text = re.sub(r"(?m)^rpm\s*=.*$", f"rpm = {rpm}", text)
                with open(os.path.join(d, pd, "mine.profile"), "w") as f:
                    f.write(text)
            base = ["--profile", "mine", "--runtime", "0.05", "--json", "--pattern", "rand"]
            env = dict(os.environ, **{k: os.path.join(d, v) for k, v in env_extra.items()})
            both = _sim(h, base + ["--profile-dir", os.path.join(d, "pd2")], env)
            env.pop("PLATTER_PROFILE_DIR")
            alone = _sim(h, base + ["--profile-dir", os.path.join(d, "pd2")], env)
            assert both[:2] == alone[:2], f"PLATTER_PROFILE_DIR beat --profile-dir: " \
                f"{both[2][-300:]!r}"
            return
        with open(os.path.join(h.ROOT, "scripts", "experiments", "seed-fops.json")) as f:
            spec = json.load(f)
        common = ["--sim-only", "--cells", "seq.*.nvme.*"]
        env = dict(os.environ, **env_extra)
        argv = [w if w != "SIM" else h.SIM for w in words]
        if change:
            spec.update(change)
        with open(os.path.join(d, "a.json"), "w") as f:
            json.dump(spec, f)
        p = subprocess.run([h.PLATTER, "compare", "a.json", "--out", "o1"] + common + argv +
                           ([] if "--sim" in words else ["--sim", h.SIM]), cwd=d, env=env,
                           capture_output=True, text=True, timeout=h.TIME_BOUND_S)
        assert p.returncode == 0, f"{which}: {p.stderr[-400:]!r}"
        if same:
            spec.update(same)
        with open(os.path.join(d, "b.json"), "w") as f:
            json.dump(spec, f)
        q = subprocess.run([h.PLATTER, "compare", "b.json", "--out", "o2", "--sim", h.SIM] +
                           common, cwd=d, capture_output=True, text=True,
                           timeout=h.TIME_BOUND_S)
        assert q.returncode == 0, f"{which}: {q.stderr[-400:]!r}"
        assert _report_cells(d, "o1") == _report_cells(d, "o2"), \
            f"{which}: the command line did not win over the spec ({words})"


# --- numbers ---------------------------------------------------------------

D = decimal.Decimal
# (option, the JSON key that echoes it in the sim's unit, what the option
# is written in, the smallest value allowed in the sim's unit)
SIM_NUMBERS = [
    ("--runtime", "runtime_ns", "s", 1),
    ("--host-us", "host_cmd_ns", "us", 0),
    ("--bs", "bs", "size", 512),
    ("--span", "span", "size", 512),
    ("--jobs", "jobs", "count", 1),
    ("--queue-depth", "queue_depth", "count", 1),
]
SCALE = {"s": D(10) ** 9, "us": D(1000), "size": 1, "count": 1}
NEAR_ROUNDING = [
    "1e-10", "4e-10", "5e-10", "4.9e-10", "0.0000000005", "1e-400", "1e-9", "1.5e-9",
    "9.3e9", "9223372036.854775807", "9223372036.854775808", "1e19", "18446744073.709551616",
    "1.0", "1.5", "0.5", "1e3", "0x10", "010", "+5", " 5", "5 ", "1_000", "\u0663",
    "\uff15", "4294967296", "4294967297", "18446744073709551617", "-0", "2147483648",
    "4.5k", "4k", "0.5k", "1e3k", "4096.0000001", "16e", "17179869184g", "511", "513",
    "1t", "8E", "0.000001", "1.0000000000000001", "4.9999999999999999", "nan", "inf",
    "1e308", "100000.0000000001", "0e5", ".5", "5.", "1..5", "--1"]
SIZE_SUFFIX = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40, "e": 1 << 60}


def _exact(text, unit):
    """The value text means in the sim's unit, exactly (a Decimal), or None
    when text is not a plain decimal number with an optional size suffix."""
    m = re.fullmatch(r"([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE]([+-]?[0-9]+))?([kmgteKMGTE]?)",
                     text)
    if not m:
        return None
    v = D(m.group(1)) * (D(10) ** int(m.group(2) or 0))
    if unit == "size":
        v *= SIZE_SUFFIX[m.group(3).lower()]
    elif m.group(3):
        return None
    return v * SCALE[unit]


@st.composite
def sim_number(draw):
    entry = draw(st.sampled_from(SIM_NUMBERS))
    text = draw(st.one_of(st.sampled_from(NEAR_ROUNDING), st.builds(
        lambda m, e: f"{m}e{e}", st.integers(1, 99), st.integers(-20, 20))))
    return entry, text


def _check_sim_number(h, case):
    (option, key, unit, least), text = case
    h.COUNT["numbers"] = h.COUNT.get("numbers", 0) + 1
    argv = ["--profile", "st20000nm007d", "--runtime", "0.001", "--json", f"{option}={text}"]
    rc, out, err = _sim(h, argv)
    what = f"{option}={text!r}: exit {rc}, {err[-300:]!r}"
    assert rc in (0, 2), what
    if rc == 2:
        lines = [ln for ln in err.split("\n") if ln.strip()]
        assert len(lines) == 1 and option.lstrip("-") in lines[0], \
            f"want one line naming the option: {what}"
        return
    want = _exact(text.strip(), unit)
    got = json.loads(out)[key]
    assert want is not None, f"accepted a number that is not a plain decimal: {what}"
    assert got >= least, f"ran with {key} {got}, under {least}: {what}"
    assert abs(D(got) - want) < 1, f"ran with {key} {got}, not {want}: {what}"


# numbers in the command's own options (platter, the same unit rules)
PLATTER_NUMBERS = [
    ("compare", "--runtime"), ("compare", "--parallel"), ("compare", "--shard"),
    ("powercut", "--cuts"), ("powercut", "--seed"), ("powercut", "--parallel"),
    ("powercut", "--states"), ("powercut", "--state"),
]


@st.composite
def platter_number(draw):
    cmd, option = draw(st.sampled_from(PLATTER_NUMBERS))
    text = draw(st.sampled_from(NEAR_ROUNDING + ["1/2", "0/2", "3/2", "1/0", "1.0/2",
                                                 "\u0661/2"]))
    return cmd, option, text


def _check_platter_number(h, case):
    cmd, option, text = case
    with h.scratch() as d:
        if cmd == "compare":
            argv = [h.PLATTER, "compare", "seed-fops", "--sim-only", "--sim", h.SIM,
                    "--cells", "seq.*.nvme.*", "--runtime", "0.01", "--out", "out/r",
                    f"{option}={text}"]
        else:
            # --merge runs nothing, so a number is only checked
            argv = [h.PLATTER, "powercut", "xfs-virtio-blk", "--merge", os.path.join(
                h.ROOT, "docs", "results", "powercut", "xfs-virtio-blk", "seeds-29-44"),
                "--out", "out/pc", f"{option}={text}"]
        h.check_run(f"numbers: {cmd} {option}", argv, d, [], one_line=False,
                    statuses=(0, 2))


def targets(h):
    """The four families as test-properties targets."""

    @h.SETTINGS
    @given(output_case())
    def outputs(case):
        _check_outputs(h, case)

    @h.SETTINGS
    @given(st.sampled_from(sorted(_long_commands(h, "."))), st.sampled_from(SIGNAL_SETS),
           st.floats(0, 3), st.floats(0, 0.5))
    def signals(name, sigs, delay_s, gap_s):
        _check_signals(h, name, sigs, delay_s, gap_s)

    @h.SETTINGS
    @given(st.one_of(repeated_sim().map(lambda c: ("repeat", c)),
                     spec_and_cli().map(lambda c: ("spec", c))))
    def interactions(case):
        _check_sim_covered(h)
        kind, c = case
        (_check_repeat if kind == "repeat" else _check_spec_and_cli)(h, c)

    @h.SETTINGS
    @given(st.one_of(sim_number().map(lambda c: ("sim", c)),
                     platter_number().map(lambda c: ("platter", c))))
    def numbers(case):
        kind, c = case
        (_check_sim_number if kind == "sim" else _check_platter_number)(h, c)

    return [outputs, signals, interactions, numbers]
