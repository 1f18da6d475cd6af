# Shared helpers for the guest-side scripts (build-kernel, build-initramfs,
# run-guest, test-guest). Sourced, not executed. POSIX sh.

: "${PLATTER_CACHE:=/var/cache/platter}"
export PLATTER_CACHE

# Repository root, from the location of the sourcing script.
platter_root=$(cd "$(dirname "$0")/.." && pwd)

# Diagnostics go to stderr; stdout carries only machine-readable output.
say() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }
die() { printf '%s: error: %s\n' "${0##*/}" "$*" >&2; exit 1; }

# need_pkgs "cmd:package" ... : make sure each command (or, when it starts
# with '/', each file) exists; install the bookworm packages that provide the
# missing ones when we are root, otherwise fail naming them.
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
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        say "installing missing bookworm packages:$missing"
        # shellcheck disable=SC2086
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing >&2 ||
            die "could not install:$missing (install them with apt-get)"
    else
        die "missing packages:$missing (apt-get install$missing)"
    fi
}

# Content hash of files and strings (order matters), short hex.
hash_inputs() {
    for x in "$@"; do
        if [ -f "$x" ]; then printf 'file %s\n' "${x##*/}"; cat "$x"
        else printf 'str %s\n' "$x"; fi
    done | sha256sum | cut -c1-16
}

# Run "$@" holding an exclusive lock on file $LOCK (concurrent builds of the
# same cache entry wait instead of racing).
with_lock() {
    lock=$1; shift
    mkdir -p "$(dirname "$lock")"
    need_pkgs flock:util-linux
    flock "$lock" "$@"
}
