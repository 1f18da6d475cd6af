#!/usr/bin/python3
"""powercut-write and powercut-verify on a host file: what the writer
acknowledges the verifier accepts, and every kind of damage is a loss.
usage: test-powercut-tools.py BUILD_DIR/guest-tests   (TAP on stdout)"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "scripts"))
from platterlib import tap  # noqa: E402

BIN = sys.argv[1]
RAW = ["--pattern", "rand", "--span", "8M", "--seed", "11", "--run", "4"]


def write(args):
    p = subprocess.run([os.path.join(BIN, "powercut-write"), *args],
                       capture_output=True, text=True, check=True)
    acks = re.findall(r"^PLATTER-ACK (\d+) (\d+)$", p.stderr, re.M)
    return acks


def verify(args):
    p = subprocess.run([os.path.join(BIN, "powercut-verify"), *args],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def image(tmp):
    path = os.path.join(tmp, "disk.img")
    with open(path, "wb") as f:
        f.truncate(8 << 20)
    return path


def raw_roundtrip(tmp):
    img = image(tmp)
    acks = write(["--dev", img, *RAW, "--ios", "300"])
    assert len(acks) == 300 and acks[-1] == ("0", "299"), acks[-3:]
    v = verify(["--dev", img, *RAW, "--acked", "0:299"])
    assert v["lost_writes"] == 0 and v["checked_writes"] == 300, v


def raw_damage_is_loss(tmp):
    img = image(tmp)
    seq = ["--pattern", "seq", "--span", "8M", "--run", "4"]
    write(["--dev", img, *seq, "--ios", "50"])
    with open(img, "r+b") as f:        # tear sector 2 of write 3
        f.seek(4096 * 3 + 512 * 2 + 100)
        f.write(b"\0")
    v = verify(["--dev", img, *seq, "--acked", "0:49"])
    assert v["lost_writes"] == 1 and v["losses"][0] == {
        "job": 0, "seq": 3, "offset": 12288, "sector": 2, "found": "damaged"}, v


def raw_unwritten_is_loss(tmp):
    img = image(tmp)
    write(["--dev", img, *RAW, "--ios", "20"])
    v = verify(["--dev", img, *RAW, "--acked", "0:24"])
    assert v["lost_writes"] == 5 and v["losses"][0] == {
        "job": 0, "seq": 20, "offset": v["losses"][0]["offset"], "sector": 0,
        "found": "empty"}, v


def other_run_is_loss(tmp):
    img = image(tmp)
    write(["--dev", img, *RAW, "--ios", "5"])
    other = [a if a != "4" else "5" for a in RAW]
    v = verify(["--dev", img, *other, "--acked", "0:4"])
    assert v["lost_writes"] == 5 and v["losses"][0]["found"] == "foreign", v


def files_short_is_loss(tmp):
    acks = write(["--dir", tmp, "--threads", "3", "--ios", "10", "--run", "2"])
    assert len(acks) == 30
    assert verify(["--dir", tmp, "--run", "2", "--acked", "0:9,1:9,2:9"])["lost_writes"] == 0
    os.truncate(os.path.join(tmp, "pc-1"), 4096 * 7)
    v = verify(["--dir", tmp, "--run", "2", "--acked", "0:9,1:9,2:9"])
    assert v["lost_writes"] == 3 and v["losses"][0]["found"] == "missing", v


def files_slots(tmp):
    """--slots 4: 10 records per job wrap over 4 slots; the newest of each
    slot verifies, a newer unacknowledged one passes, an older one put
    back in its slot is stale."""
    pc0 = os.path.join(tmp, "pc-0")
    write(["--dir", tmp, "--threads", "1", "--ios", "3", "--run", "3", "--slots", "4"])
    with open(pc0, "rb") as f:
        f.seek(2 * 4096)
        seq2 = f.read(4096)
    acks = write(["--dir", tmp, "--threads", "2", "--ios", "10", "--run", "3",
                  "--slots", "4"])
    assert len(acks) == 20
    assert os.path.getsize(pc0) == 4 * 4096
    v = verify(["--dir", tmp, "--run", "3", "--slots", "4", "--acked", "0:9,1:9"])
    assert v["lost_writes"] == 0 and v["checked_writes"] == 8, v
    # acknowledged up to 8: slot 1 holds 9, newer than 5, which passes
    v = verify(["--dir", tmp, "--run", "3", "--slots", "4", "--acked", "0:8,1:8"])
    assert v["lost_writes"] == 0 and v["checked_writes"] == 8, v
    with open(pc0, "r+b") as f:
        f.seek(2 * 4096)
        f.write(seq2)
    v = verify(["--dir", tmp, "--run", "3", "--slots", "4", "--acked", "0:9,1:9"])
    assert v["lost_writes"] == 1 and v["losses"][0] == {
        "job": 0, "seq": 6, "offset": 8192, "sector": 0, "found": "stale"}, v


def bad_input(tmp):
    for args in (["--dir", tmp, "--acked", "0:x"], ["--dir", tmp],
                 ["--dev", "x", "--dir", tmp, "--acked", "none"],
                 ["--dev", "x", "--acked", "1:3"]):
        p = subprocess.run([os.path.join(BIN, "powercut-verify"), *args],
                           capture_output=True, text=True)
        assert p.returncode == 2 and not p.stdout and "powercut-verify" in p.stderr, (args, p)
    for args in (["--dir", tmp, "--bs", "100"], ["--dev", "x", "--slots", "4"]):
        p = subprocess.run([os.path.join(BIN, "powercut-write"), *args],
                           capture_output=True, text=True)
        assert p.returncode == 2 and not p.stdout, p
    p = subprocess.run([os.path.join(BIN, "powercut-verify"), "--dev", "x", "--slots", "2",
                        "--acked", "none"], capture_output=True, text=True)
    assert p.returncode == 2 and "--slots" in p.stderr, p


tap.run([("raw device: acknowledged writes verify clean", raw_roundtrip),
         ("raw device: a torn sector is a loss", raw_damage_is_loss),
         ("raw device: an unwritten acknowledged write is a loss", raw_unwritten_is_loss),
         ("raw device: another run's records are foreign", other_run_is_loss),
         ("files: a short file loses its tail records", files_short_is_loss),
         ("files with --slots: each slot's newest record", files_slots),
         ("bad arguments: usage error, nothing on stdout", bad_input)], with_tmpdir=True)
