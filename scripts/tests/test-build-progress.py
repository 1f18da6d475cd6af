#!/usr/bin/python3
"""scripts/lib/build-progress, which build-kernel and build-qemu pipe
their builds through: every line reaches the log unchanged, and stderr
gets steps done out of the total with an estimate, or the count and rate
when no total is known.  Prints TAP.  usage: test-build-progress.py"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from platterlib import tap  # noqa: E402
from platterlib import paths  # noqa: E402

TOOL = os.path.join(paths.ROOT, "scripts", "lib", "build-progress")


def feed(tmp, lines, *args):
    """The tool fed LINES one at a time (a build's pace: 20 ms apart), a
    line of progress at least every 0.05 s; returns (stderr, log bytes)."""
    log = os.path.join(tmp, "build.log")
    script = ("import sys, time\n"
              "for ln in sys.argv[1:]:\n"
              "    sys.stdout.write(ln + '\\n'); sys.stdout.flush(); time.sleep(0.02)\n")
    src = subprocess.Popen([sys.executable, "-c", script, *lines], stdout=subprocess.PIPE)
    p = subprocess.run([TOOL, "--label", "build-x", "--log", log, "--every", "0.05", *args],
                       stdin=src.stdout, capture_output=True, text=True, timeout=60)
    src.wait()
    assert p.returncode == 0, p.stderr
    return p.stderr, open(log, "rb").read()


def test_kbuild_with_total(tmp):
    lines = ["make[1]: Entering directory"] + [f"  CC      fs/f{i}.o" for i in range(20)] + \
        ["  LD      vmlinux", "Kernel: arch/x86/boot/bzImage is ready  (#1)"]
    total = os.path.join(tmp, "total")
    with open(total, "w") as f:
        f.write("42\n")
    err, log = feed(tmp, lines, "--total-file", total, "--count-out", os.path.join(tmp, "n"))
    assert log.decode() == "".join(ln + "\n" for ln in lines), log
    # kbuild's step lines counted (21: 20 CC and the LD), against the total
    assert "/42 steps (" in err and "left" in err, err
    assert err.splitlines()[-1].startswith("build-x: 21 steps in"), err
    assert open(os.path.join(tmp, "n")).read() == "21\n"


def test_no_total_and_ninja(tmp):
    err, _ = feed(tmp, [f"  CC      a{i}.o" for i in range(10)])
    assert "a minute (no total" in err and "%" not in err, err
    err, _ = feed(tmp, [f"[{i}/12] Compiling C object x{i}.o" for i in range(1, 13)])
    # ninja's own totals, whatever the total file says
    assert "/12 steps (" in err and err.splitlines()[-1].startswith("build-x: 12 steps"), err


def test_failure_passes_through(tmp):
    # the pipeline's status is the build's (pipefail), the log whole
    log = os.path.join(tmp, "l")
    p = subprocess.run(["bash", "-c", "set -o pipefail; { echo '  CC      a.o'; exit 3; } | "
                        f"{TOOL} --label b --log {log}"], capture_output=True, text=True)
    assert p.returncode == 3 and open(log).read() == "  CC      a.o\n", (p.returncode, p.stderr)


tap.run([("kbuild steps against a known total, every line in the log", test_kbuild_with_total),
         ("no total: count and rate; ninja's [N/M] totals", test_no_total_and_ninja),
         ("a failing build's status passes the pipe", test_failure_passes_through)],
        with_tmpdir=True)
