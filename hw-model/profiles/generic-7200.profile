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
# read path: no data sheet gives these; the values are assumptions, not fitted
read_segments = 16                # assumed: ATA drives of this class report 16-32 buffer segments
read_segment_kb = 1024            # assumed: 16 x 1 MiB, a quarter of the buffer or less
read_segments_shared = yes        # assumed: one DRAM buffer for reads and writes, as in most drives
read_ahead = segment              # assumed: adaptive read-ahead streams sequential reads at the media rate
read_ahead_abandon = yes          # assumed: a queued command preempts read-ahead
zero_latency_read = yes           # assumed: read-on-arrival, standard in current drives
write_cache = yes
cache_mb = 64                     # typical of this class
cache_segments = 1024             # assumed
fua = yes
fua_method = in-place             # the plain reading of FUA: written home first
flush = non-queued                # SATA
