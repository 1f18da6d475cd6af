# A generic 3.5-inch 7200 rpm SATA drive of about 4 TB, from textbook figures
# (Ruemmler & Wilkes; typical data-sheet values). Cylinder-major layout so
# the geometry is easy to follow in --explain output and in tests.
type = hdd
capacity_bytes = 4000787030016    # 4 TB class: 7,814,037,168 LBAs x 512
rpm = 7200
heads = 8                         # 4 disks (typical)
zones = 16                        # typical
outer_sectors_per_track = 3600    # ~220 MB/s at the outer edge
inner_sectors_per_track = 1800    # ~110 MB/s at the inner edge
layout = cylinder
seek_track_to_track_ms = 1.0      # typical data-sheet figure
seek_avg_ms = 8.5                 # typical data-sheet figure
seek_full_stroke_ms = 17          # typical data-sheet figure
write_settle_ms = 0.5             # typical write-seek penalty
head_switch_ms = 0.8              # typical
command_overhead_us = 50          # typical SATA firmware
interface_mb_s = 600              # SATA 6Gb/s
queue_depth = 32                  # NCQ
queue_policy = sptf
write_cache = yes
cache_mb = 64                     # typical of this class
cache_segments = 1024             # assumed
fua = yes
fua_method = in-place             # the plain reading of FUA: written home first
flush = non-queued                # SATA
