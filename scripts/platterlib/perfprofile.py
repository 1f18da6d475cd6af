"""Where QEMU's host time goes, from `perf record -e cpu-clock --call-graph
dwarf` of a guest run (scripts/bench-guest --perf).

Each sample of the QEMU process is charged to one category: the subsystem
of the innermost frame that lies in QEMU's own code, found by the source
file that defines its function (`gdb -batch -ex 'info functions'` on the
binary, which lists functions by file).  A sample whose leaf is in the host
kernel is charged to "host kernel" (syscalls: poll, futex, the image's
pwrite) and, apart, to the QEMU category that made the call; a leaf in libc
or glib (memcpy, malloc, locks) goes to the QEMU frame above it; a leaf
with no symbol in an anonymous mapping is TCG's generated code.  Stacks
unwound through generated code stop there, so "inclusive" figures (a
category anywhere on the stack) are lower bounds.
"""
import collections
import json
import os
import re
import shutil
import subprocess
import tempfile

# (category, source path prefix under QEMU's tree); first match wins
CATEGORIES = (
    ("model (hw-model)", "block/hwm/"),
    # the driver's files: hddmodel.c and its hddmodel-*.c (image, power, ...)
    ("driver (hddmodel.c)", "block/hddmodel"),
    ("block layer and null-co", "block"),
    ("block layer and null-co", "util/thread-pool.c"),
    ("block layer and null-co", "util/qemu-coroutine"),
    ("block layer and null-co", "util/coroutine-"),
    ("front end (virtio, nvme, scsi)", "hw/virtio/"),
    ("front end (virtio, nvme, scsi)", "hw/block/"),
    ("front end (virtio, nvme, scsi)", "hw/nvme/"),
    ("front end (virtio, nvme, scsi)", "hw/scsi/"),
    ("MMIO and PCI dispatch", "system/memory"),
    ("MMIO and PCI dispatch", "system/physmem.c"),
    ("MMIO and PCI dispatch", "system/ioport.c"),
    ("MMIO and PCI dispatch", "hw/pci"),
    ("icount and cpu loop", "accel/tcg/icount"),
    ("icount and cpu loop", "accel/tcg/tcg-accel-ops"),
    ("icount and cpu loop", "system/cpu-timers.c"),
    ("icount and cpu loop", "system/cpus.c"),
    ("icount and cpu loop", "accel/tcg/cpu-exec"),
    ("TCG softmmu (TLB, loads/stores)", "accel/tcg/cputlb.c"),
    ("TCG softmmu (TLB, loads/stores)", "accel/tcg/ldst_"),
    ("TCG translation", "tcg/"),
    ("TCG translation", "accel/tcg/"),
    ("TCG translation", "target/i386/tcg/translate.c"),
    ("TCG translation", "target/i386/tcg/decode"),
    ("TCG translation", "target/i386/tcg/emit"),
    ("TCG helpers (guest instructions)", "target/"),
    ("TCG helpers (guest instructions)", "fpu/"),
    ("timers, bottom halves, main loop", "util/qemu-timer.c"),
    ("timers, bottom halves, main loop", "util/async.c"),
    ("timers, bottom halves, main loop", "util/aio-"),
    ("timers, bottom halves, main loop", "util/fdmon"),
    ("timers, bottom halves, main loop", "util/main-loop.c"),
    ("timers, bottom halves, main loop", "util/event_notifier"),
    ("locks and thread wake-ups", "util/qemu-thread"),
    ("locks and thread wake-ups", "system/rcu"),
    ("locks and thread wake-ups", "util/rcu.c"),
    ("locks and thread wake-ups", "util/qemu-lockcnt.c"),
    ("other devices (APIC, timers, serial)", "hw/"),
)
TCG_CODE = "TCG generated code"
KERNEL = "host kernel"
OTHER = "other QEMU"
UNKNOWN = "outside QEMU (no QEMU frame)"
INCLUSIVE = ("driver (hddmodel.c)", "model (hw-model)", "MMIO and PCI dispatch",
             "timers, bottom halves, main loop", "TCG translation", "block layer and null-co")

_HEADER = re.compile(r"^(.*\S)\s+(\d+)/(\d+)\s+(\d+)\s*$")
_FRAME = re.compile(r"^\s+([0-9a-f]+)\s+(.*?)\s+\((.*)\)\s*$")
_FUNC = re.compile(r"([A-Za-z_]\w*)\(")
# QEMU's thread names (a run-guest recording also holds bash, timeout, ...)
_QEMU_THREAD = re.compile(r"qemu-system|CPU \d+/|worker|call_rcu|IO ")


