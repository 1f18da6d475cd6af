#!/usr/bin/python3
"""The --html pages in a real browser (headless Debian chromium); prints TAP.

usage: test-html-browser.py PLATTER_SIM [--shots DIR]

Loads each committed page of docs/teaching/ and a 5000-command page, plays
the animation to chosen instants of virtual time and checks, at each:
no console error or uncaught exception; the page's own state (the command
under the cursor, the head's cylinder, the platter's angle) equals what the
page's record (the model's per-command record) says for that instant,
computed here independently; the screenshot is not blank.  Prints the
5000-command page's size and load time.  Skipped, with the reason, when
chromium is not installed (scripts/setup-host installs it).
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, HERE)
from platterlib import tap  # noqa: E402
import cdp  # noqa: E402

SIM = os.path.abspath(sys.argv[1])
SHOTS = sys.argv[sys.argv.index("--shots") + 1] if "--shots" in sys.argv else None
PHASE_REV = 60_000_000_000
PAGES = sorted(glob.glob(os.path.join(ROOT, "docs", "teaching", "*.html")))
BIG_COMMANDS = 5000
LOAD_LIMIT_S, SIZE_LIMIT = 2.0, 5_000_000


class C:
    """A row of the record, its columns as attributes."""
    def __init__(self, cols, row):
        self.__dict__.update(zip(cols, row))


def record(path):
    text = open(path, encoding="utf-8").read()
    m = re.search(r'<script type="application/json" id="platter-record">(.*?)</script>', text, re.S)
    rec = json.loads(m.group(1))
    assert rec["v"] == 1, rec["v"]
    rec["C"] = [C(rec["cmd_cols"], r) for r in rec["cmds"]]
    rec["W"] = [C(rec["wb_cols"], r) for r in rec["wb"]]
    byt = sorted(rec["W"], key=lambda w: w.time)
    for c in rec["C"]:
        c.served = c.submit + c.queue
        # a cached write (volatile, or durable in a protected buffer) is in
        # the cache from its completion to the first write-back covering it
        c.home = next((w.time for w in byt if w.time >= c.done and
                       w.offset <= c.offset < w.offset + w.length), float("inf")) \
            if c.op == "WRITE" and c.cached else None
        c.media = (rec["rpm"] > 0 and c.op in ("READ", "WRITE") and not c.hit
                   and (c.seek > 0 or c.rotate > 0))
    return rec


def in_drive(rec, t):
    """Commands in the drive at t: the window's and the others beside them."""
    return sum(c.submit <= t < c.done for c in rec["C"]) + \
        sum(o[0] <= t < o[1] for o in rec["others"])


def cached_at(rec, t):
    """(writes, bytes) waiting in the cache for their write-back at t."""
    held = [c for c in rec["C"] if c.home is not None and c.done <= t < c.home]
    return len(held), sum(c.length for c in held)


def angle_mdeg(t, rpm):
    # hwm_device_angle_mdeg: a pure function of the time and the rpm
    return (t * rpm % PHASE_REV) * 360000 // PHASE_REV


def serving(rec, t):
    """The command under the cursor: of those in the drive (submitted, not
    done), the latest to leave the queue, else the lowest numbered."""
    flight = [c for c in rec["C"] if c.submit <= t < c.done]
    busy = [c for c in flight if c.served <= t]
    if busy:
        return max(busy, key=lambda c: (c.served, -c.n)).n
    return min((c.n for c in flight), default=None)


