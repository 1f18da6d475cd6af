#!/usr/bin/python3
"""The JSON Schemas in docs/schema (experiments, campaigns, report.json and
its cells, a campaign's and a soak's report.json): each is a valid Draft 2020-12 schema;
every committed experiment, campaign and report validates against its
own; the schemas' tables are platter's (device keys, front ends, file
systems, what a kernel declares, guest tests, fio stats, gate metrics); and
a set of hostile edits of a shipped experiment is refused by the schema and
by platter's own check alike.  The schemas are for editors and CI: platter
itself checks a spec with scripts/platterlib/expspec.py (one error line).

Needs Debian's python3-jsonschema (scripts/setup-host installs it), so it
runs under /usr/bin/python3.  Prints TAP.  usage: test-schema.py"""
import copy
import glob
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from platterlib import cli, clients, crashstates, expspec, fioout, gate, paths, tap  # noqa: E402

SCHEMAS = os.path.join(paths.ROOT, "docs", "schema")
RESULTS = os.path.join(paths.ROOT, "docs", "results")
CAMPAIGNS = os.path.join(paths.ROOT, "scripts", "campaigns")


def schema(name):
    with open(os.path.join(SCHEMAS, name + ".schema.json")) as f:
        return json.load(f)


def validator(name):
    """A validator of docs/schema/NAME.schema.json whose relative $refs
    (another file of docs/schema) resolve from the files themselves."""
    import jsonschema
    store = {}
    for path in glob.glob(os.path.join(SCHEMAS, "*.schema.json")):
        with open(path) as f:
            store["file://" + path] = json.load(f)
    uri = "file://" + os.path.join(SCHEMAS, name + ".schema.json")
    resolver = jsonschema.RefResolver(uri, store[uri], store=store)
    return jsonschema.Draft202012Validator(store[uri], resolver=resolver)


def errors(name, doc):
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}"
            for e in validator(name).iter_errors(doc)]


def load(path):
    with open(path) as f:
        return json.load(f)


def check_schemas():
    import jsonschema
    names = sorted(os.path.basename(p)[:-12] for p in glob.glob(os.path.join(SCHEMAS, "*.json")))
    assert names == ["campaign", "campaign-report", "cell", "experiment", "report",
                     "soak-report"], names
    for n in names:
        jsonschema.Draft202012Validator.check_schema(schema(n))


def check_committed(kind, paths_):
    assert paths_, f"no committed {kind} found"
    bad = {p: errors(kind, load(p)) for p in paths_}
    bad = {os.path.relpath(p, paths.ROOT): e[:3] for p, e in bad.items() if e}
    assert not bad, bad


def committed_reports(key):
    return [p for p in sorted(glob.glob(os.path.join(RESULTS, "**", "report.json"),
                                        recursive=True)) if key in load(p)]


def check_every_report():
    """Every report.json under docs/results is of one of the three kinds
    above, so none goes unchecked."""
    every = glob.glob(os.path.join(RESULTS, "**", "report.json"), recursive=True)
    kinds = {p for key in ("experiment", "campaign", "rerun") for p in committed_reports(key)}
    assert every and set(every) == kinds, sorted(set(every) - kinds)


def check_tables():
    """The schema's enumerations are platter's own tables, so neither can
    gain a key or a value without the other."""
    exp = schema("experiment")
    d = exp["$defs"]
    dev = d["device"]["properties"]
    assert list(dev) == list(expspec.DEVICE_KEYS), (list(dev), list(expspec.DEVICE_KEYS))
    for key, (typ, allowed, _) in expspec.DEVICE_KEYS.items():
        if isinstance(allowed, tuple):
            assert tuple(dev[key]["enum"]) == allowed, key
        elif isinstance(allowed, range):
            assert (dev[key]["minimum"], dev[key]["maximum"]) == \
                (allowed.start, allowed.stop - 1), key
    reserved = dev["frontend_props"]["propertyNames"]["not"]["enum"]
    assert tuple(reserved) == expspec.RESERVED_PROPS, reserved
    assert tuple(d["fs"]["enum"]) == tuple(expspec.FILESYSTEMS)
    assert tuple(d["declares"]["enum"]) == tuple(expspec.KERNEL_DECLARES)
    kinds = {w["required"][1]: w for w in d["workload"]["oneOf"]}
    test = kinds["test"]["properties"]
    assert test["test"]["enum"] == [t for t in expspec.guest_tests() if t != "exec"]
    assert tuple(test["fio_stat"]["enum"]) == fioout.STATS
    assert tuple(test["sim_workload"]["enum"]) == expspec.SIM_WORKLOADS
    assert tuple(kinds["client"]["properties"]["client"]["enum"]) == tuple(clients.CLIENTS)
    assert tuple(kinds["client"]["properties"]["fs"]["enum"]) == \
        tuple(f for f in expspec.FILESYSTEMS if f != "none")
    for kind, w in kinds.items():
        want = {"name", kind, *expspec.WORKLOAD_KEYS[kind]}
        if kind == "test":
            want |= set(expspec.TARGET_KEYS) | {"fio_stat", *expspec.FIO_PHASE_KEYS}
        assert set(w["properties"]) == want, (kind, set(w["properties"]) ^ want)
    assert tuple(d["expect"]["propertyNames"]["enum"]) == gate.METRICS
    assert exp["properties"]["timeout_s"]["maximum"] == expspec.RUN_GUEST_TIMEOUT_MAX_S
    assert d["seconds"]["maximum"] == cli.RUNTIME_MAX_S
    cs = schema("campaign-report")["properties"]["summary"]["properties"]["crash_states"]
    assert tuple(cs["properties"]["by_strategy"]["propertyNames"]["enum"]) == \
        crashstates.STRATEGY_NAMES


