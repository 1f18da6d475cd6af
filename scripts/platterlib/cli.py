"""Command-line checks shared by scripts/platter, calibrate and validate
(and, through `python3 -m platterlib.cli size`, the shell scripts' sizes).

Every value is checked when the command line is parsed, before anything is
built or run; a bad one ends the command with one line on stderr naming the
value and what is allowed (status 2), never a traceback.
"""
import argparse
import errno
import math
import os
import re
import signal
import stat
import sys
import tempfile

# platter-sim's --runtime range: above 0, at most 100000 s, ns resolution
RUNTIME_MAX_S = 100000
_DECIMAL = re.compile(r"[0-9]+(\.[0-9]{1,9})?|\.[0-9]{1,9}")


# The exit statuses every platter command uses (docs/guide.md, "Exit codes"):
# CI and `git bisect run` tell a regression from a broken input or build.
EXIT_PASS = 0          # every verdict passed, or nothing was judged
EXIT_REGRESSION = 1    # a regression verdict
EXIT_BAD_INPUT = 2     # usage or bad input: a spec, profile, report or argument
EXIT_INFRA = 125       # a build failed, QEMU or the guest failed, a timeout


class Failure(SystemExit):
    """An error that ends the command with one line on stderr and a status
    from the table above.  A SystemExit, so an uncaught one still ends the
    command; `run` prints its message and exits with its status."""
    status = EXIT_BAD_INPUT

    def __init__(self, message):
        super().__init__(self.status)
        self.message = message

    def __str__(self):
        return self.message


class BadInput(Failure):
    status = EXIT_BAD_INPUT


class InfraError(Failure):
    status = EXIT_INFRA


def bad(where, why):
    """A spec error: one line naming the file, the field and what is allowed."""
    raise BadInput(f"platter: {where}: {why}")


def bad_input(message):
    raise BadInput(message)


def infra(message):
    raise InfraError(message)


# errnos that say the host ran out of something, not that a path was wrong
_HOST_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.ENOMEM}


def write_failed(message, e):
    """A file could not be written: the host's fault (a full disk, an I/O
    error: status 125) or the path's (status 2)."""
    cls = InfraError if e.errno in _HOST_ERRNOS else BadInput
    raise cls(message)


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def ignore_stops():
    """A command a signal stopped has stopped its children and removed
    their files: a further Ctrl-C is ignored while it exits.  (Python puts
    its handled signals back to their default as it shuts down, and a
    second SIGINT then killed platter: status -2 for 130.)"""
    for s in STOP_SIGNALS:
        signal.signal(s, signal.SIG_IGN)


def run(main, prog):
    """sys.exit(main()), except that output which cannot be written to
    stdout (a full disk) is one error line, not a traceback: a result cut
    short is not a result (status 125, the host's fault).  A reader that went away (`| head`)
    ends the command silently by SIGPIPE, as it ends cat or grep."""
    try:
        status = main()
        sys.stdout.flush()
    except Failure as e:
        if getattr(e, "signum", None):
            ignore_stops()
        print(e.message, file=sys.stderr)
        status = e.status
    except OSError as e:
        # a write to stdout; a file the command opens carries its name
        if e.filename is not None or e.errno is None:
            raise
        # nothing more may reach fd 1, not even the flush at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        if e.errno == errno.EPIPE:
            signal.signal(signal.SIGPIPE, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGPIPE)
        print(f"{prog}: cannot write the output to stdout: {e.strerror}",
              file=sys.stderr)
        status = EXIT_INFRA
    sys.exit(status)


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line: 'PROG: error: WHAT'."""

    def error(self, message):
        print(f"{self.prog}: error: {message} (see --help)", file=sys.stderr)
        sys.exit(2)


def runtime(text):
    """Virtual seconds: a decimal above 0 and at most RUNTIME_MAX_S with at
    most 9 decimals (platter-sim's own rule); an int when whole."""
    if not _DECIMAL.fullmatch(text) or not 0 < float(text) <= RUNTIME_MAX_S:
        raise argparse.ArgumentTypeError(
            f"'{text}' is not a duration (seconds, above 0 and at most "
            f"{RUNTIME_MAX_S}, e.g. 60 or 0.5)")
    return as_runtime(float(text))


def as_runtime(v):
    return int(v) if v == int(v) else v


def runtime_text(v):
    """A runtime as the children read it: plain decimals, never Python's
    exponent form (issue 39: 0.00005 reached platter-sim as '5e-05')."""
    if type(v) is int:
        return str(v)
    return format(v, ".9f").rstrip("0").rstrip(".")


def valid_runtime(v):
    """A runtime read from a spec (a JSON number)."""
    return (type(v) in (int, float) and math.isfinite(v) and 0 < v <= RUNTIME_MAX_S
            and _DECIMAL.fullmatch(repr(float(v))) is not None)


# A size as fio, QEMU and platter-sim write one: decimal digits, then no
# suffix or K, M, G, T (binary: 2^10, 2^20, ...).  The one reading of a
# size in platter's Python (validate's fio sizes, an experiment's "mem").
SIZE = re.compile(r"(0|[1-9][0-9]*)([KMGT]?)")
SIZE_SHIFT = {"K": 10, "M": 20, "G": 30, "T": 40}


def size_bytes(text, suffixes="KMGT", bare="", max_digits=None):
    """The bytes of a size such as 4K, 64M or 200G, or None when text is
    not one: a suffix outside suffixes, more than max_digits digits, or
    no suffix when bare is None (else a bare number is in bare's unit:
    '' bytes, 'M' MiB as QEMU's -m reads it)."""
    m = SIZE.fullmatch(text) if isinstance(text, str) else None
    if not m or max_digits is not None and len(m.group(1)) > max_digits:
        return None
    unit = m.group(2) or bare
    if unit is None or unit and unit not in suffixes:
        return None
    return int(m.group(1), 10) << SIZE_SHIFT.get(unit, 0)


def main(argv):
    """size VALUE SUFFIXES BARE: VALUE's bytes on stdout (size_bytes with
    those suffixes, BARE the unit of a bare number, '' for bytes), or
    status 1 and nothing when it is not a size: lib/cli.sh's
    cli_check_size reads a shell script's sizes with it."""
    if len(argv) != 4 or argv[0] != "size":
        print("usage: python3 -m platterlib.cli size VALUE SUFFIXES BARE", file=sys.stderr)
        return 2
    n = size_bytes(argv[1], argv[2], argv[3])
    if n is None:
        return 1
    print(n)
    return 0


def int_range(lo, hi, what=""):
    def parse(text):
        try:
            v = int(text, 10)
        except ValueError:
            v = None
        if v is None or not lo <= v <= hi:
            raise argparse.ArgumentTypeError(
                f"'{text}' is not {what + ' ' if what else ''}an integer in [{lo}, {hi}]")
        return v
    return parse


def shard(text):
    """K/N with 1 <= K <= N: (K, N)."""
    m = re.fullmatch(r"([0-9]+)/([0-9]+)", text)
    if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
        raise argparse.ArgumentTypeError(
            f"'{text}' is not K/N with integers 1 <= K <= N (e.g. 2/3)")
    return int(m.group(1)), int(m.group(2))


def executable(text):
    if not os.path.isfile(text) or not os.access(text, os.X_OK):
        raise argparse.ArgumentTypeError(f"'{text}' is not an executable file")
    return text


def existing_dir(text):
    if not os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"'{text}' is not a directory")
    return text


