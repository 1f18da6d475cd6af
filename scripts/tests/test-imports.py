#!/usr/bin/python3
"""The import graph of scripts/platterlib: no cycle, and none hidden by an
import inside a function (issue 25: cache and experiment imported each
other that way, and report and summary); paths, the leaf, imports nothing
of platter's.  Read from the source with ast, nothing is imported.  And
every Python program of the project starts Debian's /usr/bin/python3 (its
python3-* modules are what setup-host installs; a pyenv shim first on PATH
cost about a second a start).  Prints TAP.  usage: test-imports.py"""
import ast
import glob
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from platterlib import paths, tap  # noqa: E402

LIB = os.path.join(paths.ROOT, "scripts", "platterlib")


def imports():
    """{module: {(imported module, line, inside a function)}}"""
    out = {}
    for path in sorted(glob.glob(os.path.join(LIB, "*.py"))):
        tree = ast.parse(open(path).read(), path)
        found = set()

        def walk(node, nested):
            for child in ast.iter_child_nodes(node):
                inner = nested or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                     ast.ClassDef))
                if isinstance(child, ast.ImportFrom) and child.level == 1:
                    names = [child.module] if child.module else [a.name for a in child.names]
                    found.update((n, child.lineno, nested) for n in names)
                walk(child, inner)
        walk(tree, False)
        out[os.path.basename(path)[:-3]] = found
    return out


def check_no_lazy():
    lazy = [f"{m}.py:{line} imports {d} inside a function"
            for m, deps in imports().items() for d, line, nested in deps if nested]
    assert not lazy, lazy


def check_acyclic():
    graph = {m: {d for d, _, _ in deps} for m, deps in imports().items()}
    state = {}

    def visit(m, path):
        if state.get(m) == "done":
            return
        if state.get(m) == "open":
            raise AssertionError("cycle: " + " -> ".join(path[path.index(m):] + [m]))
        state[m] = "open"
        for d in sorted(graph.get(m, ())):
            visit(d, path + [m])
        state[m] = "done"
    for m in sorted(graph):
        visit(m, [])


def check_leaf():
    assert imports()["paths"] == set(), imports()["paths"]
    assert imports()["devicespec"] == set(), imports()["devicespec"]


def check_shebangs():
    """No '#!/usr/bin/env python3' (or any other python) in the tree's programs."""
    wrong = []
    for top in ("scripts", "sim", "guest-tests", "hw-model"):
        for d, _, files in os.walk(os.path.join(paths.ROOT, top)):
            for f in files:
                path = os.path.join(d, f)
                try:
                    with open(path, "rb") as fh:
                        first = fh.readline()
                except OSError:
                    continue
                if first.startswith(b"#!") and b"python" in first and \
                        first.strip() != b"#!/usr/bin/python3":
                    wrong.append(f"{os.path.relpath(path, paths.ROOT)}: {first.strip().decode()}")
    assert not wrong, wrong


tap.run([("no platterlib import inside a function", check_no_lazy),
         ("the platterlib import graph has no cycle", check_acyclic),
         ("paths and devicespec import nothing of platter's", check_leaf),
         ("every Python program starts /usr/bin/python3", check_shebangs)])
