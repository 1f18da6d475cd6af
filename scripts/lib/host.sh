# What setup-host installs and `platter doctor` checks: the one list of the
# host's packages, and the one OS they are for.  Sourced (POSIX sh) by
# setup-host; read by scripts/platterlib/doctor.py.
host_os_id=debian
host_os_version=12
host_os_name="Debian 12 (bookworm)"
# the model, platter-sim and their tests (meson >= 1.5 and python3-pycotap
# come from bookworm-backports)
# chromium: meson test's html-browser test loads the --html pages in it;
# python3-hypothesis: the property-based hostile-input suite
host_pkgs="build-essential ninja-build pkg-config libglib2.0-dev python3 git chromium python3-hypothesis"
host_backports="meson python3-pycotap"
# --guest: QEMU's and the guest kernel's build dependencies, firmware and
# guest tools (valgrind for test-qemu --valgrind, clang for build-qemu --check)
host_guest_pkgs="libfdt-dev libpixman-1-dev libslirp-dev flex bison
    python3-venv dpkg-dev seabios qemu-system-data bc libelf-dev libssl-dev
    cpio busybox-static xfsprogs btrfs-progs fio valgrind ccache lz4 xz-utils perl
    util-linux clang zstd"

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
