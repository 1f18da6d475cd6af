#!/usr/bin/python3
"""meson install into a temporary DESTDIR, then the installed platter from
outside the checkout, through PATH: --version, a sim-only compare (its
report under the working directory) and `platter sim`; prints TAP.
usage: test-install.py BUILD_DIR"""
import json, os, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from platterlib import tap  # noqa: E402
import destdir  # noqa: E402

BUILD = os.path.abspath(sys.argv[1])
ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
state = {}
TMP = tempfile.TemporaryDirectory(prefix="platter-install-")


def installed():
    """The DESTDIR install (once, in TMP) and the environment that uses it."""
    tmp = TMP.name
    if "env" not in state:
        home = os.path.join(tmp, "home")
        os.makedirs(home)
        state["bin"], env = destdir.install(BUILD, os.path.join(tmp, "dest"), drop=(
            "PLATTER_CACHE", "XDG_CACHE_HOME", "PLATTER_PROFILE_DIR", "PYTHONPATH",
            "PLATTER_SIM"))
        state["env"] = dict(env, HOME=home)
        state["cwd"] = os.path.join(tmp, "work")
        os.makedirs(state["cwd"])
    return state


def run(*args):
    s = installed()
    return subprocess.run(list(args), capture_output=True, text=True, env=s["env"],
                          cwd=s["cwd"])


def test_version():
    p = run("platter", "--version")
    assert p.returncode == 0 and p.stdout.startswith("platter ") and \
        p.stdout.count("\n") == 1, (p.returncode, p.stdout, p.stderr)
    v = p.stdout.split()[1]
    p = run("platter-sim", "--version")
    assert p.returncode == 0 and p.stdout == f"platter-sim {v}\n", (p.stdout, p.stderr)
    # the installed tree, not the checkout
    real = os.path.realpath(os.path.join(installed()["bin"], "platter"))
    assert not real.startswith(ROOT + os.sep), real


def test_sim_only_compare():
    p = run("platter", "compare", "seed-fops", "--sim-only", "--runtime", "0.1",
            "--cells", "seq.*.nvme.*")
    assert p.returncode == 0, p.stderr
    out = p.stdout.strip()
    assert os.path.dirname(os.path.abspath(os.path.join(installed()["cwd"], out))) == \
        os.path.join(installed()["cwd"], "results"), out
    doc = json.load(open(os.path.join(installed()["cwd"], out, "report.json")))
    assert len(doc["cells"]) == 2 and all(c["sim"]["summary"]["iops"] > 0 for c in doc["cells"])
    assert doc["meta"]["versions"]["platter"] == run("platter", "--version").stdout.split()[1]


def test_platter_sim():
    # profiles by name from the installed profile dir
    p = run("platter", "sim", "--profile", "st20000nm007d", "--runtime", "0.1", "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["iops"] > 0
    p = run("platter-sim", "--profile", "st20000nm007d", "--dump-profile")
    assert p.returncode == 0 and "capacity_bytes" in p.stdout, p.stderr


def test_help_and_completion():
    p = run("platter", "help", "gate")
    assert p.returncode == 0 and p.stdout.startswith("usage: platter gate"), p.stderr
    comp = [os.path.join(d, f) for d, _, fs in os.walk(os.path.join(TMP.name, "dest"))
            for f in fs if d.endswith("bash-completion/completions")]
    assert len(comp) == 1, comp
    # the installed completion, as bash uses it
    script = (f". {comp[0]}; COMP_WORDS=(platter com); COMP_CWORD=1; _platter; "
              "echo ${COMPREPLY[@]}; COMP_WORDS=(platter compare --par); COMP_CWORD=2; "
              "_platter; echo ${COMPREPLY[@]}")
    p = run("bash", "-c", script)
    assert p.stdout.splitlines() == ["compare completion", "--parallel"], (p.stdout, p.stderr)


def test_installed_tree_configures():
    # issue 39: build-initramfs meson-builds the guest programs from the
    # installed tree, whose configure read hw-model/tests/meson.build, left
    # out of the install: every fio cell from a prefix failed (exit 125)
    real = os.path.realpath(os.path.join(installed()["bin"], "platter"))
    tree = os.path.dirname(os.path.dirname(real))
    build = os.path.join(TMP.name, "installed-build")
    p = run("meson", "setup", build, tree)
    assert p.returncode == 0, (p.stdout + p.stderr)[-2000:]
    p = run("meson", "introspect", "--targets", build)
    names = {t["name"] for t in json.loads(p.stdout)}
    assert {"dsync-write", "powercut-verify", "blk-soak"} <= names, sorted(names)


def test_checkout_symlinks():
    # a symlink on PATH to the checkout's scripts finds their library and
    # the shell helpers through the link
    d = os.path.join(TMP.name, "links")
    os.makedirs(d)
    for name in ("platter", "run-guest"):
        os.symlink(os.path.join(ROOT, "scripts", name), os.path.join(d, name))
    env = dict(os.environ, PATH=d + os.pathsep + os.environ["PATH"])
    p = subprocess.run(["platter", "list"], capture_output=True, text=True, env=env, cwd=d)
    assert p.returncode == 0 and "seed-fops" in p.stdout, p.stderr
    p = subprocess.run(["run-guest", "--help"], capture_output=True, text=True, env=env, cwd=d)
    assert p.returncode == 0 and "usage" in p.stdout.lower(), p.stderr


tap.run([("platter --version and platter-sim --version, installed", test_version),
         ("a sim-only compare from outside the checkout", test_sim_only_compare),
         ("platter sim and platter-sim find the installed profiles", test_platter_sim),
         ("platter help COMMAND; bash completion from the parser", test_help_and_completion),
         ("the installed tree configures as build-initramfs builds it",
          test_installed_tree_configures),
         ("symlinks to the checkout's platter and run-guest", test_checkout_symlinks)],
        with_tmpdir=False)
