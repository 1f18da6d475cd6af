"""The power-cut soak: one guest runs blk-soak (guest-tests/src/blk-soak.c)
on the raw test device of an hddmodel drive that cuts its power again and
again at seeded virtual times and recovers (the driver's
power-cut-every-ns), and checks every sector it reads against what it was
told was durable.

Deterministic: the drive's seed fixes the cut times on the virtual clock,
the guest's seed every job's requests, and icount the rest, so the same
arguments give the same record: the guest's counts and the drive's trace
of every command (trace=FILE: submission and completion times, the cuts),
kept as its SHA-256.  The record says whether nothing was lost, and
cross-checks the guest's count of cuts with the drive's.
"""
import json
import os
import shlex
import time

from . import cellsummary
from . import child
from . import cli
from . import devicespec
from . import expspec
from . import kernelspec
from . import matrix
from . import paths

REPORT_VERSION = 1
# the drive's request trace, in the run's directory
TRACE = "drive.trace"
# Where a cut may fall with no guest request to notice it: after the
# guest's last request and before QEMU stops (the guest's count is then
# one short of the drive's).
UNSEEN_CUTS_MAX = 1


def check_args(a):
    """What the guest would refuse, refused before anything is built."""
    # any kernel spec (a variant, tree:, patches:, bzimage:), as compare takes
    k = expspec.check_kernel(a.kernel, "soak: --kernel", os.getcwd())
    a.kernel, a.kernel_label = kernelspec.run_spec(k), k["label"]
    expspec.check_profile(a.profile, "soak: --profile", os.getcwd())
    expspec.check_write_cache(a.profile, "soak: --profile", os.getcwd())   # its cache is on
    if a.cpu:
        a.cpu = expspec.cpu_arg(a.cpu, os.getcwd())
        expspec.check_cpu(device(a), "soak: --cpu", os.getcwd())
    if a.scsi_retries is not None and a.frontend not in ("sata", "scsi-hd"):
        raise cli.BadInput(f"platter: soak: --scsi-retries applies to sata and scsi-hd "
                           f"(SCSI disks in the guest), not {a.frontend}")
    if a.slice_kib % 4:
        raise cli.BadInput(f"platter: soak: --slice-kib {a.slice_kib} is not a multiple of 4")
    if a.stride_mib << 10 < a.slice_kib:
        raise cli.BadInput(f"platter: soak: --stride-mib {a.stride_mib} is less than "
                           f"--slice-kib {a.slice_kib}: the slices would overlap")
    end = ((a.jobs - 1) * a.stride_mib << 20) + (a.slice_kib << 10)
    if end > matrix.IMAGE_BYTES:
        raise cli.BadInput(f"platter: soak: the slices end at byte {end}, past the "
                           f"{matrix.IMAGE_BYTES >> 30} GiB image")


def device(a):
    """The front end as an experiment's device entry: the drive's FUA and
    write cache follow it as in the power-cut campaigns (NVMe and scsi-hd
    advertise FUA and the drive serves it natively, virtio-blk has none,
    sata advertises it and libata's default leaves it unused, so the drive
    has none either; the write cache on), and the CPU profile if any."""
    return {"frontend": a.frontend} | ({"cpu": a.cpu} if a.cpu else {})


def drive(a):
    return (devicespec.device_drive_opts(device(a), a.profile) +
            f",discard=unmap,power-cut-every-ns={a.cut_every_ms * 1000000}"
            f",power-cut-seed={a.seed},trace={TRACE}")


def device_record(a):
    """What the guest ran on, for the record."""
    dev = device(a)
    return {"frontend": a.frontend, "profile": a.profile,
            "fua": "on" if devicespec.drive_fua(dev) else "off",
            "guest_fua": devicespec.guest_fua(dev),
            "write_cache": "on" if devicespec.write_cache(dev) else "off"} | \
        ({"cpu": a.cpu} if a.cpu else {}) | \
        ({"scsi_retries": a.scsi_retries} if a.scsi_retries is not None else {})


def guest_args(a):
    # (the guest's soak script takes --scsi-retries first and sets it itself)
    return (["--scsi-retries", str(a.scsi_retries)] if a.scsi_retries is not None else []) + [
            "--jobs", str(a.jobs), "--slice", f"{a.slice_kib}K",
            "--stride", f"{a.stride_mib}M",
            "--requests", str(a.requests), "--max-sectors", str(a.max_sectors),
            "--seed", str(a.seed)]


def command(a):
    """The run-guest command, run in a directory holding disk.img."""
    dev = device(a)
    # the guest checks it sees the FUA and write cache the record names
    return matrix.run_guest_prefix(a.kernel, dev, drive(a)) + [
        "--expect", devicespec.device_expect(dev),
        "--timeout", str(a.timeout), "soak", "--", *guest_args(a)]


def recorded_command(a):
    """command(a) as the record shows it: paths inside the checkout from its
    root, so a committed record names no one's checkout."""
    return shlex.join(paths.from_root(command(a)))


def rerun(a):
    """The platter command that repeats this soak."""
    words = ["scripts/platter", "soak", "--kernel", a.kernel, "--frontend", a.frontend,
             "--profile", a.profile,
             "--requests", str(a.requests), "--cut-every-ms", str(a.cut_every_ms),
             "--jobs", str(a.jobs), "--slice-kib", str(a.slice_kib),
             "--stride-mib", str(a.stride_mib),
             "--max-sectors", str(a.max_sectors), "--seed", str(a.seed),
             "--expect", a.expect] + (["--cpu", a.cpu] if a.cpu else []) + \
        (["--scsi-retries", str(a.scsi_retries)] if a.scsi_retries is not None else [])
    return shlex.join(words)


