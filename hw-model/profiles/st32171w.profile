# Seagate Barracuda 2.1 GB (ST32171W), a 7,200 rpm Ultra SCSI drive, for
# validation against DiskSim's trace of this drive (docs/VALIDATION.md,
# "DiskSim's ten drives").  No data sheet of the drive is readable in the
# stored corpus, so the figures a data sheet would give are taken from what
# DIXtrac measured on the drive, as DiskSim ships it:
#   [dx] extracted by DIXtrac, source: benh/disksim valid/barracuda.model
#        (geometry, rotation speed), valid/barracuda.seek (seek times
#        measured by distance) and valid/barracuda.diskspecs (buffer
#        segments, command overheads by kind)
# Nothing here is fitted to the trace's response times; every other key is
# derived by the rules in hw-model/src/profile.c or takes its class default
# (--dump-profile says which).  drive_class is not given: this SCSI
# Barracuda of 1997 is not the later desktop (SATA) Barracuda line.
type = hdd
capacity_bytes = 2104320000       # [dx] Block count = 4110000 x 512
rpm = 7200                        # [dx] Rotation speed (in rpms)
form_factor = 3.5-inch            # the Barracuda is a 3.5-inch drive
interface = sas                   # SCSI: a queued-command interface like SAS (flush queued)
interface_mb_s = 3.8209           # [dx] Bulk sector transfer time = 0.134 ms a block (valid/barracuda.diskspecs):
                                  # 512 B in that time, the drive's own host transfer, slower than
                                  # its SCSI bus; DiskSim moves a block in the slower of the two
heads = 5                         # [dx] Number of data surfaces
zones = 11                        # [dx] 11 dm_layout_g1_zone entries
outer_sectors_per_track = 186     # [dx] zone 0 Blocks per track
inner_sectors_per_track = 119     # [dx] zone 10 Blocks per track
seek_track_to_track_ms = 1.943    # [dx] seek time at distance 1
seek_full_stroke_ms = 16.679      # [dx] seek time at distance 4986, the longest measured
seek_avg_ms = 9.326               # [dx] the data-sheet average (weighted over all seek
                                  # distances, docs/profiles.md) of the measured curve,
                                  # linear between its 87 points (held at 16.679 beyond
                                  # 4986), over 5172 cylinders
cache_mb = 0.41162109375          # [dx] 3 segments x 281 blocks = 431616 bytes, exactly
read_segments = 3                 # [dx] Number of buffer segments = 3
read_segment_kb = 140.5           # [dx] Segment size 281 blocks, exactly
cache_segments = 1                # [dx] Maximum number of write segments = 1 (valid/barracuda.diskspecs)
# [dx] valid/barracuda.diskspecs "Read hit over. after read" and its seven
# siblings, ms there: DIXtrac times each kind of command on the idle drive
read_hit_overhead_us = 82                 # [dx] Read hit over. after read = 0.082
read_hit_after_write_overhead_us = 596    # [dx] Read hit over. after write = 0.596
read_miss_overhead_us = 613.07            # [dx] Read miss over. after read = 0.61307
read_miss_after_write_overhead_us = 568.13 # [dx] Read miss over. after write = 0.56813
write_hit_overhead_us = 1010              # [dx] Write hit over. after read = 1.01
write_hit_after_write_overhead_us = 929.1 # [dx] Write hit over. after write = 0.9291
write_miss_overhead_us = 1053.63          # [dx] Write miss over. after read = 1.05363
write_miss_after_write_overhead_us = 815.6 # [dx] Write miss over. after write = 0.8156
head_switch_ms = 0.1              # [dx] barracuda.model Head switch time
write_settle_ms = 0               # [dx] barracuda.model Add. write settling delay
queue_policy = fifo               # [dx] barracuda.diskspecs Scheduler: Scheduling policy = 1 (FCFS, as DiskSim ran the drive)
read_ahead = segment              # [dx] barracuda.diskspecs Buffer continuous read = 3: to the end of the segment
idle_destage_delay_ms = 0         # [dx] barracuda.diskspecs Fast write level = 1: DiskSim writes a reported write to the media at once (disk_release_hda)
# [dx] the zones as DIXtrac measured them (valid/barracuda.model): first and last
# cylinder, sectors per track, track and cylinder skew, empty sectors at the
# front, spares at the zone's end and at each track's end, first block's offset
zone = 0 1127 186 37 52 0 16544 0 0
zone = 1129 2352 185 37 52 0 17952 0 0
zone = 2354 2761 177 35 49 0 5984 0 0
zone = 2763 3098 170 34 47 0 4928 0 0
zone = 3100 3387 163 32 46 0 4224 0 0
zone = 3389 3700 157 31 44 0 4576 0 0
zone = 3702 4013 148 29 41 0 4576 0 0
zone = 4015 4326 141 28 39 0 4576 0 0
zone = 4328 4615 135 27 38 0 4224 0 0
zone = 4617 4928 126 25 35 0 4576 0 0
zone = 4930 5171 119 23 33 0 3608 0 0
# [dx] the seek curve, ms by distance in cylinders (barracuda.seek, 87 points)
seek = 1 1.943
seek = 2 1.956
seek = 3 1.933
seek = 4 2.175
seek = 5 2.176
seek = 6 2.334
seek = 7 2.344
seek = 8 2.326
seek = 9 2.328
seek = 10 2.351
seek = 12 2.358
seek = 14 2.549
seek = 16 2.534
seek = 18 2.549
seek = 20 2.548
seek = 25 2.556
seek = 30 3.549
seek = 35 3.721
seek = 40 3.743
seek = 45 3.754
seek = 50 3.768
seek = 60 3.939
seek = 70 4.141
seek = 80 4.138
seek = 90 4.14
seek = 100 4.158
seek = 125 4.514
seek = 150 4.729
seek = 175 4.929
seek = 200 5.307
seek = 225 5.342
seek = 250 5.485
seek = 275 5.533
seek = 300 5.523
seek = 325 5.524
seek = 350 5.526
seek = 375 5.717
seek = 400 5.711
seek = 425 5.901
seek = 450 5.758
seek = 475 5.943
seek = 500 6.137
seek = 600 6.333
seek = 700 6.73
seek = 800 7.322
seek = 900 7.915
seek = 1000 8.114
seek = 1100 8.507
seek = 1200 8.702
seek = 1300 8.727
seek = 1400 8.858
seek = 1500 9.117
seek = 1600 9.461
seek = 1700 9.479
seek = 1800 9.888
seek = 1900 10.086
seek = 2000 10.092
seek = 2100 10.487
seek = 2200 10.851
seek = 2300 10.884
seek = 2400 11.27
seek = 2500 11.284
seek = 2600 11.658
seek = 2700 11.873
seek = 2800 12.053
seek = 2900 12.244
seek = 3000 12.471
seek = 3100 12.64
seek = 3200 12.845
seek = 3300 13.025
seek = 3400 13.268
seek = 3500 13.447
seek = 3600 13.625
seek = 3700 14.006
seek = 3800 14.215
seek = 3900 14.215
seek = 4000 14.615
seek = 4100 14.794
seek = 4200 15.002
seek = 4300 15.231
seek = 4400 15.405
seek = 4500 15.623
seek = 4600 15.831
seek = 4700 16.031
seek = 4800 16.193
seek = 4900 16.419
seek = 4986 16.679
# Not expressible in a profile, from the same files:
#   spares per range (sparing scheme 8, barracuda.model): at each zone's end in the model
#   32 slipped sectors; the zones hold +107582 sectors beyond Block count (barracuda.model): the model's LBAs end that far short of the last zone's end
