#!/bin/bash
# stat latency (distinct missing names: a LOOKUP each) during a randread flood
set -u
W=/tmp/fair; umount $W/mnt $W/src 2>/dev/null; rm -rf $W; mkdir -p $W/src $W/mnt; mount -t tmpfs -o size=2G tmpfs $W/src
echo Y > /sys/module/fuse/parameters/enable_uring
/tmp/rel-bg/examples/passthrough/passthrough -f -o transport=uring,max_background=$1,attr_timeout=86400,entry_timeout=86400,no_default_permissions $W/src $W/mnt 2>$W/log &
PID=$!
for i in $(seq 50); do grep -q " $W/mnt " /proc/mounts && break; sleep 0.1; done
grep -q " $W/mnt " /proc/mounts || { echo no mount; exit 1; }
fio --name=prep --rw=write --bs=1M --ioengine=sync --directory=$W/mnt --filename_format='bench.$jobnum' --size=512M --numjobs=2 --direct=1 >/dev/null
fio --name=randread --rw=randread --bs=4k --ioengine=io_uring --iodepth=64 ${RATE:+--rate_iops=$RATE} --time_based --runtime=12 --directory=$W/mnt --filename_format='bench.$jobnum' --size=512M --numjobs=2 --direct=1 --group_reporting --output-format=json --output=$W/fio.json >/dev/null &
FP=$!
sleep 2
python3 - $W/mnt <<'PY'
import os,sys,time
d=sys.argv[1]; lat=[]
t_end=time.time()+8; i=0
while time.time()<t_end:
    t=time.perf_counter_ns()
    try: os.stat(f"{d}/nx{i}")
    except FileNotFoundError: pass
    lat.append(time.perf_counter_ns()-t); i+=1
lat.sort(); n=len(lat)
print(f"stats {n} p50 {lat[n//2]/1000:.0f}us p99 {lat[n*99//100]/1000:.0f}us max {lat[-1]/1000:.0f}us", end=' ')
PY
wait $FP
python3 -c "import json;j=json.load(open('$W/fio.json'))['jobs'][0]['read'];print(f\"iops {j['iops']:.0f}\")"
umount $W/mnt; wait $PID; umount $W/src
