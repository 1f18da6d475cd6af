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
head_switch_ms = 0.89             # [dx] hp_c2247a_validate.model Head switch time
write_settle_ms = 0.65            # [dx] hp_c2247a_validate.model Add. write settling delay
read_reconnect_pct = 75           # [dx] hp_c2247a.diskspecs High (read) water mark = 0.75 of the request (Set watermark by reqsize = 1): the buffer full ratio
queue_policy = fifo               # [dx] hp_c2247a.diskspecs Scheduler: Scheduling policy = 1 (FCFS, as DiskSim ran the drive)
read_ahead = segment              # [dx] hp_c2247a.diskspecs Buffer continuous read = 3: to the end of the segment
read_completion_overhead_us = 56.65 # [dx] hp_c2247a.diskspecs Read completion overhead = 0.05665 ms
write_completion_overhead_us = 50.45 # [dx] hp_c2247a.diskspecs Write completion overhead = 0.05045 ms
# [dx] the zones as DIXtrac measured them (valid/hp_c2247a_validate.model): first and last
# cylinder, sectors per track, track and cylinder skew, empty sectors at the
# front, spares at the zone's end and at each track's end, first block's offset
zone = 0 558 96 14 32 1632 31200 0 0
zone = 559 760 92 13 30 0 11960 0 14
zone = 761 901 88 13 29 0 5720 0 73
zone = 902 1051 84 12 28 0 6552 0 80
zone = 1052 1193 80 12 27 0 4160 0 52
zone = 1194 1519 72 11 24 0 7488 0 0
zone = 1520 1793 64 10 22 0 4992 0 32
zone = 1794 2050 56 9 19 0 3640 0 30
# [dx] the seek curve, ms by distance in cylinders (hp_c2247a_validate.model (hplplus10: First ten, 301 points)
seek = 1 2.89
seek = 2 3.68
seek = 3 3.81
seek = 4 3.98
seek = 5 4.27
seek = 6 4.65
seek = 7 4.52
seek = 8 4.65
seek = 9 4.82
seek = 10 4.99
seek = 11 4.904486
seek = 12 4.953154
seek = 13 4.999832
seek = 14 5.044747
seek = 15 5.088085
seek = 16 5.13
seek = 17 5.170625
seek = 18 5.210071
seek = 19 5.248437
seek = 20 5.285805
seek = 21 5.32225
seek = 22 5.357837
seek = 23 5.392624
seek = 24 5.426663
seek = 25 5.46
seek = 26 5.492676
seek = 27 5.52473
seek = 28 5.556196
seek = 29 5.587104
seek = 30 5.617484
seek = 31 5.647362
seek = 32 5.676762
seek = 33 5.705706
seek = 34 5.734214
seek = 35 5.762306
seek = 36 5.79
seek = 37 5.817312
seek = 38 5.844257
seek = 39 5.870849
seek = 40 5.897103
seek = 41 5.923031
seek = 42 5.948644
seek = 43 5.973955
seek = 44 5.998972
seek = 45 6.023707
seek = 46 6.048169
seek = 47 6.072366
seek = 48 6.096307
seek = 49 6.12
seek = 50 6.143452
seek = 51 6.166671
seek = 52 6.189664
seek = 53 6.212436
seek = 54 6.234995
seek = 55 6.257346
seek = 56 6.279494
seek = 57 6.301445
seek = 58 6.323205
seek = 59 6.344778
seek = 60 6.366169
seek = 61 6.387382
seek = 62 6.408423
seek = 63 6.429294
seek = 64 6.45
seek = 65 6.470545
seek = 66 6.490933
seek = 67 6.511166
seek = 68 6.53125
seek = 69 6.551186
seek = 70 6.570978
seek = 71 6.590629
seek = 72 6.610143
seek = 73 6.629521
seek = 74 6.648767
seek = 75 6.667884
seek = 76 6.686873
seek = 77 6.705738
seek = 78 6.724481
seek = 79 6.743104
seek = 80 6.76161
seek = 81 6.78
seek = 82 6.798277
seek = 83 6.816443
seek = 84 6.8345
seek = 85 6.85245
seek = 86 6.870294
seek = 87 6.888035
seek = 88 6.905674
seek = 89 6.923214
seek = 90 6.940655
seek = 91 6.957999
seek = 92 6.975249
seek = 93 6.992405
seek = 94 7.009469
seek = 95 7.026442
seek = 96 7.043326
seek = 97 7.060123
seek = 98 7.076833
seek = 99 7.093459
seek = 100 7.11
seek = 101 7.126459
seek = 102 7.142837
seek = 103 7.159134
seek = 104 7.175353
seek = 105 7.191494
seek = 106 7.207558
seek = 107 7.223547
seek = 108 7.239461
seek = 109 7.255301
seek = 110 7.271069
seek = 111 7.286766
seek = 112 7.302392
seek = 113 7.317948
seek = 114 7.333436
seek = 115 7.348856
seek = 116 7.364209
seek = 117 7.379496
seek = 118 7.394718
seek = 119 7.409875
seek = 120 7.424969
seek = 121 7.44
seek = 122 7.454969
seek = 123 7.469877
seek = 124 7.484724
seek = 125 7.499512
seek = 126 7.514241
seek = 127 7.528911
seek = 128 7.543524
seek = 129 7.55808
seek = 130 7.572579
seek = 131 7.587023
seek = 132 7.601411
seek = 133 7.615746
seek = 134 7.630026
seek = 135 7.644254
seek = 136 7.658428
seek = 137 7.672551
seek = 138 7.686622
seek = 139 7.700643
seek = 140 7.714613
seek = 141 7.728533
seek = 142 7.742404
seek = 143 7.756226
seek = 144 7.77
seek = 145 7.783726
seek = 146 7.797405
seek = 147 7.811037
seek = 148 7.824623
seek = 149 7.838163
seek = 150 7.851658
seek = 151 7.865108
seek = 152 7.878513
seek = 153 7.891875
seek = 154 7.905192
seek = 155 7.918467
seek = 156 7.931699
seek = 157 7.944888
seek = 158 7.958036
seek = 159 7.971142
seek = 160 7.984207
seek = 161 7.997231
seek = 162 8.010214
seek = 163 8.023158
seek = 164 8.036062
seek = 165 8.048927
seek = 166 8.061753
seek = 167 8.07454
seek = 168 8.087289
seek = 169 8.1
seek = 170 8.112674
seek = 171 8.12531
seek = 172 8.137909
seek = 173 8.150472
seek = 174 8.162999
seek = 175 8.17549
seek = 176 8.187945
seek = 177 8.200364
seek = 178 8.212749
seek = 179 8.225099
seek = 180 8.237415
seek = 181 8.249696
seek = 182 8.261943
seek = 183 8.274157
seek = 184 8.286338
seek = 185 8.298485
seek = 186 8.3106
seek = 187 8.322682
seek = 188 8.334732
seek = 189 8.34675
seek = 190 8.358736
seek = 191 8.370691
seek = 192 8.382614
seek = 193 8.394507
seek = 194 8.406368
seek = 195 8.418199
seek = 196 8.43
seek = 197 8.441771
seek = 198 8.453512
seek = 199 8.465223
seek = 200 8.476905
seek = 201 8.488557
seek = 202 8.500181
seek = 203 8.511776
seek = 204 8.523343
seek = 205 8.534881
seek = 206 8.546391
seek = 207 8.557873
seek = 208 8.569328
seek = 209 8.580755
seek = 210 8.592154
seek = 211 8.603527
seek = 212 8.614873
seek = 213 8.626191
seek = 214 8.637484
seek = 215 8.64875
seek = 216 8.65999
seek = 217 8.671204
seek = 218 8.682392
seek = 219 8.693554
seek = 220 8.704691
seek = 221 8.715803
seek = 222 8.726889
seek = 223 8.737951
seek = 224 8.748988
seek = 225 8.76
seek = 226 8.770988
seek = 227 8.781951
seek = 228 8.792891
seek = 229 8.803806
seek = 230 8.814698
seek = 231 8.825566
seek = 232 8.83641
seek = 233 8.847231
seek = 234 8.858029
seek = 235 8.868804
seek = 236 8.879556
seek = 237 8.890285
seek = 238 8.900992
seek = 239 8.911676
seek = 240 8.922338
seek = 241 8.932978
seek = 242 8.943595
seek = 243 8.954191
seek = 244 8.964765
seek = 245 8.975317
seek = 246 8.985848
seek = 247 8.996357
seek = 248 9.006845
seek = 249 9.017312
seek = 250 9.027758
seek = 251 9.038183
seek = 252 9.048588
seek = 253 9.058971
seek = 254 9.069335
seek = 255 9.079677
seek = 256 9.09
seek = 257 9.100302
seek = 258 9.110585
seek = 259 9.120847
seek = 260 9.13109
seek = 261 9.141313
seek = 262 9.151517
seek = 263 9.161701
seek = 264 9.171865
seek = 265 9.182011
seek = 266 9.192137
seek = 267 9.202244
seek = 268 9.212333
seek = 269 9.222402
seek = 270 9.232453
seek = 271 9.242486
seek = 272 9.252499
seek = 273 9.262495
seek = 274 9.272472
seek = 275 9.282431
seek = 276 9.292372
seek = 277 9.302295
seek = 278 9.3122
seek = 279 9.322087
seek = 280 9.331956
seek = 281 9.341808
seek = 282 9.351642
seek = 283 9.361459
seek = 284 9.371259
seek = 285 9.381041
seek = 286 9.390806
seek = 287 9.400555
seek = 288 9.410286
seek = 289 9.42
seek = 290 9.429698
seek = 291 9.439378
seek = 292 9.449042
seek = 293 9.45869
seek = 294 9.468321
seek = 295 9.477936
seek = 296 9.487535
seek = 297 9.497117
seek = 298 9.506683
seek = 299 9.516233
seek = 300 9.52
seek = 2050 19.845
# Not expressible in a profile, from the same files:
#   38 slipped sectors; the zones hold +0 sectors beyond Block count (hp_c2247a_validate.model): the model's LBAs end that far short of the last zone's end
