"""Power-cut campaigns: K cuts at seeded points of one kernel variant on one
front end and drive profile, each checked against what the guest was told
was durable.

A cut is fully determined by its seed: the seed picks the workload and the
virtual time at which the drive loses power, and is stamped into every
record the guest writes.  One cut:
  1. run-guest --power-cut-ns T WRITE-TEST: the guest writes records and
     prints an acknowledgement per durable write; at T the modeled drive
     drops its volatile cache and QEMU quits.  The image now holds exactly
     the modeled media.
  2. verify: powercut-verify checks every acknowledged write against the
     image: in a guest booted on the cut image with the same kernel (file
     systems: log recovery runs at mount), or, for raw-device workloads, the
     same verifier binary on the host reading the image directly.
"""
import json
import os
import shlex
import time

from . import child
from . import cli
from . import crashstates
from . import devicespec
from . import expspec
from . import kernelspec
from . import matrix
from . import outfile
from . import paths
from .splitmix import splitmix64

ROOT = paths.ROOT
CAMPAIGNS = os.path.join(ROOT, "scripts", "campaigns")
REPORT_VERSION = 1
# options the raw-device writer and verifier share (guest-tests/src/pattern.h)
RAW_PATTERN_OPTIONS = ("--pattern", "--bs", "--span", "--offset")
# options of a file-system workload's writer its verifier takes too
FILE_SHARED_OPTIONS = ("--slots", "--bs")
# a no-loss campaign whose cuts mostly checked nothing shows nothing
MIN_CHECKED_FRACTION = 0.9
# the driver's crash journal in a cut's work directory (--states)
JOURNAL = "crash.journal"
STATES_MAX = 1 << 20




def load(name_or_path):
    c, path = expspec.load_spec(CAMPAIGNS, name_or_path, "campaign")
    return check_campaign(c, path, os.path.dirname(os.path.abspath(path)))


class Campaign(dict):
    """A campaign spec; kernel is the spec run-guest is given (absolute
    paths, a tree's revision resolved to its commit) and profile_arg the
    profile as the drive is given it (a shipped name or a file's full
    path): relative paths start at the campaign file's directory."""
    kernel = None
    profile_arg = None
    rerun_name = None   # how `platter powercut` finds it again


