# HP C2490A 2 GB, a 6,400 rpm SCSI-2 drive, for validation against
# DiskSim's trace of this drive (docs/VALIDATION.md, "DiskSim's ten drives").  No data sheet of the
# drive is readable in the stored corpus, so the figures a data sheet would
# give are taken from what DIXtrac measured on the drive, as DiskSim ships it:
#   [dx] extracted by DIXtrac, source: benh/disksim valid/hp_c2490a_validate.model
#        (geometry, rotation speed), valid/hp_c2490a_validate.seek (seek times
#        measured by distance), valid/hp_c2490a.diskspecs (buffer segments,
#        command overheads by kind, write caching) and valid/hp_c2490a.parv
#        (the bus the trace was taken on)
# Nothing here is fitted to the trace's response times; every other key is
# derived by the rules in hw-model/src/profile.c or takes its class default
# (--dump-profile says which).
type = hdd
capacity_bytes = 2132619264       # [dx] Block count = 4165272 x 512
rpm = 6398                        # [dx] Rotation speed (in rpms)
form_factor = 3.5-inch            # the C2490A is a 3.5-inch drive
interface = sas                   # SCSI: a queued-command interface like SAS (flush queued)
interface_mb_s = 3.45             # [dx] hp_c2490a.parv BUS1 Read (and Write) block transfer
                                  # time = 0.14841 ms a 512-byte block (3.450 MB/s)
heads = 18                        # [dx] Number of data surfaces
zones = 11                        # [dx] 11 dm_layout_g1_zone entries
outer_sectors_per_track = 108     # [dx] zone 0 Blocks per track
inner_sectors_per_track = 68      # [dx] zone 10 Blocks per track
seek_track_to_track_ms = 1.264    # [dx] seek time at distance 1 (1.2644218)
seek_full_stroke_ms = 17.378      # [dx] seek time at distance 2625, the longest measured
seek_avg_ms = 9.19               # [dx] the data-sheet average (weighted over all seek
                                  # distances, docs/profiles.md) of the measured curve,
                                  # linear between its 64 points, over 2629 cylinders
                                  # (Number of cylinders; beyond 2625 extrapolated, as
                                  # DiskSim does)
cache_mb = 0.125                  # [dx] 1 segments x 256 blocks = 131072 bytes, exactly
read_segments = 1                 # [dx] Number of buffer segments = 1
read_segment_kb = 128             # [dx] Segment size 256 blocks, exactly
cache_segments = 1                # [dx] Maximum number of write segments = 1 (valid/hp_c2490a.diskspecs)
write_cache = no                  # [dx] Fast write level = 0 (valid/hp_c2490a.diskspecs): a write completes once on the media
# [dx] valid/hp_c2490a.diskspecs "Read hit over. after read" and its seven
# siblings, ms there: DIXtrac times each kind of command on the idle drive
read_hit_overhead_us = 1419               # [dx] Read hit over. after read = 1.419
read_hit_after_write_overhead_us = 0      # [dx] Read hit over. after write = 0
read_miss_overhead_us = 3616              # [dx] Read miss over. after read = 3.616
read_miss_after_write_overhead_us = 2275  # [dx] Read miss over. after write = 2.275
write_hit_overhead_us = 3283              # [dx] Write hit over. after read = 3.283
write_hit_after_write_overhead_us = 823.91 # [dx] Write hit over. after write = 0.82391
write_miss_overhead_us = 3283             # [dx] Write miss over. after read = 3.283
write_miss_after_write_overhead_us = 823.91 # [dx] Write miss over. after write = 0.82391
head_switch_ms = 0.992            # [dx] hp_c2490a_validate.model Head switch time
write_settle_ms = 0               # [dx] hp_c2490a_validate.model Add. write settling delay = -0.642, taken as 0
queue_policy = fifo               # [dx] hp_c2490a.diskspecs Scheduler: Scheduling policy = 1 (FCFS, as DiskSim ran the drive)
read_ahead = segment              # [dx] hp_c2490a.diskspecs Buffer continuous read = 3: to the end of the segment
read_completion_overhead_us = 81  # [dx] hp_c2490a.diskspecs Read completion overhead = 0.081 ms
# [dx] the zones as DIXtrac measured them (valid/hp_c2490a_validate.model): first and last
# cylinder, sectors per track, track and cylinder skew, empty sectors at the
# front, spares at the zone's end and at each track's end, first block's offset
zone = 0 186 108 18 36 2376 21384 0 0
zone = 187 501 104 17 35 0 9360 0 60
zone = 502 785 100 16 33 0 7200 0 10
zone = 786 1097 96 16 32 0 6912 0 0
zone = 1098 1356 92 15 31 0 4968 0 32
zone = 1357 1609 88 15 30 0 4752 0 73
zone = 1610 1850 84 14 28 0 7560 0 28
zone = 1851 2070 80 13 27 0 2880 0 8
zone = 2071 2277 76 13 26 0 4104 0 57
zone = 2278 2497 72 12 25 0 2592 0 22
zone = 2498 2629 68 12 23 0 4896 0 62
# [dx] the seek curve, ms by distance in cylinders (hp_c2490a_validate.seek, 64 points)
seek = 1 1.264422
seek = 2 1.469684
seek = 3 1.643378
seek = 4 1.833935
seek = 5 2.636023
seek = 6 2.833675
seek = 7 2.962086
seek = 8 2.967054
seek = 9 3.001742
seek = 10 3.068618
seek = 12 3.130127
seek = 14 3.185683
seek = 16 3.294035
seek = 18 3.380656
seek = 20 3.479389
seek = 25 3.575284
seek = 30 3.68679
seek = 35 3.891154
seek = 40 3.932848
seek = 45 4.023544
seek = 50 4.11411
seek = 60 4.278517
seek = 70 4.377506
seek = 80 4.532303
seek = 90 4.689112
seek = 100 4.77538
seek = 125 5.071355
seek = 150 5.372516
seek = 175 5.699116
seek = 200 6.009874
seek = 225 6.232142
seek = 250 6.387933
seek = 275 6.527166
seek = 300 6.670516
seek = 325 6.800063
seek = 350 6.933237
seek = 375 7.051069
seek = 400 7.212067
seek = 425 7.325844
seek = 450 7.499706
seek = 475 7.636876
seek = 500 7.696176
seek = 600 8.127483
seek = 700 8.540879
seek = 800 8.920783
seek = 900 9.409034
seek = 1000 9.868807
seek = 1100 10.352732
seek = 1200 10.820077
seek = 1300 11.343922
seek = 1400 11.793578
seek = 1500 12.261259
seek = 1600 12.676072
seek = 1700 13.176173
seek = 1800 13.61533
seek = 1900 14.136851
seek = 2000 14.581241
seek = 2100 14.995291
seek = 2200 15.469941
seek = 2300 15.957957
seek = 2400 16.364918
seek = 2500 16.822909
seek = 2600 17.267944
seek = 2625 17.37756
# Not expressible in a profile, from the same files:
#   a negative added write settle, -0.642 ms (hp_c2490a_validate.model): a write may start sooner after a switch than a read; the model's settle is 0 or more
#   23 slipped sectors; the zones hold +0 sectors beyond Block count (hp_c2490a_validate.model): the model's LBAs end that far short of the last zone's end
