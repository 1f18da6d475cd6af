"""Run named checks and print TAP; a check passes unless it raises."""
import sys
import tempfile


def run(checks, with_tmpdir=False):
    """checks: [(name, fn)]; fn() or fn(tmpdir).  Exits with the verdict."""
    results = []
    for name, fn in checks:
        try:
            if with_tmpdir:
                with tempfile.TemporaryDirectory() as tmp:
                    fn(tmp)
            else:
                fn()
            results.append((True, name, ""))
        except Exception as e:  # report every failure, keep going
            results.append((False, name, f"{type(e).__name__}: {e}"))
    print(f"1..{len(results)}")
    for i, (ok, name, why) in enumerate(results, 1):
        print(f"{'ok' if ok else 'not ok'} {i} {name}")
        if why:
            print("# " + why.replace("\n", "\n# "))
    sys.exit(0 if all(r[0] for r in results) else 1)
