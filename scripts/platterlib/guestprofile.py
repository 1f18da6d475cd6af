"""A deterministic profile of the guest kernel (run-guest --profile-guest).

QEMU's platter-pcprof plugin (qemu-patches/files/contrib/plugins) samples
each vCPU's program counter every PERIOD guest instructions and writes the
samples, counted per address, at exit.  Under icount the guest runs the
same instructions every time, so the samples are the same every run.  This
module names each address by the kernel's System.map and writes:

  profile.txt     perf-report style: overhead, samples, [k]/[u] symbol
  profile.json    the same, machine-readable (version 1)
  flamegraph.svg  the samples as a flame graph
  pcprof.txt      the plugin's samples as it wrote them

The samples carry a program counter and nothing else (no call stack), so
the flame graph has three levels: all, kernel or user, and the symbol.  A
symbol's width is its own samples, never those of what it called.

    python3 -m platterlib.guestprofile write --samples PCPROF --system-map MAP
            --out DIR [--title TEXT]    # the files above; a summary on stdout
"""
import argparse
import bisect
import html
import json
import os
import re
import shutil
import sys
import zlib

from . import cli

VERSION = 1
PERIOD_DEFAULT = 100003     # a prime: no loop whose length divides it aliases
PERIOD_MIN, PERIOD_MAX = 1000, 999999999999
# x86-64: the kernel lives in the upper half of the address space;
KERNEL_START = 0xff00000000000000   # (with 5-level paging, as the guest uses: its direct map starts at 0xff11...)
TEXT_TYPES = frozenset("tTwW")   # nm's types of code symbols
# (start, end) marker pairs of the kernel's code, where System.map has them
TEXT_RANGES = (("_stext", "_etext"), ("_text", "_etext"), ("_sinittext", "_einittext"))
MARKERS = frozenset(m for pair in TEXT_RANGES for m in pair)
USER = "[user]"
BOOT = "[firmware, boot code]"   # CPL 0 below the kernel's half
OUTSIDE = "[kernel, outside its text]"

FILES = ("profile.txt", "profile.json", "flamegraph.svg", "pcprof.txt")
RUN_DIR = "guest-profile"   # run-guest's default --profile-dir
REPORT_DIR = "profiles"     # a compare report's: profiles/CELL-ID/
ENV = "PLATTER_PROFILE_GUEST"


class Malformed(Exception):
    """A file that is not what it should be; the message names it and the line."""


def parse_period(text):
    """run-guest --profile-guest=N / compare --profile-guest=N: the period
    as an int, or ValueError with the sentence a user reads."""
    if not re.fullmatch(r"[0-9]+", text or ""):
        raise ValueError(f"'{text}': expected a whole number of guest instructions "
                         f"between samples, {PERIOD_MIN}..{PERIOD_MAX}")
    n = int(text)
    if not PERIOD_MIN <= n <= PERIOD_MAX:
        raise ValueError(f"'{text}': expected {PERIOD_MIN}..{PERIOD_MAX} guest instructions "
                         "between samples")
    return n


