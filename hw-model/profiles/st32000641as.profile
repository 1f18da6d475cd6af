# Seagate Barracuda XT 2 TB (ST32000641AS), a 7200 rpm desktop drive,
# written from its data sheet alone for validation (docs/VALIDATION.md):
# every other key is derived by the rules in hw-model/src/profile.c or
# takes its class default (--dump-profile says which).  Nothing here is
# fitted to a measurement or copied from another profile.
# Data-sheet figures as the stored pages reproduce them:
#   [ds1] motherboards.org/reviews/hardware/1975_2.html (Seagate's table):
#         SATA 6Gb/s, sustained data rate OD 138 MB/s, cache 64 MB,
#         7200 rpm, heads/disks 8/4, 512 bytes per sector
#   [ds2] hardcoreware.net/seagate-barracuda-xt-6-gbps-hard-drive-review/
#         (spec table): read seek <8.5 ms, write seek <9.5 ms
type = hdd
capacity_bytes = 2000398934016    # 2 TB [ds1]: 3,907,029,168 LBAs x 512, as every 2 TB ATA drive (smartctl of a HUA723020ALA641, pastebin.com/k1B9cRx1)
rpm = 7200                        # [ds1]
form_factor = 3.5-inch            # 3.5-inch desktop family [ds1: 101.6 x 146.99 mm]
interface = sata                  # SATA 6Gb/s [ds1]
interface_mb_s = 600              # 6 Gb/s after 8b/10b coding [ds1: max external 600 MB/s]
sustained_mb_s = 138              # [ds1] sustained data rate, OD
seek_avg_ms = 8.5                 # [ds2] average read seek, given as "<8.5 ms"
seek_avg_write_ms = 9.5           # [ds2] average write seek, given as "<9.5 ms"
cache_mb = 64                     # [ds1]
heads = 8                         # [ds1] heads/disks 8/4
drive_class = desktop             # Barracuda, Seagate's desktop family [ds1]; sold for desktop PCs (Maximum PC's review)