def record_prefix(path):
    """perf record argv for one run; the workload's argv follows.  perf
    follows run-guest's children, QEMU among them."""
    return ["perf", "record", "-q", "-e", "cpu-clock", "-F", "499",
            "--call-graph", "dwarf,16384", "-o", path, "--"]


def stat_prefix(path):
    """perf stat argv counting the run's context switches (every process
    of it: run-guest, QEMU's threads) into path."""
    return ["perf", "stat", "-x,", "-e", "context-switches", "-o", path, "--"]


def read_stat(path):
    """{"context_switches": N} from a perf stat -x, file, or {}."""
    try:
        with open(path) as f:
            for line in f:
                fields = line.strip().split(",")
                if len(fields) > 2 and fields[2] == "context-switches" and fields[0].isdigit():
                    return {"context_switches": int(fields[0])}
    except OSError:
        pass
    return {}


def unusable():
    """Why perf cannot record here, or None."""
    if not shutil.which("perf"):
        return "perf is not installed (apt-get install linux-perf)"
    if not shutil.which("gdb"):
        return "gdb is not installed (apt-get install gdb): it maps QEMU's functions to files"
    with tempfile.TemporaryDirectory() as tmp:
        p = subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-o",
                            os.path.join(tmp, "probe.data"), "--", "true"],
                           capture_output=True, text=True)
    if p.returncode != 0:
        return f"perf record -e cpu-clock does not work: {p.stderr.strip()[-200:]}"
    return None


def function_files(binary, cache_dir):
    """{function name: source path under QEMU's tree} from gdb's list,
    cached per binary (path, size, mtime) in cache_dir."""
    st = os.stat(binary)
    key = f"{os.path.realpath(binary)}:{st.st_size}:{int(st.st_mtime)}"
    cache = os.path.join(cache_dir, "qemu-functions.json")
    try:
        with open(cache) as f:
            doc = json.load(f)
        if doc.get("key") == key:
            return doc["functions"]
    except (OSError, ValueError):
        pass
    out = subprocess.run(["gdb", "-batch", "-nx", "-ex", "info functions", binary],
                         capture_output=True, text=True).stdout
    funcs, cur = {}, None
    for line in out.splitlines():
        if line.startswith("File "):
            cur = line[5:].rstrip(":")
            cur = cur.split("/src/", 1)[-1] if "/src/" in cur else cur.lstrip("./")
        elif line.startswith("Non-debugging symbols"):
            cur = None
        elif cur and ":\t" in line:
            m = _FUNC.search(line.split(":\t", 1)[1])
            if m:
                funcs.setdefault(m.group(1), cur)
    with open(cache, "w") as f:
        json.dump({"key": key, "functions": funcs}, f)
    return funcs


def category_of_file(path):
    for cat, prefix in CATEGORIES:
        if path.startswith(prefix):
            return cat
    return OTHER


