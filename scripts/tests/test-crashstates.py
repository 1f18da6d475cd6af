#!/usr/bin/python3
"""platterlib.crashstates against a drive simulated here byte by byte
(issue 43).  The simulated drive takes random writes (some FUA), flushes
(taken, then completed after more writes) and write-backs of any part of
its cache; the journal it writes is what hddmodel-crash.c documents,
computed the plain way (the media as of the durable point is the initial
media with every durable-by-then write applied in order).  Then:

- the journal's own write-back order gives exactly the simulated media;
- every write in doubt persisted gives the image of all writes applied;
- none of them gives the durable point plus the FUA writes;
- a state is the same every time it is planned (a reproducer replays it),
  and the strategies draw what they say;
- a journal file that is cut short or altered is refused with a
  BadJournal, never another exception.

Prints TAP; needs Debian's python3-hypothesis."""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from platterlib import tap, crashstates  # noqa: E402

try:
    from hypothesis import HealthCheck, given, settings, strategies as st
except ImportError:
    sys.exit("test-crashstates: needs Debian's python3-hypothesis (scripts/setup-host)")

SECTOR = 16
SECTORS = 24
SETTINGS = settings(max_examples=int(os.environ.get("PLATTER_PROPERTY_EXAMPLES", "300")),
                    deadline=None, suppress_health_check=list(HealthCheck))


class Drive:
    """A volatile cache over media, one byte at a time."""

    def __init__(self):
        self.media = bytearray(b"\0" * SECTOR * SECTORS)
        self.cache = {}            # byte -> its value in the cache
        self.writes = []           # (seq, offset, data, durable)
        self.destages = []         # (offset, length, after_seq)
        self.flushes = []          # acked_before of flushes taken, not completed
        self.durable = 0           # every write up to it is durable

    @property
    def acked(self):
        return len(self.writes)

    def write(self, sector, count, durable, fill):
        off = sector * SECTOR
        data = bytes((fill + i) & 0xFF or 1 for i in range(count * SECTOR))
        self.writes.append((self.acked + 1, off, data, durable))
        for i, b in enumerate(data):
            if durable:
                self.media[off + i] = b
                self.cache.pop(off + i, None)
            else:
                self.cache[off + i] = b
        self.settle(0)

    def destage(self, sector, count):
        lo, hi = sector * SECTOR, (sector + count) * SECTOR
        for i in range(lo, hi):
            if i in self.cache:
                self.media[i] = self.cache.pop(i)
        self.destages.append((lo, hi - lo, self.acked))

    def flush_taken(self):
        self.flushes.append(self.acked)

    def flush_done(self):
        if not self.flushes:
            return
        upto = self.flushes.pop(0)
        # the drive wrote back what it held of the writes before the flush
        # (all it holds, here), as the model does
        for i in sorted(self.cache):
            self.media[i] = self.cache.pop(i)
        self.destages.append((0, len(self.media), self.acked))
        self.settle(upto)

    def settle(self, upto):
        self.durable = max(self.durable, upto)
        for seq, _, _, durable in self.writes[self.durable:]:
            if not durable:
                break
            self.durable = seq

    def journal(self):
        """The journal as hddmodel-crash.c writes it, and the bytes it covers."""
        doubt = self.writes[self.durable:]
        ranges = sorted({i for _, off, d, _ in doubt for i in range(off, off + len(d))})
        before = bytearray(SECTOR * SECTORS)
        for _, off, d, _ in self.writes[:self.durable]:
            before[off:off + len(d)] = d
        runs = []
        for i in ranges:
            if runs and runs[-1][0] + len(runs[-1][1]) == i:
                runs[-1][1].append(before[i])
            else:
                runs.append((i, bytearray([before[i]])))
        blob = bytearray()
        head = {"format": "platter-crash-journal", "version": 1, "node": "t", "clock_ns": 5,
                "sector_bytes": SECTOR, "acked": self.acked, "durable_seq": self.durable,
                "complete": True, "gave_up": "", "writes": [], "before": [],
                "destages": [list(d) for d in self.destages if d[2] > self.durable]}
        for seq, off, d, durable in doubt:
            head["writes"].append([seq, off, len(d), int(durable), len(blob)])
            blob += d
        for off, d in runs:
            head["before"].append([off, len(d), len(blob)])
            blob += d
        head["data_bytes"] = len(blob)
        return json.dumps(head).encode() + b"\n" + bytes(blob), runs


step = st.one_of(
    st.tuples(st.just("w"), st.integers(0, SECTORS - 1), st.integers(1, 4), st.booleans(),
              st.integers(0, 255)),
    st.tuples(st.just("d"), st.integers(0, SECTORS - 1), st.integers(1, 8)),
    st.tuples(st.just("f")), st.tuples(st.just("F")))


def run_steps(steps):
    d = Drive()
    for s in steps:
        if s[0] == "w":
            _, sector, count, durable, fill = s
            d.write(sector, min(count, SECTORS - sector), durable and fill % 3 == 0, fill)
        elif s[0] == "d":
            d.destage(s[1], min(s[2], SECTORS - s[1]))
        elif s[0] == "f":
            d.flush_taken()
        else:
            d.flush_done()
    return d


def load(raw):
    with tempfile.NamedTemporaryFile() as f:
        f.write(raw)
        f.flush()
        return crashstates.read(f.name)


def at(image, runs):
    return [(off, bytes(image[off:off + len(d)])) for off, d in runs]