def check_campaign(c, where, base_dir):
    """Every field of a campaign, type and bounds, before anything runs;
    files (a kernel's tree or patches, a profile) relative to base_dir."""
    expspec.check_keys(c, where, ("name", "variant", "device", "profile", "workloads", "window_s"),
                       ("description", "cuts", "expect", "image_gib"))
    expspec.check_name(c["name"], f"{where}: name")
    expspec.check_str(c.get("description", ""), f"{where}: description")
    kernel = expspec.check_kernel(c["variant"], f"{where}: variant", base_dir)
    expspec.check_devices([c["device"]], where, base_dir)
    expspec.check_profile(c["profile"], f"{where}: profile", base_dir)
    if devicespec.write_cache(c["device"]):
        expspec.check_write_cache(c["profile"], f"{where}: device", base_dir)
    w = c["window_s"]
    if not (isinstance(w, list) and len(w) == 2 and
            all(type(x) in (int, float) and 0 <= x <= cli.RUNTIME_MAX_S for x in w)
            and w[0] < w[1]):
        expspec.bad(f"{where}: window_s", f"{w!r:.60} is not [lo, hi] in virtual seconds with "
                                          f"0 <= lo < hi <= {cli.RUNTIME_MAX_S}")
    # cuts fall on whole ns (plan): ends that round to one ns leave no time
    # to cut in (issue 39: [0, 1e-12] was a ZeroDivisionError)
    if round(w[0] * 1e9) >= round(w[1] * 1e9):
        expspec.bad(f"{where}: window_s", f"{w!r:.60}: lo and hi round to the same ns "
                                          f"({round(w[0] * 1e9)}): no time to cut in")
    for key, lo, hi in (("cuts", 1, 1 << 20), ("image_gib", 1, 1 << 14)):
        v = c.get(key, lo)
        if type(v) is not int or not lo <= v <= hi:
            expspec.bad(f"{where}: {key}", f"{v!r:.60} is not an integer in [{lo}, {hi}]")
    expspec.choices(f"{where}: expect", c.get("expect", "no-loss"), ("no-loss", "loss"))
    tests = expspec.guest_tests()

    def workload(wl, w):
        expspec.check_keys(wl, w, ("name", "write", "verify"), ("args", "filesystem"))
        expspec.check_name(wl["name"], f"{w}.name")
        expspec.choices(f"{w}.write", wl["write"], tests)
        expspec.choices(f"{w}.verify", wl["verify"], tests)
        if type(wl.get("filesystem", False)) is not bool:
            expspec.bad(f"{w}.filesystem", f"{wl['filesystem']!r:.60} is not true or false")
        args = expspec.check_list(wl.get("args", []), f"{w}.args", expspec.check_arg,
                                  nonempty=False, unique=False)
        # raw workloads hand their args to the verifier too: only what
        # both understand (the write pattern)
        opts = args[0::2] if not wl.get("filesystem") else []
        if len(args) % 2 and not wl.get("filesystem") or \
                any(o not in RAW_PATTERN_OPTIONS for o in opts):
            expspec.bad(f"{w}.args", f"args of a raw workload are pairs of "
                                     f"{', '.join(RAW_PATTERN_OPTIONS)} and a value")
    expspec.check_list(c["workloads"], f"{where}: workloads", workload)
    out = Campaign(c)
    out.kernel = kernelspec.run_spec(kernel)
    out.profile_arg = matrix.profile_arg(c["profile"], base_dir)
    shipped = os.path.join(CAMPAIGNS, c["name"] + ".json")
    out.rerun_name = (c["name"] if os.path.isfile(shipped) and os.path.samefile(
        shipped, where) else shlex.quote(os.path.abspath(where)))
    return out


def cut_seeds(campaign_seed, count):
    """The seeds of a campaign's cuts: the same campaign seed, the same cuts."""
    return [splitmix64(campaign_seed * 1000003 + i) & 0xFFFFFFFF for i in range(count)]


def plan(c, seed):
    """What a seed decides: the workload and the cut time (virtual ns)."""
    h = splitmix64(seed)
    lo, hi = (round(x * 1e9) for x in c["window_s"])
    wl = c["workloads"][(h >> 40) % len(c["workloads"])]
    return wl, lo + h % (hi - lo)


def write_command(c, seed, journal=False):
    wl, cut_ns = plan(c, seed)
    drive = devicespec.device_drive_opts(c["device"], c.profile_arg)
    if journal:
        drive += f",crash-journal={JOURNAL}"

    # the seed also picks a raw workload's random offsets
    seed_arg = [] if wl.get("filesystem") else ["--seed", str(seed)]
    return matrix.run_guest_prefix(c.kernel, c["device"], drive) + [
        "--power-cut-ns", str(cut_ns), wl["write"], "--", *wl.get("args", []),
        *seed_arg, "--run", str(seed)]


def acked_arg(acked):
    return ",".join(f"{j}:{s}" for j, s in acked.items()) or "none"


def verify_args(wl, seed, acked):
    """The verifier replays a raw workload's offsets (its pattern and seed);
    a file workload's records sit at fixed places in per-job files."""
    tail = ["--run", str(seed), "--acked", acked_arg(acked)]
    if wl.get("filesystem"):
        args = wl.get("args", [])
        return [x for i in range(0, len(args) - 1) if args[i] in FILE_SHARED_OPTIONS
                for x in args[i:i + 2]] + tail
    return [*wl.get("args", []), "--seed", str(seed), *tail]


def guest_verify_command(c, wl, seed, acked, snapshot=False):
    # The verify boot only reads (and replays the xfs log): the `ideal`
    # profile makes it quick without changing what is read.  With crash
    # states the image must stay the cut's: the log replay's writes go to
    # a temporary overlay (snapshot=on).
    drive = "driver=hddmodel,profile=ideal,file=disk.img" + (",snapshot=on" if snapshot else "")
    return matrix.run_guest_prefix(c.kernel, c["device"], drive) + [
        wl["verify"], "--", *verify_args(wl, seed, acked)]


