# The kernel options the guest side needs, checked at boot: a kernel built
# from a user's config, or a prebuilt one, then fails at once naming what
# it lacks (CONFIG_...) instead of hanging or failing obscurely.  Read from
# /proc/config.gz when the kernel carries it (CONFIG_IKCONFIG_PROC), else
# probed through what each option makes visible in sysfs.  Sourced (busybox
# sh); $options_root prefixes every path (empty in the guest).

# options_missing SYM:PATH ...: the SYMs (space-separated) not built in;
# PATH exists exactly when SYM is built in.
options_missing() {
    r=${options_root:-} cfg= m=
    [ -r "$r/proc/config.gz" ] && cfg=$(zcat "$r/proc/config.gz" 2>/dev/null)
    for sp in "$@"; do
        sym=${sp%%:*} probe=${sp#*:}
        if [ -n "$cfg" ]; then
            printf '%s\n' "$cfg" | grep -qx "$sym=y" || m="$m $sym"
        else
            [ -e "$r$probe" ] || m="$m $sym"
        fi
    done
    printf '%s' "${m# }"
}

# options_frontend FRONTEND: what the guest needs to see the test device
# behind that QEMU front end (the drivers' sysfs directories).
options_frontend() {
    pci="CONFIG_PCI:/sys/bus/pci"
    vpci="CONFIG_VIRTIO_PCI:/sys/bus/pci/drivers/virtio-pci"
    case $1 in
    nvme) echo "$pci CONFIG_BLK_DEV_NVME:/sys/bus/pci/drivers/nvme" ;;
    virtio-blk) echo "$pci $vpci CONFIG_VIRTIO_BLK:/sys/bus/virtio/drivers/virtio_blk" ;;
    scsi-hd) echo "$pci $vpci CONFIG_SCSI_VIRTIO:/sys/bus/virtio/drivers/virtio_scsi" \
        "CONFIG_BLK_DEV_SD:/sys/bus/scsi/drivers/sd" ;;
    sata) echo "$pci CONFIG_ATA:/sys/module/libata CONFIG_SATA_AHCI:/sys/bus/pci/drivers/ahci" \
        "CONFIG_BLK_DEV_SD:/sys/bus/scsi/drivers/sd" ;;
    esac
}

# options_fs FS: what the guest needs to make and mount FS (its sysfs
# directory, which each of these creates when built in).
options_fs() {
    case $1 in
    xfs) echo "CONFIG_XFS_FS:/sys/fs/xfs" ;;
    ext4) echo "CONFIG_EXT4_FS:/sys/fs/ext4" ;;
    btrfs) echo "CONFIG_BTRFS_FS:/sys/fs/btrfs" ;;
    esac
}
