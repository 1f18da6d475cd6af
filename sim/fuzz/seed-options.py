#!/usr/bin/python3
"""Seed the `options` fuzz target's corpus with the hostile cases
(sim/tests/hostile/cases.tsv): each case's arguments, NUL-separated, and
its input file after "\\0\\0" (fuzz-options.c documents the format).
{in} becomes @IN, {profiles} the source tree's profile folder; a FIFO and
the sparse 2 GiB file, which a fuzz input cannot make, become /dev/null and
/dev/zero; {tmp} a folder that does not exist (setup opens no output).

usage: seed-options.py [CORPUS_DIR]   (default sim/fuzz/corpus/options)
Writes hostile-NAME per case; the files it writes are committed.  A case
whose input includes what an earlier case recorded (in {tmp}) is skipped."""
import importlib.util
import os
import shlex
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "hostile", os.path.join(HERE, "..", "tests", "hostile", "run.py"))
hostile = importlib.util.module_from_spec(spec)
spec.loader.exec_module(hostile)

ARGS = {"{tmp}": "/nonexistent/platter-fuzz", "{fifo}": "/dev/null", "{big}": "/dev/zero",
        "{profiles}": "@/hw-model/profiles", "{in}": "@IN"}


def seed(cols, subst):
    args, inp = cols[0], cols[1]
    argv = [hostile.fill(a, ARGS) for a in shlex.split(args)]
    data = b"\0".join(a.encode() for a in argv)
    if inp != "-":
        data += b"\0\0" + hostile.input_text(inp, subst).encode("latin-1")
    return data


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "corpus", "options")
    os.makedirs(out, exist_ok=True)
    n = skipped = 0
    for name, cols, subst in hostile.load_cases("/nonexistent/platter-fuzz"):
        try:
            data = seed(cols, subst)
        except OSError:
            skipped += 1      # its input is what an earlier case recorded
            continue
        with open(os.path.join(out, "hostile-" + name), "wb") as f:
            f.write(data)
        n += 1
    print(f"{n} seeds in {out}; {skipped} cases skipped (their input is an earlier "
          "case's recording)")


main()
