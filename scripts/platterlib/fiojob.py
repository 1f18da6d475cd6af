"""A user's fio job file, checked on the host before it goes into a guest.

The guest's fio test points fio at the target from the command line
(--directory=/mnt on a file system, --filename=/dev/DEV on the raw device).
A job file's own directory=, filename= and friends override command-line
defaults, so a job that names a path of its own would write somewhere
else, on another disk or on the initramfs.  Such a line is rewritten to
the test target (rewritten(): on the raw device a filename= or
directory= goes, so the device platter names applies; on a file system a
directory= outside /mnt goes, a file outside it keeps its name inside
/mnt, and a device goes), each rewrite with a note; the line stays as a
comment, so line numbers do not move.  Names inside the test file system
stay as they are (filename=data, or /mnt/...); a path from the
environment cannot be checked and is refused, with the file, the line and
what to do.  Everything else about the job is fio's business and goes in
unmodified.
"""
import os
import re

from .cli import bad

MAX_BYTES = 1 << 20
MOUNT = "/mnt"
# options that name where fio does its I/O (fio's HOWTO, "Target file/device")
PATH_KEYS = ("directory", "filename", "filename_format", "opendir")
# options that read a file the guest does not have
INPUT_KEYS = ("include", "read_iolog", "replay_redirect", "ioscheduler_file")
SECTION = re.compile(r"\[([^\]]+)\]")
# options that set how long a job runs, in fio's time units (seconds when
# none): timeout is fio's other name for runtime
TIME_KEYS = ("runtime", "timeout", "ramp_time", "startdelay")
TIME_UNITS = {"": 1, "s": 1, "sec": 1, "us": 1e-6, "usec": 1e-6, "ms": 1e-3, "msec": 1e-3,
              "m": 60, "min": 60, "h": 3600, "hr": 3600, "hour": 3600, "d": 86400,
              "day": 86400}
TIME = re.compile(r"([0-9]+(?:\.[0-9]+)?)\s*([a-z]*)")
# a job that asks for more virtual time than this many times the cell's
# runtime, and this many seconds past it, needs --allow-long
LONG_FACTOR, LONG_SLACK_S = 4, 10


def read(path, where):
    """The job text: a readable regular UTF-8 file of at most MAX_BYTES."""
    if not os.path.isfile(path):
        bad(where, f"fio job '{path}': " + (
            "not a regular file" if os.path.exists(path) else "no such file"))
    try:
        size = os.path.getsize(path)
        if size > MAX_BYTES:
            bad(where, f"fio job '{path}': {size} bytes, at most {MAX_BYTES}")
        with open(path, "rb") as f:
            return f.read().decode("utf-8")
    except OSError as e:
        bad(where, f"fio job '{path}': cannot read: {e.strerror}")
    except UnicodeDecodeError:
        bad(where, f"fio job '{path}': not UTF-8 text")


def _inside_mount(value):
    parts = value.split("/")
    return ".." not in parts and (value == MOUNT or value.startswith(MOUNT + "/"))


def _on_target(key, value, fs):
    """(the line's new value or None to drop it, why) when key=value would
    take fio off the test target; None when it keeps fio on it."""
    if fs == "none":
        return (None, "on the raw device platter passes --filename=/dev/DEV itself"
                if key in ("filename", "filename_format") else
                "a raw-device job has no directory")
    if key == "directory":
        return None if _inside_mount(value) else (
            None, f"fio's --directory={MOUNT} from the command line: the test file system")
    if key == "opendir":
        return None if _inside_mount(value) else (
            MOUNT, f"the test file system is at {MOUNT}")
    # filename(_format): names separated by ':' (fio), each relative to
    # directory=/mnt
    names = value.split(":") if key == "filename" else [value]
    if any(n.startswith("/dev/") for n in names):
        return (None, f"a device: fio makes the job's files in {MOUNT}, the test file system")
    kept = [n if (n.startswith("/") and _inside_mount(n)) or
            (not n.startswith("/") and ".." not in n.split("/"))
            else os.path.basename(n.rstrip("/")) for n in names]
    if kept == names:
        return None
    if not all(kept):
        return (None, f"fio makes the job's files in {MOUNT}, the test file system")
    return (":".join(kept), f"the same name in {MOUNT}, the test file system")


def seconds(value):
    """A fio time value in seconds (a range "a-b" or "a:b": its upper
    end), or None when it is not one fio would take."""
    value = re.split(r"[-:]", value.strip().lower())[-1]
    m = TIME.fullmatch(value)
    if not m or m.group(2) not in TIME_UNITS:
        return None
    # (divided for the small units, so 100us is exactly 100e-6)
    unit = TIME_UNITS[m.group(2)]
    return float(m.group(1)) / round(1 / unit) if unit < 1 else float(m.group(1)) * unit


