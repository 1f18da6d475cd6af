"""Where platter's files are, its version and its cache: a leaf module
(it imports nothing of platter's), so every other module may use it.

ROOT is the checkout, or the installed copy of its tree
(PREFIX/share/platter: scripts, experiments, campaigns, guest-tests,
qemu-patches, hw-model), found from this file's real path either way."""
import hashlib
import json
import os
import shutil
import subprocess

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", ".."))
# written by `meson install` into the installed tree: the version and
# where the binaries went, relative to ROOT
INSTALLED = os.path.join(ROOT, "install.json")


def installed():
    """install.json of an installed tree, or None in a checkout."""
    try:
        with open(INSTALLED) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def version():
    """platter's version: git describe of the checkout, else the release
    the installed tree records, else 'unknown'."""
    inst = installed()
    if inst:
        return inst.get("version", "unknown")
    return git_version() or "unknown"


def git_version(run=subprocess.run, abbrev=None):
    """`git describe --always --dirty` of this checkout, or None outside
    git; run: how to run git (platter passes its tracked child.run_plain).
    Without taking .git/index.lock: describe --dirty writes the refreshed
    index under it, even with --no-optional-locks, and a git killed by a
    stop left the lock in the checkout (issue 39); status does not."""
    git = ["git", "--no-optional-locks", "-C", ROOT]
    try:
        d = run(git + ["describe", "--always"] + ([f"--abbrev={abbrev}"] if abbrev else []),
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        if d.returncode != 0 or not d.stdout.strip():
            return None
        st = run(git + ["status", "--porcelain", "--untracked-files=no"],
                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    except OSError:
        return None
    return d.stdout.strip() + ("-dirty" if st.stdout.strip() else "")


# where the build cache is, in the words README, the guide and doctor use
CACHE_RULE = "$PLATTER_CACHE, else $XDG_CACHE_HOME/platter, else ~/.cache/platter"


# the rule's step platter's own start found (it then sets $PLATTER_CACHE
# for every script it runs), for doctor to name
CACHE_ORIGIN = {}


def cache_root_and_why():
    """The build cache (CACHE_RULE; no root needed) and the rule's step
    that gave it."""
    if os.environ.get("PLATTER_CACHE"):
        return os.environ["PLATTER_CACHE"], "$PLATTER_CACHE"
    # the same rule as scripts/lib/guest-common.sh, apt-trixie, build-qemu
    if os.environ.get("XDG_CACHE_HOME"):
        return os.path.join(os.environ["XDG_CACHE_HOME"], "platter"), "$XDG_CACHE_HOME/platter"
    return os.path.join(os.environ.get("HOME", ""), ".cache", "platter"), "~/.cache/platter"


def cache_root():
    """The build cache: CACHE_RULE."""
    return cache_root_and_why()[0]


def find_sim():
    """platter-sim: $PLATTER_SIM (meson test sets it to its own build's),
    else the checkout's build/, else the installed one beside platter's
    bin/, else one on PATH; None when there is none."""
    if os.environ.get("PLATTER_SIM"):
        return os.environ["PLATTER_SIM"]
    cands = [os.path.join(ROOT, "build", "sim", "platter-sim")]
    inst = installed()
    if inst:
        cands.insert(0, os.path.join(ROOT, inst["bindir"], "platter-sim"))
    for p in cands:
        if os.access(p, os.X_OK):
            return os.path.normpath(p)
    return shutil.which("platter-sim")


def from_root(cmd):
    """cmd with paths inside the checkout made relative to its root, so a
    recorded command does not depend on where the checkout was."""
    return [os.path.relpath(a, ROOT) if os.path.isabs(a) and
            os.path.commonpath([a, ROOT]) == ROOT else a for a in cmd]


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def file_head(path, n, error):
    """The first `n` bytes of the file at `path` (a magic number to check);
    when it cannot be read, raises error(why)."""
    try:
        with open(path, "rb") as f:
            return f.read(n)
    except OSError as e:
        raise error(e.strerror or str(e))
