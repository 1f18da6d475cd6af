# HP C2490A 2 GB, a 6,400 rpm SCSI-2 drive, for validation against
# DiskSim's trace of this drive (docs/VALIDATION.md, "DiskSim's ten drives").  No data sheet of the
# drive is readable in the stored corpus, so the figures a data sheet would
# give are taken from what DIXtrac measured on the drive, as DiskSim ships it:
#   [dx] extracted by DIXtrac, source: benh/disksim valid/hp_c2490a_validate.model
#        (geometry, rotation speed), valid/hp_c2490a_validate.seek (seek times
#        measured by distance), valid/hp_c2490a.diskspecs (buffer segments,
#        command overheads by kind, write caching) and valid/hp_c2490a.parv
#        (the bus the trace was taken on)
# Nothing here is fitted to the trace's response times; every other key is
# derived by the rules in hw-model/src/profile.c or takes its class default
# (--dump-profile says which).
type = hdd
capacity_bytes = 2132619264       # [dx] Block count = 4165272 x 512
rpm = 6398                        # [dx] Rotation speed (in rpms)
form_factor = 3.5-inch            # the C2490A is a 3.5-inch drive
interface = sas                   # SCSI: a queued-command interface like SAS (flush queued)
interface_mb_s = 3.45             # [dx] hp_c2490a.parv BUS1 Read (and Write) block transfer
                                  # time = 0.14841 ms a 512-byte block (3.450 MB/s)
heads = 18                        # [dx] Number of data surfaces
zones = 11                        # [dx] 11 dm_layout_g1_zone entries
outer_sectors_per_track = 108     # [dx] zone 0 Blocks per track
inner_sectors_per_track = 68      # [dx] zone 10 Blocks per track
seek_track_to_track_ms = 1.264    # [dx] seek time at distance 1 (1.2644218)
seek_full_stroke_ms = 17.378      # [dx] seek time at distance 2625, the longest measured
seek_avg_ms = 9.190               # [dx] the data-sheet average (weighted over all seek
                                  # distances, docs/profiles.md) of the measured curve,
                                  # linear between its 64 points, over 2629 cylinders
                                  # (Number of cylinders; beyond 2625 extrapolated, as
                                  # DiskSim does)
cache_mb = 0.125                  # [dx] 1 segments x 256 blocks = 131072 bytes, exactly
read_segments = 1                 # [dx] Number of buffer segments = 1
read_segment_kb = 128             # [dx] Segment size 256 blocks, exactly
cache_segments = 1                # [dx] Maximum number of write segments = 1 (valid/hp_c2490a.diskspecs)
write_cache = no                  # [dx] Fast write level = 0 (valid/hp_c2490a.diskspecs): a write completes once on the media
# [dx] valid/hp_c2490a.diskspecs "Read hit over. after read" and its seven
# siblings, ms there: DIXtrac times each kind of command on the idle drive
read_hit_overhead_us = 1419               # [dx] Read hit over. after read = 1.419
read_hit_after_write_overhead_us = 0      # [dx] Read hit over. after write = 0
read_miss_overhead_us = 3616              # [dx] Read miss over. after read = 3.616
read_miss_after_write_overhead_us = 2275  # [dx] Read miss over. after write = 2.275
write_hit_overhead_us = 3283              # [dx] Write hit over. after read = 3.283
write_hit_after_write_overhead_us = 823.91 # [dx] Write hit over. after write = 0.82391
write_miss_overhead_us = 3283             # [dx] Write miss over. after read = 3.283
write_miss_after_write_overhead_us = 823.91 # [dx] Write miss over. after write = 0.82391
# Not taken: DIXtrac's head switch (0.992 ms) and added write settle
# (-0.642 ms), valid/hp_c2490a_validate.model.  The model has no track-skew key and
# derives its skew from these two; DIXtrac measured the skews apart, and the
# rules' values stand in for both (docs/VALIDATION.md, "DiskSim's ten drives").
