# Seagate Barracuda 7200.14 3 TB (ST3000DM001), a 7200 rpm desktop drive,
# written from its data sheet alone for validation (docs/VALIDATION.md):
# every other key is derived by the rules in hw-model/src/profile.c or
# takes its class default (--dump-profile says which).  Nothing here is
# fitted to a measurement or copied from another profile.
# Seagate's figures as the stored pages quote them:
#   [ds1] tomshardware.com/reviews/desktop-hdd.15-st4000dm000-4tb,3494.html:
#         the 1 TB and 3 TB Barracuda 7200.14 spin at 7200 rpm, "up to
#         210 MB/s", SATA 6Gb/s, 64 MB cache from 1 TB up, 3.5-inch
#   [ds2] itproportal.com/2013/08/22/seagate-barracuda-720014-2tb-hard-disk-
#         preview-extremely-fast-7200rpm-hard-drive/: for the family's
#         ST2000DM001, Seagate's "average access time of 8.5ms", 64 MB
#         cache, SATA 600.  Read as the average read seek: it is the
#         figure hardcoreware.net's specification table gives as the read
#         seek of the 7200.12 and the XT ("<8.5 ms"), and 8.5 ms is below
#         seek plus the 4.17 ms average latency of any 7200 rpm drive
# No write seek was found: write_settle_ms takes its class default.
# The drive has three platters (six heads, wikimili.com/en/ST3000DM001);
# heads is left to its rule, which gives five: the data sheet quoted here
# does not list it.
type = hdd
capacity_bytes = 3000592982016    # 3 TB [ds1]: 5,860,533,168 LBAs x 512, as every 3 TB ATA drive (AnandTech's WD Caviar Green 3TB table)
rpm = 7200                        # [ds1]
form_factor = 3.5-inch            # [ds1]
interface = sata                  # SATA 6Gb/s [ds1]
interface_mb_s = 600              # 6 Gb/s after 8b/10b coding
sustained_mb_s = 210              # [ds1] maximum sustained rate (outer diameter)
seek_avg_ms = 8.5                 # [ds2] the family's average (read) seek
cache_mb = 64                     # [ds1], [ds2]
drive_class = desktop             # [ds1] Barracuda 7200.14, renamed "Desktop HDD" (model numbers ST*DM: hardwareluxx.de, 25972-neun-hdds-mit-4-tb-fassungsvermoegen-im-test, p. 5)
