# HP C3323A 1 GB, a 5,400 rpm SCSI-2 drive, for validation against
# DiskSim's trace of this drive (docs/VALIDATION.md, "DiskSim's ten drives").  No data
# sheet of the drive is readable in the stored corpus, so the figures a
# data sheet would give are taken from what DIXtrac measured on the drive,
# as DiskSim ships it:
#   [dx] extracted by DIXtrac, source: benh/disksim valid/hp_c3323a.model
#        (geometry, rotation speed), valid/hp_c3323a.seek (seek times
#        measured by distance), valid/hp_c3323a.diskspecs (buffer
#        segments, write caching, command overheads by kind) and
#        valid/hp_c3323a.parv (the SCSI bus of the traced system)
# Nothing here is fitted to the trace's response times; every other key is
# derived by the rules in hw-model/src/profile.c or takes its class default
# (--dump-profile says which).
type = hdd
capacity_bytes = 1052676096       # [dx] Block count = 2056008 x 512
rpm = 5400                        # [dx] Rotation speed (in rpms) (hp_c3323a_validate.model,
                                  # which DiskSim's hp_c3323a.parv runs, says 5396)
form_factor = 3.5-inch            # the C3323A is a 3.5-inch drive (scripts/validate's class for it)
interface = sas                   # SCSI: a queued-command interface like SAS (flush queued)
interface_mb_s = 3.5189           # [dx] hp_c3323a.parv BUS1 Read/Write block transfer
                                  # time = 0.14550 ms a 512-byte block (the traced host's bus)
heads = 7                         # [dx] Number of data surfaces
zones = 8                         # [dx] 8 dm_layout_g1_zone entries
outer_sectors_per_track = 120     # [dx] zone 0 Blocks per track
inner_sectors_per_track = 72      # [dx] zone 7 Blocks per track
seek_track_to_track_ms = 1.178    # [dx] seek time at distance 1 (1.178043)
seek_full_stroke_ms = 18.116      # [dx] seek time at distance 2976, the longest measured
seek_avg_ms = 9.527               # [dx] the data-sheet average (weighted over all seek
                                  # distances, docs/profiles.md) of the measured curve,
                                  # linear between its 67 points, over 2982 cylinders
cache_mb = 0.5                    # [dx] 2 segments x 512 blocks = 524288 bytes, exactly
read_segments = 1                 # [dx] Number of buffer segments = 2, less the one "Use separate write segment = 1" keeps for writes
read_segment_kb = 256             # [dx] Segment size 512 blocks, exactly
cache_segments = 1                # [dx] Maximum number of write segments = 1 (valid/hp_c3323a.diskspecs)
write_cache = no                  # [dx] Fast write level = 0 (valid/hp_c3323a.diskspecs): a write completes once on the media
# [dx] valid/hp_c3323a.diskspecs "Read hit over. after read" and its seven
# siblings, ms there: DIXtrac times each kind of command on the idle drive
read_hit_overhead_us = 348                # [dx] Read hit over. after read = 0.348
read_hit_after_write_overhead_us = 1387   # [dx] Read hit over. after write = 1.387
read_miss_overhead_us = 2502              # [dx] Read miss over. after read = 2.502
read_miss_after_write_overhead_us = 2502  # [dx] Read miss over. after write = 2.502
write_hit_overhead_us = 3290              # [dx] Write hit over. after read = 3.29
write_hit_after_write_overhead_us = 2920  # [dx] Write hit over. after write = 2.92
write_miss_overhead_us = 3290             # [dx] Write miss over. after read = 3.29
write_miss_after_write_overhead_us = 2920 # [dx] Write miss over. after write = 2.92
# Not taken: DIXtrac's head switch (0.65 ms) and added write settle
# (0.07 ms), valid/hp_c3323a.model.  The model has no track-skew key and
# derives its skew from these two; DIXtrac measured the skews apart, and the
# rules' values stand in for both (docs/VALIDATION.md, "DiskSim's ten drives").
