# shellcheck shell=bash
# SPDX-License-Identifier: MIT
#
# Helpers of the edge tier's cases (edges.sh runs one case a process, with
# this file and the part's file sourced). Set by edges.sh: TRANSPORT (dev,
# uring, bufpool, bufpool-registered, zerocopy), MEMFS, PT, PROBE (paths of
# the programs; "-" when the part has no use for one), CASE (the case's name)
# and D (the case's own directory: everything it mounts is under D, and the
# case's end unmounts only what is under D). Bash, awk and busybox-level tools
# only: the vm tier runs the unmount and signal parts in its 7.3 guest.

T=${FRING_EDGES_T:-20} # seconds for anything that should be quick

# ok SUB, fail SUB WHY, skip_check SUB WHY, check SUB WHY COMMAND...: print
# "ok CASE.SUB" ("ok CASE" for an empty SUB), ... (tests/lib/check.sh);
# edges.sh counts the lines
# shellcheck source-path=SCRIPTDIR source=../lib/check.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/check.sh"
CHECK_CASE=$CASE

# The mount table, as this process sees it (field 5: the mount point, after
# " - ": the type). The last line for a path is the mount on top.
top_fstype() { # DIR -> the type of the mount on top at DIR, or nothing
	awk -v m="$1" '$5 == m { for (i = 7; $i != "-"; i++); t = $(i + 1) } END { print t }' \
		/proc/self/mountinfo
}
mount_count() { # DIR -> how many mounts are stacked at DIR
	awk -v m="$1" '$5 == m { n++ } END { print n + 0 }' /proc/self/mountinfo
}
is_fuse_mount() { # DIR: the mount on top at DIR is a FUSE one
	[[ $(top_fstype "$1") == fuse* ]]
}
is_mounted() { [[ $(mount_count "$1") -gt 0 ]]; }

wait_for() { # SECONDS COMMAND...: 0 once COMMAND succeeds within SECONDS
	local s=$1 i
	shift
	for ((i = 0; i < s * 20; i++)); do
		"$@" && return 0
		sleep 0.05
	done
	"$@"
}
alive() { kill -0 "$1" 2>/dev/null; }
dead() { ! kill -0 "$1" 2>/dev/null; }
wait_gone() { wait_for "${2:-$T}" dead "$1"; }
# PID (a child of this shell) -> its exit status, once it has exited
status_of() {
	local rc=0
	wait "$1" 2>/dev/null || rc=$?
	echo "$rc"
}

# Daemons a case starts: started in the background with their stderr in
# $D/log.N; DPID and DLOG name the last one. They run in the foreground (-f),
# so the case owns them and their exit status.
DPIDS=()
n_started=0
start_daemon() { # DIR PROGRAM ARGS...: starts it, 0 once a new FUSE mount is on top at DIR
	local dir=$1 before
	shift
	mkdir -p "$dir"
	before=$(mount_count "$dir")
	n_started=$((n_started + 1))
	DLOG=$D/log.$n_started
	"$@" >"$DLOG" 2>&1 &
	DPID=$!
	DPIDS+=("$DPID")
	wait_new_mount "$dir" "$before" "$DPID"
}
wait_new_mount() { # DIR COUNT-BEFORE PID
	local i
	for ((i = 0; i < T * 20; i++)); do
		if [[ $(mount_count "$1") -gt $2 ]] && is_fuse_mount "$1"; then return 0; fi
		alive "$3" || break
		sleep 0.05
	done
	[[ $(mount_count "$1") -gt $2 ]] && is_fuse_mount "$1"
}
# The transport option of every mount: TRANSPORT, and the rung's pool or
# zero-copy switch on 7.46 (the ladder picks the rung from transport=).
topt() { echo "transport=$TRANSPORT"; }
start_memfs() { # DIR [OPTIONS...]: memfs -f -o transport=...,OPTIONS DIR
	local dir=$1 o
	shift
	o=$(topt)
	[[ $# -gt 0 ]] && o="$o,$(IFS=,; echo "$*")"
	start_daemon "$dir" "$MEMFS" -f -o "$o" "$dir"
}
start_pt() { # SRC DIR [OPTIONS...]
	local src=$1 dir=$2 o
	shift 2
	o=$(topt)
	[[ $# -gt 0 ]] && o="$o,$(IFS=,; echo "$*")"
	start_daemon "$dir" "$PT" -f -o "$o" "$src" "$dir"
}
# The transport the daemon said it serves on (its mount line on stderr).
transport_of() { # LOG
	sed -n 's/.*mounted .*, transport \([a-z-]*\).*/\1/p' "$1" | head -n 1
}
# The mount becomes visible before the daemon logs its mount line (on the
# ring the line comes once the queues are registered): wait for the line.
has_mount_line() { [[ -n $(transport_of "$1") ]]; }
ran_on_transport() { # LOG: the daemon of LOG mounted on TRANSPORT
	wait_for "$T" has_mount_line "$1"
	[[ $(transport_of "$1") == "$TRANSPORT" ]]
}
# A client's answer from a mount whose daemon is gone: the kernel answers a
# dead connection with ENOTCONN; on the ring transport a request in flight
# when the daemon died ends with ECONNABORTED (and an aborted ring entry
# with ECANCELED).
DEAD_RE='Transport endpoint is not connected|Software caused connection abort|Operation canceled|Connection refused'

mk() { mkdir -p "$@"; }
tmpfs_at() { # DIR: a small tmpfs of the case's own at DIR
	mk "$1"
	mount -t tmpfs -o size=8m "edges-$CASE" "$1"
}

# The end of a case: its daemons are stopped (SIGTERM, then SIGKILL), the
# connections of its FUSE mounts aborted, and every mount under D detached,
# deepest first. Nothing outside D is touched.
edges_cleanup() {
	local p m dev
	for p in "${DPIDS[@]}"; do kill -TERM "$p" 2>/dev/null || :; done
	for p in "${DPIDS[@]}"; do wait_for 5 dead "$p" || kill -KILL "$p" 2>/dev/null || :; done
	[[ -d /sys/fs/fuse/connections ]] || mkdir -p /sys/fs/fuse/connections
	awk '$5 == "/sys/fs/fuse/connections" { f = 1 } END { exit !f }' /proc/self/mountinfo ||
		mount -t fusectl none /sys/fs/fuse/connections 2>/dev/null || :
	for _ in 1 2 3 4 5 6 7 8; do
		m=$(awk -v d="$D/" 'index($5, d) == 1 { print length($5) "\t" $5 "\t" $3 }' \
			/proc/self/mountinfo | sort -rn | head -n 1)
		[[ -n $m ]] || break
		dev=$(cut -f3 <<<"$m")
		m=$(cut -f2 <<<"$m")
		# a FUSE connection whose daemon is stuck: abort it first
		[[ -e /sys/fs/fuse/connections/${dev#0:}/abort ]] &&
			echo 1 >"/sys/fs/fuse/connections/${dev#0:}/abort" 2>/dev/null
		umount -l "$m" 2>/dev/null || break
	done
	for p in "${DPIDS[@]}"; do wait "$p" 2>/dev/null || :; done
}
