# What setup-host installs and `platter doctor` checks: the one list of the
# host's packages, and the one OS they are for.  Sourced (POSIX sh) by
# setup-host; read by scripts/platterlib/doctor.py.
host_os_id=debian
host_os_version=12
host_os_name="Debian 12 (bookworm)"
# the model, platter-sim and their tests (meson >= 1.5 and python3-pycotap
# come from bookworm-backports)
# chromium: meson test's html-browser test loads the --html pages in it;
# python3-hypothesis: the property-based hostile-input suite;
# python3-jsonschema: docs/schema checked against every committed spec
host_pkgs="build-essential ninja-build pkg-config libglib2.0-dev python3 git chromium python3-hypothesis python3-jsonschema"
host_backports="meson python3-pycotap"
# --guest: QEMU's and the guest kernel's build dependencies, firmware and
# guest tools (valgrind for test-qemu --valgrind, clang for build-qemu --check,
# fio-examples: fio's own job files, which test-platter-fio checks; the
# ready clients' libraries with what they need in turn (libpq5's
# Kerberos and LDAP, libmariadb3's TLS, the PostgreSQL server's ICU and
# libxml2): a client's programs come from Debian's packages, and the
# libraries ldd finds for them from the host)
host_guest_pkgs="libfdt-dev libpixman-1-dev libslirp-dev flex bison
    python3-venv dpkg-dev seabios qemu-system-data bc libelf-dev libssl-dev
    cpio busybox-static xfsprogs btrfs-progs fio valgrind ccache lz4 xz-utils perl
    util-linux procps clang zstd fio-examples
    libpq5 libmariadb3 libluajit-5.1-2 libsqlite3-0 libreadline8 libicu72 libxml2"

# SeaBIOS: at least 1.16.3, from bookworm-backports (pinned, else its newest).
# bookworm's 1.16.2 waits forever for a D2H interrupt when a command to an
# AHCI disk fails: QEMU >= 9 raises only the task-file error on it (as a
# real HBA does), and 1.16.3 handles that.  Its AHCI probe sends IDENTIFY
# PACKET first, which a disk refuses, so every guest with a disk on q35's
# AHCI (the sata front end) hung in the firmware before the kernel started.
host_seabios_min=1.16.3
host_seabios_pin=1.16.3-2~bpo12+1

# seabios_version FILE: the SeaBIOS release a firmware image carries (e.g.
# 1.16.3), empty when none is found
seabios_version() {
    # the version is a string of its own in the image, e.g.
    # "1.16.3-debian-1.16.3-2~bpo12+1", or upstream's "rel-1.16.3-0-g...";
    # awk reads to the end (no early exit: callers may run with pipefail)
    LC_ALL=C tr -c '[:print:]' '\n' 2>/dev/null < "$1" | LC_ALL=C awk '
        v == "" && /^(rel-)?1\.[0-9]+\.[0-9]+([-~+].*)?$/ {
            match($0, /1\.[0-9]+\.[0-9]+/); v = substr($0, RSTART, RLENGTH) }
        END { print v }'
}

# version_at_least A B: status 0 when dotted version A >= B
version_at_least() {
    [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" = "$2" ]
}

# host_os_check: status 0 on the supported OS; else one line saying which
# OS this is and what is needed (the file is $PLATTER_OS_RELEASE, a test's
# stand-in, else /etc/os-release)
host_os_check() {
    _f=${PLATTER_OS_RELEASE:-/etc/os-release}
    [ -r "$_f" ] || { echo "this OS has no readable $_f; setup-host handles $host_os_name only"; return 1; }
    _id=$(. "$_f" 2>/dev/null && echo "${ID:-}")
    _ver=$(. "$_f" 2>/dev/null && echo "${VERSION_ID:-}")
    _name=$(. "$_f" 2>/dev/null && echo "${PRETTY_NAME:-${ID:-unknown} ${VERSION_ID:-}}")
    [ "$_id" = "$host_os_id" ] && [ "$_ver" = "$host_os_version" ] && return 0
    printf '%s\n' "this is ${_name:-an OS without $_f}; setup-host handles $host_os_name only (it would write bookworm-backports into apt's sources): install meson >= 1.5, $host_pkgs (and for --guest: $(echo $host_guest_pkgs)) yourself"
    return 1
}
