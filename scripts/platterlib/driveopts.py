#!/usr/bin/python3
"""run-guest's --drive-opts, checked before QEMU starts (issue 39: --check
passed profile=nosuch, power-cut-every-ns=x and if=ide, and each failed
only when QEMU started, after the kernel build).

The text is the tail of QEMU's `-drive if=none,id=platter0,...`.  run-guest
sets if= and id= itself.  For driver=hddmodel, every key is one of
BlockdevOptionsHddModel's in the QAPI schema the driver patch adds (read
from that patch, the one list of them), or one of the -drive keys that
apply to any drive; each value has its schema type (bool on|off, an
unsigned integer, an enum value) and the profile is one platter-sim reads.
A drive of another driver (a raw file) is left to QEMU.

usage: python3 -m platterlib.driveopts check TEXT"""
import glob
import os
import re
import sys

from . import child
from . import cli
from . import expspec
from .paths import ROOT

RESERVED = ("if", "id")
# -drive keys that any block driver takes (QEMU's drive options and the
# generic block options)
DRIVE_KEYS = ("file", "format", "cache", "aio", "discard", "detect-zeroes", "node-name", "snapshot",
              "read-only", "auto-read-only", "werror", "rerror", "copy-on-read")
BOOL = ("on", "off")


class Bad(ValueError):
    pass


def schema():
    """{key: type} of BlockdevOptionsHddModel and {enum: values}, from the
    driver's QAPI patch."""
    patches = glob.glob(os.path.join(ROOT, "qemu-patches", "*-block-add-the-hddmodel-driver*"))
    if len(patches) != 1:
        raise Bad(f"internal: {len(patches)} hddmodel driver patches in qemu-patches/")
    text = "\n".join(ln[1:] for ln in open(patches[0]).read().splitlines()
                     if ln.startswith("+"))
    m = re.search(r"'struct': 'BlockdevOptionsHddModel',\s*'data': \{(.*?)\} \}", text, re.S)
    keys = dict(re.findall(r"'\*?([a-z-]+)': '([A-Za-z0-9]+)'", m.group(1))) if m else {}
    enums = {name: re.findall(r"'([a-z0-9-]+)'", values) for name, values in
             re.findall(r"'enum': '([A-Za-z]+)',\s*'data': \[([^]]*)\]", text)}
    if not keys:
        raise Bad("internal: no BlockdevOptionsHddModel in the driver's patch")
    return keys, enums


def check(text):
    """Bad naming the first key or value of text QEMU would refuse."""
    pairs = []
    for item in text.split(",") if text else []:
        k, sep, v = item.partition("=")
        if not sep or not k:
            raise Bad(f"'{item:.40}' is not KEY=VALUE")
        if k in RESERVED:
            raise Bad(f"'{k}': run-guest sets it itself")
        pairs.append((k, v))
    seen = set()
    for k, _ in pairs:
        if k in seen:
            raise Bad(f"'{k}' given twice")
        seen.add(k)
    opts = dict(pairs)
    if opts.get("driver") != "hddmodel":
        return
    keys, enums = schema()
    for k, v in pairs:
        if k == "driver" or k in DRIVE_KEYS:
            continue
        if k not in keys:
            raise Bad(f"'{k}': not an option of the hddmodel drive (its options: "
                      f"{', '.join(sorted(keys))})")
        kind = keys[k]
        if kind == "bool" and v not in BOOL:
            raise Bad(f"{k}={v:.40}: expected on or off")
        if kind.startswith("uint") and not re.fullmatch(r"[0-9]{1,20}", v):
            raise Bad(f"{k}={v:.40}: expected an unsigned integer")
        if kind in enums and v not in enums[kind]:
            raise Bad(f"{k}={v:.40}: expected {' or '.join(enums[kind])}")
    # the driver's own ranges (block/hddmodel-power.c): the model's clock
    # ends at HWM_TIME_MAX, 2^62 - 1 ns
    every = opts.get("power-cut-every-ns")
    if every is not None and not 2 <= int(every) <= ((1 << 62) - 1) // 2:
        raise Bad(f"power-cut-every-ns={every}: out of range, 2 to {((1 << 62) - 1) // 2}")
    if "power-cut-seed" in opts and every is None:
        raise Bad("power-cut-seed does nothing without power-cut-every-ns")
    if opts.get("power-cut-request") == "0":
        raise Bad("power-cut-request counts requests from 1")
    if "profile" in opts:
        prof = opts["profile"]
        if "profile-dir" in opts and "/" not in prof and not prof.endswith(".profile"):
            prof = os.path.join(opts["profile-dir"], prof + ".profile")
        try:
            expspec.check_profile(prof, "profile", base_dir=os.getcwd())
            if opts.get("write-cache") == "on":
                expspec.check_write_cache(prof, "write-cache", base_dir=os.getcwd())
        except cli.BadInput as e:
            raise Bad(str(e).removeprefix("platter: "))


def main(argv):
    if len(argv) != 3 or argv[1] != "check":
        print("usage: driveopts.py check TEXT", file=sys.stderr)
        return 2
    try:
        check(argv[2])
    except Bad as e:
        print(e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    cli.run(lambda: child.run_main(main, sys.argv), "platterlib.driveopts")
