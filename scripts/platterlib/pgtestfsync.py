"""PostgreSQL's pg_test_fsync in the guest: the command that runs it
(platter exec, the binary from Debian's postgresql-15 package) and a parser
for its output.

pg_test_fsync prints sections ("Compare file sync methods using one 8kB
write:", ...), each a list of lines "METHOD  N ops/sec  N usecs/op", or
"n/a" (and "n/a*" for O_DIRECT it could not use) where the method is not
available.
"""
import re

PACKAGE = "postgresql-15"
PROGRAM = "/usr/lib/postgresql/15/bin/pg_test_fsync"
LINE = re.compile(r"^\s+(\S.*?)\s+([\d.]+) ops/sec\s+(\d+) usecs/op\s*$")
NA = re.compile(r"^\s+(\S.*?)\s+n/a\*?\s*$")
SECTION = re.compile(r"^Compare (.*?):?\s*$|^(Non-sync'ed .*?):?\s*$|^(Test if .*?):?\s*$")


class ParseError(Exception):
    pass


def parse(text):
    """{section title: {method: ops per s, or None when n/a}}; raises
    ParseError when no figure is found."""
    out, section = {}, None
    for ln in text.splitlines():
        m = SECTION.match(ln)
        if m:
            section = next(g for g in m.groups() if g)
            out.setdefault(section, {})
            continue
        m = LINE.match(ln)
        if m and section is not None:
            out[section][m.group(1)] = float(m.group(2))
            continue
        m = NA.match(ln)
        if m and section is not None:
            out[section][m.group(1)] = None
    if not any(v is not None for s in out.values() for v in s.values()):
        raise ParseError("no 'N ops/sec' line in pg_test_fsync's output")
    return out


ONE_WRITE = "file sync methods using one 8kB write"


def exec_args(secs):
    """platter exec's program arguments: the package and the command line
    (after '--')."""
    return (["--package", f"{PACKAGE}:pg_test_fsync"],
            ["--", PROGRAM, "-s", str(secs)])
