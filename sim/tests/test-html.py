#!/usr/bin/python3
"""platter-sim --html checks without a browser; prints TAP.

usage: test-html.py PLATTER_SIM

The page is one file with nothing to fetch; its record is the run's
(--explain's numbers, the --timeline window), its places on the disk are
the model's (the sector's angle is where the platter is when the model
reaches it); the committed pages of docs/teaching/ are what the commands
in docs/teaching.md write now.  test-html-browser.py runs them in chromium.
"""
import json
import os
import re
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, HERE)
from platterlib import tap  # noqa: E402
from explainrows import explain_rows, us_ns  # noqa: E402

SIM = os.path.abspath(sys.argv[1])
PHASE_REV = 60_000_000_000
SEQ = ("--profile", "st20000nm007d", "--pattern", "seq", "--policy", "fua+flush",
       "--runtime", "0.05")
RAND_READ = ("--profile", "st20000nm007d", "--workload", "fio", "--rw", "randread",
             "--iodepth", "4", "--size", "100g", "--runtime", "0.1")


def sim(*args, ok=True):
    p = subprocess.run([SIM, *args], capture_output=True, text=True, cwd=ROOT)
    if ok and p.returncode != 0:
        raise AssertionError(f"exit {p.returncode}: {p.stderr.strip()}")
    return p


def page(tmp, *args, name="t.html"):
    path = os.path.join(tmp, name)
    sim(*args, "--html", path)
    return open(path, encoding="utf-8").read()


def record(text):
    m = re.search(r'<script type="application/json" id="platter-record">(.*?)</script>', text, re.S)
    rec = json.loads(m.group(1))
    rec["rows"] = [dict(zip(rec["cmd_cols"], r)) for r in rec["cmds"]]
    return rec




def self_contained(tmp):
    for args in (SEQ, RAND_READ, ("--profile", "990pro", "--policy", "fua", "--runtime", "0.01")):
        text = page(tmp, *args)
        low = text.lower()
        for bad in ("<link", " src=", "@import", "url(", "http://", "https://", "fetch(",
                    "xmlhttprequest"):
            assert bad not in low, (args, bad)
        assert low.count("<script") == 3, low.count("<script")   # errors, record, page
        assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>")


def record_is_explain(tmp):
    # the page's numbers are --explain's, command by command
    for args in (SEQ, RAND_READ):
        rows = explain_rows(sim(*args, "--explain", "100000").stdout)
        rec = record(page(tmp, *args, "--timeline-count", "30"))
        assert len(rec["rows"]) == min(30, len(rows)), (len(rec["rows"]), len(rows))
        for c in rec["rows"]:
            r = rows[c["n"] - 1]
            op = "W+FUA" if c["op"] == "WRITE" and c["fua"] else c["op"]
            assert r["op"] == op and int(r["offset"]) == c["offset"], (r, c)
            assert us_ns(r["submit_us"]) == c["submit"] and us_ns(r["done_us"]) == c["done"]
            for col, key in (("queue_us", "queue"), ("ovhd_us", "overhead"),
                             ("seek_us", "seek"), ("rotate_us", "rotate"),
                             ("xfer_us", "transfer"), ("wb_wait_us", "destage")):
                assert us_ns(r[col]) == c[key], (col, r, c)


def places_are_the_models(tmp):
    # a read that waited for rotation started when the platter reached its
    # sector: the angle at the end of its rotation is the sector's angle,
    # within one sector (events are the ceiling of the exact instant)
    rec = record(page(tmp, "--profile", "st20000nm007d", "--workload", "fio", "--rw",
                      "randread", "--iodepth", "1", "--size", "18t", "--runtime", "0.2",
                      "--timeline-count", "30"))
    rpm, checked = rec["rpm"], 0
    for c in rec["rows"]:
        if c["rotate"] == 0:
            continue
        t = c["submit"] + c["queue"] + c["overhead"] + c["seek"] + c["rotate"]
        a = (t * rpm % PHASE_REV) * 360000 // PHASE_REV
        off = (a - c["angle"]) % 360000
        assert min(off, 360000 - off) <= 360000 // c["spt"] + 1, (c, a)
        assert 0 <= c["sector"] < c["spt"] and 0 <= c["head"] < rec["heads"]
        assert 0 <= c["cyl"] < rec["cylinders"]
        checked += 1
    assert checked >= 10, checked
    # zones: outermost first, fewer sectors per track inwards
    zones = rec["zones"]
    assert zones[0] == [0, max(z[1] for z in zones)], zones[:2]
    assert all(a[0] < b[0] and a[1] >= b[1] for a, b in zip(zones, zones[1:])), zones
    # across 18 TB the reads land all over the stroke
    cyls = [c["cyl"] for c in rec["rows"]]
    assert max(cyls) - min(cyls) > rec["cylinders"] // 4, (min(cyls), max(cyls))


