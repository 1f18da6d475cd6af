"""A drive profile from a DIXtrac extraction, as DiskSim 4.0 ships them.

DIXtrac (Schindler and Ganger, CMU-CS-99-176) measures a SCSI drive and
writes DiskSim's parameter files: NAME.diskspecs (the buffer, command
overheads by kind), the .model it names (geometry, rotation, the seek
model) and the .seek curve that names (seek time by distance).  This
module reads the three and gives the profile keys they determine, each
with the file and field it came from (`[dx]` in the profile), so a profile
of DiskSim's drives, or of a user's own extraction, is made by a program
and not by hand.

DiskSim's parameter syntax (its libparam): `TYPE NAME { key = value, ... }`,
a value being a number, a word, a block `TYPE { ... }`, a list `[ v, ... ]`
or `source FILE` (another parameter file, read in its place); `#` starts a
comment.  Keys are
phrases with spaces and parentheses ("Rotation speed (in rpms)").

Keys the files do not determine (form factor, the host interface, and its
rate where DIXtrac timed no host transfer) are the user's:
`scripts/profile-import` takes them as options.
What the files say that no profile key can hold is listed with the
profile (`not_expressible`), never dropped silently.
"""
import decimal
import fractions
import os
import re
import stat

# parameter files and seek curves are a few hundred KiB at most
FILE_MAX_BYTES = 4 << 20
DEPTH_MAX = 32
BLOCK_BYTES = 512
# a 30 TB drive has about 500,000 cylinders
CYLINDERS_MAX = 4_000_000


class ImportError_(Exception):
    """One line naming the file (and line) and what is wrong."""


