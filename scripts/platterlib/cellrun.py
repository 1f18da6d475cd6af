"""Running one cell: the platter-sim prediction and the guest run, each
read into its figures (cellsummary.py); and run-guest --check on every
cell before anything is built.

A cell's result holds only what the guest and the model computed in
virtual time, so running a cell twice gives identical results; host
timing is kept apart, in the cell's "host" field."""
import base64
import gzip
import json
import os
import shlex
import shutil
import subprocess
import sys
import time

from . import cellsummary
from . import clients
from . import child
from . import cli
from . import devicespec
from . import fioout
from . import fiojob
from . import matrix
from . import paths


def write_client_script(wl, jobs_dir, runtime):
    """A client workload's script for this runtime, in
    jobs_dir/WORKLOAD/ (the report keeps what the guests ran)."""
    path = os.path.join(jobs_dir, wl["name"], clients.script_name(wl))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(clients.script_text(wl, runtime))
    return path


def prepare_jobs(cells, jobs_dir, runtime):
    """Each fio cell's job file with the lines that would take fio off the
    test target rewritten (fiojob.rewritten), written once per workload
    into jobs_dir/WORKLOAD/ under its own name, which the cell then sends;
    each rewrite's note goes to stderr once and into cell["job_rewrites"].
    A client cell's script is written there too."""
    done = {}
    for cell in cells:
        wl = cell["workload"]
        if matrix.workload_kind(wl) == "client":
            cell["host_file"] = write_client_script(wl, jobs_dir, runtime)
            continue
        if matrix.workload_kind(wl) != "fio" or not cell.get("host_file"):
            continue
        key = (wl["name"], cell["host_file"])
        if key not in done:
            info = fiojob.check(cell["host_file"], matrix.workload_fs(wl) or "none",
                                f"workload {wl['name']}")
            path = None
            if info["rewrites"]:
                path = os.path.join(jobs_dir, wl["name"], os.path.basename(cell["host_file"]))
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w", encoding="utf-8") as f:
                    f.write(fiojob.rewritten(cell["host_file"], info))
                for r in info["rewrites"]:
                    print(f"platter: workload {wl['name']}: {r['note']}", file=sys.stderr)
            done[key] = (path, [r["note"] for r in info["rewrites"]])
        path, notes = done[key]
        if path:
            cell["host_file"], cell["job_rewrites"] = path, notes


def check_guest_commands(cells, runtime, allow_long=False):
    """run-guest --check on every cell's command: anything run-guest would
    refuse is refused now, before a build or a cell runs; and a fio job
    whose own runtime=, timeout=, ramp_time= or startdelay= would run it
    far past the cell's runtime, unless allow_long (--allow-long)."""
    for cell in cells:
        wl = cell["workload"]
        if matrix.workload_kind(wl) == "fio" and cell.get("host_file"):
            info = fiojob.check(cell["host_file"], matrix.workload_fs(wl) or "none",
                                f"cell {cell['id']}")
            if info["rewrites"]:
                # (prepare_jobs makes the copy that needs none)
                raise cli.BadInput(f"platter: cell {cell['id']}: "
                                   f"{info['rewrites'][0]['note']}, but the job was not "
                                   "rewritten")
            try:
                if not allow_long:
                    fiojob.check_long(info, runtime, f"cell {cell['id']}")
            except cli.BadInput as e:
                raise cli.BadInput(f"platter: cell {cell['id']}: "
                                   f"{str(e).removeprefix('platter: ')}")
        check_command(cell["id"], matrix.guest_command(cell, runtime))