def flash_dies(tmp):
    rec = record(page(tmp, "--profile", "990pro", "--workload", "fio", "--rw", "randread",
                      "--iodepth", "8", "--size", "1g", "--runtime", "0.01"))
    dump = subprocess.run([SIM, "--profile", "990pro", "--dump-profile"], capture_output=True,
                          text=True, check=True).stdout
    keys = {k: v.split()[0] for k, v in
            (ln.split(" = ", 1) for ln in dump.splitlines() if " = " in ln)}
    units = int(keys["parallel_units"]) * int(keys.get("planes", "1"))
    assert rec["rpm"] == 0 and rec["units"] == units and rec["zones"] == [], rec["units"]
    # a read runs on the die that holds it: striped in 16 KiB program units
    for c in rec["rows"]:
        assert c["unit"] == c["offset"] // 16384 % units, c


def bad_input(tmp):
    for args, what in ((("--html", ""), "--html: empty file name"),
                       (("--html", tmp), "exists and is not a regular file"),
                       (("--html", os.path.join(tmp, "no", "such", "p.html")), "cannot write"),
                       (("--timeline-count", "5"), "needs --timeline FILE.svg or --html"),
                       (("--html-question", "why?"), "--html-question needs --html"),
                       (("--timeline", os.path.join(tmp, "t.svg"), "--html-notice", "x"),
                        "--html-notice needs --html")):
        p = sim(*SEQ, *args, ok=False)
        assert p.returncode == 2 and what in p.stderr, (args, p.returncode, p.stderr)
        assert len(p.stderr.strip().splitlines()) == 1, p.stderr
    # a run that fails leaves no page behind
    path = os.path.join(tmp, "none.html")
    p = sim(*SEQ, "--timeline-from", "100", "--html", path, ok=False)
    assert p.returncode != 0 and not os.path.exists(path), p.stderr
    assert not [f for f in os.listdir(tmp) if f.startswith("none.html")]


def hostile_caption(tmp):
    # the command line is the caption: a path holding the template's marks
    # and a closing script tag stays text
    odd = os.path.join(tmp, "@DATA@ </script> @TITLE@ ", "*@JS@*", "x.profile")
    os.makedirs(os.path.dirname(odd))
    with open(os.path.join(ROOT, "hw-model", "profiles", "generic-7200.profile")) as f:
        text = f.read()
    with open(odd, "w") as f:
        f.write(text)
    html = page(tmp, "--profile", odd, "--runtime", "0.05", "--timeline-count", "3")
    rec = record(html)
    assert odd in rec["command"] and len(rec["rows"]) == 3, rec["command"]
    assert html.count("</script>") == 3, html.count("</script>")


def lesson_words(tmp):
    # the page's question and notice: in the record as given (a closing
    # script tag stays text), null without them, never in the caption
    q, n = "Why </script> @DATA@?", "the \"bar\" & the arm"
    rec = record(page(tmp, *SEQ, "--html-question", q, "--html-notice", n))
    assert (rec["question"], rec["notice"]) == (q, n), (rec["question"], rec["notice"])
    assert "html-question" not in rec["command"] and q not in rec["command"], rec["command"]
    rec = record(page(tmp, *SEQ, name="plain.html"))
    assert rec["question"] is None and rec["notice"] is None, rec


def deterministic(tmp):
    assert page(tmp, *RAND_READ, name="a.html") == page(tmp, *RAND_READ, name="b.html")


# (shaped like test-timeline.py teaching_pictures: each checks its own kind of file with its own
# rules -- pages need a question per lesson, pictures a link; duplicates
# pairs them by shape)
def teaching_pages(tmp):
    # every page in docs/teaching.md is what its command writes now
    doc = open(os.path.join(ROOT, "docs", "teaching.md")).read()
    found = re.findall(r"^\s*(?:\S*/)?(platter-sim .*--html (docs/teaching/\S+\.html).*)$", doc,
                       re.M)
    assert 4 <= len(found) <= 8, found
    for cmd, target in found:
        argv = shlex.split(cmd)[1:]
        out = os.path.join(tmp, "doc.html")
        argv[argv.index(target)] = out
        sim(*argv)
        have = open(os.path.join(ROOT, target), "rb").read()
        if open(out, "rb").read() != have:
            raise AssertionError(f"{target} is not what '{cmd}' writes: regenerate it "
                                 "(docs/teaching.md says how)")
    linked = set(re.findall(r"\((teaching/[^)]+\.html)\)", doc))
    assert {t[len("docs/"):] for _, t in found} <= linked, "a page is generated but not linked"
    # each lesson asks and answers
    lessons = re.split(r"^## \d\. ", doc, flags=re.M)[1:]
    assert len(lessons) == len(found), (len(lessons), len(found))
    for text in lessons:
        assert "**Question:**" in text and "**Answer:**" in text, text[:60]


tap.run([
    ("self-contained: nothing fetched", self_contained),
    ("the record is --explain's", record_is_explain),
    ("cylinder/head/sector and angle are the model's", places_are_the_models),
    ("flash: dies, no platter", flash_dies),
    ("bad input: one line, exit 2, no file", bad_input),
    ("a caption holding the page's marks stays text", hostile_caption),
    ("the question and what to notice: in the record, not in the caption", lesson_words),
    ("deterministic", deterministic),
    ("docs/teaching pages are current", teaching_pages),
], with_tmpdir=True)
