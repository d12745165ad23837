#!/bin/bash
# SPDX-License-Identifier: MIT
# Where the time goes on stat and 4 KiB randread (2026-12-02): one server
# (pt = libfring examples/passthrough on uring, hp = libfuse passthrough_hp
# -o io_uring), mounted over a tmpfs holding 2 x 9,500 empty files and the
# two 1 GiB fio files. stat: the names are looked up once (as metaops' create
# phase leaves them known), then 8 rounds of drop dentries (vm.drop_caches=2)
# + stat of all 19,000 names by 2 processes (statdrv); perf stat counts the
# server's threads only while statdrv runs (a second counter set covers the
# drop and the FORGETs it sends), utime/stime from /proc/PID/stat around the
# same windows. randread: run.sh's randread job (8 s) under perf stat.
# Run as root from a directory HB holding statdrv (cc -O2 -o statdrv statdrv.c);
# the interleaving used: for rep in 1 2 3; do for c in hp pt; do
# measure.sh $c $rep OUT; done; done (then pt before hp for reps 4, 5).
# usage: measure.sh CONF(pt|hp) REP OUTDIR
set -u
conf=$1 rep=$2 out=$3
H=${HB:-/tmp/hb}; SRC=$H/src; MNT=$H/mnt; N=9500; ROUNDS=8
mkdir -p $SRC $MNT $out
mountpoint -q $SRC || mount -t tmpfs -o size=4g,mode=1777 hb-src $SRC
rm -rf "${SRC:?}"/*
mkdir $SRC/d0 $SRC/d1
(cd $SRC/d0 && seq -f 'f%.0f' 0 $((N-1)) | xargs touch) ; (cd $SRC/d1 && seq -f 'f%.0f' 0 $((N-1)) | xargs touch)
head -c 1G /dev/zero > $SRC/bench.0; head -c 1G /dev/zero > $SRC/bench.1
echo Y > /sys/module/fuse/parameters/enable_uring
case $conf in
pt) /tmp/bench-rel/examples/passthrough/passthrough -f -o transport=uring,attr_timeout=86400,entry_timeout=86400,no_default_permissions $SRC $MNT >$out/$conf.$rep.log 2>&1 & ;;
hp) /var/cache/fring-bench/libfuse-build/example/passthrough_hp --foreground --nopassthrough -o io_uring $SRC $MNT >$out/$conf.$rep.log 2>&1 & ;;
esac
PID=$!
for _ in $(seq 100); do grep -q " $MNT fuse" /proc/mounts && break; sleep 0.1; done
grep -q " $MNT fuse" /proc/mounts || { echo "no mount"; kill $PID; exit 1; }
cpu() { awk '{print $14, $15}' /proc/$PID/stat; }
EV=task-clock,context-switches,page-faults,raw_syscalls:sys_enter,syscalls:sys_enter_io_uring_enter
# warm: the server learns every name once (as metaops' create phase does)
$H/statdrv $MNT $N >/dev/null
rm -f $H/ctl $H/ack; mkfifo $H/ctl $H/ack
perf stat -e $EV -p $PID -D -1 --control fifo:$H/ctl,$H/ack -x, -o $out/$conf.$rep.stat.perf &
PP=$!
rm -f $H/ctl2 $H/ack2; mkfifo $H/ctl2 $H/ack2
perf stat -e $EV -p $PID -D -1 --control fifo:$H/ctl2,$H/ack2 -x, -o $out/$conf.$rep.forget.perf &
PF=$!
exec 7>$H/ctl 8<$H/ack 5>$H/ctl2 6<$H/ack2
sleep 0.5
u=0; s=0
for r in $(seq $ROUNDS); do
	echo enable >&5; read -t 5 _ <&6
	echo 2 > /proc/sys/vm/drop_caches; sleep 0.3
	echo disable >&5; read -t 5 _ <&6
	read u0 s0 < <(cpu)
	echo enable >&7; read -t 5 _ <&8
	res=$($H/statdrv $MNT $N)
	echo disable >&7; read -t 5 _ <&8
	read u1 s1 < <(cpu)
	u=$((u + u1 - u0)); s=$((s + s1 - s0))
	echo "round $r: $res" >> $out/$conf.$rep.stat.rounds
done
echo stop >&7; echo stop >&5; exec 7>&- 8<&- 5>&- 6<&-
kill -INT $PP $PF 2>/dev/null; wait $PP $PF
echo "utime_ticks $u stime_ticks $s ops $((ROUNDS*2*N))" >> $out/$conf.$rep.stat.rounds
# randread
read u0 s0 < <(cpu)
perf stat -e $EV -p $PID -x, -o $out/$conf.$rep.rr.perf &
PP=$!
sleep 0.2
fio --name=randread --rw=randread --bs=4k --ioengine=io_uring --iodepth=32 --time_based --runtime=8 \
	--directory=$MNT --filename_format='bench.$jobnum' --size=1g --numjobs=2 --direct=1 --group_reporting \
	--output-format=json --output=$out/$conf.$rep.rr.json >/dev/null 2>>$out/fio.stderr
kill -INT $PP; wait $PP
read u1 s1 < <(cpu)
echo "utime_ticks $((u1-u0)) stime_ticks $((s1-s0))" > $out/$conf.$rep.rr.cpu
umount $MNT || fusermount3 -u $MNT
wait $PID
uptime >> $out/load.txt
