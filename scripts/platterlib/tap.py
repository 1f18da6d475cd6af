"""Run named checks and print TAP; a check passes unless it raises.
PLATTER_TAP_ONLY=TEXT runs only the checks whose name holds TEXT (by hand,
to rerun one check)."""
import os
import sys
import tempfile

# how much of each failure's reason the closing summary repeats (chars)
SHORT_WHY = 800


def run(checks, with_tmpdir=False):
    """checks: [(name, fn)]; fn() or fn(tmpdir).  Exits with the verdict.
    Each result is printed as its check ends (the plan comes last, which TAP
    allows), so a run that is stopped or times out still shows how far it
    got."""
    only = os.environ.get("PLATTER_TAP_ONLY")
    if only:
        checks = [c for c in checks if only in c[0]]
    passed = 0
    failed = []
    for i, (name, fn) in enumerate(checks, 1):
        why = ""
        try:
            if with_tmpdir:
                with tempfile.TemporaryDirectory() as tmp:
                    fn(tmp)
            else:
                fn()
        except (Exception, SystemExit) as e:  # report every failure, keep going
            # (SystemExit too: platter's own errors are SystemExits, cli.BadInput,
            # and a check that met one ended the run with no line for it)
            # (hypothesis reports distinct failures as a group: each one;
            # a failure it could not repeat as Flaky, from the first one)
            parts = getattr(e, "exceptions", None) or [e]
            why = "\n".join(f"{type(x).__name__}: {x}" + (
                f"\nthe first time: {type(x.__cause__).__name__}: {x.__cause__}"
                if x.__cause__ else "") for x in parts)
        passed += not why
        print(f"{'not ok' if why else 'ok'} {i} {name}")
        if why:
            print("# " + why.replace("\n", "\n# "))
            failed.append((i, name, why))
        sys.stdout.flush()
    # again, short, where a log cut to its head and tail still shows it
    for i, name, why in failed:
        short = why if len(why) <= SHORT_WHY else why[:SHORT_WHY] + " [...]"
        print(f"# not ok {i} {name}: " + short.replace("\n", "\n#   "))
    print(f"1..{len(checks)}")
    sys.exit(0 if passed == len(checks) else 1)
