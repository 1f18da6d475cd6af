# Quantum Atlas III 9.1 GB (QM39100TD-SW), a 7,200 rpm SCSI drive, for
# validation against DiskSim's trace of this drive (docs/VALIDATION.md,
# "DiskSim's ten drives"; DiskSim names it QUANTUM_QM39100TD-SW).  No data sheet of the drive is readable
# in the stored corpus, so the figures a data sheet would give are taken
# from what DIXtrac measured on the drive, as DiskSim ships it:
#   [dx] extracted by DIXtrac, source: benh/disksim valid/atlas_III.model
#        (geometry, rotation speed), valid/atlas_III.seek (seek times
#        measured by distance) and valid/atlas_III.diskspecs (buffer
#        segments, command overheads by kind)
# Nothing here is fitted to the trace's response times; every other key is
# derived by the rules in hw-model/src/profile.c or takes its class default
# (--dump-profile says which).
type = hdd
capacity_bytes = 9105024000       # [dx] Block count = 17783250 x 512
rpm = 7200                        # [dx] Rotation speed (in rpms)
form_factor = 3.5-inch            # the Atlas III is a 3.5-inch drive
interface = sas                   # SCSI: a queued-command interface like SAS (flush queued)
interface_mb_s = 4.8302           # [dx] Bulk sector transfer time = 0.106 ms a block (valid/atlas_III.diskspecs):
                                  # 512 B in that time, the drive's own host transfer, slower than
                                  # its SCSI bus; DiskSim moves a block in the slower of the two
heads = 10                        # [dx] Number of data surfaces
zones = 9                         # [dx] 9 dm_layout_g1_zone entries
outer_sectors_per_track = 256     # [dx] zone 0 Blocks per track
inner_sectors_per_track = 168     # [dx] zone 8 Blocks per track
seek_track_to_track_ms = 1.663    # [dx] seek time at distance 1
seek_full_stroke_ms = 15.36       # [dx] seek time at distance 7998, the longest measured
seek_avg_ms = 8.313               # [dx] the data-sheet average (weighted over all seek
                                  # distances, docs/profiles.md) of the measured curve,
                                  # linear between its 117 points, over 8057 cylinders
cache_mb = 0.1875                 # [dx] 6 segments x 64 blocks = 196608 bytes, exactly
read_segments = 6                 # [dx] Number of buffer segments = 6
read_segment_kb = 32              # [dx] Segment size 64 blocks, exactly
cache_segments = 1                # [dx] Maximum number of write segments = 1 (valid/atlas_III.diskspecs)
# [dx] valid/atlas_III.diskspecs "Read hit over. after read" and its seven
# siblings, ms there: DIXtrac times each kind of command on the idle drive
read_hit_overhead_us = 374                # [dx] Read hit over. after read = 0.374
read_hit_after_write_overhead_us = 335    # [dx] Read hit over. after write = 0.335
read_miss_overhead_us = 0                 # [dx] Read miss over. after read = 0
read_miss_after_write_overhead_us = 0     # [dx] Read miss over. after write = 0
write_hit_overhead_us = 414               # [dx] Write hit over. after read = 0.414
write_hit_after_write_overhead_us = 396   # [dx] Write hit over. after write = 0.396
write_miss_overhead_us = 478.28           # [dx] Write miss over. after read = 0.47828
write_miss_after_write_overhead_us = 500.2 # [dx] Write miss over. after write = 0.5002
# Not taken: DIXtrac's head switch (0.999 ms) and added write settle
# (0 ms), valid/atlas_III.model.  The model has no track-skew key and
# derives its skew from these two; DIXtrac measured the skews apart, and the
# rules' values stand in for both (docs/VALIDATION.md, "DiskSim's ten drives").
