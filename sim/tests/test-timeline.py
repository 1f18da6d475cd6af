#!/usr/bin/python3
"""platter-sim --timeline checks; prints TAP.

usage: test-timeline.py PLATTER_SIM

The picture is checked against what the same run says elsewhere: each bar
against --explain's row for that command, the angle strip against the
profile's rpm, every text's box against every other's, and the pictures in
docs/teaching/ against the commands docs/teaching.md gives for them.
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, HERE)
from platterlib import tap  # noqa: E402
from explainrows import explain_rows, us_ns  # noqa: E402

SIM = os.path.abspath(sys.argv[1])
NS = "{http://www.w3.org/2000/svg}"
REV_RPM_NS = 60_000_000_000
PLOT_X0, PLOT_X1 = 240.0, 1040.0
CHAR_EM = 0.6
PARTS = ("queue", "overhead", "seek", "rotate", "transfer", "destage")
EXPLAIN_COLS = ("queue_us", "ovhd_us", "seek_us", "rotate_us", "xfer_us", "wb_wait_us")


def sim(*args, ok=True):
    p = subprocess.run([SIM, *args], capture_output=True, text=True, cwd=ROOT)
    if ok and p.returncode != 0:
        raise AssertionError(f"exit {p.returncode}: {p.stderr.strip()}")
    return p


def draw(tmp, *args, name="t.svg"):
    """Run with --timeline; returns (the parsed SVG root, the process)."""
    path = os.path.join(tmp, name)
    p = sim(*args, "--timeline", path)
    return ET.parse(path).getroot(), p




def cmds(root):
    return [g for g in root.iter(NS + "g") if g.get("class") == "cmd"]


def x_of(root, t):
    t0, t1 = int(root.get("data-t0-ns")), int(root.get("data-t1-ns"))
    return PLOT_X0 + (t - t0) * (PLOT_X1 - PLOT_X0) / max(t1 - t0, 1)


def rpm_of(profile):
    dump = sim("--profile", profile, "--dump-profile").stdout
    return int(re.search(r"^rpm = (\d+)", dump, re.M).group(1))


def angle_mdeg(t, rpm):
    # the spindle's phase from t = 0, independently of the model's code
    return (t * rpm % REV_RPM_NS) * 360000 // REV_RPM_NS


def check_bars(root, rows):
    """rows: --explain's, from #1 on (it may go on past the picture)"""
    for g in cmds(root):
        r = rows[int(g.get("data-n")) - 1]
        assert r["#"] == g.get("data-n") and r["op"] == g.get("data-op"), (r, g.attrib)
        submit, done = int(g.get("data-submit-ns")), int(g.get("data-done-ns"))
        assert submit == us_ns(r["submit_us"]) and done == us_ns(r["done_us"]), (r, g.attrib)
        rects = [e for e in g if e.tag == NS + "rect"]
        seg = {e.get("class"): int(e.get("data-ns")) for e in rects}
        # each part is the one --explain gives, and together they are done - submit
        for part, col in zip(PARTS, EXPLAIN_COLS):
            assert seg.get(part, 0) == us_ns(r[col]), (part, seg, r)
        assert sum(seg.values()) == done - submit, (seg, submit, done)
        # drawn end to end from the submit, each as wide as its time
        x, t = x_of(root, submit), submit
        for e in rects:
            assert abs(float(e.get("x")) - x) < 0.011, (e.attrib, x)
            t += int(e.get("data-ns"))
            x = float(e.get("x")) + float(e.get("width"))
            assert abs(x - x_of(root, t)) < 0.011, (e.attrib, x, x_of(root, t))
        assert abs(x - x_of(root, done)) < 0.02 or not rects


