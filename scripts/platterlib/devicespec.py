"""A device entry of an experiment (a front end and a drive): its name in
cell ids, and what it shows the guest kernel (FUA, write cache), the
modeled drive (run-guest --drive-opts) and platter-sim (the policy of an
O_DSYNC write).  A leaf: it imports nothing of platter's."""


def write_cache(dev):
    return dev.get("write_cache", "on") == "on"


def frontend_fua(dev):
    """Does the front end advertise FUA when the drive has a write cache?
    (Linux: NVMe does with a volatile write cache, which platter's QEMU
    reports exactly when the drive has one (qemu-patches 0008); scsi-hd
    per DPOFUA; sata when the drive advertises it (ide-hd fua, qemu-patches
    0010) and libata.fua=1 lets libata use it; virtio-blk never.)"""
    if dev["frontend"] == "nvme":
        return True
    if dev["frontend"] == "scsi-hd":
        return dev.get("dpofua", "on") == "on"
    if dev["frontend"] == "sata":
        return dev.get("dpofua", "on") == "on" and dev.get("libata_fua", "0") == "1"
    return False


def guest_fua(dev):
    """FUA as the guest kernel sees it (queue/fua): only with a write cache."""
    return write_cache(dev) and frontend_fua(dev)


def drive_fua(dev):
    """The modeled drive's native FUA: the device's own 'fua', else what
    the front end advertises."""
    return dev.get("fua", "on" if frontend_fua(dev) else "off") == "on"


def drive_opts(profile, fua, image="disk.img", write_cache=True, queue_depth=None):
    """The modeled drive as run-guest --drive-opts."""
    qd = f",queue-depth={queue_depth}" if queue_depth else ""
    return (f"driver=hddmodel,profile={profile},fua={'on' if fua else 'off'},"
            f"write-cache={'on' if write_cache else 'off'}{qd},file={image}")


def device_drive_opts(dev, profile):
    return drive_opts(profile, drive_fua(dev), write_cache=write_cache(dev),
                      queue_depth=dev.get("queue_depth"))


def device_expect(dev):
    """What the guest must see on the test device (run-guest --expect)."""
    return (f"fua:{1 if guest_fua(dev) else 0},"
            f"write_cache:{'write_back' if write_cache(dev) else 'write_through'}")


def dsync_policy(declares, dev):
    """The commands an O_DSYNC direct write reaches the drive as, from
    what the kernel declares and what the device advertises (README,
    --policy).  The kernel sets REQ_FUA (unless it declares
    dsync_fua_native_only and the device has no FUA) and follows the write
    with generic_write_sync()'s flush (unless it declares
    dsync_fua_no_flush and the write carried REQ_FUA, or
    dsync_no_flush_without_fua and it did not); blk-flush turns
    REQ_FUA into a post-flush on a device without FUA, and QEMU's block
    layer does the same for a drive without native FUA."""
    if not write_cache(dev):
        return "write"   # no write cache: FUA and flushes are dropped
    fua_bit = guest_fua(dev) or "dsync_fua_native_only" not in declares
    sync_flush = ("dsync_fua_no_flush" not in declares if fua_bit else
                  "dsync_no_flush_without_fua" not in declares)
    if not fua_bit and not sync_flush:
        return "write"
    if fua_bit and guest_fua(dev) and drive_fua(dev):
        return "fua+flush" if sync_flush else "fua"
    # the write, and a flush for the emulated FUA or the sync (or both)
    return "fua-emulated" if fua_bit and sync_flush else "write+flush"


def device_name(dev):
    if "name" in dev:
        return dev["name"]
    if dev["frontend"] == "scsi-hd":
        return f"scsi-hd-dpofua-{dev.get('dpofua', 'on')}"
    if dev["frontend"] == "sata":
        return "sata" + ("-dpofua-off" if dev.get("dpofua", "on") == "off" else "") + \
            ("-libata-fua" if dev.get("libata_fua") == "1" else "")
    return dev["frontend"]