def read_samples(path):
    """The plugin's file (platter-pcprof v1) as {"period", "vcpus": [{"insns",
    "samples"}], "pcs": {(mode, pc): count}, "stacks": {(pc, ret, ...):
    count}}, mode "k" or "u" (the CPL); stacks (with the plugin's
    stacks=on) innermost first, for the samples in the kernel's half."""
    out = {"period": None, "vcpus": [], "pcs": {}, "stacks": {}}
    nvcpus = None
    with open(path, encoding="ascii", errors="replace") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines or lines[0] != "# platter-pcprof v1":
        raise Malformed(f"{path}: line 1: not a platter-pcprof v1 file")
    for n, line in enumerate(lines[1:], 2):
        w = line.split()
        try:
            if len(w) == 2 and w[0] == "period":
                out["period"] = int(w[1])
            elif len(w) == 2 and w[0] == "vcpus":
                nvcpus = int(w[1])
            elif len(w) == 6 and w[0] == "vcpu" and w[2] == "insns" and w[4] == "samples":
                if int(w[1]) != len(out["vcpus"]):
                    raise ValueError
                out["vcpus"].append({"insns": int(w[3]), "samples": int(w[5])})
            elif len(w) == 4 and w[0] == "pc" and re.fullmatch(r"[0-9a-f]{16}", w[1]) \
                    and w[2] in ("k", "u"):
                key = (w[2], int(w[1], 16))
                if key in out["pcs"] or int(w[3]) < 1:
                    raise ValueError
                out["pcs"][key] = int(w[3])
            elif len(w) >= 3 and w[0] == "stack" and \
                    all(re.fullmatch(r"[0-9a-f]{16}", x) for x in w[2:]):
                key = tuple(int(x, 16) for x in w[2:])
                if key in out["stacks"] or int(w[1]) < 1:
                    raise ValueError
                out["stacks"][key] = int(w[1])
            else:
                raise ValueError
        except ValueError:
            raise Malformed(f"{path}: line {n}: '{line[:60]}' is not a "
                            "period, vcpus, vcpu, pc or stack line") from None
    if out["period"] is None or nvcpus is None or nvcpus != len(out["vcpus"]):
        raise Malformed(f"{path}: no period, or not one vcpu line per vCPU")
    if sum(out["pcs"].values()) != sum(v["samples"] for v in out["vcpus"]):
        raise Malformed(f"{path}: the pc lines do not add up to the vCPUs' samples")
    kernel = sum(n for (mode, pc), n in out["pcs"].items() if mode == "k" and pc >= KERNEL_START)
    if out["stacks"] and sum(out["stacks"].values()) != kernel:
        raise Malformed(f"{path}: the stack lines do not add up to the kernel's samples")
    return out


class Symbols:
    """System.map's code symbols: an address to the name of the code it lies in."""

    def __init__(self, path):
        syms, marks = {}, {}
        with open(path, encoding="ascii", errors="replace") as f:
            for n, line in enumerate(f, 1):
                w = line.split()
                if len(w) != 3 or not re.fullmatch(r"[0-9a-fA-F]{1,16}", w[0]) or len(w[1]) != 1:
                    raise Malformed(f"{path}: line {n}: expected 'ADDRESS TYPE NAME' "
                                    f"(a System.map), got '{line.strip()[:60]}'")
                addr = int(w[0], 16)
                marks.setdefault(w[2], addr)
                if w[1] in TEXT_TYPES:
                    # one name per address, the same every time: code
                    # before a marker of where code starts, a global before
                    # a local, one without a leading '__' (__pfx_, section
                    # markers), then the first in byte order
                    key = (w[2] in MARKERS, w[1] not in "TW", w[2].startswith("__"), w[2])
                    if addr not in syms or key < syms[addr]:
                        syms[addr] = key
        if not syms:
            raise Malformed(f"{path}: no code symbols (types t, T, w, W): not a System.map")
        self.addrs = sorted(syms)
        self.names = [syms[a][-1] for a in self.addrs]
        self.ranges = sorted({(marks[a], marks[b]) for a, b in TEXT_RANGES
                              if a in marks and b in marks and marks[a] < marks[b]})

    def name(self, pc, mode="k"):
        """The symbol pc lies in: [user] at CPL 3; below the kernel's half
        at CPL 0, the firmware or the kernel's decompressor; a marker when
        outside the kernel's code."""
        if mode == "u":
            return USER
        if pc < KERNEL_START:
            return BOOT
        if self.ranges and not any(lo <= pc < hi for lo, hi in self.ranges):
            return OUTSIDE
        i = bisect.bisect_right(self.addrs, pc) - 1
        return self.names[i] if i >= 0 else OUTSIDE

    def start(self, pc):
        """The address of the kernel symbol pc lies in (name()), or None
        where name() gives a marker."""
        if pc < KERNEL_START or (self.ranges and
                                 not any(lo <= pc < hi for lo, hi in self.ranges)):
            return None
        i = bisect.bisect_right(self.addrs, pc) - 1
        return self.addrs[i] if i >= 0 else None


def by_symbol(samples, symbols):
    """[(symbol, kind, samples)], most samples first, then by name; kind
    'k' (kernel) or 'u' (user)."""
    counts = {}
    for (mode, pc), n in samples["pcs"].items():
        name = symbols.name(pc, mode)
        counts[name] = counts.get(name, 0) + n
    return sorted(((s, "u" if s == USER else "k", n) for s, n in counts.items()),
                  key=lambda r: (-r[2], r[0]))


