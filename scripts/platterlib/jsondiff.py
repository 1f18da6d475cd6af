"""Where two JSON values differ, for a determinism check's message: "two
runs differ" says nothing about which field moved, and a run's result is
tens of KiB."""


def paths(a, b, limit=8, at=""):
    """Up to @limit lines "PATH: A != B" naming where a and b differ
    (dict keys joined by '.', list indices in brackets; a value shortened
    to 80 characters)."""
    out = []
    _walk(a, b, at, out, limit)
    return out


def _short(v):
    s = repr(v)
    return s if len(s) <= 80 else s[:77] + "..."


def _walk(a, b, at, out, limit):
    if len(out) >= limit:
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            where = f"{at}.{k}" if at else str(k)
            if k not in a or k not in b:
                out.append(f"{where}: only in the {'second' if k in b else 'first'}")
            else:
                _walk(a[k], b[k], where, out, limit)
            if len(out) >= limit:
                return
    elif isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b)):
            _walk(x, y, f"{at}[{i}]", out, limit)
            if len(out) >= limit:
                return
        if len(a) != len(b):
            out.append(f"{at}: {len(a)} items != {len(b)}")
    elif a != b or type(a) is not type(b):
        out.append(f"{at or '(top)'}: {_short(a)} != {_short(b)}")
