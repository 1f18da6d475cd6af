#!/usr/bin/python3
"""Guest cells end to end (needs the patched QEMU and a guest kernel, both
built and cached by the scripts): one short seed-fops cell per kernel run
twice gives byte-identical results, and the mechanism shows in the guest's
own counters; power-cut campaigns catch the broken variant, reproducibly
from its seed, and find nothing lost with the real series.  Prints TAP.  usage: test-platter-guest.py PLATTER_SIM"""
import json, os, shutil, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from platterlib import tap  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
SIM = sys.argv[1]


def compare(out, experiment="seed-fops", *extra, cells="seq.*.nvme.*"):
    p = subprocess.run([os.path.join(ROOT, "scripts", "platter"), "compare", experiment,
                        "--sim", SIM, "--runtime", "1", "--cells", cells,
                        "--parallel", "2", "--out", out, *extra], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr[-2000:]
    with open(os.path.join(out, "report.json")) as f:
        return json.load(f)


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def deterministic_guest_cells(tmp):
    a = compare(os.path.join(tmp, "a"))
    b = compare(os.path.join(tmp, "b"))
    ca = json.dumps(a["cells"], sort_keys=True)
    assert ca == json.dumps(b["cells"], sort_keys=True), "two runs of the same cells differ"
    by = {c["id"]: c for c in a["cells"]}
    base = by["seq.st20000nm007d.nvme.base"]["guest"]["summary"]
    fops = by["seq.st20000nm007d.nvme.fops"]["guest"]["summary"]
    # the fops series removes the flush after each FUA O_DSYNC write
    assert round(base["per_io"]["flushes"], 1) == 1.0, base["per_io"]
    assert fops["per_io"]["flushes"] == 0.0, fops["per_io"]
    assert fops["iops"] > 20 * base["iops"], (base["iops"], fops["iops"])
    # cpu_per_io: the guest's instructions per write, from its accounting;
    # without the flush after each write fops runs fewer of them per write
    for s in (base, fops):
        assert s["cpu_per_io"]["insns"] > 1000 and s["cpu_per_io"]["us"] > 0, s.get("cpu_per_io")
    assert fops["cpu_per_io"]["insns"] < base["cpu_per_io"]["insns"], \
        (base["cpu_per_io"], fops["cpu_per_io"])
    # the guest program's full histogram: every write in it, a CDF point
    # per bucket, its percentiles those of the exact samples within 1/64
    from platterlib import latency
    for cid, s in (("seq.st20000nm007d.nvme.base", base), ("seq.st20000nm007d.nvme.fops", fops)):
        raw = by[cid]["guest"]["raw"]
        hist = latency.from_pairs(raw["lat_hist_ns"])
        assert latency.count(hist) == raw["ios"], (cid, raw["lat_hist_ns"][:5])
        assert len(s["cdf_us"]) == len(hist) and s["cdf_us"][-1][0] == 1.0, s["cdf_us"][:5]
        for k, p in (("p50", 50), ("p99", 99), ("p99.9", 99.9)):
            exact, binned = raw["lat_us"][k], latency.percentile(hist, p) / 1000
            assert exact <= binned <= exact * (1 + 1 / 64) + 0.001, (cid, k, exact, binned)


def user_fio_jobs(tmp):
    # unmodified fio jobs by host path, randwrite on ext4 and btrfs and
    # randread on the raw device and btrfs: fio's whole json+ comes back,
    # every job's stats and clat bins are in the report, and the sim says
    # it has no prediction.  The btrfs cells run their kernel built with
    # fs=btrfs (a kernel of its own in kernel_identity), under base's label.
    jobs = write(os.path.join(tmp, "rw.fio"), "[global]\nioengine=psync\nbs=4k\n"
                 "size=64m\nruntime=1\ntime_based=1\n[w]\nrw=randwrite\nfsync=4\n")
    read = write(os.path.join(tmp, "rr.fio"), "[r]\nioengine=libaio\niodepth=4\n"
                 "direct=1\nbs=4k\nrw=randread\nsize=16m\n[r2]\nrw=randread\nbs=64k\n"
                 "size=16m\ndirect=1\n")
    out = os.path.join(tmp, "fio")
    doc = compare(out, "seed-fops", "--workloads", f"{jobs}", "--fs", "ext4,btrfs",
                  cells="rw-*.virtio-blk.base")
    by = {c["id"]: c for c in doc["cells"]}
    assert sorted(by) == ["rw-btrfs.st20000nm007d.virtio-blk.base",
                          "rw-ext4.st20000nm007d.virtio-blk.base"], sorted(by)
    for fs in ("ext4", "btrfs"):
        c = by[f"rw-{fs}.st20000nm007d.virtio-blk.base"]
        g = c["guest"]
        assert g["error"] is None, g["error"]
        assert g["raw"]["params"]["fs"] == fs and g["raw"]["fio"]["jobs"][0]["jobname"] == "w"
        stats = {(r["job"], r["stat"]) for r in g["summary"]["jobs"]}
        assert stats == {("w", "write"), ("w", "sync")}, (fs, stats)
        assert g["summary"]["iops"] > 0 and len(g["summary"]["cdf_us"]) > 3, g["summary"]
        assert g["raw"]["device"]["stat_delta"]["flushes"] > 0, (fs, g["raw"]["device"])
        assert c["sim"]["no_prediction"], c["sim"]
    release = by["rw-btrfs.st20000nm007d.virtio-blk.base"]["guest"]["raw"]["kernel"]
    assert release.startswith("7.3.4-platter-base+btrfs |"), release
    ids = doc["meta"]["versions"]["kernel_identity"]
    assert ids["base+btrfs"]["spec"] == "base,fs=btrfs" and \
        ids["base+btrfs"]["fs_config"].startswith("fs-btrfs.config:"), ids
    assert "fs_config" not in ids["base"] and ids["base"]["uname_r"] == "7.3.4-platter-base", ids
    md = open(os.path.join(out, "report.md")).read()
    assert "| w | sync |" in md and "no sim prediction" in md, md
    # each cell's own files in the report: the console, the kernel's log,
    # the drive's trace (fsyncs: flushes in it) and fio's JSON as the
    # report read it
    for fs in ("ext4", "btrfs"):
        d = os.path.join(out, "cells", f"rw-{fs}.st20000nm007d.virtio-blk.base")
        assert sorted(os.listdir(d)) == ["console.log", "dmesg.txt", "drive.trace",
                                         "fio.json"], os.listdir(d)
        # the kernel's log, whole (the console is quiet): from its first
        # line, with the file system's mount
        log = open(os.path.join(d, "dmesg.txt")).read()
        assert log.startswith("Linux version 7.") and \
            fs.upper()[:4] in log.upper() and "PLATTER-" not in log, log[:2000]
        with open(os.path.join(d, "fio.json")) as f:
            assert json.load(f)["jobs"][0]["jobname"] == "w"
        trace = open(os.path.join(d, "drive.trace")).read().splitlines()
        assert trace[0] == "# platter-trace v1" and any(ln.split()[1:2] == ["F"]
                                                         for ln in trace[1:]), trace[:5]
        assert "PLATTER-RESULT-BEGIN" in open(os.path.join(d, "console.log")).read()
    doc = compare(os.path.join(tmp, "fio2"), "seed-fops", "--workloads", read, "--fs",
                  "none,btrfs", cells="rr-*.virtio-blk.base")
    by = {c["id"].split(".")[0]: c["guest"] for c in doc["cells"]}
    assert sorted(by) == ["rr-btrfs", "rr-none"], sorted(by)
    for name, g in by.items():
        assert {(r["job"], r["stat"]) for r in g["summary"]["jobs"]} == {("r", "read"),
                                                                          ("r2", "read")}, g
        assert all(r["ios"] > 0 for r in g["summary"]["jobs"]), (name, g["summary"]["jobs"])
    assert by["rr-none"]["raw"]["params"]["fs"] == "none" and \
        by["rr-none"]["raw"]["device"]["stat_delta"]["writes"] == 0
    assert by["rr-btrfs"]["raw"]["params"]["fs"] == "btrfs"


def probe_deb(tmp):
    """A .deb holding a program and the library it needs (gcc, dpkg-deb)."""
    src = os.path.join(tmp, "probe-src")
    os.makedirs(os.path.join(src, "pkg", "DEBIAN"))
    write(os.path.join(src, "lib.c"), "int platter_probe(void) { return 7; }\n")
    write(os.path.join(src, "main.c"), "#include <stdio.h>\nint platter_probe(void);\n"
          "int main(int c, char **v) { printf(\"probe %d %s\\n\", platter_probe(), "
          "c > 1 ? v[1] : \"-\"); return 0; }\n")
    bindir = os.path.join(src, "pkg", "usr", "bin")
    libdir = os.path.join(src, "pkg", "usr", "lib", "x86_64-linux-gnu")
    os.makedirs(bindir)
    os.makedirs(libdir)
    lib = os.path.join(libdir, "libplatterprobe.so")
    subprocess.run(["cc", "-shared", "-fPIC", "-o", lib, os.path.join(src, "lib.c")], check=True)
    subprocess.run(["cc", "-o", os.path.join(bindir, "probe"), os.path.join(src, "main.c"),
                    "-L", libdir, "-lplatterprobe"], check=True)
    # a program under /usr/lib, as postgresql-15 keeps pg_test_fsync
    own = os.path.join(src, "pkg", "usr", "lib", "platter-probe", "bin")
    os.makedirs(own)
    shutil.copy(os.path.join(bindir, "probe"), os.path.join(own, "probe3"))
    write(os.path.join(src, "pkg", "DEBIAN", "control"),
          "Package: platter-probe\nVersion: 1.0\nArchitecture: amd64\n"
          "Maintainer: platter <platter@example.org>\nDescription: a probe\n")
    deb = os.path.join(tmp, "probe.deb")
    subprocess.run(["dpkg-deb", "--root-owner-group", "-b", os.path.join(src, "pkg"), deb],
                   check=True, stdout=subprocess.DEVNULL)
    return deb


def exec_script(tmp):
    # a user's script against a fresh ext4: its stdout and exit status; the
    # guide's promise that the guest has fio (exec once had an initramfs
    # without it); a host program (--with) and a package's program with
    # its own library (--package FILE.deb) run, and --kernel-arg reaches
    # the kernel
    script = write(os.path.join(tmp, "t.sh"), "echo dev=$PLATTER_DEV dir=$PLATTER_DIR\n"
                   "dd if=/dev/zero of=$PLATTER_DIR/f bs=4k count=8 conv=fsync 2>/dev/null\n"
                   "ls $PLATTER_DIR\nfio --version >/dev/null && echo fio-runs\n"
                   "/usr/bin/sha256sum --version | head -1\nprobe 'a b'\n"
                   "/usr/lib/platter-probe/bin/probe3 c\n"
                   "cat /proc/cmdline\nexit 3\n")
    p = subprocess.run([os.path.join(ROOT, "scripts", "platter"), "exec", script,
                        "--fs", "ext4", "--runtime", "1", "--with", "/usr/bin/sha256sum",
                        "--package", probe_deb(tmp), "--kernel-arg", "platterprobe=1"],
                       capture_output=True, text=True)
    assert p.returncode == 3, (p.returncode, p.stderr[-2000:])
    lines = p.stdout.splitlines()
    assert lines[0] == "dev=/dev/vda dir=/mnt" and "f" in p.stdout.split(), p.stdout
    assert "fio-runs" in lines, p.stdout
    assert any("GNU coreutils" in ln for ln in lines), p.stdout
    assert "probe 7 a b" in lines and "probe 7 c" in lines, p.stdout
    assert " platterprobe=1" in p.stdout, p.stdout


def experiment_programs(tmp):
    # an experiment's script workload with "programs" and "packages": each
    # cell's guest has them (relative paths from the experiment's folder)
    os.makedirs(os.path.join(tmp, "exp"))
    shutil.copy(probe_deb(tmp), os.path.join(tmp, "exp", "probe.deb"))
    write(os.path.join(tmp, "exp", "t.sh"),
          "probe x\n/usr/bin/sha256sum --version | head -1\n")
    spec = write(os.path.join(tmp, "exp", "e.json"), json.dumps({
        "name": "progs", "pairs": [["base", "fops"]], "devices": [{"frontend": "virtio-blk"}],
        "profiles": ["st20000nm007d"],
        "workloads": [{"name": "p", "script": "t.sh", "programs": ["/usr/bin/sha256sum"],
                       "packages": ["probe.deb:probe"]}]}))
    doc = compare(os.path.join(tmp, "o"), spec, cells="*")
    assert len(doc["cells"]) == 2, [c["id"] for c in doc["cells"]]
    for c in doc["cells"]:
        out = c["guest"]["raw"]["stdout"].splitlines()
        assert "probe 7 x" in out and any("GNU coreutils" in ln for ln in out), (c["id"], out)


def client_cell(tmp):
    # a ready client end to end: fs_mark from Debian's fsmark package
    # (apt-get download), its script written for the runtime and kept in
    # the report, its output parsed into the cell's headline
    out = os.path.join(tmp, "o")
    doc = compare(out, "seed-fops", "--workloads", "client:fsmark", cells="fsmark.*.nvme.base")
    [c] = doc["cells"]
    s = c["guest"]["summary"]
    assert c["guest"]["error"] is None and s["status"] == 0, c["guest"]
    assert s["client"]["name"] == "fsmark" and s["client"]["unit"] == "files/s", s["client"]
    # whole runs of 100 files, each file fsynced: at least one run, and
    # fewer files a second than a 7200 rpm drive turns (each fsync waits)
    assert s["ios"] >= 100 and s["ios"] % 100 == 0 and 0 < s["iops"] < 120, s
    assert s["per_io"]["flushes"] >= 1, s["per_io"]
    assert os.path.isfile(os.path.join(out, "jobs", "fsmark", "fsmark.sh"))
    stdout = open(os.path.join(out, "cells", c["id"], "stdout.txt")).read()
    assert stdout == c["guest"]["raw"]["stdout"] and "FSUse%" in stdout, stdout[:300]
    # sysbench fileio and sqlite3 (their libraries from Debian's packages
    # too): each headline from its own output, the drive's flushes behind it
    doc = compare(os.path.join(tmp, "o2"), "seed-fops", "--workloads",
                  "client:sysbench,client:sqlite3", cells="*.nvme.base")
    by = {c["id"].split(".")[0]: c["guest"] for c in doc["cells"]}
    assert sorted(by) == ["sqlite3", "sysbench"], sorted(by)
    for name, g in by.items():
        assert g["error"] is None and g["summary"]["iops"] > 0, (name, g)
        assert g["summary"]["per_io"]["flushes"] > 0, (name, g["summary"]["per_io"])
    sb = by["sysbench"]["summary"]["client"]["figures"]
    assert sb["fsyncs_per_s"] > 0 and "writes/s:" in by["sysbench"]["raw"]["stdout"], sb
    # sqlite3's runs are whole: a multiple of 25 transactions
    assert by["sqlite3"]["summary"]["ios"] % 25 == 0, by["sqlite3"]["summary"]


def fio_examples_sample(tmp):
    # fio's own examples as Debian ships them, in guest cells: one that runs
    # as it is, one whose directory= is pointed at the test target, and one
    # of two stonewalled phases (its headline every I/O over the phases'
    # times, never their rates summed)
    ex = "/usr/share/doc/fio/examples"
    names = ("fsx", "aio-read", "surface-scan")
    out = os.path.join(tmp, "o")
    p = subprocess.run([os.path.join(ROOT, "scripts", "platter"), "compare", "seed-fops",
                        "--sim", SIM, "--runtime", "0.3", "--parallel", "2", "--fs", "ext4",
                        "--workloads", ",".join(f"{ex}/{n}.fio" for n in names),
                        "--cells", "*.nvme.base", "--out", out], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr[-2000:]
    assert "aio-read.fio:8: 'directory=/data1' removed" in p.stderr, p.stderr[-2000:]
    doc = json.load(open(os.path.join(out, "report.json")))
    by = {c["id"].split(".")[0]: c["guest"] for c in doc["cells"]}
    assert sorted(by) == sorted(names), sorted(by)
    for n, g in by.items():
        assert g["error"] is None and g["summary"]["iops"] > 0 and g["summary"]["ios"] > 0, (n, g)
    phases = by["surface-scan"]["summary"]["phases"]
    assert len(phases) == 2 and sum(ph["ios"] for ph in phases) == \
        by["surface-scan"]["summary"]["ios"], phases
    assert by["surface-scan"]["summary"]["iops"] < sum(ph["iops"] for ph in phases), phases
    assert os.path.isfile(os.path.join(out, "jobs", "aio-read", "aio-read.fio"))


def exec_command(tmp):
    # -- CMD ARGS: one command line as it is (no shell: the '$' and the
    # quotes reach the program), in the file system's folder
    trace = os.path.join(tmp, "drive.trace")
    p = subprocess.run([os.path.join(ROOT, "scripts", "platter"), "exec", "--fs", "xfs",
                        "--runtime", "1", "--drive-trace", trace,
                        "--", "sh", "-c", 'pwd; echo "$0"; exit 4', "x $y"],
                       capture_output=True, text=True)
    assert p.returncode == 4, (p.returncode, p.stderr[-2000:])
    assert p.stdout.splitlines() == ["/mnt", "x $y"], p.stdout
    # --drive-trace: every command the drive served (mkfs.xfs's among them),
    # in the format platter-sim replays
    lines = open(trace).read().splitlines()
    assert lines[0] == "# platter-trace v1" and len(lines) > 20, lines[:3]
    assert any(ln.split()[1:2] == ["W"] for ln in lines[2:]), lines[:10]


def drives_from_data(tmp):
    # drives-wt-nofua (a write-through NVMe drive, an NVMe drive without
    # native FUA) and a write-through virtio-blk drive: the guest sees what
    # each entry says, and the sim column agrees with the guest: IOPS within
    # 10% (the guest counts the flushes it sends, the sim those the drive
    # gets, QEMU's emulated FUA included, so only "none" compares directly)
    spec = json.load(open(os.path.join(ROOT, "scripts", "experiments", "drives-wt-nofua.json")))
    spec["devices"].append({"frontend": "virtio-blk", "write_cache": "off", "name": "wt"})
    doc = compare(os.path.join(tmp, "d"), write(os.path.join(tmp, "drives.json"),
                                                json.dumps(spec)), cells="seq.*")
    assert len(doc["cells"]) == 6, [c["id"] for c in doc["cells"]]
    for c in doc["cells"]:
        g, s = c["guest"]["summary"], c["sim"]["summary"]
        assert abs(g["iops"] / s["iops"] - 1) < 0.1, (c["id"], g["iops"], s["iops"])
        dev = c["guest"]["raw"]["device"]
        if c["device"] in ("wt", "nvme-wt"):
            assert dev["write_cache"] == "write through" and dev["fua"] == 0 and \
                g["per_io"]["flushes"] == 0.0, (c["id"], dev, g["per_io"])
            assert s["per_io"]["flushes"] == 0.0 and s["per_io"]["fua_writes"] == 0.0, s
        else:
            assert dev["fua"] == 1 and dev["write_cache"] == "write back", dev


def powercut(out, campaign, *args):
    p = subprocess.run([os.path.join(ROOT, "scripts", "platter"), "powercut", campaign,
                        "--out", out, *args], capture_output=True, text=True)
    with open(os.path.join(out, "report.json")) as f:
        return p.returncode, json.load(f)


def broken_variant_caught(tmp):
    # Two cuts of the broken variant, checked on the host; then the first
    # again by its seed: the same cut point and the same verdict.
    rc, a = powercut(os.path.join(tmp, "a"), "fops-broken-virtio-blk", "--cuts", "2",
                     "--verify", "host")
    assert rc == 0 and a["passed"], a["summary"]
    assert a["summary"]["cuts_with_loss"] >= 1 and a["summary"]["loss_seeds"], a["summary"]
    seed = a["summary"]["loss_seeds"][0]
    rc, b = powercut(os.path.join(tmp, "b"), "fops-broken-virtio-blk", "--seeds", str(seed),
                     "--verify", "host")
    first = next(c for c in a["cuts"] if c["seed"] == seed)
    assert json.dumps(first, sort_keys=True) == json.dumps(b["cuts"][0], sort_keys=True), \
        "the same seed gave another cut or verdict"


def fops_no_loss_verified_in_guest(tmp):
    rc, a = powercut(tmp, "fops-virtio-blk", "--cuts", "1", "--verify", "guest")
    s = a["summary"]
    assert rc == 0 and a["passed"], s
    assert s["cuts_with_acks"] == 1 and s["acked_writes_checked"] > 10 and \
        s["lost_writes"] == 0, s
    assert a["cuts"][0]["verified_in"] == "guest"


# a cut of xfs-broken where fdatasync skipped a flush that did not cover
# its data (found with `platter powercut xfs-broken-virtio-blk --states
# 1`: 8 of 8 cuts lost data in a crash state, 1 of 8 in the model's own
# order; docs/powercut.md, "Crash states")
XFS_BROKEN_SEED = 506000963
XFS_BROKEN_STATES = 4


def crash_states_catch_reordering(tmp):
    """The one-order cut of the broken xfs variant loses nothing (the
    model's 990 PRO writes its cache back at once); its crash states lose
    fdatasync-ed records, and the first such state replays alone with the
    same verdict.  The journal gave back the cut image first (else the
    cut's states are an error)."""
    seed = str(XFS_BROKEN_SEED)
    rc, st = powercut(os.path.join(tmp, "st"), "xfs-broken-virtio-blk", "--seeds", seed,
                      "--states", str(XFS_BROKEN_STATES))
    cut, cs = st["cuts"][0], st["summary"]["crash_states"]
    # the cut's own verdict is the model's order, as a run without --states gives it
    assert cut["verdict"] == "ok" and cut["acks"] > 0 and cut["verify"]["lost_writes"] == 0, cut
    assert rc == 0 and st["passed"] and cs["lost"] > 0 and cs["errors"] == 0, cs
    loss = cut["states"]["losses"][0]
    rc, again = powercut(os.path.join(tmp, "again"), "xfs-broken-virtio-blk", "--seeds", seed,
                         "--states", str(XFS_BROKEN_STATES), "--state", str(loss["state"]))
    x = again["cuts"][0]["states"]
    assert rc == 0 and x["checked"] == 1 and x["losses"] and \
        x["losses"][0]["lost_writes"] == loss["lost_writes"] and \
        x["losses"][0]["first"] == loss["first"], x


tap.run([("seed-fops nvme cells: deterministic, one flush per write removed",
          deterministic_guest_cells),
         ("unmodified fio jobs (randwrite on ext4 and btrfs, randread raw and on btrfs): "
          "full stats", user_fio_jobs),
         ("platter exec: a script's stdout and exit status; --with, --package, "
          "--kernel-arg", exec_script),
         ("platter exec -- CMD ARGS: a command line as it is", exec_command),
         ("an experiment's programs and packages in its cells' guests", experiment_programs),
         ("ready clients (fs_mark, sysbench, sqlite3 from Debian) in compare cells: their "
          "headlines", client_cell),
         ("fio's own examples (fio-examples), unmodified, in guest cells", fio_examples_sample),
         ("write-through and no-FUA drives: the sim agrees with the guest", drives_from_data),
         ("power cut: the broken variant loses acknowledged writes, reproducibly by seed",
          broken_variant_caught),
         ("power cut: fops on virtio-blk loses nothing (verified in a guest boot)",
          fops_no_loss_verified_in_guest),
         ("crash states: the broken xfs variant passes in the model's order and loses "
          "data in another, replayable by state", crash_states_catch_reordering)],
        with_tmpdir=True)