def bars_match_explain(tmp):
    for args in (
        ("--profile", "st20000nm007d", "--policy", "fua+flush", "--runtime", "0.2"),
        ("--profile", "st20000nm007d", "--pattern", "rand", "--policy", "fua", "--runtime", "0.2"),
        # queued commands: the queue part, reordering, reads
        ("--profile", "generic-7200", "--workload", "fio", "--rw", "randrw", "--iodepth", "8",
         "--size", "10G", "--runtime", "0.2"),
        ("--profile", "990pro", "--workload", "fsync-append", "--jobs", "4", "--runtime", "0.05"),
    ):
        root, p = draw(tmp, *args, "--explain", "30", "--timeline-count", "30")
        rows = explain_rows(p.stdout)
        assert len(rows) == len(cmds(root)) == 30, (args, len(rows), len(cmds(root)))
        check_bars(root, rows)


def from_window(tmp):
    # --timeline-from: the first commands submitted at or after it, keeping
    # --explain's numbers
    args = ("--profile", "st20000nm007d", "--pattern", "rand", "--policy", "fua", "--runtime", "1")
    rows = explain_rows(sim(*args, "--explain", "100000").stdout)
    root, _ = draw(tmp, *args, "--timeline-from", "0.5", "--timeline-count", "7")
    want = [r for r in rows if us_ns(r["submit_us"]) >= 500_000_000][:7]
    assert [g.get("data-n") for g in cmds(root)] == [r["#"] for r in want]
    check_bars(root, rows)


def angle_strip(tmp):
    for prof, args in (("st20000nm007d", ("--policy", "fua+flush", "--runtime", "0.05")),
                       ("generic-7200", ("--pattern", "rand", "--policy", "fua", "--runtime", "0.3"))):
        rpm = rpm_of(prof)
        root, _ = draw(tmp, "--profile", prof, *args, "--timeline-count", "12")
        strip = next(g for g in root.iter(NS + "g") if g.get("class") == "strip")
        assert int(strip.get("data-rpm")) == rpm
        line = next(e for e in strip if e.get("class") == "angle")
        samples = [tuple(map(int, s.split(":"))) for s in line.get("data-samples").split()]
        t0, t1 = int(root.get("data-t0-ns")), int(root.get("data-t1-ns"))
        assert samples[0][0] == t0 and samples[-1][0] == t1, (samples[:2], t0, t1)
        for t, a in samples:
            assert a == angle_mdeg(t, rpm), (prof, t, a, angle_mdeg(t, rpm))
        # the index passes (where the angle drops) one revolution apart
        passes = [t for (_, a0), (t, a) in zip(samples, samples[1:]) if a < a0]
        assert len(passes) >= 2, (prof, passes)
        for a, b in zip(passes, passes[1:]):
            assert abs((b - a) - REV_RPM_NS / rpm) <= 1, (prof, b - a, REV_RPM_NS / rpm)
        # drawn where the samples say
        pts = [tuple(map(float, p.split(","))) for p in line.get("points").split()]
        top, h = float(next(e for e in strip if e.tag == NS + "rect").get("y")), 120
        for (t, a), (x, y) in zip(samples, pts):
            assert abs(x - x_of(root, t)) < 0.011 and abs(y - (top + h - a * h / 360000)) < 0.011
        # a dot at each completion, at the angle of that moment
        done = {g.get("data-n"): int(g.get("data-done-ns")) for g in cmds(root)}
        dots = [e for e in strip if e.get("class") == "done"]
        assert len(dots) == len(done)
        for d in dots:
            t = int(d.get("data-t-ns"))
            assert t == done[d.get("data-n")] and int(d.get("data-mdeg")) == angle_mdeg(t, rpm)


def flash_says_so(tmp):
    # no empty platter strip on flash, a sentence instead
    root, _ = draw(tmp, "--profile", "990pro", "--policy", "fua", "--runtime", "0.01")
    assert not [g for g in root.iter(NS + "g") if g.get("class") == "strip"]
    words = " ".join(e.text or "" for e in root.iter(NS + "text"))
    assert "platter angle" not in words, words
    assert "Flash: no platter" in words and "no angle" in words, words


