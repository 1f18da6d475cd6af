# Seagate Exos X20 ST20000NM007D: 20 TB, 7200 rpm, SATA 6Gb/s, 256 MB cache.
# Calibrated against the measured table in shared/seeds/fops-dsync-fua-series.txt
# (docs/calibration.md shows model vs seed and the command that regenerates it).
type = hdd
capacity_bytes = 20000588955648   # 39,063,650,304 LBAs x 512 (data sheet)
rpm = 7200                        # data sheet; one revolution = 8.333 ms
heads = 20                        # 10 disks, 20 heads (data sheet)
zones = 24                        # assumed; typical zone counts are 20-30
outer_sectors_per_track = 4640    # 285 MB/s outer-edge rate x 8.333 ms / 512
inner_sectors_per_track = 2320    # assumed ID/OD ratio of 0.5 (~142 MB/s)
layout = serpentine               # modern drives; band size assumed
serpentine_band_cylinders = 256
seek_track_to_track_ms = 0.7      # assumed, typical of 3.5-inch enterprise drives
seek_avg_ms = 8.5                 # Exos family read seek figure
seek_full_stroke_ms = 16          # assumed, about twice the average
write_settle_ms = 0.5             # assumed; Exos data sheets give write seek ~1 ms above read
head_switch_ms = 0.4              # assumed
media_cache_cylinder_pct = 0      # media-cache region at the outer edge (assumed)
post_seek_write_miss_pct = 35     # fitted with cache_segments to the seed's random cells (docs/calibration.md); 1.6% of the random baseline's flushes miss
command_overhead_us = 116         # fitted: seed patched sequential 133 us per cached FUA write
interface_mb_s = 600              # SATA 6Gb/s after 8b/10b coding
queue_depth = 32                  # NCQ
queue_policy = sptf
sptf_max_wait_ms = 500
# reordering (docs/profiles.md): enterprise NCQ firmware, modelled as comparing
# its whole queue and its whole cache; the seed's random cells are reproduced
# with exactly that (docs/calibration.md)
queue_window = 32                 # modelling choice: the whole NCQ queue
writeback_window = 512            # modelling choice: every dirty extent (= cache_segments)
writeback_order = positioning     # modelling choice: rotational position ordering
# read path: no data sheet gives these; the values are assumptions, not fitted
read_segments = 32                # assumed: ATA drives of this class report 16-32 buffer segments
read_segment_kb = 2048            # assumed: 32 x 2 MiB, a quarter of the buffer or less
read_segments_shared = yes        # assumed: one DRAM buffer for reads and writes, as in most drives
read_ahead = segment              # assumed: adaptive read-ahead streams sequential reads at the media rate
read_ahead_abandon = yes          # assumed: a queued command preempts read-ahead
zero_latency_read = yes           # assumed: read-on-arrival, standard in current drives
write_cache = yes
cache_mb = 256                    # data sheet
cache_segments = 512              # fitted: seed patched random 666 IOPS (SPTF over a full cache)
cache_high_water_pct = 90         # assumed
idle_destage_delay_ms = 100       # assumed
destage_max_kb = 1024             # assumed
fua = yes                         # the seed measured fua=1
fua_method = protected-buffer     # FUA acked in ~133 us with no revolution; the flush still writes it home
flush = non-queued                # SATA FLUSH CACHE EXT is not an NCQ command
flush_commit_us = 0
