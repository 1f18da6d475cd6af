"""Running a child program (run-guest, platter-sim, run-guest --check):
its output read with a bound, a timeout that takes its whole process
group, and a failure as one line.  Every run of platter-sim goes through
sim() here: compare's cells, a profile's check, calibrate and validate."""
import os
import shlex
import signal
import subprocess
import threading
from typing import NamedTuple

from . import strictjson

# a cell's JSON result (a guest's carries fio's gzipped output): far below
CHILD_OUTPUT_MAX = 64 << 20
# how much of the child's stderr is kept (its last bytes)
STDERR_TAIL = 64 << 10


class Ran(NamedTuple):
    """What a child did: its stdout (None when it failed), the failure in
    one line (None when it did not), its exit status (None when it could
    not start or was killed) and the tail of its stderr."""
    out: str
    why: str
    status: int
    err: str


def run(cmd, timeout=None, cwd=None, env=None, ok_status=(0,), stdin=None):
    """Run cmd to its end (or timeout host seconds; None: no limit).  An
    exit status outside ok_status is a failure.  On timeout the whole
    process group goes (run-guest's builds and QEMU with it)."""
    try:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             stdin=stdin, cwd=cwd, start_new_session=True, env=env)
    except OSError as e:
        return Ran(None, f"cannot run {cmd[0]}: {e.strerror}", None, "")
    # read without bound, a child that prints 3 GB made compare grow to
    # 8.6 GB: stdout is kept up to CHILD_OUTPUT_MAX (the child is killed
    # past it), stderr's last STDERR_TAIL bytes
    got = {"out": bytearray(), "err": bytearray(), "over": False}

    def drain(stream, key, keep_tail):
        for block in iter(lambda: stream.read(1 << 16), b""):
            buf = got[key]
            buf += block
            if keep_tail:
                del buf[:-STDERR_TAIL]
            elif len(buf) > CHILD_OUTPUT_MAX and not got["over"]:
                got["over"] = True
                os.killpg(p.pid, signal.SIGKILL)
                buf.clear()
            elif got["over"]:
                buf.clear()

    readers = [threading.Thread(target=drain, args=(p.stdout, "out", False), daemon=True),
               threading.Thread(target=drain, args=(p.stderr, "err", True), daemon=True)]
    for r in readers:
        r.start()
    try:
        p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        return Ran(None, f"no result after {timeout} s (killed): {shlex.join(cmd[:3])} ...",
                   None, "")
    finally:
        for r in readers:
            r.join()
    err = bytes(got["err"]).decode("utf-8", "replace")
    if got["over"]:
        return Ran(None, (f"more than {CHILD_OUTPUT_MAX} bytes on stdout (killed): "
                          f"{shlex.join(cmd[:3])} ..."), None, err)
    if p.returncode not in ok_status:
        tail = "\n".join(err.strip().splitlines()[-6:])
        return Ran(None, f"exit {p.returncode}: {tail}", p.returncode, err)
    return Ran(bytes(got["out"]).decode("utf-8", "replace"), None, p.returncode, err)


def parse_json(ran, last_line=False):
    """(the JSON on a child's stdout, or with last_line on its last line,
    None), or (None, why)."""
    if ran.why:
        return None, ran.why
    try:
        return strictjson.loads(ran.out.strip().splitlines()[-1] if last_line else ran.out), None
    except (strictjson.Invalid, IndexError) as e:
        return None, f"bad JSON on stdout: {e}"


def run_json(cmd, timeout, cwd=None, last_line=False, env=None, ok_status=(0,)):
    """Run cmd; (its JSON stdout, or with last_line the JSON on its last
    line, None) or (None, why)."""
    return parse_json(run(cmd, timeout, cwd=cwd, env=env, ok_status=ok_status), last_line)


def sim(binary, args, timeout=None):
    """platter-sim (the binary given) with args, stdin closed."""
    return run([binary, *args], timeout, stdin=subprocess.DEVNULL)


def sim_json(binary, args, timeout=None):
    """platter-sim's JSON report: (report, None) or (None, why)."""
    return parse_json(sim(binary, args, timeout))
