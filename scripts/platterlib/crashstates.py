"""Crash states: what else a drive with a volatile cache may have left on
its media at a power cut, built from the driver's crash journal
(hddmodel `crash-journal=FILE`, qemu-patches/files/block/hddmodel-crash.c).

The drive promises only that FUA writes, and writes completed before a
flush that completed, are on the media.  Of the other writes acknowledged
since that point (the journal's writes in doubt), any subset may have
reached the media, in any order; the model wrote its cache back in one
order, which is one state.  A state here is the media as of the durable
point (the journal's `before`), then the durable writes and a chosen
subset of the others, each over the older ones, in the order the drive
acknowledged them.  A write lands whole or not at all: torn writes are not
built.

States are drawn by named strategies (STRATEGIES), deterministically from
the cut's seed, so a state is replayed alone from (seed, N, index).  Each
state is an overlay over the journal's byte ranges; the cut image plus the
overlay is the state's image, and the same overlay twice is verified
once."""
import hashlib
import json
import os
from bisect import bisect_right

from .splitmix import MASK64, splitmix64

FORMAT = "platter-crash-journal"
VERSION = 1
# (name, what it draws)
STRATEGIES = (
    ("exhaustive", "every subset of the writes in doubt (when there are few enough)"),
    ("completion-prefix", "the first k writes in doubt in the order the drive acknowledged "
                          "them, as dm-log-writes replays a flush epoch"),
    ("destage-prefix", "the model's own write-backs, the first k of them"),
    ("one-missing", "every write in doubt but one"),
    ("random", "uniform random subsets, each write in with probability 1/2"),
)
STRATEGY_NAMES = tuple(n for n, _ in STRATEGIES)


class BadJournal(ValueError):
    pass


class Write:
    __slots__ = ("seq", "offset", "length", "durable", "data")

    def __init__(self, seq, offset, length, durable, data):
        self.seq, self.offset, self.length = seq, offset, length
        self.durable, self.data = durable, data


class Journal:
    """A parsed crash journal: writes (Write, in seq order), destages
    ((offset, length, after_seq), in the model's order), before
    ((offset, bytes) runs, sorted, apart)."""

    def __init__(self, head, writes, destages, before):
        self.head = head
        self.writes = writes
        self.destages = destages
        self.before = before
        self.complete = head["complete"]
        self.gave_up = head["gave_up"]

    @property
    def in_doubt(self):
        return [w for w in self.writes if not w.durable]

    def summary(self):
        return {"writes_in_doubt": len(self.in_doubt),
                "durable_writes": len(self.writes) - len(self.in_doubt),
                "destages": len(self.destages),
                "bytes_in_doubt": sum(len(d) for _, d in self.before),
                "complete": self.complete,
                **({"gave_up": self.gave_up} if not self.complete else {})}


def _uint(v):
    return type(v) is int and 0 <= v <= MASK64


def _bad(path, what):
    raise BadJournal(f"crash journal '{path}': {what}")


def read(path):
    """The journal at path, checked field by field; BadJournal says what
    is wrong with it."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        _bad(path, e.strerror)
    nl = raw.find(b"\n")
    if nl < 0:
        _bad(path, "no header line")
    try:
        head = json.loads(raw[:nl])
    except ValueError as e:
        _bad(path, f"header: {e}")
    data = raw[nl + 1:]
    if not isinstance(head, dict) or head.get("format") != FORMAT:
        _bad(path, f"not a {FORMAT} file")
    if head.get("version") != VERSION:
        _bad(path, f"version {head.get('version')!r:.20}: this platter reads {VERSION}")
    for k in ("clock_ns", "sector_bytes", "acked", "durable_seq", "data_bytes"):
        if not _uint(head.get(k)):
            _bad(path, f"{k}: {head.get(k)!r:.40} is not an unsigned integer")
    if type(head.get("complete")) is not bool or not isinstance(head.get("gave_up"), str):
        _bad(path, "complete/gave_up missing")
    if head["data_bytes"] != len(data):
        _bad(path, f"{len(data)} data bytes after the header, which says {head['data_bytes']}")
    sb = head["sector_bytes"]
    if not sb:
        _bad(path, "sector_bytes 0")

    def rows(key, width):
        v = head.get(key)
        if not isinstance(v, list) or not all(
                isinstance(r, list) and len(r) == width and all(map(_uint, r)) for r in v):
            _bad(path, f"{key}: not a list of {width} unsigned integers each")
        return v

    def blob(at, length, what):
        if at + length > len(data):
            _bad(path, f"{what}: data past the end of the file")
        return data[at:at + length]

    writes, last = [], head["durable_seq"]
    for seq, off, length, durable, at in rows("writes", 5):
        if seq <= last or seq > head["acked"]:
            _bad(path, f"write {seq}: not after {last} and at most acked {head['acked']}")
        if not length or off % sb or length % sb or durable > 1:
            _bad(path, f"write {seq}: offset {off}, length {length}, durable {durable}")
        writes.append(Write(seq, off, length, bool(durable), blob(at, length, f"write {seq}")))
        last = seq
    destages = []
    for off, length, after in rows("destages", 3):
        if after > head["acked"] or not length:
            _bad(path, f"destage at {off}: after write {after} of {head['acked']}")
        destages.append((off, length, after))
    before, end = [], -1
    for off, length, at in rows("before", 3):
        if off < end or not length:
            _bad(path, f"before: run at {off} overlaps the one before or is empty")
        before.append((off, blob(at, length, f"before at {off}")))
        end = off + length
    j = Journal(head, writes, destages, before)
    for w in writes:
        if not _covered(before, w.offset, w.length):
            _bad(path, f"write {w.seq} at {w.offset}+{w.length}: not under `before`")
    # `before` is the media under the writes in doubt, and nothing else
    # (the driver prunes the rest: a busy run would pile it up)
    extra = sum(len(d) for _, d in before) - _union_bytes(writes)
    if extra:
        _bad(path, f"`before` holds {extra} bytes no journalled write covers")
    return j


def _union_bytes(writes):
    total, end = 0, -1
    for off, length in sorted((w.offset, w.length) for w in writes):
        if off + length > end:
            total += off + length - max(off, end)
            end = off + length
    return total


def _covered(runs, off, length):
    """Do the runs cover [off, off+length)?"""
    starts = [o for o, _ in runs]
    pos, end = off, off + length
    i = max(bisect_right(starts, pos) - 1, 0)
    while pos < end and i < len(runs):
        o, d = runs[i]
        if o > pos:
            return False
        pos = max(pos, o + len(d))
        i += 1
    return pos >= end


class Image:
    """A state's bytes over the journal's ranges: `before`'s runs, painted."""

    def __init__(self, j):
        self.starts = [o for o, _ in j.before]
        self.runs = [(o, bytearray(d)) for o, d in j.before]

    def paint(self, off, data, lo=None, hi=None):
        """data (for [off, ...)) over the image, within [lo, hi) if given."""
        lo = off if lo is None else max(lo, off)
        hi = off + len(data) if hi is None else min(hi, off + len(data))
        i = max(bisect_right(self.starts, lo) - 1, 0)
        while i < len(self.runs) and self.runs[i][0] < hi:
            o, buf = self.runs[i]
            a, b = max(lo, o), min(hi, o + len(buf))
            if a < b:
                buf[a - o:b - o] = data[a - off:b - off]
            i += 1

    def overlay(self):
        return [(o, bytes(b)) for o, b in self.runs]


