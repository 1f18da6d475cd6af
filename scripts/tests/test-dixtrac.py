#!/usr/bin/python3
"""scripts/profile-import and platterlib/dixtrac: a profile from a DIXtrac
extraction, on a made-up one whose figures are checked by hand, and the
bad files it must refuse with one line naming them."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, HERE)
from platterlib import dixtrac, tap  # noqa: E402
import dixtrac_sample  # noqa: E402

IMPORT = os.path.join(HERE, "..", "profile-import")
SIM = sys.argv[1]


def sample(tmp, **replace):
    """The sample set in tmp, with FILE=TEXT replacing a file."""
    for name, text in {**dixtrac_sample.FILES, **replace}.items():
        with open(os.path.join(tmp, name), "w") as f:
            f.write(text)
    return os.path.join(tmp, "sample.diskspecs")


def run(*args):
    return subprocess.run([sys.executable, IMPORT, *args], capture_output=True, text=True,
                          timeout=60)


def check_sample_keys(tmp):
    keys, lost = dixtrac.extract(sample(tmp))
    got = {k: v for k, v, _ in keys}
    want = {"capacity_bytes": "736819200", "rpm": "6000", "heads": "2",
            # three zone entries, each a row
            "zones": "3", "outer_sectors_per_track": "400", "inner_sectors_per_track": "300",
            "head_switch_ms": "0.2", "write_settle_ms": "0.1", "queue_policy": "fifo",
            # DEC's read-ahead, a water mark by request size, DiskSim's
            # completion overhead
            "read_ahead": "track", "read_reconnect_pct": "50",
            "read_completion_overhead_us": "100",
            "seek_track_to_track_ms": "1", "seek_full_stroke_ms": "20.98",
            "seek_avg_ms": "7.66",
            # 4 x 100 blocks = 204800 bytes; one segment kept for writes
            "cache_mb": "0.1953125", "read_segments": "3", "read_segment_kb": "50",
            "cache_segments": "2", "write_cache": "no",
            "read_hit_overhead_us": "66", "read_miss_after_write_overhead_us": "86.73",
            "write_miss_overhead_us": "906.92"}
    for k, v in want.items():
        assert got.get(k) == v, (k, got.get(k), v)
    assert all(src for _, _, src in keys)
    text = " ".join(lost)
    # cylinders, sectors per track, skews, front, spares (none: no sparing
    # scheme), track spares, first block
    rows = [v for k, v, _ in keys if k == "zone"]
    # zone 0: 100 empty at its front, 2 spare tracks (sparing scheme 1) of
    # 400 sectors at its end, its first block 3 sectors past the index
    assert rows == ["0 799 400 40 50 100 800 0 3", "800 1199 400 40 50 0 0 0 0",
                    "1200 1999 300 30 35 0 0 0 0"], rows
    assert "2 slipped sectors" in text and "beyond Block count" not in text, lost
    # 512 B in DIXtrac's 0.1 ms a block: the drive's host transfer
    assert got["interface_mb_s"] == "5.12", got
    # the commented-out seek times are a comment, not a key given twice
    assert [v for k, v, _ in keys if k == "seek"] == ["1 1", "1999 20.98"], keys


def check_cli_profile_loads(tmp):
    spec = sample(tmp)
    p = run(spec, "--set", "form_factor=3.5-inch", "--set", "interface=sas",
            "--set", "interface_mb_s=80#Ultra2 Wide SCSI")
    assert p.returncode == 0 and p.stderr == "", p.stderr
    prof = os.path.join(tmp, "s.profile")
    with open(prof, "w") as f:
        f.write(p.stdout)
    # a link faster than the drive's own transfer: the drive's is the rate
    assert "interface_mb_s = 5.12 " in p.stdout and "Ultra2" not in p.stdout, p.stdout
    slow = run(spec, "--set", "interface_mb_s=2#a slow bus")
    assert "interface_mb_s = 2 " in slow.stdout and "# a slow bus" in slow.stdout, slow
    d = subprocess.run([SIM, "--profile", prof, "--dump-profile"], capture_output=True,
                       text=True)
    assert d.returncode == 0, d.stderr
    dump = d.stdout
    for line in ("capacity_bytes = 736819200", "rpm = 6000", "cache_segments = 2",
                 "zone = 0 799 400 40 50 100 800 0 3"):
        assert line in dump, (line, dump[:2000])
    # -o: written, and rewritten on a rerun (its own earlier output)
    out = os.path.join(tmp, "o.profile")
    for _ in range(2):
        p = run(spec, "-o", out)
        assert p.returncode == 0 and p.stdout == "", p.stderr
    assert open(out).read().startswith("# A profile from the DIXtrac")


def check_bad_files(tmp):
    fifo = os.path.join(tmp, "fifo.diskspecs")
    os.mkfifo(fifo)
    deep = "disksim_disk X {\n a = " + "b { c = " * 100 + "1" + " }" * 100 + "\n}\n"
    cases = [
        ({"sample.diskspecs": dixtrac_sample.DISKSPECS.replace(
            "source sample.model", "source ../etc/x.model")}, "same directory"),
        ({"sample.diskspecs": dixtrac_sample.DISKSPECS.replace(
            "source sample.model", "source none.model")}, "none.model"),
        ({"sample.model": dixtrac_sample.MODEL.replace("sample.seek", "none.seek")},
         "none.seek"),
        ({"sample.diskspecs": dixtrac_sample.DISKSPECS.replace(
            "   Fast write level = 0,\n", "   Fast write level = 0,\n   Fast write level = 1,\n")},
         "given twice"),
        ({"sample.diskspecs": deep}, "nested more than"),
        ({"sample.model": dixtrac_sample.MODEL.replace("Block count = 1439100",
                                                       "Block count = -5")}, "Block count"),
        ({"sample.model": dixtrac_sample.MODEL.replace("= 6000", "= nan")}, "Rotation speed"),
        ({"sample.seek": "Seek distances measured: 2\n3, 1.0\n1, 2.0\n"}, "line 3"),
        ({"sample.seek": "Seek distances measured: 1\n1, 1e999\n"}, "out of range"),
        ({"sample.seek": "Seek distances measured: 3\n1, 1.0\n3, 2.0\n"}, "the header says 3"),
        ({"sample.diskspecs": dixtrac_sample.DISKSPECS.replace("{", "", 1)}, "line 2"),
        ({"sample.diskspecs": dixtrac_sample.DISKSPECS[:200]}, "end of the file"),
        ({"sample.diskspecs": "disksim_disk X { a = \u00e9 }\n"}, "not ASCII"),
        ({"sample.diskspecs": dixtrac_sample.DISKSPECS.replace(
            "Number of buffer segments = 4", "Number of buffer segments = 1")},
         "separate write segment"),
    ]
    for i, (files, word) in enumerate(cases):
        d = os.path.join(tmp, f"bad{i}")
        os.mkdir(d)
        p = run(sample(d, **files))
        lines = [ln for ln in p.stderr.split("\n") if ln]
        assert p.returncode == 2 and p.stdout == "" and len(lines) == 1, (i, p)
        assert word in lines[0] and "Traceback" not in p.stderr, (i, word, lines)
    for args, word in (([fifo], "not a regular file"),
                       ([sample(tmp), "--set", "type=flash"], "type = hdd"),
                       ([sample(tmp), "--set", "rpm=1"], "determined by the DIXtrac"),
                       ([sample(tmp), "--set", "interface_mb_s=fast"], "not a number"),
                       ([sample(tmp), "--set", "a=1", "--set", "a=2"], "given twice"),
                       ([sample(tmp), "--set", "novalue"], "KEY=VALUE"),
                       ([sample(tmp), "-o", os.path.join(tmp, "sample.model")],
                        "not a file this output writes"),
                       ([sample(tmp), "-o", sample(tmp)], "-o")):
        p = run(*args)
        lines = [ln for ln in p.stderr.split("\n") if ln]
        assert p.returncode == 2 and len(lines) == 1 and word in lines[0], (args, p)
    assert open(os.path.join(tmp, "sample.model")).read() == dixtrac_sample.MODEL


tap.run([("a made-up extraction: every key and what it came from", check_sample_keys),
         ("the command's profile loads in platter-sim; -o reruns", check_cli_profile_loads),
         ("bad files and options: one line naming them, status 2", check_bad_files)],
        with_tmpdir=True)