def frames(stack, symbols):
    """A stack's functions, outermost first: each return address names the
    function it returns into (its call is the byte before it)."""
    pc, *rets = stack
    return [symbols.name(r - 1) for r in reversed(rets)] + [symbols.name(pc)]


def children(samples, symbols, rows):
    """{symbol: samples with it anywhere on their stack} (perf's
    "children"), or None without stacks."""
    if not samples["stacks"]:
        return None
    out = {s: n for s, k, n in rows}   # no stack: the sample's own symbol
    for s in set(out) - {USER, BOOT}:
        out[s] = 0
    for stack, n in samples["stacks"].items():
        for name in set(frames(stack, symbols)):
            out[name] = out.get(name, 0) + n
    return out


def percent(n, total):
    return round(100.0 * n / total, 2) if total else 0.0


def summary(samples, rows, title, incl=None):
    """profile.json's object; with stacks, each symbol's "children" too."""
    total = sum(n for _, _, n in rows)
    syms = [{"symbol": s, "kind": k, "samples": n, "percent": percent(n, total)}
            for s, k, n in rows]
    if incl is not None:
        known = {s for s, _, _ in rows}
        syms += [{"symbol": s, "kind": "k", "samples": 0, "percent": 0.0}
                 for s in sorted(set(incl) - known)]
        for r in syms:
            r["children"] = incl[r["symbol"]]
            r["children_percent"] = percent(incl[r["symbol"]], total)
    return {"version": VERSION, "title": title, "period": samples["period"],
            "vcpus": samples["vcpus"], "samples": total, "stacks": incl is not None,
            "insns": sum(v["insns"] for v in samples["vcpus"]), "symbols": syms}


def report_text(prof):
    """perf report's layout: overhead, samples, [k]/[u] and the symbol."""
    out = ["# platter guest profile (run-guest --profile-guest)",
           f"# {prof['title']}" if prof["title"] else None,
           f"# a sample every {prof['period']} guest instructions per vCPU, "
           f"{prof['samples']} samples of {prof['insns']} instructions "
           f"on {len(prof['vcpus'])} vCPU(s)",
           "# Children: samples with the symbol anywhere on their kernel call stack "
           "(shadow stacks)" if prof["stacks"] else
           "# the program counter only: a symbol's samples are its own code's, "
           "not its callees'",
           "#",
           ("# Children      Self  Samples  Symbol" if prof["stacks"] else
            "# Overhead  Samples  Symbol"),
           ("# ........  ........  .......  ......" if prof["stacks"] else
            "# ........  .......  ......")]
    out = [line for line in out if line is not None]
    for r in prof["symbols"]:
        if r["samples"] == 0:
            continue   # a caller only: in profile.json and the flame graph
        head = f"{r['children_percent']:9.2f}% " if prof["stacks"] else ""
        out.append(f"{head}{r['percent']:9.2f}%  {r['samples']:7d}  [{r['kind']}] {r['symbol']}")
    return "\n".join(out) + "\n"


def _color(name):
    """A warm colour from the name (flamegraph.pl's palette), the same every run."""
    h = zlib.crc32(name.encode())
    return f"rgb({205 + h % 50},{(h >> 8) % 230},{(h >> 16) % 55})"


def flamegraph_svg(stacks, title, width=1200):
    """A flame graph of {(frame, ...): samples}: the root at the bottom,
    each frame as wide as the samples under it, siblings in name order."""
    total = sum(stacks.values())
    tree = {}
    for stack, n in stacks.items():
        node = tree
        for frame in stack:
            entry = node.setdefault(frame, [0, {}])
            entry[0] += n
            node = entry[1]
    depth = max((len(s) for s in stacks), default=0) + 1
    fh, pad, top = 16, 10, 40
    height = top + depth * fh + pad
    scale = (width - 2 * pad) / total if total else 0
    rects = []

    def draw(name, n, children, x, level):
        w = n * scale
        y = height - pad - (level + 1) * fh
        pct = percent(n, total)
        label = name if len(name) * 7 < w - 6 else (name[:int((w - 6) / 7) - 2] + ".."
                                                   if w > 40 else "")
        esc = html.escape(name)
        rects.append(f'<g><title>{esc} ({n} samples, {pct}%)</title>'
                     f'<rect x="{x:.2f}" y="{y}" width="{w:.2f}" height="{fh - 1}" '
                     f'fill="{"rgb(200,200,200)" if level == 0 else _color(name)}" rx="2"/>'
                     + (f'<text x="{x + 3:.2f}" y="{y + fh - 4}">{html.escape(label)}</text>'
                        if label else "") + "</g>")
        cx = x
        for child in sorted(children):
            cn, cc = children[child]
            draw(child, cn, cc, cx, level + 1)
            cx += cn * scale

    draw("all", total, tree, pad, 0)
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="monospace" font-size="12">\n'
            f'<rect width="100%" height="100%" fill="#fafaf5"/>\n'
            f'<text x="{width / 2}" y="20" text-anchor="middle" font-size="15">'
            f'{html.escape(title)}</text>\n'
            f'<text x="{width / 2}" y="34" text-anchor="middle" fill="#555">program counter '
            'samples only: each symbol is its own code, not what it called</text>\n')
    return head + "\n".join(rects) + "\n</svg>\n"


