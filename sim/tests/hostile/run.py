#!/usr/bin/python3
"""The hostile-input corpus for platter-sim; prints TAP.

usage: run.py PLATTER_SIM [CASES.tsv]

Each non-comment line of cases.tsv is one case, tab-separated:

    name  args  input  exit  stderr  stdout

name    unique; cases run in file order and share one temporary directory
        ({tmp}), so a case may read what an earlier one wrote.
args    platter-sim's arguments, split like a shell (shlex).  Placeholders:
        {in} the file holding `input`, {tmp} the shared directory, {fifo} a
        FIFO with no writer, {big} a sparse 2 GiB file, {profiles} the
        shipped profile directory, {self} a symlink to the platter-sim
        under test (an output onto it replaces the link, never the binary).
input   the content of {in}: `\\n`, `\\t`, `\\\\` and `\\xHH` escapes;
        `<<PATH>>` is replaced by the content of PATH (after placeholders),
        `<<PATH|grep -v RE>>` by its lines that do not match RE,
        `<<PATH|cut RE>>` by its text with every match of RE cut out; `-`
        means no input file.
exit    the expected exit status.
stderr  fragments stderr must contain, joined by ` && `; `!FRAGMENT`: it
        must not contain it (placeholders apply); `-`: stderr must be empty.
stdout  `empty`: nothing on stdout; `any`; `devfull`: stdout is /dev/full
        (every write fails: no space left); otherwise a fragment it must
        contain.  A case that expects a non-zero exit must also leave
        stdout empty whatever this says (no partial report).

Every case also fails on a sanitizer report (ASan, UBSan `runtime error:`),
and on taking more than 60 s (a hang).  After a failing case, the files it
names with `nofile:PATH` in the stdout column must not exist (no partial
output files): `empty nofile:{tmp}/x` checks both.
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "scripts"))
from platterlib import tap, tsvtable  # noqa: E402

CASES = os.path.join(HERE, "cases.tsv")
PROFILES = os.path.normpath(os.path.join(HERE, "..", "..", "..", "hw-model", "profiles"))
SANITIZER = re.compile(r"runtime error:|AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer")


def unescape(s):
    out, i = [], 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            n = s[i + 1]
            if n == "x":
                out.append(chr(int(s[i + 2:i + 4], 16)))
                i += 4
                continue
            out.append({"n": "\n", "t": "\t", "\\": "\\"}.get(n, "\\" + n))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def include(m):
    path, _, filt = m.group(1).partition("|")
    with open(path, encoding="latin-1") as f:
        text = f.read()
    if filt.startswith("grep -v "):
        rx = re.compile(filt[len("grep -v "):])
        text = "".join(line for line in text.splitlines(True) if not rx.search(line))
    elif filt.startswith("cut "):
        text = re.sub(filt[len("cut "):], "", text)
    elif filt:
        raise ValueError(f"unsupported include filter '{filt}'")
    return text


def load_cases(tmp, cases_tsv=CASES):
    subst = {"{tmp}": tmp, "{fifo}": os.path.join(tmp, "fifo"), "{big}": os.path.join(tmp, "big"),
             "{profiles}": PROFILES, "{self}": os.path.join(tmp, "self")}
    cases, names = [], set()
    for ln, cols in tsvtable.rows(cases_tsv, 6):
        name = cols[0]
        if name in names:
            raise SystemExit(f"{cases_tsv}:{ln}: case '{name}' repeats")
        names.add(name)
        cases.append((name, cols[1:], subst))
    return cases


def fill(s, subst):
    for k, v in subst.items():
        s = s.replace(k, v)
    return s


def input_text(inp, subst):
    """A case's input column as the text of {in}."""
    return re.sub(r"<<(.+?)>>", include, fill(unescape(inp), subst), flags=re.S)


def run_case(cols, subst, tmp):
    args, inp, want_rc, want_err, want_out = cols
    inpath = os.path.join(tmp, "input")
    if inp != "-":
        with open(inpath, "w", encoding="latin-1") as f:
            f.write(input_text(inp, subst))
    argv = [SIM] + [fill(a, {**subst, "{in}": inpath}) for a in shlex.split(args)]
    try:
        if want_out == "devfull":
            with open("/dev/full", "wb") as full:
                p = subprocess.run(argv, stdout=full, stderr=subprocess.PIPE, timeout=60)
            p.stdout = b""
        else:
            p = subprocess.run(argv, capture_output=True, timeout=60)
    except subprocess.TimeoutExpired:
        raise AssertionError("hung: no exit within 60 s")
    out = p.stdout.decode("utf-8", "replace")
    err = p.stderr.decode("utf-8", "replace")
    if SANITIZER.search(err):
        raise AssertionError("sanitizer report:\n" + err[:2000])
    if p.returncode != int(want_rc):
        raise AssertionError(f"exit {p.returncode}, expected {want_rc}; stderr: {err.strip()[:500]}")
    want_err = fill(want_err, {**subst, "{in}": inpath})
    if want_err == "-":
        if err:
            raise AssertionError(f"stderr not empty: {err.strip()[:500]}")
    for frag in want_err.split(" && ") if want_err != "-" else []:
        if frag.startswith("!") and frag[1:] in err:
            raise AssertionError(f"stderr has '{frag[1:]}': {err.strip()[:500]}")
        if not frag.startswith("!") and frag not in err:
            raise AssertionError(f"stderr lacks '{frag}': {err.strip()[:500]}")
    nofiles = [fill(w, subst) for w in re.findall(r"nofile:(\S+)", want_out)]
    rule = re.sub(r"\s*nofile:\S+", "", want_out).strip() or "any"
    if p.returncode != 0 and out:
        raise AssertionError(f"failed but wrote to stdout: {out[:300]}")
    if rule == "empty" and out:
        raise AssertionError(f"stdout not empty: {out[:300]}")
    if rule not in ("empty", "any", "devfull") and rule not in out:
        raise AssertionError(f"stdout lacks '{rule}': {out[:300]}")
    for path in nofiles:
        if os.path.exists(path):
            raise AssertionError(f"left {path} behind")


def main():
    global SIM
    SIM = os.path.abspath(sys.argv[1])
    cases_tsv = sys.argv[2] if len(sys.argv) > 2 else CASES
    with tempfile.TemporaryDirectory() as tmp:
        os.mkfifo(os.path.join(tmp, "fifo"))
        os.symlink(SIM, os.path.join(tmp, "self"))
        with open(os.path.join(tmp, "big"), "wb") as f:
            f.truncate(2 << 30)
        checks = [(name, lambda c=cols, s=subst: run_case(c, s, tmp))
                  for name, cols, subst in load_cases(tmp, cases_tsv)]
        tap.run(checks)


if __name__ == "__main__":
    main()
