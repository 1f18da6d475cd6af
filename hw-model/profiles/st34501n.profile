# Seagate Cheetah 4LP 4.5 GB (ST34501N), a 10,000 rpm Ultra SCSI drive, for
# validation against DiskSim's trace of this drive (docs/VALIDATION.md,
# "DiskSim's ten drives").  No data sheet of the drive is readable in the
# stored corpus, so the figures a data sheet would give are taken from what
# DIXtrac measured on the drive, as DiskSim ships it:
#   [dx] extracted by DIXtrac, source: benh/disksim valid/cheetah4LP.model
#        (geometry, rotation speed), valid/cheetah4LP.seek (seek times
#        measured by distance) and valid/cheetah4LP.diskspecs (buffer
#        segments, command overheads by kind)
# Nothing here is fitted to the trace's response times; every other key is
# derived by the rules in hw-model/src/profile.c or takes its class default
# (--dump-profile says which).
type = hdd
capacity_bytes = 4550246400       # [dx] Block count = 8887200 x 512
rpm = 10033                       # [dx] Rotation speed (in rpms)
form_factor = 3.5-inch            # the Cheetah 4LP is a 3.5-inch drive, as the Cheetah 9LP
interface = sas                   # SCSI: a queued-command interface like SAS (flush queued)
interface_mb_s = 4.8302           # [dx] Bulk sector transfer time = 0.106 ms a block (valid/cheetah4LP.diskspecs):
                                  # 512 B in that time, the drive's own host transfer, slower than
                                  # its SCSI bus; DiskSim moves a block in the slower of the two
heads = 8                         # [dx] Number of data surfaces
zones = 7                         # [dx] 7 dm_layout_g1_zone entries
outer_sectors_per_track = 195     # [dx] zone 0 Blocks per track
inner_sectors_per_track = 131     # [dx] zone 6 Blocks per track
seek_track_to_track_ms = 0.636    # [dx] seek time at distance 1
seek_full_stroke_ms = 16.107      # [dx] seek time at distance 6580, the longest measured
seek_avg_ms = 7.962               # [dx] the data-sheet average (weighted over all seek
                                  # distances, docs/profiles.md) of the measured curve,
                                  # linear between its 103 points, over 6581 cylinders