def instants(rec):
    """(name, t, expected cylinder or None, seek target or None) to check."""
    out = []
    media = [c for c in rec["C"] if c.media and c.rotate > 0]
    for c in media[:2]:
        # half way through its rotation the arm is on its cylinder
        out.append(("mid-rotation #%d" % c.n, c.served + c.overhead + c.seek + c.rotate // 2,
                    c.cyl, None))
    for c in [c for c in rec["C"] if c.media and c.seek > 0][:2]:
        out.append(("mid-seek #%d" % c.n, c.served + c.overhead + c.seek // 2, None, c))
    for w in rec["W"][:2]:
        # a write-back's end: the arm is on its cylinder
        out.append(("write-back end at %d" % w.time, w.time, w.cyl, None))
    owed = None
    for c in sorted(rec["C"], key=lambda c: c.done):
        if c.op == "WRITE" and c.durable and not c.media and owed is None:
            owed = c
        if c.op == "FLUSH":
            home = any(c.submit < w.time <= c.done for w in rec["W"])
            if rec["rpm"] and owed and not home and c.rotate > 0 and len(out) < 8:
                # the flush sends home the durable write before it
                out.append(("flush #%d mid-rotation" % c.n,
                            c.served + c.overhead + c.seek + c.rotate // 2, owed.cyl, None))
            owed = None
    t0 = min(c.submit for c in rec["C"])
    t1 = max(c.done for c in rec["C"])
    out.append(("middle of the run", (t0 + t1) // 2, None, None))
    # the cache at its fullest in the window (the last cached write's end)
    cached = [c for c in rec["C"] if c.home is not None]
    if cached:
        out.append(("cache fullest", max(c.done for c in cached), None, None))
    return out


def label_problems(labels, where):
    """Labels a canvas drew past its edge or over one another (boxes from
    the text's measured width and the font's size)."""
    out = []
    for a in labels:
        if a["x0"] < -0.5 or a["x1"] > a["w"] + 0.5 or a["y0"] < -0.5 or a["y1"] > a["h"] + 0.5:
            out.append(f"{where}: '{a['text']}' leaves the {a['canvas']} canvas "
                       f"({a['x0']:.0f}..{a['x1']:.0f} of {a['w']})")
    for i, a in enumerate(labels):
        for b in labels[i + 1:]:
            if a["canvas"] == b["canvas"] and min(a["x1"], b["x1"]) - max(a["x0"], b["x0"]) > 0.5 \
                    and min(a["y1"], b["y1"]) - max(a["y0"], b["y0"]) > 0.5:
                out.append(f"{where}: '{a['text']}' and '{b['text']}' overlap on the "
                           f"{a['canvas']} canvas")
    return out


def block_problems(b, where):
    """The page's text blocks over one another, or wider than the window."""
    boxes = b.evaluate("""Array.from(document.querySelectorAll(
        'header > *, figcaption, #side > *, #controls, #timeline, #notes, #notice'))
      .filter(function (e) { return !e.hidden && e.getClientRects().length; })
      .map(function (e) { var r = e.getBoundingClientRect();
        return { id: e.id || e.tagName, x0: r.left, x1: r.right, y0: r.top, y1: r.bottom,
                 w: document.documentElement.clientWidth }; })""")
    out = [f"{where}: {x['id']} is wider than the window" for x in boxes if x["x1"] > x["w"] + 0.5]
    for i, x in enumerate(boxes):
        for y in boxes[i + 1:]:
            if min(x["x1"], y["x1"]) - max(x["x0"], y["x0"]) > 0.5 and \
                    min(x["y1"], y["y1"]) - max(x["y0"], y["y0"]) > 0.5:
                out.append(f"{where}: {x['id']} and {y['id']} overlap")
    return out


def play_to(b, t):
    # from 2 ms of virtual time before, played in real time
    b.evaluate("platter.seek(%d)" % max(0, t - 2_000_000))
    b.evaluate("platter.setSpeed(1)")
    return b.evaluate("platter.playTo(%d)" % t)


def check_page(b, path, tmp, shots=None):
    rec = record(path)
    b.navigate("file://" + path)
    errors = []
    for name, t, cyl, seeking in instants(rec):
        if seeking is not None:
            start = b.evaluate("platter.seek(%d)" % (seeking.served + seeking.overhead))
        s = play_to(b, t)
        where = f"{os.path.basename(path)} {name} t={t}"
        assert s["t_ns"] == t, (where, s["t_ns"])
        assert s["cmd"] == serving(rec, t), (where, s["cmd"], serving(rec, t))
        assert s["angle_mdeg"] == angle_mdeg(t, rec["rpm"]), (where, s["angle_mdeg"])
        if cyl is not None:
            assert s["cyl"] == cyl and not s["moving"], (where, s, cyl)
        assert s["queued"] == in_drive(rec, t), (where, s["queued"], in_drive(rec, t))
        # the cache bar: what the record says the cache holds then
        assert s["dirty_bytes"] == cached_at(rec, t)[1], (where, s["dirty_bytes"],
                                                          cached_at(rec, t))
        if seeking is not None:
            lo, hi = sorted((start["cyl"], seeking.cyl))
            assert s["moving"] and lo <= s["cyl"] <= hi, (where, s, start["cyl"], seeking.cyl)
            # a command's seek says so; a move to a write-back is labelled
            # as that, not as a seek (the head waits for rotation in it too)
            assert s["moving_for"] == "seek", (where, s)
        errors += label_problems(b.evaluate("platter.labels()"), where)
        png = b.screenshot()
        colors = cdp.png_colors(png)
        assert colors >= 8, (where, "screenshot looks blank", colors)
        if shots is not None and name.split()[0] in ("mid-seek", "mid-rotation"):
            key = name.split()[0]
            if key not in shots:
                shots[key] = png
        errors += b.errors() + s["errors"]
    # a click on a bar selects its command and shows its --explain row
    c = rec["C"][min(1, len(rec["C"]) - 1)]
    b.evaluate("platter.seek(%d)" % c.submit)
    at = b.evaluate("platter.barAt(%d)" % c.n)
    assert at, (os.path.basename(path), "no bar for #%d" % c.n)
    b.evaluate("window.scrollTo(0, %d)" % max(0, at["y"] - 300))
    view = b.evaluate("platter.barAt(%d)" % c.n)
    scroll = b.evaluate("window.scrollY")
    for kind in ("mousePressed", "mouseReleased"):
        b.call("Input.dispatchMouseEvent", type=kind, x=view["x"], y=view["y"] - scroll,
               button="left", clickCount=1)
    s = b.evaluate("platter.state()")
    assert s["selected"] == c.n and s["explain"].startswith("#%d " % c.n), (c.n, s)
    b.evaluate("window.scrollTo(0, 0)")
    errors += b.errors() + s["errors"]
    assert not errors, (os.path.basename(path), errors)
    return len(instants(rec))


def main():
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if not exe:
        print("1..0 # SKIP chromium is not installed (apt-get install chromium; "
              "scripts/setup-host installs it)")
        return
    tmp = tempfile.TemporaryDirectory(prefix="platter-html-")
    b = cdp.Browser(exe)
    shots = {}
    try:
        b.open_page(1150, 1100)
        tests = []
        for path in PAGES:
            tests.append((f"{os.path.basename(path)}: state matches the record, a click "
                          "explains a bar, no errors, not blank", lambda p=path: check_page(b, p, tmp.name, shots)))

        def big():
            page = os.path.join(tmp.name, "big.html")
            subprocess.run([SIM, "--profile", "st20000nm007d", "--pattern", "rand",
                            "--policy", "fua", "--runtime", "10",
                            "--timeline-count", str(BIG_COMMANDS), "--html", page],
                           check=True, capture_output=True)
            size = os.path.getsize(page)
            load = min(b.navigate("file://" + page) for _ in range(3))
            n = len(record(page)["cmds"])
            print(f"# {n}-command page: {size} bytes ({size / n:.0f} bytes per command), "
                  f"loads in {load * 1000:.0f} ms ({load * 1e6 / n:.1f} us per command)")
            assert n == BIG_COMMANDS, n
            assert size < SIZE_LIMIT, size
            assert load < LOAD_LIMIT_S, load
            check_page(b, page, tmp.name)

        def cache_fill():
            # lesson 4: random FUA writes into a protected buffer fill the
            # cache, and write-backs drain it with the arm moving (the page
            # showed 0 bytes and a still arm: the model reported no
            # write-back of data that was durable when acknowledged)
            page = os.path.join(ROOT, "docs", "teaching", "cache-fill.html")
            rec = record(page)
            assert rec["W"] and all(w.home for w in rec["W"]), len(rec["W"])
            b.navigate("file://" + page)
            last = max(c.done for c in rec["C"] if c.home is not None)
            n, nbytes = cached_at(rec, last)
            assert n >= rec["cache_segments"] * 9 // 10, (n, rec["cache_segments"])
            s = play_to(b, last)
            assert s["dirty_bytes"] == nbytes > 0, (s["dirty_bytes"], nbytes)
            cyls, labels = set(), set()
            for w in rec["W"][:6]:
                labels.add(play_to(b, w.time - 1000)["moving_for"])
                cyls.add(play_to(b, w.time)["cyl"])
            assert len(cyls) > 1, cyls
            # on its way to a write-back the head is not "seeking": its
            # record gives only the end, seek and rotation in one
            assert "write-back" in labels and "seek" not in labels, labels

        def lesson_words():
            # each lesson's page opens with its question and ends with what
            # to notice (docs/teaching.md's --html-question/--html-notice)
            bad = []
            for path in PAGES:
                b.navigate("file://" + path)
                first, last = b.evaluate("""(function () {
                  var shown = Array.from(document.body.querySelectorAll('h1, h2, p, figcaption'))
                    .filter(function (e) { return !e.hidden && e.textContent.trim(); });
                  return [shown[0].id, shown[shown.length - 1].id]; })()""")
                if (first, last) != ("question", "notice"):
                    bad.append((os.path.basename(path), first, last))
            assert not bad, bad

        tests.append(("every lesson's page opens with its question and ends with what to notice",
                      lesson_words))

        def widths():
            # at 1280 and 1920 px: no text over other text, on the canvases
            # or between the page's blocks, at every instant check_page plays
            bad = []
            for width in (1280, 1920):
                b.call("Emulation.setDeviceMetricsOverride", width=width, height=1100,
                       deviceScaleFactor=1, mobile=False)
                for path in PAGES:
                    rec = record(path)
                    b.navigate("file://" + path)
                    for name, t, _, _ in instants(rec):
                        where = f"{os.path.basename(path)} at {width} px, {name}"
                        play_to(b, t)
                        bad += label_problems(b.evaluate("platter.labels()"), where)
                        bad += block_problems(b, where)
            b.call("Emulation.setDeviceMetricsOverride", width=1150, height=1100,
                   deviceScaleFactor=1, mobile=False)
            assert not bad, "; ".join(sorted(set(bad))[:12]) + f" ({len(set(bad))} in all)"

        tests.append(("at 1280 and 1920 px no label or text block lies over another or "
                      "leaves its canvas", widths))

        tests.append(("lesson 4 (cache-fill.html): the cache fills, write-backs drain it, "
                      "the arm moves", cache_fill))

        def ncq_depth():
            # lesson 3: 32 reads in the drive at once, as the drive holds
            # them (the page counted only its window's 40 commands: 24)
            page = os.path.join(ROOT, "docs", "teaching", "ncq-qd32.html")
            rec = record(page)
            b.navigate("file://" + page)
            mid = (min(c.submit for c in rec["C"]) + max(c.done for c in rec["C"])) // 2
            s = play_to(b, mid)
            assert s["queued"] == in_drive(rec, mid) and s["queued"] >= 31, s["queued"]

        tests.append(("lesson 3 (ncq-qd32.html): the queue as deep as the drive holds it",
                      ncq_depth))

        def flash():
            page = os.path.join(tmp.name, "flash.html")
            subprocess.run([SIM, "--profile", "990pro", "--workload", "fio", "--rw", "randrw",
                            "--iodepth", "16", "--size", "1g", "--runtime", "0.01",
                            "--html", page], check=True, capture_output=True)
            check_page(b, page, tmp.name)
            s = b.evaluate("platter.seek(platter.record.cmds[0][5])")
            assert s["cyl"] is None and s["angle_mdeg"] == 0, s

        tests.append(("a flash page: dies, no errors, not blank", flash))
        tests.append((f"{BIG_COMMANDS}-command page under {SIZE_LIMIT} bytes, loads in under "
                      f"{LOAD_LIMIT_S} s", big))
        tap.run(tests)
    finally:
        b.close()
        if SHOTS:
            os.makedirs(SHOTS, exist_ok=True)
            for key, png in shots.items():
                with open(os.path.join(SHOTS, key + ".png"), "wb") as f:
                    f.write(png)
        tmp.cleanup()


if __name__ == "__main__":
    main()