@SETTINGS
@given(st.lists(step, max_size=40))
def check_states_rebuild_the_drive(steps):
    d = run_steps(steps)
    raw, runs = d.journal()
    j = load(raw)
    assert crashstates.model_image(j) == at(d.media, runs), "the model's order"
    everything = bytearray(SECTOR * SECTORS)
    for _, off, data, _ in d.writes:
        everything[off:off + len(data)] = data
    seqs = frozenset(w.seq for w in j.in_doubt)
    assert crashstates.chosen_image(j, seqs) == at(everything, runs), "all persisted"
    only_durable = bytearray(SECTOR * SECTORS)
    for seq, off, data, durable in d.writes:
        if seq <= d.durable or durable:
            only_durable[off:off + len(data)] = data
    assert crashstates.chosen_image(j, frozenset()) == at(only_durable, runs), "none"


@SETTINGS
@given(st.lists(step, max_size=40), st.integers(1, 64), st.integers(0, 2**64 - 1))
def check_plan(steps, n, seed):
    j = load(run_steps(steps).journal()[0])
    a, b = crashstates.plan(j, n, seed), crashstates.plan(j, n, seed)
    assert len(a) == n or (a and a[0][0] == "exhaustive" and len(a) == 1 << len(j.in_doubt))
    assert [(s, w) for s, w, _ in a] == [(s, w) for s, w, _ in b]
    assert all(x() == y() for (_, _, x), (_, _, y) in zip(a, b)), "a state replays the same"
    names = {s for s, _, _ in a}
    assert names <= set(crashstates.STRATEGY_NAMES), names
    k = len(j.in_doubt)
    if (1 << k) <= n:
        assert names == {"exhaustive"} and len({crashstates.digest(x()) for _, _, x in a}) \
            <= 1 << k
    else:
        assert "exhaustive" not in names
        if n >= 4:
            assert {"completion-prefix", "destage-prefix", "one-missing"} <= names, names


def check_write_back_then_fua():
    """A write-back, then a FUA write over the same bytes: the media holds
    the FUA write's data, so the replay must put the write-back first (it
    came after write 1 and before write 2)."""
    d = run_steps([("w", 0, 2, False, 1), ("d", 0, 2), ("w", 0, 1, True, 3)])
    raw, runs = d.journal()
    j = load(raw)
    assert [w.durable for w in j.writes] == [False, True]
    assert crashstates.model_image(j) == at(d.media, runs)


def check_one_missing_differs():
    """A write in doubt that nothing later covers: dropping it alone changes
    the image, and prefix 0 leaves only the durable point."""
    d = Drive()
    d.write(0, 1, False, 7)
    d.write(2, 1, False, 9)
    d.write(4, 1, False, 11)
    j = load(d.journal()[0])
    states = crashstates.plan(j, 4, 1)   # 2^3 > 4: strategies
    names = [s for s, _, _ in states]
    assert names[0] == "completion-prefix", names
    full = crashstates.chosen_image(j, frozenset({1, 2, 3}))
    for s, what, build in states:
        if s == "one-missing":
            assert build() != full, what


@SETTINGS
@given(st.lists(step, min_size=1, max_size=20), st.data())
def check_bad_files(steps, data):
    raw = run_steps(steps).journal()[0]
    how = data.draw(st.sampled_from(["cut", "byte", "json"]))
    if how == "cut":
        raw = raw[:data.draw(st.integers(0, max(len(raw) - 1, 0)))]
    elif how == "byte":
        i = data.draw(st.integers(0, len(raw) - 1))
        raw = raw[:i] + bytes([raw[i] ^ data.draw(st.integers(1, 255))]) + raw[i + 1:]
    else:
        nl = raw.index(b"\n")
        head = json.loads(raw[:nl])
        key = data.draw(st.sampled_from(sorted(head)))
        head[key] = data.draw(st.one_of(st.none(), st.integers(-2, 2**65), st.text(max_size=3),
                                        st.lists(st.integers(-1, 3), max_size=3)))
        raw = json.dumps(head).encode() + raw[nl:]
    try:
        load(raw)
    except crashstates.BadJournal:
        pass


def check_refusals():
    raw, _ = run_steps([("w", 0, 2, False, 5), ("w", 1, 1, False, 6)]).journal()
    nl = raw.index(b"\n")
    head = json.loads(raw[:nl])
    for change, words in (
            (lambda h: h.update(version=2), "version 2"),
            (lambda h: h.update(format="x"), "not a platter-crash-journal"),
            (lambda h: h.update(data_bytes=h["data_bytes"] + 1), "data bytes"),
            (lambda h: h.update(before=[]), "not under `before`"),
            (lambda h: h["writes"].reverse(), "not after"),
            (lambda h: h.update(before=h["before"] + [[4096, 16, 0]]),
             "no journalled write covers")):
        h = json.loads(json.dumps(head))
        change(h)
        try:
            load(json.dumps(h).encode() + raw[nl:])
        except crashstates.BadJournal as e:
            assert words in str(e), (words, str(e))
        else:
            raise AssertionError(f"accepted: {words}")


tap.run([("the journal rebuilds the simulated drive", check_states_rebuild_the_drive),
         ("plans replay and draw what they say", check_plan),
         ("a write-back, then FUA over it", check_write_back_then_fua),
         ("one write missing changes the image", check_one_missing_differs),
         ("altered journal files: BadJournal only", check_bad_files),
         ("refusals name what is wrong", check_refusals)])