def read_text(path, what):
    try:
        st = os.stat(path)
    except OSError as e:
        raise ImportError_(f"{path}: cannot read the {what}: {e.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        raise ImportError_(f"{path}: the {what} is not a regular file")
    if st.st_size > FILE_MAX_BYTES:
        raise ImportError_(f"{path}: the {what} is {st.st_size} bytes, more than "
                           f"{FILE_MAX_BYTES} (a DIXtrac file is far smaller)")
    try:
        with open(path, "rb") as f:
            data = f.read(FILE_MAX_BYTES + 1)
        return data.decode("ascii")
    except UnicodeDecodeError:
        raise ImportError_(f"{path}: the {what} is not ASCII text") from None
    except OSError as e:
        raise ImportError_(f"{path}: cannot read the {what}: {e.strerror}") from None


_WORD = r"[^\s{}\[\],=]+"
_TOKEN = re.compile(rf"\s*(?:(?P<punct>[{{}}\[\],=])|(?P<word>{_WORD}(?:[ \t]+{_WORD})*))")


def _tokens(text, path):
    """(kind, text, line): kind 'p' for punctuation, 'w' for a word run (a
    key or value may hold spaces: "Number of data surfaces")."""
    text = re.sub(r"#[^\n]*", "", text)    # a comment runs to the end of its line
    out, pos, line = [], 0, 1
    while True:
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            rest = text[pos:]
            if rest.strip():
                raise ImportError_(f"{path}, line {line}: cannot read {rest.strip()[:30]!r}")
            return out
        line += text.count("\n", pos, m.start(m.lastgroup))
        kind = "p" if m.group("punct") else "w"
        out.append((kind, m.group(m.lastgroup), line))
        line += text.count("\n", m.start(m.lastgroup), m.end())
        pos = m.end()


class _Parser:
    def __init__(self, tokens, path, depth):
        self.t, self.i, self.path, self.depth = tokens, 0, path, depth

    def peek(self):
        if self.i < len(self.t):
            return self.t[self.i]
        return ("end", "", self.t[-1][2] if self.t else 1)

    def take(self, kind=None, text=None):
        tok = self.peek()
        if tok[0] == "end" or (kind and tok[0] != kind) or (text and tok[1] != text):
            want = repr(text) if text else ("a word" if kind == "w" else "more")
            got = "the end of the file" if tok[0] == "end" else repr(tok[1][:30])
            raise ImportError_(f"{self.path}, line {tok[2]}: expected {want}, found {got}")
        self.i += 1
        return tok

    def value(self, depth):
        if depth > DEPTH_MAX:
            raise ImportError_(f"{self.path}, line {self.peek()[2]}: nested more than "
                               f"{DEPTH_MAX} deep")
        kind, text, line = self.peek()
        if kind == "p" and text == "[":
            self.take()
            items = []
            while self.peek()[1] != "]":
                items.append(self.value(depth + 1))
                if self.peek()[1] == ",":
                    self.take()
                elif self.peek()[1] != "]":
                    self.take("p", "]")
            self.take("p", "]")
            return items
        if kind == "w":
            self.take()
            if self.peek()[1] == "{":
                return self.block(text, depth + 1)
            return text
        self.take("w")

    def block(self, type_, depth):
        """TYPE [NAME] { key = value, ... } after TYPE; the '{' is next."""
        self.take("p", "{")
        fields = {}
        while self.peek()[1] != "}":
            key = self.take("w")[1]
            self.take("p", "=")
            if key in fields:
                raise ImportError_(f"{self.path}, line {self.peek()[2]}: '{key}' "
                                   "given twice")
            fields[key] = self.value(depth)
            if self.peek()[1] == ",":
                self.take()
            elif self.peek()[1] != "}":
                self.take("p", "}")
        self.take("p", "}")
        return {"type": type_, "fields": fields}


def parse(text, path):
    """The first top-level block of a DiskSim parameter file: {type, name,
    fields}."""
    toks = _tokens(text, path)
    p = _Parser(toks, path, 0)
    head = p.take("w")[1].split()
    if len(head) != 2:
        raise ImportError_(f"{path}, line 1: a parameter file starts 'TYPE NAME {{', "
                           f"not {' '.join(head)[:40]!r}")
    blk = p.block(head[0], 1)
    blk["name"] = head[1]
    return blk


def _sibling(base_path, ref, what):
    """A file a parameter file names: in the same directory, by name only
    (a DIXtrac set is one directory; a name with a path is refused)."""
    ref = ref.strip()
    if not ref or "/" in ref or ref in (".", ".."):
        raise ImportError_(f"{base_path}: the {what} '{ref[:60]}' is not a file name in "
                           "the same directory")
    return os.path.join(os.path.dirname(base_path), ref)


def _num(fields, key, path, lo=None, integer=False, hi=10 ** 15):
    if key not in fields:
        raise ImportError_(f"{path}: no '{key}'")
    v = fields[key]
    try:
        d = decimal.Decimal(v) if isinstance(v, str) else None
    except decimal.InvalidOperation:
        d = None
    if d is None or not d.is_finite() or (integer and d != d.to_integral_value()):
        raise ImportError_(f"{path}: '{key}' is {str(v)[:40]!r}, not "
                           f"{'an integer' if integer else 'a number'}")
    if lo is not None and d < lo:
        raise ImportError_(f"{path}: '{key}' is {v}, below {lo}")
    if abs(d) > hi:
        raise ImportError_(f"{path}: '{key}' is {v[:30]}, above {hi}")
    return int(d) if integer else d


def read_seek(path):
    """[(distance_cylinders, ms)] from a DIXtrac .seek file."""
    text = read_text(path, "seek curve")
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines or not lines[0].startswith("Seek distances measured:"):
        raise ImportError_(f"{path}, line 1: a .seek file starts 'Seek distances measured: N'")
    try:
        n = int(lines[0].split(":", 1)[1])
    except ValueError:
        raise ImportError_(f"{path}, line 1: the count is not an integer") from None
    pts = []
    for i, ln in enumerate(lines[1:], 2):
        f = [x for x in re.split(r"[,\s]+", ln.strip()) if x]
        try:
            d, t = int(f[0]), decimal.Decimal(f[1])
            if len(f) != 2 or not t.is_finite():
                raise ValueError
        except (ValueError, IndexError, decimal.InvalidOperation):
            raise ImportError_(f"{path}, line {i}: not 'DISTANCE, MS'") from None
        if d < 1 or t <= 0 or t > 1000:
            raise ImportError_(f"{path}, line {i}: distance {d} or time {t} ms out of range")
        if pts and d <= pts[-1][0]:
            raise ImportError_(f"{path}, line {i}: distance {d} is not above the previous")
        pts.append((d, t))
    if len(pts) != n:
        raise ImportError_(f"{path}: {len(pts)} points, the header says {n}")
    if pts[0][0] != 1:
        raise ImportError_(f"{path}: the curve starts at distance {pts[0][0]}, not 1")
    return pts


def hpl_curve(mech, path, cylinders):
    """DiskSim's 'hplplus10' seek type (diskmodel/mech_g1_seektime.c): the
    first ten seek times as measured, then the HPL equation: V2 + V3 sqrt(d)
    below V1 cylinders, V4 + V5 d from there."""
    ten = mech.get("First ten seek times")
    hpl = mech.get("HPL seek equation values")
    if not isinstance(ten, list) or len(ten) != 10 or not isinstance(hpl, list) or len(hpl) != 6:
        raise ImportError_(f"{path}: seek type hplplus10 needs 'First ten seek times' (10) "
                           "and 'HPL seek equation values' (6)")
    vals = {"ten": ten, "hpl": hpl}
    nums = []
    for k, lst in vals.items():
        for x in lst:
            nums.append(_num({"v": x}, "v", f"{path} ({k})"))
    ten_ms, (v1, v2, v3, v4, v5, _) = nums[:10], nums[10:]
    pts = [(d, ten_ms[d - 1]) for d in range(1, 11)]
    # the square-root part point by point (at most V1 of them), the linear
    # part by its two ends (seek_average is linear between points)
    sqrt_end = int(min(max(v1, 11), cylinders))
    if sqrt_end > 100_000:
        raise ImportError_(f"{path}: HPL seek equation V1 = {v1}: more than 100000 "
                           "cylinders of square-root seek")
    for d in range(11, sqrt_end):
        pts.append((d, v2 + v3 * decimal.Decimal(d).sqrt()))
    for d in sorted({max(sqrt_end, 11), cylinders - 1}):
        if d >= 11 and d < cylinders and d > pts[-1][0]:
            pts.append((d, v4 + v5 * d))
    return pts


def _sum_range(a, b, power):
    """sum of d**power for d = a..b (power 0, 1 or 2)."""
    def upto(n):
        return (n, n * (n + 1) // 2, n * (n + 1) * (2 * n + 1) // 6)[power] if n > 0 else 0
    return upto(b) - upto(a - 1)


def seek_average(pts, cylinders):
    """The data-sheet average seek (docs/profiles.md): over every distance
    1..cylinders-1, weighted by how many start cylinders have it
    (cylinders - d), the curve linear between its points and held at its
    last point beyond it.  Exact (sums in closed form per segment): a
    drive of a million cylinders costs no more than one of ten."""
    n = cylinders
    total = fractions.Fraction(0)
    pts = [(d, fractions.Fraction(t)) for d, t in pts if d < n]
    # (first d, last d, t at d = c + slope * d) per piece
    pieces = []
    for (d0, t0), (d1, t1) in zip(pts, pts[1:]):
        slope = (t1 - t0) / (d1 - d0)
        pieces.append((d0, d1 - 1, t0 - slope * d0, slope))
    last_d, last_t = pts[-1]
    pieces.append((last_d, n - 1, last_t, fractions.Fraction(0)))
    for a, b, c, slope in pieces:
        if a > b:
            continue
        s0, s1, s2 = (_sum_range(a, b, k) for k in (0, 1, 2))
        # sum of (c + slope d)(n - d)
        total += c * n * s0 - c * s1 + slope * n * s1 - slope * s2
    avg = total / (n * (n - 1) // 2)
    return decimal.Decimal(avg.numerator) / decimal.Decimal(avg.denominator)


def _fmt(d, places=None):
    """A decimal as a profile writes it: no exponent, no trailing zeros."""
    if places is not None:
        d = d.quantize(decimal.Decimal(1).scaleb(-places))
    s = format(d, "f")
    return s.rstrip("0").rstrip(".") if "." in s else s


OVERHEADS = (
    ("read_hit_overhead_us", "Read hit over. after read"),
    ("read_hit_after_write_overhead_us", "Read hit over. after write"),
    ("read_miss_overhead_us", "Read miss over. after read"),
    ("read_miss_after_write_overhead_us", "Read miss over. after write"),
    ("write_hit_overhead_us", "Write hit over. after read"),
    ("write_hit_after_write_overhead_us", "Write hit over. after write"),
    ("write_miss_overhead_us", "Write miss over. after read"),
    ("write_miss_after_write_overhead_us", "Write miss over. after write"),
)


# DiskSim's sparing schemes (disksim_diskmap.h) by what "Number of
# spares" counts in a zone: spare tracks, sectors per cylinder, per track,
# per range of cylinders, or sectors of the whole zone
SPARE_TRACKS, PER_CYLINDER, PER_TRACK, PER_RANGE, PER_ZONE = range(5)
SPARING = {0: None, 1: SPARE_TRACKS, 2: PER_CYLINDER, 3: PER_TRACK,
           4: PER_CYLINDER, 5: PER_CYLINDER, 6: PER_CYLINDER, 7: PER_ZONE,
           8: PER_RANGE, 9: PER_ZONE, 10: PER_ZONE}


def _sectors(x, path, what):
    """A skew or an offset in whole sectors (DIXtrac writes some as 14.000000)."""
    v = _num({"v": x}, "v", f"{path} ({what})", lo=0, hi=1 << 20)
    return int(v.to_integral_value(rounding=decimal.ROUND_HALF_EVEN))


def zone_rows(put, lost, lf, zones, heads, blocks, path, mname):
    """A `zone` row per DIXtrac zone entry: cylinders, sectors per track,
    skews, the empty space at its front, its spares by the layout's sparing
    scheme (spares at each track's end where the scheme puts them there,
    the rest at the zone's end), where its first block sits."""
    # absent, DiskSim's defaults: no sparing, ranges of one cylinder
    scheme = _num(lf, "Sparing scheme used", path, lo=0, integer=True, hi=10) \
        if "Sparing scheme used" in lf else 0
    rng = _num(lf, "Rangesize for sparing", path, lo=1, integer=True, hi=1 << 24) \
        if "Rangesize for sparing" in lf else 1
    kind = SPARING[scheme]
    held = 0
    slips = 0
    for i, z in enumerate(zones):
        zf = z["fields"]
        c0 = _num(zf, "First cylinder number", path, lo=0, integer=True, hi=CYLINDERS_MAX)
        c1 = _num(zf, "Last cylinder number", path, lo=c0, integer=True, hi=CYLINDERS_MAX)
        spt = _num(zf, "Blocks per track", path, lo=1, integer=True, hi=1 << 20)
        front = _num(zf, "Empty space at zone front", path, lo=0, integer=True, hi=1 << 32) \
            if "Empty space at zone front" in zf else 0
        sp = _num(zf, "Number of spares", path, lo=0, integer=True, hi=1 << 32) \
            if "Number of spares" in zf else 0
        cyls = c1 - c0 + 1
        track_sp = sp if kind == PER_TRACK else 0
        zone_sp = {None: 0, SPARE_TRACKS: sp * spt, PER_CYLINDER: sp * cyls,
                   PER_TRACK: 0, PER_RANGE: sp * -(-cyls // rng),
                   PER_ZONE: sp}[kind]
        tskew = _sectors(zf.get("Skew for track switch"), path, "Skew for track switch")
        cskew = _sectors(zf.get("Skew for cylinder switch"), path, "Skew for cylinder switch")
        first = _sectors(zf.get("Offset of first block", "0"), path, "Offset of first block")
        put("zone", f"{c0} {c1} {spt} {tskew % spt} {cskew % spt} {front} {zone_sp} "
            f"{track_sp} {first % spt}", f"{mname} zone {i}")
        held += cyls * heads * (spt - track_sp) - front - zone_sp
        slips += len(zf.get("slips") or [])
    if kind in (PER_CYLINDER, PER_RANGE):
        lost.append(f"spares per {'cylinder' if kind == PER_CYLINDER else 'range'} "
                    f"(sparing scheme {scheme}, {mname}): at each zone's end in the model")
    if slips:
        lost.append(f"{slips} slipped sectors ({mname}): the model has no slips, so the "
                    "LBAs after each are a sector off")
    if held != blocks:
        lost.append(f"the zones hold {held - blocks:+d} sectors beyond Block count "
                    f"({mname}): the model's LBAs end that far short of the last zone's end")


def extract(diskspecs_path):
    """(keys, not_expressible): keys [(key, value text, source)] in profile
    order, from a .diskspecs and the .model and .seek it names."""
    specs = parse(read_text(diskspecs_path, "diskspecs file"), diskspecs_path)
    sf = specs["fields"]
    sname = os.path.basename(diskspecs_path)
    model_ref = sf.get("Model")
    if not isinstance(model_ref, str) or not model_ref.startswith("source "):
        raise ImportError_(f"{diskspecs_path}: 'Model' is not 'source FILE.model'")
    model_path = _sibling(diskspecs_path, model_ref[len("source "):], "model file")
    model = parse(read_text(model_path, "model file"), model_path)
    mf = model["fields"]
    mname = os.path.basename(model_path)
    keys, lost = [], []

    def put(key, value, src):
        keys.append((key, value, src))

    # bounds far past any drive: a hostile file cannot make the import
    # walk a billion cylinders
    blocks = _num(mf, "Block count", model_path, lo=1, integer=True, hi=1 << 48)
    heads = _num(mf, "Number of data surfaces", model_path, lo=1, integer=True, hi=256)
    cylinders = _num(mf, "Number of cylinders", model_path, lo=2, integer=True,
                     hi=CYLINDERS_MAX)
    layout = mf.get("Layout Model")
    mech = mf.get("Mechanical Model")
    if not isinstance(layout, dict) or not isinstance(mech, dict):
        raise ImportError_(f"{model_path}: no 'Layout Model' or 'Mechanical Model' block")
    zones = layout["fields"].get("Zones")
    if not isinstance(zones, list) or not zones or \
            not all(isinstance(z, dict) for z in zones):
        raise ImportError_(f"{model_path}: 'Zones' is not a list of zone blocks")
    spt = [_num(z["fields"], "Blocks per track", model_path, lo=1, integer=True)
           for z in zones]
    mech_f = mech["fields"]
    rpm = _num(mech_f, "Rotation speed (in rpms)", model_path, lo=1)
    put("capacity_bytes", str(blocks * BLOCK_BYTES),
        f"{mname} Block count = {blocks} x {BLOCK_BYTES}")
    put("rpm", _fmt(rpm), f"{mname} Rotation speed (in rpms)")
    put("heads", str(heads), f"{mname} Number of data surfaces")
    put("zones", str(len(zones)), f"{mname}: {len(zones)} zone entries")
    put("outer_sectors_per_track", str(spt[0]), f"{mname} zone 0 Blocks per track")
    put("inner_sectors_per_track", str(spt[-1]),
        f"{mname} zone {len(zones) - 1} Blocks per track")
    seek_type = mech_f.get("Seek type")
    curve_ref = mech_f.get("Full seek curve")
    if isinstance(curve_ref, str) and curve_ref.strip() and seek_type != "hplplus10":
        seek_path = _sibling(model_path, curve_ref, "seek curve")
        pts = read_seek(seek_path)
        src = os.path.basename(seek_path)
        how = f"linear between its {len(pts)} points"
    elif seek_type == "hplplus10":
        pts = hpl_curve(mech_f, model_path, cylinders)
        src = f"{mname} (hplplus10: First ten seek times, HPL seek equation values)"
        how = "DiskSim's hplplus10 formula"
    else:
        raise ImportError_(f"{model_path}: no 'Full seek curve' file and seek type "
                           f"{str(seek_type)[:30]!r} is not hplplus10")
    longest = max(d for d, _ in pts if d < cylinders) if any(d < cylinders for d, _ in pts) \
        else pts[0][0]
    full = dict(pts)[longest]
    put("seek_track_to_track_ms", _fmt(pts[0][1], 3), f"{src} seek time at distance 1")
    put("seek_full_stroke_ms", _fmt(full, 3),
        f"{src} seek time at distance {longest}, the longest measured")
    put("seek_avg_ms", _fmt(seek_average(pts, cylinders), 3),
        f"{src}: weighted over all seek distances, {how}, over {cylinders} cylinders")
    nseg = _num(sf, "Number of buffer segments", diskspecs_path, lo=1, integer=True)
    segblk = _num(sf, "Segment size (in blks)", diskspecs_path, lo=1, integer=True)
    sep = _num(sf, "Use separate write segment", diskspecs_path, lo=0, integer=True)
    wseg = _num(sf, "Maximum number of write segments", diskspecs_path, lo=1, integer=True)
    fwl = _num(sf, "Fast write level", diskspecs_path, lo=0, integer=True)
    if sep and nseg < 2:
        raise ImportError_(f"{diskspecs_path}: a separate write segment needs 2 or more "
                           "buffer segments")
    cache = nseg * segblk * BLOCK_BYTES
    put("cache_mb", _fmt(decimal.Decimal(cache) / (1 << 20)),
        f"{sname} {nseg} segments x {segblk} blocks = {cache} bytes, exactly")
    put("read_segments", str(nseg - (1 if sep else 0)),
        f"{sname} Number of buffer segments = {nseg}" +
        (", less the one 'Use separate write segment = 1' keeps for writes" if sep else ""))
    put("read_segment_kb", _fmt(decimal.Decimal(segblk * BLOCK_BYTES) / 1024),
        f"{sname} Segment size {segblk} blocks")
    put("cache_segments", str(wseg), f"{sname} Maximum number of write segments")
    if fwl == 0:
        put("write_cache", "no", f"{sname} Fast write level = 0: a write completes "
            "once on the media")
    else:
        # a fast write is reported at once and keeps the head until its
        # media write is done (DiskSim's disk_release_hda,
        # disksim_diskctlr.c): the data goes home as soon as it can
        put("idle_destage_delay_ms", "0", f"{sname} Fast write level = {fwl}: DiskSim "
            "writes a reported write to the media at once (disk_release_hda)")
    bulk = _num(sf, "Bulk sector transfer time", diskspecs_path, lo=0, hi=1000) \
        if "Bulk sector transfer time" in sf else 0
    if bulk:
        # DiskSim moves each block between host and buffer in the larger of
        # the bus's block time and this one (disk_get_blktranstime): the
        # drive's own host transfer, slower than any SCSI bus of its day,
        # and what DIXtrac's overheads were measured beside
        put("interface_mb_s", _fmt(decimal.Decimal(BLOCK_BYTES) / (bulk * 1000), 4),
            f"{sname} Bulk sector transfer time = {_fmt(bulk)} ms a block: "
            f"{BLOCK_BYTES} B in that time, the drive's host transfer (DiskSim "
            "takes it where it is slower than the bus)")
    sched = sf.get("Scheduler")
    if isinstance(sched, dict):
        pol = _num(sched["fields"], "Scheduling policy", diskspecs_path, lo=1, integer=True,
                   hi=28)
        # DiskSim's ioqueue numbers (disksim_ioqueue.h): 1 FCFS; 8 and 24
        # to 26 shortest positioning time first
        ours = {1: "fifo", 8: "sptf", 24: "sptf", 25: "sptf", 26: "sptf"}.get(pol)
        if ours:
            put("queue_policy", ours, f"{sname} Scheduler: Scheduling policy = {pol} "
                f"({'FCFS' if pol == 1 else 'SPTF'}, as DiskSim ran the drive)")
        else:
            lost.append(f"DiskSim scheduling policy {pol} ({sname}): the model has fifo "
                        "and sptf")
    if "Buffer continuous read" in sf:
        # DiskSim's read-ahead kinds (disksim_disk.h, disk_cont_read_t) and
        # where disk_buffer_get_max_readahead() stops them
        cont = _num(sf, "Buffer continuous read", diskspecs_path, lo=0, integer=True, hi=4)
        how = {0: ("off", "no read-ahead"), 1: ("track", "to the end of the track"),
               3: ("segment", "to the end of the segment"),
               4: ("track", "DEC's scheme: to the end of the track the next block is on")}
        if cont in how:
            put("read_ahead", how[cont][0],
                f"{sname} Buffer continuous read = {cont}: {how[cont][1]}")
        if cont == 2:
            lost.append(f"read-ahead to the end of the cylinder ({sname}): the model reads "
                        "ahead to the track's end or a segment's")
        if cont == 4:
            lost.append(f"DEC's read-ahead goes a track further where its segment began on "
                        f"an earlier track ({sname}); the model stops at the track's end")
    hwm = _num(sf, "High (read) water mark", diskspecs_path, lo=0, hi=1) \
        if "High (read) water mark" in sf else 0
    by_req = _num(sf, "Set watermark by reqsize", diskspecs_path, lo=0, integer=True, hi=1) \
        if "Set watermark by reqsize" in sf else 1
    if hwm and by_req:
        put("read_reconnect_pct", _fmt((hwm * 100).to_integral_value()),
            f"{sname} High (read) water mark = {_fmt(hwm)} of the request (Set watermark "
            "by reqsize = 1): the buffer full ratio")
    elif hwm:
        lost.append(f"a read water mark of {_fmt(hwm)} of the segment ({sname}): the "
                    "model's reconnect ratio is of the request")
    for key, field in OVERHEADS:
        ms = _num(sf, field, diskspecs_path, lo=0)
        put(key, _fmt(ms * 1000), f"{sname} {field} = {_fmt(ms)} ms")
    for key, field in (("read_completion_overhead_us", "Read completion overhead"),
                       ("write_completion_overhead_us", "Write completion overhead")):
        ms = _num(sf, field, diskspecs_path, lo=0) if field in sf else 0
        if ms:
            put(key, _fmt(ms * 1000), f"{sname} {field} = {_fmt(ms)} ms")
    hs = _num(mech_f, "Head switch time", model_path, lo=0, hi=10)
    ws = _num(mech_f, "Add. write settling delay", model_path, lo=-10, hi=10)
    put("head_switch_ms", _fmt(hs, 6), f"{mname} Head switch time")
    put("write_settle_ms", _fmt(max(ws, decimal.Decimal(0)), 6),
        f"{mname} Add. write settling delay" + (f" = {_fmt(ws)}, taken as 0" if ws < 0 else ""))
    if ws < 0:
        lost.append(f"a negative added write settle, {_fmt(ws)} ms ({mname}): a write "
                    "may start sooner after a switch than a read; the model's settle is 0 or more")
    zone_rows(put, lost, layout["fields"], zones, heads, blocks, model_path, mname)
    for d, t in pts:
        if d < cylinders:
            put("seek", f"{d} {_fmt(t, 6)}", f"{src} seek time at distance {d}")
    return keys, lost


def profile_text(diskspecs_path, given):
    """A whole profile: `given` [(key, value, comment)] first (the keys the
    files do not determine), then every extracted key with its source."""
    keys, lost = extract(diskspecs_path)
    ours = {k for k, _, _ in keys}
    for k, v, _ in given:
        if k in ours and k != "interface_mb_s":
            raise ImportError_(f"{k}: determined by the DIXtrac files, not an option")
    link = [v for k, v, _ in given if k == "interface_mb_s"]
    if link and "interface_mb_s" in ours:
        # a block moves at the slower of the link and the drive's own
        # transfer (DiskSim's disk_get_blktranstime): the link given wins
        # only where it is the slower
        try:
            link_rate = decimal.Decimal(link[0])
        except decimal.InvalidOperation:
            raise ImportError_(f"interface_mb_s '{link[0][:30]}' is not a number") from None
        ours_rate = next(decimal.Decimal(v) for k, v, _ in keys if k == "interface_mb_s")
        if link_rate < ours_rate:
            keys = [x for x in keys if x[0] != "interface_mb_s"]
        else:
            given = [x for x in given if x[0] != "interface_mb_s"]
    name = os.path.basename(diskspecs_path)
    out = [f"# A profile from the DIXtrac extraction {name} and the files it names",
           "# (scripts/profile-import).  [dx] marks a key taken from them, with the",
           "# file and field; every other key is derived by the rules in",
           "# hw-model/src/profile.c or takes its class default (--dump-profile says",
           "# which).  Nothing here is fitted.",
           "type = hdd"]
    for k, v, c in given + [(k, v, f"[dx] {src}") for k, v, src in keys]:
        out.append(f"{k} = {v}".ljust(33) + f" # {c}" if c else f"{k} = {v}")
    out.append("# Not expressible in a profile, from the same files:")
    out.extend(f"#   {x}" for x in lost)
    return "\n".join(out) + "\n"
