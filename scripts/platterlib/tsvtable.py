"""The one reader of the tab-separated test tables (scripts/tests/hostile.tsv,
sim/tests/hostile/cases.tsv): blank lines and `#` comments skipped, every
other line split on tabs into a fixed number of columns."""


def rows(path, columns):
    """(line number, [column, ...]) per row of the table at `path`; a row
    with another number of columns ends the run with one line naming it."""
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) != columns:
                raise SystemExit(f"{path}:{n}: want {columns} tab-separated "
                                 f"columns, got {len(cols)}")
            yield n, cols
