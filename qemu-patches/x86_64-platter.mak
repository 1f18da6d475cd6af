# Device set for platter's qemu-system-x86_64 (installed by scripts/build-qemu
# as configs/devices/x86_64-softmmu/platter.mak and used with
# --without-default-devices).  Only what a block-layer experiment needs:
# two PC boards, the storage front ends (q35 brings its ICH9 AHCI, the
# sata front end's controller), a serial console, and isa-debug-exit so a
# guest can end the run with a status.
CONFIG_Q35=y
CONFIG_I440FX=y
CONFIG_SERIAL_ISA=y
CONFIG_HPET=y
CONFIG_ISA_DEBUG=y
CONFIG_VIRTIO_PCI=y
CONFIG_VIRTIO_BLK=y
CONFIG_VIRTIO_SCSI=y
CONFIG_NVME_PCI=y