def legend_only_present(tmp):
    # fua-only writes have overhead and transfer, nothing else
    root, _ = draw(tmp, "--profile", "st20000nm007d", "--pattern", "seq", "--policy", "fua",
                   "--runtime", "0.01", "--timeline-count", "5")
    legend = [e.text for e in root.iter(NS + "text") if e.get("class") == "legend"]
    assert legend == ["overhead", "transfer"], legend


def target_angles(tmp):
    # each red line sits at its sector's angle and ends where the platter's
    # angle reaches it: within one sector (the model times the boundary's
    # ceiling; the smallest track here has 2320 sectors)
    for args in (("--pattern", "seq", "--policy", "fua+flush", "--runtime", "0.05"),
                 ("--workload", "fio", "--rw", "randread", "--iodepth", "1", "--size", "100g",
                  "--runtime", "0.1")):
        root, _ = draw(tmp, "--profile", "st20000nm007d", *args, "--timeline-count", "8")
        marks = [e for e in root.iter(NS + "path") if e.get("class") == "target"]
        assert len(marks) >= 4, len(marks)
        for m in marks:
            a, t = int(m.get("data-mdeg")), int(m.get("data-to-ns"))
            off = (angle_mdeg(t, 7200) - a) % 360000
            assert min(off, 360000 - off) <= 360000 // 2320 + 200, (m.attrib, off)


def boxes(root):
    out = []
    for e in root.iter(NS + "text"):
        size, w = float(e.get("font-size")), len(e.text) * float(e.get("font-size")) * CHAR_EM
        x, y = float(e.get("x")), float(e.get("y"))
        x0 = {"start": x, "middle": x - w / 2, "end": x - w}[e.get("text-anchor")]
        out.append((x0, y - size, x0 + w, y + size * 0.25, e.text))
    return out


def labels_apart(tmp):
    width = None
    for args in (("--profile", "st20000nm007d", "--policy", "fua+flush", "--runtime", "0.1"),
                 ("--profile", "st20000nm007d", "--pattern", "rand", "--policy", "fua", "--runtime", "0.2",
                  "--timeline-count", "200"),
                 ("--profile", "generic-7200", "--workload", "fio", "--rw", "randread", "--iodepth", "32",
                  "--runtime", "0.3", "--timeline-count", "120"),
                 ("--profile", "990pro", "--workload", "fio", "--rw", "randwrite", "--iodepth", "4",
                  "--runtime", "0.01")):
        root, _ = draw(tmp, *args)
        width = float(root.get("width"))
        b = boxes(root)
        assert len(b) > 20
        for i, p in enumerate(b):
            assert p[0] >= 0 and p[2] <= width, ("off the picture", p)
            for q in b[i + 1:]:
                # coordinates are printed to 0.01 px: touching is not overlapping
                e = 0.02
                assert not (p[0] + e < q[2] and q[0] + e < p[2] and p[1] + e < q[3] and
                            q[1] + e < p[3]), (p, q)
        # in-bar duration labels sit inside their segment
        for g in cmds(root):
            rects = [e for e in g if e.tag == NS + "rect"]
            for t in (e for e in g if e.get("class") == "part-label"):
                w = len(t.text) * 10 * CHAR_EM
                x = float(t.get("x"))
                assert any(float(r.get("x")) <= x - w / 2 and x + w / 2 <= float(r.get("x")) +
                           float(r.get("width")) for r in rects), t.text


