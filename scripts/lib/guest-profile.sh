# run-guest --profile-guest[=N]: a deterministic profile of the guest
# kernel.  QEMU's platter-pcprof plugin (qemu-patches/files/contrib/plugins)
# samples each vCPU's program counter every N guest instructions;
# scripts/platterlib/guestprofile.py names the samples by the kernel's
# System.map and writes profile.txt (perf-report style), profile.json,
# flamegraph.svg and the raw pcprof.txt into the profile directory.
# Sourced by run-guest, not executed (bash).
#
#   gprof_check                after the options: the period and directory
#   gprof_plugin QEMU          the plugin's path next to QEMU, in $gprof_so
#   gprof_map KINFO BZIMAGE    the kernel's System.map, in $gprof_system_map
#   gprof_qemu_args WORK       QEMU's -plugin argument, in gprof_args
#   gprof_write WORK TITLE     write the profile; its "run" entry on stdout

gprof_period=${PLATTER_PROFILE_GUEST:-} gprof_dir= gprof_stacks=on gprof_args=()

gprof_check() {
    if [ -z "$gprof_period" ]; then
        [ -z "$gprof_dir" ] || cli_fail "--profile-dir goes with --profile-guest"
        [ "$gprof_stacks" = on ] || cli_fail "--profile-stacks goes with --profile-guest"
        return 0
    fi
    cli_check "--profile-guest (or PLATTER_PROFILE_GUEST)" "$gprof_period" '[1-9][0-9]{3,11}' \
        "1000..999999999999 guest instructions between samples"
    cli_check --profile-stacks "$gprof_stacks" 'on|off' "on or off"
    [ -z "$cut_opt" ] || cli_fail "--profile-guest: not with --$cut_opt (the guest never finishes)"
    : "${gprof_dir:=guest-profile}"
    [ -d "$(dirname -- "$gprof_dir")" ] ||
        cli_fail "--profile-dir '$gprof_dir': no directory $(dirname -- "$gprof_dir")"
    [ ! -e "$gprof_dir" ] || [ -d "$gprof_dir" ] ||
        cli_fail "--profile-dir '$gprof_dir': exists and is not a directory"
    case $gprof_dir in *,*) cli_fail "--profile-dir '$gprof_dir': no commas (QEMU's -plugin)" ;; esac
}

# An install from scripts/build-qemu has it in plugins/, a build directory
# (build-qemu --dev-tree) in contrib/plugins/.
gprof_plugin() {
    local bin=${1%/*} f
    [ -n "$gprof_period" ] || return 0
    for f in "$bin/../plugins/libplatter-pcprof.so" "$bin/contrib/plugins/libplatter-pcprof.so"; do
        [ -f "$f" ] && { gprof_so=$f; return 0; }
    done
    fail "--profile-guest needs platter's QEMU with its profiler plugin (libplatter-pcprof.so next to $1): scripts/build-qemu builds it"
}

# A built kernel keeps System.map in its cache entry (scripts/build-kernel);
# a prebuilt one has it beside the bzImage or at the root of its tree.
gprof_map() {
    local kinfo=$1 bz=$2 f
    [ -n "$gprof_period" ] || return 0
    if [ -n "$kinfo" ]; then
        gprof_system_map=${kinfo%/*}/System.map
        [ -f "$gprof_system_map" ] ||
            fail "--profile-guest: no System.map in ${kinfo%/*} (a kernel cached before build-kernel kept it, whose build tree is gone): scripts/build-kernel --tree $variant builds the tree again and keeps it"
        return 0
    fi
    for f in "${bz%/*}/System.map" "${bz%/arch/x86/boot/bzImage}/System.map"; do
        [ -f "$f" ] && { gprof_system_map=$f; return 0; }
    done
    fail "--profile-guest: no System.map beside $bz (or at the root of its kernel tree)"
}

gprof_qemu_args() {
    [ -n "$gprof_period" ] || return 0
    gprof_args=(-plugin "$gprof_so,period=$gprof_period,stacks=$gprof_stacks,out=$1/pcprof.txt")
}

# The profile's files into the profile directory; prints the result's
# "profile_guest" entry (where they are, or why there are none).
gprof_write() {
    local work=$1 title=$2 s
    if [ ! -s "$work/pcprof.txt" ]; then
        say "warning: --profile-guest: QEMU wrote no samples"
        printf '{"period":%s,"error":"QEMU wrote no samples"}' "$gprof_period"
        return 0
    fi
    if ! s=$(PYTHONPATH="$platter_root/scripts" /usr/bin/python3 -m platterlib.guestprofile write \
             --samples "$work/pcprof.txt" --system-map "$gprof_system_map" \
             --out "$gprof_dir" --title "$title"); then
        say "warning: --profile-guest: no profile written"
        printf '{"period":%s,"error":"no profile written"}' "$gprof_period"
        return 0
    fi
    say "guest profile: $gprof_dir/profile.txt, $gprof_dir/flamegraph.svg"
    /usr/bin/python3 -c 'import json, signal, sys
signal.signal(signal.SIGPIPE, signal.SIG_DFL)   # a reader gone: no traceback
s = json.loads(sys.argv[3])
print(json.dumps({"period": int(sys.argv[1]), "stacks": sys.argv[4], "dir": sys.argv[2],
                  "samples": s["samples"], "top": s["top"]}, separators=(",", ":")))' \
        "$gprof_period" "$gprof_dir" "$s" "$gprof_stacks"
}