def set_in(doc, path, value):
    """doc with path (keys and indexes) set to value, or removed (None)."""
    doc = copy.deepcopy(doc)
    node = doc
    for k in path[:-1]:
        node = node[k]
    if value is None:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return doc


# edits of seed-fops.json that platter refuses (expspec), with the field
HOSTILE = [
    (("name",), "has space"), (("name",), "x" * 65), (("pairs", 0), ["base"]),
    (("pairs",), []), (("devices", 0, "frontend"), "ide"), (("devices", 0, "smp"), 33),
    (("devices", 0, "smp"), "2"), (("devices", 0, "mem"), "01M"), (("devices", 0, "mem"), "4T"),
    (("devices", 0, "colour"), "red"), (("devices", 0, "libata_fua"), "1"),
    (("devices", 0, "frontend_props"), {"serial": "x"}), (("devices", 0, "queue_depth"), 0),
    (("workloads", 0, "test"), "nosuch"), (("workloads", 0, "fs"), "xfs"),
    (("workloads", 0, "args"), ["two words"]), (("workloads", 0, "fio_stat"), "sync"),
    (("workloads", 0, "sim_args"), ["--profile", "x"][1:]), (("runtime",), 0),
    (("runtime",), 100001), (("timeout_s",), 0), (("expect",), {"iops": "2%"}),
    (("expect",), {"lat": "+2%"}), (("kernels",), {"base": ["nosuch"]}),
    (("profiles", 0), "a,b"), (("seed", "cells", "seq", "base", "iops"), -1), (("extra",), 1),
    (("workloads",), None), (("workloads", 0, "warmup_s"), 1),
]


def check_hostile():
    exp = load(os.path.join(expspec.EXPERIMENTS, "seed-fops.json"))
    assert not errors("experiment", exp)
    missed = []
    for path, value in HOSTILE:
        doc = set_in(exp, path, value)
        try:
            expspec.check_experiment(doc, "seed-fops.json", base_dir=expspec.EXPERIMENTS)
            platter_refused = False
        except cli.BadInput:
            platter_refused = True
        if not platter_refused or not errors("experiment", doc):
            missed.append((path, value, "platter" if not platter_refused else "schema"))
    assert not missed, f"accepted: {missed}"


def check_cell_summary():
    """A cell's summary that platter refuses (a negative figure) is
    refused by the cell schema too."""
    doc = load(committed_reports("experiment")[0])
    cell = doc["cells"][0]
    assert not errors("cell", cell)
    side = "guest" if "guest" in cell else "sim"
    bad = set_in(cell, (side, "summary", "iops"), -5)
    assert errors("cell", bad), "a negative iops passed the cell schema"
    assert errors("cell", set_in(cell, ("fua",), "yes"))


try:
    import jsonschema  # noqa: F401
    MISSING = None
except ImportError:
    MISSING = ("no python3-jsonschema under " + sys.executable +
               " (scripts/setup-host installs it)")


def check_run_guest_tables():
    """run-guest keeps its own copies of two of expspec's tables (it is
    bash): the front ends it takes and the front-end properties it sets
    itself.  Tied here by what it does: each front end expspec knows passes
    its --check, a name expspec does not know is refused, and its list of
    reserved properties is expspec's (each refused in --frontend-opts)."""
    import re
    import subprocess
    rg = os.path.join(paths.ROOT, "scripts", "run-guest")

    def check(*args):
        return subprocess.run([rg, "--check", *args, "hello"], capture_output=True,
                              text=True).returncode
    for fe in expspec.DEVICE_KEYS["frontend"][1]:
        assert check("--device", fe) == 0, f"run-guest --device {fe} refused; expspec has it"
    assert check("--device", "virtio-scsi") == 2, "run-guest takes a front end expspec does not"
    with open(rg) as f:
        text = f.read()
    m = re.search(r"^\s+((?:[a-z0-9_-]+\|)+[a-z0-9_-]+)\)\s*\n\s+cli_fail \"--frontend-opts", text, re.M)
    assert m, "run-guest's reserved-property case is not where this test looks"
    assert tuple(m.group(1).split("|")) == expspec.RESERVED_PROPS, \
        (m.group(1).split("|"), expspec.RESERVED_PROPS)
    for prop in (expspec.RESERVED_PROPS[0], expspec.RESERVED_PROPS[-1]):
        assert check("--device", "nvme", "--frontend-opts", f"{prop}=1") == 2, prop


def need(fn):
    def run():
        if MISSING:
            raise AssertionError(MISSING)
        fn()
    return run


tap.run([
    ("docs/schema: six valid Draft 2020-12 schemas", need(check_schemas)),
    ("every committed experiment validates",
     need(lambda: check_committed("experiment",
                                  sorted(glob.glob(os.path.join(expspec.EXPERIMENTS, "*.json")))))),
    ("every committed campaign validates",
     need(lambda: check_committed("campaign", sorted(glob.glob(os.path.join(CAMPAIGNS, "*.json")))))),
    ("every committed experiment report.json (docs/results) validates",
     need(lambda: check_committed("report", committed_reports("experiment")))),
    ("every committed campaign report.json (docs/results/powercut) validates",
     need(lambda: check_committed("campaign-report", committed_reports("campaign")))),
    ("every committed soak report.json (docs/results/soak) validates",
     need(lambda: check_committed("soak-report", committed_reports("rerun")))),
    ("no committed report.json is of another kind", check_every_report),
    ("the schemas' tables are platter's own", need(check_tables)),
    ("run-guest's front ends and reserved properties are expspec's", check_run_guest_tables),
    ("hostile edits of an experiment: refused by the schema and by platter",
     need(check_hostile)),
    ("a cell the schema refuses", need(check_cell_summary)),
])
