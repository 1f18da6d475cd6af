#!/usr/bin/python3
"""The arrows between the C folders that includes can break; prints TAP.

usage: test-includes.py [SOURCE_ROOT]

- The guest programs (guest-tests/src) never include a hw-model header:
  no hwm*.h and no path into hw-model/.  What they share with the model
  (the decimal parser, splitmix64, the argv walk) is the leaf library,
  hw-model/common (platter-*.h).
- The leaf library depends on nothing: its files include only system
  headers (<...>) and its own platter-*.h.
"""
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
from platterlib import tap  # noqa: E402

INCLUDE = re.compile(r'^[ \t]*#[ \t]*include\s*([<"])([^>"]+)[>"]', re.M)
HWM_HEADER = re.compile(r"(^|/)hwm[^/]*\.h$|(^|/)hw-model/")


def includes(folder):
    """(file, line, delimiter, header) for every #include of every C file."""
    for name in sorted(os.listdir(folder)):
        if not name.endswith((".c", ".h")):
            continue
        path = os.path.join(folder, name)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for m in INCLUDE.finditer(text):
            yield name, text.count("\n", 0, m.start()) + 1, m.group(1), m.group(2)


def guest_violations(folder):
    return [f"{f}:{n}: includes {h}" for f, n, _, h in includes(folder)
            if HWM_HEADER.search(h)]


def leaf_violations(folder):
    own = {n for n in os.listdir(folder) if n.endswith(".h")}
    return [f"{f}:{n}: includes \"{h}\", not a system header or its own"
            for f, n, d, h in includes(folder) if d == '"' and h not in own]


def guest_clean():
    bad = guest_violations(os.path.join(ROOT, "guest-tests", "src"))
    assert not bad, "guest programs include hw-model headers:\n" + "\n".join(bad)


def leaf_clean():
    bad = leaf_violations(os.path.join(ROOT, "hw-model", "common"))
    assert not bad, "the leaf library depends on something:\n" + "\n".join(bad)


def checks_catch_violations():
    """The checks see a violation when there is one (they are not vacuous)."""
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "x.c"), "w") as f:
            f.write('#include <stdio.h>\n#include "hwm.h"\n'
                    '# include "../hw-model/src/cache.h"\n#include "hwm-decimal.h"\n')
        assert len(guest_violations(tmp)) == 3, guest_violations(tmp)
        assert len(leaf_violations(tmp)) == 3, leaf_violations(tmp)
        with open(os.path.join(tmp, "x.c"), "w") as f:
            f.write('#include <stdio.h>\n#include "platter-decimal.h"\n')
        assert guest_violations(tmp) == []


tap.run([
    ("guest programs include no hw-model header", guest_clean),
    ("the leaf library (hw-model/common) includes only system headers and its own", leaf_clean),
    ("the checks catch a violation", checks_catch_violations),
])
