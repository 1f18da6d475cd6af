# IBM Ultrastar 18ES 9.1 GB (DNES-309170W), a 7,200 rpm Ultra2 SCSI drive,
# for validation against DiskSim's trace of this drive (docs/VALIDATION.md,
# "DiskSim's ten drives"; DiskSim names it IBM_DNES-309170W_validate).  No data sheet of the drive is
# readable in the stored corpus, so the figures a data sheet would give are
# taken from what DIXtrac measured on the drive, as DiskSim ships it:
#   [dx] extracted by DIXtrac, source: benh/disksim valid/ibm18es.model
#        (geometry, rotation speed), valid/ibm18es.seek (seek times
#        measured by distance) and valid/ibm18es.diskspecs (buffer
#        segments, command overheads by kind)
# Nothing here is fitted to the trace's response times; every other key is
# derived by the rules in hw-model/src/profile.c or takes its class default
# (--dump-profile says which).
type = hdd
capacity_bytes = 9173114880       # [dx] Block count = 17916240 x 512
rpm = 7200                        # [dx] Rotation speed (in rpms)
form_factor = 3.5-inch            # the Ultrastar 18ES is a 3.5-inch drive
interface = sas                   # SCSI: a queued-command interface like SAS (flush queued)
interface_mb_s = 5.0693           # [dx] Bulk sector transfer time = 0.101 ms a block (valid/ibm18es.diskspecs):
                                  # 512 B in that time, the drive's own host transfer, slower than
                                  # its SCSI bus; DiskSim moves a block in the slower of the two
heads = 5                         # [dx] Number of data surfaces
zones = 11                        # [dx] 11 runs of equal Blocks per track (390 ... 247) in the
                                  # 55 dm_layout_g1_zone entries, which DIXtrac splits at the
                                  # one spare cylinder it found every 257 (257, 514, ...)
outer_sectors_per_track = 390     # [dx] zone 0 Blocks per track
inner_sectors_per_track = 247     # [dx] last zone (cylinders 11309-11473) Blocks per track
seek_track_to_track_ms = 1.062    # [dx] seek time at distance 1 (the .model's
                                  # "Single cylinder seek time" says 1.086)
seek_full_stroke_ms = 12.853      # [dx] seek time at distance 11377, the longest measured
                                  # (the .model's "Full strobe seek time" says 12.742)
seek_avg_ms = 7.201               # [dx] the data-sheet average (weighted over all seek
                                  # distances, docs/profiles.md) of the measured curve,
                                  # linear between its 151 points, over 11474 cylinders
cache_mb = 1.74658203125          # [dx] 7 segments x 511 blocks = 1831424 bytes, exactly
read_segments = 6                 # [dx] Number of buffer segments = 7, less the one "Use separate write segment = 1" keeps for writes
read_segment_kb = 255.5           # [dx] Segment size 511 blocks, exactly
cache_segments = 1                # [dx] Maximum number of write segments = 1 (valid/ibm18es.diskspecs)
# [dx] valid/ibm18es.diskspecs "Read hit over. after read" and its seven
# siblings, ms there: DIXtrac times each kind of command on the idle drive
read_hit_overhead_us = 82                 # [dx] Read hit over. after read = 0.082
read_hit_after_write_overhead_us = 121    # [dx] Read hit over. after write = 0.121
read_miss_overhead_us = 252.29            # [dx] Read miss over. after read = 0.25229
read_miss_after_write_overhead_us = 423.86 # [dx] Read miss over. after write = 0.42386
write_hit_overhead_us = 83                # [dx] Write hit over. after read = 0.083
write_hit_after_write_overhead_us = 185.2 # [dx] Write hit over. after write = 0.1852
write_miss_overhead_us = 493.86           # [dx] Write miss over. after read = 0.49386
write_miss_after_write_overhead_us = 793.29 # [dx] Write miss over. after write = 0.79329
# Not taken: DIXtrac's head switch (0.062 ms) and added write settle
# (0.126 ms), valid/ibm18es.model.  The model has no track-skew key and
# derives its skew from these two; DIXtrac measured the skews apart, and the
# rules' values stand in for both (docs/VALIDATION.md, "DiskSim's ten drives").
