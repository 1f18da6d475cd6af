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
head_switch_ms = 0.65             # [dx] hp_c3323a.model Head switch time
write_settle_ms = 0.07            # [dx] hp_c3323a.model Add. write settling delay
read_reconnect_pct = 100          # [dx] hp_c3323a.diskspecs High (read) water mark = 1 of the request (Set watermark by reqsize = 1): the buffer full ratio
queue_policy = fifo               # [dx] hp_c3323a.diskspecs Scheduler: Scheduling policy = 1 (FCFS, as DiskSim ran the drive)
read_ahead = segment              # [dx] hp_c3323a.diskspecs Buffer continuous read = 3: to the end of the segment
read_completion_overhead_us = 241 # [dx] hp_c3323a.diskspecs Read completion overhead = 0.241 ms
# [dx] the zones as DIXtrac measured them (valid/hp_c3323a.model): first and last
# cylinder, sectors per track, track and cylinder skew, empty sectors at the
# front, spares at the zone's end and at each track's end, first block's offset
zone = 0 993 120 17 34 1320 26880 0 0
zone = 994 1134 116 16 33 0 4060 0 48
zone = 1135 1310 112 16 32 0 3136 0 23
zone = 1311 1625 104 15 30 0 5096 0 47
zone = 1626 1966 96 14 27 0 4704 0 48
zone = 1967 2255 88 13 25 0 3080 0 72
zone = 2256 2608 80 12 23 0 2800 0 48
zone = 2609 2981 72 11 21 0 2520 0 64
# [dx] the seek curve, ms by distance in cylinders (hp_c3323a.seek, 67 points)
seek = 1 1.178043
seek = 2 1.612114
seek = 3 1.79998
seek = 4 1.973653
seek = 5 1.738735
seek = 6 1.920348
seek = 7 1.841717
seek = 8 2.402852
seek = 9 2.680676
seek = 10 2.758466
seek = 12 2.613908
seek = 14 2.730827
seek = 16 2.827732
seek = 18 2.909984
seek = 20 3.007988
seek = 25 3.026374
seek = 30 3.212906
seek = 35 3.399405
seek = 40 3.491967
seek = 45 3.522344
seek = 50 3.676197
seek = 60 3.854444
seek = 70 4.038595
seek = 80 4.147715
seek = 90 4.258138
seek = 100 4.392624
seek = 125 4.68917
seek = 150 4.974255
seek = 175 5.22119
seek = 200 5.476523
seek = 225 5.680439
seek = 250 5.896359
seek = 275 6.107165
seek = 300 6.276703
seek = 325 6.439122
seek = 350 6.632628
seek = 375 6.757571
seek = 400 6.949064
seek = 425 7.08648
seek = 450 7.222602
seek = 475 7.37409
seek = 500 7.532715
seek = 600 8.189838
seek = 700 8.641234
seek = 800 9.080836
seek = 900 9.51507
seek = 1000 9.951674
seek = 1100 10.372177
seek = 1200 10.764751
seek = 1300 11.17442
seek = 1400 11.578927
seek = 1500 12.029606
seek = 1600 12.46366
seek = 1700 12.890826
seek = 1800 13.293945
seek = 1900 13.686733
seek = 2000 14.104737
seek = 2100 14.549059
seek = 2200 14.907508
seek = 2300 15.327747
seek = 2400 15.771487
seek = 2500 16.194195
seek = 2600 16.586342
seek = 2700 16.991021
seek = 2800 17.410328
seek = 2900 17.81224
seek = 2976 18.116135
