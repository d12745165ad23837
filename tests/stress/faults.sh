#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# faults.sh PASSTHROUGH TRANSPORT LOAD JOURNAL
#
# Lifecycle under load: examples/passthrough over a fresh tmpfs source, on
# TRANSPORT, ended in every way while fio (one job per CPU, random 4 KiB
# reads and writes with fsync) and a metadata storm (LOAD --until-error, 4
# clients) run and JOURNAL writes fsync'ed records:
#   umount      a normal umount under load (EBUSY while files are open, or
#               done), then the clients stopped and the umount done
#   lazy        umount -l under load; clients keep their open files a while
#   exit        SIGTERM: the daemon's fring_session_exit()
#   abort       fusectl abort
#   kill        kill -9
#   restart     mount, load, kill -9, umount, remount: 50 times (scaled)
# After each: every client returned within T seconds (no hang), the journal
# and the storm hold as many descriptors as they started with and read no
# wrong data, the daemon is gone with all its threads, the mountpoint is
# not mounted, the kernel's connection is gone from fusectl, and every
# record the journal had fsync'ed before the fault is intact in the source.
#
# FRING_STRESS_SCALE (1) scales the restarts (0.1: 5). FRING_E2E_WAIT: the
# seconds T (30) a mount, a client's return, the daemon's and the
# connection's end get; polled, so waited for in full only when one fails
# (the stress suite runs on a loaded machine by design). Needs root and fio.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../lib/check.sh
source "$here/../lib/check.sh"
# shellcheck source=../e2e/stats.sh
source "$here/../e2e/stats.sh"
# shellcheck source=../e2e/mount-lib.sh
source "$here/../e2e/mount-lib.sh"
usage="usage: faults.sh PASSTHROUGH TRANSPORT LOAD JOURNAL"
FS=${1:?$usage}
TRANSPORT=${2:?$usage}
LOAD=${3:?$usage}
JOURNAL=${4:?$usage}
[[ $(id -u) == 0 ]] || skip "needs root"
command -v fio >/dev/null || skip "no fio (scripts/setup-deps.sh installs it)"
scale=${FRING_STRESS_SCALE:-1}
restarts=$(awk -v s="$scale" 'BEGIN { n = int(50 * s + 0.5); print n < 1 ? 1 : n }')
T=${FRING_E2E_WAIT:-30}

uring_on "$TRANSPORT"
TMP=$(mktemp -d /tmp/fring-stress.XXXXXX)
SRC=$TMP/src
# The mountpoint is a directory of a read-only file system: once the mount
# is gone, a client that goes on by path (fio lays its files out again)
# gets EROFS instead of working on in the directory underneath.
MNT=$TMP/ro/mnt
mkdir "$SRC" "$TMP/ro"
mount -t tmpfs -o mode=0755 fring-stress-src "$SRC"
mount -t tmpfs -o size=64k,mode=0755 fring-stress-mp "$TMP/ro"
mkdir "$MNT"
mount -o remount,ro "$TMP/ro"
pid=
clients=()
# shellcheck disable=SC2317 # (run by the trap)
cleanup() {
	signal_clients KILL
	[[ -n $pid ]] && kill -KILL "$pid" 2>/dev/null
	mounted && { umount "$MNT" 2>/dev/null || umount -l "$MNT"; }
	umount "$SRC" 2>/dev/null || umount -l "$SRC"
	umount "$TMP/ro" 2>/dev/null || umount -l "$TMP/ro"
	uring_restore
	rm -rf "$TMP"
}
trap cleanup EXIT

conn=
start() { # NAME
	# (again each time: another test on this machine may have put the
	# switch back meanwhile)
	[[ -n $old_param ]] && echo Y >"$PARAM"
	"$FS" -f -o "transport=$TRANSPORT" --stats-file="$TMP/$1.stats" "$SRC" "$MNT" >"$TMP/$1.log" 2>&1 &
	pid=$!
	# up to T (not a fixed 10 s: a loaded machine), less if it died
	if mount_wait "$pid"; then
		conn=$(fusectl)
		return 0
	fi
	fail "$1.mount" "did not mount within $T s"
	cat "$TMP/$1.log"
	return 1
}

