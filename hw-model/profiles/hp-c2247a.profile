# HP C2247A 1 GB, a 5,400 rpm SCSI-2 drive, for validation against
# DiskSim's trace of this drive (docs/VALIDATION.md, "DiskSim's ten drives").  No data sheet of the
# drive is readable in the stored corpus, so the figures a data sheet would
# give are taken from what DIXtrac measured on the drive, as DiskSim ships it:
#   [dx] extracted by DIXtrac, source: benh/disksim valid/hp_c2247a_validate.model
#        (geometry, rotation speed, the HPL seek formula), valid/hp_c2247a.diskspecs
#        (buffer segments, command overheads by kind, write caching) and
#        valid/hp_c2247a.parv (the bus the trace was taken on)
# There is no .seek file: the .model has "Seek type = hplplus10", which DiskSim
# (diskmodel/mech_g1_seektime.c, dm_mech_g1_seek_1st10_plus_hpl) computes as
#   d <= 10:      "First ten seek times"[d-1]
#   10 < d < 300: 3.81 + 0.33 sqrt(d)  ms    ("HPL seek equation values" V2, V3)
#   d >= 300:     7.75 + 0.0059 d      ms    (V4, V5; V1 = 300, V6 = -1: unused)
# over its 2051 cylinders (d = 1..2050).  The model's "Single cylinder",
# "Average" and "Full strobe seek time" (0.2, 1.1, 2.3) are not used by that
# seek type and are not taken.
# Nothing here is fitted to the trace's response times; every other key is
# derived by the rules in hw-model/src/profile.c or takes its class default
# (--dump-profile says which).
type = hdd
capacity_bytes = 1052090368       # [dx] Block count = 2054864 x 512
rpm = 5400                        # [dx] Rotation speed (in rpms)
form_factor = 3.5-inch            # the C2247A is a 3.5-inch drive
interface = sas                   # SCSI: a queued-command interface like SAS (flush queued)
interface_mb_s = 3.01             # [dx] hp_c2247a.parv BUS1 Read block transfer time = 0.17010 ms
                                  # a 512-byte block (3.010 MB/s); its Write block transfer
                                  # time, 0.18686 ms (2.740 MB/s), has no key of its own
heads = 13                        # [dx] Number of data surfaces
zones = 8                         # [dx] 8 dm_layout_g1_zone entries
outer_sectors_per_track = 96      # [dx] zone 0 Blocks per track
inner_sectors_per_track = 56      # [dx] zone 7 Blocks per track
seek_track_to_track_ms = 2.89     # [dx] First ten seek times[0], the seek at distance 1
seek_full_stroke_ms = 19.845      # [dx] HPL formula at distance 2050: 7.75 + 0.0059 x 2050
seek_avg_ms = 11.499              # [dx] the data-sheet average (weighted over all seek
                                  # distances, docs/profiles.md) of the hplplus10 curve
                                  # above, over 2051 cylinders
cache_mb = 0.25                   # [dx] 2 segments x 256 blocks = 262144 bytes, exactly
read_segments = 1                 # [dx] Number of buffer segments = 2, less the one "Use separate write segment = 1" keeps for writes
read_segment_kb = 128             # [dx] Segment size 256 blocks, exactly
cache_segments = 1                # [dx] Maximum number of write segments = 1 (valid/hp_c2247a.diskspecs)
write_cache = no                  # [dx] Fast write level = 0 (valid/hp_c2247a.diskspecs): a write completes once on the media
# [dx] valid/hp_c2247a.diskspecs "Read hit over. after read" and its seven
# siblings, ms there: DIXtrac times each kind of command on the idle drive
read_hit_overhead_us = 953.43             # [dx] Read hit over. after read = 0.953430
read_hit_after_write_overhead_us = 953.43 # [dx] Read hit over. after write = 0.953430
read_miss_overhead_us = 558.21            # [dx] Read miss over. after read = 0.558210
read_miss_after_write_overhead_us = 558.21 # [dx] Read miss over. after write = 0.558210
write_hit_overhead_us = 823.91            # [dx] Write hit over. after read = 0.823910
write_hit_after_write_overhead_us = 823.91 # [dx] Write hit over. after write = 0.823910
write_miss_overhead_us = 823.91           # [dx] Write miss over. after read = 0.823910
write_miss_after_write_overhead_us = 823.91 # [dx] Write miss over. after write = 0.823910
# Not taken: DIXtrac's head switch (0.89 ms) and added write settle
# (0.65 ms), valid/hp_c2247a_validate.model.  The model has no track-skew key and
# derives its skew from these two; DIXtrac measured the skews apart, and the
# rules' values stand in for both (docs/VALIDATION.md, "DiskSim's ten drives").