def time_ticks(tmp):
    # windows from microseconds to seconds: ticks on a 1-2-5 step, in a unit
    # that reads, at least 70 px apart, labelled by their time
    for args in (("--profile", "990pro", "--policy", "fua", "--runtime", "0.01", "--timeline-count", "3"),
                 ("--profile", "st20000nm007d", "--policy", "fua+flush", "--runtime", "0.1"),
                 ("--profile", "st20000nm007d", "--policy", "fua+flush", "--runtime", "5",
                  "--timeline-count", "600")):
        root, _ = draw(tmp, *args)
        ticks = [e for e in root.iter(NS + "text") if e.get("class") == "tick"]
        unit = next(e.text for e in root.iter(NS + "text") if e.get("class") == "axis-title").split()[-1]
        scale = {"ns": 1, "us": 1000, "ms": 10**6, "s": 10**9}[unit]
        ts = [int(e.get("data-t-ns")) for e in ticks]
        assert 2 <= len(ts) <= 12, (args, len(ts))
        step = ts[1] - ts[0]
        assert all(b - a == step for a, b in zip(ts, ts[1:]))
        assert re.fullmatch(r"[125]0*", str(step)), step
        assert 1 <= step * 1000 // scale < 1_000_000, (step, unit)
        for e, t in zip(ticks, ts):
            assert abs(float(e.text) * scale - t) < step / 100, (e.text, unit, t)
            assert abs(float(e.get("x")) - x_of(root, t)) < 0.011
        assert float(ticks[1].get("x")) - float(ticks[0].get("x")) >= 70


def sane_default(tmp):
    # a 60 s run draws the first 50 commands, not a million of them
    path = os.path.join(tmp, "long.svg")
    sim("--profile", "st20000nm007d", "--pattern", "rand", "--policy", "fua", "--timeline", path)
    assert len(cmds(ET.parse(path).getroot())) == 50
    assert os.path.getsize(path) < 200_000, os.path.getsize(path)
    root, _ = draw(tmp, "--profile", "st20000nm007d", "--pattern", "rand", "--policy", "fua",
                   "--runtime", "8", "--timeline-count", "5000")
    assert len(cmds(root)) == 5000
    # that window spans too many revolutions to draw: it says so instead
    strip = next(g for g in root.iter(NS + "g") if g.get("class") == "strip")
    assert any(e.get("class") == "too-dense" for e in strip)


def atomic(tmp):
    # success replaces the file whole; a failed run leaves it and no
    # temporary file; a bad path fails before the run
    path = os.path.join(tmp, "a.svg")
    with open(path, "w") as f:
        f.write("old")
    sim("--profile", "generic-7200", "--runtime", "0.05", "--timeline", path)
    ET.parse(path)
    mode = os.stat(path).st_mode & 0o777
    assert mode & 0o044, oct(mode)    # readable as a plain create makes it
    good = open(path, "rb").read()
    trace = os.path.join(tmp, "bad.trace")
    with open(trace, "w") as f:
        f.write("0 W 0 4096 -\n1000000 W 99999999999999999 4096 -\n")
    p = sim("--profile", "generic-7200", "--workload", "replay", "--trace", trace, "--timeline", path, ok=False)
    assert p.returncode == 1 and p.stdout == "", (p.returncode, p.stdout)
    assert open(path, "rb").read() == good
    p = sim("--profile", "generic-7200", "--runtime", "0.05", "--timeline-from", "9", "--timeline", path, ok=False)
    assert p.returncode == 1 and "no device command was submitted at or after --timeline-from 9 s" in p.stderr
    assert open(path, "rb").read() == good
    assert sorted(os.listdir(tmp)) == ["a.svg", "bad.trace"], os.listdir(tmp)
    p = sim("--profile", "generic-7200", "--timeline", os.path.join(tmp, "no", "x.svg"), ok=False)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "cannot write" in p.stderr, p.stderr


def deterministic(tmp):
    args = ("--profile", "st20000nm007d", "--pattern", "rand", "--policy", "fua", "--runtime", "0.5")
    a = draw(tmp, *args, name="a.svg")
    b = draw(tmp, *args, name="b.svg")
    assert ET.tostring(a[0]) == ET.tostring(b[0])


