#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# [with-uring.sh TRANSPORT] faults.sh TRANSPORT MEMFS PASSTHROUGH FAULT_IO
#
# Fault injection on a host rung (dev or uring), from a build configured with
# -Dfault_injection=true (doc/reliability.md, "Fault injection"). Each case
# mounts MEMFS or PASSTHROUGH with FRING_FAULT and/or -o fault=..., runs
# FAULT_IO (tests/e2e/fault_io.c: exact outcome of each write and read),
# unmounts and checks:
#   - the client saw exactly the errno (or short count) expected, and data
#     written around the fault reads back byte for byte (FAULT_IO);
#   - the daemon kept serving (no crash: exit status 0 after the unmount,
#     or the refusal expected) and nothing hung (every step bounded);
#   - the stats name the transport that ran (the fallback, when there is
#     one, also said in the log) and the fault counter shows the fault fired;
#   - the daemon holds as many descriptors after the faults as before.
# Exit status 0 pass, 1 fail, 77 skip (1 with FRING_E2E_NO_SKIP=1).
# FRING_E2E_WAIT: seconds for what should be quick (a mount, an exit, an
# unmount, a descriptor closed after a client's close), 30; polled, so
# waited for in full only when it fails (a loaded machine is slow).
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=stats.sh
source "$(dirname "${BASH_SOURCE[0]}")/stats.sh"
# shellcheck source-path=SCRIPTDIR source=../lib/check.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/check.sh"

