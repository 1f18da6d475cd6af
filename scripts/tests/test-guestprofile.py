#!/usr/bin/python3
"""The guest profile's host side (scripts/platterlib/guestprofile.py) on a
made-up System.map and plugin output: naming addresses, the perf-style
report, the flame graph, the period's bounds and the command line's
errors.  The plugin itself runs in scripts/test-guest-profile (a guest).
Prints TAP.  usage: test-guestprofile.py"""
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from platterlib import tap, guestprofile as gp  # noqa: E402

SYSTEM_MAP = """\
0000000000000000 D __per_cpu_start
ffffffff81000000 T _text
ffffffff81000000 T _stext
ffffffff81000000 t startup_64
ffffffff81001000 T blk_mq_submit_bio
ffffffff81001000 t __blk_mq_submit_bio_alias
ffffffff81001200 T nvme_queue_rq
ffffffff81001200 W nvme_queue_rq_weak
ffffffff81001400 t memset_orig
ffffffff81002000 T _etext
ffffffff81003000 D some_data
ffffffff82000000 T _sinittext
ffffffff82000000 T start_kernel
ffffffff82001000 T _einittext
"""

# 11 samples: 4 in blk_mq_submit_bio (two addresses), 3 in nvme_queue_rq,
# 1 in memset_orig, 1 in user space, 1 past _etext, 1 in the firmware
PCPROF = """\
# platter-pcprof v1
period 100003
vcpus 2
vcpu 0 insns 800025 samples 8
vcpu 1 insns 300100 samples 3
pc 00000000000f1000 k 1
pc ffffffff81001000 k 1
pc ffffffff810011f0 k 3
pc ffffffff81001200 k 3
pc ffffffff81001500 k 1
pc ffffffff81002800 k 1
pc 0000000000401000 u 1
"""


def files(tmp, pcprof=PCPROF, system_map=SYSTEM_MAP):
    s, m = os.path.join(tmp, "pcprof.in"), os.path.join(tmp, "System.map")
    with open(s, "w") as f:
        f.write(pcprof)
    with open(m, "w") as f:
        f.write(system_map)
    return s, m


def raises(exc, fn, *args, match=""):
    try:
        fn(*args)
    except exc as e:
        assert match in str(e), f"'{match}' not in '{e}'"
        return
    raise AssertionError(f"{fn.__name__}{args} did not raise {exc.__name__}")


def t_symbols(tmp):
    _, m = files(tmp)
    s = gp.Symbols(m)
    assert s.name(0xffffffff81001000) == "blk_mq_submit_bio"     # T before t
    assert s.name(0xffffffff810011ff) == "blk_mq_submit_bio"
    assert s.name(0xffffffff81001200) == "nvme_queue_rq"         # T before W, by name
    assert s.name(0xffffffff81000010) == "startup_64"            # code before markers
    assert s.name(0xffffffff81001fff) == "memset_orig"
    assert s.name(0xffffffff81002000) == gp.OUTSIDE              # _etext and after
    assert s.name(0xffffffff82000800) == "start_kernel"          # init text
    assert s.name(0xffffffff82001000) == gp.OUTSIDE
    assert s.name(0x401000, "u") == gp.USER
    assert s.name(0x401000) == gp.BOOT                           # CPL 0, low
    assert s.name(0xffffffff81001000, "u") == gp.USER


def t_report(tmp):
    samples, m = files(tmp)
    out = os.path.join(tmp, "out")
    summary = gp.write(samples, m, out, title="dsync on base")
    assert summary == {"period": 100003, "samples": 11, "insns": 1100125,
                       "top": ["blk_mq_submit_bio", "nvme_queue_rq", gp.BOOT, gp.OUTSIDE,
                               gp.USER]}, summary
    prof = json.load(open(os.path.join(out, "profile.json")))
    assert prof["version"] == 1 and prof["samples"] == 11
    assert [(r["symbol"], r["kind"], r["samples"], r["percent"]) for r in prof["symbols"]] == [
        ("blk_mq_submit_bio", "k", 4, 36.36), ("nvme_queue_rq", "k", 3, 27.27),
        (gp.BOOT, "k", 1, 9.09), (gp.OUTSIDE, "k", 1, 9.09), (gp.USER, "u", 1, 9.09),
        ("memset_orig", "k", 1, 9.09)]
    text = open(os.path.join(out, "profile.txt")).read()
    lines = text.splitlines()
    assert "# Overhead  Samples  Symbol" in lines
    assert "    36.36%        4  [k] blk_mq_submit_bio" in lines, text
    assert "     9.09%        1  [u] [user]" in lines, text
    assert "# dsync on base" in lines
    assert open(os.path.join(out, "pcprof.txt")).read() == PCPROF
    # the same input, the same bytes
    out2 = os.path.join(tmp, "out2")
    gp.write(samples, m, out2, title="dsync on base")
    for name in gp.FILES:
        assert open(os.path.join(out, name), "rb").read() == \
            open(os.path.join(out2, name), "rb").read(), name


