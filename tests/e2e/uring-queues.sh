#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# uring-queues.sh FSEXE [TRANSPORT]
#
# Proves a ring transport served the traffic: mounts FSEXE with
# transport=TRANSPORT (uring unless given), drives every online CPU with
# `taskset` (the kernel routes a request to the queue of the CPU its caller
# runs on), unmounts and checks the stats (read with stats.sh, no python: the
# vm tier runs this in its busybox guest): the transport asked for, one queue
# per possible CPU, every queue with registered ring entries, and requests on
# the queue of every driven CPU. Prints the stats as "@@FRING-STATS {...}@@".
# FRING_E2E_WAIT: seconds for the mount, each CPU's clients, the unmount and
# the daemon's exit, 30 (polled; waited for in full only when one fails).
set -euo pipefail
FS=${1:?usage: uring-queues.sh FSEXE [TRANSPORT]}
TRANSPORT=${2:-uring}
WAIT=${FRING_E2E_WAIT:-30}
# shellcheck source-path=SCRIPTDIR source=stats.sh
source "$(dirname "${BASH_SOURCE[0]}")/stats.sh"
# shellcheck source-path=SCRIPTDIR source=../lib/check.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/check.sh"
[[ $(id -u) == 0 ]] || skip "needs root"
PARAM=/sys/module/fuse/parameters/enable_uring
[[ -w $PARAM ]] || skip "no $PARAM: this kernel has no FUSE-over-io_uring"

is_mounted() {
	awk -v m="$1" '$5 == m {f=1} END {exit !f}' /proc/self/mountinfo
}
# the file system type of the top mount at $1 (mountinfo: the field after
# the " - " separator)
top_fstype() {
	awk -v m="$1" '$5 == m { for (i = 7; i <= NF; i++) if ($i == "-") { t = $(i + 1); break } }
		END { print t }' /proc/self/mountinfo
}

TMP=$(mktemp -d /tmp/fring-uq.XXXXXX)
MNT=$TMP/mnt
mkdir "$MNT"
old=$(cat "$PARAM")
pid=
# shellcheck disable=SC2317 # (run by the trap)
cleanup() {
	set +e
	is_mounted "$MNT" && { umount "$MNT" || umount -l "$MNT"; }
	[[ -n $pid ]] && kill -KILL "$pid" 2>/dev/null
	echo "$old" >"$PARAM"
	rm -rf "$TMP"
}
trap cleanup EXIT
echo Y >"$PARAM"

"$FS" -f -o "transport=$TRANSPORT" --stats-file="$TMP/stats.json" "$MNT" >"$TMP/log" 2>&1 &
pid=$!
for _ in $(seq $((WAIT * 20))); do
	is_mounted "$MNT" && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.05
done
# Only into the FUSE mount: a late or failed mount would have the clients
# write into the directory underneath.
fstype=$(top_fstype "$MNT")
if [[ $fstype != fuse* ]]; then
	fail mount "expected $FS's FUSE mount at $MNT within $WAIT s got ${fstype:-none}"
	sed 's/^/# /' "$TMP/log"
	check_done
fi

ncpu=$(nproc)
drove=0
for ((c = 0; c < ncpu; c++)); do
	if timeout -k 5 "$WAIT" taskset -c "$c" sh -c "for i in 1 2 3 4 5; do echo cpu$c-\$i > '$MNT/f$c'; cat '$MNT/f$c' >/dev/null; done; ls -la '$MNT' >/dev/null"; then
		drove=$((drove + 1))
	else
		echo "# cpu $c: the clients failed or took over $WAIT s"
	fi
done
timeout -k 5 "$WAIT" umount "$MNT" || umount -l "$MNT" || true
# the daemon's exit, bounded: one still there after WAIT is killed
for _ in $(seq $((WAIT * 10))); do
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
exited=1
kill -0 "$pid" 2>/dev/null && { exited=0; kill -KILL "$pid"; }
rc=0
wait "$pid" || rc=$?
pid=
sed -n '/mounted /s/^/# fs: /p' "$TMP/log"

possible=0
IFS=, read -r -a parts </sys/devices/system/cpu/possible
for part in "${parts[@]}"; do
	a=${part%-*} b=${part#*-}
	possible=$((possible + b - a + 1))
done

get() { stats_get "$TMP/stats.json" "$1"; }
num() { [[ $1 =~ ^[0-9]+$ ]] && echo "$1" || echo 0; }

check clients_done "expected the clients of all $ncpu CPUs to finish within $WAIT s, $drove did" \
	test "$drove" = "$ncpu"
check daemon_exit_0 "$( ((exited)) && echo "exit status $rc" || echo "still running $WAIT s after the unmount")" \
	test "$((exited && rc == 0))" = 1
stats_checks "$TMP/stats.json" "$TRANSPORT" uring-queues || true
nq=$(get per_queue.length)
check one_queue_per_possible_cpu "expected $possible got $nq" test "$nq" = "$possible"
for ((i = 0; i < $(num "$nq"); i++)); do
	e=$(get "per_queue.$i.ring_entries")
	check "queue${i}_registered" "ring_entries $e" test "$(num "$e")" -gt 0
	if ((i < ncpu)); then
		r=$(get "per_queue.$i.requests")
		check "queue${i}_served" "requests $r" test "$(num "$r")" -gt 0
	fi
done
echo "# totals: requests $(get requests), side channel $(get side_channel.requests), reason: $(get transport_reason)"
check_done