[[ $# == 4 ]] || { echo "usage: $0 TRANSPORT MEMFS PASSTHROUGH FAULT_IO" >&2; exit 1; }
T=$1 MEMFS=$2 PT=$3 FIO=$4
WAIT=${FRING_E2E_WAIT:-30}

[[ $(id -u) == 0 ]] || skip "faults.sh mounts: it needs root"
[[ -c /dev/fuse ]] || skip "no /dev/fuse"

# (with-uring.sh, which runs this script, turns enable_uring on for uring)
if [[ $T == uring && $(cat /sys/module/fuse/parameters/enable_uring 2>/dev/null) != Y ]]; then
	skip "uring: /sys/module/fuse/parameters/enable_uring is not Y (run through with-uring.sh)"
fi


TMP=$(mktemp -d /tmp/fring-faults.XXXXXX)
chmod 755 "$TMP"
MNT=$TMP/mnt
SRC=$TMP/src
pid=

# is_mounted (from mountinfo: stat(2) on a mount whose every answer fails
# would say no). Only that: mount-lib.sh's T is seconds, here a transport.
# shellcheck source-path=SCRIPTDIR source=mount-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/mount-lib.sh"

# what a failed case left: its mount and its daemon
abandon() {
	is_mounted "$MNT" && umount -l "$MNT"
	if [[ -n $pid ]]; then
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		pid=
	fi
	return 0
}

# shellcheck disable=SC2317  # (run by the trap)
cleanup() {
	local rc=$?
	set +e
	abandon
	rm -rf "$TMP"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

show_log() {
	echo "# --- daemon output ($1) ---"
	tail -n 30 "$LOG" | sed 's/^/# /'
}

# start NAME FS SPEC OPTS: the daemon (memfs, or passthrough over a fresh
# source) with FRING_FAULT=SPEC; returns 1 when it did not mount within
# WAIT s (then $pid is the daemon, exited or not)
start() {
	local name=$1 fs=$2 spec=$3 opts=$4 args=()
	abandon
	LOG=$TMP/$name.log STATS=$TMP/$name.json
	rm -rf "$MNT" "$SRC"
	mkdir -p "$MNT" "$SRC"
	: >"$SRC/f"
	if [[ $fs == passthrough ]]; then
		args=("$PT" -f -o "$opts" --stats-file="$STATS" "$SRC" "$MNT")
	else
		args=("$MEMFS" -f -o "$opts" --stats-file="$STATS" "$MNT")
	fi
	echo "# $name: FRING_FAULT=$spec ${args[*]}"
	FRING_FAULT=$spec "${args[@]}" >"$LOG" 2>&1 &
	pid=$!
	for _ in $(seq $((WAIT * 20))); do
		# the file looked up, so the daemon's descriptor count includes
		# what passthrough keeps for it
		is_mounted "$MNT" && { stat "$MNT/f" >/dev/null 2>&1; return 0; }
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# waits (bounded) for the daemon to exit; sets rc to its exit status, or
# "hung" after WAIT s (then kills it)
reap() {
	for _ in $(seq $((WAIT * 10))); do
		if ! kill -0 "$pid" 2>/dev/null; then
			wait "$pid"
			rc=$?
			pid=
			return
		fi
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	pid=
	rc=hung
}

nfds() { find "/proc/$pid/fd" -mindepth 1 2>/dev/null | wc -l; }
# WANT: the daemon's descriptor count once it is WANT, or what it still
# is after WAIT s. A client's close reaches the daemon as a RELEASE after
# close(2) has returned (the kernel sends it in the background), so the
# count right after a client exits may still include its file: a leak is
# a count that stays above for all of WAIT.
nfds_settled() {
	local n
	for _ in $(seq $((WAIT * 10))); do
		n=$(nfds)
		[[ $n == "$1" ]] && break
		sleep 0.1
	done
	echo "$n"
}

# client NAME OP...: fault_io on the mount, bounded
client() {
	local name=$1 rc
	shift
	timeout -k 5 60 "$FIO" "$MNT/f" "$@" >"$TMP/client.out" 2>&1
	rc=$?
	sed "s/^/# $name: /" "$TMP/client.out"
	if [[ $rc == 0 ]]; then
		ok "$name"
	elif [[ $rc == 124 || $rc == 137 ]]; then
		fail "$name" "expected fault_io to finish within 60 s"
	else
		fail "$name" "expected fault_io to exit 0 got $rc (its checks above)"
	fi
}

# finish NAME TRANSPORT EXPECT FDS_BEFORE: unmount, the daemon exits 0,
# its stats name TRANSPORT and hold EXPECT (stats.sh syntax), no new fds
finish() {
	local name=$1 tp=$2 expect=$3 before=$4 after
	after=$(nfds_settled "$before")
	if [[ $after == "$before" ]]; then
		ok "$name.fds"
	else
		fail "$name.fds" "expected the daemon to hold $before descriptors after the faults got $after (after $WAIT s)"
		find "/proc/$pid/fd" -mindepth 1 -printf '# %f -> %l\n'
	fi
	if timeout "$WAIT" umount "$MNT"; then
		ok "$name.umount"
	else
		fail "$name.umount" "expected umount to work within $WAIT s"
		umount -l "$MNT"
	fi
	reap
	if [[ $rc == 0 ]]; then
		ok "$name.exit"
	else
		fail "$name.exit" "expected the daemon to exit 0 after the unmount got $rc"
		show_log "$name"
	fi
	FRING_E2E_STATS_EXPECT=$expect stats_checks "$STATS" "$tp" "$name" >"$TMP/stats.out" ||
		show_log "$name"
	grep -v '^@@FRING-STATS' "$TMP/stats.out"
	grep -o '"faults":{[^}]*}' "$STATS" | sed "s/^/# $name: /"
}

log_has() { # NAME TEXT
	if grep -qF -- "$2" "$LOG"; then
		ok "$1.log"
	else
		fail "$1.log" "expected the log to say \"$2\""
		show_log "$1"
	fi
}

# ---- the library's points ----

if [[ $T == uring ]]; then
	# io_uring_queue_init fails: auto falls back to /dev/fuse and says so
	if start ring_setup memfs ring_setup:1 transport=auto; then
		client ring_setup.warm w0=4096
		before=$(nfds)
		# the rings built before the failing one are gone, not kept
		rings=$(find "/proc/$pid/fd" -mindepth 1 -lname 'anon_inode:\[io_uring\]' | wc -l)
		if [[ $rings == 0 ]]; then
			ok ring_setup.rings_closed
		else
			fail ring_setup.rings_closed "expected no io_uring descriptor after the fallback got $rings"
		fi
		client ring_setup.io w1=4096 w2=4096 r0=4096 r1=4096 r2=4096
		finish ring_setup dev 'faults.ring_setup=1 faults_injected>0' "$before"
		log_has ring_setup "uring: io_uring setup failed (Cannot allocate memory)"
	else
		fail ring_setup.mount "expected the mount to work on /dev/fuse"
		show_log ring_setup
	fi
	# ... and an explicit transport=uring is refused, not swapped
	# (the mount is made before INIT, then taken down)
	start ring_setup_explicit memfs ring_setup:1 transport=uring
	reap
	if [[ $rc != 0 && $rc != hung ]] && ! is_mounted "$MNT"; then
		ok ring_setup_explicit.refused
	else
		fail ring_setup_explicit.refused "expected the daemon to exit non-zero and unmount got $rc"
		umount -l "$MNT" 2>/dev/null
	fi
	log_has ring_setup_explicit "transport=uring refused: io_uring setup failed"

	# a transient io_uring_enter failure (EAGAIN) is retried: nothing lost
	if start ring_submit memfs ring_submit:12:EAGAIN transport=uring; then
		client ring_submit.warm w0=4096
		before=$(nfds)
		client ring_submit.io w1=4096 w2=4096 w3=4096 \
			r0=4096 r1=4096 r2=4096 r3=4096 w4=4096 r4=4096
		finish ring_submit uring 'faults.ring_submit=1' "$before"
		log_has ring_submit "fault injection: ring_submit"
	else
		fail ring_submit.mount "expected the mount to work"
		show_log ring_submit
	fi
	# a fatal one ends the session: the kernel then fails what it held
	# (ECONNABORTED, fuse_abort_conn; ECANCELED for a ring entry cancelled
	# as the daemon's rings go) and everything after (ENOTCONN), the
	# daemon exits 1; nothing hangs. Which a call gets depends on when it
	# met the dying connection: any of them, never another error or
	# wrong data.
	if start ring_submit_fatal memfs ring_submit:12:EBADF transport=uring; then
		client ring_submit_fatal.io w0=4096 held=200:ENOTCONN/ECONNABORTED/ECANCELED:200
		reap
		if [[ $rc == 1 ]]; then
			ok ring_submit_fatal.exit
		else
			fail ring_submit_fatal.exit "expected the daemon to exit 1 got $rc"
			show_log ring_submit_fatal
		fi
		log_has ring_submit_fatal "io_uring_enter: Bad file descriptor; ending the session"
		is_mounted "$MNT" && umount -l "$MNT"
	else
		fail ring_submit_fatal.mount "expected the mount to work"
		show_log ring_submit_fatal
	fi
fi

if [[ $T == dev ]]; then
	# one answer's write to /dev/fuse fails: the library answers that
	# request EIO instead (it would wait forever otherwise)
	if start dev_write passthrough dev_write:40 transport=dev,cache=never; then
		# (counted before any client: passthrough closes a client's
		# file on its RELEASE, which may come after the client exited)
		before=$(nfds)
		client dev_write.before w0=4096 w1=4096 r0=4096
		client dev_write.loop loop=30:EIO:1
		client dev_write.after r0=4096 r1=4096
		finish dev_write dev 'faults.dev_write=1 send_failures=1' "$before"
		log_has dev_write "answering it EIO"
	else
		fail dev_write.mount "expected the mount to work"
		show_log dev_write
	fi
	# every answer's write fails: every call gets EIO, the unmount works
	if start dev_write_all passthrough dev_write:1+ transport=dev,cache=never; then
		before=$(nfds)
		client dev_write_all.loop loop=5:EIO:5
		finish dev_write_all dev 'faults.dev_write>=5 send_failures>=5' "$before"
	else
		fail dev_write_all.mount "expected the mount to work"
		show_log dev_write_all
	fi
fi

# ---- the backing store (examples/passthrough -o fault=...) ----
# cache=never: each pread/pwrite is one READ/WRITE request, so the Nth
# data request is a known call

if start store_eio passthrough "" "transport=$T,cache=never,fault=eio:4"; then
	before=$(nfds)
	# requests 4 and 8 (writes) and 12 (a read) fail
	client store_eio.io w0=4096 w1=4096 w2=4096 w3=EIO w4=4096 w5=4096 \
		w6=4096 w7=EIO r0=4096 r1=4096 r2=4096 r4=EIO r5=4096 r6=4096
	finish store_eio "$T" 'errors>=3' "$before"
	size=$(stat -c %s "$SRC/f")
	if [[ $size == $((7 * 4096)) ]]; then
		ok store_eio.size
	else
		fail store_eio.size "expected the source file to end with block 6 ($((7 * 4096)) bytes) got $size"
	fi
fi
if start store_enospc passthrough "" "transport=$T,cache=never,fault=enospc:3"; then
	before=$(nfds)
	client store_enospc.io w0=4096 w1=4096 w2=ENOSPC w3=4096 w4=4096 \
		w5=ENOSPC r0=4096 r1=4096 r3=4096 r4=4096
	finish store_enospc "$T" 'errors>=2' "$before"
fi
if start store_short passthrough "" "transport=$T,cache=never,fault=short:3"; then
	before=$(nfds)
	# the kernel hands the short count to the caller (fuse_direct_io);
	# the caller writes the rest again
	client store_short.io w0=4096 w1=4096 w2=2048 w2=4096 w3=4096 \
		r0=4096 r1=4096 r2=4096 r3=4096
	finish store_short "$T" '' "$before"
	log_has store_short "fault injected: write 3"
fi

check_done