# The clients, on every CPU; SECONDS of load before the fault.
load() { # NAME SECONDS
	t_fault=$SECONDS
	"$JOURNAL" write "$MNT/journal.$1" "$TMP/$1.progress" >"$TMP/$1.journal" 2>&1 &
	clients=($!)
	"$LOAD" "$MNT" --until-error --clients 4 --seconds 600 >"$TMP/$1.load" 2>&1 &
	clients+=($!)
	# (--thread: the jobs are threads, which end with the process)
	fio --name="$1" --directory="$MNT" --thread --rw=randrw --bs=4k --size=2M \
		--numjobs="$(nproc)" --cpus_allowed="0-$(($(nproc) - 1))" \
		--cpus_allowed_policy=split --ioengine=psync --fsync=16 \
		--time_based --runtime=600 >"$TMP/$1.fio" 2>&1 &
	clients+=($!)
	sleep "$2"
}
# Runs the fault and says how long it took, if a second or more.
fault() { # NAME CMD...
	local t0=$EPOCHREALTIME rc
	"${@:2}"
	rc=$?
	awk -v a="$t0" -v b="$EPOCHREALTIME" -v n="$1" -v c="${*:2}" \
		'BEGIN { if (b - a >= 1) printf "# %s: %s took %.1f s\n", n, c, b - a }'
	return "$rc"
}
stop_clients() { signal_clients TERM; }
signal_clients() { # SIG
	local p
	for p in "${clients[@]}"; do kill "-$1" "$p" 2>/dev/null; done
}

# Every client must return by itself within T (no hang); the journal and the
# storm end with their descriptors closed and no wrong data read.
clients_return() { # NAME
	local deadline=$((SECONDS + T)) alive p
	t_end=$SECONDS
	while ((SECONDS < deadline)); do
		alive=0
		for p in "${clients[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
		((alive)) || break
		sleep 0.1
	done
	if ((alive)); then
		fail "$1.clients_return" "expected every client to return within $T s; $(ps -o pid=,stat=,wchan:32=,args= "${clients[@]}" | tr '\n' ';')"
		signal_clients KILL
	fi
	steps="clients returned after $((SECONDS - t_end)) s"
	wait "${clients[0]}" || fail "$1.journal" "$(tail -n 3 "$TMP/$1.journal")"
	wait "${clients[1]}" || fail "$1.storm" "$(grep FAIL "$TMP/$1.load" | head -n 5)"
	wait "${clients[2]}"
	clients=()
}

# The connection's fusectl directory is gone, or its number was given to a
# new mount (another test's on this machine: field 3 of mountinfo is its
# device 0:N).
conn_gone() {
	[[ -e $conn ]] || return 0
	awk -v d="0:${conn##*/}" '$3 == d {f=1} END {exit !f}' /proc/self/mountinfo
}

# After the session ended: daemon, mount and connection gone, data intact.
ended() { # NAME
	local n=0 cleanly=1
	if gone "$pid"; then
		wait "$pid" 2>/dev/null
	else
		fail "$1.daemon_gone" "pid $pid still there ($(threads_of "$pid") threads) $T s after the end"
		cleanly=0
	fi
	pid=
	steps="$steps, daemon gone after $((SECONDS - t_end)) s"
	if mounted; then
		# a killed or aborted daemon leaves the mount to its owner
		umount "$MNT" 2>/dev/null || { fail "$1.umount" "umount of the dead mount failed"; cleanly=0; }
	fi
	mounted && { fail "$1.unmounted" "still mounted"; cleanly=0; }
	for _ in $(seq $((T * 10))); do conn_gone && break; sleep 0.1; done
	conn_gone || { fail "$1.connection_gone" "$conn still there, $(cat "$conn/waiting" 2>/dev/null) requests waiting"; cleanly=0; }
	echo "# $1: $steps, connection gone after $((SECONDS - t_end)) s"
	[[ -s $TMP/$1.progress ]] && n=$(cat "$TMP/$1.progress")
	"$JOURNAL" check "$SRC/journal.$1" "$n" >"$TMP/$1.check" ||
		{ fail "$1.fsynced_data" "$(cat "$TMP/$1.check")"; cleanly=0; }
	((cleanly)) && ok "$1.clean_end ($n fsync'ed records intact, $((SECONDS - t_fault)) s)"
}