def duration_s(info, runtime):
    """The virtual seconds a checked job file (check()'s "timing") runs at
    most, with the cell's runtime for jobs that set none: its stonewalled
    groups one after another, each as long as its longest job (start
    delay, ramp and runtime).  Returns (seconds, the line that sets the
    longest time, or None)."""
    total, why = 0.0, None
    for group in info["timing"]:
        longest, at = 0.0, None
        for job in group:
            t = job.get("startdelay", (0, None))[0] + job.get("ramp_time", (0, None))[0]
            run, run_at = job.get("runtime", (runtime, None))
            if t + run > longest:
                longest = t + run
                at = max((v for v in job.values() if v[1]), key=lambda v: v[0],
                         default=(0, None))[1]
        total += longest
        why = at or why
    return total, why


def check_long(info, runtime, where):
    """Refuse a job whose own times make it run far past the cell's
    runtime (a tiobench timeout=60 ran 200 virtual s for a 0.3 s cell, and
    fio-rand-read's runtime=900 hit the host's time limit with an error
    that said nothing of it)."""
    total, at = duration_s(info, runtime)
    if total > max(LONG_FACTOR * runtime, runtime + LONG_SLACK_S):
        bad(at or where, f"the job runs up to {total:g} virtual s, "
                         f"the cell's runtime is {runtime:g} s: at several host s per virtual "
                         f"s and vCPU that is a long wait; remove the job's own runtime= "
                         f"(timeout=, ramp_time=, startdelay=) to take the cell's, or pass "
                         f"--allow-long")


def check(path, fs, where):
    """Check a job file for the target fs ('none' for the raw device).
    Returns {"jobs": [section names], "sets_runtime": bool, "timing":
    [[{key: (seconds, "FILE:LINE")} per job] per stonewalled group]}."""
    text = read(path, where)
    jobs, sets_runtime, section = [], False, None
    glob, groups, rewrites = {}, [], []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        at = f"{path}:{n}"
        if not line or line[0] in ";#":
            continue
        m = SECTION.fullmatch(line)
        if m:
            section = m.group(1).strip()
            if section != "global":
                jobs.append(section)
                if not groups:
                    groups.append([])
                groups[-1].append(dict(glob))
            continue
        # fio ends a line at an inline ';' comment (its examples have them)
        key, _, value = line.split(";", 1)[0].partition("=")
        key, value = key.strip(), value.strip()
        if key.startswith("include ") or key == "include":
            bad(at, "'include': the included file does not go into the guest; "
                    "put its lines in this file")
        if section is None:
            bad(at, f"'{line:.60}' comes before any [section]")
        if key in INPUT_KEYS:
            bad(at, f"'{key}' reads a file the guest does not have")
        if key in PATH_KEYS:
            if "$" in value and key != "filename_format":
                bad(at, f"'{key}={value:.60}': a path from the environment cannot be "
                        "checked; name it in the file, or remove the line")
            change = _on_target(key, value, fs)
            if change:
                now, why = change
                rewrites.append({"line": n, "was": line,
                                 "now": None if now is None else f"{key}={now}",
                                 "note": f"{at}: '{line:.60}' " + (
                                     "removed" if now is None else f"became '{key}={now}'")
                                 + f" ({why})"})
        if key in ("runtime", "timeout"):
            sets_runtime = True
        if key in ("stonewall", "wait_for_previous") and section != "global" and \
                len(groups[-1]) > 1:
            # this job waits for the ones before it: a group of its own
            groups.append([groups[-1].pop()])
        if key in TIME_KEYS and seconds(value) is not None:
            slot = "runtime" if key == "timeout" else key
            target = glob if section == "global" else groups[-1][-1]
            target[slot] = (seconds(value), at)
    if not jobs:
        bad(where, f"fio job '{path}': no job section (a [name] other than [global])")
    return {"jobs": jobs, "sets_runtime": sets_runtime, "timing": groups,
            "rewrites": rewrites}


def rewritten(path, info):
    """The job's text with check()'s rewrites made: each line so changed
    kept as a '; platter: ...' comment, the new line after it on the same
    line number's place (a dropped line leaves the comment alone)."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for r in info["rewrites"]:
        i = r["line"] - 1
        new = f"; platter: was '{r['was']}'"
        lines[i] = new if r["now"] is None else f"{r['now']}   {new}"
    return "\n".join(lines)
