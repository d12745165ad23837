#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# teardown.sh FSEXE TRANSPORT [--with-source]
# (--with-source: FSEXE takes a source directory before the mountpoint, as
# examples/passthrough does; a fresh one is made)
#
# Ends a session under load in every way the kernel or an operator can, on
# one transport, and checks that each ends cleanly: the daemon exits (status
# 0 where it is told to stop, any status when killed), no thread or mount is
# left behind, clients get errors rather than hangs, and the mountpoint can
# be mounted again.
#   a) fusectl abort while clients read and write
#   b) SIGTERM while clients read and write (exit 0, unmounted)
#   c) kill -9 while clients read and write: ENOTCONN, umount, remount works
#   d) umount -l while clients hold files open and keep working
# The stats part b's daemon writes at exit are checked with stats.sh
# (transport, requests, FRING_E2E_STATS_EXPECT) and printed as
# "@@FRING-STATS {...}@@". Bash, awk and busybox-level tools only: the vm tier
# runs it in its guest.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/check.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/check.sh"
# shellcheck source-path=SCRIPTDIR source=stats.sh
source "$(dirname "${BASH_SOURCE[0]}")/stats.sh"
# shellcheck source-path=SCRIPTDIR source=mount-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/mount-lib.sh"
FS=${1:?usage: teardown.sh FSEXE TRANSPORT}
TRANSPORT=${2:?usage: teardown.sh FSEXE TRANSPORT}
[[ $(id -u) == 0 ]] || skip "needs root"
# how long a session may take to end after its fault (the vm tier gives 60:
# an emulated guest on a loaded host can take tens of seconds for the lazy
# unmount's RCU grace period alone)
T=${FRING_E2E_TEARDOWN_SECONDS:-15}

TMP=$(mktemp -d /tmp/fring-td.XXXXXX)
MNT=$TMP/mnt
mkdir "$MNT"
fs_args=()
if [[ ${3:-} == --with-source ]]; then
	mkdir "$TMP/src"
	fs_args=("$TMP/src")
fi
uring_on "$TRANSPORT"
pid=
load_pids=()
# shellcheck disable=SC2317 # (run by the trap)
cleanup() {
	for p in "${load_pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
	[[ -n $pid ]] && kill -KILL "$pid" 2>/dev/null
	mounted && { umount "$MNT" 2>/dev/null || umount -l "$MNT"; }
	uring_restore
	rm -rf "$TMP"
}
trap cleanup EXIT

start() { # NAME
	"$FS" -f -o "transport=$TRANSPORT" --stats-file="$TMP/$1.stats" "${fs_args[@]}" "$MNT" >"$TMP/$1.log" 2>&1 &
	pid=$!
	# up to T (not a fixed 10 s: a loaded machine), less if it died
	mount_wait "$pid"
}
# Clients that read and write until they get an error; each is bounded.
load() {
	load_pids=()
	for i in 1 2 3 4; do
		(
			f=$MNT/load$i
			end=$((SECONDS + 30))
			while ((SECONDS < end)); do
				# once unmounted, the path is the plain directory
				mounted || exit 0
				dd if=/dev/zero of="$f" bs=64k count=16 conv=fsync status=none 2>/dev/null || exit 0
				cat "$f" >/dev/null 2>&1 || exit 0
				ls "$MNT" >/dev/null 2>&1 || exit 0
			done
		) &
		load_pids+=($!)
	done
	# the fault must come while requests flow: wait for the clients'
	# first files (seconds in an emulated guest on a loaded host), then
	# let them run a little
	for _ in $(seq 300); do
		compgen -G "$MNT/load*" >/dev/null && break
		sleep 0.1
	done
	sleep 0.5
}
# Waits for the load to end by itself (clients must see errors, not hang).
load_ends() { # NAME
	local deadline=$((SECONDS + T)) alive
	while ((SECONDS < deadline)); do
		alive=0
		for p in "${load_pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
		((alive)) || { ok "$1.clients_return"; load_pids=(); return; }
		sleep 0.2
	done
	fail "$1.clients_return" "expected the clients to get errors within $T s, some hang"
}
# a) fusectl abort -------------------------------------------------------
if start a; then
	load
	conn=$(fusectl)
	if [[ -n $conn && -e $conn/abort ]]; then
		echo 1 >"$conn/abort"
		if gone "$pid"; then ok a.daemon_exits; else fail a.daemon_exits "still running after abort"; fi
		load_ends a
		# the daemon unmounts as it ends; if it could not, the mount must
		# fail cleanly and unmount
		if mounted; then
			err=$(probe)
			dead_answer "$err" && ok a.enotconn || fail a.enotconn "stat said: $err"
			umount "$MNT" && ok a.umount || fail a.umount "umount failed"
		else
			ok a.daemon_unmounted
		fi
	else
		fail a.fusectl "no abort file for the connection ($conn)"
	fi
	wait "$pid" 2>/dev/null
	pid=
else
	fail a.mount "did not mount"; cat "$TMP/a.log"
fi

# b) SIGTERM under load ----------------------------------------------------
if start b; then
	load
	kill -TERM "$pid"
	if gone "$pid"; then
		wait "$pid"; rc=$?
		[[ $rc == 0 ]] && ok b.exit_0 || fail b.exit_0 "exit status $rc"
		# the stats it wrote at exit: the transport that ran, the rung's proof
		stats_checks "$TMP/b.stats" "$TRANSPORT" b
	else
		fail b.exit_0 "still running $T s after SIGTERM ($(threads_of "$pid") threads)"
	fi
	pid=
	mounted && fail b.unmounted "still mounted" || ok b.unmounted
	load_ends b
else
	fail b.mount "did not mount"; cat "$TMP/b.log"
fi

# c) kill -9 under load, then remount --------------------------------------
if start c; then
	load
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	pid=
	load_ends c
	err=$(probe)
	dead_answer "$err" && ok c.enotconn || fail c.enotconn "stat said: $err"
	umount "$MNT" && ok c.umount || fail c.umount "umount of the dead mount failed"
	if start c2; then
		timeout "$T" sh -c "echo again >'$MNT/x'" && [[ $(timeout "$T" cat "$MNT/x") == again ]] && ok c.remount_works || fail c.remount_works "I/O on the new mount failed"
		umount "$MNT"
		gone "$pid" && ok c.remount_exits || fail c.remount_exits "daemon did not exit after umount"
		wait "$pid"; pid=
	else
		fail c.remount "did not mount again"; cat "$TMP/c2.log"
	fi
else
	fail c.mount "did not mount"; cat "$TMP/c.log"
fi

# d) lazy unmount while clients keep working ------------------------------
if start d; then
	exec 7<>"$MNT/held"
	echo held-data >&7
	load
	umount -l "$MNT" && ok d.lazy_umount || fail d.lazy_umount "umount -l failed"
	# clients holding the cwd/files keep going; new opens fail (gone)
	cat /proc/self/fd/7 >/dev/null 2>&1 && ok d.open_fd_works || fail d.open_fd_works "read through the held fd failed"
	exec 7>&-
	for p in "${load_pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
	load_pids=()
	if gone "$pid"; then
		wait "$pid"; rc=$?
		[[ $rc == 0 ]] && ok d.exit_0 || fail d.exit_0 "exit status $rc"
	else
		fail d.exit_0 "daemon still running after the last file closed"
	fi
	pid=
else
	fail d.mount "did not mount"; cat "$TMP/d.log"
fi

check_done
