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
head_switch_ms = 0.999            # [dx] atlas_III.model Head switch time
write_settle_ms = 0               # [dx] atlas_III.model Add. write settling delay
queue_policy = fifo               # [dx] atlas_III.diskspecs Scheduler: Scheduling policy = 1 (FCFS, as DiskSim ran the drive)
read_ahead = track                # [dx] atlas_III.diskspecs Buffer continuous read = 4: DEC's scheme: to the end of the track the next block is on
idle_destage_delay_ms = 0         # [dx] atlas_III.diskspecs Fast write level = 2: DiskSim writes a reported write to the media at once (disk_release_hda)
# [dx] the zones as DIXtrac measured them (valid/atlas_III.model): first and last
# cylinder, sectors per track, track and cylinder skew, empty sectors at the
# front, spares at the zone's end and at each track's end, first block's offset
zone = 0 615 256 75 86 128000 0 0 0
zone = 616 1823 252 74 85 0 0 0 0
zone = 1824 3375 240 71 81 0 0 0 0
zone = 3376 4143 238 70 81 0 0 0 0
zone = 4144 5199 224 65 75 0 0 0 0
zone = 5200 5975 208 61 71 0 0 0 0
zone = 5976 6583 196 57 67 0 0 0 0
zone = 6584 7343 182 53 62 0 0 0 0
zone = 7344 8056 168 49 57 0 0 0 0
# [dx] the seek curve, ms by distance in cylinders (atlas_III.seek, 117 points)
seek = 1 1.663
seek = 2 1.757
seek = 3 1.774
seek = 4 1.824
seek = 5 1.985
seek = 6 2.089
seek = 7 2.142
seek = 8 2.2
seek = 9 2.219
seek = 10 2.352
seek = 12 2.346
seek = 14 2.423
seek = 16 2.429
seek = 18 2.503
seek = 20 2.546
seek = 25 2.589
seek = 30 2.954
seek = 35 2.955
seek = 40 3.155
seek = 45 3.03
seek = 50 3.175
seek = 60 3.255
seek = 70 3.296
seek = 80 3.315
seek = 90 3.4
seek = 100 3.523
seek = 125 3.64
seek = 150 3.73
seek = 175 3.852
seek = 200 3.922
seek = 225 4.065
seek = 250 4.156
seek = 275 4.218
seek = 300 4.298
seek = 325 4.521
seek = 350 4.59
seek = 375 4.723
seek = 400 4.792
seek = 425 4.828
seek = 450 4.955
seek = 475 4.957
seek = 500 5.095
seek = 600 5.255
seek = 700 5.574
seek = 800 5.652
seek = 900 5.874
seek = 1000 6.094
seek = 1100 6.304
seek = 1200 6.466
seek = 1300 6.611
seek = 1400 6.814
seek = 1500 6.97
seek = 1600 7.105
seek = 1700 7.197
seek = 1800 7.336
seek = 1900 7.504
seek = 2000 7.645
seek = 2100 8.226
seek = 2200 7.9
seek = 2300 8.014
seek = 2400 8.091
seek = 2500 8.283
seek = 2600 8.474
seek = 2700 8.6
seek = 2800 8.677
seek = 2900 8.823
seek = 3000 8.904
seek = 3100 9.058
seek = 3200 9.129
seek = 3300 9.274
seek = 3400 9.412
seek = 3500 9.559
seek = 3600 9.643
seek = 3700 9.874
seek = 3800 9.942
seek = 3900 10.165
seek = 4000 10.163
seek = 4100 10.37
seek = 4200 10.468
seek = 4300 10.616
seek = 4400 10.745
seek = 4500 10.881
seek = 4600 11.087
seek = 4700 11.151
seek = 4800 11.271
seek = 4900 11.363
seek = 5000 11.585
seek = 5100 11.653
seek = 5200 11.813
seek = 5300 11.954
seek = 5400 11.966
seek = 5500 12.183
seek = 5600 12.336
seek = 5700 12.497
seek = 5800 12.644
seek = 5900 12.711
seek = 6000 12.853
seek = 6100 12.925
seek = 6200 13.07
seek = 6300 13.161
seek = 6400 13.298
seek = 6500 13.447
seek = 6600 13.589
seek = 6700 13.675
seek = 6800 13.887
seek = 6900 13.971
seek = 7000 14.047
seek = 7100 14.198
seek = 7200 14.336
seek = 7300 14.427
seek = 7400 14.593
seek = 7500 14.734
seek = 7600 15.017
seek = 7700 14.923
seek = 7800 15.129
seek = 7900 15.152
seek = 7998 15.36
# Not expressible in a profile, from the same files:
#   56 slipped sectors; the zones hold +14750 sectors beyond Block count (atlas_III.model): the model's LBAs end that far short of the last zone's end