def samples(perf_data):
    """(comm, pid, tid, period_ns, [(sym, dso), leaf first]) per sample."""
    p = subprocess.Popen(["perf", "script", "-i", perf_data, "-F", "comm,pid,tid,period,ip,sym,dso"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                         errors="replace")
    head, frames = None, []
    for line in p.stdout:
        if not line.strip():
            if head:
                yield (*head, frames)
            head, frames = None, []
            continue
        m = _HEADER.match(line)
        if m and not line[0].isspace():
            if head:
                yield (*head, frames)
            head, frames = (m.group(1), int(m.group(2)), int(m.group(3)),
                            int(m.group(4))), []
            continue
        f = _FRAME.match(line)
        if f and head:
            sym = re.sub(r"\+0x[0-9a-f]+$", "", f.group(2))
            frames.append((sym, f.group(3)))
    if head:
        yield (*head, frames)
    p.wait()


# a thread's role, by a function on its stacks (threads are unnamed
# without -name debug-threads=on)
_ROLES = (("vCPU thread", ("rr_cpu_thread_fn", "cpu_exec", "cpu_tb_exec")),
          ("thread-pool worker", ("worker_thread",)),
          ("RCU thread", ("call_rcu_thread",)))


def thread_roles(recs):
    funcs = collections.defaultdict(set)
    pids = {}
    for _, pid, tid, _, frames in recs:
        funcs[tid].update(sym for sym, _ in frames)
        pids[tid] = pid
    out = {}
    for tid, fs in funcs.items():
        role = next((r for r, marks in _ROLES if fs & set(marks)), None)
        out[tid] = role or ("main loop thread" if tid == pids[tid] else "other thread")
    return out


def attribute(perf_data):
    """QEMU's samples in one recording: ns per category (exclusive), per
    category anywhere on the stack (inclusive), per thread, and the host
    kernel's share by the QEMU category that entered it."""
    recs = [r for r in samples(perf_data) if _QEMU_THREAD.match(r[0])]
    qemu_pids = {pid for comm, pid, _, _, _ in recs if comm.startswith("qemu-system")}
    roles = thread_roles(recs)
    binary = None
    for _, pid, _, _, frames in recs:
        if pid in qemu_pids:
            binary = next((d for _, d in frames if d.endswith("qemu-system-x86_64")), None)
            if binary:
                break
    funcs = function_files(binary, os.path.dirname(perf_data)) if binary else {}
    excl, incl, threads, kernel_by = (collections.Counter() for _ in range(4))
    syms = collections.defaultdict(collections.Counter)
    total = 0
    for comm, pid, tid, period, frames in recs:
        if pid not in qemu_pids:
            continue
        total += period
        threads[roles.get(tid, "other thread")] += period
        cats = []
        for sym, dso in frames:
            if sym in funcs and dso.endswith("qemu-system-x86_64"):
                cats.append(category_of_file(funcs[sym]))
        leaf_sym, leaf_dso = frames[0] if frames else ("[unknown]", "[unknown]")
        if leaf_dso.startswith("[kernel") or leaf_dso == "[vdso]":
            cat = KERNEL
            kernel_by[cats[0] if cats else UNKNOWN] += period
        elif leaf_sym == "[unknown]" and ("[unknown]" in leaf_dso or "anon" in leaf_dso
                                          or "JIT" in leaf_dso or "perf-" in leaf_dso):
            cat = TCG_CODE
        elif cats:
            cat = cats[0]
        else:
            cat = UNKNOWN
        excl[cat] += period
        syms[cat][next((f"{sym} ({os.path.basename(dso)})" for sym, dso in frames
                        if dso.endswith("qemu-system-x86_64") and sym in funcs),
                       f"{leaf_sym} ({re.sub(r'perf-[0-9]+[.]map', 'JIT', os.path.basename(leaf_dso))})")] += period
        for c in set(cats) & set(INCLUSIVE):
            incl[c] += period
    return {"qemu_ns": total, "exclusive_ns": dict(excl), "inclusive_ns": dict(incl),
            "threads_ns": dict(threads), "kernel_by_caller_ns": dict(kernel_by),
            "top_functions_ns": {c: dict(n.most_common(8)) for c, n in syms.items()}}


def per_io(short, long_, ios):
    """us per guest I/O of each category: (long - short) / ios."""
    out = {"QEMU total": round((long_["qemu_ns"] - short["qemu_ns"]) / ios / 1e3, 2)}
    for part, tag in (("exclusive_ns", ""), ("inclusive_ns", " (inclusive)"),
                      ("threads_ns", " (thread)"), ("kernel_by_caller_ns", " (kernel, from)")):
        for c in set(short[part]) | set(long_[part]):
            out[f"{c}{tag}"] = round((long_[part].get(c, 0) - short[part].get(c, 0))
                                     / ios / 1e3, 2)
    return out


def table(cells):
    """Markdown: one column per profiled cell, us per guest I/O."""
    prof = [c for c in cells if "perf_us_per_io" in c.get("summary", {})]
    if not prof:
        return ""
    rows = sorted({k for c in prof for k in c["summary"]["perf_us_per_io"]},
                  key=lambda k: (("(" in k), k != "QEMU total", k))
    lines = ["| us of QEMU CPU per guest I/O | " + " | ".join(c["id"] for c in prof) + " |",
             "| --- |" + " ---: |" * len(prof)]
    for k in rows:
        lines.append(f"| {k} | " + " | ".join(
            f"{c['summary']['perf_us_per_io'].get(k, 0.0):.2f}" for c in prof) + " |")
    return "\n".join(lines)