def chosen_image(j, chosen):
    """before, then the durable writes and those whose seq is in chosen."""
    img = Image(j)
    for w in j.writes:
        if w.durable or w.seq in chosen:
            img.paint(w.offset, w.data)
    return img.overlay()


def destage_image(j, k):
    """The model's order, up to its kth write-back: before, the durable
    writes as acknowledged, and the first k write-backs, each with the data
    of the newest write acknowledged before it."""
    img = Image(j)
    events = [((w.seq, 0), "w", w) for w in j.writes if w.durable] + \
             [((d[2], 1), "d", d) for d in j.destages[:k]]
    for _, kind, e in sorted(events, key=lambda x: x[0]):
        if kind == "w":
            img.paint(e.offset, e.data)
            continue
        off, length, after = e
        for w in j.writes:
            if w.seq > after:
                break
            img.paint(w.offset, w.data, off, off + length)
    return img.overlay()


def model_image(j):
    """The model's own state at the cut: what the cut image holds."""
    return destage_image(j, len(j.destages))


def read_image(path, overlay):
    """What the file at path holds where overlay's runs are."""
    out = []
    with open(path, "rb") as f:
        for off, d in overlay:
            f.seek(off)
            got = f.read(len(d))
            out.append((off, got + bytes(len(d) - len(got))))
    return out


def write_image(path, overlay):
    with open(path, "r+b") as f:
        for off, d in overlay:
            f.seek(off)
            f.write(d)


def digest(overlay):
    h = hashlib.sha256()
    for off, d in overlay:
        h.update(off.to_bytes(8, "little"))
        h.update(d)
    return h.hexdigest()




def _spread(total, count):
    """count of range(total), evenly spread, both ends in (one: the first,
    the state with the least of the writes in doubt)."""
    if count >= total:
        return list(range(total))
    if count == 1:
        return [0]
    return sorted({round(i * (total - 1) / (count - 1)) for i in range(count)})


def plan(j, n, seed):
    """n states of journal j, drawn from seed: a list of (strategy, what,
    build), build() giving the state's overlay.  The same (j, n, seed),
    the same list, so state i is replayed alone."""
    u = j.in_doubt
    seqs = [w.seq for w in u]
    states = []
    if len(u) < 63 and (1 << len(u)) <= n:
        for mask in range(1 << len(u)):
            chosen = frozenset(s for b, s in enumerate(seqs) if mask >> b & 1)
            states.append(("exhaustive", f"writes {_seqs(chosen)}",
                           lambda c=chosen: chosen_image(j, c)))
        return states
    quota = max(n // 4, 1)
    for m in _spread(len(u) + 1, quota):
        states.append(("completion-prefix", f"the first {m} of {len(u)} writes in doubt",
                       lambda m=m: chosen_image(j, frozenset(seqs[:m]))))
    for m in _spread(len(j.destages) + 1, quota):
        states.append(("destage-prefix", f"the model's first {m} of {len(j.destages)} "
                                         "write-backs", lambda m=m: destage_image(j, m)))
    for i in _spread(len(u), quota):
        states.append(("one-missing", f"all but write {seqs[i]}",
                       lambda i=i: chosen_image(j, frozenset(seqs[:i] + seqs[i + 1:]))))
    states = states[:n]
    x = seed ^ 0x6372617368   # "crash"
    while len(states) < n:
        chosen = set()
        for s in seqs:
            x = splitmix64(x)
            if x & 1:
                chosen.add(s)
        c = frozenset(chosen)
        states.append(("random", f"writes {_seqs(c)}", lambda c=c: chosen_image(j, c)))
    return states


def _seqs(s):
    s = sorted(s)
    if not s:
        return "none"
    text = ",".join(map(str, s))
    return text if len(text) <= 80 else f"{len(s)} of them, {text[:60]}..."