def t_flamegraph(tmp):
    samples, m = files(tmp)
    out = os.path.join(tmp, "out")
    gp.write(samples, m, out, title="t <&> t")
    root = ET.parse(os.path.join(out, "flamegraph.svg")).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    frames = {}
    for g in root.iter(ns + "g"):
        name = g.find(ns + "title").text.split(" (")[0]
        frames[name] = float(g.find(ns + "rect").get("width"))
    # all, kernel, user, boot and the 4 kernel symbols
    assert set(frames) == {"all", "kernel", "user", "firmware, boot code", "blk_mq_submit_bio",
                           "nvme_queue_rq", "memset_orig", gp.OUTSIDE}, frames
    assert abs(frames["blk_mq_submit_bio"] / frames["all"] - 4 / 11) < 1e-3, frames
    assert abs(frames["kernel"] / frames["all"] - 9 / 11) < 1e-3, frames
    assert abs(frames["user"] / frames["all"] - 1 / 11) < 1e-3, frames


def t_bad_samples(tmp):
    raises(gp.Malformed, gp.read_samples, files(tmp, pcprof="hello\n")[0], match="line 1")
    bad = PCPROF.replace("pc ffffffff81001000 k 1", "pc ffffffff81001000 k x")
    raises(gp.Malformed, gp.read_samples, files(tmp, pcprof=bad)[0], match="line 7")
    short = PCPROF.replace("pc ffffffff81001500 k 1\n", "")
    raises(gp.Malformed, gp.read_samples, files(tmp, pcprof=short)[0], match="add up")
    twice = PCPROF + "pc 0000000000401000 u 1\n"
    raises(gp.Malformed, gp.read_samples, files(tmp, pcprof=twice)[0], match="line 13")
    nomode = PCPROF.replace("pc ffffffff81001000 k 1", "pc ffffffff81001000 1")
    raises(gp.Malformed, gp.read_samples, files(tmp, pcprof=nomode)[0], match="line 7")
    novcpu = PCPROF.replace("vcpu 1 insns 300100 samples 3\n", "")
    raises(gp.Malformed, gp.read_samples, files(tmp, pcprof=novcpu)[0], match="vcpu line")


def t_bad_map(tmp):
    raises(gp.Malformed, gp.Symbols, files(tmp, system_map="not a map\n")[1], match="line 1")
    raises(gp.Malformed, gp.Symbols,
           files(tmp, system_map="ffffffff81000000 D data\n")[1], match="no code symbols")


def t_period():
    assert gp.parse_period("100003") == 100003
    assert gp.parse_period("1000") == 1000
    for bad in ("", "0", "999", "-5", "1e6", "abc", "1000000000000", " 5000"):
        raises(ValueError, gp.parse_period, bad, match=f"'{bad}'")


def t_cli(tmp):
    samples, m = files(tmp)
    lib = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    cmd = [sys.executable, "-m", "platterlib.guestprofile", "write", "--samples", samples,
           "--system-map", m, "--out", os.path.join(tmp, "o")]
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=lib)
    assert p.returncode == 0 and json.loads(p.stdout)["samples"] == 11, (p.stdout, p.stderr)
    p = subprocess.run(cmd[:-3] + [os.path.join(tmp, "nothing"), "--out", tmp],
                       capture_output=True, text=True, cwd=lib)
    assert p.returncode == 2 and p.stdout == "", (p.stdout, p.stderr)
    err = p.stderr.strip().splitlines()
    assert len(err) == 1 and "nothing: No such file" in err[0], err


STACKS = PCPROF + """\
stack 1 ffffffff81001000 ffffffff81001210 ffffffff82000010
stack 3 ffffffff810011f0 ffffffff81001210 ffffffff82000010
stack 3 ffffffff81001200 ffffffff82000010
stack 1 ffffffff81001500 ffffffff81001001
stack 1 ffffffff81002800
"""


