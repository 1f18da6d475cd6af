"""DiskSim's drive validation traces, read and written as platter-trace v1.

DiskSim 4.0 ships, for each drive it was validated against, a trace of a
real drive (valid/*.trace, read by iotrace_validate_get_ioreq_event() in
src/disksim_iotrace.c).  One request a line, six fields:

    R|W  BUFFACTION  BLKNO  BLOCKS  SERVICE_US  NEXT_INTERARRIVAL_US

SERVICE_US is the response time the real drive gave the request;
NEXT_INTERARRIVAL_US is the idle time between its completion and the
arrival of the next request (DiskSim issues the next one that long after
the previous completes, src/disksim_iodriver.c).  The requests were issued
one at a time, so the arrival times the real drive saw are

    arrival[0] = 0,  arrival[i+1] = arrival[i] + SERVICE_US[i] + NEXT_US[i]

and the converted trace replays them open loop at those times, each line
carrying the drive's own completion as `# done=` (hwm.h's format).  Blocks
are 512 bytes (DiskSim's unit).  Times are decimal microseconds; they are
read as decimals, never floats, and each lands on the nearest whole
nanosecond (half to even): some traces give six decimals of a microsecond
(hp_c2490a, hp_c3323a, dec_rz26, st41601n), digits of no measurement at
that resolution.
"""
import decimal
import os
import stat

BLOCK_BYTES = 512
_NS_PER_US = decimal.Decimal(1000)
# platter-trace times are signed 64-bit nanoseconds
NS_MAX = (1 << 63) - 1
# DiskSim's validation traces are a few MB; a bound, since read() keeps
# every request
TRACE_MAX_BYTES = 256 << 20


class TraceError(Exception):
    """One line naming the file, the line and the field that is wrong."""


def _us_to_ns(text, where, field):
    try:
        v = decimal.Decimal(text)
    except decimal.InvalidOperation:
        v = None
    if v is None or not v.is_finite() or v < 0:
        raise TraceError(f"{where}: {field} '{text}' is not a time in "
                         "microseconds (a decimal, 0 or more)")
    # compared as a decimal: 1e999990 as an int would take many seconds
    if v > NS_MAX / _NS_PER_US:
        raise TraceError(f"{where}: {field} '{text[:30]}' is out of range (at most "
                         f"{NS_MAX // 1000} us)")
    return int((v * _NS_PER_US).to_integral_value(decimal.ROUND_HALF_EVEN))


def _count(text, where, field, lo):
    if not text.isdigit() or int(text) < lo:
        raise TraceError(f"{where}: {field} '{text}' is not an integer of "
                         f"at least {lo}")
    return int(text)


def read(lines, name):
    """[(op 'R'|'W', offset_bytes, length_bytes, submit_ns, done_ns)] from
    a DiskSim validation trace; TraceError on the first bad line."""
    out, t = [], 0
    for n, line in enumerate(lines, 1):
        where = f"{name}, line {n}"
        f = line.split()
        if not f:
            continue
        if len(f) != 6:
            raise TraceError(f"{where}: {len(f)} fields, a validation trace "
                             "line has 6 (R|W buffaction blkno blocks "
                             "service_us next_interarrival_us)")
        if f[0] not in ("R", "W"):
            raise TraceError(f"{where}: operation '{f[0]}' is not R or W")
        blkno = _count(f[2], where, "blkno", 0)
        blocks = _count(f[3], where, "blocks", 1)
        serv = _us_to_ns(f[4], where, "service_us")
        gap = _us_to_ns(f[5], where, "next_interarrival_us")
        if serv == 0:
            raise TraceError(f"{where}: service_us is 0 (to the ns): no "
                             "drive completes a request in no time")
        if t + serv + gap > NS_MAX:
            raise TraceError(f"{where}: the trace's time passes {NS_MAX} ns")
        out.append((f[0], blkno * BLOCK_BYTES, blocks * BLOCK_BYTES, t, t + serv))
        t += serv + gap
    if not out:
        raise TraceError(f"{name}: no request in the trace")
    return out


def read_file(path):
    try:
        # a FIFO would block for ever, /dev/zero never end: regular files
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            raise TraceError(f"{path}: not a regular file (a DiskSim trace file)")
        if st.st_size > TRACE_MAX_BYTES:
            raise TraceError(f"{path}: {st.st_size} bytes: too large for a validation "
                             f"trace (at most {TRACE_MAX_BYTES})")
        with open(path, encoding="ascii", errors="strict") as f:
            return read(f, path)
    except UnicodeDecodeError as e:
        raise TraceError(f"{path}: not a text trace ({e.reason} at byte "
                         f"{e.start})") from None
    except OSError as e:
        raise TraceError(f"{path}: {e.strerror}") from None


def platter_lines(requests, source):
    """The requests as platter-trace v1 text lines (with newlines).  The
    device header line is left out: the trace is replayed on whatever
    profile the caller names."""
    yield "# platter-trace v1\n"
    yield f"# converted from DiskSim validation trace {source}: arrivals as the real drive saw them, done= its measured completion\n"
    for op, off, length, submit, done in requests:
        yield f"{submit} {op} {off} {length} - # done={done}\n"