def host_verify_command(verifier, wl, seed, acked):
    return [verifier, "--dev", "disk.img", *verify_args(wl, seed, acked)]


def rerun_command(c, seed, states=0, state=None):
    more = (f" --states {states}" if states else "") + \
        (f" --state {state}" if state is not None else "")
    return f"scripts/platter powercut {c.rerun_name} --seeds {seed}{more}"


def check_image(c, directory):
    """The cuts' image (image_gib, sparse) can be made in directory: on
    ext4 16 TiB is File too large, which would fail every cut (BadInput)."""
    probe = os.path.join(directory, "image-probe")
    try:
        with open(probe, "wb") as img:
            img.truncate(c.get("image_gib", 200) << 30)
    except OSError as e:
        cli.bad_input(f"platter: {c['name']}: image_gib {c.get('image_gib', 200)}: the image "
                      f"cannot be made in {directory}: {e.strerror}")
    finally:
        if os.path.exists(probe):
            os.unlink(probe)


# the first cuts of a campaign, all errors: the rest would fail the same
# way (--cuts 1048576 once showed an ETA of 3 days), so it stops
ALL_FAILED_STOP = 3


def run_cut(c, seed, workdir, verify="auto", verifier=None, timeout=3600, states=0,
            state=None):
    """Run one cut; returns its record (host timings under "host").
    With states, the crash states of the cut too (state: only that one)."""
    wl, cut_ns = plan(c, seed)
    rec = {"seed": seed, "workload": wl["name"], "cut_ns": cut_ns,
           "rerun": rerun_command(c, seed, states, state)}
    host = {}
    rec["host"] = host
    try:
        os.makedirs(workdir, exist_ok=True)
        with open(os.path.join(workdir, "disk.img"), "wb") as img:
            img.truncate(c.get("image_gib", 200) << 30)
    except OSError as e:
        rec.update(verdict="error", error=f"cannot make the image in {workdir}: {e.strerror}")
        return rec
    t0 = time.monotonic()
    wres, err = child.run_json(write_command(c, seed, journal=bool(states)), timeout, workdir,
                               last_line=True)
    host["write_s"] = round(time.monotonic() - t0, 1)
    if err:
        rec.update(verdict="error", error=f"write run: {err}")
        return rec
    rec["power_cut"] = wres["power_cut"]
    rec["writing"] = wres["writing"]
    rec["acks"] = wres["acks"]
    rec["acked"] = wres["acked"]
    how = verify
    if how == "auto":
        how = "guest" if wl.get("filesystem") or not verifier else "host"
    t0 = time.monotonic()
    if how == "host":
        vcmd = host_verify_command(verifier, wl, seed, wres["acked"])
    else:
        vcmd = guest_verify_command(c, wl, seed, wres["acked"], snapshot=bool(states))
    vres, err = child.run_json(vcmd, timeout, workdir, last_line=True)
    host["verify_s"] = round(time.monotonic() - t0, 1)
    rec["verified_in"] = how
    if err:
        rec.update(verdict="error", error=f"verify ({how}): {err}")
        return rec
    rec["verify"] = {k: vres[k] for k in ("checked_writes", "checked_sectors",
                                           "lost_writes", "losses")}
    if isinstance(vres.get("fsck"), dict):
        rec["verify"]["fsck"] = vres["fsck"]
    if vres["lost_writes"] or fsck_found(vres):
        rec["verdict"] = "loss"
    elif not wres["acks"]:
        rec["verdict"] = "no-acks"
    else:
        rec["verdict"] = "ok"
    if states:
        t0 = time.monotonic()
        vcmd = (host_verify_command(verifier, wl, seed, wres["acked"]) if how == "host" else
                guest_verify_command(c, wl, seed, wres["acked"], snapshot=True))
        rec["states"] = run_states(c, seed, workdir, vcmd, rec["verify"], states, state,
                                   timeout)
        host["states_s"] = round(time.monotonic() - t0, 1)
    return rec


