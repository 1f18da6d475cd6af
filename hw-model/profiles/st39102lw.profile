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
head_switch_ms = 0.03             # [dx] cheetah9LP.model Head switch time
write_settle_ms = 0.461           # [dx] cheetah9LP.model Add. write settling delay
queue_policy = fifo               # [dx] cheetah9LP.diskspecs Scheduler: Scheduling policy = 1 (FCFS, as DiskSim ran the drive)
read_ahead = track                # [dx] cheetah9LP.diskspecs Buffer continuous read = 4: DEC's scheme: to the end of the track the next block is on
idle_destage_delay_ms = 0         # [dx] cheetah9LP.diskspecs Fast write level = 2: DiskSim writes a reported write to the media at once (disk_release_hda)
# [dx] the zones as DIXtrac measured them (valid/cheetah9LP.model): first and last
# cylinder, sectors per track, track and cylinder skew, empty sectors at the
# front, spares at the zone's end and at each track's end, first block's offset
zone = 0 846 254 97 133 0 1270 0 0
zone = 848 1643 245 97 133 0 980 0 0
zone = 1645 2392 238 97 117 0 952 0 0
zone = 2394 3096 227 97 116 0 908 0 0
zone = 3098 3757 217 97 108 0 651 0 0
zone = 3759 4379 209 97 108 0 627 0 0
zone = 4381 4964 201 97 108 0 402 0 0
zone = 4966 5515 189 88 94 0 2268 0 0
zone = 5516 6031 181 88 93 0 1991 0 0
zone = 6032 6517 174 88 93 0 1914 0 0
zone = 6518 6961 167 88 80 0 218 0 0
# [dx] the seek curve, ms by distance in cylinders (cheetah9LP.seek, 106 points)
seek = 1 0.831
seek = 2 1.003
seek = 3 1.089
seek = 4 1.092
seek = 5 1.268
seek = 6 1.263
seek = 7 1.271
seek = 8 1.439
seek = 9 1.433
seek = 10 1.448
seek = 12 1.449
seek = 14 1.447
seek = 16 1.453
seek = 18 1.533
seek = 20 1.534
seek = 25 1.625
seek = 30 1.624
seek = 35 1.712
seek = 40 1.715
seek = 45 1.765
seek = 50 1.804
seek = 60 1.893
seek = 70 1.945
seek = 80 1.983
seek = 90 2.072
seek = 100 2.145
seek = 125 2.161
seek = 150 2.259
seek = 175 2.51
seek = 200 2.517
seek = 225 2.519
seek = 250 2.607
seek = 275 2.701
seek = 300 2.699
seek = 325 2.841
seek = 350 2.874
seek = 375 2.962
seek = 400 3.051
seek = 425 3.014
seek = 450 3.104
seek = 475 3.098
seek = 500 3.23
seek = 600 3.399
seek = 700 3.638
seek = 800 3.823
seek = 900 3.995
seek = 1000 4.118
seek = 1100 4.271
seek = 1200 4.397
seek = 1300 4.427
seek = 1400 4.573
seek = 1500 4.757
seek = 1600 4.833
seek = 1700 4.93
seek = 1800 4.993
seek = 1900 5.19
seek = 2000 5.282
seek = 2100 5.428
seek = 2200 5.541
seek = 2300 5.624
seek = 2400 5.726
seek = 2500 5.815
seek = 2600 5.963
seek = 2700 6.082
seek = 2800 6.163
seek = 2900 6.245
seek = 3000 6.345
seek = 3100 6.423
seek = 3200 6.665
seek = 3300 6.737
seek = 3400 6.847
seek = 3500 6.887
seek = 3600 6.977
seek = 3700 7.068
seek = 3800 7.164
seek = 3900 7.328
seek = 4000 7.419
seek = 4100 7.507
seek = 4200 7.649
seek = 4300 7.691
seek = 4400 7.831
seek = 4500 7.959
seek = 4600 8.087
seek = 4700 8.135
seek = 4800 8.223
seek = 4900 8.311
seek = 5000 8.492
seek = 5100 8.626
seek = 5200 8.659
seek = 5300 8.805
seek = 5400 8.987
seek = 5500 8.962
seek = 5600 9.106
seek = 5700 9.201
seek = 5800 9.296
seek = 5900 9.524
seek = 6000 9.698
seek = 6100 9.702
seek = 6200 9.83
seek = 6300 9.878
seek = 6400 10.009
seek = 6500 10.147
seek = 6600 10.23
seek = 6700 10.363
seek = 6800 10.54
seek = 6894 10.627
# Not expressible in a profile, from the same files:
#   594 slipped sectors; the zones hold +135147 sectors beyond Block count (cheetah9LP.model): the model's LBAs end that far short of the last zone's end
