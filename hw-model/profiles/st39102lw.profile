# Seagate Cheetah 9LP 9.1 GB (ST39102LW), a 10,000 rpm Ultra2 SCSI drive,
# for validation against DiskSim's trace of this drive (docs/VALIDATION.md,
# "Seagate Cheetah 9LP").  No data sheet of the drive is readable in the
# stored corpus (the product manual, publication 83329240 Rev. C, is reachable
# from its title page only), so the figures a data sheet would give are taken
# from what DIXtrac measured on the drive, as DiskSim ships it:
#   [dx] extracted by DIXtrac, source: benh/disksim valid/cheetah9LP.model
#        (geometry, rotation speed), valid/cheetah9LP.seek (seek times
#        measured by distance) and valid/cheetah9LP.diskspecs (buffer
#        segments, command overheads by kind)
# Nothing here is fitted to the trace's response times; every other key is
# derived by the rules in hw-model/src/profile.c or takes its class default
# (--dump-profile says which).
type = hdd
capacity_bytes = 9105018880       # [dx] Block count = 17783240 x 512
rpm = 10045                       # [dx] Rotation speed (in rpms)
form_factor = 3.5-inch            # the Cheetah 9LP is a 3.5-inch drive (product manual title)
interface = sas                   # SCSI: a queued-command interface like SAS (flush queued)
interface_mb_s = 4.8762           # [dx] Bulk sector transfer time = 0.105 ms a block (valid/cheetah9LP.diskspecs):
                                  # 512 B in that time, the drive's own host transfer, slower than
                                  # its SCSI bus; DiskSim moves a block in the slower of the two
heads = 12                        # [dx] Number of data surfaces
zones = 11                        # [dx] 11 dm_layout_g1_zone entries
outer_sectors_per_track = 254     # [dx] zone 0 Blocks per track
inner_sectors_per_track = 167     # [dx] zone 10 Blocks per track
seek_track_to_track_ms = 0.831    # [dx] seek time at distance 1
seek_full_stroke_ms = 10.627      # [dx] seek time at distance 6894, the longest measured
seek_avg_ms = 5.468               # [dx] the data-sheet average (weighted over all seek
                                  # distances, docs/profiles.md) of the measured curve,
                                  # linear between its 106 points, over 6962 cylinders
cache_mb = 0.82177734375          # [dx] 3 segments x 561 blocks = 861696 bytes, exactly
read_segments = 3                 # [dx] Number of buffer segments = 3
read_segment_kb = 280.5           # [dx] Segment size 561 blocks, exactly
cache_segments = 3                # [dx] Maximum number of write segments = 3 (valid/cheetah9LP.diskspecs)
# [dx] valid/cheetah9LP.diskspecs "Read hit over. after read" and its seven
# siblings, ms there: DIXtrac times each kind of command on the idle drive
read_hit_overhead_us = 66                 # [dx] Read hit over. after read = 0.066
read_hit_after_write_overhead_us = 273    # [dx] Read hit over. after write = 0.273
read_miss_overhead_us = 283.62            # [dx] Read miss over. after read = 0.28362
read_miss_after_write_overhead_us = 86.73 # [dx] Read miss over. after write = 0.08673
write_hit_overhead_us = 748               # [dx] Write hit over. after read = 0.748
write_hit_after_write_overhead_us = 500   # [dx] Write hit over. after write = 0.5
write_miss_overhead_us = 906.92           # [dx] Write miss over. after read = 0.90692
write_miss_after_write_overhead_us = 896.4 # [dx] Write miss over. after write = 0.8964
# Not taken: DIXtrac's head switch (0.03 ms) and added write settle
# (0.461 ms), valid/cheetah9LP.model.  The model has no track-skew key and
# derives its skew from these two; DIXtrac measured the skews apart, and the
# rules' values stand in for both (docs/VALIDATION.md, "DiskSim's ten drives").