def fsck_found(v):
    """Did the file system's own check (a verifier result's "fsck") find
    anything?"""
    f = v.get("fsck") if isinstance(v, dict) else None
    return isinstance(f, dict) and f.get("status") != 0


def run_states(c, seed, workdir, vcmd, model_verify, n, only, timeout):
    """The cut's crash states (crashstates.plan(journal, n, seed); only:
    that one alone), each verified with vcmd on the cut image with the
    state's overlay, the image put back after each.  The model's own state
    is the cut image, already verified (model_verify)."""
    out = {"requested": n, "checked": 0, "verified": 0, "lost": 0, "errors": 0,
           "by_strategy": {}, "losses": []}
    if only is not None:
        out["only"] = only
    try:
        j = crashstates.read(os.path.join(workdir, JOURNAL))
    except crashstates.BadJournal as e:
        out["error"] = str(e)
        return out
    out["journal"] = j.summary()
    if not j.complete:
        out["error"] = f"the driver's crash journal stopped: {j.gave_up}"
        return out
    img = os.path.join(workdir, "disk.img")
    model = crashstates.model_image(j)
    cut = crashstates.read_image(img, model)
    if cut != model:
        out["error"] = ("the journal's own write-back order does not give the cut image "
                        "(a driver defect: the states would be wrong)")
        return out
    seen = {crashstates.digest(model): (model_verify, None)}
    states = crashstates.plan(j, n, seed)
    for i in ([only] if only is not None else range(len(states))):
        if i >= len(states):
            out["error"] = f"--state {i}: the cut has {len(states)} states"
            break
        strategy, what, build = states[i]
        overlay = build()
        key = crashstates.digest(overlay)
        if key not in seen:
            crashstates.write_image(img, overlay)
            try:
                vres, err = child.run_json(vcmd, timeout, workdir, last_line=True)
            finally:
                crashstates.write_image(img, cut)
            seen[key] = (vres, err)
            out["verified"] += 1
        vres, err = seen[key]
        s = out["by_strategy"].setdefault(strategy, {"states": 0, "lost": 0, "errors": 0})
        s["states"] += 1
        out["checked"] += 1
        if err:
            s["errors"] += 1
            out["errors"] += 1
            out.setdefault("first_error", f"state {i}: {err}")
        elif vres["lost_writes"] or fsck_found(vres):
            s["lost"] += 1
            out["lost"] += 1
            if len(out["losses"]) < 20:
                first = vres["losses"][0] if vres["losses"] else {}
                out["losses"].append({"state": i, "strategy": strategy, "what": what,
                                      "lost_writes": vres["lost_writes"], "first": first,
                                      **({"fsck": vres["fsck"]} if fsck_found(vres) else {}),
                                      "rerun": rerun_command(c, seed, n, i)})
    return out


def summarize(records):
    s = {"cuts": len(records), "cuts_with_acks": 0, "cuts_before_writing": 0,
         "acked_writes_checked": 0, "cuts_drive_lost_data": 0,
         "lost_writes": 0, "cuts_with_loss": 0, "errors": 0, "loss_seeds": [],
         "bytes_lost_by_drive": 0}
    st = None
    for r in records:
        if r["verdict"] == "error":
            s["errors"] += 1
            continue
        if "states" in r:
            st = st or {"states": 0, "verified": 0, "lost": 0, "errors": 0,
                        "cuts_with_state_loss": 0, "cuts_without_states": 0,
                        "writes_in_doubt": 0, "by_strategy": {}, "loss_seeds": []}
            x = r["states"]
            st["states"] += x["checked"]
            st["verified"] += x["verified"]
            st["lost"] += x["lost"]
            st["errors"] += x["errors"] + ("error" in x)
            st["cuts_without_states"] += "error" in x
            st["writes_in_doubt"] += x.get("journal", {}).get("writes_in_doubt", 0)
            if x["lost"]:
                st["cuts_with_state_loss"] += 1
                st["loss_seeds"].append(r["seed"])
            for name, v in x["by_strategy"].items():
                b = st["by_strategy"].setdefault(name, {"states": 0, "lost": 0, "errors": 0})
                for k in b:
                    b[k] += v[k]
        s["cuts_with_acks"] += r["acks"] > 0
        s["cuts_before_writing"] += not r["writing"]
        s["cuts_drive_lost_data"] += r["power_cut"]["lost_bytes"] > 0
        s["acked_writes_checked"] += r["verify"]["checked_writes"]
        s["lost_writes"] += r["verify"]["lost_writes"]
        if fsck_found(r["verify"]):
            s["cuts_fsck_findings"] = s.get("cuts_fsck_findings", 0) + 1
        s["bytes_lost_by_drive"] += r["power_cut"]["lost_bytes"]
        if r["verdict"] == "loss":
            s["cuts_with_loss"] += 1
            s["loss_seeds"].append(r["seed"])
    if st is not None:
        s["crash_states"] = st
    return s