def write(samples_path, map_path, out_dir, title=""):
    """The profile's files in out_dir (made if missing); its summary."""
    samples = read_samples(samples_path)
    symbols = Symbols(map_path)
    rows = by_symbol(samples, symbols)
    prof = summary(samples, rows, title, children(samples, symbols, rows))
    os.makedirs(out_dir, exist_ok=True)
    stacks = {}
    for s, k, n in rows:
        if not (samples["stacks"] and k == "k" and s != BOOT):   # else below
            key = ("user",) if k == "u" else ("firmware, boot code",) if s == BOOT \
                else ("kernel", s)
            stacks[key] = stacks.get(key, 0) + n
    for stack, n in samples["stacks"].items():
        key = ("kernel", *frames(stack, symbols))
        stacks[key] = stacks.get(key, 0) + n
    files = {"profile.txt": report_text(prof),
             "profile.json": json.dumps(prof, indent=1) + "\n",
             "flamegraph.svg": flamegraph_svg(stacks, title or "guest profile")}
    for name, text in files.items():
        tmp = os.path.join(out_dir, name + ".tmp")
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, os.path.join(out_dir, name))
    if os.path.abspath(samples_path) != os.path.abspath(os.path.join(out_dir, "pcprof.txt")):
        shutil.copyfile(samples_path, os.path.join(out_dir, "pcprof.txt"))
    return {"period": prof["period"], "samples": prof["samples"], "insns": prof["insns"],
            "top": [r["symbol"] for r in prof["symbols"][:5]]}


def period_option(text):
    """argparse type of compare's --profile-guest[=N]."""
    try:
        return parse_period(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def ask_cells(period):
    """platter compare --profile-guest: every guest cell's run-guest gets
    the period (run-guest reads it as --profile-guest=N), and writes the
    profile into its working directory."""
    os.environ[ENV] = str(period)


def collect(workdir, report_dir, rec):
    """Move a cell's profile from its run-guest working directory into the
    report (profiles/CELL-ID/) and say where in its record."""
    src = os.path.join(workdir, RUN_DIR)
    guest = rec.get("guest") or {}
    if not os.path.isdir(src):
        return
    rel = os.path.join(REPORT_DIR, rec["id"].replace(os.sep, "_"))
    dst = os.path.join(report_dir, rel)
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    shutil.move(src, dst)
    guest["profile"] = rel
    run = (guest.get("raw") or {}).get("run") or {}
    if isinstance(run.get("profile_guest"), dict):
        run["profile_guest"]["dir"] = rel


def main(argv=None):
    ap = argparse.ArgumentParser(prog="platterlib.guestprofile", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("write", help="symbolize the plugin's samples and write the profile")
    w.add_argument("--samples", required=True, help="the plugin's out=FILE")
    w.add_argument("--system-map", required=True, help="the kernel's System.map")
    w.add_argument("--out", required=True, help="directory for the profile's files")
    w.add_argument("--title", default="", help="a line naming the run")
    a = ap.parse_args(argv)
    try:
        s = write(a.samples, a.system_map, a.out, a.title)
    except (Malformed, OSError) as e:
        msg = f"{e.filename}: {e.strerror}" if isinstance(e, OSError) and e.filename else e
        print(f"guestprofile: error: {msg}", file=sys.stderr)
        return 2
    print(json.dumps(s, separators=(",", ":")))
    return 0


if __name__ == "__main__":
    cli.run(main, "platterlib.guestprofile")