# umount: refused while busy (or done), never hanging --------------------
if start umount; then
	load umount 2
	if fault umount timeout "$T" umount "$MNT" 2>"$TMP/umount.err"; then
		ok "umount.under_load (done)"
	elif grep -q busy "$TMP/umount.err"; then
		ok "umount.under_load (EBUSY)"
	else
		fail umount.under_load "$(cat "$TMP/umount.err")"
	fi
	stop_clients
	clients_return umount
	mounted && { umount "$MNT" || fail umount.after_clients "umount failed"; }
	gone "$pid" && { wait "$pid"; rc=$?; [[ $rc == 0 ]] || fail umount.exit_0 "exit status $rc"; }
	ended umount
fi

# lazy: clients keep their open files; the daemon ends after the last ----
if start lazy; then
	load lazy 2
	fault lazy umount -l "$MNT" || fail lazy.umount "umount -l failed"
	sleep 2
	stop_clients
	clients_return lazy
	gone "$pid" && { wait "$pid"; rc=$?; [[ $rc == 0 ]] || fail lazy.exit_0 "exit status $rc"; }
	ended lazy
fi

# exit: SIGTERM is fring_session_exit() ----------------------------------
if start exit; then
	load exit 2
	fault exit kill -TERM "$pid"
	clients_return exit
	if gone "$pid"; then
		wait "$pid"; rc=$?
		[[ $rc == 0 ]] && ok exit.exit_0 || fail exit.exit_0 "exit status $rc"
		stats_checks "$TMP/exit.stats" "$TRANSPORT" exit
	fi
	ended exit
fi

# abort: fusectl ---------------------------------------------------------
if start abort; then
	load abort 2
	if [[ -e $conn/abort ]]; then fault abort sh -c 'echo 1 >"$1"' - "$conn/abort"; else fail abort.fusectl "no $conn/abort"; kill -TERM "$pid"; fi
	clients_return abort
	ended abort
fi

# kill: kill -9 ----------------------------------------------------------
if start kill; then
	load kill 2
	fault kill kill -KILL "$pid"
	clients_return kill
	ended kill
fi

# restart: mount, load, kill -9, umount, remount --------------------------
done_restarts=0
t0=$SECONDS
for i in $(seq "$restarts"); do
	start "restart$i" || break
	load "restart$i" 0.5
	kill -KILL "$pid"
	before=$failed
	clients_return "restart$i"
	ended "restart$i" >"$TMP/restart.out"
	grep -v '^ok \|^# ' "$TMP/restart.out"
	((failed > before)) && break
	passed=$((passed - 1)) # one check for the loop, below
	done_restarts=$i
done
if ((done_restarts == restarts)); then
	ok "restart.loop ($restarts times in $((SECONDS - t0)) s)"
else
	fail restart.loop "stopped after $done_restarts of $restarts"
fi

# nothing of ours left: no mount under TMP, no daemon of FS
if awk -v m="$MNT" 'index($5, m) == 1 {f=1} END {exit !f}' /proc/self/mountinfo; then
	fail leftovers.mounts "$(grep "$TMP" /proc/self/mountinfo)"
else
	ok leftovers.none
fi
check_done
