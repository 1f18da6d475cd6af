#!/bin/sh
# The guest side of scripts/bench-lock-regression (issue 24, a lock
# regression whose size can be predicted): issue 24's concurrent O_DIRECT
# writers (32 jobs of 4 KiB random writes through io_uring, queue depth 64,
# force_async=4) on the raw test device, 0.5 s of ramp then PLATTER_RUNTIME
# measured; fio's JSON on stdout.  Then, on stderr, the hold and hand-off
# times of the lock that
# guest-tests/kernel/patches/lock-serialize-blkdev-dio-writes.patch adds
# (absent on a kernel without it).  Run with `run-guest ... exec` or
# `platter exec` on --fs none.
. /platter/lib/fiotime.sh
runtime=$(fio_runtime "${PLATTER_RUNTIME:-1}") || exit 2
fio --name=writers --filename="$PLATTER_DEV" --ioengine=io_uring --rw=randwrite \
    --bs=4k --direct=1 --iodepth=64 --force_async=4 --numjobs=32 --size=64m \
    --time_based=1 --ramp_time=500ms --runtime="$runtime" --group_reporting=1 \
    --output-format=json+ || exit 1
p=/sys/module/fops/parameters
if [ -r $p/lock_held_ns ]; then
    echo "lock_held_ns=$(cat $p/lock_held_ns) lock_held_writes=$(cat $p/lock_held_writes)" \
        "lock_handoff_ns=$(cat $p/lock_handoff_ns)" >&2
fi
