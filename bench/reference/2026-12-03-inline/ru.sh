#!/bin/bash
# ru.sh fring|hp: user-space profile of the server under 4k randwrite/randread at 256
set -u
T=${T:-8}
W=/tmp/ru-$1; umount $W/mnt $W/src 2>/dev/null; rm -rf $W; mkdir -p $W/src $W/mnt; mount -t tmpfs -o size=2G tmpfs $W/src
echo Y > /sys/module/fuse/parameters/enable_uring
if [ $1 = fring ]; then
  ${FRING_BIN:-/tmp/rel-head}/examples/passthrough/passthrough -f -o transport=uring,attr_timeout=86400,entry_timeout=86400,no_default_permissions $W/src $W/mnt 2>$W/log &
else
  /var/cache/fring-bench/libfuse-build/example/passthrough_hp --foreground --nopassthrough -o io_uring $W/src $W/mnt 2>$W/log &
fi
PID=$!
for i in $(seq 50); do grep -q " $W/mnt " /proc/mounts && break; sleep 0.1; done
grep -q " $W/mnt " /proc/mounts || { echo no mount; exit 1; }
if [ $1 = hp ]; then stat $W/mnt >/dev/null; d=/sys/fs/fuse/connections/$(( $(stat -c %d $W/mnt) & 0xff )); echo 256 > $d/max_background; echo 192 > $d/congestion_threshold; fi
fio --name=prep --rw=write --bs=1M --ioengine=sync --directory=$W/mnt --filename_format='bench.$jobnum' --size=512M --numjobs=2 --direct=1 >/dev/null
perf record -e cpu-clock:u -F 10000 -p $PID -o $W/perf.data >/dev/null 2>&1 &
PP=$!
fio --name=rr --rw=${RW:-randwrite} --bs=4k --ioengine=io_uring --iodepth=32 --time_based --runtime=$T --directory=$W/mnt --filename_format='bench.$jobnum' --size=512M --numjobs=2 --direct=1 --group_reporting --output-format=json --output=$W/fio.json >/dev/null
kill -INT $PP; wait $PP
umount $W/mnt; wait $PID; umount $W/src
python3 -c "import json;j=json.load(open('$W/fio.json'))['jobs'][0];print('iops',round(j['write']['iops']+j['read']['iops']))"
