"""The headline of a run: one row per pair (cell, the base kernel's IOPS,
the patched kernel's, the change in percent, the verdict), as plain text
that fits a mail (compare, merge and gate end with it on stderr) and as
the table that opens report.md.  IOPS are the guest's where the cell ran
a guest, else platter-sim's; the title says which."""
from . import cli
from . import gate
from . import kernelspec


def _runtime(v):
    return cli.runtime_text(v) if type(v) in (int, float) else v


def fmt(v):
    if v is None:
        return "-"
    return f"{v:.1f}" if isinstance(v, float) and v < 1000 else f"{v:,.0f}"


def pair_rows(exp, cells):
    """(workload, profile, device, baseline cell, patched cell) per pair."""
    by = {(c["workload"], c["profile"], c["device"], c["variant"]): c for c in cells}
    keys = sorted({(c["workload"], c["profile"], c["device"]) for c in cells})
    for wl, prof, dev in keys:
        for base, patched in ([kernelspec.label(v) for v in p] for p in exp["pairs"]):
            b, p = by.get((wl, prof, dev, base)), by.get((wl, prof, dev, patched))
            if b or p:
                yield wl, prof, dev, b, p


def rows(exp, cells, verdicts=()):
    """[(cell, base label, patched label, base IOPS, patched IOPS, change %
    or None, verdict)] per pair; a verdict is PASS, FAIL or '-' (not judged)."""
    by_id = {v["id"]: v for v in verdicts}
    out = []
    for wl, prof, dev, b, p in pair_rows(exp, cells):
        side = "guest" if any(c and "guest" in c for c in (b, p)) else "sim"
        fig = [gate.figure(s, "iops") if s else None
               for s in (((c or {}).get(side) or {}).get("summary") for c in (b, p))]
        change = (100.0 * (fig[1] - fig[0]) / fig[0]
                  if None not in fig and fig[0] else None)
        # the pair's verdicts: its patched cell's against base, or (with a
        # baseline) each cell's against its saved self
        vs = [by_id[c["id"]]["passed"] for c in (b, p) if c and c["id"] in by_id]
        out.append((f"{wl}.{prof}.{dev}", b["variant"] if b else "?",
                    p["variant"] if p else "?", fig[0], fig[1], change,
                    "-" if not vs else "PASS" if all(vs) else "FAIL"))
    return out


def source(cells):
    return "guest" if any("guest" in c for c in cells) else "sim"


def pct(change):
    return "-" if change is None else f"{change:+.1f}%"


def text(exp, cells, meta, verdicts=()):
    """The plain-text summary: a title line, then aligned columns."""
    rs = rows(exp, cells, verdicts)
    pairs = {(r[1], r[2]) for r in rs}
    one = len(pairs) == 1
    title = (f"{exp['name']}: {source(cells)} IOPS, {_runtime(meta.get('runtime_s'))} s per cell, "
             f"platter {meta.get('versions', {}).get('platter', '?')}")
    if one:
        b, p = next(iter(pairs))
        head = ["cell", b, p, "change", "verdict"]
        body = [[r[0], fmt(r[3]), fmt(r[4]), pct(r[5]), r[6]] for r in rs]
    elif len({r[1] for r in rs}) == 1:
        # one base, several kernels (--kernels): side by side, a row a cell
        others = list(dict.fromkeys(r[2] for r in rs))
        head = ["cell", rs[0][1]] + [x for k in others for x in (k, "change")] + ["verdict"]
        body = []
        for cell in dict.fromkeys(r[0] for r in rs):
            mine = {r[2]: r for r in rs if r[0] == cell}
            base = next(iter(mine.values()))[3]
            vs = {r[6] for r in mine.values()} - {"-"}
            body.append([cell, fmt(base)] + [x for k in others for x in (
                (fmt(mine[k][4]), pct(mine[k][5])) if k in mine else ("-", "-"))]
                + ["FAIL" if "FAIL" in vs else "PASS" if vs else "-"])
    else:
        head = ["cell", "base", "patched", "base", "patched", "change", "verdict"]
        body = [[r[0], r[1], r[2], fmt(r[3]), fmt(r[4]), pct(r[5]), r[6]] for r in rs]
    width = [max(len(str(x)) for x in col) for col in zip(head, *body)]
    lines = [title]
    for row in [head] + body:
        lines.append("  ".join(str(x).ljust(w) if i == 0 else str(x).rjust(w)
                               for i, (x, w) in enumerate(zip(row, width))).rstrip())
    return "\n".join(lines)


def markdown(exp, cells, verdicts=()):
    """The same rows as report.md's opening table."""
    md = [f"| cell | base | patched | {source(cells)} IOPS base | patched | change | verdict |",
          "| --- | --- | --- | ---: | ---: | ---: | --- |"]
    for r in rows(exp, cells, verdicts):
        md.append(f"| {r[0]} | {r[1]} | {r[2]} | {fmt(r[3])} | {fmt(r[4])} | {pct(r[5])} "
                  f"| {r[6]} |")
    return md


def versions_table(versions):
    """report.md's versions: one row a component (kernel identities are in
    report.json), instead of a Python dict on one line."""
    md = ["| component | version |", "| --- | --- |"]
    for key in ("platter", "qemu", "kernel_source"):
        if versions.get(key):
            md.append(f"| {key} | {versions[key]} |")
    for k, release in sorted((versions.get("kernels") or {}).items()):
        md.append(f"| kernel {kernelspec.label(k) if ':' in k else k} | {release} |")
    return md if len(md) > 2 else []
