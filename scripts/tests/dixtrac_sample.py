"""A small DIXtrac extraction in DiskSim's syntax, made up for the tests
(the real ones are data this repository does not ship): a 2-zone drive
whose figures can be checked by hand, and the names its files go by."""

DISKSPECS = """disksim_disk SAMPLE_validate {
   Model = source sample.model,
   Per-request overhead time = 0.000000,
   Scheduler = disksim_ioqueue {
      Scheduling policy = 1,
      Priority scheduling = 0
   },
   Number of buffer segments = 4,
   Maximum number of write segments = 2,
   Segment size (in blks) = 100,
   Use separate write segment = 1,
   Fast write level = 0,
   Buffer continuous read = 4,
   High (read) water mark = 0.500000,
   Set watermark by reqsize = 1,
   Read completion overhead = 0.100000,
   Bulk sector transfer time = 0.100000,
   Read hit over. after read = 0.066000,
   Read hit over. after write = 0.273000,
   Read miss over. after read = 0.283620,
   Read miss over. after write = 0.086730,
   Write hit over. after read = 0.748000,
   Write hit over. after write = 0.500000,
   Write miss over. after read = 0.906920,
   Write miss over. after write = 0.896400
} # end of SAMPLE_validate spec
"""

MODEL = """dm_disk SAMPLE_model {
   Number of data surfaces = 2,
   Number of cylinders = 2000,
   Block count = 1439100,
   Layout Model = dm_layout_g1 {
      Sparing scheme used = 1,
      Rangesize for sparing = 1,
      Zones = [
         dm_layout_g1_zone { # band 0
            First cylinder number = 0,
            Last cylinder number = 799,
            Blocks per track = 400,
            Offset of first block = 3,
            Empty space at zone front = 100,
            Number of spares = 2,
            Skew for track switch = 40.000000,
            Skew for cylinder switch = 50.000000,
            slips = [ 12, 13 ],
            defects = []
         },
         dm_layout_g1_zone {
            First cylinder number = 800,
            Last cylinder number = 1199,
            Blocks per track = 400,
            Skew for track switch = 40.000000,
            Skew for cylinder switch = 50.000000,
            slips = [],
            defects = []
         },
         dm_layout_g1_zone {
            First cylinder number = 1200,
            Last cylinder number = 1999,
            Blocks per track = 300,
            Skew for track switch = 30.000000,
            Skew for cylinder switch = 35.000000,
            slips = [],
            defects = []
         }
      ]
   },
   Mechanical Model = dm_mech_g1 {
      Seek type = extracted,
      Full seek curve = sample.seek,
#      First ten seek times = [ 1.0, 2.0 ],
      Add. write settling delay = 0.100000,
      Head switch time = 0.200000,
      Rotation speed (in rpms) = 6000
   }
}
"""

# 2000 cylinders (800 x 2 x 400 + 400 x 2 x 400 + 800 x 2 x 300 blocks, less
# zone 0's 100 empty at its front and its 2 spare tracks: 1,439,100),
# seek time 1 + 0.01 (d - 1) ms, linear between its two points.  Weighted
# by N - d over d = 1..N-1 the mean distance is (N + 1) / 3 = 667, so the
# average seek is 1 + 0.01 x 666 = 7.66 ms
SEEK = """Seek distances measured: 2
1,\t1.00000
1999,\t20.98000
"""

FILES = {"sample.diskspecs": DISKSPECS, "sample.model": MODEL, "sample.seek": SEEK}
