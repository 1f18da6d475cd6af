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
zones = 24                        # [dx] atlas10k.model: 24 zone entries
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
head_switch_ms = 0.176            # [dx] atlas10k.model Head switch time
write_settle_ms = 0.487           # [dx] atlas10k.model Add. write settling delay
queue_policy = fifo               # [dx] atlas10k.diskspecs Scheduler: Scheduling policy = 1 (FCFS, as DiskSim ran the drive)
read_ahead = track                # [dx] atlas10k.diskspecs Buffer continuous read = 4: DEC's scheme: to the end of the track the next block is on
idle_destage_delay_ms = 0         # [dx] atlas10k.diskspecs Fast write level = 2: DiskSim writes a reported write to the media at once (disk_release_hda)
# [dx] the zones as DIXtrac measured them (valid/atlas10k.model): first and last
# cylinder, sectors per track, track and cylinder skew, empty sectors at the
# front, spares at the zone's end and at each track's end, first block's offset
zone = 0 432 334 63 113 0 89 0 0
zone = 433 848 334 63 113 0 84 0 0
zone = 849 1264 334 63 113 0 87 0 0
zone = 1265 1688 324 63 101 0 85 0 0
zone = 1689 2104 324 63 101 0 84 0 0
zone = 2105 2520 324 63 101 0 85 0 0
zone = 2521 2936 324 62 101 0 84 0 0
zone = 2937 3360 324 61 98 0 92 0 0
zone = 3361 3776 324 61 98 0 87 0 0
zone = 3777 4192 324 61 98 0 85 0 0
zone = 4193 4608 324 61 98 0 85 0 0
zone = 4609 5032 306 58 98 0 79 0 0
zone = 5033 5448 306 58 98 0 89 0 0
zone = 5449 5864 302 57 92 0 88 0 0
zone = 5865 6280 293 56 91 0 73 0 0
zone = 6281 6704 288 55 91 0 85 0 0
zone = 6705 7120 288 55 88 0 72 0 0
zone = 7121 7536 280 54 88 0 77 0 0
zone = 7537 7952 270 51 87 0 66 0 0
zone = 7953 8376 262 51 83 0 66 0 0
zone = 8377 8792 255 48 83 0 66 0 0
zone = 8793 9208 246 47 75 0 60 0 0
zone = 9209 9624 237 45 75 0 60 0 0
zone = 9625 10041 229 44 75 0 229 0 0
# [dx] the seek curve, ms by distance in cylinders (atlas10k.seek, 138 points)
seek = 1 1.245
seek = 2 1.157
seek = 3 1.163
seek = 4 1.378
seek = 5 1.355
seek = 6 1.437
seek = 7 1.494
seek = 8 1.645
seek = 9 1.506
seek = 10 1.531
seek = 12 1.515
seek = 14 1.535
seek = 16 1.547
seek = 18 1.576
seek = 20 1.62
seek = 25 1.628
seek = 30 1.698
seek = 35 1.804
seek = 40 1.929
seek = 45 2.051
seek = 50 1.863
seek = 60 2.313
seek = 70 1.927
seek = 80 2.42
seek = 90 1.97
seek = 100 2.011
seek = 125 2.083
seek = 150 2.531
seek = 175 2.38
seek = 200 2.651
seek = 225 2.785
seek = 250 2.858
seek = 275 2.843
seek = 300 2.93
seek = 325 2.992
seek = 350 2.987
seek = 375 3.047
seek = 400 3.146
seek = 425 3.065
seek = 450 3.159
seek = 475 3.298
seek = 500 3.208
seek = 600 3.097
seek = 700 3.263
seek = 800 3.321
seek = 900 3.516
seek = 1000 3.82
seek = 1100 3.892
seek = 1200 3.825
seek = 1300 3.92
seek = 1400 5.225
seek = 1500 4.198
seek = 1600 4.513
seek = 1700 4.305
seek = 1800 4.426
seek = 1900 4.802
seek = 2000 4.842
seek = 2100 4.975
seek = 2200 5.013
seek = 2300 5.162
seek = 2400 4.891
seek = 2500 5.224
seek = 2600 5.395
seek = 2700 5.158
seek = 2800 5.218
seek = 2900 5.32
seek = 3000 5.643
seek = 3100 5.468
seek = 3200 5.465
seek = 3300 5.63
seek = 3400 5.664
seek = 3500 5.703
seek = 3600 5.809
seek = 3700 5.862
seek = 3800 6.059
seek = 3900 6.2
seek = 4000 6.226
seek = 4100 6.313
seek = 4200 6.415
seek = 4300 6.255
seek = 4400 6.357
seek = 4500 6.405
seek = 4600 6.486
seek = 4700 9.463
seek = 4800 6.714
seek = 4900 6.816
seek = 5000 6.814
seek = 5100 7.239
seek = 5200 7.306
seek = 5300 7.025
seek = 5400 7.103
seek = 5500 7.257
seek = 5600 7.221
seek = 5700 7.332
seek = 5800 7.377
seek = 5900 7.443
seek = 6000 7.525
seek = 6100 7.61
seek = 6200 7.706
seek = 6300 7.744
seek = 6400 7.806
seek = 6500 7.892
seek = 6600 7.992
seek = 6700 8.079
seek = 6800 8.078
seek = 6900 8.17
seek = 7000 8.205
seek = 7100 8.359
seek = 7200 8.686
seek = 7300 8.778
seek = 7400 8.539
seek = 7500 8.551
seek = 7600 8.999
seek = 7700 8.714
seek = 7800 9.192
seek = 7900 8.852
seek = 8000 8.951
seek = 8100 9.058
seek = 8200 9.117
seek = 8300 9.137
seek = 8400 9.213
seek = 8500 9.337
seek = 8600 9.433
seek = 8700 9.542
seek = 8800 9.494
seek = 8900 9.65
seek = 9000 10.114
seek = 9100 10.092
seek = 9200 9.807
seek = 9300 9.911
seek = 9400 10.234
seek = 9500 10.499
seek = 9600 10.16
seek = 9700 10.664
seek = 9800 10.694
seek = 9900 10.854
seek = 10000 10.464
seek = 10021 10.828
# Not expressible in a profile, from the same files:
#   64 slipped sectors; the zones hold +27967 sectors beyond Block count (atlas10k.model): the model's LBAs end that far short of the last zone's end
