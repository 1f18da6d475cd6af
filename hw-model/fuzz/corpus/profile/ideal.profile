# An ideal device: every command costs the controller overhead and nothing
# else; no volatile cache, so everything is durable at completion. Useful to
# measure the guest's own software path and in tests, where its latency is
# known exactly.
type = flash
capacity_bytes = 214748364800     # 200 GiB
parallel_units = 4096
read_us = 0.001                   # 1 ns: as close to free as the model allows
program_us = 0.001
program_kb = 1024
command_overhead_us = 10
interface_mb_s = 1000000          # 1 TB/s: transfer is negligible
queue_depth = 1024
queue_policy = fifo
write_cache = no
fua = yes
flush = queued
