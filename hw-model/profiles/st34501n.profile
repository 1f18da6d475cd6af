# Seagate Cheetah 4LP 4.5 GB (ST34501N), a 10,000 rpm Ultra SCSI drive, for
# validation against DiskSim's trace of this drive (docs/VALIDATION.md,
# "DiskSim's ten drives").  No data sheet of the drive is readable in the
# stored corpus, so the figures a data sheet would give are taken from what
# DIXtrac measured on the drive, as DiskSim ships it:
#   [dx] extracted by DIXtrac, source: benh/disksim valid/cheetah4LP.model
#        (geometry, rotation speed), valid/cheetah4LP.seek (seek times
#        measured by distance) and valid/cheetah4LP.diskspecs (buffer
#        segments, command overheads by kind)
# Nothing here is fitted to the trace's response times; every other key is
# derived by the rules in hw-model/src/profile.c or takes its class default
# (--dump-profile says which).
type = hdd
capacity_bytes = 4550246400       # [dx] Block count = 8887200 x 512
rpm = 10033                       # [dx] Rotation speed (in rpms)
form_factor = 3.5-inch            # the Cheetah 4LP is a 3.5-inch drive, as the Cheetah 9LP
interface = sas                   # SCSI: a queued-command interface like SAS (flush queued)
interface_mb_s = 4.8302           # [dx] Bulk sector transfer time = 0.106 ms a block (valid/cheetah4LP.diskspecs):
                                  # 512 B in that time, the drive's own host transfer, slower than
                                  # its SCSI bus; DiskSim moves a block in the slower of the two
heads = 8                         # [dx] Number of data surfaces
zones = 7                         # [dx] 7 dm_layout_g1_zone entries
outer_sectors_per_track = 195     # [dx] zone 0 Blocks per track
inner_sectors_per_track = 131     # [dx] zone 6 Blocks per track
seek_track_to_track_ms = 0.636    # [dx] seek time at distance 1
seek_full_stroke_ms = 16.107      # [dx] seek time at distance 6580, the longest measured
seek_avg_ms = 7.962               # [dx] the data-sheet average (weighted over all seek
                                  # distances, docs/profiles.md) of the measured curve,
                                  # linear between its 103 points, over 6581 cylinders
cache_mb = 0.4130859375           # [dx] 3 segments x 282 blocks = 433152 bytes, exactly
read_segments = 3                 # [dx] Number of buffer segments = 3
read_segment_kb = 141             # [dx] Segment size 282 blocks, exactly
cache_segments = 1                # [dx] Maximum number of write segments = 1 (valid/cheetah4LP.diskspecs)
# [dx] valid/cheetah4LP.diskspecs "Read hit over. after read" and its seven
# siblings, ms there: DIXtrac times each kind of command on the idle drive
read_hit_overhead_us = 68                 # [dx] Read hit over. after read = 0.068
read_hit_after_write_overhead_us = 309    # [dx] Read hit over. after write = 0.309
read_miss_overhead_us = 607.73            # [dx] Read miss over. after read = 0.60773
read_miss_after_write_overhead_us = 568.83 # [dx] Read miss over. after write = 0.56883
write_hit_overhead_us = 474               # [dx] Write hit over. after read = 0.474
write_hit_after_write_overhead_us = 95    # [dx] Write hit over. after write = 0.095
write_miss_overhead_us = 431.33           # [dx] Write miss over. after read = 0.43133
write_miss_after_write_overhead_us = 537.76 # [dx] Write miss over. after write = 0.53776
# Not taken: DIXtrac's head switch (0.195 ms) and added write settle
# (0 ms), valid/cheetah4LP.model.  The model has no track-skew key and
# derives its skew from these two; DIXtrac measured the skews apart, and the
# rules' values stand in for both (docs/VALIDATION.md, "DiskSim's ten drives").