def check_command(cell_id, cmd, prog="platter"):
    """run-guest --check on one command; one error line naming the cell."""
    p = child.run_plain([cmd[0], "--check", *cmd[1:]], stdout=subprocess.DEVNULL,
                        stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        why = (p.stderr.strip().splitlines() or [f"exit {p.returncode}"])[-1]
        raise cli.BadInput(f"{prog}: cell {cell_id}: {why}")


def unpack(b64):
    """A guest file sent as gzip + base64 (guest-tests/initramfs/lib/target.sh)."""
    return gzip.decompress(base64.b64decode(b64, validate=True))


def decode_guest(res):
    """The guest's result with its transported files decoded: fio's output
    parsed into "fio", a script's stdout and stderr as text.  Returns
    (result, None) or (None, why)."""
    try:
        if "fio_json_gz_b64" in res:
            res["fio"] = fioout.parse(unpack(res.pop("fio_json_gz_b64")).decode("utf-8"))
        if "iops_log_gz_b64" in res:
            res["iops_log"] = unpack(res.pop("iops_log_gz_b64")).decode("utf-8", "replace")
        for stream in ("stdout", "stderr"):
            if f"{stream}_gz_b64" in res:
                res[stream] = unpack(res.pop(f"{stream}_gz_b64")).decode("utf-8", "replace")
    except (ValueError, OSError, EOFError, UnicodeDecodeError) as e:
        return None, f"the guest's result does not decode: {e}"
    return res, None


def keep_cell_files(rec, workdir, dest):
    """A guest cell's own files, kept in dest (the report's cells/ID/):
    the serial console, the drive's trace, fio's JSON, a script's stdout
    and stderr, the kernel's log (dmesg.txt).  What the cell did not make
    is not there."""
    raw = (rec.get("guest") or {}).get("raw") or {}
    os.makedirs(dest, exist_ok=True)
    for name in (matrix.CONSOLE_LOG, matrix.DRIVE_TRACE):
        src = os.path.join(workdir, name)
        if os.path.isfile(src):
            shutil.copyfile(src, os.path.join(dest, name))
    if "fio" in raw:
        with open(os.path.join(dest, "fio.json"), "w", encoding="utf-8") as f:
            json.dump(raw["fio"], f, indent=1, sort_keys=True)
            f.write("\n")
    for stream in ("stdout", "stderr"):
        if raw.get(stream):
            with open(os.path.join(dest, f"{stream}.txt"), "w", encoding="utf-8") as f:
                f.write(raw[stream])
    log = console_dmesg(os.path.join(workdir, matrix.CONSOLE_LOG))
    if log is not None:
        with open(os.path.join(dest, DMESG), "wb") as f:
            f.write(log)


DMESG = "dmesg.txt"


def console_dmesg(path):
    """The kernel's log the guest's init printed on the console before its
    result (between PLATTER-DMESG-BEGIN and -END lines), or None: a guest
    that never reached its end printed none."""
    try:
        with open(path, "rb") as f:
            text = f.read()
    except OSError:
        return None
    begin = text.rfind(b"\nPLATTER-DMESG-BEGIN")
    end = text.find(b"\nPLATTER-DMESG-END", begin + 1) if begin >= 0 else -1
    if end < 0:
        return None
    body = text[text.index(b"\n", begin + 1) + 1:end + 1]
    return body.replace(b"\r\n", b"\n")


def run_cell(cell, runtime, sim, guest=True, workdir=None, timeout=None):
    """Run one cell; returns its result record."""
    dev = cell["device"]
    rec = {"id": cell["id"], "variant": cell["variant"],
           "device": devicespec.device_name(dev), "profile": cell["profile"],
           "workload": cell["workload"]["name"], "runtime_s": runtime,
           "fua": devicespec.guest_fua(dev)}
    host = {}
    scmd, why = matrix.sim_plan(cell, runtime, sim)
    if scmd:
        t0 = time.monotonic()
        sres, serr = child.sim_json(scmd[0], scmd[1:], timeout or 600)
        host["sim_s"] = round(time.monotonic() - t0, 3)
        lacks = cellsummary.sim_lacks(sres) if serr is None else None
        if lacks:
            sres, serr = None, f"platter-sim's JSON report has no {lacks}"
        if sres:
            host["sim_cpu_ns"] = (sres.pop("host", None) or {}).get("cpu_ns")
        try:
            ssum = cellsummary.summarize(sres)
        except (KeyError, TypeError, AttributeError, ValueError, ZeroDivisionError) as e:
            ssum, sres, serr = None, None, f"platter-sim's JSON report is malformed: {e}"
        rec["sim"] = {"summary": ssum, "error": serr, "raw": sres,
                      "command": shlex.join(paths.from_root(scmd))}
    else:
        rec["sim"] = {"summary": None, "error": None, "raw": None, "command": None,
                      "no_prediction": why}
    if guest:
        gcmd = matrix.guest_command(cell, runtime)
        t0 = time.monotonic()
        try:
            os.makedirs(workdir, exist_ok=True)
            # a fresh sparse image per cell: the guest sees its first
            # 200 GiB, the modeled drive's outer edge
            with open(os.path.join(workdir, "disk.img"), "wb") as img:
                img.truncate(matrix.IMAGE_BYTES)
        except OSError as e:
            gres, gerr = None, f"cannot make the cell's image in {workdir}: {e.strerror}"
        else:
            # run-guest's own --timeout covers QEMU; this one also the
            # kernel and initramfs builds a cold cache needs first.  Its
            # work directory goes in the cell's, which the caller removes
            # even when a timeout killed run-guest before its cleanup.
            limit = timeout or matrix.cell_timeout_s(cell, runtime) + 7200
            gres, gerr = child.run_json(gcmd, limit, cwd=workdir,
                                        env=dict(os.environ, TMPDIR=workdir))
        host["guest_s"] = round(time.monotonic() - t0, 3)
        trace = os.path.join(workdir, matrix.DRIVE_TRACE)
        if gres and os.path.isfile(trace):
            try:
                gres["drive"] = cellsummary.drive_trace_counts(trace)
            except OSError as e:
                gres, gerr = None, f"cannot read the drive's trace: {e.strerror}"
        if gres:
            run = gres.get("run", {})
            host["guest_run"] = {k: run.pop(k) for k in list(run)
                                 if k in ("wall_s", "host_s", "elapsed_s", "workdir")}
            gres, gerr = decode_guest(gres)
        try:
            gsum = cellsummary.summarize(gres, cell["workload"])
            over = fioout.overran(gres["fio"], runtime) if gres and "fio" in gres else None
            if over:
                gsum, gerr = None, over
        except fioout.Malformed as e:
            gsum, gerr = None, f"fio's output: {e}"
        except clients.ParseError as e:
            gsum, gerr = None, f"{cell['workload']['client']}: {e}"
        rec["guest"] = {"summary": gsum, "error": gerr, "raw": gres,
                        "command": matrix.rerun_command(cell, runtime)}
    rec["host"] = host
    return rec
