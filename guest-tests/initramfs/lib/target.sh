# The test target of the guest tests that run on the raw device or on a
# fresh file system on it (fio, exec, fsync-append): their --fs,
# --mkfs-arg and --mount-opts options, mkfs and mount, the device's block
# counters, and the result's transport encoding.  Sourced (busybox sh).
#
#   --fs none|xfs|ext4|btrfs  none: the raw device; else a fresh file system
#                        mounted at /mnt (default: the test's own)
#   --mkfs-arg WORD      one more mkfs argument, after platter's defaults
#                        (repeat it for each word: the kernel command line
#                        carries no spaces inside an argument)
#   --mount-opts OPTS    mount -o OPTS, after platter's defaults
#
# Defaults, so a file system starts without background I/O that would land
# in the measurement: xfs: mkfs.xfs -f -K (no discard); ext4: mkfs.ext4 -F
# -E nodiscard,lazy_itable_init=1,lazy_journal_init=1 (a fresh sparse
# image reads zeros: nothing to clear) and mount -o noinit_itable (no
# ext4lazyinit writes); btrfs: mkfs.btrfs -f -K (no discard) and mount -o
# nodiscard (btrfs turns on discard=async by itself on a device that
# advertises discard, and trims freed extents in the background).  A
# later -E replaces platter's (mke2fs keeps the last); a later mount
# option wins over an earlier one.
. /platter/lib/options.sh
target_fs=${target_fs:-none} target_mkfs= target_mount=

# target_option OPTION VALUE: 0 when OPTION is one of the above.
target_option() {
    case $1 in
    --fs) target_fs=$2 ;;
    --mkfs-arg) target_mkfs="$target_mkfs $2" ;;
    --mount-opts) target_mount=$2 ;;
    *) return 1 ;;
    esac
}

target_error() {
    echo "$target_who: ERROR: $*" >&2
    exit 3
}

# target_up WHO: sets TARGET (the device node, or /mnt with a fresh file
# system on the device) and records the device's counters.
target_up() {
    target_who=$1
    [ -n "$PLATTER_DEV" ] || target_error "no test device"
    target_dev=/dev/$PLATTER_DEV
    case $target_fs in
    none)
        [ -z "$target_mkfs$target_mount" ] ||
            target_error "--mkfs-arg and --mount-opts need a file system (--fs xfs|ext4|btrfs)"
        TARGET=$target_dev ;;
    xfs|ext4|btrfs)
        # the option that builds it in, named when this kernel lacks it (a
        # prebuilt one, or one built without fs=$target_fs)
        # shellcheck disable=SC2046
        sym=$(options_missing $(options_fs "$target_fs"))
        [ -z "$sym" ] ||
            target_error "this kernel has no $target_fs file system ($sym is not built in)"
        command -v "mkfs.$target_fs" >/dev/null ||
            target_error "no mkfs.$target_fs in this initramfs"
        opts=$target_mount
        case $target_fs in
        xfs) set -- -q -f -K ;;
        ext4) set -- -q -F -E nodiscard,lazy_itable_init=1,lazy_journal_init=1
              opts=noinit_itable${opts:+,$opts} ;;
        btrfs) set -- -q -f -K
               opts=nodiscard${opts:+,$opts} ;;
        esac
        # word splitting of $target_mkfs is intended: an argument list
        # shellcheck disable=SC2086
        "mkfs.$target_fs" "$@" $target_mkfs "$target_dev" >&2 ||
            target_error "mkfs.$target_fs$target_mkfs $target_dev failed"
        mount -t "$target_fs" ${opts:+-o "$opts"} "$target_dev" /mnt ||
            target_error "mount -t $target_fs${opts:+ -o $opts} $target_dev /mnt failed"
        TARGET=/mnt ;;
    *) target_error "--fs '$target_fs': not one of none, xfs, ext4, btrfs" ;;
    esac
    target_before=$(cat "/sys/block/$PLATTER_DEV/stat")
}

# target_down: unmount (its writes are not in the counters any more).
target_down() {
    target_after=$(cat "/sys/block/$PLATTER_DEV/stat")
    [ "$TARGET" = /mnt ] && umount /mnt
    return 0
}

# target_device_json: the "device" object of a result: queue attributes
# and the block counters between target_up and target_down (fields 5
# writes, 7 write sectors, 16 flushes of the stat file).
target_device_json() {
    q=/sys/block/$PLATTER_DEV/queue
    printf '{"name":"%s","fua":%s,"write_cache":"%s","rotational":%s,' \
        "$PLATTER_DEV" "$(cat $q/fua)" "$(cat $q/write_cache)" "$(cat $q/rotational)"
    echo "$target_before $target_after" | awk '{ printf "\"stat_delta\":{\"writes\":%d,\"write_sectors\":%d,\"flushes\":%d}}", $22-$5, $24-$7, $33-$16 }'
}

# target_params_json: the target as result "params" fields (no braces).
target_params_json() {
    printf '"fs":"%s","mkfs_args":"%s","mount_opts":"%s"' "$target_fs" \
        "$(printf '%s' "${target_mkfs# }" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g')" \
        "$(printf '%s' "$target_mount" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g')"
}

# gz_b64 FILE: FILE gzip-compressed and base64-encoded on one line: any
# bytes survive the console and the JSON string; the host decodes it.
gz_b64() {
    gzip -c < "$1" | base64 | tr -d '\n'
}
