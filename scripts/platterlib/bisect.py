"""platter bisect: the first commit of a git tree that fails a gate.

A binary search over the first-parent line from GOOD (exclusive) to BAD
(inclusive), as `git bisect` would walk a patch series, without writing
the tree's repository: each revision is a tree:PATH@COMMIT kernel, which
build-kernel exports and builds incrementally in platter's own build tree.
The good revision's cells run once; every later step runs its own cells
and judges them against good's saved result with the same rule (the gate:
patched against base).  Runs are deterministic, so a verdict is exact:
the same commit gives byte-identical cells, and no step needs repeating
or a margin for noise.  A commit whose kernel does not build, or whose
cells do not run, is skipped (as `git bisect run` skips status 125): the
search tries its neighbours.  BAD is judged first: a BAD that passes the
gate leaves nothing to bisect.

The result (bisect.json, bisect.md and the summary on stderr) names the
first bad commit with its subject, the judged figures at good, at the
first bad commit and at its parent, and every step's verdict."""
import json
import os
import subprocess
import sys
import time

from . import child
from . import cli
from . import gate
from . import kernelspec
from . import matrix
from . import summary

VERSION = 1


def git(tree, *args):
    p = child.run_plain(["git", "-C", tree, *args], capture_output=True, text=True)
    if p.returncode != 0:
        raise cli.BadInput(f"platter: bisect: git {' '.join(args)} in {tree}: "
                           + ((p.stderr.strip().splitlines() or ["failed"])[-1]))
    return p.stdout.strip()


def line_of(tree, good, bad):
    """(good's commit, [commits after good up to bad], first-parent line)."""
    if child.run_plain(["git", "-C", tree, "rev-parse", "--git-dir"],
                      capture_output=True).returncode:
        raise cli.BadInput(f"platter: bisect: --tree {tree}: not a git tree")
    g, b = (commit(tree, rev, opt) for rev, opt in ((good, "--good"), (bad, "--bad")))
    if child.run_plain(["git", "-C", tree, "merge-base", "--is-ancestor", g, b]).returncode:
        raise cli.BadInput(f"platter: bisect: --good {good} is not an ancestor of --bad {bad}")
    revs = git(tree, "rev-list", "--first-parent", "--reverse", f"{g}..{b}").split()
    if not revs:
        raise cli.BadInput(f"platter: bisect: --good {good} and --bad {bad} are one commit")
    return g, revs


def commit(tree, rev, opt):
    p = child.run_plain(["git", "-C", tree, "rev-parse", "--verify", "-q", f"{rev}^{{commit}}"],
                       capture_output=True, text=True)
    if p.returncode:
        raise cli.BadInput(f"platter: bisect: {opt} {rev!r:.60}: no such commit in {tree}")
    return p.stdout.strip()


def subject(tree, rev):
    return git(tree, "log", "-1", "--format=%s", rev)


def figures(cells):
    """{cell id without the kernel: IOPS} of one revision's cells (the
    guest's, else the sim's, as the gate judges them)."""
    out = {}
    for c in cells:
        s, _ = gate.side(c)
        out[c["id"].rsplit(".", 1)[0]] = gate.figure(s, "iops") if s else None
    return out


class Search:
    """Which revision to try next.  lo: index of the last known good (-1:
    GOOD itself), hi: the first known bad; skipped indexes are not tried
    again."""

    def __init__(self, n):
        self.lo, self.hi, self.skipped = -1, n - 1, set()

    def next(self):
        """The index to test next, or None when lo and hi are neighbours
        or every revision between them was skipped."""
        inside = [i for i in range(self.lo + 1, self.hi) if i not in self.skipped]
        if not inside:
            return None
        mid = (self.lo + self.hi) // 2
        return min(inside, key=lambda i: (abs(i - mid), i))

    def record(self, i, verdict):
        if verdict == "bad":
            self.hi = i
        elif verdict == "good":
            self.lo = i
        else:
            self.skipped.add(i)