def judge(a, g):
    """What went wrong, [] if the run shows what it should."""
    why = []
    cycles = g.get("power_cycles", {"cuts": 0})
    unseen = cycles["cuts"] - g["cuts"]
    if not 0 <= unseen <= UNSEEN_CUTS_MAX:
        why.append(f"the guest saw {g['cuts']} cuts, the drive made {cycles['cuts']}")
    if a.expect == "loss":
        if not g["losses"]:
            why.append("expected a loss (a broken kernel), the checker found none")
        return why
    if g["losses"]:
        why.append(f"{g['losses']} sectors failed their check")
    if g["status"] != 0:
        why.append(f"the guest's status is {g['status']}")
    if g["requests"] + g["failed"] < a.requests:
        why.append(f"{g['requests'] + g['failed']} requests of {a.requests}")
    if a.min_cuts and g["cuts"] < a.min_cuts:
        why.append(f"{g['cuts']} cuts, fewer than --min-cuts {a.min_cuts}")
    return why


def run(a, workdir):
    """Run the soak in workdir; its record."""
    cmd = command(a)
    rec = {"version": REPORT_VERSION, "rerun": rerun(a), "command": recorded_command(a),
           "expect": a.expect, "device": device_record(a)}
    with open(os.path.join(workdir, "disk.img"), "wb") as img:
        img.truncate(matrix.IMAGE_BYTES)
    t0 = time.monotonic()
    # status 1: the guest found a loss; the result is still its JSON
    g, err = child.run_json(cmd, a.timeout + 60, workdir, ok_status=(0, 1))
    rec["host_s"] = round(time.monotonic() - t0, 1)
    if err:
        rec.update(passed=False, why=[f"the guest run failed: {err}"])
        return rec
    rec["guest"] = g
    trace = os.path.join(workdir, TRACE)
    rec["drive_trace"] = {"sha256": paths.sha256_file(trace),
                          "bytes": os.path.getsize(trace),
                          **{k: v for k, v in cellsummary.drive_trace_counts(trace).items()
                             if k != "writes"}}
    rec["why"] = judge(a, g)
    rec["passed"] = not rec["why"]
    return rec


def device_line(d):
    return (f"Device: {d['frontend']} on the modelled {d['profile']} (drive fua={d['fua']}, "
            f"write-cache={d['write_cache']}; the guest sees "
            f"{'FUA' if d['guest_fua'] else 'no FUA'}, a volatile write cache "
            f"{'on' if d['write_cache'] == 'on' else 'off'}).")


def markdown(rec):
    g = rec.get("guest")
    lines = ["# Power-cut soak", "", f"`{rec['rerun']}`", "",
             f"Verdict: **{'PASS' if rec['passed'] else 'FAIL'}** (expected: {rec['expect']})"
             + "".join(f"; {w}" for w in rec["why"]), "", device_line(rec["device"]), ""]
    if g:
        cyc = g.get("power_cycles", {})
        lines += ["| requests | failed by cuts | check reads | cuts (guest / drive) | "
                  "sectors checked (reads / after cuts) | at risk | kept | "
                  "volatile lost | losses |",
                  "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
                  f"| {g['requests']} | {g['failed']} | {g['check_reads']} | "
                  f"{g['cuts']} / {cyc.get('cuts', 0)} | {g['read_sectors_checked']} / "
                  f"{g['cut_sectors_checked']} | {g['at_risk_sectors']} | "
                  f"{g['kept_sectors']} | {g['volatile_lost_sectors']} | {g['losses']} |", "",
                  f"Workload: {g['reads']} reads, {g['writes']} writes "
                  f"({g['dsync_writes']} O_DSYNC), {g['flushes']} flushes, "
                  f"{g['discards']} discards; {g['jobs']} jobs, slices of "
                  f"{g['slice_bytes']} bytes {g['stride_bytes']} apart.  The drive "
                  f"lost {cyc.get('lost_bytes', 0)} bytes of its volatile cache in "
                  f"{cyc.get('lost_extents', 0)} extents and failed "
                  f"{cyc.get('dropped_requests', 0)} requests in flight at its cuts.  "
                  f"Host time {rec['host_s']} s.", "",
                  f"The drive's trace of every command (`{TRACE}`, the same on every "
                  f"run of this command): SHA-256 "
                  f"`{rec['drive_trace']['sha256']}`, {rec['drive_trace']['bytes']} "
                  f"bytes; the drive got {rec['drive_trace']['fua_writes']} FUA writes and "
                  f"{rec['drive_trace']['flushes']} flushes.", "",
                  f"Kernel: {g.get('kernel', '?')}", "",
                  "*at risk*: sectors checked after a cut that had a write newer than "
                  "the last durable one; *kept*: of those, holding the newest; "
                  "*volatile lost*: holding an older one, no older than the durable one "
                  "(what the drive's cache may lose); *losses*: sectors that failed a "
                  "check (older than durable, foreign or damaged, or a read that did not "
                  "return the last acknowledged write).", ""]
    lines += ["run-guest command (`scripts/` is the checkout's; run it in a directory "
              "holding a fresh sparse disk.img):", "",
              f"    {rec['command']}", ""]
    return "\n".join(lines)


def write_record(out, rec):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "report.json"), "w") as f:
        json.dump(rec, f, indent=1, sort_keys=True)
        f.write("\n")
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write(markdown(rec))
