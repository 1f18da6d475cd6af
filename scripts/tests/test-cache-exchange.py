#!/usr/bin/python3
"""platter cache export/import between two clones, with the real builds:
prints TAP.  usage: test-cache-exchange.py PLATTER_SIM

Clone A uses the caller's cache ($PLATTER_CACHE, as platter resolves it;
CI runs this after test-first-use.py, which filled it) and exports it.
Clone B, with an empty cache of its own and no network (a proxy that
refuses every connection), imports the archive; then `platter compare
seed-fops --build-only` must find everything there and build, download and
extract nothing, and one guest cell must give exactly the cell clone A
gives.  A clone whose kernel config fragment differs (a stale archive for
it) must be refused with one line naming the entry and the input, and
nothing installed.
"""
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from platterlib import tap  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SIM = os.path.abspath(sys.argv[1])
CELL = "seq.st20000nm007d.nvme.fops"
NO_NET = {"http_proxy": "http://127.0.0.1:9", "https_proxy": "http://127.0.0.1:9",
          "HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9"}
# what a build prints when it does work (build-qemu, build-kernel,
# build-initramfs, apt-trixie); a lookup that finds the cache prints "cached"
WORK = ("downloading", "extracting", "building", "configure", "applying", "built ")


def clone(dest):
    head = subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()
    subprocess.run(["git", "clone", "-q", "--no-checkout", ROOT, dest], check=True)
    subprocess.run(["git", "-C", dest, "checkout", "-q", "--detach", head], check=True)
    return dest


def platter(checkout, cache, *argv, extra_env=None):
    env = dict(os.environ, LC_ALL="C", **(extra_env or {}))
    env.pop("PLATTER_QEMU", None)
    if cache:
        env["PLATTER_CACHE"] = cache
    t0 = time.monotonic()
    p = subprocess.run([os.path.join(checkout, "scripts", "platter"), *argv], cwd=checkout,
                       capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL)
    print(f"# {os.path.basename(checkout)}: platter {' '.join(argv[:2])}: exit {p.returncode}, "
          f"{time.monotonic() - t0:.1f} s")
    return p


def ok(p):
    assert p.returncode == 0 and "Traceback" not in p.stderr, \
        (p.returncode, p.stderr[-3000:])
    return p


def one_cell(checkout, cache, out, extra_env=None):
    ok(platter(checkout, cache, "compare", "seed-fops", "--sim", SIM, "--cells", CELL,
               "--runtime", "1", "--out", out, extra_env=extra_env))
    with open(os.path.join(out, "report.json")) as f:
        (cell,) = json.load(f)["cells"]
    assert not cell["guest"]["error"] and cell["guest"]["summary"], cell["guest"]
    return cell


def differences(a, b, where="cell"):
    """Where two JSON values differ, as 'path: a != b' (the first few)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            out += differences(a.get(k), b.get(k), f"{where}.{k}")
        return out[:8]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        out = []
        for i, (x, y) in enumerate(zip(a, b)):
            out += differences(x, y, f"{where}[{i}]")
        return out[:8]
    return [] if a == b else [f"{where}: {json.dumps(a)[:120]} != {json.dumps(b)[:120]}"]


def entries(cache):
    """The entry directories in a cache (as platter cache list finds them)."""
    out = []
    for sub in ("qemu", "kernel/out", "initramfs"):
        d = os.path.join(cache, sub)
        if os.path.isdir(d):
            out += [f"{sub}/{n}" for n in os.listdir(d)
                    if not n.startswith(".") and n not in ("src",)]
    return sorted(out)


def exchange(tmp):
    a, b = clone(os.path.join(tmp, "a")), clone(os.path.join(tmp, "b"))
    # README's format; gzip (level 9, in Python) takes minutes where zstd
    # takes seconds
    arc = os.path.join(tmp, "team-cache.tar." + ("zst" if shutil.which("zstd") else "gz"))
    # A: the caller's cache, everything the experiment needs in it
    ok(platter(a, None, "compare", "seed-fops", "--sim", SIM, "--build-only"))
    p = ok(platter(a, None, "cache", "export", arc))
    assert p.stdout.strip() == arc, p.stdout
    for what in ("qemu qemu", "kernel base", "kernel fops", "initramfs initramfs "):
        assert f"exported {what}" in p.stderr, (what, p.stderr)
    print(f"# archive: {os.path.getsize(arc) / 1e6:.1f} MB")
    cell_a = one_cell(a, None, os.path.join(tmp, "report-a"))
    # B: an empty cache and no network
    cache_b = os.path.join(tmp, "cache-b")
    p = ok(platter(b, cache_b, "cache", "import", arc, extra_env=NO_NET))
    assert "imported qemu qemu" in p.stderr and "imported kernel fops" in p.stderr, p.stderr
    p = ok(platter(b, cache_b, "compare", "seed-fops", "--sim", SIM, "--build-only",
                   extra_env=NO_NET))
    worked = [ln for ln in p.stderr.splitlines()
              if ln.startswith(("build-", "apt-trixie")) and any(w in ln for w in WORK)]
    assert not worked, f"clone B built: {worked}"
    assert "build-qemu: cached:" in p.stderr, p.stderr
    for what in ("cached: base ", "cached: fops "):
        assert what in p.stderr, (what, p.stderr)
    assert p.stderr.count("initramfs.cpio") >= 1 and "cached:" in p.stderr, p.stderr
    for d in ("kernel/tree", "kernel/debs", "kernel/src", "ccache", "apt-trixie"):
        path = os.path.join(cache_b, d)
        assert not os.path.isdir(path) or not [n for n in os.listdir(path)
                                               if not n.startswith(".")], \
            f"clone B's cache has {d}: {os.listdir(path)}"
    assert not [n for n in os.listdir(os.path.join(cache_b, "qemu"))
                if n.startswith("work-") or n == "src" and
                os.listdir(os.path.join(cache_b, "qemu", n))], os.listdir(cache_b)
    cell_b = one_cell(b, cache_b, os.path.join(tmp, "report-b"), extra_env=NO_NET)
    assert json.dumps(cell_a, sort_keys=True) == json.dumps(cell_b, sort_keys=True), \
        "the cell on the imported cache differs from the exporting clone's: " + \
        "; ".join(differences(cell_a, cell_b))
    # a checkout whose inputs moved on: the archive is stale for it
    frag = os.path.join(b, "guest-tests", "kernel", "platter.config")
    with open(frag, "a") as f:
        f.write("# a local edit: the kernels' key changes\n")
    cache_c = os.path.join(tmp, "cache-c")
    p = platter(b, cache_c, "cache", "import", arc, extra_env=NO_NET)
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 2 and len(lines) == 1 and "Traceback" not in p.stderr, \
        (p.returncode, p.stderr)
    line = lines[0]
    for frag_text in ("platter: cache import: kernel base: key ", "is not this checkout's key",
                      "stale or foreign cache", "platter.config", "nothing imported"):
        assert frag_text in line, (frag_text, line)
    print(f"# refused: {line}")
    assert entries(cache_c) == [], entries(cache_c)
    assert not [n for n in os.listdir(cache_c) if n.startswith(".import-")], \
        os.listdir(cache_c)


tap.run([("cache export in clone A, import in clone B: nothing built, same cell; "
          "a stale archive refused", exchange)], with_tmpdir=True)
