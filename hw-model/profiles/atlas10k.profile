# Quantum Atlas 10K 9.1 GB (DiskSim's QUANTUM_TORNADO), a 10,000 rpm Ultra2
# SCSI drive, for validation against DiskSim's trace of this drive
# (docs/VALIDATION.md, "Quantum Atlas 10K").  No data sheet of the drive is
# readable in the stored corpus, so the figures a data sheet would give are
# taken from what DIXtrac measured on the drive, as DiskSim ships it:
#   [dx] extracted by DIXtrac, source: benh/disksim valid/atlas10k.model
#        (geometry, rotation speed), valid/atlas10k.seek (seek times
#        measured by distance) and valid/atlas10k.diskspecs (buffer
#        segments, command overheads by kind)
# Nothing here is fitted to the trace's response times; every other key is
# derived by the rules in hw-model/src/profile.c or takes its class default
# (--dump-profile says which).
type = hdd
capacity_bytes = 9184760832       # [dx] Block count = 17938986 x 512
rpm = 10025                       # [dx] Rotation speed (in rpms)
form_factor = 3.5-inch            # the Atlas 10K is a 3.5-inch drive
interface = sas                   # SCSI: a queued-command interface like SAS (flush queued)
interface_mb_s = 5.1717           # [dx] Bulk sector transfer time = 0.099 ms a block (valid/atlas10k.diskspecs):
                                  # 512 B in that time, the drive's own host transfer, slower than
                                  # its SCSI bus; DiskSim moves a block in the slower of the two
heads = 6                         # [dx] Number of data surfaces
zones = 13                        # [dx] 13 runs of equal Blocks per track in the 24
                                  # dm_layout_g1_zone entries (DIXtrac splits a zone at spares)
outer_sectors_per_track = 334     # [dx] zone 0 Blocks per track
inner_sectors_per_track = 229     # [dx] zone 23 Blocks per track
seek_track_to_track_ms = 1.245    # [dx] seek time at distance 1
seek_full_stroke_ms = 10.828      # [dx] seek time at distance 10021, the longest measured
seek_avg_ms = 5.599               # [dx] the data-sheet average (weighted over all seek
                                  # distances, docs/profiles.md) of the measured curve,
                                  # linear between its 138 points, over 10042 cylinders
cache_mb = 1.826171875            # [dx] 10 segments x 374 blocks = 1914880 bytes, exactly
read_segments = 10                # [dx] Number of buffer segments = 10
read_segment_kb = 187             # [dx] Segment size 374 blocks, exactly
cache_segments = 1                # [dx] Maximum number of write segments = 1 (valid/atlas10k.diskspecs)
# [dx] valid/atlas10k.diskspecs "Read hit over. after read" and its seven
# siblings, ms there: DIXtrac times each kind of command on the idle drive
read_hit_overhead_us = 184                # [dx] Read hit over. after read = 0.184
read_hit_after_write_overhead_us = 184    # [dx] Read hit over. after write = 0.184
read_miss_overhead_us = 0                 # [dx] Read miss over. after read = 0
read_miss_after_write_overhead_us = 0     # [dx] Read miss over. after write = 0
write_hit_overhead_us = 186               # [dx] Write hit over. after read = 0.186
write_hit_after_write_overhead_us = 189   # [dx] Write hit over. after write = 0.189
write_miss_overhead_us = 344.92           # [dx] Write miss over. after read = 0.34492
write_miss_after_write_overhead_us = 496.73 # [dx] Write miss over. after write = 0.49673
# Not taken: DIXtrac's head switch (0.176 ms) and added write settle
# (0.487 ms), valid/atlas10k.model.  The model has no track-skew key and
# derives its skew from these two; DIXtrac measured the skews apart, and the
# rules' values stand in for both (docs/VALIDATION.md, "DiskSim's ten drives").