# (shaped like test-html.py teaching_pages: each checks its own kind of file with its own
# rules -- pages need a question per lesson, pictures a link; duplicates
# pairs them by shape)
def teaching_pictures(tmp):
    # every picture in docs/teaching.md is what its command draws now
    doc = open(os.path.join(ROOT, "docs", "teaching.md")).read()
    found = re.findall(r"^\s*(?:\S*/)?(platter-sim .*--timeline (docs/teaching/\S+\.svg).*)$", doc,
                       re.M)
    assert len(found) >= 3, found
    for cmd, target in found:
        argv = shlex.split(cmd)[1:]
        out = os.path.join(tmp, "doc.svg")
        argv[argv.index(target)] = out
        sim(*argv)
        have = open(os.path.join(ROOT, target), "rb").read()
        if open(out, "rb").read() != have:
            raise AssertionError(f"{target} is not what '{cmd}' draws: regenerate it "
                                 "(docs/teaching.md says how)")
    linked = set(re.findall(r"\((teaching/[^)]+\.svg)\)", doc))
    assert {t[len("docs/"):] for _, t in found} <= linked, "a picture is generated but not shown"


def explain_narrow(tmp):
    # --explain-format narrow fits 100 columns and gives the wide table's
    # numbers to 0.1 us; a format it does not know is refused
    runs = (("--profile", "st20000nm007d", "--policy", "fua+flush", "--runtime", "0.1"),
            ("--profile", "st3000dm001", "--pattern", "rand", "--span", "100G", "--jobs", "4",
             "--policy", "write+flush", "--runtime", "0.1"),
            ("--profile", "st20000nm007d", "--workload", "fio", "--rw", "randread",
             "--iodepth", "32", "--size", "18t", "--runtime", "0.2"),
            ("--profile", "990pro", "--workload", "fio", "--rw", "randwrite", "--iodepth", "32",
             "--numjobs", "4", "--runtime", "0.01"))
    for args in runs:
        wide = explain_rows(sim(*args, "--explain", "60").stdout)
        text = sim(*args, "--explain", "60", "--explain-format", "narrow").stdout
        table = [ln for ln in text.splitlines() if ln[:1].isdigit() or ln.startswith("#")]
        assert len(table) == len(wide) + 1, (len(table), len(wide))
        for ln in table:
            assert len(ln) <= 100, (len(ln), ln)
        for w, n in zip(wide, explain_rows("\n".join(table))):
            assert n["#"] == w["#"] and n["op"] == w["op"], (n, w)
            for nk, wk in (("submit", "submit_us"), ("queue", "queue_us"), ("ovhd", "ovhd_us"),
                           ("seek", "seek_us"), ("rotate", "rotate_us"), ("xfer", "xfer_us"),
                           ("wb_wait", "wb_wait_us"), ("done_us", "done_us")):
                assert abs(float(n[nk]) - us_ns(w[wk]) / 1e3) <= 0.05 + 1e-9, (nk, n, w)
            assert abs(float(n["GiB"]) * 2**30 - int(w["offset"])) <= 2**30 / 1e3, (n, w)
    p = sim("--profile", "ideal", "--explain", "1", "--explain-format", "tall", ok=False)
    assert p.returncode == 2 and "--explain-format: unknown 'tall' (wide, narrow)" in p.stderr, \
        p.stderr


tap.run([
    ("bars match --explain", bars_match_explain),
    ("--explain-format narrow: 100 columns, the same numbers", explain_narrow),
    ("--timeline-from window", from_window),
    ("angle strip follows the rpm", angle_strip),
    ("flash says it has no angle, no strip", flash_says_so),
    ("legend lists only the parts drawn", legend_only_present),
    ("target sector angles on the strip", target_angles),
    ("labels do not overlap", labels_apart),
    ("time axis ticks", time_ticks),
    ("default limit", sane_default),
    ("written atomically, only on success", atomic),
    ("deterministic", deterministic),
    ("docs/teaching pictures are current", teaching_pictures),
], with_tmpdir=True)
