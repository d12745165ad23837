#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# guest-scale.sh RUNG DAEMON (in the scale guest: many possible CPUs, few
# online; tests/vm/run-scale.sh boots it)
#
# What one mount costs when the kernel has a FUSE queue per possible CPU:
# mounts DAEMON at its defaults on a fresh directory and measures
#   mount_s   seconds from the start of DAEMON to its "mounted" line (for
#             libfuse, which prints none: to its entry in mountinfo)
#   ready_s   seconds from the start to the first answer (a listing of the
#             mount's root: on the ring rungs the kernel holds it until
#             every queue has an entry)
#   threads   /proc/PID/task entries, after the data check
#   rss_kib, pin_kib, lck_kib, hwm_kib  VmRSS, VmPin, VmLck, VmHWM of
#             /proc/PID/status then. The daemon runs without CAP_IPC_LOCK
#             and with RLIMIT_MEMLOCK unlimited, so that VmPin shows what
#             io_uring pinned (as root it accounts nothing); pinned pages
#             are resident, so VmRSS counts them too
# then writes and reads back 256 KiB (a CPU's worth of small files and one
# that needs a pool buffer), brings one more CPU online (FRING_SCALE_HOTPLUG,
# default the last possible CPU; "none": not), has a client on that CPU
# write and read a file there (its requests go to that CPU's queue, which
# had no traffic before), takes the CPU offline again, unmounts and checks
# the stats (tests/e2e/stats.sh): the rung, one queue per possible CPU with a
# ring entry each on the ring rungs, the hot-plugged CPU's queue served.
# Prints
#   @@FRING-SCALE rung=R build=B possible=N online=N mount_s=S ready_s=S threads=N
#     rss_kib=N pin_kib=N lck_kib=N hwm_kib=N queues=N entries=N
#     pool_waits=N hotplug_s=S@@
# (one line) for run-scale.sh's table, and the stats as @@FRING-STATS.
#
# RUNG: dev, uring, bufpool, bufpool-registered, zerocopy (DAEMON is
# examples/memfs, mounted "-f -o transport=RUNG"), or libfuse (DAEMON is
# libfuse's passthrough_hp, mounted "--foreground --nopassthrough -o
# io_uring SRC MNT" over a fresh directory of the guest's tmpfs; no stats).
# FRING_SCALE_OPTS: more -o options for memfs (default none: the defaults
# are what is measured). FRING_SCALE_MAX_RSS_MIB, FRING_SCALE_MAX_PIN_MIB,
# FRING_SCALE_MAX_THREADS: limits checked when set (jobs-scale.sh sets them
# per rung).
# FRING_SCALE_BUILD: which build this is, for the table (default "this").
set -uo pipefail
lib=$(dirname "${BASH_SOURCE[0]}")/../lib
[[ -r $lib/check.sh ]] || lib=$(dirname "${BASH_SOURCE[0]}")/lib
e2e=$(dirname "${BASH_SOURCE[0]}")/../e2e
[[ -r $e2e/stats.sh ]] || e2e=$(dirname "${BASH_SOURCE[0]}")/e2e
# shellcheck source-path=SCRIPTDIR source=../lib/check.sh
source "$lib/check.sh"
# shellcheck source-path=SCRIPTDIR source=../e2e/stats.sh
source "$e2e/stats.sh"
RUNG=${1:?usage: guest-scale.sh RUNG DAEMON}
DAEMON=${2:?usage: guest-scale.sh RUNG DAEMON}
WAIT=${FRING_E2E_WAIT:-60}
[[ $(id -u) == 0 ]] || skip "needs root"
[[ -x $DAEMON ]] || { fail scale.daemon "$DAEMON is not an executable"; check_done; }

