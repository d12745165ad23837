#!/bin/bash
# stat.sh OUT REPS NEW OLD: the stat phase alone (as 2026-12-02-hostcpu/stat/stat.sh):
# 2 x 9,500 empty files on tmpfs, each server mounted over it in turn
# (new, old, hp; rep by rep), names learnt once, then 8 rounds of drop
# dentries + stat of all 19,000 names by 2 processes (statdrv). CPU: the
# server's utime/stime over the 8 stat windows only; FORGET: utime/stime over
# the drops (drop_caches + 0.3 s pause, which is when the FORGETs arrive).
set -u
out=$1; REPS=$2; NEW=$3; OLD=$4
H=/tmp/hoststat-stat; SRC=$H/src; MNT=$H/mnt; N=9500; ROUNDS=8
mkdir -p $SRC $MNT $out
mountpoint -q $SRC || mount -t tmpfs -o size=1g,mode=1777 hss-src $SRC
rm -rf "${SRC:?}"/*; mkdir $SRC/d0 $SRC/d1
(cd $SRC/d0 && seq -f 'f%.0f' 0 $((N-1)) | xargs touch); (cd $SRC/d1 && seq -f 'f%.0f' 0 $((N-1)) | xargs touch)
echo Y > /sys/module/fuse/parameters/enable_uring
ulimit -n 262144 2>/dev/null || ulimit -n $(ulimit -Hn)
PTO=transport=uring,attr_timeout=86400,entry_timeout=86400,no_default_permissions
echo "rep,conf,ops,utime_ticks,stime_ticks,seconds_sum,forget_utime,forget_stime,load1" > $out/stat.csv
for rep in $(seq $REPS); do for conf in new old hp; do
	load=$(cut -d' ' -f1 /proc/loadavg)
	case $conf in
	new) $NEW/examples/passthrough/passthrough -f -o $PTO $SRC $MNT >$out/$conf.$rep.log 2>&1 & ;;
	old) $OLD/examples/passthrough/passthrough -f -o $PTO $SRC $MNT >$out/$conf.$rep.log 2>&1 & ;;
	hp) /var/cache/fring-bench/libfuse-build/example/passthrough_hp --foreground --nopassthrough -o io_uring $SRC $MNT >$out/$conf.$rep.log 2>&1 & ;;
	esac
	PID=$!
	for _ in $(seq 100); do grep -q " $MNT fuse" /proc/mounts && break; sleep 0.1; done
	grep -q " $MNT fuse" /proc/mounts || { echo "no mount $conf"; kill $PID; continue; }
	$H/statdrv $MNT $N >/dev/null
	u=0; s=0; secs=0; fu=0; fs=0
	for r in $(seq $ROUNDS); do
		read a0 b0 < <(awk '{print $14, $15}' /proc/$PID/stat)
		echo 2 > /proc/sys/vm/drop_caches; sleep 0.3
		read u0 s0 < <(awk '{print $14, $15}' /proc/$PID/stat)
		fu=$((fu + u0 - a0)); fs=$((fs + s0 - b0))
		res=$($H/statdrv $MNT $N)
		read u1 s1 < <(awk '{print $14, $15}' /proc/$PID/stat)
		u=$((u + u1 - u0)); s=$((s + s1 - s0))
		secs=$(awk -v a="$secs" -v b="$(echo $res | awk '{print $1}')" 'BEGIN{print a+b}')
		echo "$conf rep $rep round $r: $res" >> $out/rounds.txt
	done
	echo "$rep,$conf,$((ROUNDS*2*N)),$u,$s,$secs,$fu,$fs,$load" >> $out/stat.csv
	umount $MNT || fusermount3 -u $MNT; wait $PID
done; done
umount $SRC
