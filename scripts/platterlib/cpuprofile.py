#!/usr/bin/python3
"""CPU profiles: how fast a guest's virtual CPU is, as data with sources.

A profile (scripts/cpus/NAME.cpu, or any file) is `key = value` lines,
`#` comments (each value's source goes in its comment):

  ipns = N                guest instructions per virtual ns per vCPU,
                          1..99 (QEMU's icount ipns is whole)
  clock_mhz = N           the modelled core's clock, 1..100000; needed
                          when any *_cycles is above 0
  irq_cycles = N          a hardware interrupt delivered
  exception_cycles = N    an exception (page fault, ...) or INT n delivered
  syscall_cycles = N      SYSCALL (the mode switch)
  io_cycles = N           an MMIO or port access to a device (a VM exit on
                          a KVM host; the local APIC is not charged)
  atomic_cycles = N       a locked read-modify-write
  ipi_cycles = N          an interprocessor interrupt sent (the sender)
  transfer_cycles = N     a locked read-modify-write of a cache line that
                          another vCPU's locked read-modify-write left in
                          its cache: the line's transfer between cores
                          (needs lockstep SMP time, quantum above 0)

Each *_cycles is what the event costs the modelled core beyond the one
instruction icount counts for it, in core cycles (whole, 0..1000000,
default 0).  QEMU charges it in guest instructions (qemu-patches, icount
charge-KIND): cycles x ipns x 1000 / clock_mhz, rounded to the nearest
whole instruction, so the charge takes the cycles' time on the virtual
clock.  A bad profile is one error naming file, line and key.

usage: cpuprofile.py resolve NAME|FILE
    prints "NAME SHA256-16 ICOUNT-OPTIONS" (ipns=N[,charge-KIND=C...]), or
    one line on stderr and exit 2
"""
import hashlib
import os
import re
import sys

from . import cli

CPU_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "cpus")
# the charge kinds, in QEMU's option order (qemu-patches: -icount charge-KIND)
KINDS = ("irq", "exception", "syscall", "io", "atomic", "ipi", "transfer")
# key: (lowest, highest, default); None: required
KEYS = {"ipns": (1, 99, None), "clock_mhz": (1, 100000, 0)}
KEYS.update({f"{k}_cycles": (0, 1000000, 0) for k in KINDS})
# QEMU's bound on one charge (icount ICOUNT_CHARGE_MAX)
CHARGE_MAX = 1000000
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")

from . import cli


class BadProfile(ValueError):
    pass


def is_file_spec(spec):
    """A spec that names a file (has a '/' or ends in .cpu), not a
    shipped profile."""
    return "/" in spec or spec.endswith(".cpu")


def path_of(spec):
    """A profile's file: spec itself when it names a file (is_file_spec),
    else scripts/cpus/SPEC.cpu."""
    if is_file_spec(spec):
        return spec
    if not NAME_RE.match(spec):
        raise BadProfile(f"CPU profile '{spec}': not a name (letters, digits, . _ -) or a file")
    path = os.path.join(CPU_DIR, spec + ".cpu")
    if not os.path.isfile(path):
        have = sorted(f[:-4] for f in os.listdir(CPU_DIR) if f.endswith(".cpu")) \
            if os.path.isdir(CPU_DIR) else []
        raise BadProfile(f"CPU profile '{spec}': no such profile (have: {' '.join(have)})")
    return path


def parse(text, where):
    """The profile's values, every key filled in; BadProfile names
    where, the line and the key."""
    values = {}
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        key, sep, value = (s.strip() for s in line.partition("="))
        if not sep or not key:
            raise BadProfile(f"{where}:{n}: expected 'key = value', got '{line:.40}'")
        if key not in KEYS:
            raise BadProfile(f"{where}:{n}: unknown key '{key}' (keys: {' '.join(KEYS)})")
        if key in values:
            raise BadProfile(f"{where}:{n}: '{key}' given twice")
        lo, hi, _ = KEYS[key]
        if not re.fullmatch(r"[0-9]+", value) or not lo <= int(value) <= hi:
            raise BadProfile(f"{where}:{n}: {key} = '{value:.40}': expected a whole "
                             f"number {lo}..{hi}")
        values[key] = int(value)
    for key, (_, _, default) in KEYS.items():
        if key not in values:
            if default is None:
                raise BadProfile(f"{where}: '{key}' is missing")
            values[key] = default
    if values["clock_mhz"] == 0 and any(values[f"{k}_cycles"] for k in KINDS):
        raise BadProfile(f"{where}: 'clock_mhz' is missing (a *_cycles value needs it)")
    return values


def charges(values):
    """{kind: guest instructions} of a parsed profile: cycles x ipns x
    1000 / clock_mhz, to the nearest whole instruction."""
    out = {}
    for k in KINDS:
        cycles = values[f"{k}_cycles"]
        if not cycles:
            out[k] = 0
            continue
        mhz = values["clock_mhz"]
        out[k] = (cycles * values["ipns"] * 1000 + mhz // 2) // mhz
        if out[k] > CHARGE_MAX:
            raise BadProfile(f"{k}_cycles = {cycles}: {out[k]} instructions, more than "
                             f"QEMU's {CHARGE_MAX}")
    return out


def icount_options(values):
    """The -icount options a profile stands for: ipns=N and each charge
    above 0 (a profile without charges runs as plain --ipns N does)."""
    ch = charges(values)
    return ",".join([f"ipns={values['ipns']}"] +
                     [f"charge-{k}={ch[k]}" for k in KINDS if ch[k]])


def resolve(spec):
    """(name, sha256 of the file's bytes (16 hex digits), icount options)."""
    name, sha, values = load(spec)
    return name, sha, icount_options(values)


def load(spec):
    """(name, sha256 of the file's bytes (16 hex digits), parsed values)."""
    path = path_of(spec)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise BadProfile(f"CPU profile '{spec}': {e.strerror}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise BadProfile(f"{path}: not UTF-8 text")
    values = parse(text, path)
    name = os.path.basename(path)
    name = name[:-4] if name.endswith(".cpu") else name
    if not NAME_RE.match(name):
        raise BadProfile(f"{path}: its name '{name:.40}' is not letters, digits and . _ -")
    return name, hashlib.sha256(data).hexdigest()[:16], values


def main(argv):
    if len(argv) != 3 or argv[1] != "resolve":
        print("usage: cpuprofile.py resolve NAME|FILE", file=sys.stderr)
        return 2
    try:
        name, sha, opts = resolve(argv[2])
    except BadProfile as e:
        print(e, file=sys.stderr)
        return 2
    print(f"{name} {sha} {opts}")
    return 0


if __name__ == "__main__":
    cli.run(lambda: main(sys.argv), "platterlib.cpuprofile")
