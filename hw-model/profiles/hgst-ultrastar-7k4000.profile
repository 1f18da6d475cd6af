# HGST Ultrastar 7K4000, 4 TB, SAS 6Gb/s (HUS724040ALS640), written from its
# public data sheet and OEM specification alone: every other key is derived
# by the rules in hw-model/src/profile.c or takes its class default
# (platter-sim --profile hgst-ultrastar-7k4000 --dump-profile says which).
# Nothing here is fitted or copied from another profile.
type = hdd
capacity_bytes = 4000787030016    # 4 TB: 7,814,037,168 LBAs x 512 (data sheet)
rpm = 7200                        # data sheet
form_factor = 3.5-inch            # data sheet
interface = sas                   # SAS 6Gb/s (data sheet)
interface_mb_s = 600              # 6 Gb/s after 8b/10b coding
sustained_mb_s = 171              # data sheet: sustained transfer rate, MB/s
seek_avg_ms = 8.2                 # OEM specification: average read seek, typical
seek_avg_write_ms = 8.2           # OEM specification: average write seek, typical
cache_mb = 64                     # data sheet: buffer
