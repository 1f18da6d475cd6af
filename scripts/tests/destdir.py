"""`meson install` into a DESTDIR for the install tests (test-install.py,
test-installed-guest.py): the bin folder it made and an environment whose
PATH starts there, with what would point platter back at the checkout
taken out."""
import os
import subprocess


def install(build, dest, drop=("PLATTER_SIM", "PLATTER_PROFILE_DIR", "PYTHONPATH")):
    """(bin folder, environment) of build's install under dest."""
    p = subprocess.run(["meson", "install", "-C", build, "--no-rebuild", "--quiet",
                        "--destdir", dest], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    bins = [os.path.join(d, "bin") for d, sub, _ in os.walk(dest) if "bin" in sub]
    assert len(bins) == 1, bins
    env = dict(os.environ, PATH=bins[0] + os.pathsep + os.environ["PATH"], LC_ALL="C")
    for k in drop:
        env.pop(k, None)
    return bins[0], env