def passed(c, s):
    """Did the campaign show what it expects?"""
    st = s.get("crash_states", {"lost": 0, "errors": 0})
    if s["errors"] or not s["cuts"] or st["errors"]:
        return False
    if c.get("expect", "no-loss") == "loss":
        return s["cuts_with_loss"] > 0 or st["lost"] > 0
    return (s["lost_writes"] == 0 and s["cuts_with_loss"] == 0 and st["lost"] == 0 and
            s["cuts_with_acks"] >= MIN_CHECKED_FRACTION * s["cuts"])


def write_report(out, c, records, meta):
    os.makedirs(out, exist_ok=True)
    s = summarize(records)
    host = {str(r["seed"]): r.pop("host", {}) for r in records}
    doc = {"version": REPORT_VERSION, "campaign": c["name"], "spec": c, "meta": meta,
           "summary": s, "passed": passed(c, s), "cuts": records, "host": host}
    outfile.write_text(os.path.join(out, "report.json"),
                       outfile.json_text(doc, expspec.JSON_MAX_BYTES))
    outfile.write_text(os.path.join(out, "report.md"), markdown(doc))
    return doc


def _is_int(v):
    return type(v) is int and v >= 0


def check_cut_record(r):
    """Does r hold what summarize() and markdown() read of a cut?"""
    if not isinstance(r, dict) or not _is_int(r.get("seed")) or \
            not isinstance(r.get("workload"), str):
        return False
    if r.get("verdict") == "error":
        return isinstance(r.get("error"), str)
    pc, v = r.get("power_cut"), r.get("verify")
    return (r.get("verdict") in ("ok", "loss", "no-acks") and _is_int(r.get("acks")) and
            type(r.get("writing")) is bool and _is_int(r.get("cut_ns")) and
            isinstance(r.get("rerun"), str) and isinstance(pc, dict) and
            _is_int(pc.get("lost_bytes")) and isinstance(v, dict) and
            _is_int(v.get("checked_writes")) and _is_int(v.get("lost_writes")) and
            isinstance(v.get("losses"), list) and
            all(isinstance(x, dict) for x in v["losses"]))


