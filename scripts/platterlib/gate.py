"""The regression gate: judge cells by bounds on how their figures change.

A rule is a comma-separated list of bounds, METRIC:+N% or METRIC:-N%:
'iops:-2%' fails a cell whose IOPS fell by more than 2%, 'p99:+5%' one
whose p99 latency rose by more than 5%, 'cpu_per_io:+1%' one whose guest
CPUs ran more than 1% more instructions per I/O (a guest cell's
accounting; the sim has no such figure).  METRIC is one of METRICS.  A
change in the other direction always passes.  Runs are deterministic (the
same inputs give byte-identical cells, on any machine), so a bound can be
as tight as the smallest change that matters: 0% fails any change in its
direction.

What is compared: each pair's patched cell against its base cell (same
workload, profile and device), or, with a baseline report, every cell
against the cell of the same id there.  The guest's figures when the cell
ran a guest, the sim's when it did not.  A script cell (a command test)
passes when its script exited 0; a client cell (clients.py) is judged by
its headline as "iops"; a cell that failed to run fails.
"""
import re
import xml.etree.ElementTree as ET

from . import kernelspec
from . import outfile
from .cli import bad

METRICS = ("iops", "avg", "p50", "p99", "p99.9", "cpu_per_io")
TERM = re.compile(r"(" + "|".join(re.escape(m) for m in METRICS) +
                  r"):([+-])([0-9]{1,6}(?:\.[0-9]{1,6})?)%")


def parse(text, where="--gate"):
    """'iops:-2%,p99:+5%' as [(metric, sign, percent)], or one error line."""
    rule = []
    for term in text.split(","):
        m = TERM.fullmatch(term.strip())
        if not m:
            bad(where, f"'{term:.60}' is not METRIC:+N% or METRIC:-N% "
                       f"(METRIC one of {', '.join(METRICS)}; e.g. iops:-2%,p99:+5%)")
        if m.group(2) == "-" and float(m.group(3)) >= 100:
            # no figure falls by more than 100%: such a bound never fails
            bad(where, f"'{term.strip():.60}' can never fail (a figure cannot fall by "
                       "100% or more); give a bound below 100%")
        rule.append((m.group(1), m.group(2), float(m.group(3))))
    return rule


def check_expect(expect, where):
    """An experiment's "expect" block: {METRIC: "+N%" | "-N%" | [both]}."""
    if not isinstance(expect, dict) or not expect:
        bad(where, f"must be an object of bounds such as {{\"iops\": \"-2%\"}}, "
                   f"not {expect!r:.60}")
    return parse(rule_text(expect, where), where)


def rule_text(expect, where="expect"):
    terms = []
    for metric, bounds in expect.items():
        for b in bounds if isinstance(bounds, list) else [bounds]:
            if not isinstance(b, str):
                bad(f"{where}.{metric}", f"{b!r:.60} is not a bound such as \"-2%\"")
            terms.append(f"{metric}:{b}")
    return ",".join(terms)


def side(cell):
    """(the summary a cell is judged by, the error that stopped it)."""
    if cell is None:
        return None, "no such cell"
    if "guest" in cell:
        return cell["guest"].get("summary"), cell["guest"].get("error")
    sim = cell.get("sim") or {}
    return sim.get("summary"), sim.get("error") or sim.get("no_prediction")


def figure(summary, metric):
    if metric == "iops":
        return summary.get("iops")
    if metric == "cpu_per_io":   # guest instructions per I/O (guest cells)
        return (summary.get("cpu_per_io") or {}).get("insns")
    return (summary.get("lat_us") or {}).get(metric)


def judge_one(cell_id, cell, ref, rule, ref_name):
    """One verdict: {"id", "against", "passed", "checks": [text]}."""
    v = {"id": cell_id, "against": ref_name, "passed": True, "checks": []}
    new, err = side(cell)
    old, ref_err = side(ref)
    # a script is judged by its status; a client (a script whose output
    # gave figures) by them
    script = new is not None and "status" in new and "client" not in new
    if new is None or (old is None and not script):
        v["passed"] = False
        v["checks"].append(f"cell failed: {err}" if new is None else
                           f"{ref_name} has no figures: {ref_err}")
        return v
    if script:
        ok = new["status"] == 0
        v["passed"] &= ok
        v["checks"].append(f"script status {new['status']}" + ("" if ok else " (not 0)"))
        return v
    for metric, sign, pct in rule:
        a, b = figure(old, metric), figure(new, metric)
        if a is None or b is None or a == 0:
            v["passed"] = False
            v["checks"].append(f"{metric}: no figure to compare ({a} -> {b})")
            continue
        change = (b - a) / a * 100
        ok = change >= -pct if sign == "-" else change <= pct
        v["passed"] &= ok
        v["checks"].append(f"{metric} {a:.6g} -> {b:.6g} ({change:+.2f}%, bound {sign}{pct:g}%)"
                           + ("" if ok else " BEYOND THE BOUND"))
    return v


def judge(exp, cells, rule, baseline=None):
    """Verdicts for every judged cell: against baseline cells (by id) when
    given, else each pair's patched cell against its base."""
    verdicts = []
    if baseline is not None:
        for c in sorted(cells, key=lambda c: c["id"]):
            verdicts.append(judge_one(c["id"], c, baseline.get(c["id"]), rule, "baseline"))
        return verdicts
    by = {(c["workload"], c["profile"], c["device"], c["variant"]): c for c in cells}
    for key in sorted({(c["workload"], c["profile"], c["device"]) for c in cells}):
        for base, patched in ([kernelspec.label(v) for v in p] for p in exp["pairs"]):
            b, p = by.get(key + (base,)), by.get(key + (patched,))
            if p is None and b is None:
                continue
            pid = p["id"] if p else f"{b['id'].rsplit('.', 1)[0]}.{patched}"
            verdicts.append(judge_one(pid, p, b, rule, base))
    return verdicts


def line(v):
    return (f"{'PASS' if v['passed'] else 'FAIL'} {v['id']} vs {v['against']}: "
            + "; ".join(v["checks"]))


def tap(verdicts, path):
    """The verdicts as TAP version 13 (KTAP's parent, which kernel test
    tooling reads): one test point per judged cell, its checks after it
    as diagnostics, so a not-ok line says why."""
    out = ["TAP version 13", f"1..{len(verdicts)}"]
    for i, v in enumerate(verdicts, 1):
        out.append(f"{'ok' if v['passed'] else 'not ok'} {i} {v['id']} vs {v['against']}")
        out += [f"# {c}" for c in v["checks"]]
    outfile.write_bytes(path, ("\n".join(out) + "\n").encode("utf-8"))


def junit(verdicts, path, suite):
    """The verdicts as JUnit XML (one testcase per judged cell)."""
    fails = sum(not v["passed"] for v in verdicts)
    ts = ET.Element("testsuite", name=suite, tests=str(len(verdicts)),
                    failures=str(fails), errors="0")
    for v in verdicts:
        tc = ET.SubElement(ts, "testcase", classname=suite, name=v["id"])
        text = "; ".join(v["checks"])
        if v["passed"]:
            ET.SubElement(tc, "system-out").text = text
        else:
            ET.SubElement(tc, "failure", message=text[:500]).text = line(v)
    outfile.write_bytes(path, ET.tostring(ts, encoding="utf-8", xml_declaration=True))
