"""Running a child program (run-guest, platter-sim, run-guest --check, the
builds): its output read with a bound, a timeout that takes its whole
session, and a failure as one line.  Every run of platter-sim goes through
sim() here: compare's cells, a profile's check, calibrate and validate.

Each child starts in a session of its own, so a timeout can take all it
started; the terminal's Ctrl-C therefore does not reach it.  stop_on_signals()
makes SIGINT, SIGTERM and SIGHUP stop them instead: every child session is
sent SIGTERM (SIGKILL after STOP_GRACE_S, or at a second signal), no new
child starts, and the command ends with Interrupted (status 128 + the
signal) once its work directories are removed.

Children's temporary files go in one folder of this process's own under
$TMPDIR (their TMPDIR, unless the caller chose another), removed at exit
once every child has ended: a child killed before its own cleanup (a
second signal's SIGKILL reaches run-guest in the middle of removing its
work directory) leaves nothing behind."""
import atexit
import contextlib
import concurrent.futures as cf
import os
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from typing import NamedTuple

from . import cli, strictjson

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


# how long children have, after a stopping signal's SIGTERM, before SIGKILL
STOP_GRACE_S = 10
_SIGNALS = cli.STOP_SIGNALS


class Interrupted(cli.Failure):
    """The command was stopped by a signal: status 128 + its number, as a
    shell reports a command a signal ended."""

    def __init__(self, signum):
        super().__init__(f"platter: stopped by {signal.Signals(signum).name}: "
                         "every run it started was stopped and its files removed")
        self.status = 128 + signum
        self.code = self.status
        self.signum = signum


class Stopped(Exception):
    """A child was asked for after a stopping signal."""


def session_members(sids):
    """{sid: [pids]}: the processes of each session in sids (Linux /proc),
    in one pass: what a process-group kill misses (timeout(1) puts its
    command in a group of its own).  One pass for all sessions, since a
    stop on a loaded host must not read /proc once per child session."""
    out = {sid: [] for sid in sids}
    if not out:
        return out
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue   # gone meanwhile
        fields = _stat_fields(stat)
        if len(fields) > 3 and fields[0] != b"Z":
            sid = int(fields[3])
            if sid in out:
                out[sid].append(int(name))
    return out


def _stat_fields(stat):
    """/proc/PID/stat's fields after the command name in parentheses:
    state ppid pgrp session ...  A zombie (state Z) has ended: an unwaited
    child of platter's own is one until exit, and counted as running it
    held the reap for its whole grace."""
    return stat[stat.rfind(b")") + 2:].split()


def _alive(pid):
    """pid runs (not a zombie)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return _stat_fields(f.read())[:1] != [b"Z"]
    except OSError:
        return False


def kill_session(sid, sig):
    """Send sig to every process of session sid; how many there were."""
    return kill_sessions([sid], sig)


def kill_sessions(sids, sig):
    """Send sig to every process of each session in sids; how many there
    were.  A helper's child is no session leader (run_main): then its
    session's sid is its pid, and that pid alone is sent sig."""
    members = session_members(sids)
    n = 0
    for sid, pids in members.items():
        if not pids and not CHILDREN.own_sessions and CHILDREN.running(sid) and \
                _alive(sid):
            pids = [sid]
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)
        n += len(pids)
    return n