def merge_parts(c, dirs):
    """Campaign c's reports, run in parts (--seeds), as one: (records,
    meta).  A cut may be in one part only, except that a cut that could not
    run (an error: a host problem such as a killed QEMU) is replaced by the
    same seed's run in another part; meta names those.  Raises ValueError
    on a part that is not a report of c as it is now."""
    docs = []
    for d in dirs:
        doc = expspec.read_json(os.path.join(d, "report.json"), "a power-cut report")
        if not isinstance(doc, dict) or doc.get("version") != REPORT_VERSION or \
                not isinstance(doc.get("cuts"), list) or not isinstance(doc.get("meta"), dict):
            raise ValueError(f"--merge '{d}': not a power-cut report (version {REPORT_VERSION})")
        if doc.get("spec") != c:
            raise ValueError(f"--merge '{d}': not a report of campaign '{c['name']}' as "
                             "it is now (its spec differs)")
        docs.append((d, doc))
    by_seed, where, replaced = {}, {}, []
    for d, doc in docs:
        host = doc.get("host") if isinstance(doc.get("host"), dict) else {}
        for r in doc["cuts"]:
            if not check_cut_record(r):
                raise ValueError(f"--merge '{d}': a malformed cut record")
            r = dict(r, host=host.get(str(r["seed"]), {}))
            old = by_seed.get(r["seed"])
            if old is not None and old["verdict"] != "error" and r["verdict"] != "error":
                raise ValueError(f"--merge: seed {r['seed']} ran in '{where[r['seed']]}' "
                                 f"and in '{d}': a cut in two parts")
            if old is None or (old["verdict"] == "error" and r["verdict"] != "error"):
                if old is not None:
                    replaced.append(r["seed"])
                by_seed[r["seed"]], where[r["seed"]] = r, d
            elif r["verdict"] == "error":
                replaced.append(r["seed"])
    seeds = list(by_seed)
    # parts that make up a whole campaign (seed 1, the default) say so
    whole = seeds == cut_seeds(1, len(seeds))
    meta = {"seed": 1 if whole else None, "seeds": None if whole else ",".join(map(str, seeds)),
            "complete": all(doc["meta"].get("complete", True) for _, doc in docs),
            "parts": [d for d, _ in docs], "errors_rerun": sorted(set(replaced)),
            "verify": docs[0][1]["meta"].get("verify")}
    return list(by_seed.values()), meta


def markdown(doc):
    c, s = doc["spec"], doc["summary"]
    lines = [f"# Power-cut campaign `{c['name']}`", "", c.get("description", ""), "",
             f"Kernel `{c['variant']}`, front end `{c['device']['frontend']}`, "
             f"profile `{c['profile']}`, cuts uniformly in "
             f"[{c['window_s'][0]}, {c['window_s'][1]}] s of virtual time; "
             f"{cut_seeds_said(doc)}; expected: {c.get('expect', 'no-loss')}.",
             *(["", "**Partial report: the campaign was stopped or is still running.**"]
               if not doc["meta"].get("complete", True) else []),
             *(["", f"Merged from {len(doc['meta']['parts'])} parts (`platter powercut "
                f"{c['name']} --merge DIR ...`): " +
                ", ".join(f"`{os.path.basename(os.path.normpath(d))}`"
                          for d in doc["meta"]["parts"]) + "." +
                (" Cuts that could not run in one part and ran in another count once, "
                 "as run: seeds " + ", ".join(map(str, doc["meta"]["errors_rerun"])) + "."
                 if doc["meta"].get("errors_rerun") else "")]
               if doc["meta"].get("parts") else []),
             "", "| cuts | with acks | drive lost data | acknowledged writes checked | "
             "lost writes | cuts with loss | errors | verdict |",
             "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
             f"| {s['cuts']} | {s['cuts_with_acks']} | {s['cuts_drive_lost_data']} | "
             f"{s['acked_writes_checked']} | {s['lost_writes']} | {s['cuts_with_loss']} | "
             f"{s['errors']} | {'PASS' if doc['passed'] else 'FAIL'} |", "",
             "*drive lost data*: cuts at which the modeled drive's volatile cache held "
             f"data ({s['bytes_lost_by_drive']} bytes over the campaign), i.e. cuts that "
             "tested something.", ""]
    lines += states_markdown(doc)
    losses = [r for r in doc["cuts"] if r["verdict"] == "loss"]
    if losses:
        lines += ["## Losses", "", "| seed | workload | cut at (ns) | acks | lost writes | "
                  "first lost | rerun |", "| ---: | --- | ---: | ---: | ---: | --- | --- |"]
        for r in losses[:50]:
            first = r["verify"]["losses"][0] if r["verify"]["losses"] else {}
            lines.append(f"| {r['seed']} | {r['workload']} | {r['cut_ns']} | {r['acks']} | "
                         f"{r['verify']['lost_writes']} | job {first.get('job')} seq "
                         f"{first.get('seq')} at {first.get('offset')}: {first.get('found')} | "
                         f"`{r['rerun']}` |")
        lines.append("")
    errors = [r for r in doc["cuts"] if r["verdict"] == "error"]
    if errors:
        lines += ["## Errors", ""] + [f"- seed {r['seed']}: {r['error']}" for r in errors] + [""]
    if doc["meta"].get("seed") is None:
        whole = f"--seeds {','.join(str(r['seed']) for r in doc['cuts'])}"
    else:
        whole = f"--cuts {s['cuts']} --seed {doc['meta']['seed']}"
    states = next((r["states"]["requested"] for r in doc["cuts"] if "states" in r), None)
    if states:
        whole += f" --states {states}"
    lines += ["Rerun one cut: `scripts/platter powercut CAMPAIGN --seeds SEED" +
              (f" --states {states}" if states else "") + "`; "
              f"all of these: `scripts/platter powercut {c['name']} {whole}`.", ""]
    return "\n".join(lines)


