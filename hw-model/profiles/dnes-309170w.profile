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
zones = 55                        # [dx] ibm18es.model: 55 zone entries
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
head_switch_ms = 0.062            # [dx] ibm18es.model Head switch time
write_settle_ms = 0.126           # [dx] ibm18es.model Add. write settling delay
queue_policy = fifo               # [dx] ibm18es.diskspecs Scheduler: Scheduling policy = 1 (FCFS, as DiskSim ran the drive)
read_ahead = segment              # [dx] ibm18es.diskspecs Buffer continuous read = 3: to the end of the segment
idle_destage_delay_ms = 0         # [dx] ibm18es.diskspecs Fast write level = 2: DiskSim writes a reported write to the media at once (disk_release_hda)
# [dx] the zones as DIXtrac measured them (valid/ibm18es.model): first and last
# cylinder, sectors per track, track and cylinder skew, empty sectors at the
# front, spares at the zone's end and at each track's end, first block's offset
zone = 0 256 390 58 101 1950 0 0 0
zone = 258 377 390 58 101 0 0 0 0
zone = 378 513 374 56 97 0 0 0 0
zone = 515 770 374 56 97 0 0 0 0
zone = 772 1027 374 56 97 0 0 0 0
zone = 1029 1263 374 56 96 0 0 0 0
zone = 1264 1284 364 54 94 0 0 0 0
zone = 1286 1541 364 54 94 0 0 0 0
zone = 1543 1798 364 54 94 0 0 0 0
zone = 1800 2055 364 54 94 0 0 0 0
zone = 2057 2247 364 54 94 0 0 0 0
zone = 2248 2312 351 52 92 0 0 0 0
zone = 2314 2569 351 52 91 0 0 0 0
zone = 2571 2826 351 52 91 0 0 0 0
zone = 2828 3083 351 52 91 0 0 0 0
zone = 3085 3340 351 52 91 0 0 0 0
zone = 3342 3466 351 52 91 0 0 0 0
zone = 3467 3597 338 51 88 0 0 0 0
zone = 3599 3854 338 51 88 0 0 0 0
zone = 3856 4111 338 51 87 0 0 0 0
zone = 4113 4368 338 51 87 0 0 0 0
zone = 4370 4503 338 51 87 0 0 0 0
zone = 4504 4625 325 49 84 0 0 0 0
zone = 4627 4882 325 49 84 0 0 0 0
zone = 4884 5139 325 49 84 0 0 0 0
zone = 5141 5396 325 49 84 0 0 0 0
zone = 5398 5526 325 49 84 0 0 0 0
zone = 5527 5653 312 46 81 0 0 0 0
zone = 5655 5910 312 46 81 0 0 0 0
zone = 5912 6167 312 46 81 0 0 0 0
zone = 6169 6424 312 46 81 0 0 0 0
zone = 6426 6681 312 46 81 0 0 0 0
zone = 6683 6938 312 46 81 0 0 0 0
zone = 6940 7044 312 46 81 0 0 0 0
zone = 7045 7195 286 43 74 0 0 0 0
zone = 7197 7452 286 43 74 0 0 0 0
zone = 7454 7709 286 43 74 0 0 0 0
zone = 7711 7966 286 43 74 0 0 0 0
zone = 7968 8223 286 43 74 0 0 0 0
zone = 8225 8480 286 43 74 0 0 0 0
zone = 8482 8737 286 43 74 0 0 0 0
zone = 8739 8761 286 43 74 0 0 0 0
zone = 8762 8994 273 41 71 0 0 0 0
zone = 8996 9251 273 41 70 0 0 0 0
zone = 9253 9508 273 41 70 0 0 0 0
zone = 9510 9765 273 41 70 0 0 0 0
zone = 9767 9815 273 41 70 0 0 0 0
zone = 9816 10022 260 39 67 0 0 0 0
zone = 10024 10279 260 39 66 0 0 0 0
zone = 10281 10536 260 39 66 0 0 0 0
zone = 10538 10682 260 39 66 0 0 0 0
zone = 10683 10793 247 37 63 0 0 0 0
zone = 10795 11050 247 37 63 0 0 0 0
zone = 11052 11307 247 37 63 0 0 0 0
zone = 11309 11473 247 37 63 0 0 0 0
# [dx] the seek curve, ms by distance in cylinders (ibm18es.seek, 151 points)
seek = 1 1.062
seek = 2 1.477
seek = 3 1.558
seek = 4 1.586
seek = 5 1.625
seek = 6 1.718
seek = 7 1.722
seek = 8 1.719
seek = 9 1.749
seek = 10 1.02
seek = 12 1.823
seek = 14 1.863
seek = 16 1.894
seek = 18 1.898
seek = 20 2
seek = 25 2.221
seek = 30 2.261
seek = 35 2.311
seek = 40 2.411
seek = 45 2.366
seek = 50 2.514
seek = 60 2.458
seek = 70 2.456
seek = 80 2.598
seek = 90 2.616
seek = 100 2.622
seek = 125 2.94
seek = 150 2.86
seek = 175 3.645
seek = 200 3.782
seek = 225 3.807
seek = 250 3.929
seek = 275 3.997
seek = 300 4.004
seek = 325 3.997
seek = 350 4.143
seek = 375 4.206
seek = 400 4.122
seek = 425 4.088
seek = 450 4.21
seek = 475 4.331
seek = 500 4.187
seek = 600 4.451
seek = 700 4.582
seek = 800 4.694
seek = 900 4.848
seek = 1000 4.958
seek = 1100 5.049
seek = 1200 5.209
seek = 1300 5.243
seek = 1400 5.357
seek = 1500 5.47
seek = 1600 5.561
seek = 1700 5.693
seek = 1800 5.794
seek = 1900 5.868
seek = 2000 5.895
seek = 2100 6.032
seek = 2200 6.151
seek = 2300 6.219
seek = 2400 6.369
seek = 2500 6.516
seek = 2600 6.631
seek = 2700 6.724
seek = 2800 6.839
seek = 2900 6.891
seek = 3000 7.078
seek = 3100 7.233
seek = 3200 7.253
seek = 3300 7.373
seek = 3400 1.026
seek = 3500 7.643
seek = 3600 7.621
seek = 3700 7.694
seek = 3800 7.733
seek = 3900 7.736
seek = 4000 7.7
seek = 4100 7.787
seek = 4200 7.793
seek = 4300 7.842
seek = 4400 7.919
seek = 4500 7.971
seek = 4600 8.006
seek = 4700 8.057
seek = 4800 8.077
seek = 4900 8.126
seek = 5000 7.833
seek = 5100 7.917
seek = 5200 8.329
seek = 5300 8.447
seek = 5400 8.752
seek = 5500 8.882
seek = 5600 8.762
seek = 5700 8.915
seek = 5800 8.957
seek = 5900 9.121
seek = 6000 9.067
seek = 6100 9.33
seek = 6200 9.293
seek = 6300 9.387
seek = 6400 9.382
seek = 6500 9.48
seek = 6600 9.596
seek = 6700 9.64
seek = 6800 9.762
seek = 6900 9.823
seek = 7000 9.702
seek = 7100 9.811
seek = 7200 9.849
seek = 7300 10.141
seek = 7400 10.073
seek = 7500 10.178
seek = 7600 10.224
seek = 7700 10.316
seek = 7800 10.294
seek = 7900 10.403
seek = 8000 10.439
seek = 8100 10.504
seek = 8200 10.601
seek = 8300 10.62
seek = 8400 10.772
seek = 8500 10.745
seek = 8600 10.966
seek = 8700 10.909
seek = 8800 11.047
seek = 8900 11.137
seek = 9000 11.164
seek = 9100 11.281
seek = 9200 11.334
seek = 9300 11.257
seek = 9400 11.345
seek = 9500 11.486
seek = 9600 11.504
seek = 9700 11.645
seek = 9800 11.702
seek = 9900 11.66
seek = 10000 11.813
seek = 10100 11.86
seek = 10200 11.906
seek = 10300 12.1
seek = 10400 12.075
seek = 10500 12.11
seek = 10600 12.234
seek = 10700 12.229
seek = 10800 12.391
seek = 10900 12.388
seek = 11000 12.445
seek = 11100 12.604
seek = 11200 12.655
seek = 11300 12.662
seek = 11377 12.853
# Not expressible in a profile, from the same files:
#   122 slipped sectors; the zones hold +117635 sectors beyond Block count (ibm18es.model): the model's LBAs end that far short of the last zone's end