class _Children:
    """The child sessions this process started and has not seen end, and
    whether a signal has asked to stop (process-wide, as signals are)."""

    def __init__(self):
        self.lock = threading.RLock()   # a handler may run while the main thread holds it
        self.sessions = set()
        self.stopping = None   # the signal that stops the command
        # while the main thread starts a child, a stop's Interrupted waits
        # (deferred) so the child and its folder are tracked before it is
        # raised: raised inside Popen or mkdtemp, it left a child running
        # or an empty platter-children.* behind (signals family)
        self.deferring = 0
        self.deferred = None
        self.tmp_root = None   # the children's TMPDIR, made at the first spawn
        # children in sessions of their own (platter); a helper run by
        # platter (run_main) keeps them in its own session, which platter
        # stops whole even when a SIGKILL leaves the helper no time to
        self.own_sessions = True

    def child_env(self, env):
        """env (None: this process's) with TMPDIR in the children's folder,
        unless the caller set a TMPDIR of its own."""
        base = os.environ if env is None else env
        if base.get("TMPDIR") != os.environ.get("TMPDIR"):
            return env
        if self.tmp_root is None:
            try:
                self.tmp_root = tempfile.mkdtemp(prefix="platter-children.")
            except OSError:
                return env     # the children meet the same TMPDIR and say so
            # registered before reap(): atexit runs it after the reap
            atexit.register(self.remove_tmp_root)
        return dict(base, TMPDIR=self.tmp_root)

    def remove_tmp_root(self):
        """At exit: the children's folder goes once no child runs, or
        STOP_GRACE_S later (a child SIGKILLed a moment ago may still be
        ending)."""
        if not self.tmp_root:
            return
        end = time.monotonic() + STOP_GRACE_S
        while self.kill_all(0) and time.monotonic() < end:
            time.sleep(0.05)
        shutil.rmtree(self.tmp_root, ignore_errors=True)

    @contextlib.contextmanager
    def _deferring(self):
        """In the main thread, a stop that comes inside the block raises its
        Interrupted when the block ends (after what the block does)."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        self.deferring += 1
        try:
            yield
        finally:
            self.deferring -= 1
            late, self.deferred = self.deferred, None
            if late is not None:
                raise late

    def spawn(self, cmd, **kw):
        """subprocess.Popen(cmd) in a session of its own, tracked."""
        with self.lock, self._deferring():
            if self.stopping is not None:
                raise Stopped(cmd[0])
            kw["env"] = self.child_env(kw.get("env"))
            p = subprocess.Popen(cmd, start_new_session=self.own_sessions, **kw)
            self.sessions.add(p.pid)
            if self.stopping is not None:
                # the stop's kill came before p was tracked
                kill_session(p.pid, signal.SIGTERM)
        return p

    def running(self, pid):
        """pid is a child spawned here that has not been seen to end."""
        with self.lock:
            return pid in self.sessions

    def ended(self, p):
        with self.lock:
            self.sessions.discard(p.pid)

    def kill_all(self, sig):
        with self.lock:
            sessions = list(self.sessions)
        return kill_sessions(sessions, sig)

    def stop(self, signum):
        """A stopping signal: True the first time.  Every child session is
        sent SIGTERM, and SIGKILL STOP_GRACE_S later (from a thread of its
        own: the interpreter joins its worker threads, which may wait for
        a child that ignored the SIGTERM, before the atexit reap runs); a
        second signal sends SIGKILL at once."""
        with self.lock:
            first = self.stopping is None
            if first:
                self.stopping = signum
        self.kill_all(signal.SIGTERM if first else signal.SIGKILL)
        if first:
            atexit.register(self.reap)
            threading.Thread(target=self._kill_after_grace, daemon=True).start()
        return first

    def _kill_after_grace(self):
        end = time.monotonic() + STOP_GRACE_S
        while self.kill_all(0) and time.monotonic() < end:
            time.sleep(0.05)
        self.kill_all(signal.SIGKILL)

    def reap(self):
        """At exit after a stop: wait up to STOP_GRACE_S for every child
        session to empty, then SIGKILL what is left."""
        end = time.monotonic() + STOP_GRACE_S
        while self.kill_all(0) and time.monotonic() < end:
            time.sleep(0.05)
        self.kill_all(signal.SIGKILL)


CHILDREN = _Children()


def _on_signal(signum, _frame):
    if CHILDREN.stop(signum):
        if CHILDREN.deferring:
            CHILDREN.deferred = Interrupted(signum)
        else:
            raise Interrupted(signum)


def stop_on_signals():
    """SIGINT, SIGTERM and SIGHUP stop every child and end the command with
    Interrupted (from the main thread, where Python runs handlers)."""
    for s in _SIGNALS:
        # one ignored when platter started (nohup's SIGHUP, a script's
        # background job's SIGINT) stays ignored
        if signal.getsignal(s) is not signal.SIG_IGN:
            signal.signal(s, _on_signal)


def run_main(main, argv):
    """main(argv)'s status for a module run as a program (python3 -m
    platterlib.X) that starts children: a stopping signal stops them too
    and ends it with 128 + the signal, silently (whoever sent it says why)."""
    stop_on_signals()
    CHILDREN.own_sessions = False
    try:
        return main(argv)
    except Interrupted as e:
        cli.ignore_stops()
        return e.status


@contextlib.contextmanager
def temp_dir(prefix):
    """A temporary folder (in TMPDIR) removed on the way out, however it
    goes: a stop's Interrupted waits while the folder is made and while it
    is removed, so it comes neither between mkdtemp and the folder's
    tracking nor in the middle of its removal (signals family: a stop in
    TemporaryDirectory left platter-apply-* behind)."""
    path = None
    try:
        with CHILDREN._deferring():     # a stop raises at its end: path is set
            path = tempfile.mkdtemp(prefix=prefix)
        yield path
    finally:
        if path:
            with CHILDREN._deferring():
                shutil.rmtree(path, ignore_errors=True)


def spawn(cmd, **kw):
    """A tracked child in a session of its own (raises Stopped after a
    stopping signal); wait for it with wait()."""
    return CHILDREN.spawn(cmd, **kw)


def run_plain(cmd, input=None, capture_output=False, **kw):
    """subprocess.run(cmd, ...) for a short helper (git, a build script's
    --print-key, run-guest --check) as a tracked child: a stopping signal
    stops it with the rest, where a plain subprocess.run child outlived
    platter (issue 39, signals family).  Raises Stopped after a stop."""
    if capture_output:
        kw["stdout"] = kw["stderr"] = subprocess.PIPE
    if input is not None:
        kw["stdin"] = subprocess.PIPE
    p = spawn(cmd, **kw)
    # a stop in the middle leaves p to the stop (SIGTERM now, so it can
    # stop what it started; SIGKILL after the grace): still tracked.  A
    # communicate() that timed out may be called again, losing nothing
    sent = [input]

    def talk(t):
        data, sent[0] = sent[0], None     # input goes once; a retry sends none
        return p.communicate(data, timeout=t)
    out, err = _in_steps(talk)
    CHILDREN.ended(p)
    return subprocess.CompletedProcess(cmd, p.returncode, out, err)


# A stopping signal reaches whichever thread the kernel picks: one that
# reaches a worker (waiting for its child) sets Python's flag, but its
# handler runs only when the main thread next runs Python code.  A main
# thread blocked without a timeout (on a future, a child, a reader) then
# never took it: compare ran on with both signals seen and ignored.  So
# the main thread waits in steps of WAKE_S.
WAKE_S = 0.2


def _in_steps(fn, timeout=None, expired=subprocess.TimeoutExpired):
    """fn(t) until it does not raise `expired`, each t at most WAKE_S in
    the main thread; re-raises once `timeout` (None: none) has passed."""
    if threading.current_thread() is not threading.main_thread():
        return fn(timeout)
    end = None if timeout is None else time.monotonic() + timeout
    while True:
        left = None if end is None else end - time.monotonic()
        step = WAKE_S if left is None else max(0.0, min(WAKE_S, left))
        try:
            return fn(step)
        except expired:
            if left is not None and left <= WAKE_S:
                raise


def result(fut):
    """fut.result(), waited for in steps (WAKE_S)."""
    return _in_steps(lambda t: fut.result(timeout=t), expired=cf.TimeoutError)


def as_completed(futs):
    """cf.as_completed(futs), waited for in steps (WAKE_S)."""
    pending = set(futs)
    while pending:
        done, pending = _in_steps(
            lambda t: _some_done(pending, t), expired=cf.TimeoutError)
        yield from done


def _some_done(pending, t):
    done, rest = cf.wait(pending, timeout=t, return_when=cf.FIRST_COMPLETED)
    if not done:
        raise cf.TimeoutError
    return done, rest


def wait(p, timeout=None):
    """p's exit status; on timeout its whole session is killed and
    subprocess.TimeoutExpired raised."""
    try:
        return _in_steps(lambda t: p.wait(timeout=t), timeout)
    except subprocess.TimeoutExpired:
        kill_session(p.pid, signal.SIGKILL)
        p.wait()
        raise
    finally:
        if p.returncode is not None:
            CHILDREN.ended(p)


@contextlib.contextmanager
def pool(workers):
    """A thread pool whose queued work is dropped when the block ends by an
    exception (a stopping signal): only the running items finish."""
    ex = cf.ThreadPoolExecutor(max_workers=workers)
    try:
        yield ex
    except BaseException:
        ex.shutdown(wait=True, cancel_futures=True)
        raise
    ex.shutdown(wait=True)


def run(cmd, timeout=None, cwd=None, env=None, ok_status=(0,), stdin=None):
    """Run cmd to its end (or timeout host seconds; None: no limit).  An
    exit status outside ok_status is a failure.  On timeout the whole
    session goes (run-guest's builds and QEMU with it)."""
    try:
        p = spawn(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                  stdin=stdin, cwd=cwd, env=env)
    except OSError as e:
        return Ran(None, f"cannot run {cmd[0]}: {e.strerror}", None, "")
    except Stopped:
        return Ran(None, f"not run: stopped by a signal: {shlex.join(cmd[:3])} ...", None, "")
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
                kill_session(p.pid, signal.SIGKILL)
                buf.clear()
            elif got["over"]:
                buf.clear()

    readers = [threading.Thread(target=drain, args=(p.stdout, "out", False), daemon=True),
               threading.Thread(target=drain, args=(p.stderr, "err", True), daemon=True)]
    for r in readers:
        r.start()
    try:
        wait(p, timeout)
    except subprocess.TimeoutExpired:
        return Ran(None, f"no result after {timeout} s (killed): {shlex.join(cmd[:3])} ...",
                   None, "")
    finally:
        for r in readers:
            while r.is_alive():
                r.join(WAKE_S)
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
