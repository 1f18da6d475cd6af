# DEC RZ26 1 GB, a 5,400 rpm class SCSI-2 drive, for validation against
# DiskSim's trace of this drive (docs/VALIDATION.md, "DiskSim's ten drives").  No data
# sheet of the drive is readable in the stored corpus, so the figures a
# data sheet would give are taken from what DIXtrac measured on the drive,
# as DiskSim ships it:
#   [dx] extracted by DIXtrac, source: benh/disksim
#        valid/dec_rz26_validate.model (geometry, rotation speed),
#        valid/dec_rz26_validate.seek (seek times measured by distance),
#        valid/dec_rz26.diskspecs (buffer segments, write caching, command
#        overheads by kind) and valid/dec_rz26.parv (the SCSI bus of the
#        traced system)
# Nothing here is fitted to the trace's response times; every other key is
# derived by the rules in hw-model/src/profile.c or takes its class default
# (--dump-profile says which).
type = hdd
capacity_bytes = 1050040320       # [dx] Block count = 2050860 x 512
rpm = 5360                        # [dx] Rotation speed (in rpms)
form_factor = 3.5-inch            # the RZ26 is a 3.5-inch drive (scripts/validate's class for it)
interface = sas                   # SCSI: a queued-command interface like SAS (flush queued)
interface_mb_s = 7.2429           # [dx] dec_rz26.parv BUS1 Read/Write block transfer
                                  # time = 0.07069 ms a 512-byte block (the traced host's bus)
heads = 14                        # [dx] Number of data surfaces
zones = 1                         # [dx] 1 dm_layout_g1_zone entry
outer_sectors_per_track = 58      # [dx] zone 0 Blocks per track
inner_sectors_per_track = 58      # [dx] zone 0 Blocks per track (one zone)
seek_track_to_track_ms = 1.014    # [dx] seek time at distance 1 (1.0143968)
seek_full_stroke_ms = 19.099      # [dx] seek time at distance 2569, the longest measured
                                  # (the file repeats it at 2599)
seek_avg_ms = 10.496              # [dx] the data-sheet average (weighted over all seek
                                  # distances, docs/profiles.md) of the measured curve,
                                  # linear between its 64 points, over 2599 cylinders
cache_mb = 0.2783203125           # [dx] 10 segments x 57 blocks = 291840 bytes, exactly
read_segments = 9                 # [dx] Number of buffer segments = 10, less the one "Use separate write segment = 1" keeps for writes
read_segment_kb = 28.5            # [dx] Segment size 57 blocks, exactly
cache_segments = 1                # [dx] Maximum number of write segments = 1 (valid/dec_rz26.diskspecs)
write_cache = no                  # [dx] Fast write level = 0 (valid/dec_rz26.diskspecs): a write completes once on the media
# [dx] valid/dec_rz26.diskspecs "Read hit over. after read" and its seven
# siblings, ms there: DIXtrac times each kind of command on the idle drive
read_hit_overhead_us = 1229               # [dx] Read hit over. after read = 1.229
read_hit_after_write_overhead_us = 1143   # [dx] Read hit over. after write = 1.143
read_miss_overhead_us = 1489              # [dx] Read miss over. after read = 1.489
read_miss_after_write_overhead_us = 1489  # [dx] Read miss over. after write = 1.489
write_hit_overhead_us = 2167              # [dx] Write hit over. after read = 2.167
write_hit_after_write_overhead_us = 1942  # [dx] Write hit over. after write = 1.942
write_miss_overhead_us = 2167             # [dx] Write miss over. after read = 2.167
write_miss_after_write_overhead_us = 1942 # [dx] Write miss over. after write = 1.942
# Not taken: DIXtrac's head switch (0.865 ms) and added write settle
# (-0.483 ms), valid/dec_rz26_validate.model.  The model has no track-skew key and
# derives its skew from these two; DIXtrac measured the skews apart, and the
# rules' values stand in for both (docs/VALIDATION.md, "DiskSim's ten drives").
