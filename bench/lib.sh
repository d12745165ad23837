# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# What bench/run.sh and bench/slow.sh share: logging, the mount checks, the
# server's CPU time, starting a server until its mount is up and stopping
# it, turning enable_uring on for a run and back, and the environment
# lines every results directory starts with. Sourced; it only defines.
# The caller sets MNT, OUT and DAEMON_PID, and OLD_URING/ENABLE_URING when
# it touches enable_uring.

log() { printf '[%s] %s\n' "$(date +%T)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

is_mounted() { awk -v m="$1" '$5 == m { f=1 } END { exit !f }' /proc/self/mountinfo; }

# A FUSE mount at DIR, as /proc/mounts shows it: a server that failed to
# mount leaves a plain directory behind, which must never be measured.
is_fuse_mounted() { awk -v m="$1" '$2 == m && $3 ~ /^fuse/ { f=1 } END { exit !f }' /proc/mounts; }

cpu_of() { # PID -> utime+stime in clock ticks, -1 if it is gone
	local s
	s=$(cat "/proc/$1/stat" 2>/dev/null) || { echo -1; return; }
	s=${s##*) }
	# shellcheck disable=SC2086
	set -- $s
	echo $(( ${12} + ${13} ))
}

utime_of() { # PID -> utime alone in clock ticks, -1 if it is gone
	local s
	s=$(cat "/proc/$1/stat" 2>/dev/null) || { echo -1; return; }
	s=${s##*) }
	# shellcheck disable=SC2086
	set -- $s
	echo "${12}"
}

# Starts a server command in the background (DAEMON_PID) with its output in
# LOG and waits, 10 s at most, until MNT is mounted or the server is gone.
# 0 when the mount came up; else the log is shown and the server stopped.
start_server() { # NAME LOG CMD...
	local name=$1 logf=$2
	shift 2
	"$@" >"$logf" 2>&1 &
	DAEMON_PID=$!
	for _ in $(seq 100); do
		is_mounted "$MNT" && break
		kill -0 "$DAEMON_PID" 2>/dev/null || break
		sleep 0.1
	done
	is_mounted "$MNT" && return 0
	log "$name did not mount; its log:"
	cat "$logf" >&2
	stop_server
	return 1
}

# Unmounts MNT and waits for the server to end (10 s), then kills it.
stop_server() {
	[ -z "$DAEMON_PID" ] && return 0
	is_mounted "$MNT" && umount "$MNT" 2>/dev/null
	for _ in $(seq 100); do
		kill -0 "$DAEMON_PID" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$DAEMON_PID" 2>/dev/null; then
		log "server $DAEMON_PID did not exit after umount: killing it"
		kill "$DAEMON_PID" 2>/dev/null
		sleep 0.5
		kill -9 "$DAEMON_PID" 2>/dev/null
	fi
	wait "$DAEMON_PID" 2>/dev/null
	is_mounted "$MNT" && umount -l "$MNT" 2>/dev/null
	DAEMON_PID=""
}

# At exit: what is mounted at DIR, and a server still running.
cleanup_server() { # DIR...
	local d
	for d in "$@"; do
		if is_mounted "$d"; then
			umount "$d" 2>/dev/null || umount -l "$d" 2>/dev/null
		fi
	done
	if [ -n "$DAEMON_PID" ] && kill -0 "$DAEMON_PID" 2>/dev/null; then
		sleep 1
		kill "$DAEMON_PID" 2>/dev/null
		wait "$DAEMON_PID" 2>/dev/null
	fi
}

# enable_uring on for the run (OLD_URING keeps what it was), and back.
uring_on() {
	[ -e "$ENABLE_URING" ] || die "$ENABLE_URING missing: the fuse module has no io_uring support"
	OLD_URING=$(cat "$ENABLE_URING")
	echo Y >"$ENABLE_URING" || die "cannot set $ENABLE_URING"
}
uring_restore() {
	if [ -n "$OLD_URING" ] && [ -w "$ENABLE_URING" ]; then
		echo "$OLD_URING" >"$ENABLE_URING" 2>/dev/null && log "enable_uring restored to $OLD_URING"
	fi
}

env_lines() { # the machine, its load and fio
	echo "date: $(date -Is)"
	echo "kernel: $(uname -r)"
	echo "cpus: $(nproc)"
	echo "memory: $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)"
	echo "cpu model: $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)"
	echo "loadavg at start: $(cat /proc/loadavg)"
	echo "fio: $(fio --version)"
}
