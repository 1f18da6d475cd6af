# Samsung 990 PRO class NVMe flash without power-loss protection: a volatile
# write buffer whose write-back fills a page per plane, parallel dies of
# planes, a flush that programs what is buffered and commits the mapping
# table.  The data-sheet rates are checked in docs/VALIDATION.md
# (scripts/validate --drive 990pro); every value not from the data sheet is
# listed there as assumed or fitted. Shape follows the xfs series' measurement
# (shared/seeds/xfs-fsync-flush-series.txt); DESIGN.md: flush of ~0.25-0.9 ms
# when data is dirty.
type = flash
capacity_bytes = 2000398934016    # 2 TB model (data sheet)
parallel_units = 32               # dies: 2 TB of 512 Gb V-NAND TLC dies (176-layer, heise c't 2024/4), 8 channels x 4
planes = 4                        # per die: Samsung V7 512 Gb TLC (ISSCC 2021, the same table)
read_us = 40                      # Samsung V7 (176-layer) 512 Gb TLC page read, tR (ISSCC 2021, as tabled by ComputerBase 2021-02 'ISSCC 2021: Die neuen 3D-NAND-Generationen im Vergleich')
program_us = 200                  # SLC-cache program (TurboWrite), assumed
program_kb = 16                   # one page per plane (assumed)
command_overhead_us = 8           # NVMe controller (assumed)
interface_mb_s = 7151             # PCIe 4.0 x4: 4 x 16 GT/s, 128b/130b = 7877 MB/s, x 256/282 (26 B of framing, header and LCRC per 256 B payload)
queue_depth = 1024
queue_policy = fifo
write_cache = yes                 # volatile buffer, no PLP
cache_mb = 64                     # write buffer (assumed; DRAM is 2 GB but mostly FTL map)
cache_segments = 16384
fua = yes
fua_method = in-place             # no PLP: a FUA write is programmed before it completes
flush = queued                    # NVMe
flush_commit_us = 900             # fitted: DESIGN: FLUSH costs 0.25-0.9 ms; every FLUSH runs it, and every FUA write after its program, one at a time (see docs/calibration.md)