cpu_count() { # a list like 0-63 or 0-1,4 -> how many
	local list=$1 part a b n=0
	IFS=, read -r -a parts <<<"$list"
	for part in "${parts[@]}"; do
		a=${part%-*} b=${part#*-}
		n=$((n + b - a + 1))
	done
	echo "$n"
}
read -r possible_list </sys/devices/system/cpu/possible
read -r online_list </sys/devices/system/cpu/online
possible=$(cpu_count "$possible_list")
online=$(cpu_count "$online_list")
echo "# CPUs: possible $possible_list ($possible), online $online_list ($online)"
if [[ -n ${FRING_SCALE_POSSIBLE:-} ]]; then
	check_eq scale.possible "$FRING_SCALE_POSSIBLE" "$possible"
fi

TMP=$(mktemp -d /tmp/fring-scale.XXXXXX)
MNT=$TMP/mnt
SRC=$TMP/src
LOG=$TMP/daemon.log
STATS=$TMP/stats.json
mkdir "$MNT" "$SRC"
# a FIFO nobody writes: read -t on it sleeps without a fork (the polls
# below must not take the CPUs the daemon is starting on)
mkfifo "$TMP/tick"
exec {tick}<>"$TMP/tick"
nap() { read -r -t "$1" -u "$tick" _ || true; }

pid=
hot=
# shellcheck disable=SC2317 # (run by the trap)
cleanup() {
	set +e
	[[ -n $hot ]] && echo 0 >"/sys/devices/system/cpu/cpu$hot/online"
	if awk -v m="$MNT" '$5 == m { f = 1 } END { exit !f }' /proc/self/mountinfo; then
		umount "$MNT" 2>/dev/null || umount -l "$MNT"
	fi
	[[ -n $pid ]] && kill -KILL "$pid" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

# the fstype of the top mount at $MNT (mountinfo: the field after " - "),
# read without a fork
top_fstype() {
	local line f i t=
	mapfile -t lines </proc/self/mountinfo
	for line in "${lines[@]}"; do
		read -r -a f <<<"$line"
		[[ ${f[4]} == "$MNT" ]] || continue
		for ((i = 6; i < ${#f[@]}; i++)); do
			[[ ${f[i]} == - ]] && { t=${f[i + 1]}; break; }
		done
	done
	echo "$t"
}
log_has_mounted() {
	local l
	mapfile -t l <"$LOG"
	[[ ${l[*]} == *"mounted $MNT"* ]]
}
since() { # seconds since $t0, 3 decimals
	local now=${EPOCHREALTIME/./} start=${t0/./}
	local us=$((now - start))
	printf '%d.%03d' $((us / 1000000)) $((us % 1000000 / 1000))
}

if [[ $RUNG == libfuse ]]; then
	cmd=("$DAEMON" --foreground --nopassthrough -o io_uring "$SRC" "$MNT")
else
	opts=transport=$RUNG
	[[ -n ${FRING_SCALE_OPTS:-} ]] && opts=$opts,$FRING_SCALE_OPTS
	cmd=("$DAEMON" -f -o "$opts" --stats-file="$STATS" "$MNT")
fi
# Without CAP_IPC_LOCK (and an unlimited RLIMIT_MEMLOCK, so nothing is
# refused) io_uring accounts what it pins to the process's VmPin; as root
# with the capability it accounts nothing (io_buffer_account_pin())
ulimit -l unlimited
nocap=(setpriv --bounding-set -ipc_lock --inh-caps -ipc_lock)
echo "# ${nocap[*]} ${cmd[*]}"
t0=$EPOCHREALTIME
"${nocap[@]}" "${cmd[@]}" >"$LOG" 2>&1 &
pid=$!
mount_s=
for ((i = 0; i < WAIT * 100; i++)); do
	if [[ $RUNG == libfuse ]]; then
		[[ $(top_fstype) == fuse* ]] && { mount_s=$(since); break; }
	else
		log_has_mounted && { mount_s=$(since); break; }
	fi
	kill -0 "$pid" 2>/dev/null || break
	nap 0.01
done
if [[ -z $mount_s || $(top_fstype) != fuse* ]]; then
	fail scale.mount "expected $DAEMON's FUSE mount at $MNT within $WAIT s"
	sed 's/^/# daemon: /' "$LOG"
	check_done
fi
# the first answer: on the ring rungs the kernel holds every request until
# each queue has an entry registered
ls "$MNT" >/dev/null
ready_s=$(since)
ok "scale.mount (mounted after $mount_s s, first answer after $ready_s s)"
sed -n '/mounted /s/^/# daemon: /p' "$LOG"

# a small data check, only into the verified FUSE mount: 64 small files and
# one of 256 KiB (a payload that needs a pool buffer on the pool rungs)
head -c 262144 /dev/urandom >"$TMP/data"
want=$(md5sum <"$TMP/data")
[[ $want == [0-9a-f]* ]] || { fail scale.md5sum "md5sum said \"$want\""; check_done; }
cp "$TMP/data" "$MNT/big"
for ((i = 0; i < 64; i++)); do echo "file $i" >"$MNT/small$i"; done
sync
echo 3 >/proc/sys/vm/drop_caches
check_eq scale.data "$want" "$(md5sum <"$MNT/big")"
bad=0
for ((i = 0; i < 64; i++)); do [[ $(<"$MNT/small$i") == "file $i" ]] || bad=$((bad + 1)); done
check_eq scale.small_files 0 "$bad"

# the daemon's cost, now that it has served
declare -A st=()
while read -r k v _; do
	st[${k%:}]=$v
done <"/proc/$pid/status"
tasks=(/proc/"$pid"/task/*)
threads=${#tasks[@]}
echo "# daemon: ${threads} threads, VmRSS ${st[VmRSS]:-?} KiB, VmHWM ${st[VmHWM]:-?} KiB, VmPin ${st[VmPin]:-?} KiB, VmLck ${st[VmLck]:-?} KiB, VmSize ${st[VmSize]:-?} KiB"
if [[ -n ${FRING_SCALE_MAX_THREADS:-} ]]; then
	check "scale.threads" "expected at most $FRING_SCALE_MAX_THREADS threads got $threads" \
		test "$threads" -le "$FRING_SCALE_MAX_THREADS"
fi
if [[ -n ${FRING_SCALE_MAX_RSS_MIB:-} ]]; then
	check "scale.rss" "expected VmRSS at most $FRING_SCALE_MAX_RSS_MIB MiB got ${st[VmRSS]} KiB" \
		test "${st[VmRSS]:-0}" -le $((FRING_SCALE_MAX_RSS_MIB * 1024))
fi
if [[ -n ${FRING_SCALE_MAX_PIN_MIB:-} ]]; then
	check "scale.pinned" "expected VmPin at most $FRING_SCALE_MAX_PIN_MIB MiB got ${st[VmPin]:-none} KiB" \
		test "${st[VmPin]:-0}" -le $((FRING_SCALE_MAX_PIN_MIB * 1024))
fi

# a CPU that comes online after the mount: its clients' requests go to its
# queue, which must have an entry and be served
hot=${FRING_SCALE_HOTPLUG:-$((possible - 1))}
hotplug_s=-
if [[ $hot == none || $possible == "$online" || ! -w /sys/devices/system/cpu/cpu$hot/online ]]; then
	echo "# no CPU brought online (FRING_SCALE_HOTPLUG=${FRING_SCALE_HOTPLUG:-}, cpu$hot)"
	hot=
else
	h0=$EPOCHREALTIME
	if echo 1 >"/sys/devices/system/cpu/cpu$hot/online"; then
		hotplug_s=$(t0=$h0 since)
		if timeout -k 5 "$WAIT" taskset -c "$hot" sh -c "for i in 1 2 3 4 5; do echo hot-\$i > '$MNT/hot'; cat '$MNT/hot' >/dev/null; done; head -c 262144 '$TMP/data' > '$MNT/hotbig'; md5sum < '$MNT/hotbig'" >"$TMP/hot.out" 2>&1; then
			check_eq scale.hotplug_data "$want" "$(cat "$TMP/hot.out")"
		else
			fail scale.hotplug "expected a client on cpu$hot (brought online) to be served within $WAIT s"
			sed 's/^/# client: /' "$TMP/hot.out"
		fi
		echo 0 >"/sys/devices/system/cpu/cpu$hot/online" || fail scale.hotplug_offline "cpu$hot did not go offline again"
	else
		fail scale.hotplug_online "could not bring cpu$hot online"
	fi
	hot_cpu=$hot
	hot=
fi

timeout -k 5 "$WAIT" umount "$MNT" || umount -l "$MNT"
exited=0
wait_exit=$WAIT
# passthrough_hp may stay after the unmount: not ours to judge
[[ $RUNG == libfuse ]] && wait_exit=5
for ((i = 0; i < wait_exit * 10; i++)); do
	kill -0 "$pid" 2>/dev/null || { exited=1; break; }
	nap 0.1
done
rc=0
if ((exited)); then
	wait "$pid" || rc=$?
	pid=
fi
if [[ $RUNG == libfuse ]]; then
	echo "# passthrough_hp after the unmount: $([[ $exited == 1 ]] && echo "exit $rc" || echo "still running 5 s later: killed")"
else
	check scale.daemon_exit "expected exit 0 after the unmount got $([[ $exited == 1 ]] && echo "exit $rc" || echo "still running")" \
		test "$exited$rc" = 10
fi

queues=- entries=- pool_waits=-
if [[ $RUNG != libfuse ]]; then
	stats_checks "$STATS" "$RUNG" scale || true
	# every value in one pass (stats_get reads the whole file each time,
	# seconds a call under TCG)
	declare -A sv=()
	# (a file, not a process substitution: the guest has no /dev/fd)
	stats_read "$STATS" >"$TMP/stats.tsv" 2>/dev/null
	while IFS=$'\t' read -r k v; do
		sv[$k]=$v
	done <"$TMP/stats.tsv"
	queues=${sv[per_queue.length]:--}
	entries=${sv[ring_entries]:--}
	pool_waits=${sv[pool_waits]:--}
	if [[ $RUNG != dev ]]; then
		check_eq scale.queues "$possible" "$queues"
		bad=
		for ((q = 0; q < possible; q++)); do
			e=${sv[per_queue.$q.ring_entries]:-}
			[[ $e =~ ^[0-9]+$ && $e -gt 0 ]] || bad="$bad $q"
		done
		check scale.every_queue_registered "queues without a ring entry:$bad" test -z "$bad"
		if [[ -n ${hot_cpu:-} ]]; then
			r=${sv[per_queue.$hot_cpu.requests]:-0}
			check scale.hotplug_queue_served "expected requests on queue $hot_cpu (cpu$hot_cpu, brought online) got $r" \
				test "$r" -gt 0
		fi
	fi
fi
echo "@@FRING-SCALE rung=$RUNG build=${FRING_SCALE_BUILD:-this} possible=$possible online=$online mount_s=$mount_s ready_s=$ready_s threads=$threads rss_kib=${st[VmRSS]:--} pin_kib=${st[VmPin]:--} lck_kib=${st[VmLck]:--} hwm_kib=${st[VmHWM]:--} queues=$queues entries=$entries pool_waits=$pool_waits hotplug_s=$hotplug_s@@"
check_done
