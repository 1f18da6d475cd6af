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
head_switch_ms = 0.865            # [dx] dec_rz26_validate.model Head switch time
write_settle_ms = 0               # [dx] dec_rz26_validate.model Add. write settling delay = -0.483, taken as 0
queue_policy = fifo               # [dx] dec_rz26.diskspecs Scheduler: Scheduling policy = 1 (FCFS, as DiskSim ran the drive)
read_ahead = track                # [dx] dec_rz26.diskspecs Buffer continuous read = 1: to the end of the track
write_completion_overhead_us = 113 # [dx] dec_rz26.diskspecs Write completion overhead = 0.113 ms
# [dx] the zones as DIXtrac measured them (valid/dec_rz26_validate.model): first and last
# cylinder, sectors per track, track and cylinder skew, empty sectors at the
# front, spares at the zone's end and at each track's end, first block's offset
zone = 0 2598 58 7 25 23142 0 1 0
# [dx] the seek curve, ms by distance in cylinders (dec_rz26_validate.seek, 63 points)
seek = 1 1.014397
seek = 2 1.902233
seek = 3 2.284186
seek = 4 2.55131
seek = 5 2.656589
seek = 6 2.792434
seek = 7 2.795289
seek = 8 2.88344
seek = 9 2.898454
seek = 10 2.883264
seek = 12 3.059284
seek = 14 3.104144
seek = 16 3.168781
seek = 18 3.182312
seek = 20 3.356966
seek = 25 3.435946
seek = 30 3.760655
seek = 35 3.802014
seek = 40 4.017083
seek = 45 4.191732
seek = 50 4.270231
seek = 60 4.659682
seek = 70 4.880789
seek = 80 5.087342
seek = 90 5.227582
seek = 100 5.490036
seek = 125 6.051907
seek = 150 6.37949
seek = 175 6.817439
seek = 200 6.904685
seek = 225 7.140182
seek = 250 7.280423
seek = 275 7.467306
seek = 300 7.698261
seek = 325 7.813913
seek = 350 7.937919
seek = 375 8.079734
seek = 400 8.235509
seek = 425 8.429694
seek = 450 8.718009
seek = 475 8.919579
seek = 500 8.95509
seek = 600 9.471913
seek = 700 10.02048
seek = 800 10.578962
seek = 900 11.062421
seek = 1000 11.662869
seek = 1100 12.091804
seek = 1200 12.633691
seek = 1300 13.081321
seek = 1400 13.458244
seek = 1500 13.879749
seek = 1600 14.338197
seek = 1700 14.8412
seek = 1800 15.314939
seek = 1900 15.819995
seek = 2000 16.187664
seek = 2100 16.575325
seek = 2200 16.934447
seek = 2300 17.585034
seek = 2400 17.965906
seek = 2500 18.676422
seek = 2569 19.098796
# Not expressible in a profile, from the same files:
#   a negative added write settle, -0.483 ms (dec_rz26_validate.model): a write may start sooner after a switch than a read; the model's settle is 0 or more