def fresh_output_dir(path):
    """A default output directory that clobbers no earlier run: path, else
    path-2, path-3, ... (the first that does not exist or is empty)."""
    cand, n = path, 1
    while os.path.isdir(cand) and os.listdir(cand) or os.path.lexists(cand) and \
            not os.path.isdir(cand):
        n += 1
        cand = f"{path}-{n}"
    return cand


def output_dir(path, prog="platter"):
    """Make sure path is (or can become) a writable directory now, before
    any cell runs, so results are not lost at the end."""
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        write_failed(f"{prog}: error: output directory '{path}': {e.strerror}", e)
    if not os.access(path, os.W_OK | os.X_OK):
        bad_input(f"{prog}: error: output directory '{path}' is not writable")
    why = cannot_create_in(path)
    if why:
        bad_input(f"{prog}: error: output directory '{path}': a file cannot be made in "
                  f"it ({why})")
    return path


def cannot_create_in(folder):
    """Why a file cannot be made in folder, or None.  os.access is not
    enough: root passes it for /proc and /sys, and a read-only mount
    passes the mode bits."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=".platter-probe.", dir=folder)
    except OSError as e:
        return e.strerror
    os.close(fd)
    os.unlink(tmp)
    return None


def output_file(what, path, looks_like=None, prog="platter"):
    """Make sure path can take an output file now, before anything runs: not
    a directory, FIFO or device; its folder exists and is writable; and an
    existing file is one this output wrote before (its first bytes start
    with one of looks_like), never another file that happens to be there
    (issue 39: --junit replaced the platter-sim binary and scripts/platter)."""
    if path == "":
        bad_input(f"{prog}: {what} '': an empty path")
    if os.path.lexists(path):
        st = os.stat(path) if os.path.exists(path) else None
        if st is None or not stat.S_ISREG(st.st_mode):
            bad_input(f"{prog}: {what} '{path}': not a regular file")
        if looks_like is not None:
            try:
                with open(path, "rb") as f:
                    head = f.read(64).lstrip()
            except OSError as e:
                bad_input(f"{prog}: {what} '{path}': cannot be read: {e.strerror}")
            if head and not head.startswith(tuple(looks_like)):
                bad_input(f"{prog}: {what} '{path}' exists and is not a file this output "
                          "writes: give a new path")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        bad_input(f"{prog}: {what} '{path}': no folder {folder}")
    if not os.access(folder, os.W_OK | os.X_OK):
        bad_input(f"{prog}: {what} '{path}': folder {folder} is not writable")
    why = cannot_create_in(folder)
    if why:
        bad_input(f"{prog}: {what} '{path}': a file cannot be made in {folder} ({why})")
    return path


def refuse_overwrite(outputs, inputs=(), prog="platter"):
    """Outputs never overwrite inputs, nor each other.  outputs and inputs
    are (what, path) pairs (what: the option or role, e.g. '--junit');
    paths are compared after symlinks and '..' are resolved.  A clash is
    BadInput naming both."""
    seen = {}
    for what, path in inputs:
        seen.setdefault(os.path.realpath(path), what)
    for what, path in outputs:
        real = os.path.realpath(path)
        if real in seen:
            bad_input(f"{prog}: {what} '{path}' is also {seen[real]}: an output never "
                      "overwrites an input or another output")
        seen[real] = what


if __name__ == "__main__":
    run(lambda: main(sys.argv[1:]), "platterlib.cli")
