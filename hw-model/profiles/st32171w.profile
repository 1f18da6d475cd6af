# Seagate Barracuda 2.1 GB (ST32171W), a 7,200 rpm Ultra SCSI drive, for
# validation against DiskSim's trace of this drive (docs/VALIDATION.md,
# "DiskSim's ten drives").  No data sheet of the drive is readable in the
# stored corpus, so the figures a data sheet would give are taken from what
# DIXtrac measured on the drive, as DiskSim ships it:
#   [dx] extracted by DIXtrac, source: benh/disksim valid/barracuda.model
#        (geometry, rotation speed), valid/barracuda.seek (seek times
#        measured by distance) and valid/barracuda.diskspecs (buffer
#        segments, command overheads by kind)
# Nothing here is fitted to the trace's response times; every other key is
# derived by the rules in hw-model/src/profile.c or takes its class default
# (--dump-profile says which).  drive_class is not given: this SCSI
# Barracuda of 1997 is not the later desktop (SATA) Barracuda line.
type = hdd
capacity_bytes = 2104320000       # [dx] Block count = 4110000 x 512
rpm = 7200                        # [dx] Rotation speed (in rpms)
form_factor = 3.5-inch            # the Barracuda is a 3.5-inch drive
interface = sas                   # SCSI: a queued-command interface like SAS (flush queued)
interface_mb_s = 3.8209           # [dx] Bulk sector transfer time = 0.134 ms a block (valid/barracuda.diskspecs):
                                  # 512 B in that time, the drive's own host transfer, slower than
                                  # its SCSI bus; DiskSim moves a block in the slower of the two
heads = 5                         # [dx] Number of data surfaces
zones = 11                        # [dx] 11 dm_layout_g1_zone entries
outer_sectors_per_track = 186     # [dx] zone 0 Blocks per track
inner_sectors_per_track = 119     # [dx] zone 10 Blocks per track
seek_track_to_track_ms = 1.943    # [dx] seek time at distance 1
seek_full_stroke_ms = 16.679      # [dx] seek time at distance 4986, the longest measured
seek_avg_ms = 9.326               # [dx] the data-sheet average (weighted over all seek
                                  # distances, docs/profiles.md) of the measured curve,
                                  # linear between its 87 points (held at 16.679 beyond
                                  # 4986), over 5172 cylinders
cache_mb = 0.41162109375          # [dx] 3 segments x 281 blocks = 431616 bytes, exactly
read_segments = 3                 # [dx] Number of buffer segments = 3
read_segment_kb = 140.5           # [dx] Segment size 281 blocks, exactly
cache_segments = 1                # [dx] Maximum number of write segments = 1 (valid/barracuda.diskspecs)
# [dx] valid/barracuda.diskspecs "Read hit over. after read" and its seven
# siblings, ms there: DIXtrac times each kind of command on the idle drive
read_hit_overhead_us = 82                 # [dx] Read hit over. after read = 0.082
read_hit_after_write_overhead_us = 596    # [dx] Read hit over. after write = 0.596
read_miss_overhead_us = 613.07            # [dx] Read miss over. after read = 0.61307
read_miss_after_write_overhead_us = 568.13 # [dx] Read miss over. after write = 0.56813
write_hit_overhead_us = 1010              # [dx] Write hit over. after read = 1.01
write_hit_after_write_overhead_us = 929.1 # [dx] Write hit over. after write = 0.9291
write_miss_overhead_us = 1053.63          # [dx] Write miss over. after read = 1.05363
write_miss_after_write_overhead_us = 815.6 # [dx] Write miss over. after write = 0.8156
# Not taken: DIXtrac's head switch (0.1 ms) and added write settle
# (0 ms), valid/barracuda.model.  The model has no track-skew key and
# derives its skew from these two; DIXtrac measured the skews apart, and the
# rules' values stand in for both (docs/VALIDATION.md, "DiskSim's ten drives").