cache_mb = 0.4130859375           # [dx] 3 segments x 282 blocks = 433152 bytes, exactly
read_segments = 3                 # [dx] Number of buffer segments = 3
read_segment_kb = 141             # [dx] Segment size 282 blocks, exactly
cache_segments = 1                # [dx] Maximum number of write segments = 1 (valid/cheetah4LP.diskspecs)
# [dx] valid/cheetah4LP.diskspecs "Read hit over. after read" and its seven
# siblings, ms there: DIXtrac times each kind of command on the idle drive
read_hit_overhead_us = 68                 # [dx] Read hit over. after read = 0.068
read_hit_after_write_overhead_us = 309    # [dx] Read hit over. after write = 0.309
read_miss_overhead_us = 607.73            # [dx] Read miss over. after read = 0.60773
read_miss_after_write_overhead_us = 568.83 # [dx] Read miss over. after write = 0.56883
write_hit_overhead_us = 474               # [dx] Write hit over. after read = 0.474
write_hit_after_write_overhead_us = 95    # [dx] Write hit over. after write = 0.095
write_miss_overhead_us = 431.33           # [dx] Write miss over. after read = 0.43133
write_miss_after_write_overhead_us = 537.76 # [dx] Write miss over. after write = 0.53776
head_switch_ms = 0.195            # [dx] cheetah4LP.model Head switch time
write_settle_ms = 0               # [dx] cheetah4LP.model Add. write settling delay
queue_policy = fifo               # [dx] cheetah4LP.diskspecs Scheduler: Scheduling policy = 1 (FCFS, as DiskSim ran the drive)
read_ahead = segment              # [dx] cheetah4LP.diskspecs Buffer continuous read = 3: to the end of the segment
idle_destage_delay_ms = 0         # [dx] cheetah4LP.diskspecs Fast write level = 1: DiskSim writes a reported write to the media at once (disk_release_hda)
# [dx] the zones as DIXtrac measured them (valid/cheetah4LP.model): first and last
# cylinder, sectors per track, track and cylinder skew, empty sectors at the
# front, spares at the zone's end and at each track's end, first block's offset
zone = 0 1343 195 22 37 0 12096 0 0
zone = 1345 2448 187 22 35 0 9936 0 0
zone = 2450 3541 176 20 33 0 9828 0 0
zone = 3543 4406 166 19 31 0 7776 0 0
zone = 4408 5223 155 18 29 0 7344 0 0
zone = 5225 5956 145 17 27 0 6588 0 0
zone = 5958 6580 131 15 25 0 5616 0 0
# [dx] the seek curve, ms by distance in cylinders (cheetah4LP.seek, 103 points)
seek = 1 0.636
seek = 2 1.146
seek = 3 1.16
seek = 4 1.275
seek = 5 1.285
seek = 6 1.403
seek = 7 1.287
seek = 8 1.42
seek = 9 1.539
seek = 10 1.416
seek = 12 1.527
seek = 14 1.55
seek = 16 1.547
seek = 18 1.547
seek = 20 1.679
seek = 25 1.928
seek = 30 1.936
seek = 35 1.937
seek = 40 2.07
seek = 45 2.187
seek = 50 2.314
seek = 60 2.325
seek = 70 2.324
seek = 80 2.459
seek = 90 2.586
seek = 100 2.705
seek = 125 3.111
seek = 150 3.627
seek = 175 3.622
seek = 200 3.754
seek = 225 3.875
seek = 250 3.878
seek = 275 3.843
seek = 300 4.008
seek = 325 4.007
seek = 350 4.135
seek = 375 4.136
seek = 400 4.138
seek = 425 4.266
seek = 450 4.397
seek = 475 4.4
seek = 500 4.414
seek = 600 4.795
seek = 700 5.056
seek = 800 5.426
seek = 900 5.576
seek = 1000 5.838
seek = 1100 6.099
seek = 1200 6.356
seek = 1300 6.606
seek = 1400 6.744
seek = 1500 7.003
seek = 1600 7.138
seek = 1700 7.269
seek = 1800 7.398
seek = 1900 7.779
seek = 2000 7.788
seek = 2100 8.05
seek = 2200 8.178
seek = 2300 8.433
seek = 2400 8.568
seek = 2500 8.817
seek = 2600 8.824
seek = 2700 9.082
seek = 2800 9.221
seek = 2900 9.474
seek = 3000 9.727
seek = 3100 9.857
seek = 3200 9.997
seek = 3300 10.254
seek = 3400 10.383
seek = 3500 10.513
seek = 3600 10.647
seek = 3700 10.905
seek = 3800 11.039
seek = 3900 11.297
seek = 4000 11.429
seek = 4100 11.552
seek = 4200 11.817
seek = 4300 11.946
seek = 4400 12.176
seek = 4500 12.334
seek = 4600 12.466
seek = 4700 12.723
seek = 4800 12.856
seek = 4900 12.99
seek = 5000 13.241
seek = 5100 13.368
seek = 5200 13.635
seek = 5300 13.758
seek = 5400 13.904
seek = 5500 14.157
seek = 5600 14.288
seek = 5700 14.414
seek = 5800 14.673
seek = 5900 14.809
seek = 6000 15.06
seek = 6100 15.186
seek = 6200 15.33
seek = 6300 15.579
seek = 6400 15.727
seek = 6500 15.969
seek = 6580 16.107
# Not expressible in a profile, from the same files:
#   spares per range (sparing scheme 8, cheetah4LP.model): at each zone's end in the model
#   20 slipped sectors; the zones hold +632 sectors beyond Block count (cheetah4LP.model): the model's LBAs end that far short of the last zone's end
