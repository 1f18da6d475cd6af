"""A user's fio job file, checked on the host before it goes into a guest.

The guest's fio test points fio at the target from the command line
(--directory=/mnt on a file system, --filename=/dev/DEV on the raw device).
A job file's own directory=, filename= and friends override command-line
defaults, so a job that names a path of its own would write somewhere
else, on another disk or on the initramfs: it is refused here, with the
file, the line and what to do.  Names inside the test file system stay
allowed (filename=data, or /mnt/...); everything else about the job is
fio's business and goes in unmodified.
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


def _path_ok(key, value, fs):
    """None when key=value keeps fio on the test target, else why not."""
    if "$" in value:
        return "a path from the environment cannot be checked"
    if fs == "none":
        return ("on the raw device platter passes --filename=/dev/DEV itself"
                if key in ("filename", "filename_format") else
                "a raw-device job has no directory")
    if key in ("directory", "opendir"):
        return None if _inside_mount(value) else f"the test file system is at {MOUNT}"
    # filename: names separated by ':' (fio), each relative to directory=/mnt
    for name in value.split(":"):
        if name.startswith("/"):
            if not _inside_mount(name):
                return f"'{name}' is not on the test file system ({MOUNT})"
        elif ".." in name.split("/"):
            return f"'{name}' leaves the test file system"
    return None


def check(path, fs, where):
    """Check a job file for the target fs ('none' for the raw device).
    Returns {"jobs": [section names], "sets_runtime": bool}."""
    text = read(path, where)
    jobs, sets_runtime, section = [], False, None
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
            continue
        key, _, value = line.partition("=")
        key, value = key.strip(), value.strip()
        if key.startswith("include ") or key == "include":
            bad(at, "'include': the included file does not go into the guest; "
                    "put its lines in this file")
        if section is None:
            bad(at, f"'{line:.60}' comes before any [section]")
        if key in INPUT_KEYS:
            bad(at, f"'{key}' reads a file the guest does not have")
        if key in PATH_KEYS:
            why = _path_ok(key, value, fs)
            if why:
                bad(at, f"'{key}={value:.60}': platter points fio at the test "
                        f"{'device' if fs == 'none' else 'file system'} itself "
                        f"({why}); remove the line")
        if key == "runtime":
            sets_runtime = True
    if not jobs:
        bad(where, f"fio job '{path}': no job section (a [name] other than [global])")
    return {"jobs": jobs, "sets_runtime": sets_runtime}
