#!/usr/bin/python3
"""CPU profiles (scripts/cpus, scripts/platterlib/cpuprofile.py): the
shipped profiles read and convert to QEMU's -icount options, the integer
conversion from cycles to instructions, and every kind of bad profile is
one error naming file, line and key.  Prints TAP."""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from platterlib import tap, cpuprofile  # noqa: E402

LIB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "platterlib")


def tap_tmp(fn):
    with tempfile.TemporaryDirectory() as tmp:
        fn(tmp)


def write(tmp, text, name="t.cpu"):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def check_shipped():
    """Every profile in scripts/cpus reads; plain is today's default (ipns
    1, nothing charged), the server profile charges every kind."""
    names = sorted(f[:-4] for f in os.listdir(cpuprofile.CPU_DIR) if f.endswith(".cpu"))
    assert {"plain", "skylake-sp-kvm"} <= set(names), names
    for n in names:
        name, sha, opts = cpuprofile.resolve(n)
        assert name == n and len(sha) == 16 and opts.startswith("ipns="), (n, opts)
    assert cpuprofile.resolve("plain")[2] == "ipns=1"
    opts = cpuprofile.resolve("skylake-sp-kvm")[2]
    for k in cpuprofile.KINDS:
        # transfer_cycles is in no shipped profile yet (docs/guide.md)
        assert (f"charge-{k}=" in opts) == (k != "transfer"), opts


def check_conversion():
    """cycles x ipns x 1000 / clock_mhz, to the nearest instruction: 970
    cycles at 2.5 GHz and 3 per ns are 1164 instructions; a third of an
    instruction is none, two thirds one; 0 cycles is no charge at all."""
    base = {"ipns": 3, "clock_mhz": 2500} | {f"{k}_cycles": 0 for k in cpuprofile.KINDS}
    v = base | {"irq_cycles": 970, "atomic_cycles": 19}
    ch = cpuprofile.charges(v)
    assert ch["irq"] == 1164 and ch["atomic"] == 23 and ch["io"] == 0, ch
    assert cpuprofile.icount_options(v) == "ipns=3,charge-irq=1164,charge-atomic=23"
    # a cache line's transfer: 118 cycles at 2.5 GHz, 3 per ns
    assert cpuprofile.icount_options(v | {"transfer_cycles": 118}) == \
        "ipns=3,charge-irq=1164,charge-atomic=23,charge-transfer=142"
    third = base | {"ipns": 1, "clock_mhz": 3000, "syscall_cycles": 1, "io_cycles": 2}
    ch = cpuprofile.charges(third)
    assert ch["syscall"] == 0 and ch["io"] == 1, ch
    # within QEMU's bound (1000000 instructions), and past it
    big = base | {"ipns": 99, "clock_mhz": 1, "io_cycles": 10}
    assert cpuprofile.charges(big)["io"] == 990000
    big["io_cycles"] = 11
    try:
        cpuprofile.charges(big)
    except cpuprofile.BadProfile as e:
        assert "io_cycles" in str(e), e
    else:
        raise AssertionError("a charge past QEMU's bound was accepted")


def check_bad(tmp):
    """One error naming the file, the line and the key, for each way a
    profile can be wrong."""
    cases = [
        ("ipns = 2\nbogus = 1\n", ":2: unknown key 'bogus'"),
        ("ipns = 1.5\n", ":1: ipns = '1.5': expected a whole number 1..99"),
        ("ipns = 0\n", ":1: ipns = '0'"),
        ("ipns = 100\n", ":1: ipns = '100'"),
        ("ipns = 2\nio_cycles = -3\n", ":2: io_cycles = '-3'"),
        ("ipns = 2\nio_cycles = 2000000\n", ":2: io_cycles = '2000000'"),
        ("ipns = 2\nipns = 3\n", ":2: 'ipns' given twice"),
        ("ipns 2\n", ":1: expected 'key = value'"),
        ("# nothing\n", ": 'ipns' is missing"),
        ("ipns = 2\nirq_cycles = 10\n", ": 'clock_mhz' is missing"),
        ("ipns = 2 # two\nclock_mhz = 2500 # ok\nirq_cycles = \n", ":3: irq_cycles = ''"),
    ]
    for text, want in cases:
        path = write(tmp, text)
        try:
            cpuprofile.resolve(path)
        except cpuprofile.BadProfile as e:
            msg = str(e)
            assert msg.startswith(path) and want in msg and "\n" not in msg, (text, msg)
        else:
            raise AssertionError(f"accepted: {text!r}")
    with open(os.path.join(tmp, "bin.cpu"), "wb") as f:
        f.write(b"ipns = \xff\n")
    for spec, want in ((os.path.join(tmp, "bin.cpu"), "not UTF-8"),
                       ("nosuch", "no such profile"), ("a:b", "not a name"),
                       (os.path.join(tmp, "none.cpu"), "No such file")):
        try:
            cpuprofile.resolve(spec)
        except cpuprofile.BadProfile as e:
            assert want in str(e), (spec, e)
        else:
            raise AssertionError(f"accepted: {spec}")


def check_command_line(tmp):
    """run-guest's way in: NAME SHA OPTIONS on stdout, or one stderr line
    and exit 2; the sha follows the file's bytes."""
    def run(spec):
        # as run-guest runs it: python3 -m platterlib.cpuprofile
        return subprocess.run([sys.executable, "-m", "platterlib.cpuprofile", "resolve", spec],
                              capture_output=True, text=True,
                              env=dict(os.environ, PYTHONPATH=os.path.dirname(LIB)))
    a = write(tmp, "ipns = 2  # comment\n", "mine.cpu")
    p = run(a)
    name, sha, opts = p.stdout.split()
    assert p.returncode == 0 and name == "mine" and opts == "ipns=2", p
    write(tmp, "ipns = 2  # another comment\n", "mine.cpu")
    assert run(a).stdout.split()[1] != sha, "the sha did not change with the file"
    p = run(write(tmp, "ipns = x\n"))
    assert p.returncode == 2 and p.stdout == "" and len(p.stderr.splitlines()) == 1, p


tap.run([("the shipped profiles", check_shipped),
         ("cycles to instructions", check_conversion),
         ("a bad profile is one error naming file, line and key",
          lambda: tap_tmp(check_bad)),
         ("cpuprofile.py resolve (run-guest's way in)", lambda: tap_tmp(check_command_line))])
