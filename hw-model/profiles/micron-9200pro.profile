# Micron 9200 PRO 3.84 TB: an enterprise NVMe SSD with power-loss
# protection ("power-backed cache", "capacitor-backed power loss
# protection"), PCIe Gen3 x4, U.2.  Data sheet (two revisions):
# https://manualmachine.com/micron/mtfdhal1t6tcu/8099403-user-manual and
# https://vdocument.in/9200-nvme-ssds-2-steady-state-as-defined-by-snia-solid-state-storage-performance.html
# Data-sheet figures: latency to media, typical, QD1: read 92-150 us (by
# capacity), write 21 us; 128 KiB sequential read 2.85-3.15 GB/s, write
# 1.9-2.3 GB/s.  Keys not from the data sheet say assumed or derived; none
# is fitted.  Such a drive reports a write-through cache (VWC 0: Linux
# shows "write through", FUA 0) and runs with the front end's write cache
# off; its buffer takes writes whatever WCE says (power_loss_protection).
type = flash
capacity_bytes = 3840755982336   # 3.84 TB (data sheet), IDEMA LBA count
parallel_units = 80              # assumed: 3.84 TB of 384 Gb (48 GB) 3D TLC dies
planes = 2                       # assumed
program_kb = 16                  # assumed: a 16 KiB page
program_us = 1140                # derived: 2.3 GB/s sequential write (data sheet) = 80 dies x 2 planes x 16 KiB per program
read_us = 71                     # derived: 92 us QD1 read (data sheet) - command overhead - a 4 KiB transfer
command_overhead_us = 20         # derived: 21 us QD1 write (data sheet, from the buffer) - a 4 KiB transfer
interface = nvme
interface_mb_s = 3575            # PCIe 3.0 x4: 4 x 8 GT/s, 128b/130b = 3938 MB/s, x 256/282 (framing, header and LCRC per 256 B payload)
queue_depth = 1024
queue_policy = fifo
write_cache = no                 # reports no volatile write cache
power_loss_protection = yes      # data sheet: power-backed cache
cache_mb = 64                    # assumed: the DRAM write buffer's share
cache_segments = 16384
fua = yes
fua_method = protected-buffer    # acknowledged from the protected buffer
flush = queued                   # NVMe
flush_commit_us = 0              # the capacitors commit at a power loss: nothing to do