def cut_seeds_said(doc):
    """Where the cuts' seeds came from: a campaign seed, or --seeds."""
    if doc["meta"].get("seed") is None:
        return "cut seeds given with `--seeds`"
    return f"campaign seed {doc['meta']['seed']}"


def states_markdown(doc):
    """The crash states' part of the report (--states), or nothing."""
    st = doc["summary"].get("crash_states")
    if st is None:
        return []
    host_s = sum(h.get("states_s", 0) for h in doc.get("host", {}).values()
                 if isinstance(h, dict))
    rate = f"{st['verified'] / host_s * 3600:.0f}" if host_s else "n/a"
    lines = ["## Crash states", "",
             "Besides the model's own write-back order, each cut's other crash states: "
             "what the drive may have left of the writes acknowledged since the last "
             "point at which every write was durable (a FUA write, or a completed flush "
             "covering it), drawn by the strategies below "
             "(`docs/powercut.md`, \"Crash states\").", "",
             f"{st['states']} states over {doc['summary']['cuts']} cuts "
             f"({st['writes_in_doubt']} writes in doubt at the cuts), {st['verified']} distinct "
             f"images verified in {host_s:.0f} s of host time ({rate} states verified per "
             f"host hour); {st['lost']} states lost acknowledged data, in "
             f"{st['cuts_with_state_loss']} cuts; {st['errors']} errors.", "",
             "| strategy | states | lost data | errors |", "| --- | ---: | ---: | ---: |"]
    for name in crashstates.STRATEGY_NAMES:
        b = st["by_strategy"].get(name)
        if b:
            lines.append(f"| {name} | {b['states']} | {b['lost']} | {b['errors']} |")
    lines.append("")
    shown = [(r, x) for r in doc["cuts"] if r["verdict"] != "error"
             for x in r.get("states", {}).get("losses", [])]
    if shown:
        lines += ["| seed | state | strategy | what | lost writes | rerun |",
                  "| ---: | ---: | --- | --- | ---: | --- |"]
        for r, x in shown[:50]:
            lines.append(f"| {r['seed']} | {x['state']} | {x['strategy']} | {x['what']} | "
                         f"{x['lost_writes']} | `{x['rerun']}` |")
        lines.append("")
    errs = [(r["seed"], r["states"].get("error") or r["states"].get("first_error"))
            for r in doc["cuts"] if r["verdict"] != "error" and "states" in r and
            (r["states"].get("error") or r["states"].get("first_error"))]
    lines += [f"- seed {s}: {e}" for s, e in errs[:20]] + ([""] if errs else [])
    return lines


def states_said(x):
    """A cut's crash states for its progress line, or ''."""
    if x is None:
        return ""
    if "error" in x:
        return f"; crash states: {x['error']}"
    return (f"; {x['checked']} crash states ({x['verified']} distinct, "
            f"{x['journal']['writes_in_doubt']} writes in doubt): {x['lost']} lost data"
            + (f", {x['errors']} errors" if x["errors"] else ""))