def t_stacks(tmp):
    """stacks=on: children (inclusive) per symbol, and a flame graph of
    callers: start_kernel -> nvme_queue_rq -> blk_mq_submit_bio."""
    samples, m = files(tmp, pcprof=STACKS)
    out = os.path.join(tmp, "out")
    gp.write(samples, m, out)
    prof = json.load(open(os.path.join(out, "profile.json")))
    got = {r["symbol"]: (r["samples"], r["children"]) for r in prof["symbols"]}
    assert got == {"blk_mq_submit_bio": (4, 5), "nvme_queue_rq": (3, 7), gp.BOOT: (1, 1),
                   gp.OUTSIDE: (1, 1), gp.USER: (1, 1), "memset_orig": (1, 1),
                   "start_kernel": (0, 7)}, got
    lines = open(os.path.join(out, "profile.txt")).read().splitlines()
    assert "# Children      Self  Samples  Symbol" in lines, lines
    assert "    63.64%     27.27%        3  [k] nvme_queue_rq" in lines, lines
    assert not any(line.endswith("start_kernel") for line in lines)   # no self samples
    root = ET.parse(os.path.join(out, "flamegraph.svg")).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    y = {}
    for g in root.iter(ns + "g"):
        name = g.find(ns + "title").text.split(" (")[0]
        y.setdefault(name, []).append((float(g.find(ns + "rect").get("y")),
                                       g.find(ns + "title").text))
    # one frame per place in the tree: blk_mq_submit_bio under nvme_queue_rq
    # (4) and under kernel (1); callers below their callees
    assert sorted(t for _, t in y["blk_mq_submit_bio"]) == [
        "blk_mq_submit_bio (1 samples, 9.09%)", "blk_mq_submit_bio (4 samples, 36.36%)"], y
    assert y["start_kernel"][0][0] > y["nvme_queue_rq"][0][0] > \
        min(v for v, _ in y["blk_mq_submit_bio"]), y
    assert [t for _, t in y["kernel"]] == ["kernel (9 samples, 81.82%)"], y
    bad = STACKS.replace("stack 1 ffffffff81002800\n", "")
    raises(gp.Malformed, gp.read_samples, files(tmp, pcprof=bad)[0], match="stack lines")


def t_collect(tmp):
    """compare --profile-guest: a cell's profile moves from run-guest's
    working directory into the report, and its record says where."""
    work, report = os.path.join(tmp, "cell0"), os.path.join(tmp, "report")
    os.makedirs(os.path.join(work, gp.RUN_DIR))
    with open(os.path.join(work, gp.RUN_DIR, "profile.txt"), "w") as f:
        f.write("x\n")
    rec = {"id": "seq.ideal.nvme.base",
           "guest": {"raw": {"run": {"profile_guest": {"period": 1000, "dir": gp.RUN_DIR}}}}}
    gp.collect(work, report, rec)
    assert rec["guest"]["profile"] == "profiles/seq.ideal.nvme.base", rec
    assert rec["guest"]["raw"]["run"]["profile_guest"]["dir"] == rec["guest"]["profile"]
    assert open(os.path.join(report, rec["guest"]["profile"], "profile.txt")).read() == "x\n"
    assert not os.path.exists(os.path.join(work, gp.RUN_DIR))
    # a cell without a profile (it failed before QEMU ran) is left as it is
    rec2 = {"id": "b", "guest": {"error": "boom"}}
    gp.collect(work, report, rec2)
    assert rec2 == {"id": "b", "guest": {"error": "boom"}}


tap.run([("System.map names addresses: globals first, text ranges, user space", t_symbols),
         ("perf-style report and profile.json: order, percentages, identical twice", t_report),
         ("flame graph: valid SVG, widths proportional to samples", t_flamegraph),
         ("a malformed plugin file is refused naming the line", t_bad_samples),
         ("a file that is not a System.map is refused", t_bad_map),
         ("--profile-guest's period: bounds and errors", lambda tmp: t_period()),
         ("the command line: the summary alone on stdout, one error line", t_cli),
         ("compare: a cell's profile moves into the report's profiles/", t_collect),
         ("call stacks: children per symbol, a flame graph of callers", t_stacks)],
        with_tmpdir=True)
