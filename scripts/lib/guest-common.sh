# Shared helpers for the guest-side scripts (build-kernel, build-initramfs,
# run-guest, test-guest). Sourced, not executed. POSIX sh.

: "${PLATTER_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/platter}"
export PLATTER_CACHE

# Repository root (or the installed tree), from the real location of the
# sourcing script: a symlink on PATH works too.
platter_root=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)

# kernelspec check|shell|label SPEC | with-fs SPEC FS: the one kernel-spec
# parser (scripts/platterlib/kernelspec.py)
kernelspec() { PYTHONPATH="$platter_root/scripts" /usr/bin/python3 -m platterlib.kernelspec "$@"; }

# Diagnostics go to stderr; stdout carries only machine-readable output.
say() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }
# die: a failure (status $die_status, 1 unless the script sets it: build
# scripts say 125, infrastructure); bad: bad input, a spec or argument (2)
die() { printf '%s: error: %s\n' "${0##*/}" "$*" >&2; exit "${die_status:-1}"; }
bad() { printf '%s: error: %s\n' "${0##*/}" "$*" >&2; exit 2; }
# prefixed CMD...: CMD's output (stdout and stderr) on stderr, each line
# prefixed as say's are (a tool's own progress lines, such as ninja's
# "[K/N] Compiling", are then told from platter's); CMD's exit status.
prefixed() {
    prefixed_rc=$( { { "$@" 2>&1; echo $? >&3; } | sed -u "s|^|${0##*/}: |" >&2; } 3>&1 )
    return "$prefixed_rc"
}

# need_pkgs "cmd:package" ... : make sure each command (or, when it starts
# with '/', each file) exists; otherwise stop naming the exact apt-get line.
# Nothing is installed here: a build step running apt-get behind the user's
# back races the dpkg lock when cells run in parallel.  scripts/setup-host
# --guest installs everything these checks look for.
need_pkgs() {
    missing=
    for spec in "$@"; do
        what=${spec%%:*} pkg=${spec#*:}
        case $what in
        /*) [ -e "$what" ] && continue ;;
        *) command -v "$what" >/dev/null 2>&1 && continue ;;
        esac
        case " $missing " in *" $pkg "*) ;; *) missing="$missing $pkg" ;; esac
    done
    [ -z "$missing" ] && return 0
    die "missing packages:$missing; run scripts/setup-host --guest, or: apt-get install$missing"
}

# Content hash of files and strings (order matters), short hex: SHA-256 of
# "file NAME\n" and the file's bytes for a file (NAME its last path
# component), "str TEXT\n" for anything else.
hash_inputs() { hash_tool hash "$@"; }
# What hash_inputs hashes, one input a line ("file NAME SHA256" or
# "str TEXT"): how a cache key came about, for --print-inputs.
hash_listing() { hash_tool list "$@"; }
# (one python3 for all the inputs: a cat or sha256sum per file made a key
# cost seconds on a host where starting a process is slow)
hash_tool() {
    /usr/bin/python3 - "$@" <<'PY'
import hashlib, os, signal, sys
# a reader gone (the caller stopped): end as cat does, without a traceback
signal.signal(signal.SIGPIPE, signal.SIG_DFL)
mode, h = sys.argv[1], hashlib.sha256()
for x in map(os.fsencode, sys.argv[2:]):
    data = None
    if os.path.isfile(x):
        with open(x, "rb") as f:
            data = f.read()
    line = (b"file " + os.path.basename(x)) if data is not None else b"str " + x
    if mode == "hash":
        h.update(line + b"\n" + (data or b""))
    elif data is not None:
        sys.stdout.buffer.write(line + b" " + hashlib.sha256(data).hexdigest().encode() + b"\n")
    else:
        sys.stdout.buffer.write(line + b"\n")
if mode == "hash":
    print(h.hexdigest()[:16])
PY
}

# Run "$@" holding an exclusive lock on file $LOCK (concurrent builds of the
# same cache entry wait instead of racing).
with_lock() {
    lock=$1; shift
    mkdir -p "$(dirname "$lock")"
    need_pkgs flock:util-linux
    flock "$lock" "$@"
}

# Kernel variants: guest-tests/kernel/variants, the one place that names
# them ("NAME: PATCH... [| BEHAVIOUR...]" per line).  variant_patches NAME
# prints NAME's patches and fails for an unknown name; variant_names lists
# the names; variant_table prints "NAME:PATCH... | BEHAVIOUR..." lines.
variants_file=$platter_root/guest-tests/kernel/variants
variant_table() {
    sed -e 's/#.*//' "$variants_file" |
        awk -F: 'NF > 1 { n = $1; gsub(/[ \t]/, "", n); if (n != "") print n ":" $2 }'
}
variant_names() { variant_table | cut -d: -f1; }
variant_patches() {
    variant_table | awk -F: -v v="$1" '$1 == v { sub(/\|.*/, "", $2); print $2; found = 1 }
        END { exit !found }'
}