def run(a, spec_for, run_rev):
    """Bisect; returns the exit status (0: the first bad commit is named;
    125: skipped commits leave it open, or a revision did not run; 2: BAD
    passes the gate).  spec_for(good, commit): the experiment of the pair
    [good, commit]; run_rev(cells): their records, or the InfraError that
    stopped them (a build, QEMU, the guest)."""
    rule = gate.parse(a.gate)
    good, revs = line_of(a.tree, a.good, a.bad)
    t0 = time.monotonic()
    steps = []

    def say(text):
        print(f"platter: bisect: {text}", file=sys.stderr, flush=True)

    def cells_of(exp, label):
        return [c for c in matrix.cells(exp) if c["variant"] == label]

    exp0 = spec_for(good, revs[-1])
    say(f"{len(revs)} commits after {good[:12]} up to {revs[-1][:12]}; the good revision's "
        "cells first")
    good_cells = run_rev(cells_of(exp0, kernelspec.label(exp0["pairs"][0][0])))
    if isinstance(good_cells, cli.Failure) or any(gate.side(c)[0] is None for c in good_cells):
        raise cli.InfraError(f"platter: bisect: the good revision {good[:12]} did not run: "
                             f"{good_cells if isinstance(good_cells, cli.Failure) else 'a cell failed'}")

    def judge(i):
        rev = revs[i]
        exp = spec_for(good, rev)
        s0 = time.monotonic()
        got = run_rev(cells_of(exp, kernelspec.label(exp["pairs"][0][1])))
        step = {"commit": rev, "subject": subject(a.tree, rev), "index": i}
        if isinstance(got, cli.Failure):
            step.update(verdict="skip", why=str(got))
        elif any(gate.side(c)[0] is None for c in got):
            step.update(verdict="skip", why="a cell did not run")
        else:
            verdicts = gate.judge(exp, good_cells + got, rule)
            step.update(verdict="bad" if any(not v["passed"] for v in verdicts) else "good",
                        checks=[gate.line(v) for v in verdicts], figures=figures(got))
        step["wall_s"] = round(time.monotonic() - s0, 1)
        steps.append(step)
        say(f"[step {len(steps)}] {rev[:12]} {step['subject'][:50]!r}: {step['verdict']}"
            + (f" ({step['why']})" if step["verdict"] == "skip" else ""))
        return step["verdict"]

    search = Search(len(revs))
    if judge(len(revs) - 1) != "bad":
        status = cli.EXIT_BAD_INPUT if steps[-1]["verdict"] == "good" else cli.EXIT_INFRA
        first = None
        say(f"--bad {a.bad} " + ("passes the gate: nothing to bisect" if status == 2 else
                                  "did not run: nothing to bisect"))
    else:
        while (i := search.next()) is not None:
            search.record(i, judge(i))
        first = revs[search.hi] if search.hi - search.lo == 1 or not any(
            i in search.skipped for i in range(search.lo + 1, search.hi)) else None
        status = cli.EXIT_PASS if first else cli.EXIT_INFRA
    doc = result(a, good, revs, steps, search, first, figures(good_cells),
                 round(time.monotonic() - t0, 1))
    write(a.out, doc)
    print(a.out)
    print("\n" + text(doc), file=sys.stderr)
    return status


def result(a, good, revs, steps, search, first, good_figs, wall_s):
    by = {s["commit"]: s for s in steps}
    doc = {"version": VERSION, "tree": os.path.abspath(a.tree), "gate": a.gate,
           "good": good, "bad": revs[-1], "commits": len(revs), "steps": steps,
           "wall_s": wall_s, "first_bad": None,
           "undecided": [revs[i] for i in range(search.lo + 1, search.hi)] if not first else []}
    if first:
        i = revs.index(first)
        parent = revs[i - 1] if i > 0 else good
        # the parent's figures, or (when it did not build) the nearest
        # ancestor's that has some: the commits between are named, since
        # the regression may be in one of them
        skipped, judged = [], parent
        while judged != good and not (by.get(judged) or {}).get("figures"):
            skipped.append(judged)
            j = revs.index(judged)
            judged = revs[j - 1] if j > 0 else good
        doc["first_bad"] = {
            "commit": first, "subject": by[first]["subject"],
            "parent": parent, "parent_judged": judged, "unbuilt_before": skipped,
            "figures": {
                "good": good_figs, "first_bad": by[first]["figures"],
                "parent": good_figs if judged == good else by[judged]["figures"]}}
    return doc


def text(doc):
    """The result in a few lines that fit a mail."""
    lines = [f"bisect of {doc['tree']} with gate {doc['gate']}: {doc['commits']} commits, "
             f"{len(doc['steps'])} steps, {doc['wall_s']:.0f} s"]
    fb = doc["first_bad"]
    if fb:
        lines.append(f"first bad commit: {fb['commit'][:12]} {fb['subject']}")
        if fb.get("unbuilt_before"):
            lines.append("  (or one before it that did not build: " +
                         ", ".join(c[:12] for c in fb["unbuilt_before"]) +
                         f"; 'parent' is {fb['parent_judged'][:12]}, the nearest that did)")
        f = fb["figures"]
        lines.append(f"  {'cell':32} {'good':>9} {'parent':>9} {'first bad':>9} {'change':>8}")
        for cell in sorted(f["first_bad"]):
            g, p, b = f["good"].get(cell), f["parent"].get(cell), f["first_bad"][cell]
            change = summary.pct(100.0 * (b - p) / p if p and b is not None else None)
            lines.append(f"  {cell:32} {summary.fmt(g):>9} {summary.fmt(p):>9} "
                         f"{summary.fmt(b):>9} {change:>8}")
    else:
        lines.append("no single first bad commit: " + (
            f"undecided between {', '.join(c[:12] for c in doc['undecided'])} (skipped)"
            if doc["undecided"] else "the bad revision did not fail the gate"))
    lines.append("steps (each verdict exact: a revision's cells are deterministic):")
    for n, s in enumerate(doc["steps"], 1):
        lines.append(f"  {n}. {s['commit'][:12]} {s['verdict']:4} {s['subject'][:48]}")
    return "\n".join(lines)


def write(out, doc):
    try:
        with open(os.path.join(out, "bisect.json"), "w") as f:
            json.dump(doc, f, indent=1, sort_keys=True)
            f.write("\n")
        with open(os.path.join(out, "bisect.md"), "w") as f:
            f.write(f"# bisect\n\n```\n{text(doc)}\n```\n")
    except OSError as e:
        cli.write_failed(f"platter: cannot write the bisect report in {out}: {e}", e)

